#pragma once
/// \file
/// Parameters of a GDDR5 DRAM system, with the GTX480's figures as defaults: timing in
/// command-clock cycles at 924 MHz (GPGPU-Sim's GTX480 configuration, from the Hynix
/// H5GQ1H24AFR 1 Gb GDDR5 data sheet: tCCD 2, tRRD 6, tRCD 12, tRAS 28, tRP 12, tRC 40, CL 12,
/// WL 4, tCDLR (tWTR) 5, tWR 12, 4 bank groups, tCCDL 3, tRTP 2, burst length 8), the four-
/// activate window and refresh of 1 Gb GDDR5 parts (tREFI 3.9 us: 8192 refreshes per 32 ms;
/// tFAW 23 ns and tRFC 65 ns are typical 1 Gb GDDR5 figures, not read from that part's own
/// AC table, so calibrate them when a data sheet is at hand), the
/// data path (two x32 devices per 64-bit channel: 384 bits over 6 channels), the write queue
/// drained in batches between watermarks (USIMM's 40 / 20 of 64 entries), and the address
/// mapping from a physical address to channel, bank, row and column (arithmetic, or a bit
/// layout with optional XOR bank hashing).

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace warpkit::mem {

/// How a channel refreshes its rows.
enum class refresh_mode : std::uint8_t {
    none,     ///< no refresh (an idealised part)
    all_bank, ///< every tREFI all banks close and the channel waits tRFC (GDDR5's REF)
    per_bank  ///< every tREFI / banks one bank in turn closes and waits tRFCpb
};

} // namespace warpkit::mem

template <>
struct warpkit::enum_names<warpkit::mem::refresh_mode> {
    static constexpr std::array<std::string_view, 3> names = {"none", "all_bank", "per_bank"};
};

namespace warpkit::mem {

/// DRAM timing constraints, in command-clock cycles.
struct dram_timing {
    /// Column command to column command, different bank groups (tCCDS; with one bank group,
    /// every pair).
    std::uint32_t tCCD = 2;
    /// Column command to column command within one bank group (GDDR5 tCCDL).
    std::uint32_t tCCDL = 3;
    std::uint32_t tRRD = 6; ///< activate to activate, different banks of a channel
    /// Four-activate window: at most four activates in any tFAW cycles (23 ns on 1 Gb GDDR5
    /// parts = 22 cycles at 924 MHz; 0: no window).
    std::uint32_t tFAW = 22;
    std::uint32_t tRCD = 12; ///< activate to read or write
    std::uint32_t tRAS = 28; ///< activate to precharge
    std::uint32_t tRP = 12;  ///< precharge to activate
    std::uint32_t tRC = 40;  ///< activate to activate, same bank
    std::uint32_t tCL = 12;  ///< read command to first data (CAS latency)
    std::uint32_t tWL = 4;   ///< write command to first data
    /// Write data end to read command (GPGPU-Sim's tCDLR, 5 on the GTX480).
    std::uint32_t tWTR = 5;
    /// Write data end to precharge, write recovery (12 on the GTX480).
    std::uint32_t tWR = 12;
    /// Read to precharge (GPGPU-Sim's tRTPL, 2 on the GTX480).
    std::uint32_t tRTP = 2;
    /// Bus turnaround added to read-to-write switches.
    std::uint32_t tRTRS = 1;
    /// Average interval between refreshes (3.9 us on GDDR5: 8192 refreshes in 32 ms; 3604
    /// cycles at 924 MHz). Per-bank refresh refreshes one bank every tREFI / banks.
    std::uint32_t tREFI = 3604;
    /// An all-bank refresh's duration (65 ns for 1 Gb GDDR5 = 61 cycles at 924 MHz).
    std::uint32_t tRFC = 61;
    /// A per-bank refresh's duration (refresh_mode::per_bank; GDDR5 parts refresh all banks
    /// at once, so this is half of tRFC, LPDDR4's ratio of tRFCpb to tRFCab).
    std::uint32_t tRFCpb = 31;
    std::uint32_t burst_length = 8;
    /// Data beats per command clock: 4 on GDDR5 (write clock at twice the command clock, data
    /// on both edges), so a burst of 8 holds the data bus 2 cycles.
    std::uint32_t beats_per_cycle = 4;
    WARPKIT_FIELDS(dram_timing, tCCD, tCCDL, tRRD, tFAW, tRCD, tRAS, tRP, tRC, tCL, tWL, tWTR, tWR,
                   tRTP, tRTRS, tREFI, tRFC, tRFCpb, burst_length, beats_per_cycle)

