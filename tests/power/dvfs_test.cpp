#include <warpkit/core/error.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/reference.hpp>
#include <warpkit/power/report.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <cstddef>
#include <vector>

namespace wp = warpkit::power;
using power_test::near;
using power_test::negligible;

namespace {
// A trace of `n` samples of 500 nominal cycles, each with stall share `stall`.
wp::dvfs_trace one_domain(std::size_t n, double stall, double nominal_mhz = 700) {
    wp::dvfs_trace t;
    t.nominal_mhz = nominal_mhz;
    t.domains.resize(1);
    for (std::size_t i = 0; i < n; ++i) {
        wp::dvfs_sample s;
        s.cycles = 500;
        s.memory_stall_cycles = static_cast<std::uint64_t>(stall * 500);
        s.dynamic_j = 40e-6; // 56 W of activity at 700 MHz
        s.clock_w = 3.0;
        s.leakage_w = 35.0;
        t.domains[0].push_back(s);
    }
    t.uncore_dynamic_j = 1e-3;
    t.uncore_leakage_w = 6.65;
    return t;
}

// A policy that always wants one P-state (tests the dvfs_policy seam).
struct always {
    std::size_t state;
    [[nodiscard]] std::size_t decide(const wp::epoch_view&) const noexcept { return state; }
};
static_assert(wp::dvfs_policy<always>);
static_assert(wp::dvfs_policy<wp::stall_threshold>);
} // namespace

TEST_CASE("the paper's seven P-states") {
    const auto s = wp::gtx480_p_states();
    REQUIRE(s.size() == 7);
    CHECK(s.front().mhz == 700);
    CHECK(s.front().volts == 1.0);
    CHECK(s.back().mhz == 100);
    CHECK(s.back().volts == near(0.55));
    CHECK(wp::dvfs_params::off_chip().transition_cycles == 10000);
    CHECK(wp::dvfs_params::on_chip().transition_cycles == 500);
}

TEST_CASE("energy identity: never leaving P-state 0 reproduces the model's energy") {
    const wp::model m;
    std::vector<wp::activity> intervals;
    wp::energy_account direct;
    for (int i = 0; i < 12; ++i) {
        auto a = wp::gtx480_reference_activity();
        a.cycles = 500;
        for (std::size_t s = 0; s < a.sms.size(); ++s) {
            auto& x = a.sms[s];
            x.active_cycles = s < 10 || i < 6 ? 500 : 0; // five SMs run out of work
            x.memory_stall_cycles = static_cast<std::uint64_t>(40 * i);
            x.int_ops = 100 + 10 * static_cast<std::uint64_t>(i);
            x.fp_ops = 50 * (x.active_cycles > 0 ? 1 : 0);
        }
        direct.add(m.evaluate(a));
        intervals.push_back(a);
    }
    for (std::size_t cluster : {std::size_t{0}, std::size_t{1}, std::size_t{5}}) {
        const auto t = wp::make_dvfs_trace(m, intervals, cluster);
        const auto r = wp::run_dvfs(t, wp::dvfs_params{}, always{0});
        CHECK(r.energy_j == near(direct.total_j(), 1e-12));
        CHECK(r.baseline_energy_j == near(direct.total_j(), 1e-12));
        CHECK(r.seconds == near(direct.seconds(), 1e-12));
        CHECK(negligible(r.energy_saving()));
    }
}

TEST_CASE("energy identity: a hand-computed two-state schedule") {
    wp::dvfs_trace t;
    t.nominal_mhz = 1000;
    t.nominal_v = 1.0;
    t.leakage_voltage_exponent = 1.0;
    t.domains.resize(1);
    for (int i = 0; i < 2; ++i)
        t.domains[0].push_back(wp::dvfs_sample{1000, 400, false, 1e-6, 2.0, 3.0});
    wp::dvfs_params p;
    p.states = {{1000, 1.0}, {500, 0.5}};
    p.epoch_cycles = 1000;
    p.transition_cycles = 0;
    const auto r = wp::run_dvfs(t, p, always{1});
    // Sample 0 at 1000 MHz: 1 us, 1 uJ + 2 W x 1 us + 3 W x 1 us.
    // Sample 1 at 500 MHz / 0.5 V: 600 / 500 MHz + 400 / 1000 MHz = 1.6 us;
    //   0.25 uJ + 2 W x 0.25 x 0.5 x 1.6 us + 3 W x 0.5 x 1.6 us = 3.05 uJ.
    CHECK(r.seconds == near(2.6e-6));
    CHECK(r.energy_j == near(6e-6 + 3.05e-6));
    CHECK(r.baseline_seconds == near(2e-6));
    CHECK(r.baseline_energy_j == near(12e-6));
    CHECK(r.domains[0].stats.transitions == 1);
    CHECK(r.domains[0].state_seconds[1] == near(1.6e-6));
}

