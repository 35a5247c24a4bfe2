#pragma once
/// \file
/// What the power model reads: plain access counts over an interval, per SM and for the
/// chip, plus the cycles of the interval. Whoever runs the simulation fills them from its own
/// counters; the model never looks at an SM.

#include <warpkit/core/reflect.hpp>
#include <warpkit/power/component.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace warpkit::power {

/// Access counts of one SM over an interval. The component each count prices is named.
struct sm_activity {
    std::uint64_t active_cycles = 0;   ///< cycles with work resident; the rest are idle-SM cycles
    std::uint64_t decoded = 0;         ///< front_end: warp instructions decoded into I-buffers
    std::uint64_t icache_accesses = 0; ///< icache
    std::uint64_t issued = 0;          ///< scheduler and pipeline: warp instructions issued
    std::uint64_t rf_reads = 0;        ///< rf_banks: 1024-bit row reads
    std::uint64_t rf_writes = 0;       ///< rf_banks: 1024-bit row writes
    std::uint64_t collector_accesses = 0;   ///< operand_collectors
    std::uint64_t crossbar_transfers = 0;   ///< rf_crossbar: rows moved bank -> collector
    std::uint64_t shared_bank_accesses = 0; ///< shared_memory: passes over the banks
    std::uint64_t shared_transfers = 0;     ///< shared_crossbar: warp accesses routed
    std::uint64_t l1d_accesses = 0;         ///< l1d: transactions looked up
    std::uint64_t const_accesses = 0;       ///< const_cache
    std::uint64_t tex_accesses = 0;         ///< tex_cache
    std::uint64_t prt_accesses = 0;         ///< coalescer: pending-request-table entries
    std::uint64_t int_ops = 0;              ///< int_alu: warp instructions
    std::uint64_t fp_ops = 0;               ///< fp: warp instructions
    std::uint64_t sfu_ops = 0;              ///< sfu: warp instructions
    /// Active lanes summed over the int / fp / sfu warp instructions (lane clock gating).
    std::uint64_t int_lanes = 0;
    std::uint64_t fp_lanes = 0;
    std::uint64_t sfu_lanes = 0;
    /// Active lanes summed over register-file row reads and writes (lane clock gating of the
    /// banks, collectors and crossbar).
    std::uint64_t operand_lanes = 0;
    /// Cycles stalled waiting for memory (not priced; the DVFS controller's input).
    std::uint64_t memory_stall_cycles = 0;
    /// Cycles of the interval each SM component's leakage was switched off (power gating,
    /// a front end shared with a neighbour), indexed by component.
    std::array<std::uint64_t, sm_component_count> leakage_off_cycles{};
    WARPKIT_FIELDS(sm_activity, active_cycles, decoded, icache_accesses, issued, rf_reads,
                   rf_writes, collector_accesses, crossbar_transfers, shared_bank_accesses,
                   shared_transfers, l1d_accesses, const_accesses, tex_accesses, prt_accesses,
                   int_ops, fp_ops, sfu_ops, int_lanes, fp_lanes, sfu_lanes, operand_lanes,
                   memory_stall_cycles, leakage_off_cycles)
};

/// DRAM commands counted over an interval (eq. 2).
struct dram_ops {
    std::uint64_t precharges = 0;
    std::uint64_t activates = 0;
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    WARPKIT_FIELDS(dram_ops, precharges, activates, reads, writes)
};

/// Access counts of the shared parts over an interval.
struct chip_activity {
    std::uint64_t l2_accesses = 0;
    std::uint64_t noc_flits = 0;
    std::uint64_t mc_requests = 0;
    dram_ops dram{};
    WARPKIT_FIELDS(chip_activity, l2_accesses, noc_flits, mc_requests, dram)
};

/// Everything the model needs for one interval: its length, one entry per SM, the chip.
struct activity {
    std::uint64_t cycles = 0; ///< core cycles of the interval
    std::vector<sm_activity> sms;
    chip_activity chip{};
    WARPKIT_FIELDS(activity, cycles, sms, chip)

    /// SMs with work in at least one cycle of the interval.
    [[nodiscard]] std::size_t active_sms() const noexcept {
        std::size_t n = 0;
        for (const auto& s : sms)
            n += s.active_cycles > 0 ? 1 : 0;
        return n;
    }
};

namespace detail {
template <class T>
void subtract_value(T& into, const T& from) {
    if constexpr (reflectable<T>) {
        for_each_member_pair(into, from,
                             [](std::string_view, auto& i, const auto& f) { subtract_value(i, f); });
    } else if constexpr (::warpkit::detail::is_std_array<T>::value ||
                         ::warpkit::detail::is_std_vector<T>::value) {
        for (std::size_t i = 0; i < into.size() && i < from.size(); ++i)
            subtract_value(into[i], from[i]);
    } else {
        static_assert(std::is_unsigned_v<T>);
        into = into >= from ? static_cast<T>(into - from) : T{0};
    }
}
} // namespace detail

/// The counts between two snapshots of cumulative counters: `now - before`, field by field
/// (counters that went backwards give 0). `cycles` is subtracted like every other count.
[[nodiscard]] inline activity difference(const activity& now, const activity& before) {
    activity d = now;
    detail::subtract_value(d, before);
    return d;
}

} // namespace warpkit::power
