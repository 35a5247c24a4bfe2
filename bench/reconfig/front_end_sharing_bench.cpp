// Front-end sharing: the cluster controller's per-cycle and per-event cost, and whole-GPU
// simulation speed on the GTX480 (16 SMs) with clusters of 1, 2 and 4 SMs.
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/sharing_clusters.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include "../gpu_runs.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace rc = warpkit::reconfig;

// A grouped 4-SM cluster through one cycle: tick, two issues (one a branch), the master's
// broadcast and three slave compares, two acks.
void bm_controller_cycle(benchmark::State& state) {
    rc::front_end_sharing c({}, 4, 48);
    c.launch();
    std::uint64_t now = 0;
    const rc::branch_outcome o{0xffffffff, 7};
    for (auto _ : state) {
        c.tick(now, false, true);
        const auto w = static_cast<std::uint32_t>(now % 48);
        c.on_issue(false);
        c.on_issue(true);
        (void)c.on_master_branch(w, o, false, now);
        for (std::uint32_t m = 1; m < 4; ++m)
            (void)c.on_slave_branch(m, w, o, now + 1);
        benchmark::DoNotOptimize(c.branch_pending(w, now));
        benchmark::DoNotOptimize(c.send_ack(1 + static_cast<std::uint32_t>(now % 3), now));
        ++now;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_controller_cycle);

// The compiler hint over a kernel's code.
void bm_block_dependence(benchmark::State& state) {
    const warpkit::func::isa_kernel k(bench::bundled_kernel("bfs.s"));
    for (auto _ : state)
        benchmark::DoNotOptimize(warpkit::gpu::branch_hints(k));
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(k.size()));
}
BENCHMARK(bm_block_dependence);

// Whole-GPU speed with sharing: simulated cycles per host second.
void bm_gpu_sharing(benchmark::State& state, const char* name) {
    const warpkit::func::isa_kernel k(bench::bundled_kernel(name));
    auto p = warpkit::gpu::fermi_gtx480::params();
    p.sms = 16;
    p.cluster_size = static_cast<std::uint32_t>(state.range(0));
    warpkit::gpu::gpu<warpkit::gpu::fermi_gtx480> g(p);
    bench::time_runs(state, g, k);
}
BENCHMARK_CAPTURE(bm_gpu_sharing, matmul, "matmul.s")->Arg(1)->Arg(2)->Arg(4);
BENCHMARK_CAPTURE(bm_gpu_sharing, reduce, "reduce.s")->Arg(1)->Arg(2)->Arg(4);

} // namespace