TEST_CASE("a P-state change waits for the regulator's transition time") {
    auto t = one_domain(6, 1.0, 1000);
    wp::dvfs_params p;
    p.states = {{1000, 1.0}, {500, 0.8}};
    p.epoch_cycles = 500;
    for (std::uint64_t transition : {std::uint64_t{0}, std::uint64_t{500}, std::uint64_t{1500}}) {
        p.transition_cycles = transition;
        const auto r = wp::run_dvfs(t, p, always{1});
        // Decided after sample 0 (0.5 us); in force from the first sample starting at least
        // `transition` later. Pure memory stall: every sample takes 0.5 us at any f.
        const double fast = 0.5e-6 * static_cast<double>(1 + (transition + 499) / 500);
        CHECK(r.domains[0].state_seconds[0] == near(fast));
        CHECK(r.domains[0].state_seconds[1] == near(3e-6 - fast));
    }
}

TEST_CASE("monotonicity: memory-bound traces step down and save, compute-bound ones do not") {
    for (const auto& p : {wp::dvfs_params::on_chip(), wp::dvfs_params::off_chip()}) {
        const auto compute = wp::run_dvfs(one_domain(400, 0.0), p);
        CHECK(compute.domains[0].stats.transitions == 0);
        CHECK(compute.domains[0].state_seconds[0] == near(compute.seconds));
        CHECK(compute.energy_j == near(compute.baseline_energy_j));
        CHECK(negligible(compute.slowdown()));

        const auto memory = wp::run_dvfs(one_domain(400, 1.0), p);
        CHECK(memory.domains[0].final_state == 6); // all the way down to 100 MHz
        CHECK(memory.energy_saving() > 0.2);
        CHECK(negligible(memory.slowdown())); // memory time does not depend on f

        // Saving grows with the memory-bound share; a half-stalled trace never steps down.
        const auto mostly = wp::run_dvfs(one_domain(400, 0.95), p);
        const auto half = wp::run_dvfs(one_domain(400, 0.5), p);
        CHECK(mostly.energy_saving() > 0);
        CHECK(mostly.energy_saving() < memory.energy_saving());
        CHECK(mostly.slowdown() > 0);
        CHECK(negligible(half.energy_saving()));
    }
}

TEST_CASE("cluster-level DVFS puts idle SMs at the lowest P-state (load imbalance)") {
    const wp::model m;
    std::vector<wp::activity> intervals;
    for (int i = 0; i < 200; ++i) {
        auto a = wp::gtx480_reference_activity();
        a.cycles = 500;
        a.chip = {};
        for (std::size_t s = 0; s < a.sms.size(); ++s) {
            auto& x = a.sms[s];
            x = wp::sm_activity{};
            // SMs 10..14 run out of work after 20 samples; the busy ones are compute bound.
            if (s < 10 || i < 20) {
                x.active_cycles = 500;
                x.issued = x.int_ops = 400;
                x.rf_reads = 800;
            }
        }
        intervals.push_back(a);
    }
    const auto proc = wp::run_dvfs(wp::make_dvfs_trace(m, intervals, 0), wp::dvfs_params{});
    const auto cluster = wp::run_dvfs(wp::make_dvfs_trace(m, intervals, 5), wp::dvfs_params{});
    CHECK(negligible(proc.energy_saving()));
    CHECK(cluster.energy_saving() > 0.02);
    CHECK(negligible(cluster.slowdown()));
    REQUIRE(cluster.domains.size() == 3);
    CHECK(cluster.domains[2].final_state == 6);
    CHECK(cluster.domains[0].final_state == 0);
}

TEST_CASE("DVFS params are validated") {
    wp::dvfs_params p;
    p.states = {{500, 1.0}, {700, 0.9}};
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error);
    p = {};
    p.states.clear();
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error);
    CHECK_THROWS_AS(wp::stall_threshold(wp::stall_threshold_params{0.5, 0.6}),
                    warpkit::config_error);
}
