#pragma once
/// \file
/// Contracts of the power-gating area.

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>

#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>

namespace warpkit::gating {

/// A gating policy: built from params; decides only from the gate_view it is handed (never
/// reads the controller); `blackout` forbids wakeups before break-even; `end_cycle` is told
/// whether the cycle held a critical wakeup and may adapt the idle-detect threshold.
template <class P>
concept policy = std::constructible_from<P, const params&> &&
    requires(P& p, const P& cp, const gate_view& v, bool critical) {
    typename std::bool_constant<P::blackout>;
    { P::name() } -> std::convertible_to<std::string>;
    { cp.idle_detect() } -> std::same_as<std::uint32_t>;
    { cp.decide(v) } -> std::same_as<decision>;
    { p.end_cycle(critical) } -> std::same_as<adaptation>;
};

/// A controller of one gateable block: `state()` holds for the current cycle, `tick(in)` ends
/// it; the owner issues to the block only while `can_issue()`.
template <class C>
concept gate_controller = requires(C& c, const C& cc, const cycle_input& in) {
    { cc.state() } -> std::same_as<power_state>;
    { cc.can_issue() } -> std::convertible_to<bool>;
    { cc.blocked() } -> std::convertible_to<bool>;
    { cc.gated() } -> std::convertible_to<bool>;
    { c.tick(in) } -> std::same_as<event>;
};

} // namespace warpkit::gating