    void validate() const {
        check_range("tCCD", tCCD, 1u, 1000u);
        check_range("tCCDL", tCCDL, 0u, 1000u);
        check_range("tRRD", tRRD, 1u, 1000u);
        check_range("tFAW", tFAW, 0u, 10000u);
        check_range("tRCD", tRCD, 1u, 1000u);
        check_range("tRAS", tRAS, 1u, 10000u);
        check_range("tRP", tRP, 1u, 1000u);
        check_range("tRC", tRC, 1u, 10000u);
        check_range("tCL", tCL, 1u, 1000u);
        check_range("tWL", tWL, 0u, 1000u);
        check_range("tWTR", tWTR, 0u, 1000u);
        check_range("tWR", tWR, 0u, 1000u);
        check_range("tRTP", tRTP, 0u, 1000u);
        check_range("tRTRS", tRTRS, 0u, 1000u);
        check_range("tREFI", tREFI, 1u, 10000000u);
        check_range("tRFC", tRFC, 1u, 100000u);
        check_range("tRFCpb", tRFCpb, 1u, 100000u);
        check_range("burst_length", burst_length, 1u, 64u);
        check_range("beats_per_cycle", beats_per_cycle, 1u, 16u);
        check(burst_length % beats_per_cycle == 0, "burst_length", burst_length,
              "a multiple of beats_per_cycle");
    }
    /// Cycles one burst holds the data bus.
    [[nodiscard]] constexpr std::uint32_t burst_cycles() const noexcept {
        return burst_length / beats_per_cycle;
    }
};

/// How a physical address spreads over channels, banks, rows and columns: consecutive
/// `interleave_bytes` chunks go to consecutive channels (any number of them). Within a channel,
/// by default consecutive `row_bytes` go to consecutive banks, then to the next row; `layout`
/// instead names each bit of the channel's local address, most significant first: `R` row,
/// `B` bank, `C` column, `.` ignored (so `RRRR.BBBB.CCCCCCCCCCC` is the default for 16 banks of
/// 2 KB rows); bits above the layout are row bits. `xor_bank` hashes the bank with the row's
/// low bits (permutation-based interleaving, Zhang, Zhu and Zhang, MICRO 2000), spreading
/// rows that conflict in one bank over all of them. Banks form `bank_groups` groups by their
/// low bits (bank % bank_groups), so consecutive banks alternate groups.
struct address_map {
    std::uint32_t channels = 6;
    std::uint32_t banks = 16;
    std::uint32_t bank_groups = 4;        ///< GDDR5: 4 groups of 4 banks (1: none)
    std::uint32_t interleave_bytes = 256; ///< bytes per channel before the next channel
    std::uint32_t row_bytes = 2048;       ///< bytes of a row (page) of one bank of a channel
    std::string layout;                   ///< bit layout of the local address (empty: arithmetic)
    bool xor_bank = false;                ///< bank ^= low bits of the row
    WARPKIT_FIELDS(address_map, channels, banks, bank_groups, interleave_bytes, row_bytes, layout,
                   xor_bank)

