// The memory hierarchy's cost: core cycles per second of a memory_system (idle, and under a
// stream of line reads from every SM port), and whole-GPU runs with the ideal memory model
// against the hierarchy.
#include <warpkit/core/rng.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>

#include "../gpu_runs.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace wg = warpkit::gpu;

// Every SM offers a read of a random line each cycle; replies are taken as they arrive.
void bm_memory_system(benchmark::State& state, wg::memory_params p, std::uint32_t sms, bool load) {
    wg::memory_system m(p, sms, 700);
    warpkit::rng r(1);
    std::uint64_t cycles = 0;
    std::uint64_t replies = 0;
    for (auto _ : state) {
        for (int c = 0; c < 1000; ++c) {
            for (std::uint32_t i = 0; i < sms; ++i) {
                if (m.has_reply(i)) {
                    benchmark::DoNotOptimize(m.take_reply(i));
                    ++replies;
                }
                if (load && m.can_send(i)) {
                    wg::mem_message q;
                    q.addr = r.below(std::uint64_t{1} << 26) * 128;
                    q.sm = i;
                    q.reply_bytes = 128;
                    m.send(q);
                }
            }
            m.cycle();
        }
        cycles += 1000;
    }
    state.counters["core_cycles_per_s"] =
        benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
    state.counters["replies_per_s"] =
        benchmark::Counter(static_cast<double>(replies), benchmark::Counter::kIsRate);
}

void bm_gtx480_idle(benchmark::State& s) {
    bm_memory_system(s, wg::gtx480_memory(), 15, false);
}
void bm_gtx480_loaded(benchmark::State& s) {
    bm_memory_system(s, wg::gtx480_memory(), 15, true);
}
void bm_amoeba_idle(benchmark::State& s) {
    bm_memory_system(s, wg::amoeba_memory(), 48, false);
}
void bm_amoeba_loaded(benchmark::State& s) {
    bm_memory_system(s, wg::amoeba_memory(), 48, true);
}

// A GTX480 run of a bundled kernel with the given memory model.
void bm_fermi_memory(benchmark::State& state, const char* name, wg::memory_model model) {
    const warpkit::func::isa_kernel k(bench::bundled_kernel(name));
    auto p = wg::fermi_gtx480::params();
    p.memory.model = model;
    wg::gpu<wg::fermi_gtx480> g(p);
    bench::time_runs(state, g, k);
}

} // namespace

BENCHMARK(bm_gtx480_idle);
BENCHMARK(bm_gtx480_loaded);
BENCHMARK(bm_amoeba_idle);
BENCHMARK(bm_amoeba_loaded);
BENCHMARK_CAPTURE(bm_fermi_memory, matmul_ideal, "matmul.s", wg::memory_model::ideal);
BENCHMARK_CAPTURE(bm_fermi_memory, matmul_hierarchy, "matmul.s", wg::memory_model::hierarchy);
BENCHMARK_CAPTURE(bm_fermi_memory, vadd_ideal, "vadd.s", wg::memory_model::ideal);
BENCHMARK_CAPTURE(bm_fermi_memory, vadd_hierarchy, "vadd.s", wg::memory_model::hierarchy);
