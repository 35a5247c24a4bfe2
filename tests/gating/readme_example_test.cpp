// The README's "Using one component in your simulator" example, compiled and run.
#include <doctest/doctest.h>

// --- README example begins ---
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/issue/gates.hpp>

#include <array>
#include <span>

// Your SM keeps its own warps and pipelines; warpkit decides who issues and when to gate.
struct my_sm {
    warpkit::issue::gates<> scheduler;                                     // GATES, paper defaults
    warpkit::gating::controller<warpkit::gating::naive_blackout> int_gate; // 5 / 14 / 3 cycles

    // Called once per cycle with one warp_view per warp (ready bit, unit class, age ...).
    warpkit::issue::issue_list cycle(std::span<const warpkit::issue::warp_view> warps,
                                     bool int_pipeline_busy) {
        warpkit::issue::unit_set blocked;
        if (int_gate.blocked()) blocked.set(warpkit::isa::unit_class::int_alu);
        scheduler.set_blocked(blocked); // a gated INT cluster cannot take instructions
        const auto picks = scheduler.select(warps, 1);
        // ... send picks[i].warp to your pipelines here ...
        scheduler.notify_issued(picks);
        const bool int_demand = scheduler.rdy(warpkit::isa::unit_class::int_alu) > 0;
        int_gate.tick({int_demand, int_pipeline_busy, scheduler.int_actv(), false});
        return picks;
    }
};
// --- README example ends ---

TEST_CASE("the README example runs: an idle INT cluster is gated after idle-detect cycles") {
    my_sm sm;
    std::array<warpkit::issue::warp_view, 2> warps{};
    for (std::size_t i = 0; i < warps.size(); ++i) {
        warps[i].id = static_cast<warpkit::issue::warp_id>(i);
        warps[i].unit = warpkit::isa::unit_class::fp; // only FP work: INT stays idle
        warps[i].ready = true;
    }
    for (int c = 0; c < 5; ++c) {
        const auto picks = sm.cycle(warps, false);
        CHECK(picks.size() == 1);
    }
    CHECK(sm.int_gate.gated()); // 5 idle cycles = the default idle-detect window
    CHECK(sm.int_gate.stats().gating_events == 1);
}
