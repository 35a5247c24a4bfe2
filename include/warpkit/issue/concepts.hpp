#pragma once
/// \file
/// The contracts of the issue area: warp schedulers.

#include <warpkit/core/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <concepts>
#include <cstddef>
#include <span>

namespace warpkit::issue {

// select(views, width) may update state derived from the views only (a repeated call with
// the same views returns the same picks); notify_issued(done) is called once per cycle with
// the slots that really issued, maybe none.
/// Picks <= width distinct issuable warps from the views alone; only notify_issued advances state.
template <class S>
concept warp_scheduler = observable_component<S> &&
    std::constructible_from<S, const typename S::params_type&> &&
    requires(S& s, std::span<const warp_view> views, std::size_t width, const issue_list& done) {
    { s.select(views, width) } -> std::same_as<issue_list>;
    s.notify_issued(done);
};

/// A cycle in which scheduler `s` has no warp to look at: the same as select() of no views
/// then notify_issued() of nothing, done by `s.idle_cycle(width)` where S has it (a scheduler
/// that keeps no state derived from the views counts the cycle without a pass).
template <class S>
void idle_cycle(S& s, std::size_t width) {
    if constexpr (requires { s.idle_cycle(width); }) {
        s.idle_cycle(width);
    } else {
        (void)s.select(std::span<const warp_view>{}, width);
        s.notify_issued(issue_list{});
    }
}

} // namespace warpkit::issue
