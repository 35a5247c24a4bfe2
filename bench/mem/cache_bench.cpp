// Caches: ns per access of the tag array (GTX480 L1D geometry) on a hit-heavy and a
// miss-heavy address stream, and of the cache + MSHR + miss-queue controller with fills.

#include <warpkit/core/rng.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/cache_controller.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

// 4096 line-aligned addresses drawn from `footprint` lines.
std::vector<std::uint64_t> stream(std::uint64_t footprint) {
    warpkit::rng r(9);
    std::vector<std::uint64_t> v(4096);
    for (auto& a : v)
        a = r.below(footprint) * 128;
    return v;
}

void bm_cache_access(benchmark::State& state) {
    const auto v = stream(static_cast<std::uint64_t>(state.range(0)));
    warpkit::mem::cache c(warpkit::mem::fermi_l2_slice());
    std::size_t i = 0;
    for (auto _ : state) {
        const std::uint64_t a = v[i++ & 4095];
        const auto r = c.access(a, (i & 3) == 0);
        if (r.fetch_sectors != 0) benchmark::DoNotOptimize(c.fill(a, r.fetch_sectors));
        benchmark::DoNotOptimize(r);
    }
    state.counters["miss_rate"] = warpkit::mem::read_miss_rate(c.stats());
}
// 256 lines fit the 512-line slice; 8192 lines mostly miss.
BENCHMARK(bm_cache_access)->ArgName("lines")->Arg(256)->Arg(8192);

void bm_controller_read(benchmark::State& state) {
    const auto v = stream(static_cast<std::uint64_t>(state.range(0)));
    warpkit::mem::cache_controller<std::uint32_t> l1;
    std::size_t i = 0;
    for (auto _ : state) {
        const std::uint64_t a = v[i & 4095];
        benchmark::DoNotOptimize(l1.read(a, 4, static_cast<std::uint32_t>(i++)));
        while (!l1.miss_queue().empty()) {
            const auto req = l1.miss_queue().take();
            if (req.kind == warpkit::mem::mem_request_kind::read) l1.fill(req);
        }
        while (l1.has_ready())
            benchmark::DoNotOptimize(l1.pop_ready());
    }
}
BENCHMARK(bm_controller_read)->ArgName("lines")->Arg(64)->Arg(8192);

} // namespace
