#pragma once
/// \file
/// `idle_detect_gating<Blackout>`: gate a block after idle-detect consecutive idle cycles.
/// Without Blackout it is `conventional` power gating (Warped Gates Section 2.2, after Hu et
/// al.): a demand wakes the block from either gated state, before break-even too (a negative
/// event). With Blackout it is `naive_blackout` (Section 5): once gated, the block stays gated
/// for at least break-even cycles even if instructions wait, so there are no negative events.

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Gating after a fixed idle-detect threshold; `Blackout`: no wakeup before break-even.
template <bool Blackout>
class idle_detect_gating {
public:
    static constexpr bool blackout = Blackout;

    explicit idle_detect_gating(const params& p) noexcept : idle_detect_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return Blackout ? "naive_blackout" : "conventional"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return idle_detect_; }
    [[nodiscard]] decision decide(const gate_view& v) const noexcept {
        return v.idle_cycles >= v.idle_detect ? decision::gate : decision::stay_on;
    }
    adaptation end_cycle(bool) noexcept { return adaptation::none; }

private:
    std::uint32_t idle_detect_;
};

/// Conventional power gating: a wakeup before break-even is allowed (a negative event).
using conventional = idle_detect_gating<false>;
/// Naive Blackout: no transition from uncompensated to waking, so no negative events.
using naive_blackout = idle_detect_gating<true>;

} // namespace warpkit::gating
