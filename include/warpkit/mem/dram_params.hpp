#pragma once
/// \file
/// Parameters of a GDDR5 DRAM system: timing in command-clock cycles (GTX480: 924 MHz, tCCD 2,
/// tRRD 6, tRCD 12, tRAS 28, tRP 12, tRC 40, CL 12, WL 4, burst length 8), geometry (6
/// channels x 16 banks) and the address mapping from a physical address to channel, bank, row
/// and column.

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <bit>
#include <cstdint>

namespace warpkit::mem {

/// DRAM timing constraints, in command-clock cycles.
struct dram_timing {
    std::uint32_t tCCD = 2;  ///< column command to column command
    std::uint32_t tRRD = 6;  ///< activate to activate, different banks of a channel
    std::uint32_t tRCD = 12; ///< activate to read or write
    std::uint32_t tRAS = 28; ///< activate to precharge
    std::uint32_t tRP = 12;  ///< precharge to activate
    std::uint32_t tRC = 40;  ///< activate to activate, same bank
    std::uint32_t tCL = 12;  ///< read command to first data (CAS latency)
    std::uint32_t tWL = 4;   ///< write command to first data
    /// Write data end to read command (GDDR5 data sheets: 5-6; not in the GTX480 list).
    std::uint32_t tWTR = 5;
    /// Write data end to precharge, write recovery (GDDR5 data sheets: 12).
    std::uint32_t tWR = 12;
    /// Read to precharge (GDDR5 data sheets: 2).
    std::uint32_t tRTP = 2;
    /// Bus turnaround added to read-to-write switches.
    std::uint32_t tRTRS = 1;
    std::uint32_t burst_length = 8;
    /// Data beats per command clock: 4 on GDDR5 (write clock at twice the command clock, data
    /// on both edges), so a burst of 8 holds the data bus 2 cycles.
    std::uint32_t beats_per_cycle = 4;
    WARPKIT_FIELDS(dram_timing, tCCD, tRRD, tRCD, tRAS, tRP, tRC, tCL, tWL, tWTR, tWR, tRTP, tRTRS,
                   burst_length, beats_per_cycle)

    void validate() const {
        check_range("tCCD", tCCD, 1u, 1000u);
        check_range("tRRD", tRRD, 1u, 1000u);
        check_range("tRCD", tRCD, 1u, 1000u);
        check_range("tRAS", tRAS, 1u, 10000u);
        check_range("tRP", tRP, 1u, 1000u);
        check_range("tRC", tRC, 1u, 10000u);
        check_range("tCL", tCL, 1u, 1000u);
        check_range("tWL", tWL, 0u, 1000u);
        check_range("tWTR", tWTR, 0u, 1000u);
        check_range("tWR", tWR, 0u, 1000u);
        check_range("tRTP", tRTP, 1u, 1000u);
        check_range("tRTRS", tRTRS, 0u, 1000u);
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
/// `interleave_bytes` chunks go to consecutive channels; within a channel, consecutive
/// `row_bytes` go to consecutive banks, then to the next row.
struct address_map {
    std::uint32_t channels = 6;
    std::uint32_t banks = 16;
    std::uint32_t interleave_bytes = 256; ///< bytes per channel before the next channel
    std::uint32_t row_bytes = 2048;       ///< bytes of a row (page) of one bank of a channel
    WARPKIT_FIELDS(address_map, channels, banks, interleave_bytes, row_bytes)

    void validate() const {
        check_range("channels", channels, 1u, 1024u);
        check_range("banks", banks, 1u, 256u);
        check(std::has_single_bit(interleave_bytes) && interleave_bytes >= 32, "interleave_bytes",
              interleave_bytes, "a power of two >= 32");
        check(std::has_single_bit(row_bytes) && row_bytes >= interleave_bytes, "row_bytes",
              row_bytes, "a power of two >= interleave_bytes");
    }

    /// Where one address lives.
    struct location {
        std::uint32_t channel = 0;
        std::uint32_t bank = 0;
        std::uint64_t row = 0;
        std::uint32_t column = 0; ///< byte offset within the row
        friend constexpr bool operator==(const location&, const location&) noexcept = default;
    };

    /// Channel, bank, row and column of `addr`.
    [[nodiscard]] constexpr location decode(std::uint64_t addr) const noexcept {
        const std::uint64_t chunk = addr / interleave_bytes;
        location l;
        l.channel = static_cast<std::uint32_t>(chunk % channels);
        const std::uint64_t local = chunk / channels * interleave_bytes + addr % interleave_bytes;
        l.column = static_cast<std::uint32_t>(local % row_bytes);
        l.bank = static_cast<std::uint32_t>(local / row_bytes % banks);
        l.row = local / row_bytes / banks;
        return l;
    }
};

/// One DRAM channel: timing, banks and its scheduler queue (FR-FCFS queue 64 on the GTX480).
struct dram_params {
    dram_timing timing{};
    address_map map{};
    std::uint32_t queue = 64; ///< requests the scheduler can choose from
    WARPKIT_FIELDS(dram_params, timing, map, queue)

    void validate() const { check_range("queue", queue, 1u, 4096u); }
};

} // namespace warpkit::mem
