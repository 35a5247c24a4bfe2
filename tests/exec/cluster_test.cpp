#include <warpkit/core/concepts.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/exec.hpp>

#include "../reset_law.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace exec = warpkit::exec;
using exec::op_class;
using warpkit::warp_mask;
using warpkit::isa::unit_class;

static_assert(exec::gateable_block<exec::unit_cluster<int>>);
static_assert(exec::pipeline<exec::functional_unit<int>>);
static_assert(!exec::gateable_block<exec::functional_unit<int>>);

TEST_CASE("lane activity: 32 threads over 16 double-clocked lanes, and over 4 SFU lanes") {
    exec::unit_cluster<int> sp({unit_class::int_alu, 16, {}});
    CHECK(sp.passes() == 2);
    sp.issue(op_class::int_add, 0, warp_mask::full());
    sp.tick();
    sp.issue(op_class::int_add, 1, warp_mask{(1u << 0) | (1u << 16) | (1u << 17)});
    const auto s = sp.stats();
    CHECK(s.thread_ops == 35);
    CHECK(s.lane_slots == 64); // two instructions x 16 lanes x 2 passes
    CHECK(s.active_threads.count(32) == 1);
    CHECK(s.active_threads.count(3) == 1);
    REQUIRE(s.lane_ops.size() == 16);
    CHECK(s.lane_ops[0] == 4); // threads 0, 16 of the first; 0, 16 of the second
    CHECK(s.lane_ops[1] == 3); // threads 1, 17; then 17
    CHECK(s.lane_ops[2] == 2);
    CHECK(s.lane_ops[15] == 2);

    exec::unit_cluster<int> sfu({unit_class::sfu, 4, {}});
    CHECK(sfu.passes() == 8);
    sfu.issue(op_class::sfu, 0, warp_mask::first_n(6));
    const auto f = sfu.stats();
    CHECK(f.lane_ops == std::vector<std::uint64_t>{2, 2, 1, 1});
    CHECK(f.lane_slots == 32);
    CHECK(f.thread_ops == 6);
    std::uint64_t sum = 0;
    for (const auto v : f.lane_ops)
        sum += v;
    CHECK(sum == f.thread_ops);
}

TEST_CASE("a cluster is gated as one block, only with an empty pipeline") {
    exec::unit_cluster<int> c({unit_class::fp, 16, {}});
    c.issue(op_class::fp_mad, 1, warp_mask::full());
    CHECK(c.busy());
    CHECK_THROWS_AS(c.power_off(), warpkit::contract_error);
    for (int i = 0; i < 5; ++i)
        c.tick();
    CHECK_FALSE(c.busy());
    CHECK(c.ready()); // results waiting for writeback do not keep the pipeline powered
    c.power_off();
    CHECK_FALSE(c.can_issue(op_class::fp_add));
    CHECK_THROWS_AS(c.issue(op_class::fp_add, 2, warp_mask::full()), warpkit::contract_error);
    c.tick();
    c.tick();
    c.set_powered(true);
    CHECK(c.can_issue(op_class::fp_add));
    c.tick();
    const auto s = c.stats();
    CHECK(s.powered_off_cycles == 2);
    CHECK(s.pipeline.busy_cycles == 5);
    CHECK(s.pipeline.idle_cycles == 3);
}

