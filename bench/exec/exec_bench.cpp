#include <warpkit/core/lane_mask.hpp>
#include <warpkit/exec.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

namespace exec = warpkit::exec;
using warpkit::isa::unit_class;

// One cycle of a pipeline at full rate: issue, drain results, tick.
void bm_functional_unit_cycle(benchmark::State& state) {
    exec::functional_unit<std::uint32_t> u(unit_class::fp);
    std::uint32_t n = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        const exec::op_class o = (n & 3) == 0 ? exec::op_class::fp_mad : exec::op_class::fp_add;
        if (u.can_issue(o)) u.issue(o, n++);
        while (u.ready())
            sum += u.take();
        u.tick();
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_functional_unit_cycle);

// One cycle of a 16-lane cluster with lane activity counting of a divergent warp.
void bm_unit_cluster_cycle(benchmark::State& state) {
    exec::unit_cluster<std::uint32_t> c({unit_class::int_alu, 16, {}});
    std::uint32_t n = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        if (c.can_issue(exec::op_class::int_add))
            c.issue(exec::op_class::int_add, n,
                    warpkit::warp_mask{0x0f0f0f0fu ^ (n * 2654435761u)});
        ++n;
        while (c.ready())
            sum += c.take();
        c.tick();
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_unit_cluster_cycle);

// One SM cycle of the GTX480 units: dual issue (INT + FP, an SFU op every 8th cycle), drain,
// tick all six clusters.
void bm_execution_units_cycle(benchmark::State& state) {
    exec::execution_units<std::uint32_t> u;
    std::uint32_t n = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        const auto full = warpkit::warp_mask::full();
        static_cast<void>(u.issue(exec::op_class::int_add, n, full));
        static_cast<void>(
            u.issue((n & 7) == 0 ? exec::op_class::sfu : exec::op_class::fp_mad, n, full));
        ++n;
        for (std::size_t i = 0; i < u.size(); ++i)
            while (u[i].ready())
                sum += u[i].take();
        u.tick();
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_execution_units_cycle);

} // namespace
