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

#include <algorithm>
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
        // Views in id order take select_increasing; views in any other order (most turned
        // away by a quick test first) and bad ids take the general path. One list, filled in
        // place by either path: a copy read right after its slots were written would wait
        // for those stores.
        if (!detail::ids_may_increase(views) || !select_increasing(views, width, out))
            select_any(views, width, out);
        return out;
    }

    /// The warp of the first issued slot becomes (or stays) the greedy warp.
    /// See issue::idle_cycle: select() of no views then notify_issued() of nothing.
    void idle_cycle(std::size_t width) noexcept {
        WARPKIT_EXPECTS(width <= max_issue_width);
        width_ = width;
        base::stats_.issue.record(width, issue_list{});
    }

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
    // The common case, views in increasing id order (how an SM lists its warps): ids are
    // then distinct, and all below max_warps when the last one is, so no set is needed to
    // refuse bad ids; of two warps of the same age the later one has the larger id, so ages
    // alone order them; and the greedy warp is found after the pass by a binary search. The
    // pass keeps the `width` oldest issuable warps, the greedy one included, sorted: with it
    // left out at the end, they hold the oldest others the picks need. Once `width` are kept,
    // a warp no older than the youngest kept one costs one comparison. Returns false, having
    // picked nothing, when the ids are not increasing or one is too large: the general path
    // decides then (and refuses what it must).
    bool select_increasing(std::span<const warp_view> views, std::size_t width, issue_list& out) {
        std::array<kept, max_issue_width> best;
        std::size_t count = 0;                      // entries of `best` in use
        std::uint64_t youngest = ~std::uint64_t{0}; // best[width - 1].age once full
        const warp_view* const first = views.data();
        const warp_view* const end = first + views.size();
        const std::size_t n = views.size();
        std::int32_t last = -1;
        // One view; false when its id does not follow the last one's. One branch, rarely
        // taken, for both the flags and the age: the loop's only taken branch is its own.
        const auto look = [&](const warp_view* p) {
            const std::int32_t id = p->id;
            if (id <= last) return false;
            last = id;
            const std::uint64_t miss =
                detail::not_issuable_bits(*p) | static_cast<std::uint64_t>(p->age > youngest);
            if (miss == 0) [[unlikely]]
                youngest = keep(best, count, width, p->age, static_cast<std::size_t>(p - first));
            return true;
        };
        const warp_view* p = first;
        for (; end - p >= 2; p += 2) // two a turn: half the loop's own work
            if (!look(p) || !look(p + 1)) return false;
        if (p != end && !look(p)) return false;
        if (last >= static_cast<std::int64_t>(max_warps)) return false;
        std::size_t greedy_at = views.size();
        if (has_greedy_) {
            // Ids increase by at least one a view, so the greedy warp sits at or before
            // position greedy_ (right there when every warp below it is listed).
            std::size_t lo = greedy_;
            std::size_t hi = lo + 1;
            if (lo >= n || views[lo].id != greedy_) {
                lo = 0;
                hi = std::min<std::size_t>(n, hi);
            }
            while (lo < hi) {
                const std::size_t mid = (lo + hi) / 2;
                if (views[mid].id < greedy_)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < views.size() && views[lo].id == greedy_ && issuable(views[lo])) {
                greedy_at = lo;
                out.push(greedy_, views[lo].unit);
            }
        }
        for (std::size_t j = 0; j < count && out.size() < width; ++j)
            if (best[j].at != greedy_at) out.push(views[best[j].at].id, views[best[j].at].unit);
        return true;
    }

    // An entry of select_increasing's oldest warps: age and position in the views.
    struct kept {
        std::uint64_t age;
        std::size_t at;
    };

    // Adds a warp of age `age` at position `at` to the `count` oldest kept so far (sorted,
    // at most `width`), after those of the same age (their ids are smaller); returns the age
    // a warp must not exceed to be looked at again (~0 while fewer than `width` are kept).
    static std::uint64_t keep(std::array<kept, max_issue_width>& best, std::size_t& count,
                              std::size_t width, std::uint64_t age, std::size_t at) noexcept {
        std::size_t j = count < width ? count : width - 1;
        if (count == width && !(age < best[j].age)) return best[j].age;
        for (; j > 0 && age < best[j - 1].age; --j)
            best[j] = best[j - 1];
        best[j] = kept{age, at};
        if (count < width) ++count;
        return count == width ? best[width - 1].age : ~std::uint64_t{0};
    }

    // The general path: one pass, with few branches on the views' flags (they change from
    // cycle to cycle, so a branch on them mispredicts): the greedy warp aside, the `width`
    // oldest issuable warps are kept sorted by (age, id) (width <= max_issue_width:
    // insertion beats sorting). A view that cannot compete gets the key of the empty
    // entries, which no key beats. Duplicate ids (fewer distinct ids than views) are refused
    // after the pass (a test per view would chain each view's check to the previous one's
    // set).
    void select_any(std::span<const warp_view> views, std::size_t width, issue_list& out) {
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
    }

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
