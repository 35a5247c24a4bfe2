#pragma once
/// \file
/// `conventional`: gate after idle-detect idle cycles, wake on demand from either gated state
/// (Warped Gates Section 2.2, after Hu et al.).

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Conventional power gating: a wakeup before break-even is allowed (a negative event).
class conventional {
public:
    static constexpr bool blackout = false;

    explicit conventional(const params& p) noexcept : idle_detect_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "conventional"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return idle_detect_; }
    [[nodiscard]] decision decide(const gate_view& v) const noexcept {
        return v.idle_cycles >= v.idle_detect ? decision::gate : decision::stay_on;
    }
    adaptation end_cycle(bool) noexcept { return adaptation::none; }

private:
    std::uint32_t idle_detect_;
};

} // namespace warpkit::gating
