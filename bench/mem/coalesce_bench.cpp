// Memory-system parts: coalescing ns per warp access for each coalescer on a few access
// shapes, shared-memory bank analysis, and the pending request table's insert-send-reply cycle.

#include <warpkit/core/rng.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/pending_request_table.hpp>
#include <warpkit/mem/sector_coalescer.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using warpkit::warp_mask;
using warpkit::mem::lane_addresses;

enum shape : int { unit = 0, stride2 = 1, scattered = 2 };

// 256 accesses of one shape, cycled through so the branch predictor cannot learn one.
std::vector<lane_addresses<32>> make_accesses(int s, std::uint32_t bytes) {
    warpkit::rng r(42);
    std::vector<lane_addresses<32>> v(256);
    for (auto& a : v) {
        const std::uint64_t start = r.below(1u << 20) * 128;
        for (std::size_t i = 0; i < 32; ++i) {
            switch (s) {
            case unit:
                a[i] = start + bytes * i;
                break;
            case stride2:
                a[i] = start + 2u * bytes * i;
                break;
            default:
                a[i] = r.below(1u << 24) * bytes;
                break;
            }
        }
    }
    return v;
}

template <class C>
void bm_coalesce(benchmark::State& state) {
    const auto bytes = static_cast<std::uint32_t>(state.range(1));
    const auto v = make_accesses(static_cast<int>(state.range(0)), bytes);
    warpkit::mem::transaction_list<32> out;
    const C c{};
    std::size_t i = 0;
    std::size_t made = 0;
    for (auto _ : state) {
        c.coalesce(v[i++ & 255], bytes, warp_mask::full(), out);
        made += out.size();
        benchmark::DoNotOptimize(out);
    }
    state.counters["transactions/access"] =
        benchmark::Counter(static_cast<double>(made) / static_cast<double>(state.iterations()));
}

void shapes(benchmark::internal::Benchmark* b) {
    b->ArgNames({"shape", "bytes"});
    for (int s : {unit, stride2, scattered})
        b->Args({s, 4});
    b->Args({unit, 8});
    b->Args({unit, 16});
}

BENCHMARK(bm_coalesce<warpkit::mem::cc13_coalescer>)->Apply(shapes);
BENCHMARK(bm_coalesce<warpkit::mem::fermi_coalescer>)->Apply(shapes);
BENCHMARK(bm_coalesce<warpkit::mem::sector_coalescer>)->Apply(shapes);

void bm_banks(benchmark::State& state) {
    const auto v = make_accesses(static_cast<int>(state.range(0)), 4);
    warpkit::mem::shared_memory_banks b;
    std::size_t i = 0;
    for (auto _ : state)
        benchmark::DoNotOptimize(b.access(v[i++ & 255], 4, warp_mask::full()));
}
BENCHMARK(bm_banks)->ArgName("shape")->Arg(unit)->Arg(stride2)->Arg(scattered);

void bm_prt_cycle(benchmark::State& state) {
    const auto v = make_accesses(unit, 4);
    warpkit::mem::pending_request_table<> prt;
    std::size_t i = 0;
    for (auto _ : state) {
        const auto id = prt.insert(0, v[i++ & 255], 4, warp_mask::full());
        while (prt.has_unsent(*id))
            benchmark::DoNotOptimize(prt.send(*id));
        while (!prt.reply(*id)) {
        }
    }
}
BENCHMARK(bm_prt_cycle);

} // namespace
