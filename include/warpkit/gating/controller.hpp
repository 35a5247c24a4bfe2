#pragma once
/// \file
/// `controller<Policy>`: the power-gating state machine of one gateable block (Warped Gates
/// Fig. 2c) with conventional, Blackout, coordinated Blackout or adaptive idle-detect policies.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>
#include <warpkit/gating/stats.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace warpkit::gating {

/// Power-gating controller of one block (a cluster with one sleep switch).
///
/// Cycle protocol. At the start of cycle t, `state()` is the block's state for the whole
/// cycle; the owner issues to the block only if `can_issue()` (state on), then calls
/// `tick(in)` once, describing cycle t, which accounts cycle t and sets the state of t+1.
///  - on: cycle t is idle when `!in.busy && !in.demand` (empty pipeline, no instruction
///    wants the block). Consecutive idle cycles are counted; a demand or busy cycle clears
///    the count. At the end of an idle cycle the policy decides: with the plain rule the block
///    gates at the end of the idle_detect-th idle cycle (a gating event) and cycle t+1 is its
///    first gated cycle.
///  - gated (uncompensated, compensated): the k-th gated cycle of an episode is uncompensated
///    for k <= break_even and compensated after, i.e. the block is compensated from the cycle
///    after it has saved as much as the event cost. A demand in a gated cycle starts a wakeup
///    unless the policy is a Blackout policy and the block is uncompensated (blackout); that
///    cycle is then the first of `wakeup_delay` waking cycles and the block is on again
///    wakeup_delay cycles after the demand. A wakeup after fewer than break_even gated cycles
///    is a negative event; a wakeup in gated cycle break_even + 1 (the first cycle the
///    break-even counter allows) is a critical wakeup.
///  - waking: no execution; on again after the last waking cycle with a cleared idle count.
/// Stall cycles are cycles with demand in any state but on. The pipeline must be empty
/// (`in.busy == false`) in every state but on.
template <policy Policy = conventional>
class controller {
public:
    using params_type = gating::params;
    using stats_type = gating::stats;
    using policy_type = Policy;

    explicit controller(const gating::params& p = {}) : p_(validated(p)), policy_(p_) {}

    /// State for the current cycle.
    [[nodiscard]] power_state state() const noexcept { return state_; }
    /// True if the block can take an instruction this cycle.
    [[nodiscard]] bool can_issue() const noexcept { return state_ == power_state::on; }
    /// True if the block cannot take an instruction this cycle (tell the scheduler).
    [[nodiscard]] bool blocked() const noexcept { return state_ != power_state::on; }
    /// True while the sleep switch is open (uncompensated or compensated).
    [[nodiscard]] bool gated() const noexcept {
        return state_ == power_state::uncompensated || state_ == power_state::compensated;
    }
    /// True if a demand this cycle would be refused (Blackout, before break-even).
    [[nodiscard]] bool in_blackout() const noexcept {
        return Policy::blackout && state_ == power_state::uncompensated;
    }
    /// The idle-detect threshold in force (fixed, or the adaptive register).
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return policy_.idle_detect(); }
    /// Consecutive idle cycles counted so far while on.
    [[nodiscard]] std::uint32_t idle_count() const noexcept {
        return state_ == power_state::on ? saturated(period_) : 0;
    }
    /// Gated cycles of the current episode so far (0 when not gated).
    [[nodiscard]] std::uint32_t episode_gated_cycles() const noexcept {
        return static_cast<std::uint32_t>(gated_);
    }

    /// Ends the current cycle described by `in`; returns the transition made.
    event tick(const cycle_input& in) {
        ++s_.cycles;
        bool critical = false;
        event ev = event::none;
        switch (state_) {
        case power_state::on:
            ev = tick_on(in);
            break;
        case power_state::uncompensated:
            WARPKIT_EXPECTS(!in.busy);
            ev = tick_uncompensated(in);
            break;
        case power_state::compensated:
            WARPKIT_EXPECTS(!in.busy);
            ev = tick_compensated(in, critical);
            break;
        case power_state::waking:
            WARPKIT_EXPECTS(!in.busy);
            ++s_.waking_cycles;
            s_.stall_cycles += in.demand ? 1U : 0U;
            if (--waking_left_ == 0) {
                state_ = power_state::on;
                ev = event::powered_on;
            }
            break;
        }
        switch (policy_.end_cycle(critical)) {
        case adaptation::none:
            break;
        case adaptation::kept:
            ++s_.epochs;
            break;
        case adaptation::raised:
            ++s_.epochs;
            ++s_.idle_detect_increments;
            break;
        case adaptation::lowered:
            ++s_.epochs;
            ++s_.idle_detect_decrements;
            break;
        }
        return ev;
    }

    /// One cycle under the policy that never gates, without demand: what tick() does then
    /// (the block stays on; an idle cycle extends the idle period, a busy one closes it), with
    /// none of the states and decisions that policy never reaches. An SM that never gates ticks
    /// its clusters' controllers this way every cycle.
    void tick_never_gating(bool busy) noexcept requires std::is_same_v<Policy, no_gating> {
        ++s_.cycles;
        ++s_.on_cycles;
        if (!busy)
            ++period_;
        else if (period_ != 0)
            close_period();
    }

    /// Records the idle period still open at the end of a run (call once, when done).
    void finish() noexcept {
        const std::uint64_t length = period_ + gated_ - recorded_;
        if (length != 0) record_period(length);
        // Later cycles make a new period; the idle count and the episode go on.
        recorded_ = period_ + gated_;
    }

    [[nodiscard]] const gating::params& params() const noexcept { return p_; }
    [[nodiscard]] const gating::stats& stats() const noexcept { return s_; }
    /// Restarts the counters from zero; the power state and an idle period in progress stay
    /// (the period is counted, whole, when it ends).
    void reset_stats() noexcept { reset_counters(s_); }
    [[nodiscard]] const Policy& policy() const noexcept { return policy_; }
    /// The policy, for an owner that keeps state the policy reads (a shared idle-detect
    /// register, say). Changing it mid-cycle changes the next decision only.
    [[nodiscard]] Policy& policy() noexcept { return policy_; }

