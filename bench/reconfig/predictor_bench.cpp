#include <warpkit/core/rng.hpp>
#include <warpkit/reconfig/logistic_fit.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/predictor.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

namespace rc = warpkit::reconfig;

// Upper ends of the ranges the sampled metrics are drawn from (lower ends are 0).
constexpr std::array<double, rc::metric_count> metric_hi = {8,   0.3, 0.5, 1,   0.1,
                                                            0.5, 1,   0.4, 0.2, 1};

std::vector<rc::scalability_metrics> sampled(std::size_t n) {
    warpkit::rng r(42);
    std::vector<rc::scalability_metrics> v(n);
    for (auto& m : v)
        for (std::size_t c = 0; c < rc::metric_count; ++c)
            m.*rc::metric_fields[c] = metric_hi[c] * r.uniform();
    return v;
}

// 1000 kernels x 10 metrics labelled by a known model (coefficients of order 1-30).
rc::training_set training_data(std::size_t n) {
    constexpr std::array<double, rc::metric_count> w = {0.5, 8, 12, -4, 30, -6, 3, -10, 15, -2};
    warpkit::rng r(7);
    rc::training_set t;
    t.names.assign(rc::metric_names.begin(), rc::metric_names.end());
    std::array<double, rc::metric_count> x{};
    for (std::size_t i = 0; i < n; ++i) {
        double z = -1;
        for (std::size_t c = 0; c < rc::metric_count; ++c) {
            x[c] = metric_hi[c] * r.uniform();
            z += w[c] * x[c];
        }
        t.add_row(x, r.bernoulli(rc::logistic(z)));
    }
    return t;
}

// One prediction of the Table 2 model (logit, stable logistic, decision) per iteration.
void bm_predict_table2(benchmark::State& state) {
    const auto p = rc::scalability_predictor::table2();
    const auto inputs = sampled(1024);
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(p.predict(inputs[i]));
        i = (i + 1) & 1023;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(bm_predict_table2);

// The same through the generic named-input model (a span of values).
void bm_predict_generic(benchmark::State& state) {
    const auto model = rc::scalability_predictor::table2().to_model();
    std::vector<std::array<double, rc::metric_count>> inputs;
    for (const auto& m : sampled(1024))
        inputs.push_back(rc::to_array(m));
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model.predict(inputs[i]));
        i = (i + 1) & 1023;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(bm_predict_generic);

// The Figure 20 breakdown of one prediction.
void bm_impact_breakdown(benchmark::State& state) {
    const auto p = rc::scalability_predictor::table2();
    const auto inputs = sampled(1024);
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(p.impact(inputs[i]));
        i = (i + 1) & 1023;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(bm_impact_breakdown);

// Training on 1000 x 10 data: Newton / IRLS to convergence (arg: L2 lambda x 1000).
void bm_train_1000x10(benchmark::State& state) {
    const auto data = training_data(1000);
    rc::fit_params fp;
    fp.l2 = static_cast<double>(state.range(0)) / 1000.0;
    std::uint32_t iterations = 0;
    for (auto _ : state) {
        const auto r = rc::fit_logistic_regression(data, fp);
        iterations = r.iterations;
        benchmark::DoNotOptimize(r.model.intercept());
    }
    state.counters["newton_iterations"] = static_cast<double>(iterations);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(bm_train_1000x10)->Arg(0)->Arg(1000)->Unit(benchmark::kMicrosecond);

} // namespace
