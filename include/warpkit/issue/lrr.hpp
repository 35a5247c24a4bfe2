#pragma once
/// \file
/// `lrr`: loose round-robin warp scheduling. Each cycle the search starts at the warp after
/// the last one that issued and takes the first issuable warps in id order, wrapping around.

#include <warpkit/core/error.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/parameterless_scheduler.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace warpkit::issue {

/// Loose round robin: issuable warps in id order starting after the last issued warp, over
/// warp ids below `MaxWarps`.
template <std::size_t MaxWarps>
class basic_lrr : public detail::parameterless_scheduler<scheduler_stats> {
    using base = detail::parameterless_scheduler<scheduler_stats>;

public:
    using base::base;
    /// Warp ids are below this.
    static constexpr std::size_t max_warps = MaxWarps;

    /// Short name for reports.
    static constexpr std::string_view kind = "lrr";

    /// True: there is a select_planes (two_level and GATES use it), for ids below 64.
    static constexpr bool takes_planes = MaxWarps <= 64;

    /// True: select() picks from the issuable views alone, so a caller may leave the others
    /// out of the span it passes (scheduler_bank does, and the pick is the same).
    [[nodiscard]] static constexpr bool issuable_only() noexcept { return true; }

    /// Up to `width` issuable warps, in rotation order after the last issued warp.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        last_width_ = width;
        detail::view_positions<MaxWarps> pos{};
        const auto ready = detail::issuable_set<MaxWarps>(views, pos);
        issue_list out;
        if (width == 0) return out;
        detail::visit_from<MaxWarps>(ready, last_ + 1, [&](std::size_t w) {
            out.push(static_cast<warp_id>(w), views[pos[w]].unit);
            return out.size() >= width;
        });
        return out;
    }

    /// select() for ids below 64 given as masks (two_level and GATES over lrr call it with
    /// view_planes): the picks of select() over views whose issuable warps are `ready`,
    /// appended to `out` (which has room for `width` more); unit_of(w) is warp w's class.
    template <class UnitOf>
    requires(MaxWarps <= 64) void select_ready(std::uint64_t ready, std::size_t width,
                                               UnitOf&& unit_of, issue_list& out) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        last_width_ = width;
        if (width == 0) return;
        const std::size_t start = (std::size_t{last_} + 1) % MaxWarps;
        const std::uint64_t before = (std::uint64_t{1} << start) - 1;
        std::size_t n = 0;
        for (std::uint64_t bits : {ready & ~before, ready & before})
            for (; bits != 0; bits &= bits - 1) {
                const auto w = static_cast<std::size_t>(std::countr_zero(bits));
                out.push(static_cast<warp_id>(w), unit_of(w));
                if (++n == width) return;
            }
    }

    /// select() for ids below 64 given as masks (see view_planes; two_level calls it): the
    /// picks of select() over the views of the warps in `among`, appended to `out`.
    void select_planes(const detail::view_planes& planes, std::uint64_t among, std::size_t width,
                       issue_list& out) requires(MaxWarps <= 64) {
        select_ready(
            planes.issuable() & among, width, [&](std::size_t w) { return planes.unit_of(w); },
            out);
    }

    /// The warp issued in the last slot becomes the rotation point.
    /// See issue::idle_cycle: select() of no views then notify_issued() of nothing.
    void idle_cycle(std::size_t width) noexcept {
        WARPKIT_EXPECTS(width <= max_issue_width);
        last_width_ = width;
        base::stats_.record(width, issue_list{});
    }

    void notify_issued(const issue_list& done) noexcept {
        base::stats_.record(last_width_, done);
        if (!done.empty()) last_ = (done.end() - 1)->warp;
    }

    /// The last warp that issued (the search starts after it).
    [[nodiscard]] warp_id last_issued() const noexcept { return last_; }

private:
    warp_id last_ = max_warps - 1; // so that the first search starts at warp 0
    std::size_t last_width_ = 0;
};

/// Loose round robin over 64 warps.
using lrr = basic_lrr<max_warps>;

} // namespace warpkit::issue
