#pragma once
/// \file
/// `gto`: greedy-then-oldest warp scheduling. The warp that issued last keeps the first slot
/// while it can issue; every other slot (and the first, once the greedy warp stalls) goes to
/// the oldest issuable warp (smallest age, then smallest id).

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/parameterless_scheduler.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace warpkit::issue {

/// Counters of the greedy-then-oldest scheduler.
struct gto_stats {
    std::uint64_t greedy_issues = 0; ///< first slots kept by the greedy warp
    std::uint64_t switches = 0;      ///< cycles the greedy warp changed
    scheduler_stats issue{};
    WARPKIT_FIELDS(gto_stats, greedy_issues, switches, issue)
};

/// Greedy then oldest: keep the last issued warp while it is issuable, else oldest first.
class gto : public detail::parameterless_scheduler<gto_stats> {
public:
    using parameterless_scheduler::parameterless_scheduler;

    /// Short name for reports.
    static constexpr std::string_view kind = "gto";

    /// The greedy warp if it can issue, then the oldest issuable warps, up to `width`.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        WARPKIT_EXPECTS(views.size() <= max_warps);
        width_ = width;
        issue_list out;
        std::uint64_t taken = 0;
        std::uint64_t seen = 0;
        for (const auto& v : views) {
            WARPKIT_EXPECTS(v.id < max_warps);
            WARPKIT_EXPECTS((seen & detail::warp_bit(v.id)) == 0);
            seen |= detail::warp_bit(v.id);
            if (has_greedy_ && v.id == greedy_ && issuable(v) && width > 0) {
                out.push(v.id, v.unit);
                taken |= detail::warp_bit(v.id);
            }
        }
        // Width is tiny (<= max_issue_width): one pass per slot beats sorting the views.
        while (out.size() < width) {
            const warp_view* best = nullptr;
            for (const auto& v : views) {
                if (!issuable(v) || (taken & detail::warp_bit(v.id)) != 0) continue;
                if (best == nullptr || v.age < best->age || (v.age == best->age && v.id < best->id))
                    best = &v;
            }
            if (best == nullptr) break;
            out.push(best->id, best->unit);
            taken |= detail::warp_bit(best->id);
        }
        return out;
    }

    /// The warp of the first issued slot becomes (or stays) the greedy warp.
    void notify_issued(const issue_list& done) noexcept {
        stats_.issue.record(width_, done);
        if (done.empty()) return;
        const warp_id first = done.begin()->warp;
        if (has_greedy_ && first == greedy_)
            ++stats_.greedy_issues;
        else
            ++stats_.switches;
        greedy_ = first;
        has_greedy_ = true;
    }

    /// The current greedy warp, if any warp has issued yet.
    [[nodiscard]] bool has_greedy() const noexcept { return has_greedy_; }
    [[nodiscard]] warp_id greedy() const noexcept { return greedy_; }

private:
    warp_id greedy_ = 0;
    bool has_greedy_ = false;
    std::size_t width_ = 0;
};

} // namespace warpkit::issue
