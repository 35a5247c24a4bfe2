#include <warpkit/core/concepts.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/exec/functional_unit.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace exec = warpkit::exec;
using exec::op_class;
using warpkit::isa::unit_class;

namespace {

// Cycles from an issue in cycle 0 until the result is readable, and until the next issue.
struct measured {
    std::uint32_t latency = 0;
    std::uint32_t interval = 0;
};

measured measure(op_class o, const exec::timing_params& t = {}) {
    exec::functional_unit<int> u(exec::unit_of(o), t);
    u.issue(o, 7);
    measured m;
    for (std::uint32_t c = 1; c < 100 && (m.latency == 0 || m.interval == 0); ++c) {
        u.tick();
        if (m.latency == 0 && u.ready()) m.latency = c;
        if (m.interval == 0 && u.can_issue(o)) m.interval = c;
    }
    return m;
}

} // namespace

TEST_CASE("GTX480 defaults: latency / initiation interval per opcode class") {
    // The issue's table (Warped Gates' GPGPU-Sim Fermi configuration).
    CHECK(measure(op_class::int_add).latency == 4);
    CHECK(measure(op_class::int_add).interval == 1);
    CHECK(measure(op_class::fp_add).latency == 4);
    CHECK(measure(op_class::fp_add).interval == 1);
    CHECK(measure(op_class::fp_mul).latency == 4);
    CHECK(measure(op_class::fp_mul).interval == 1);
    CHECK(measure(op_class::fp_mad).latency == 5);
    CHECK(measure(op_class::fp_mad).interval == 1);
    CHECK(measure(op_class::int_mul).latency == 4);
    CHECK(measure(op_class::int_mul).interval == 2);
    CHECK(measure(op_class::sfu).latency == 8);
    CHECK(measure(op_class::sfu).interval == 8);

    exec::timing_params t;
    t.sfu = {20, 3};
    CHECK(measure(op_class::sfu, t).latency == 20);
    CHECK(measure(op_class::sfu, t).interval == 3);
}

TEST_CASE("Warped Gates Fig. 4: FP issues in cycles 3, 5, 10, 11 leave idle periods 2, 1, 1") {
    // Paper, Section 3.1: 4-cycle adds at an initiation interval of 1 over a 15-cycle window;
    // the FP unit is idle for the first two cycles, busy until both first adds finish, idle
    // one cycle, then runs two more; the window shows idle periods of 2, 1 and 1 cycles.
    exec::functional_unit<int> fp(unit_class::fp);
    std::vector<int> idle_runs;
    int run = 0;
    for (int cycle = 1; cycle <= 15; ++cycle) {
        if (cycle == 3 || cycle == 5 || cycle == 10 || cycle == 11)
            fp.issue(op_class::fp_add, cycle);
        if (fp.busy()) {
            if (run > 0) idle_runs.push_back(run);
            run = 0;
        } else {
            ++run;
        }
        while (fp.ready())
            fp.pop();
        fp.tick();
    }
    if (run > 0) idle_runs.push_back(run);
    CHECK(idle_runs == std::vector<int>{2, 1, 1});
    CHECK(fp.stats().busy_cycles == 11);
    CHECK(fp.stats().idle_cycles == 4);
    CHECK(fp.stats().cycles == 15);
}

TEST_CASE("results leave in order of readiness; equal cycles keep issue order") {
    exec::timing_params t;
    t.fp_mad = {8, 1};
    exec::functional_unit<int> fp(unit_class::fp, t);
    fp.issue(op_class::fp_mad, 1); // ready at 8
    fp.tick();
    fp.issue(op_class::fp_add, 2); // ready at 5
    fp.tick();
    fp.issue(op_class::fp_mad, 3); // ready at 10
    fp.tick();
    fp.issue(op_class::fp_add, 4);        // ready at 7
    std::vector<std::pair<int, int>> out; // (cycle, payload)
    for (int c = 3; c <= 12; ++c) {
        while (fp.ready())
            out.emplace_back(c, fp.take());
        fp.tick();
    }
    CHECK(out == std::vector<std::pair<int, int>>{{5, 2}, {7, 4}, {8, 1}, {10, 3}});

    // Equal ready cycles: a 5-cycle mad in cycle 0 and a 4-cycle add in cycle 1 both finish
    // in cycle 5, the mad first.
    exec::functional_unit<int> g(unit_class::fp);
    g.issue(op_class::fp_mad, 10);
    g.tick();
    g.issue(op_class::fp_add, 11);
    for (int c = 1; c < 5; ++c)
        g.tick();
    REQUIRE(g.results() == 2);
    CHECK(g.take() == 10);
    CHECK(g.take() == 11);
}

TEST_CASE("an undrained result buffer stalls the pipeline without losing anything") {
    exec::timing_params t; // no INT class longer than an add: the unit holds 4 + 4
    t.int_mad = {4, 1};
    t.int_div = {4, 8};
    exec::functional_unit<std::uint32_t> u(unit_class::int_alu, t);
    std::uint32_t issued = 0;
    bool blocked = false;
    for (int c = 0; c < 40; ++c) {
        if (u.can_issue(op_class::int_add))
            u.issue(op_class::int_add, issued++);
        else
            blocked = true;
        u.tick();
    }
    CHECK(blocked);
    CHECK(u.stats().result_stall_cycles > 0);
    // 4 pipeline slots and 4 result slots: 8 instructions fit before issue stops.
    CHECK(issued == 8);
    std::vector<std::uint32_t> got;
    for (int c = 0; c < 20; ++c) {
        while (u.ready())
            got.push_back(u.take());
        u.tick();
    }
    REQUIRE(got.size() == issued);
    for (std::uint32_t i = 0; i < issued; ++i)
        CHECK(got[i] == i);
    CHECK(u.stats().completed == u.stats().issued);
}

