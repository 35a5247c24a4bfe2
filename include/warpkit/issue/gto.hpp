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

#include <array>
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
        if (width == 0) return out;
        // One pass, with few branches on the views' flags (they change from cycle to cycle, so
        // a branch on them mispredicts): the greedy warp aside, the `width` oldest issuable
        // warps are kept sorted by (age, id) (width <= max_issue_width: insertion beats
        // sorting). A view that cannot compete gets the key of the empty entries, which no
        // key beats. Duplicate ids (fewer distinct ids than views) are refused after the
        // pass (a test per view would chain each view's check to the previous one's set).
        warp_set<MaxWarps> seen;
        const warp_view* greedy = nullptr;
        std::array<key, max_issue_width> best;
        best.fill(key{});
        for (const auto& v : views) {
            seen.set(v.id); // refuses ids >= max_warps
            const bool ok = issuable(v);
            const bool is_greedy = has_greedy_ & (v.id == greedy_);
            greedy = (ok & is_greedy) ? &v : greedy;
            const bool competes = ok & !is_greedy;
            const key k{competes ? v.age : key{}.age, competes ? v.id : key{}.id, &v};
            if (!(k < best[width - 1])) continue;
            std::size_t i = width - 1;
            for (; i > 0 && k < best[i - 1]; --i)
                best[i] = best[i - 1];
            best[i] = k;
        }
        WARPKIT_EXPECTS(seen.count() == views.size()); // no id twice
        if (greedy != nullptr) out.push(greedy->id, greedy->unit);
        for (std::size_t i = 0; i < width && out.size() < width && best[i].view != nullptr; ++i)
            out.push(best[i].view->id, best[i].view->unit);
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
    // A candidate's order (age, then id); the default is an empty entry, after every warp.
    struct key {
        std::uint64_t age = ~std::uint64_t{0};
        std::uint32_t id = ~std::uint32_t{0};
        const warp_view* view = nullptr;
        [[nodiscard]] bool operator<(const key& o) const noexcept {
            return age < o.age || (age == o.age && id < o.id);
        }
    };

    warp_id greedy_ = 0;
    bool has_greedy_ = false;
    std::size_t width_ = 0;
};

/// Greedy then oldest over 64 warps.
using gto = basic_gto<max_warps>;

} // namespace warpkit::issue
