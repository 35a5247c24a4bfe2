#pragma once
/// \file
/// `no_gating`: the baseline policy that never gates (static energy savings are zero).

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gating {

/// Never gates: the reference every saving is measured against.
class no_gating {
public:
    static constexpr bool blackout = false;

    explicit no_gating(const params& p) noexcept : idle_detect_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "no_gating"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return idle_detect_; }
    [[nodiscard]] decision decide(const gate_view&) const noexcept { return decision::stay_on; }
    adaptation end_cycle(bool) noexcept { return adaptation::none; }

private:
    std::uint32_t idle_detect_;
};

} // namespace warpkit::gating
