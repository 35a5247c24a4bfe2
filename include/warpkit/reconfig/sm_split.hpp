#pragma once
/// \file
/// AMOEBA's dynamic splitting of a fused SM (paper 002, Sec. 4.3, Figs. 10 and 11): the
/// switch controller of one fused SM and the two ways of cutting a divergent warp.
///
/// A fused SM watches its warps. When the ratio of divergent warps to all its warps exceeds
/// a fixed threshold it splits into two SMs of half the datapath each (SM0 and SM1); the
/// shared resources (L1, register files, NoC interface) stay shared. Divergent warps are
/// cut into two warps of half the width:
/// - direct split: the warp is cut in the middle; both halves move to SM1;
/// - warp regrouping: the warp's threads are divided into small groups labelled fast or
///   slow, and regrouped into a fast warp that stays on SM0 and a slow warp (the slowest
///   groups) that moves to SM1. The controller also checks SM1's stalls periodically and
///   moves a fast warp to it when it stalled most of the interval.
/// When SM1 has finished every divergent warp it was given, the two SMs re-fuse, and the
/// controller starts collecting divergent warps again. Each SM decides on its own, so a GPU
/// holds fused and split SMs at once.
///
/// The controller is a pure part: it is told the warp counts of its SM every cycle and
/// answers with an action; the SM carries it out (gpu::sm).
///
/// What the paper leaves open and this part fixes (all parameters):
/// - a warp is divergent when some of its live threads wait at a reconvergence point (its
///   SIMT stack holds an open divergence);
/// - a thread group is fast when every live thread of it is on the path the warp runs now,
///   slow when some of them wait; the fast warp gets the fast groups, the slow warp the
///   slow ones, each at most half the groups (see regroup());
/// - a cut warp runs as a warp of half the width; a warp that is not cut takes two passes
///   of a split SM's half datapath;
/// - SM1 stalls in a cycle when it holds warps and issues none;
/// - the threshold (no figure in the paper) defaults to 0.25, the check interval to 100
///   cycles.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::reconfig {

/// How a fused SM reconfigures at run time.
enum class split_mode : std::uint8_t {
    off,     ///< stays fused (static fuse)
    direct,  ///< direct split: divergent warps cut in the middle, both halves to SM1
    regroup, ///< warp regrouping: a fast warp stays on SM0, a slow warp moves to SM1
};

} // namespace warpkit::reconfig

template <>
struct warpkit::enum_names<warpkit::reconfig::split_mode> {
    static constexpr std::array<std::string_view, 3> names = {"off", "direct", "regroup"};
};

namespace warpkit::reconfig {

/// Parameters of dynamic splitting (paper 002 Sec. 4.3).
struct sm_split_params {
    split_mode mode = split_mode::off;
    /// Split when divergent warps / resident warps exceeds this ratio.
    double threshold = 0.25;
    /// Cycles between two looks at the warps (the divergent-warp bin is collected anew).
    std::uint32_t check_interval = 100;
    /// Regrouping: threads per group labelled fast or slow (a divisor of half a warp).
    std::uint32_t group_lanes = 8;
    /// Regrouping: SM1 gets a fast warp when it stalled (held warps, issued none) for more
    /// than this share of a check interval.
    double rebalance_idle = 0.5;

    void validate() const {
        check(threshold >= 0.0 && threshold < 1.0, "threshold", threshold, "[0, 1)");
        check_range("check_interval", check_interval, 1U, 1U << 24);
        check(group_lanes >= 1 && group_lanes <= 32 && 32 % group_lanes == 0, "group_lanes",
              group_lanes, "a divisor of 32 (1, 2, 4, 8, 16, 32)");
        check(rebalance_idle > 0.0 && rebalance_idle <= 1.0, "rebalance_idle", rebalance_idle,
              "(0, 1]");
    }
    WARPKIT_FIELDS(sm_split_params, mode, threshold, check_interval, group_lanes, rebalance_idle)
};

/// Counters of one SM's switch controller (they add up over SMs).
struct sm_split_stats {
    std::uint64_t checks = 0;           ///< looks at the warps while fused
    std::uint64_t splits = 0;           ///< fused -> split
    std::uint64_t refuses = 0;          ///< split -> fused
    std::uint64_t split_cycles = 0;     ///< cycles spent split
    std::uint64_t warps_cut = 0;        ///< divergent warps cut in two (one new warp each)
    std::uint64_t warps_moved = 0;      ///< divergent warps (or parts) sent to SM1
    std::uint64_t fast_warps_moved = 0; ///< regrouping: fast warps moved to an idle SM1
    WARPKIT_FIELDS(sm_split_stats, checks, splits, refuses, split_cycles, warps_cut, warps_moved,
                   fast_warps_moved)
};

/// What the SM does this cycle.
enum class split_action : std::uint8_t {
    none,
    split,     ///< cut the divergent warps and run as two SMs
    refuse,    ///< SM1 has finished its divergent warps: fuse again
    rebalance, ///< move one fast warp to SM1 (regrouping)
};

/// What the SM tells its controller each cycle.
struct split_observation {
    std::uint32_t warps = 0;     ///< resident warps on SM0 (all of them while fused)
    std::uint32_t divergent = 0; ///< of them divergent (the bin)
    /// Divergent warps (or parts) on SM1 or on their way there.
    std::uint32_t second_divergent = 0;
    std::uint32_t second_warps = 0; ///< warps resident on SM1
    bool second_issued = false;     ///< SM1 issued an instruction this cycle
};

/// The switch controller of one fused SM.
class sm_split_controller {
public:
    explicit sm_split_controller(const sm_split_params& p = {}) : p_(validated(p)) {}

