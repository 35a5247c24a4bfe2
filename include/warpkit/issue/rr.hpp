#pragma once
/// \file
/// `rr`: strict round-robin warp scheduling (the scheduler of the configurable Tesla-like
/// GPGPU, paper 004 Section 4.2.1). The turn passes from warp to warp in id order, one warp
/// per issue slot, over the warps that have not finished; a warp whose turn comes while it
/// cannot issue loses its turn and the slot stays empty. Unlike `lrr`, a ready warp never
/// waits more than ceil(warps / width) cycles, and the issue pattern does not depend on
/// which warps happen to be ready.

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/parameterless_scheduler.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace warpkit::issue {

/// Counters of the strict round-robin scheduler.
struct rr_stats {
    std::uint64_t lost_turns = 0; ///< turns of warps that could not issue (empty slots)
    scheduler_stats issue{};
    WARPKIT_FIELDS(rr_stats, lost_turns, issue)
};

/// Strict round robin: the `width` warps whose turn it is issue if they can, over warp ids
/// below `MaxWarps`.
template <std::size_t MaxWarps>
class basic_rr : public detail::parameterless_scheduler<rr_stats> {
    using base = detail::parameterless_scheduler<rr_stats>;

public:
    using base::base;
    /// Warp ids are below this.
    static constexpr std::size_t max_warps = MaxWarps;

    /// Short name for reports.
    static constexpr std::string_view kind = "rr";

    /// The issuable warps among the next `width` unfinished warps in turn order.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        detail::view_positions<MaxWarps> pos{};
        (void)detail::index_views<MaxWarps>(views, pos);
        warp_set<MaxWarps> alive;
        for (const auto& v : views)
            if (!v.finished) alive.set(v.id);
        issue_list out;
        std::size_t visited = 0;
        std::size_t next = turn_;
        lost_ = 0;
        if (width > 0)
            detail::visit_from<MaxWarps>(alive, turn_, [&](std::size_t w) {
                ++visited;
                next = (w + 1) % max_warps;
                const warp_view& v = views[pos[w]];
                if (issuable(v))
                    out.push(static_cast<warp_id>(w), v.unit);
                else
                    ++lost_;
                return visited >= width;
            });
        next_turn_ = next;
        width_ = width;
        return out;
    }

    /// Passes the turn to the warp after the last one visited by the last select.
    void notify_issued(const issue_list& done) noexcept {
        base::stats_.issue.record(width_, done);
        base::stats_.lost_turns += lost_;
        lost_ = 0;
        turn_ = next_turn_;
    }

    /// The warp id whose turn comes first in the next cycle (or the next unfinished one).
    [[nodiscard]] std::size_t turn() const noexcept { return turn_; }

private:
    std::size_t turn_ = 0;
    std::size_t next_turn_ = 0;
    std::size_t width_ = 0;
    std::uint64_t lost_ = 0;
};

/// Strict round robin over 64 warps.
using rr = basic_rr<max_warps>;

} // namespace warpkit::issue
