#pragma once
/// \file
/// The SIMT area contracts: a reconvergence stack that serialises the divergent paths of one
/// warp, and the refinement whose convergence points come from SSY instructions.

#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/stats.hpp>

#include <concepts>
#include <cstddef>

namespace warpkit::simt {

/// One warp's reconvergence stack: reports the pc and lanes to issue next and is told what the
/// issued instruction did (advance, branch, EXIT); it changes only itself and its stats.
template <class S>
concept simt_stack = requires(S& s, const S& cs, typename S::mask_type m, pc_type pc) {
    typename S::mask_type;
    { S::warp_size } -> std::convertible_to<std::size_t>;
    { S::capacity } -> std::convertible_to<std::size_t>;
    s.reset(pc, m);
    { cs.pc() } -> std::same_as<pc_type>;
    { cs.active() } -> std::same_as<typename S::mask_type>;
    { cs.live() } -> std::same_as<typename S::mask_type>;
    { cs.depth() } -> std::same_as<std::size_t>;
    { cs.max_depth() } -> std::same_as<std::size_t>;
    { cs.converged() } -> std::same_as<bool>;
    { cs.finished() } -> std::same_as<bool>;
    s.advance(pc);
    s.branch(m, pc, pc, pc); // taken lanes, taken target, fall-through pc, reconvergence pc
    s.exit(m);
    s.record_issue();
    { cs.stats() } -> std::same_as<const stack_stats&>;
};

/// A simt_stack whose divergent branches reconverge at the pc set by the last SSY
/// instruction (`ssy(pc)`, then `branch(taken, target, fallthrough)`).
template <class S>
concept sync_point_stack = simt_stack<S> &&
    requires(S& s, const S& cs, typename S::mask_type m, pc_type pc) {
    s.ssy(pc);
    s.branch(m, pc, pc);
    { cs.sync_point() } -> std::same_as<pc_type>;
};

/// Whether divergent branches of `s` reconverge at the SSY sync point: always on a static
/// sync_point_stack, never on a stack without one, and as its kind says on a stack that
/// chooses at run time (`uses_sync_points()`, selectable_stack).
template <simt_stack S>
[[nodiscard]] constexpr bool uses_sync_points(const S& s) noexcept {
    if constexpr (requires {
                      { s.uses_sync_points() } -> std::same_as<bool>;
                  })
        return s.uses_sync_points();
    else
        return sync_point_stack<S>;
}

} // namespace warpkit::simt
