#pragma once
/// \file
/// `naive_blackout`: gate after idle-detect idle cycles; once gated, stay gated for at least
/// break-even cycles even if instructions wait (Warped Gates Section 5).

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Naive Blackout: no transition from uncompensated to waking, so no negative events.
class naive_blackout {
public:
    static constexpr bool blackout = true;

    explicit naive_blackout(const params& p) noexcept : idle_detect_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "naive_blackout"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return idle_detect_; }
    [[nodiscard]] decision decide(const gate_view& v) const noexcept {
        return v.idle_cycles >= v.idle_detect ? decision::gate : decision::stay_on;
    }
    adaptation end_cycle(bool) noexcept { return adaptation::none; }

private:
    std::uint32_t idle_detect_;
};

} // namespace warpkit::gating
