#pragma once
/// \file
/// Parameters of a power-gating controller; defaults from Warped Gates (Sections 2.2, 5.1).

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/gating/policy_kind.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Adaptive idle-detect (Warped Gates Section 5.1): each epoch counts critical wakeups; more
/// than `critical_threshold` raise idle-detect by `step`; `decrement_epochs` consecutive
/// epochs at or under the threshold lower it by `step`; it stays within [min, max].
struct adaptive_params {
    std::uint32_t epoch = 1000;
    std::uint32_t critical_threshold = 5;
    std::uint32_t decrement_epochs = 4;
    std::uint32_t min_idle_detect = 5;
    std::uint32_t max_idle_detect = 10;
    std::uint32_t step = 1;

    void validate() const {
        check_range("epoch", epoch, 1u, 1000000000u);
        check_range("critical_threshold", critical_threshold, 0u, 1000000000u);
        check_range("decrement_epochs", decrement_epochs, 1u, 1000000u);
        check_range("min_idle_detect", min_idle_detect, 1u, 65535u);
        check(max_idle_detect >= min_idle_detect && max_idle_detect <= 65535u, "max_idle_detect",
              max_idle_detect,
              "[min_idle_detect = " + std::to_string(min_idle_detect) + ", 65535]");
        check_range("step", step, 1u, 65535u);
    }
    WARPKIT_FIELDS(adaptive_params, epoch, critical_threshold, decrement_epochs, min_idle_detect,
                   max_idle_detect, step)
};

/// One gateable block's controller: gate after `idle_detect` consecutive idle cycles; a gating
/// event costs `break_even` cycles of the block's leakage; waking up takes `wakeup_delay`
/// cycles. Defaults: 5 / 14 / 3 (Warped Gates Sections 2.2 and 7.1).
struct params {
    std::uint32_t idle_detect = 5;
    std::uint32_t break_even = 14;
    std::uint32_t wakeup_delay = 3;
    adaptive_params adaptive{};
    /// The policy an SM whose gating policy is gating::selectable (every preset's) runs. A
    /// controller of a static policy type ignores it; a GPU built with a static gating policy
    /// reports that type's kind here.
    policy_kind policy = policy_kind::no_gating;

    void validate() const {
        check_range("idle_detect", idle_detect, 1u, 65535u);
        check_range("break_even", break_even, 1u, 65535u);
        check_range("wakeup_delay", wakeup_delay, 1u, 65535u);
    }
    WARPKIT_FIELDS(params, idle_detect, break_even, wakeup_delay, adaptive, policy)
};

} // namespace warpkit::gating