    void validate() const {
        check_range("channels", channels, 1u, 1024u);
        check_range("banks", banks, 1u, 256u);
        check(bank_groups >= 1 && banks % bank_groups == 0, "bank_groups", bank_groups,
              "a divisor of banks");
        check(std::has_single_bit(interleave_bytes) && interleave_bytes >= 32, "interleave_bytes",
              interleave_bytes, "a power of two >= 32");
        check(std::has_single_bit(row_bytes) && row_bytes >= interleave_bytes, "row_bytes",
              row_bytes, "a power of two >= interleave_bytes");
        check(!xor_bank || std::has_single_bit(banks), "xor_bank", xor_bank ? 1 : 0,
              "0 unless banks is a power of two");
        if (!layout.empty()) check_layout();
    }

    /// Where one address lives.
    struct location {
        std::uint32_t channel = 0;
        std::uint32_t bank = 0;
        std::uint64_t row = 0;
        std::uint32_t column = 0; ///< byte offset within the row
        friend constexpr bool operator==(const location&, const location&) noexcept = default;
    };

    /// Channel, bank, row and column of `addr` (reads `layout` on every call: a channel keeps
    /// an address_decoder instead).
    [[nodiscard]] location decode(std::uint64_t addr) const;

private:
    void check_layout() const {
        std::uint32_t bank_bits = 0;
        std::uint32_t column_bits = 0;
        std::uint32_t bits = 0;
        for (std::size_t i = 0; i < layout.size(); ++i) {
            const char c = layout[i];
            if (c == '.') continue;
            if (c != 'R' && c != 'B' && c != 'C')
                throw config_error("layout", layout,
                                   "the letters R, B, C and '.' (character " +
                                       std::to_string(i + 1) + " is '" + std::string(1, c) + "')");
            ++bits;
            bank_bits += c == 'B' ? 1 : 0;
            column_bits += c == 'C' ? 1 : 0;
        }
        check(bits <= 48, "layout", layout, "at most 48 address bits");
        check(std::has_single_bit(banks) && (1u << bank_bits) == banks, "layout", layout,
              "log2(banks) = " + std::to_string(std::bit_width(banks) - 1) +
                  " B bits (banks a power of two)");
        check((1u << column_bits) == row_bytes, "layout", layout,
              "log2(row_bytes) = " + std::to_string(std::bit_width(row_bytes) - 1) + " C bits");
    }
};

/// address_map's decoding with the layout read once: each field's bits gathered from the
/// local address.
class address_decoder {
public:
    explicit address_decoder(const address_map& m) : map_(m) {
        if (m.layout.empty()) return;
        std::uint32_t bit = 0;
        for (auto it = m.layout.rbegin(); it != m.layout.rend(); ++it) {
            if (*it == '.') continue;
            if (bit == field_of_.size()) break; // validate() rejects longer layouts
            field_of_[bit++] = *it;
        }
        bits_ = bit;
    }