private:
    // The idle count a policy sees, as a saturating 32-bit count.
    [[nodiscard]] static std::uint32_t saturated(std::uint64_t n) noexcept {
        constexpr std::uint64_t max = std::numeric_limits<std::uint32_t>::max();
        return static_cast<std::uint32_t>(n < max ? n : max);
    }

    event tick_on(const cycle_input& in) noexcept {
        ++s_.on_cycles;
        if (in.busy || in.demand) {
            if (period_ != 0) close_period();
            return event::none;
        }
        ++period_;
        switch (policy_.decide(gate_view{saturated(period_), policy_.idle_detect(), in.type_active,
                                         in.sibling_gated})) {
        case decision::stay_on:
            return event::none;
        case decision::hold:
            ++s_.held_cycles;
            return event::none;
        case decision::gate_early:
            ++s_.early_gating_events;
            break;
        case decision::gate:
            break;
        }
        ++s_.gating_events;
        state_ = power_state::uncompensated; // period_ keeps the idle cycles before gating
        return event::gated;
    }

    // Gated cycles 1 .. break_even of an episode (gated_ < break_even before the cycle).
    event tick_uncompensated(const cycle_input& in) noexcept {
        if constexpr (Policy::blackout) {
            // A demand is refused: the block stays gated (no branch on it).
            s_.stall_cycles += in.demand ? 1U : 0U;
            s_.blackout_stall_cycles += in.demand ? 1U : 0U;
        } else if (in.demand) {
            // A wakeup before break-even: a negative event, never a critical one.
            ++s_.negative_events;
            return wake();
        }
        ++s_.uncompensated_cycles;
        if (++gated_ < p_.break_even) [[likely]]
            return event::none;
        state_ = power_state::compensated;
        return event::broke_even;
    }

    // Gated cycles break_even + 1 .. of an episode.
    event tick_compensated(const cycle_input& in, bool& critical) noexcept {
        if (in.demand) {
            // The episode's gated cycles as a 32-bit count, which wraps after 2^32 of them
            // (and with it both tests: before that, never negative).
            const auto done = static_cast<std::uint32_t>(gated_);
            if (done < p_.break_even) ++s_.negative_events;
            // Critical: in gated cycle break_even + 1, the first one break-even allows.
            critical = done + 1U == p_.break_even + 1U;
            s_.critical_wakeups += critical ? 1U : 0U;
            return wake();
        }
        ++s_.compensated_cycles;
        ++gated_;
        return event::none;
    }

    // A demand in a gated cycle starts a wakeup: the cycle is the first waking cycle.
    event wake() noexcept {
        ++s_.stall_cycles;
        ++s_.wakeups;
        ++s_.waking_cycles;
        close_period();
        gated_ = 0;
        waking_left_ = p_.wakeup_delay - 1;
        state_ = waking_left_ == 0 ? power_state::on : power_state::waking;
        return event::wake_started;
    }

    // Ends the idle period in progress (period_ + gated_ cycles, less those finish() recorded)
    // and records it unless it is empty; the next one starts empty.
    void close_period() noexcept {
        const std::uint64_t length = period_ + gated_ - recorded_;
        period_ = 0;
        recorded_ = 0;
        if (length != 0) record_period(length);
    }

    void record_period(std::uint64_t length) noexcept {
        auto& ip = s_.idle_periods;
        // The bins are one per length from 0, 64+ in the last: the bin is the length.
        constexpr std::uint64_t last = decltype(ip.lengths)::bins - 1;
        ip.lengths.add_to_bin(length < last ? length : last, length);
        const std::uint64_t id = policy_.idle_detect();
        const bool below = length < id;
        const bool beyond = length > id + p_.break_even;
        ip.below_idle_detect += below ? 1U : 0U;
        ip.beyond_break_even += beyond ? 1U : 0U;
        ip.up_to_break_even += !below && !beyond ? 1U : 0U;
    }

    gating::params p_;
    Policy policy_;
    gating::stats s_{};
    power_state state_ = power_state::on;
    std::uint32_t waking_left_ = 0; // waking cycles still to go after this one
    // The idle period in progress is period_ + gated_ cycles long: period_ counts its idle
    // cycles while on (it is the idle count) and keeps them while gated; gated_ counts the
    // gated cycles of the current episode (0 when not gated). recorded_ of them were recorded
    // by finish().
    std::uint64_t period_ = 0;
    std::uint64_t gated_ = 0;
    std::uint64_t recorded_ = 0;
};

} // namespace warpkit::gating