    [[nodiscard]] bool enabled() const noexcept { return p_.mode != split_mode::off; }
    /// True while the SM runs as two.
    [[nodiscard]] bool split() const noexcept { return split_; }
    [[nodiscard]] const sm_split_params& params() const noexcept { return p_; }
    [[nodiscard]] const sm_split_stats& stats() const noexcept { return s_; }
    /// Restarts the counters from zero (the split state stays).
    void reset_stats() noexcept { reset_counters(s_); }

    /// One cycle: what the SM should do.
    [[nodiscard]] split_action tick(const split_observation& o) noexcept {
        if (!enabled()) return split_action::none;
        const bool check_now = ++since_check_ >= p_.check_interval;
        if (check_now) since_check_ = 0;
        if (split_) {
            ++s_.split_cycles;
            // A stall: SM1 holds warps and issued none of them.
            if (o.second_warps > 0 && !o.second_issued) ++second_idle_;
            if (o.second_divergent == 0) return split_action::refuse;
            if (!check_now) return split_action::none;
            const double idle =
                static_cast<double>(second_idle_) / static_cast<double>(p_.check_interval);
            second_idle_ = 0;
            return p_.mode == split_mode::regroup && idle > p_.rebalance_idle
                       ? split_action::rebalance
                       : split_action::none;
        }
        if (!check_now) return split_action::none;
        ++s_.checks;
        return o.warps > 0 && static_cast<double>(o.divergent) >
                                  p_.threshold * static_cast<double>(o.warps)
                   ? split_action::split
                   : split_action::none;
    }

    /// The SM carried out a split action: `binned` divergent warps are on their way to SM1
    /// (0: it found none and stays fused).
    void split_done(std::uint32_t binned) noexcept {
        if (binned == 0) return;
        split_ = true;
        ++s_.splits;
        second_idle_ = 0;
        since_check_ = 0;
    }
    /// The SM sent `moved` divergent warps (or parts) to SM1, `cut` of the divergent warps
    /// cut in two (a binned warp goes once its register writes in flight have landed).
    void moved(std::uint32_t moved, std::uint32_t cut) noexcept {
        s_.warps_moved += moved;
        s_.warps_cut += cut;
    }
    /// The SM fused again.
    void refused() noexcept {
        split_ = false;
        ++s_.refuses;
        since_check_ = 0;
    }
    /// The SM moved a fast warp to SM1.
    void rebalanced() noexcept { ++s_.fast_warps_moved; }

private:
    sm_split_params p_;
    sm_split_stats s_{};
    bool split_ = false;
    std::uint32_t since_check_ = 0;
    std::uint32_t second_idle_ = 0;
};

/// The two warps a cut warp becomes: `first` stays in the warp's slot, `second` is new.
template <std::size_t W>
struct warp_cut {
    lane_mask<W> first{};
    lane_mask<W> second{};
};

/// Direct split of a warp of W threads whose live threads are `live`: threads [0, W/2) and
/// [W/2, W).
template <std::size_t W>
[[nodiscard]] constexpr warp_cut<W> direct_split(lane_mask<W> live) noexcept {
    const auto low = lane_mask<W>::first_n(W / 2);
    return {live & low, live.minus(low)};
}

/// Warp regrouping of a warp of W threads whose live threads are `live` and whose running
/// path holds `active`: the groups of `group_lanes` threads that hold live threads, fast
/// ones (every live thread in `active`) first, then slow ones by how many threads wait
/// (lowest index first among equals). `first`, the fast warp, takes the fast groups and
/// `second`, the slow warp, the rest; neither holds more than half the groups (the slow
/// warp's overflow goes to the fast warp least slow first, the fast warp's to the slow
/// warp). `first` is empty when no group is fast and the slow groups fit in one warp.
template <std::size_t W>
[[nodiscard]] warp_cut<W> regroup(lane_mask<W> live, lane_mask<W> active,
                                  std::uint32_t group_lanes) {
    WARPKIT_EXPECTS(group_lanes >= 1 && (W / 2) % group_lanes == 0);
    const std::size_t groups = W / group_lanes;
    const std::size_t cap = groups / 2;
    const auto group_of = [&](std::size_t g) {
        return lane_mask<W>::first_n((g + 1) * group_lanes)
            .minus(lane_mask<W>::first_n(g * group_lanes));
    };
    std::array<std::size_t, W> order{};
    std::array<std::size_t, W> key{};
    std::size_t n = 0;
    std::size_t fast = 0;
    for (std::size_t g = 0; g < groups; ++g) {
        const auto in = live & group_of(g);
        if (in.none()) continue;
        key[g] = in.minus(active).count();
        if (key[g] == 0) ++fast;
        order[n++] = g;
    }
    std::stable_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n),
                     [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    const std::size_t to_first = std::max(std::min(fast, cap), n > cap ? n - cap : 0);
    warp_cut<W> c;
    for (std::size_t i = 0; i < n; ++i)
        (i < to_first ? c.first : c.second) |= live & group_of(order[i]);
    return c;
}

} // namespace warpkit::reconfig
