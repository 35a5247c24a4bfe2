#include <warpkit/core/clock_domains.hpp>
#include <warpkit/core/delay_line.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/latch.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/tick_pool.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>

namespace {

struct flit {
    std::uint64_t addr = 0;
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
};

// One push and one pop per iteration at steady occupancy (half full).
void bm_fifo_push_pop(benchmark::State& state) {
    warpkit::fifo<flit> q(static_cast<std::size_t>(state.range(0)));
    for (std::size_t i = 0; i < q.capacity() / 2; ++i)
        q.push(flit{i, 0, 0});
    std::uint64_t n = 0;
    for (auto _ : state) {
        q.push(flit{n++, 1, 2});
        benchmark::DoNotOptimize(q.front().addr);
        q.pop();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_fifo_push_pop)->Arg(4)->Arg(16)->Arg(64);

// One simulated cycle: push one element, drain what is ready, tick.
void bm_delay_line_cycle(benchmark::State& state) {
    warpkit::delay_line<flit> d(static_cast<std::uint32_t>(state.range(0)));
    std::uint64_t n = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        d.push(flit{n++, 0, 0});
        while (d.ready())
            sum += d.take().addr;
        d.tick();
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_delay_line_cycle)->Arg(1)->Arg(4)->Arg(200);

void bm_latch_cycle(benchmark::State& state) {
    warpkit::latch<flit> l;
    std::uint64_t n = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        if (l.can_write()) l.write(flit{n++, 0, 0});
        if (l.valid()) sum += l.take().addr;
        l.tick();
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_latch_cycle);

// Visiting the active lanes of random 32-lane masks (about 16 lanes each).
void bm_lane_mask_iterate(benchmark::State& state) {
    warpkit::rng r(1);
    std::array<warpkit::warp_mask, 256> masks{};
    for (auto& m : masks)
        m = warpkit::warp_mask{static_cast<std::uint32_t>(r())};
    std::size_t i = 0;
    std::uint64_t sum = 0;
    for (auto _ : state) {
        for (auto lane : masks[i++ & 255])
            sum += lane;
    }
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_lane_mask_iterate);

// The GTX480 clock set: five domains, one next() per iteration.
void bm_clock_domains_next(benchmark::State& state) {
    warpkit::clock_domains clk;
    clk.add_mhz("core", 700);
    clk.add_mhz("icnt", 700);
    clk.add_mhz("l2", 700);
    clk.add_mhz("dram", 924);
    clk.add_mhz("cluster_noc", 1400);
    std::uint64_t masks = 0;
    for (auto _ : state)
        masks += clk.next().mask;
    benchmark::DoNotOptimize(masks);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_clock_domains_next);

void bm_rng_below(benchmark::State& state) {
    warpkit::rng r(3);
    std::uint64_t sum = 0;
    for (auto _ : state)
        sum += r.below(48);
    benchmark::DoNotOptimize(sum);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_rng_below);

// One fork and join of a tick_pool (what a GPU ticking its SMs on N threads pays per cycle on
// top of the ticks themselves): the calls do nothing but count. Meaningful only with as many
// idle cores as threads.
void bm_tick_pool_round_trip(benchmark::State& state) {
    warpkit::tick_pool pool(static_cast<unsigned>(state.range(0)) - 1);
    std::array<std::uint64_t, 8 * 16> counts{};
    auto f = [&](unsigned t) { ++counts[8 * t]; }; // a cache line apart
    for (auto _ : state)
        pool.run(f);
    benchmark::DoNotOptimize(counts);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_tick_pool_round_trip)->Arg(1)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->UseRealTime();

} // namespace
