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
#include <span>
#include <string_view>

namespace warpkit::issue {

/// Loose round robin: issuable warps in id order starting after the last issued warp.
class lrr : public detail::parameterless_scheduler<scheduler_stats> {
public:
    using parameterless_scheduler::parameterless_scheduler;

    /// Short name for reports.
    static constexpr std::string_view kind = "lrr";

    /// Up to `width` issuable warps, in rotation order after the last issued warp.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        last_width_ = width;
        std::array<std::uint8_t, max_warps> pos{};
        const std::uint64_t ready = detail::issuable_set(views, pos);
        const std::size_t start = (last_ + 1) % max_warps;
        std::uint64_t order = detail::rotate_to(ready, start);
        issue_list out;
        while (order != 0 && out.size() < width) {
            const auto k = static_cast<std::size_t>(std::countr_zero(order));
            order &= order - 1;
            const std::size_t w = (start + k) % max_warps;
            out.push(static_cast<warp_id>(w), views[pos[w]].unit);
        }
        return out;
    }

    /// The warp issued in the last slot becomes the rotation point.
    void notify_issued(const issue_list& done) noexcept {
        stats_.record(last_width_, done);
        if (!done.empty()) last_ = (done.end() - 1)->warp;
    }

    /// The last warp that issued (the search starts after it).
    [[nodiscard]] warp_id last_issued() const noexcept { return last_; }

private:
    warp_id last_ = max_warps - 1; // so that the first search starts at warp 0
    std::size_t last_width_ = 0;
};

} // namespace warpkit::issue
