// A tiny machine for scheduler tests: warps run fixed instruction lists; dependences go
// through registers and the library scoreboard; each unit class is a pipeline with a fixed
// latency and an initiation interval of one. It records what issued each cycle and which
// cycles each unit had an instruction in its pipeline. Test-only: not part of the library.
#pragma once

#include "../../examples/schedulers/issue_model.hpp"

#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace replay {

using warpkit::isa::unit_class;

/// One instruction: its unit, the registers it reads and writes, and whether its result
/// comes back after the long (memory) latency.
struct inst {
    unit_class unit = unit_class::int_alu;
    warpkit::issue::operands ops{};
    bool long_latency = false;
};

struct config {
    std::uint32_t cycles = 15;       // simulated cycles 1..cycles
    std::size_t width = 1;           // issue width
    std::uint32_t latency = 4;       // every unit (paper 003 Fig. 4: 4 cycles, II 1)
    std::uint32_t long_latency = 20; // result latency of long_latency instructions
};

struct result {
    std::vector<warpkit::issue::issue_list> issued; // issued[c - 1]: what issued in cycle c
    std::array<std::vector<bool>, warpkit::isa::unit_class_count> busy{}; // busy[u][c - 1]

    /// Warp ids in issue order.
    [[nodiscard]] std::vector<int> order() const {
        std::vector<int> o;
        for (const auto& l : issued)
            for (const auto& s : l)
                o.push_back(s.warp);
        return o;
    }
    /// Unit classes in issue order.
    [[nodiscard]] std::vector<unit_class> classes() const {
        std::vector<unit_class> o;
        for (const auto& l : issued)
            for (const auto& s : l)
                o.push_back(s.unit);
        return o;
    }
    /// Lengths of the runs of cycles with nothing in unit u's pipeline, in time order.
    [[nodiscard]] std::vector<int> idle_periods(unit_class u) const {
        std::vector<int> runs;
        int run = 0;
        for (bool b : busy[warpkit::isa::index(u)]) {
            if (!b) {
                ++run;
            } else if (run > 0) {
                runs.push_back(run);
                run = 0;
            }
        }
        if (run > 0) runs.push_back(run);
        return runs;
    }
};

/// Runs `programs` (one instruction list per warp, warp id = index) through scheduler `s`.
template <class S>
result run(S& s, const std::vector<std::vector<inst>>& programs, const config& cfg) {
    const std::size_t n = programs.size();
    warpkit::issue::scoreboard sb(
        warpkit::issue::scoreboard_params{static_cast<std::uint32_t>(n), 64, 8});
    issue_model::writebacks in_flight;
    std::vector<std::size_t> pc(n, 0);
    result r;
    for (auto& b : r.busy)
        b.assign(cfg.cycles, false);
    std::vector<warpkit::issue::warp_view> views(n);
    for (std::uint32_t c = 1; c <= cfg.cycles; ++c) {
        // Writebacks due this cycle happen before issue (results are usable at issue + latency).
        in_flight.release_due(sb, c);
        issue_model::fill_views(views, programs, pc, sb, [](const inst&) { return true; });
        const auto picked = s.select(std::span<const warpkit::issue::warp_view>(views), cfg.width);
        for (const auto& p : picked) {
            const inst& i = programs[p.warp][pc[p.warp]];
            sb.reserve(p.warp, i.ops, i.long_latency);
            const std::uint32_t lat = i.long_latency ? cfg.long_latency : cfg.latency;
            in_flight.add(c + lat, p.warp, i.ops);
            for (std::uint32_t k = 0; k < cfg.latency && c - 1 + k < cfg.cycles; ++k)
                r.busy[warpkit::isa::index(i.unit)][c - 1 + k] = true;
            ++pc[p.warp];
        }
        s.notify_issued(picked);
        r.issued.push_back(picked);
    }
    return r;
}

} // namespace replay
