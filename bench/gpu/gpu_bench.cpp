// Whole-GPU simulation speed: simulated core cycles and warp instructions per second of host
// time, for each preset on the bundled kernels (functional execution included).
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>

#include "../gpu_runs.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

template <class Preset>
void bm_gpu(benchmark::State& state, const char* name) {
    const warpkit::func::isa_kernel k(bench::bundled_kernel(name));
    warpkit::gpu::gpu<Preset> g(Preset::params());
    bench::time_runs(state, g, k, true);
}

void bm_functional(benchmark::State& state, const char* name) {
    const warpkit::func::isa_kernel k(bench::bundled_kernel(name));
    std::uint64_t insts = 0;
    for (auto _ : state) {
        warpkit::func::global_memory mem;
        warpkit::func::load_data(k, mem);
        insts += warpkit::func::run_functional(k, mem).warp_instructions;
    }
    state.counters["warp_insts_per_s"] =
        benchmark::Counter(static_cast<double>(insts), benchmark::Counter::kIsRate);
}

void bm_fermi(benchmark::State& s, const char* k) {
    bm_gpu<warpkit::gpu::fermi_gtx480>(s, k);
}
void bm_tesla(benchmark::State& s, const char* k) {
    bm_gpu<warpkit::gpu::tesla_seed004>(s, k);
}
void bm_amoeba(benchmark::State& s, const char* k) {
    bm_gpu<warpkit::gpu::amoeba_48>(s, k);
}

} // namespace

BENCHMARK_CAPTURE(bm_fermi, matmul, "matmul.s");
BENCHMARK_CAPTURE(bm_fermi, reduce, "reduce.s");
BENCHMARK_CAPTURE(bm_fermi, vadd, "vadd.s");
BENCHMARK_CAPTURE(bm_tesla, matmul, "matmul.s");
BENCHMARK_CAPTURE(bm_tesla, reduce, "reduce.s");
BENCHMARK_CAPTURE(bm_amoeba, matmul, "matmul.s");
BENCHMARK_CAPTURE(bm_functional, matmul, "matmul.s");
