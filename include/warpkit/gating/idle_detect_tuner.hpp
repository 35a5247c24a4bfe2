#pragma once
/// \file
/// `idle_detect_tuner`: the idle-detect register of adaptive idle-detect (Warped Gates
/// Section 5.1): raised quickly when an epoch has too many critical wakeups, lowered slowly.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace warpkit::gating {

/// Counts critical wakeups per epoch of `adaptive.epoch` cycles. At the end of an epoch with
/// more than `critical_threshold` of them, the value rises by `step` (at most
/// `max_idle_detect`) and the run of quiet epochs restarts; an epoch at or under the threshold
/// extends the run, and after `decrement_epochs` quiet epochs in a row the value falls by
/// `step` (at least `min_idle_detect`) and the run restarts. Starts at `idle_detect`.
class idle_detect_tuner {
public:
    explicit idle_detect_tuner(const params& p) : a_(p.adaptive), value_(p.idle_detect) {
        validate(p);
        check(p.idle_detect >= a_.min_idle_detect && p.idle_detect <= a_.max_idle_detect,
              "idle_detect", p.idle_detect,
              "[" + std::to_string(a_.min_idle_detect) + ", " + std::to_string(a_.max_idle_detect) +
                  "] (adaptive.min_idle_detect .. adaptive.max_idle_detect)");
    }

    /// The idle-detect threshold in force.
    [[nodiscard]] std::uint32_t value() const noexcept { return value_; }
    /// Critical wakeups so far in the current epoch.
    [[nodiscard]] std::uint32_t critical_in_epoch() const noexcept { return critical_; }
    /// Consecutive completed epochs at or under the threshold since the last change.
    [[nodiscard]] std::uint32_t quiet_epochs() const noexcept { return quiet_; }
    /// Cycles completed in the current epoch.
    [[nodiscard]] std::uint32_t cycle_in_epoch() const noexcept { return cycle_; }

    /// Notes one critical wakeup in the current cycle.
    void record_critical() noexcept {
        if (critical_ != std::numeric_limits<std::uint32_t>::max()) ++critical_;
    }
    /// Ends a cycle; at an epoch boundary, adjusts the value.
    adaptation end_cycle() noexcept {
        if (++cycle_ < a_.epoch) return adaptation::none;
        cycle_ = 0;
        const bool over = critical_ > a_.critical_threshold;
        critical_ = 0;
        const std::uint32_t old = value_;
        if (over) {
            quiet_ = 0;
            value_ = std::min(a_.max_idle_detect, value_ + a_.step);
        } else if (++quiet_ >= a_.decrement_epochs) {
            quiet_ = 0;
            value_ = value_ - std::min(a_.step, value_ - a_.min_idle_detect);
        }
        return value_ > old ? adaptation::raised
                            : (value_ < old ? adaptation::lowered : adaptation::kept);
    }

private:
    adaptive_params a_;
    std::uint32_t value_;
    std::uint32_t critical_ = 0;
    std::uint32_t quiet_ = 0;
    std::uint32_t cycle_ = 0;
};

} // namespace warpkit::gating