TEST_CASE("GTX480 SM: SP0 and SP1 INT and FP clusters, 4 SFUs, 16 LD/ST units") {
    exec::execution_units<int> u;
    REQUIRE(u.size() == 6);
    CHECK(u.name(u.int_cluster(0)) == "sp0.int");
    CHECK(u.name(u.int_cluster(1)) == "sp1.int");
    CHECK(u.name(u.fp_cluster(0)) == "sp0.fp");
    CHECK(u.name(u.fp_cluster(1)) == "sp1.fp");
    CHECK(u.name(u.sfu_cluster()) == "sfu");
    CHECK(u.name(u.ldst_cluster()) == "ldst");
    CHECK(u[u.sfu_cluster()].lanes() == 4);
    CHECK(u[u.ldst_cluster()].lanes() == 16);
    CHECK(u[u.fp_cluster(1)].kind() == unit_class::fp);
    CHECK(u.clusters_of(unit_class::int_alu) == std::pair<std::size_t, std::size_t>{0, 2});
    CHECK(u.clusters_of(unit_class::branch).second == 0);

    // Two schedulers issue two INT instructions in one cycle: SP0 then SP1; a third waits.
    CHECK(u.issue(op_class::int_add, 1, warp_mask::full()) == std::optional<std::size_t>{0});
    CHECK(u.issue(op_class::int_add, 2, warp_mask::full()) == std::optional<std::size_t>{1});
    CHECK_FALSE(u.issue(op_class::int_add, 3, warp_mask::full()).has_value());
    CHECK(u.issue(op_class::sfu, 4, warp_mask::full()) == std::optional<std::size_t>{4});
    CHECK(u.busy_mask() == 0b010011);
    u.tick();

    // SFU initiation interval 8: the next SFU instruction waits until cycle 8.
    int sfu_next = -1;
    for (int c = 1; c < 20 && sfu_next < 0; ++c) {
        if (u.find_free(op_class::sfu)) sfu_next = c;
        u.tick();
    }
    CHECK(sfu_next == 8);

    // With SP0's INT cluster gated, INT work goes to SP1.
    while (u.busy_mask() != 0)
        u.tick();
    // The finished results wait in SP0's and SP1's INT clusters and the SFU's; a result taken
    // leaves its bit set until the next tick (results arrive only there).
    CHECK(u.ready_mask() == 0b010011);
    CHECK(u[u.int_cluster(0)].take() == 1);
    CHECK(u.ready_mask() == 0b010011);
    u.tick();
    CHECK(u.ready_mask() == 0b010010);
    u[u.int_cluster(0)].power_off();
    CHECK(u.issue(op_class::int_mul, 5, warp_mask::full()) == std::optional<std::size_t>{1});
    CHECK(u.busy_mask() == 0b000010);
}

TEST_CASE("sub-cores: each owns its share of the SPs, an SFU and an LD/ST cluster") {
    exec::units_params p;
    p.sp_count = 4;
    p.sub_cores = 4;
    p.ldst_lanes = 8;
    exec::execution_units<int> u(p);
    REQUIRE(u.size() == 16);
    CHECK(u.sub_cores() == 4);
    CHECK(u.name(u.sfu_cluster(2)) == "sfu2");
    CHECK(u.name(u.ldst_cluster(3)) == "ldst3");
    CHECK(u[u.ldst_cluster(1)].kind() == unit_class::ldst);
    CHECK(u[u.ldst_cluster(1)].lanes() == 8);
    CHECK(u.clusters_of(unit_class::fp, 2) == std::pair<std::size_t, std::size_t>{6, 1});
    CHECK(u.clusters_of(unit_class::sfu, 3) == std::pair<std::size_t, std::size_t>{11, 1});
    CHECK(u.clusters_of(unit_class::ldst) == std::pair<std::size_t, std::size_t>{12, 4});
    // Sub-core 1's INT cluster takes one instruction a cycle; the others' stay free.
    CHECK(u.issue(op_class::int_add, 1, warp_mask::full(), 1, 1) ==
          std::optional<std::size_t>{1});
    CHECK_FALSE(u.issue(op_class::int_add, 2, warp_mask::full(), 1, 1).has_value());
    CHECK(u.find_free(op_class::int_add, 0) == std::optional<std::size_t>{0});
    CHECK(u.issue(op_class::sfu, 3, warp_mask::full(), 1, 3) == std::optional<std::size_t>{11});
    CHECK(u.find_free(op_class::sfu, 2) == std::optional<std::size_t>{10});
    CHECK(u.busy_mask() == ((1u << 1) | (1u << 11)));
    p.sub_cores = 3; // does not divide the four SPs
    CHECK_THROWS_WITH_AS(exec::execution_units<int>{p}, doctest::Contains("'sub_cores' = 3"),
                         warpkit::config_error);
}

