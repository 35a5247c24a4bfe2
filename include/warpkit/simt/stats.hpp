#pragma once
/// \file
/// `stack_stats`: what a SIMT reconvergence stack counts, including the lane-utilisation
/// histogram of GPUWattch (paper 001, Fig. 16: 0, 1-2, 3-4, ..., 31-32 active lanes of 32).

#include <warpkit/core/histogram.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace warpkit::simt {

/// Number of bins of the lane-utilisation histogram: "0" plus 16 equal ranges.
inline constexpr std::size_t lane_utilisation_bins = 17;

/// Lanes per lane-utilisation bin for a warp of `warp_size` lanes: max(1, ceil(warp_size / 16)).
[[nodiscard]] constexpr std::uint64_t lane_utilisation_width(std::size_t warp_size) noexcept {
    const std::uint64_t w = (static_cast<std::uint64_t>(warp_size) + 15) / 16;
    return w == 0 ? 1 : w;
}

/// Lower bounds of the lane-utilisation bins. Bin 0 counts issues with no active lane (idle);
/// bin i >= 1 counts (i-1)*w+1 .. i*w active lanes, w = lane_utilisation_width(warp_size).
/// 32 lanes: 0, 1-2, 3-4, ..., 31-32 (paper 001 Fig. 16); 16 lanes: 0, 1, 2, ..., 16;
/// 64 lanes: 0, 1-4, ..., 61-64; 8 lanes: 0, 1, ..., 8 and bins 9..16 stay empty.
[[nodiscard]] constexpr std::array<std::uint64_t, lane_utilisation_bins>
lane_utilisation_bounds(std::size_t warp_size) noexcept {
    const std::uint64_t w = lane_utilisation_width(warp_size);
    std::array<std::uint64_t, lane_utilisation_bins> lo{};
    for (std::size_t i = 1; i < lane_utilisation_bins; ++i)
        lo[i] = (i - 1) * w + 1;
    return lo;
}

/// Counters of one SIMT stack (add up across warps of the same warp size). A default-made
/// value has 32-lane utilisation bins; sum other warp sizes into make_stack_stats(size).
struct stack_stats {
    /// Branches whose active lanes went to two different pcs.
    std::uint64_t divergent_branches = 0;
    /// Branches whose active lanes all went to one pc (no entry pushed).
    std::uint64_t uniform_branches = 0;
    /// Divergences closed: their paths merged at the reconvergence point (or all exited).
    std::uint64_t reconvergences = 0;
    /// Lanes that executed EXIT.
    std::uint64_t exited_lanes = 0;
    /// Stack depth right after each divergent branch (bins 0..15 and 16+). A maximum does not
    /// add across warps, so the deepest nesting is read from the highest non-empty bin.
    histogram<17> depth_at_divergence{};
    /// Active lanes per issued instruction (see lane_utilisation_bounds).
    histogram<lane_utilisation_bins> lane_utilisation{lane_utilisation_bounds(32)};
    WARPKIT_FIELDS(stack_stats, divergent_branches, uniform_branches, reconvergences, exited_lanes,
                   depth_at_divergence, lane_utilisation)
};

/// Zeroed stats whose lane-utilisation bins suit a warp of `warp_size` lanes.
[[nodiscard]] inline stack_stats make_stack_stats(std::size_t warp_size) {
    stack_stats s;
    s.lane_utilisation = histogram<lane_utilisation_bins>(lane_utilisation_bounds(warp_size));
    return s;
}

/// Records the depth of the stack, `depth` entries, right after a divergent branch (the branch
/// itself is counted by the caller). depth_at_divergence has its default bins, one per depth
/// 0..15 and 16+, so the bin is min(depth, 16): no search as in histogram::add, which is most
/// of what a divergent branch costs otherwise (add_to_bin checks the bin).
inline void record_divergence_depth(stack_stats& s, std::size_t depth) {
    constexpr std::size_t last = decltype(stack_stats::depth_at_divergence)::bins - 1;
    s.depth_at_divergence.add_to_bin(depth < last ? depth : last, depth);
}

/// Records one issue slot with `active_lanes` active lanes (0 for an idle slot).
inline void record_active_lanes(stack_stats& s, std::size_t active_lanes) noexcept {
    s.lane_utilisation.add(active_lanes);
}

} // namespace warpkit::simt