TEST_CASE("random issue / drain: every instruction comes out once, after its latency") {
    exec::timing_params t;
    t.int_mul = {9, 2};
    exec::functional_unit<std::uint64_t> u(unit_class::int_alu, t);
    warpkit::rng r(42);
    std::vector<std::uint64_t> issue_cycle;
    std::vector<op_class> kind;
    std::vector<int> seen;
    std::uint64_t busy_expected = 0;
    for (std::uint64_t c = 0; c < 5000; ++c) {
        if (r.bernoulli(0.7)) {
            const op_class o = r.bernoulli(0.3) ? op_class::int_mul : op_class::int_add;
            if (u.can_issue(o)) {
                u.issue(o, issue_cycle.size());
                issue_cycle.push_back(c);
                kind.push_back(o);
                seen.push_back(0);
            }
        }
        if (r.bernoulli(0.8))
            while (u.ready()) {
                const auto id = u.take();
                ++seen[id];
                CHECK(c >= issue_cycle[id] + t.of(kind[id]).latency);
            }
        busy_expected += u.busy() ? 1 : 0;
        u.tick();
    }
    while (u.busy() || u.ready()) {
        while (u.ready())
            ++seen[u.take()];
        u.tick();
    }
    for (const int s : seen)
        CHECK(s == 1);
    CHECK(u.stats().issued == issue_cycle.size());
    CHECK(u.stats().issued_by_class[exec::index(op_class::int_mul)] +
              u.stats().issued_by_class[exec::index(op_class::int_add)] ==
          u.stats().issued);
    CHECK(u.stats().busy_cycles + u.stats().idle_cycles == u.stats().cycles);
    CHECK(u.stats().busy_cycles >= busy_expected);
}

TEST_CASE("contracts and parameter validation") {
    exec::functional_unit<int> fp(unit_class::fp);
    CHECK_FALSE(fp.accepts(op_class::int_add));
    CHECK_THROWS_AS(fp.issue(op_class::int_add, 1), warpkit::contract_error);
    fp.issue(op_class::fp_add, 1);
    CHECK_FALSE(fp.can_issue(op_class::fp_add)); // one issue per cycle
    CHECK_THROWS_AS(fp.issue(op_class::fp_add, 2), warpkit::contract_error);
    CHECK_THROWS_AS(exec::functional_unit<int>{unit_class::branch}, warpkit::config_error);

    exec::timing_params t;
    warpkit::apply_override(t, "fp_mad.latency=0");
    try {
        exec::functional_unit<int> bad(unit_class::fp, t);
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "fp_mad.latency");
        CHECK(e.value() == "0");
    }
    const auto j = warpkit::params_to_json(exec::timing_params{});
    CHECK(j["int_mul"]["initiation_interval"] == 2);
    CHECK(j["fp_mad"]["latency"] == 5);
    CHECK(exec::timing_params{}.max_latency(unit_class::fp) == 39);  // single divide
    CHECK(exec::timing_params{}.max_latency(unit_class::dp) == 330); // double divide
    CHECK(exec::timing_params{}.max_latency(unit_class::tensor) == 8);
    // An FP pipeline that also runs FP64 (an SM without DP units) holds a double divide.
    exec::functional_unit<int> fp_dp(unit_class::fp, exec::timing_params{},
                                     1U << warpkit::isa::index(unit_class::dp));
    CHECK(fp_dp.accepts(op_class::dp_div));
    CHECK_FALSE(fp_dp.accepts(op_class::tensor));
    fp_dp.issue(op_class::dp_div, 1);
    for (int c = 0; c < 329; ++c)
        fp_dp.tick();
    CHECK_FALSE(fp_dp.ready());
    fp_dp.tick();
    CHECK(fp_dp.ready());
    CHECK(exec::timing_params{}.max_latency(unit_class::int_alu) == 145); // integer divide
    CHECK(j["dp_fma"]["initiation_interval"] == 8);
    CHECK(exec::timing_params{}.max_latency(unit_class::branch) == 0);
    CHECK(warpkit::stats_to_json(fp.stats()).contains("issued_by_class"));
}

TEST_CASE("tick reports work: true while an instruction is in the pipeline, false when idle") {
    static_assert(warpkit::reporting_tickable<exec::functional_unit<int>>);
    exec::timing_params t;
    t.int_add = {4, 1};
    exec::functional_unit<int> u(unit_class::int_alu, t);
    CHECK_FALSE(u.tick()); // empty
    u.issue(op_class::int_add, 1);
    std::vector<bool> busy;
    for (int c = 0; c < 6; ++c)
        busy.push_back(u.tick());
    // In the pipeline during the 4 cycles from issue to readiness; the result waiting in the
    // result buffer is not pipeline work.
    CHECK(busy == std::vector<bool>{true, true, true, true, false, false});
    CHECK(u.results() == 1);
}