    [[nodiscard]] address_map::location decode(std::uint64_t addr) const noexcept {
        const std::uint64_t chunk = addr / map_.interleave_bytes;
        address_map::location l;
        l.channel = static_cast<std::uint32_t>(chunk % map_.channels);
        const std::uint64_t local =
            chunk / map_.channels * map_.interleave_bytes + addr % map_.interleave_bytes;
        if (bits_ == 0) {
            l.column = static_cast<std::uint32_t>(local % map_.row_bytes);
            l.bank = static_cast<std::uint32_t>(local / map_.row_bytes % map_.banks);
            l.row = local / map_.row_bytes / map_.banks;
        } else {
            std::uint32_t row_bit = 0;
            std::uint32_t bank_bit = 0;
            std::uint32_t column_bit = 0;
            for (std::uint32_t b = 0; b < bits_; ++b) {
                const std::uint64_t v = (local >> b) & 1u;
                if (field_of_[b] == 'R')
                    l.row |= v << row_bit++;
                else if (field_of_[b] == 'B')
                    l.bank |= static_cast<std::uint32_t>(v << bank_bit++);
                else
                    l.column |= static_cast<std::uint32_t>(v << column_bit++);
            }
            l.row |= (local >> bits_) << row_bit;
        }
        if (map_.xor_bank) l.bank ^= static_cast<std::uint32_t>(l.row & (map_.banks - 1));
        return l;
    }

private:
    address_map map_;
    std::array<char, 48> field_of_{}; // field of each local-address bit, least significant first
    std::uint32_t bits_ = 0;
};

inline address_map::location address_map::decode(std::uint64_t addr) const {
    return address_decoder(*this).decode(addr);
}

/// One DRAM channel: timing, banks, data path, refresh and its scheduler queues (FR-FCFS
/// queue 64 on the GTX480).
struct dram_params {
    dram_timing timing{};
    address_map map{};
    /// Devices side by side on a channel's data bus (GPGPU-Sim's gpgpu_n_mem_per_ctrlr: two
    /// x32 GDDR5 devices per 64-bit GTX480 channel).
    std::uint32_t devices = 2;
    /// Data bytes one device moves per beat (GPGPU-Sim's gpgpu_dram_buswidth: 4 for x32).
    std::uint32_t device_bytes = 4;
    std::uint32_t queue = 64; ///< read requests (all, without a write queue) to choose from
    /// Write requests held apart and drained in batches (0: writes share `queue` and compete
    /// with reads request by request, as in GPGPU-Sim). Writes wait until `write_high` of
    /// them are queued (or no read is), then go until `write_low` remain (USIMM's memory
    /// controller: 64 entries, watermarks 40 and 20).
    std::uint32_t write_queue = 64;
    std::uint32_t write_high = 40;
    std::uint32_t write_low = 20;
    refresh_mode refresh = refresh_mode::all_bank;
    /// Row and column commands have buses of their own (HBM's, JESD235), so one of each may
    /// issue in a cycle; GDDR5 and GDDR6 share one command bus (false).
    bool dual_command_bus = false;
    WARPKIT_FIELDS(dram_params, timing, map, devices, device_bytes, queue, write_queue, write_high,
                   write_low, refresh, dual_command_bus)