TEST_CASE("DP and tensor units: a cluster of each per sub-core, or the FP clusters run them") {
    exec::units_params p;
    p.sp_count = 4;
    p.sub_cores = 4;
    p.dp_lanes = 8;
    p.tensor_lanes = 32;
    p.timing.dp_fma = {8, 4};
    p.timing.tensor = {64, 64};
    exec::execution_units<int> u(p);
    // 4 INT, 4 FP, 4 SFU, 4 LD/ST, then 4 DP and 4 tensor clusters.
    REQUIRE(u.size() == 24);
    CHECK(u.dp_cluster(0) == 16);
    CHECK(u.tensor_cluster(3) == 23);
    CHECK(u.name(u.dp_cluster(1)) == "dp1");
    CHECK(u.name(u.tensor_cluster(2)) == "tensor2");
    CHECK(u.name(u.ldst_cluster(3)) == "ldst3");
    CHECK(u[u.dp_cluster(2)].kind() == unit_class::dp);
    CHECK(u[u.dp_cluster(2)].lanes() == 8);
    CHECK(u[u.tensor_cluster(0)].kind() == unit_class::tensor);
    CHECK(u.clusters_of(unit_class::dp, 2) == std::pair<std::size_t, std::size_t>{18, 1});
    CHECK(u.clusters_of(unit_class::tensor) == std::pair<std::size_t, std::size_t>{20, 4});
    CHECK(u.runs_on(unit_class::dp) == unit_class::dp);
    CHECK(u.runs_on(unit_class::tensor) == unit_class::tensor);
    // Sub-core 1's tensor unit takes a matrix instruction; the next waits its 64-cycle
    // interval while the sub-core's FP cluster stays free for FP32 and its DP cluster for FP64.
    CHECK(u.issue(op_class::tensor, 1, warp_mask::full(), 1, 1) == std::optional<std::size_t>{21});
    CHECK_FALSE(u.find_free(op_class::tensor, 1).has_value());
    CHECK(u.find_free(op_class::fp_mad, 1) == std::optional<std::size_t>{5});
    CHECK(u.find_free(op_class::dp_fma, 1) == std::optional<std::size_t>{17});
    CHECK_FALSE(u[u.fp_cluster(1)].accepts(op_class::dp_fma));
    CHECK_FALSE(u[u.fp_cluster(1)].accepts(op_class::tensor));
    // The matrix result is ready 64 cycles after issue.
    for (int c = 0; c < 63; ++c) {
        u.tick();
        CHECK_FALSE(u[21].ready());
    }
    u.tick();
    CHECK(u[21].ready());

    // Without DP and tensor units (the GTX480), both run on the FP clusters with their own
    // timing: the FP pipeline holds a 330-cycle FP64 divide.
    exec::units_params f;
    exec::execution_units<int> g(f);
    REQUIRE(g.size() == 6);
    CHECK(g.runs_on(unit_class::dp) == unit_class::fp);
    CHECK(g.runs_on(unit_class::tensor) == unit_class::fp);
    CHECK(g.clusters_of(unit_class::dp) == g.clusters_of(unit_class::fp));
    CHECK(g.clusters_of(unit_class::tensor) == g.clusters_of(unit_class::fp));
    CHECK(g[g.fp_cluster(0)].accepts(op_class::dp_div));
    CHECK(g[g.fp_cluster(0)].accepts(op_class::tensor));
    CHECK_FALSE(g[g.int_cluster(0)].accepts(op_class::dp_add));
    CHECK(g.issue(op_class::dp_div, 7, warp_mask::full()) == std::optional<std::size_t>{2});
    CHECK(g.issue(op_class::tensor, 8, warp_mask::full()) == std::optional<std::size_t>{3});
    std::size_t cycles = 0;
    while (!g[2].ready()) {
        g.tick();
        ++cycles;
    }
    CHECK(cycles == f.timing.dp_div.latency);
    CHECK(g[3].ready()); // the tensor instruction (dp_fma's 8 cycles on the GTX480) left first
    CHECK(g[3].front() == 8);
    p.dp_lanes = 3;
    CHECK_THROWS_WITH_AS(exec::execution_units<int>{p}, doctest::Contains("'dp_lanes' = 3"),
                         warpkit::config_error);
}

