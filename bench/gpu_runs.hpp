#pragma once
// Shared by the benchmarks that run the bundled kernels on a whole GPU: reading a kernel, and
// timing runs of it.

#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/isa/assembler.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace bench {

/// The bundled kernel `name` (examples/kernels/), assembled.
inline warpkit::isa::program bundled_kernel(const std::string& name) {
    // scripts/bench runs from the source tree; WARPKIT_SOURCE_DIR points elsewhere.
    const char* root = std::getenv("WARPKIT_SOURCE_DIR");
    std::ifstream in(std::string(root != nullptr ? root : ".") + "/examples/kernels/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return warpkit::isa::assemble(ss.str(), name);
}

/// Runs `k` on `g` once per iteration, each time on fresh memory holding the kernel's data;
/// reports simulated cycles, and with `count_instructions` warp instructions, per host second.
template <class Preset>
void time_runs(benchmark::State& state, warpkit::gpu::gpu<Preset>& g,
               const warpkit::func::isa_kernel& k, bool count_instructions = false) {
    std::uint64_t cycles = 0;
    std::uint64_t insts = 0;
    for (auto _ : state) {
        warpkit::func::global_memory mem;
        warpkit::func::load_data(k, mem);
        const auto rs = g.run(k, mem);
        cycles += rs.cycles;
        insts += rs.total.warp_instructions;
    }
    state.counters["sim_cycles_per_s"] =
        benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
    if (count_instructions)
        state.counters["warp_insts_per_s"] =
            benchmark::Counter(static_cast<double>(insts), benchmark::Counter::kIsRate);
}

} // namespace bench