    void validate() const {
        check_range("devices", devices, 1u, 64u);
        check_range("device_bytes", device_bytes, 1u, 64u);
        check_range("queue", queue, 1u, 4096u);
        check_range("write_queue", write_queue, 0u, 4096u);
        if (write_queue > 0) {
            check_range("write_high", write_high, 1u, write_queue);
            check_range("write_low", write_low, 0u, write_high - 1);
        }
        // Each interval leaves room for requests: twice the refresh and a row cycle.
        if (refresh != refresh_mode::none) {
            const std::uint64_t busy =
                std::uint64_t{refresh == refresh_mode::all_bank ? timing.tRFC : timing.tRFCpb} +
                timing.tRC;
            check(timing.tREFI >= 2 * busy, "timing.tREFI", timing.tREFI,
                  "at least " + std::to_string(2 * busy) +
                      " (twice the refresh time and tRC) with refresh on");
        }
    }
    /// Bytes one burst moves.
    [[nodiscard]] constexpr std::uint32_t burst_bytes() const noexcept {
        return timing.burst_length * devices * device_bytes;
    }
};

/// The HBM2 of a Quadro / Tesla V100 (Volta) as Accel-Sim's tested QV100 configuration models
/// it (its timing from JEDEC's JESD235 and Chatterjee et al., "Architecting an Energy-Efficient
/// DRAM System for GPUs", HPCA 2017, scaled to the card's 850 MHz): 32 channels of 128 bits
/// (four stacks of eight), each a device of 16-byte beats, double data rate (two beats per
/// command clock) and bursts of 2, so 32 bytes per burst in one cycle (32 x 32 B x 850 MHz =
/// 870 GB/s); 16 banks in 4 groups, 2 KB rows; tCCD 1, tCCDL 2, tRRD 3, tRCD 12, tRAS 28,
/// tRP 12, tRC 40, CL 12, WL 2, tWTR 3, tWR 10, tRTP 3; separate row and column command
/// buses; channels interleaved every 256 bytes, then the configuration's bit layout (bank bits
/// split around three column bits); one FR-FCFS queue of 64 without a separate write queue.
/// The configuration models neither a four-activate window nor refresh; refresh here is
/// JESD235's all-bank refresh every 3.9 us (3315 cycles) for 350 ns (298 cycles, 8 Gb dies:
/// four stacks, 4-high on 16 GB V100s, 8-high on the 32 GB Quadro GV100; tRFCpb, unused, half
/// of it). The memory clock (850 MHz) is the GPU preset's memory.clocks.dram_mhz.
[[nodiscard]] inline dram_params hbm2_qv100() {
    dram_params p;
    dram_timing& t = p.timing;
    t.tCCD = 1;
    t.tCCDL = 2;
    t.tRRD = 3;
    t.tFAW = 0;
    t.tRCD = 12;
    t.tRAS = 28;
    t.tRP = 12;
    t.tRC = 40;
    t.tCL = 12;
    t.tWL = 2;
    t.tWTR = 3;
    t.tWR = 10;
    t.tRTP = 3;
    t.tREFI = 3315;
    t.tRFC = 298;
    t.tRFCpb = 149;
    t.burst_length = 2;
    t.beats_per_cycle = 2;
    p.map.channels = 32;
    p.map.banks = 16;
    p.map.bank_groups = 4;
    p.map.interleave_bytes = 256;
    p.map.row_bytes = 2048;
    p.map.layout = "RRRRRRRRRRRRRBBBCCCBCCCCCCCC";
    p.devices = 1;
    p.device_bytes = 16;
    p.queue = 64;
    p.write_queue = 0;
    p.dual_command_bus = true;
    return p;
}

/// GDDR6 as Accel-Sim's tested RTX 2060 (Turing) and RTX 3070 (Ampere) configurations model it,
/// `channels` channels of 16 bits (each GDDR6 device has two; the RTX 2060's 192-bit bus is 12,
/// the RTX 3070's 256-bit bus 16): a 3500 MHz command clock with four data beats a cycle (14
/// Gb/s per pin), bursts of 16, so 32 bytes per burst in 4 cycles (12 x 28 GB/s = 336 GB/s,
/// 16 x 28 = 448 GB/s, the cards' figures); 16 banks in 4 groups, 2 KB rows; tCCD 4, tCCDL 6,
/// tRRD 12, tRCD 24, tRAS 55, tRP 24, tRC 78, CL 24, WL 8, tWTR 10, tWR 24, tRTP 4; one shared
/// command bus; channels interleaved every 256 bytes, then the configurations' bit layout;
/// one FR-FCFS queue of 64 without a separate write queue. The configurations model neither a
/// four-activate window nor refresh, and neither does this (refresh none: no GDDR6 refresh
/// figures are at hand to add).
[[nodiscard]] inline dram_params gddr6_rtx(std::uint32_t channels) {
    dram_params p;
    dram_timing& t = p.timing;
    t.tCCD = 4;
    t.tCCDL = 6;
    t.tRRD = 12;
    t.tFAW = 0;
    t.tRCD = 24;
    t.tRAS = 55;
    t.tRP = 24;
    t.tRC = 78;
    t.tCL = 24;
    t.tWL = 8;
    t.tWTR = 10;
    t.tWR = 24;
    t.tRTP = 4;
    t.burst_length = 16;
    t.beats_per_cycle = 4;
    p.map.channels = channels;
    p.map.banks = 16;
    p.map.bank_groups = 4;
    p.map.interleave_bytes = 256;
    p.map.row_bytes = 2048;
    p.map.layout = "RRRRRRRRRRRRRBBBCCCCBCCCCCCC";
    p.devices = 1;
    p.device_bytes = 2;
    p.queue = 64;
    p.write_queue = 0;
    p.refresh = refresh_mode::none;
    return p;
}

} // namespace warpkit::mem
