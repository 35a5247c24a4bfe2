#pragma once
/// \file
/// Counters of a power-gating controller.

#include <warpkit/core/histogram.hpp>
#include <warpkit/core/reflect.hpp>

#include <cstdint>

namespace warpkit::gating {

/// Idle periods (maximal runs of cycles in which the block was gated, or powered with an empty
/// pipeline and no demand) split into the three regions of Warped Gates Fig. 3, judged with
/// the idle-detect threshold in force when the period ended.
struct idle_period_stats {
    histogram<65> lengths{};             ///< by length in cycles (64+ in the last bin)
    std::uint64_t below_idle_detect = 0; ///< length < idle_detect: never gated (wasted)
    std::uint64_t up_to_break_even = 0;  ///< idle_detect <= length <= idle_detect + BET
    std::uint64_t beyond_break_even = 0; ///< length > idle_detect + BET: gating gains
    WARPKIT_FIELDS(idle_period_stats, lengths, below_idle_detect, up_to_break_even,
                   beyond_break_even)
};

/// Counters of one controller; the four state counters add up to `cycles`.
struct stats {
    std::uint64_t cycles = 0;
    std::uint64_t on_cycles = 0;
    std::uint64_t uncompensated_cycles = 0;
    std::uint64_t compensated_cycles = 0;
    std::uint64_t waking_cycles = 0;
    std::uint64_t gating_events = 0;       ///< transitions on -> uncompensated
    std::uint64_t early_gating_events = 0; ///< of those, before the idle-detect window passed
    std::uint64_t held_cycles = 0;         ///< idle cycles past the window kept on by policy
    std::uint64_t wakeups = 0;
    std::uint64_t negative_events = 0;       ///< wakeups after fewer than break_even gated cycles
    std::uint64_t critical_wakeups = 0;      ///< wakeups in the first compensated cycle
    std::uint64_t stall_cycles = 0;          ///< cycles with demand while not on
    std::uint64_t blackout_stall_cycles = 0; ///< of those, demand refused during blackout
    std::uint64_t epochs = 0;                ///< adaptive epochs completed
    std::uint64_t idle_detect_increments = 0;
    std::uint64_t idle_detect_decrements = 0;
    idle_period_stats idle_periods{};

    /// Cycles with the sleep switch open (uncompensated + compensated).
    [[nodiscard]] constexpr std::uint64_t gated_cycles() const noexcept {
        return uncompensated_cycles + compensated_cycles;
    }
    WARPKIT_FIELDS(stats, cycles, on_cycles, uncompensated_cycles, compensated_cycles,
                   waking_cycles, gating_events, early_gating_events, held_cycles, wakeups,
                   negative_events, critical_wakeups, stall_cycles, blackout_stall_cycles, epochs,
                   idle_detect_increments, idle_detect_decrements, idle_periods)
};

} // namespace warpkit::gating
