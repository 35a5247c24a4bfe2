#include <warpkit/core/rng.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/reference.hpp>
#include <warpkit/power/rlc_filter.hpp>
#include <warpkit/power/trace.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

namespace {

namespace wp = warpkit::power;

// Sampled intervals of a 15-SM GTX480: the reference mix with per-SM jitter.
std::vector<wp::activity> samples(std::size_t n) {
    warpkit::rng r(3);
    std::vector<wp::activity> v;
    for (std::size_t i = 0; i < n; ++i) {
        auto a = wp::gtx480_reference_activity();
        a.cycles = 500;
        for (auto& s : a.sms) {
            s.active_cycles = r.below(501);
            s.issued = r.below(800);
            s.int_ops = s.issued / 2;
            s.rf_reads = 2 * s.issued;
            s.int_lanes = 32 * s.int_ops - r.below(16);
        }
        v.push_back(a);
    }
    return v;
}

// One sample of the model: evaluate eq. (1) for 15 SMs and the chip into a reused breakdown.
void bm_model_evaluate(benchmark::State& state) {
    wp::model_params p;
    p.lane_gating.enabled = state.range(0) != 0;
    const wp::model m(p);
    const auto v = samples(64);
    wp::power_breakdown b;
    std::size_t i = 0;
    for (auto _ : state) {
        m.evaluate(v[i++ & 63], b, m.nominal());
        benchmark::DoNotOptimize(b.dynamic_w.data());
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_model_evaluate)->Arg(0)->Arg(1)->ArgName("lane_gating");

// One sample recorded into a power trace (evaluate + append a row).
void bm_trace_record(benchmark::State& state) {
    const wp::model m;
    const auto v = samples(64);
    wp::power_trace t;
    t.reserve(1 << 16);
    std::size_t i = 0;
    for (auto _ : state) {
        if (t.size() == (1 << 16)) t.clear();
        t.record(m, v[i++ & 63]);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_trace_record);

// One sample through the RLC filter.
void bm_rlc_step(benchmark::State& state) {
    wp::rlc_filter f(wp::rlc_params{}, 500 / 700e6);
    double u = 100;
    for (auto _ : state) {
        u = u > 150 ? 100 : u + 1;
        benchmark::DoNotOptimize(f.step(u));
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_rlc_step);

// One sample of one domain through the DVFS controller and evaluator (per sample cost).
void bm_dvfs_replay(benchmark::State& state) {
    wp::dvfs_trace t;
    t.domains.resize(1);
    warpkit::rng r(9);
    for (int i = 0; i < 4096; ++i)
        t.domains[0].push_back(wp::dvfs_sample{500, r.below(501), false, 4e-5, 3.0, 35.0});
    for (auto _ : state)
        benchmark::DoNotOptimize(wp::run_dvfs(t, wp::dvfs_params{}).energy_j);
    state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(bm_dvfs_replay);

} // namespace
