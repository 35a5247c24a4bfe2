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

/// Greedy then oldest: keep the last issued warp while it is issuable, else oldest first,
/// over warp ids below `MaxWarps`.
template <std::size_t MaxWarps>
class basic_gto : public detail::parameterless_scheduler<gto_stats> {
    using base = detail::parameterless_scheduler<gto_stats>;

public:
    using base::base;
    /// Warp ids are below this.
    static constexpr std::size_t max_warps = MaxWarps;

    /// Short name for reports.
    static constexpr std::string_view kind = "gto";

    /// True: select() picks from the issuable views alone, so a caller may leave the others
    /// out of the span it passes (scheduler_bank does, and the pick is the same).
    [[nodiscard]] static constexpr bool issuable_only() noexcept { return true; }

    /// The greedy warp if it can issue, then the oldest issuable warps, up to `width`.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        WARPKIT_EXPECTS(views.size() <= max_warps);
        width_ = width;
        issue_list out;
        warp_set<MaxWarps> taken;
        warp_set<MaxWarps> seen;
        for (const auto& v : views) {
            WARPKIT_EXPECTS(!seen.test(v.id)); // also refuses ids >= max_warps, through set()
            seen.set(v.id);
            if (has_greedy_ && v.id == greedy_ && issuable(v) && width > 0) {
                out.push(v.id, v.unit);
                taken.set(v.id);
            }
        }
        // Width is tiny (<= max_issue_width): one pass per slot beats sorting the views.
        while (out.size() < width) {
            const warp_view* best = nullptr;
            for (const auto& v : views) {
                if (!issuable(v) || taken.test(v.id)) continue;
                if (best == nullptr || v.age < best->age || (v.age == best->age && v.id < best->id))
                    best = &v;
            }
            if (best == nullptr) break;
            out.push(best->id, best->unit);
            taken.set(best->id);
        }
        return out;
    }

    /// The warp of the first issued slot becomes (or stays) the greedy warp.
    void notify_issued(const issue_list& done) noexcept {
        base::stats_.issue.record(width_, done);
        if (done.empty()) return;
        const warp_id first = done.begin()->warp;
        if (has_greedy_ && first == greedy_)
            ++base::stats_.greedy_issues;
        else
            ++base::stats_.switches;
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

/// Greedy then oldest over 64 warps.
using gto = basic_gto<max_warps>;

} // namespace warpkit::issue
