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
    explicit idle_detect_tuner(const params& p) : a_(checked(p)), value_(p.idle_detect) {}

    /// The idle-detect threshold in force.
    [[nodiscard]] std::uint32_t value() const noexcept { return value_; }
    /// Critical wakeups so far in the current epoch.
    [[nodiscard]] std::uint32_t critical_in_epoch() const noexcept { return critical_; }
    /// Consecutive completed epochs at or under the threshold since the last change.
    [[nodiscard]] std::uint32_t quiet_epochs() const noexcept { return quiet_; }
    /// Cycles completed in the current epoch.
    [[nodiscard]] std::uint32_t cycle_in_epoch() const noexcept { return a_.epoch - left_; }

    /// Notes one critical wakeup in the current cycle.
    void record_critical() noexcept {
        if (critical_ != std::numeric_limits<std::uint32_t>::max()) ++critical_;
    }
    /// Ends a cycle; at an epoch boundary, adjusts the value.
    adaptation end_cycle() noexcept {
        if (--left_ != 0) [[likely]] // counting down: one decrement and test per cycle
            return adaptation::none;
        left_ = a_.epoch;
        const epoch_end e = end_epoch(a_, value_, critical_, quiet_);
        value_ = e.value;
        critical_ = 0;
        quiet_ = e.quiet;
        return e.adapted;
    }

private:
    struct epoch_end {
        std::uint32_t value;
        std::uint32_t quiet;
        adaptation adapted;
    };
    // The register and the run of quiet epochs after an epoch with `critical` critical
    // wakeups. Out of line (and given values, not `this`): inlined, its code would sit in every
    // caller's per-cycle loop, where compilers lay out the rare path less well.
    [[gnu::noinline]] static epoch_end end_epoch(const adaptive_params a, std::uint32_t value,
                                                 std::uint32_t critical,
                                                 std::uint32_t quiet) noexcept {
        const std::uint32_t old = value;
        if (critical > a.critical_threshold) {
            quiet = 0;
            value = std::min(a.max_idle_detect, value + a.step);
        } else if (++quiet >= a.decrement_epochs) {
            quiet = 0;
            value = value - std::min(a.step, value - a.min_idle_detect);
        }
        return {value, quiet,
                value > old ? adaptation::raised
                            : (value < old ? adaptation::lowered : adaptation::kept)};
    }

    // p.adaptive, once p is checked. The checks see a copy of p and not `this`: the compiler
    // leaves them out of line, and a call given the address of a part of the tuner's owner (a
    // controller) lets the whole owner escape, so that every counter of it is kept in memory
    // and up to date at each cycle, read or not.
    [[nodiscard]] static adaptive_params checked(params p) {
        validate(p);
        const adaptive_params& a = p.adaptive;
        check(p.idle_detect >= a.min_idle_detect && p.idle_detect <= a.max_idle_detect,
              "idle_detect", p.idle_detect,
              "[" + std::to_string(a.min_idle_detect) + ", " + std::to_string(a.max_idle_detect) +
                  "] (adaptive.min_idle_detect .. adaptive.max_idle_detect)");
        return a;
    }

    adaptive_params a_;
    std::uint32_t value_;
    std::uint32_t critical_ = 0;
    std::uint32_t quiet_ = 0;
    std::uint32_t left_ = a_.epoch; // cycles still to go in the current epoch
};

} // namespace warpkit::gating
