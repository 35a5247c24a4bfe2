// Properties every gating policy must keep, checked on random bursty workloads served by two
// clusters of one unit type (each a 4-cycle pipeline behind its own controller).
#include <warpkit/core/concepts.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/exec/functional_unit.hpp>
#include <warpkit/gating.hpp>

#include "../reset_law.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace gating = warpkit::gating;
namespace exec = warpkit::exec;
using gating::power_state;

namespace {

// What an observer outside the controller saw of one block.
struct observed {
    std::uint64_t gated_cycles = 0;
    std::uint64_t gating_events = 0;
    std::uint64_t negative = 0;
    std::uint64_t stall = 0;
    std::int64_t episode_balance = 0; // sum over episodes of (gated cycles - break_even)
    std::uint64_t episode = 0;        // gated cycles of the open episode
    bool in_episode = false;
};

struct run_result {
    std::array<gating::stats, 2> stats;
    std::array<observed, 2> seen;
    std::uint64_t arrivals = 0;
    std::uint64_t served = 0;
    std::uint64_t cycles = 0;
};

template <class Policy>
run_result run_two_clusters(const gating::params& p, std::uint64_t seed, std::uint64_t cycles) {
    warpkit::rng r(seed);
    std::array<gating::controller<Policy>, 2> ctl{gating::controller<Policy>(p),
                                                  gating::controller<Policy>(p)};
    std::array<exec::functional_unit<int>, 2> fu{
        exec::functional_unit<int>(warpkit::isa::unit_class::int_alu),
        exec::functional_unit<int>(warpkit::isa::unit_class::int_alu)};
    run_result res;
    std::uint64_t queue = 0;
    bool burst = false;
    std::uint64_t t = 0;
    const auto drained = [&] {
        return queue == 0 && !fu[0].busy() && !fu[1].busy() && ctl[0].state() == power_state::on &&
               ctl[1].state() == power_state::on;
    };
    while (t < cycles || (queue > 0 && t < cycles * 4)) {
        // Bursts of arrivals separated by quiet stretches of varied length.
        if (t < cycles) {
            if (r.bernoulli(burst ? 0.08 : 0.04)) burst = !burst;
            if (burst) {
                const auto n = r.below(3);
                queue += n;
                res.arrivals += n;
            } else if (r.bernoulli(0.03)) {
                ++queue;
                ++res.arrivals;
            }
        }
        const std::uint32_t type_active = static_cast<std::uint32_t>(queue);
        const std::array<bool, 2> gated_at_start{ctl[0].gated(), ctl[1].gated()};
        std::array<gating::cycle_input, 2> in{};
        std::array<power_state, 2> start{};
        for (std::size_t i = 0; i < 2; ++i) {
            start[i] = ctl[i].state();
            // Never issued to while not on: nothing is in the pipeline of a block not on.
            if (start[i] != power_state::on) CHECK_FALSE(fu[i].busy());
            const bool demand = queue > 0;
            const exec::op_class o =
                r.bernoulli(0.25) ? exec::op_class::int_mul : exec::op_class::int_add;
            if (demand && ctl[i].can_issue() && fu[i].can_issue(o)) {
                fu[i].issue(o, 0);
                --queue;
                ++res.served;
            }
            in[i] = {demand, fu[i].busy(), type_active, gated_at_start[1 - i]};
            if (demand && start[i] != power_state::on) ++res.seen[i].stall;
        }
        for (std::size_t i = 0; i < 2; ++i) {
            const gating::event e = ctl[i].tick(in[i]);
            observed& o = res.seen[i];
            const bool gated_start =
                start[i] == power_state::uncompensated || start[i] == power_state::compensated;
            if (gated_start && e != gating::event::wake_started) {
                ++o.gated_cycles;
                ++o.episode;
            }
            if (e == gating::event::wake_started) {
                if (o.episode < p.break_even) ++o.negative;
                o.episode_balance += static_cast<std::int64_t>(o.episode) - p.break_even;
                o.in_episode = false;
                o.episode = 0;
            }
            if (e == gating::event::gated) {
                ++o.gating_events;
                o.in_episode = true;
            }
            while (fu[i].ready())
                fu[i].pop();
            fu[i].tick();
        }
        ++t;
        if (t >= cycles && drained()) break;
    }
    for (std::size_t i = 0; i < 2; ++i) {
        ctl[i].finish();
        res.stats[i] = ctl[i].stats();
        observed& o = res.seen[i];
        if (o.in_episode) o.episode_balance += static_cast<std::int64_t>(o.episode) - p.break_even;
    }
    res.cycles = t;
    return res;
}

std::vector<gating::params> parameter_sets() {
    std::vector<gating::params> v;
    v.emplace_back(); // 5 / 14 / 3
    gating::params a;
    a.break_even = 9;
    a.wakeup_delay = 1;
    a.adaptive.epoch = 150;
    a.adaptive.critical_threshold = 0;
    v.push_back(a);
    gating::params b;
    b.idle_detect = 7;
    b.break_even = 24;
    b.wakeup_delay = 9;
    b.adaptive.epoch = 200;
    b.adaptive.critical_threshold = 1;
    b.adaptive.decrement_epochs = 2;
    v.push_back(b);
    return v;
}

} // namespace

