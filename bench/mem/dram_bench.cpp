// DRAM: simulated requests per second of host time through one GDDR5 channel under FR-FCFS and
// FCFS, on a row-local stream and on random addresses (the queue kept full).

#include <warpkit/core/rng.hpp>
#include <warpkit/mem/dram_channel.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

template <class S>
void bm_dram(benchmark::State& state) {
    warpkit::mem::dram_params p;
    p.map.channels = 1;
    warpkit::mem::dram_channel<S> ch(p);
    warpkit::rng r(3);
    // Local: 4 rows of 2 banks; random: anywhere in 64 MB.
    const bool local = state.range(0) == 0;
    std::vector<std::uint64_t> addrs(8192);
    for (auto& a : addrs)
        a = local ? (r.below(4) * 16 + r.below(2)) * 2048 + r.below(64) * 32
                  : r.below(1u << 21) * 32;
    std::uint64_t i = 0;
    std::uint64_t done = 0;
    for (auto _ : state) {
        while (ch.can_accept()) {
            ch.push({addrs[i & 8191], (i % 4) == 3, i});
            ++i;
        }
        static_cast<void>(ch.tick());
        while (ch.has_response()) {
            benchmark::DoNotOptimize(ch.pop_response());
            ++done;
        }
    }
    state.counters["requests/s"] =
        benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
    state.counters["row_hit_rate"] = warpkit::mem::row_buffer_hit_rate(ch.stats());
    state.counters["cycles/request"] =
        done == 0 ? 0.0 : static_cast<double>(ch.stats().cycles) / static_cast<double>(done);
}
BENCHMARK(bm_dram<warpkit::mem::fr_fcfs>)->ArgName("random")->Arg(0)->Arg(1);
BENCHMARK(bm_dram<warpkit::mem::fcfs>)->ArgName("random")->Arg(0)->Arg(1);

} // namespace