TEST_CASE("execution unit params validate and reflect") {
    exec::units_params p;
    warpkit::apply_override(p, "sp_lanes=12");
    CHECK_THROWS_AS(exec::execution_units<int>{p}, warpkit::config_error);
    try {
        warpkit::validate(p);
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "sp_lanes");
    }
    exec::units_params k;
    k.sp_count = 6; // a Kepler-like SM
    exec::execution_units<int> u(k);
    CHECK(u.size() == 14);
    CHECK(u.name(u.fp_cluster(5)) == "sp5.fp");
    CHECK(warpkit::params_to_json(exec::cluster_params{})["kind"] == "int");
    exec::unit_cluster<int> c;
    c.issue(op_class::int_add, 0, warp_mask::full());
    const auto j = warpkit::stats_to_json(c.stats());
    CHECK(j["lane_ops"].size() == 16);
    CHECK(j["pipeline"]["issued"] == 1);
}

TEST_CASE("law: reset_stats restarts a cluster's counters (its pipeline's included)") {
    static_assert(warpkit::observable_component<exec::unit_cluster<int>>);
    // Issue with random masks, pop results, and gate the cluster in idle stretches.
    struct twin {
        exec::cluster_params p{}; // named: g++ 12 warns of a dangling default argument
        exec::unit_cluster<int> component{p};
        warpkit::rng r{3};
    };
    const auto step = [](twin& t, std::size_t) {
        auto& c = t.component;
        const op_class o = t.r.bernoulli(0.3) ? op_class::int_mul : op_class::int_add;
        if (c.powered() && t.r.bernoulli(0.6) && c.can_issue(o))
            c.issue(o, 0, warp_mask{static_cast<std::uint32_t>(t.r.below(1ULL << 32))});
        while (c.ready())
            c.pop();
        if (!c.busy() && t.r.bernoulli(0.05)) c.set_powered(!c.powered());
        c.tick();
    };
    reset_law::check([] { return twin{}; }, step, 400, 600);
}

TEST_CASE("skip_idle(n) counts what n ticks of empty pipelines count, powered or not") {
    exec::units_params p;
    p.sub_cores = 2;
    p.sp_count = 2;
    exec::execution_units<int> ticked(p);
    exec::execution_units<int> skipped(p);
    // Some work first, drained, so that the counters and clocks start from something.
    for (auto* u : {&ticked, &skipped}) {
        REQUIRE(u->issue(op_class::fp_mad, 1, warp_mask::full()).has_value());
        for (int c = 0; c < 40; ++c) {
            u->tick();
            for (std::size_t i = 0; i < u->size(); ++i)
                while ((*u)[i].ready())
                    (*u)[i].pop();
        }
        (*u)[u->sfu_cluster(1)].set_powered(false);
        REQUIRE(u->busy_mask() == 0);
    }
    for (int c = 0; c < 123; ++c)
        ticked.tick();
    skipped.skip_idle(123);
    for (std::size_t i = 0; i < ticked.size(); ++i) {
        CAPTURE(ticked.name(i));
        CHECK(warpkit::stats_to_json(ticked[i].stats()) ==
              warpkit::stats_to_json(skipped[i].stats()));
    }
    CHECK(skipped[skipped.sfu_cluster(1)].stats().powered_off_cycles == 123);
    CHECK(skipped[0].stats().pipeline.cycles == 163); // SP0's INT cluster: never used
    CHECK(skipped[0].stats().pipeline.idle_cycles == 163);
    // The clocks moved alike: an FP MAD issued now is ready after its 5 cycles on both.
    for (auto* u : {&ticked, &skipped}) {
        REQUIRE(u->issue(op_class::fp_mad, 2, warp_mask::full()) == u->fp_cluster(0));
        for (int c = 0; c < 4; ++c)
            u->tick();
        CHECK_FALSE((*u)[u->fp_cluster(0)].ready());
        u->tick();
        CHECK((*u)[u->fp_cluster(0)].ready());
    }
}
