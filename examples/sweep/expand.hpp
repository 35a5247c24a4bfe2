#pragma once
// Expanding a sweep spec into its points: how many there are, their ids and point `index`.

#include "spec_types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sweep {

/// The number of points `s` expands to.
[[nodiscard]] inline std::uint64_t point_count(const spec& s) noexcept {
    std::uint64_t n = 0;
    for (const auto& w : s.workloads) {
        std::uint64_t per = w.takes_preset() ? s.presets.size() : 1;
        for (const auto& g : s.grid)
            per *= g.size();
        if (w.takes_seed()) per *= s.seeds.size();
        n += per;
    }
    return n;
}

/// The id of point `index` of `total`: "p" and the index zero-padded to total's digits (at
/// least 4), so that ids sort as the expansion order.
[[nodiscard]] inline std::string point_id(std::uint64_t index, std::uint64_t total) {
    std::size_t width = 4;
    for (std::uint64_t t = total > 0 ? total - 1 : 0; t >= 10000; t /= 10)
        ++width;
    std::string d = std::to_string(index);
    return "p" + std::string(d.size() < width ? width - d.size() : 0, '0') + d;
}

/// Point `index` (< point_count(s)). Order: workloads, then presets, then grid groups (the
/// first outermost), then seeds.
[[nodiscard]] inline point make_point(const spec& s, std::uint64_t index) {
    const std::uint64_t total = point_count(s);
    point p;
    p.index = index;
    p.id = point_id(index, total);
    std::uint64_t rest = index;
    for (const auto& w : s.workloads) {
        std::uint64_t grid = 1;
        for (const auto& g : s.grid)
            grid *= g.size();
        const std::uint64_t seeds = w.takes_seed() ? s.seeds.size() : 1;
        const std::uint64_t presets = w.takes_preset() ? s.presets.size() : 1;
        const std::uint64_t per = presets * grid * seeds;
        if (rest >= per) {
            rest -= per;
            continue;
        }
        p.work = &w;
        if (w.takes_seed()) {
            p.seed = s.seeds[rest % seeds];
            rest /= seeds;
        }
        std::vector<std::size_t> pick(s.grid.size());
        for (std::size_t g = s.grid.size(); g-- > 0;) {
            pick[g] = rest % s.grid[g].size();
            rest /= s.grid[g].size();
        }
        if (w.takes_preset()) p.preset = s.presets[rest];
        for (std::size_t g = 0; g < s.grid.size(); ++g)
            for (const auto& a : s.grid[g].axes)
                p.params.emplace_back(a.key, a.values[pick[g]]);
        return p;
    }
    throw warpkit::error("point " + std::to_string(index) + " is outside the sweep's " +
                         std::to_string(total) + " points");
}

} // namespace sweep