TEST_CASE_TEMPLATE("gating laws hold for every policy", P, gating::no_gating, gating::conventional,
                   gating::naive_blackout, gating::coordinated_blackout,
                   gating::adaptive_idle_detect<gating::naive_blackout>,
                   gating::adaptive_idle_detect<gating::coordinated_blackout>,
                   gating::adaptive_idle_detect<gating::conventional>) {
    for (const gating::params& p : parameter_sets()) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            CAPTURE(seed);
            CAPTURE(p.break_even);
            const run_result r = run_two_clusters<P>(p, seed, 6000);
            // Nothing lost: every arrival was served.
            CHECK(r.served == r.arrivals);
            for (std::size_t i = 0; i < 2; ++i) {
                CAPTURE(i);
                const gating::stats& s = r.stats[i];
                const auto& o = r.seen[i];
                CHECK(s.cycles == r.cycles);
                // Cycles in states sum to the total.
                CHECK(s.on_cycles + s.uncompensated_cycles + s.compensated_cycles +
                          s.waking_cycles ==
                      s.cycles);
                // The counters agree with what an outside observer saw.
                CHECK(s.gated_cycles() == o.gated_cycles);
                CHECK(s.gating_events == o.gating_events);
                CHECK(s.negative_events == o.negative);
                CHECK(s.stall_cycles == o.stall);
                // Energy identity: static energy + gated cycles = cycles + BET x events, and
                // the net saving is the sum over episodes of (gated cycles - break-even).
                CHECK(gating::static_energy(s, p) + s.gated_cycles() ==
                      s.cycles + std::uint64_t{p.break_even} * s.gating_events);
                CHECK(gating::net_savings(s, p) == o.episode_balance);
                // Each episode ends in at most one wakeup; at most one is open at the end.
                CHECK(s.wakeups <= s.gating_events);
                CHECK(s.gating_events <= s.wakeups + 1);
                CHECK(s.critical_wakeups <= s.wakeups);
                CHECK(s.negative_events <= s.wakeups);
                CHECK(s.blackout_stall_cycles <= s.stall_cycles);
                CHECK(s.waking_cycles <= std::uint64_t{p.wakeup_delay} * s.wakeups);
                CHECK(s.idle_periods.below_idle_detect + s.idle_periods.up_to_break_even +
                          s.idle_periods.beyond_break_even ==
                      s.idle_periods.lengths.samples());
                // Blackout never wakes before break-even.
                if constexpr (P::blackout) {
                    CHECK(s.negative_events == 0);
                    // Every finished episode spent exactly break_even cycles uncompensated.
                    const std::uint64_t open =
                        o.in_episode ? std::min<std::uint64_t>(o.episode, p.break_even) : 0;
                    CHECK(s.uncompensated_cycles == std::uint64_t{p.break_even} * s.wakeups + open);
                }
                // The no-gating baseline saves nothing and costs nothing.
                if constexpr (std::is_same_v<P, gating::no_gating>) {
                    CHECK(s.gating_events == 0);
                    CHECK(s.on_cycles == s.cycles);
                    CHECK(gating::net_savings(s, p) == 0);
                    CHECK(gating::static_energy_savings(s, p) == 0.0);
                }
            }
        }
    }
}

TEST_CASE("on the same workloads conventional gating has negative events and Blackout none") {
    std::uint64_t conv_negative = 0;
    std::uint64_t conv_events = 0;
    std::uint64_t blackout_events = 0;
    std::uint64_t coordinated_early = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto c = run_two_clusters<gating::conventional>({}, seed, 6000);
        const auto b = run_two_clusters<gating::naive_blackout>({}, seed, 6000);
        const auto k = run_two_clusters<gating::coordinated_blackout>({}, seed, 6000);
        for (std::size_t i = 0; i < 2; ++i) {
            conv_negative += c.stats[i].negative_events;
            conv_events += c.stats[i].gating_events;
            blackout_events += b.stats[i].gating_events;
            coordinated_early += k.stats[i].early_gating_events;
        }
    }
    CHECK(conv_events > 0);
    CHECK(conv_negative > 0);
    CHECK(blackout_events > 0);
    CHECK(coordinated_early > 0);
}

TEST_CASE_TEMPLATE("law: reset_stats restarts the counters, the power state stays", P,
                   gating::no_gating, gating::conventional, gating::naive_blackout,
                   gating::coordinated_blackout,
                   gating::adaptive_idle_detect<gating::coordinated_blackout>) {
    static_assert(warpkit::observable_component<gating::controller<P>>);
    // One cluster behind its controller, fed bursts as above; reset in mid-run, so that the
    // reset falls inside idle periods and gated episodes as well.
    struct twin {
        gating::params p{}; // a named object: g++ 12 warns of a dangling default argument
        gating::controller<P> component{p};
        exec::timing_params timing{};
        exec::functional_unit<int> fu{warpkit::isa::unit_class::int_alu, timing};
        warpkit::rng r{11};
        std::uint64_t queue = 0;
        bool burst = false;
    };
    const auto step = [](twin& t, std::size_t) {
        if (t.r.bernoulli(t.burst ? 0.08 : 0.04)) t.burst = !t.burst;
        if (t.burst)
            t.queue += t.r.below(3);
        else if (t.r.bernoulli(0.03))
            ++t.queue;
        const bool demand = t.queue > 0;
        if (demand && t.component.can_issue() && t.fu.can_issue(exec::op_class::int_add)) {
            t.fu.issue(exec::op_class::int_add, 0);
            --t.queue;
        }
        (void)t.component.tick(
            {demand, t.fu.busy(), static_cast<std::uint32_t>(t.queue), t.r.bernoulli(0.5)});
        while (t.fu.ready())
            t.fu.pop();
        t.fu.tick();
    };
    for (const std::size_t warm : {1000U, 1777U, 2500U})
        reset_law::check([] { return twin{}; }, step, warm, 3000);
}
