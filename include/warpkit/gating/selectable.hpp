#pragma once
/// \file
/// `selectable`: the gating policy of an SM that runs the policy its params choose
/// (`params::policy`), so `--set sm.gating.policy=coordinated_blackout` gates any GPU preset
/// without another compiled GPU type. An SM given it runs the static policy of the chosen kind
/// (gpu/stages/selectable_power_stage.hpp), cycle for cycle as an SM built with that type. A
/// simulator that fixes its policy at compile time names the static type and saves the
/// dispatch. Here: the tag, the static policy of each kind and the kind of each static policy.

#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/coordinated_blackout.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/policy_kind.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace warpkit::gating {

/// The gating policy of an SM that gates as its params' `policy` says (see the file comment).
/// A tag for `Policies::gating_policy`, not a policy a controller runs.
struct selectable {};

/// The static policy type of every policy_kind, in the enum's order.
using selectable_policies =
    std::tuple<no_gating, conventional, naive_blackout, coordinated_blackout,
               adaptive_idle_detect<naive_blackout>, adaptive_idle_detect<coordinated_blackout>>;

/// The static policy type of kind K.
template <policy_kind K>
using policy_of_kind = std::tuple_element_t<static_cast<std::size_t>(K), selectable_policies>;

/// True when policy P's decisions read gate_view::type_active (coordinated Blackout, alone or
/// with adaptive idle-detect); the others decide the same whatever it holds.
template <class P>
inline constexpr bool reads_type_active = false;
template <>
inline constexpr bool reads_type_active<coordinated_blackout> = true;
template <class Base>
inline constexpr bool reads_type_active<adaptive_idle_detect<Base>> = reads_type_active<Base>;

namespace detail {
template <class P, std::size_t... I>
constexpr policy_kind kind_of(policy_kind fallback, std::index_sequence<I...>) noexcept {
    policy_kind k = fallback;
    static_cast<void>(((std::is_same_v<P, std::tuple_element_t<I, selectable_policies>>
                            ? (k = static_cast<policy_kind>(I), true)
                            : false) ||
                       ...));
    return k;
}
} // namespace detail

/// The policy_kind of static policy type P, or `fallback` when it has none (`selectable`, a
/// policy outside selectable_policies such as adaptive_idle_detect<conventional>).
template <class P>
[[nodiscard]] constexpr policy_kind kind_of(policy_kind fallback) noexcept {
    return detail::kind_of<P>(fallback,
                              std::make_index_sequence<std::tuple_size_v<selectable_policies>>{});
}

} // namespace warpkit::gating
