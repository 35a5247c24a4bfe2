#pragma once
/// \file
/// `coordinated_blackout`: Blackout for a type split into two clusters (Warped Gates Section 5
/// and 6). While the sibling cluster is gated, idle-detect is off: this cluster gates at once
/// when the type's active-warp subset is empty and never gates while it holds a warp.

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Coordinated Blackout. Inputs beyond idleness: `type_active` (INT_ACTV or FP_ACTV from the
/// GATES scheduler) and `sibling_gated` (the other cluster of the type is power gated).
class coordinated_blackout {
public:
    static constexpr bool blackout = true;

    explicit coordinated_blackout(const params& p) noexcept : idle_detect_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "coordinated_blackout"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return idle_detect_; }
    [[nodiscard]] decision decide(const gate_view& v) const noexcept {
        const bool window_passed = v.idle_cycles >= v.idle_detect;
        if (!v.sibling_gated) return window_passed ? decision::gate : decision::stay_on;
        // A warp of this type in the active subset is likely ready soon: keep one cluster on.
        if (v.type_active > 0) return window_passed ? decision::hold : decision::stay_on;
        return window_passed ? decision::gate : decision::gate_early;
    }
    adaptation end_cycle(bool) noexcept { return adaptation::none; }

private:
    std::uint32_t idle_detect_;
};

} // namespace warpkit::gating
