#include <warpkit/core/rng.hpp>
#include <warpkit/gating.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

namespace gating = warpkit::gating;

// A bursty demand pattern (bursts and quiet stretches of varied length) with the type's
// active-warp count, replayed cyclically.
struct pattern {
    std::vector<std::uint8_t> demand;
    std::vector<std::uint32_t> type_active;
};

pattern make_pattern(std::size_t n) {
    warpkit::rng r(7);
    pattern p;
    bool burst = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (r.bernoulli(burst ? 0.1 : 0.05)) burst = !burst;
        const bool d = burst ? r.bernoulli(0.8) : r.bernoulli(0.05);
        p.demand.push_back(d ? 1 : 0);
        p.type_active.push_back(static_cast<std::uint32_t>(r.below(3)));
    }
    return p;
}

// One simulated cycle of one gated block: read the state, issue if on, tick the controller.
template <class Policy>
void bm_controller_tick(benchmark::State& state) {
    const pattern p = make_pattern(4096);
    gating::controller<Policy> ctl;
    std::size_t i = 0;
    bool sibling = false;
    for (auto _ : state) {
        const bool demand = p.demand[i] != 0;
        const bool busy = demand && ctl.can_issue();
        const auto e = ctl.tick({demand, busy, p.type_active[i], sibling});
        benchmark::DoNotOptimize(e);
        sibling = (i & 64) != 0;
        i = (i + 1) & 4095;
    }
    benchmark::DoNotOptimize(ctl.stats().gating_events);
    state.SetItemsProcessed(state.iterations());
    state.counters["gated_frac"] =
        static_cast<double>(ctl.stats().gated_cycles()) / static_cast<double>(ctl.stats().cycles);
}
BENCHMARK_TEMPLATE(bm_controller_tick, gating::no_gating);
BENCHMARK_TEMPLATE(bm_controller_tick, gating::conventional);
BENCHMARK_TEMPLATE(bm_controller_tick, gating::naive_blackout);
BENCHMARK_TEMPLATE(bm_controller_tick, gating::coordinated_blackout);
BENCHMARK_TEMPLATE(bm_controller_tick, gating::adaptive_idle_detect<gating::naive_blackout>);
BENCHMARK_TEMPLATE(bm_controller_tick, gating::adaptive_idle_detect<gating::coordinated_blackout>);

// The same cycle with the controller observed from outside the loop, as an SM's controllers
// are (they live in its power stage, read by its counters): no counter is dropped as unread,
// and every field is read and written in memory around each tick.
template <class Policy>
void bm_controller_tick_observed(benchmark::State& state) {
    const pattern p = make_pattern(4096);
    gating::controller<Policy> ctl;
    benchmark::DoNotOptimize(&ctl);
    std::size_t i = 0;
    bool sibling = false;
    for (auto _ : state) {
        const bool demand = p.demand[i] != 0;
        const bool busy = demand && ctl.can_issue();
        const auto e = ctl.tick({demand, busy, p.type_active[i], sibling});
        benchmark::DoNotOptimize(e);
        sibling = (i & 64) != 0;
        i = (i + 1) & 4095;
    }
    benchmark::DoNotOptimize(&ctl);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK_TEMPLATE(bm_controller_tick_observed, gating::no_gating);
BENCHMARK_TEMPLATE(bm_controller_tick_observed, gating::conventional);
BENCHMARK_TEMPLATE(bm_controller_tick_observed, gating::naive_blackout);
BENCHMARK_TEMPLATE(bm_controller_tick_observed, gating::coordinated_blackout);
BENCHMARK_TEMPLATE(bm_controller_tick_observed,
                   gating::adaptive_idle_detect<gating::naive_blackout>);
BENCHMARK_TEMPLATE(bm_controller_tick_observed,
                   gating::adaptive_idle_detect<gating::coordinated_blackout>);

// The warpkit-gating replay (parse excluded): cycles per second of trace replay, including the
// no-gating baseline run it makes.
void bm_trace_replay(benchmark::State& state) {
    const pattern p = make_pattern(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        const auto r = gating::replay<gating::adaptive_idle_detect<>>(p.demand, {});
        benchmark::DoNotOptimize(r.stats.cycles);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(bm_trace_replay)->Arg(100000);

} // namespace
