// Throughput of PTX execution: per-lane semantics, kernel preparation, the untimed functional
// runner and timed runs on fermi_gtx480 of two example kernels (vector add, naive SGEMM).
// The kernels are read from examples/cuda under WARPKIT_SOURCE_DIR (default: the current
// directory).

#include <warpkit/core/rng.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

std::string example_path(const std::string& name) {
    const char* root = std::getenv("WARPKIT_SOURCE_DIR");
    return std::string(root != nullptr ? root : ".") + "/examples/cuda/" + name + ".ptx";
}

void put(func::global_memory& mem, std::uint64_t a, const std::vector<float>& v) {
    std::vector<std::uint8_t> raw(v.size() * 4);
    std::memcpy(raw.data(), v.data(), raw.size());
    mem.write_bytes(a, raw);
}

// A launch of vector_add (n elements, 256 threads per block) or sgemm_naive (n x n, 16 x 16
// blocks) with its inputs in device memory.
struct workload {
    ptx::module m;
    ptx::kernel k;
    func::global_memory mem;
    std::vector<std::uint8_t> params;
    ptx::dim3 grid, block;

    workload(const std::string& name, int n) : m(ptx::read_ptx(example_path(name))), k(m, name) {
        const bool gemm = name == "sgemm_naive";
        const auto count = static_cast<std::size_t>(gemm ? n * n : n);
        std::vector<float> a(count), b(count);
        warpkit::rng r(1);
        for (std::size_t i = 0; i < count; ++i) {
            a[i] = static_cast<float>(r.uniform());
            b[i] = static_cast<float>(r.uniform());
        }
        const std::uint64_t pa = 0x1000'0000, pb = pa + 4 * count + 256, pc = pb + 4 * count + 256;
        put(mem, pa, a);
        put(mem, pb, b);
        params = ptx::param_pack(k).add(pa).add(pb).add(pc).add(n).bytes();
        const auto un = static_cast<std::uint32_t>(n);
        grid =
            gemm ? ptx::dim3{(un + 15) / 16, (un + 15) / 16, 1} : ptx::dim3{(un + 255) / 256, 1, 1};
        block = gemm ? ptx::dim3{16, 16, 1} : ptx::dim3{256, 1, 1};
    }
    [[nodiscard]] ptx::launch launch() const { return ptx::launch(k, grid, block, params); }
};

void run_functional(benchmark::State& state, const std::string& name) {
    try {
        workload w(name, static_cast<int>(state.range(0)));
        std::uint64_t warps = 0;
        for (auto _ : state) {
            func::global_memory mem = w.mem;
            warps += func::run_functional(w.launch(), mem).warp_instructions;
        }
        state.counters["warp_inst/s"] =
            benchmark::Counter(static_cast<double>(warps), benchmark::Counter::kIsRate);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void run_fermi(benchmark::State& state, const std::string& name) {
    try {
        workload w(name, static_cast<int>(state.range(0)));
        std::uint64_t warps = 0, cycles = 0;
        gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
        for (auto _ : state) {
            func::global_memory mem = w.mem;
            const auto rs = g.run(w.launch(), mem);
            warps += rs.total.warp_instructions;
            cycles += rs.cycles;
        }
        state.counters["warp_inst/s"] =
            benchmark::Counter(static_cast<double>(warps), benchmark::Counter::kIsRate);
        state.counters["cycles/s"] =
            benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

void BM_functional_vector_add(benchmark::State& state) {
    run_functional(state, "vector_add");
}
void BM_functional_sgemm_naive(benchmark::State& state) {
    run_functional(state, "sgemm_naive");
}
void BM_fermi_vector_add(benchmark::State& state) {
    run_fermi(state, "vector_add");
}
void BM_fermi_sgemm_naive(benchmark::State& state) {
    run_fermi(state, "sgemm_naive");
}

// Preparing a kernel: inlining, operand resolution, post-dominators, liveness, colouring.
void BM_prepare_sgemm_tiled(benchmark::State& state) {
    try {
        const auto m = ptx::read_ptx(example_path("sgemm_tiled"));
        for (auto _ : state) {
            const ptx::kernel k(m, "sgemm_tiled");
            benchmark::DoNotOptimize(k.size());
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
    }
}

// One lane of an instruction through ptx::evaluate.
void lane_bench(benchmark::State& state, ptx::instruction in) {
    warpkit::rng r(3);
    std::vector<std::uint64_t> v(1024);
    for (auto& x : v)
        x = ptx::bits_of(static_cast<float>(r.uniform() * 100.0));
    std::size_t i = 0;
    for (auto _ : state) {
        const std::uint64_t src[3] = {v[i & 1023], v[(i + 1) & 1023], v[(i + 2) & 1023]};
        benchmark::DoNotOptimize(ptx::evaluate(in, src).value);
        ++i;
    }
}
ptx::instruction make(ptx::op o, ptx::type t, ptx::rounding r = ptx::rounding::none,
                      ptx::type t2 = ptx::type::none) {
    ptx::instruction in;
    in.opcode = o;
    in.t = t;
    in.t2 = t2;
    in.rnd = r;
    return in;
}
void BM_lane_fma_rn_f32(benchmark::State& s) {
    lane_bench(s, make(ptx::op::fma, ptx::type::f32, ptx::rounding::rn));
}
void BM_lane_div_rz_f32(benchmark::State& s) {
    lane_bench(s, make(ptx::op::div, ptx::type::f32, ptx::rounding::rz));
}
void BM_lane_cvt_rni_s32_f32(benchmark::State& s) {
    lane_bench(s, make(ptx::op::cvt, ptx::type::s32, ptx::rounding::rni, ptx::type::f32));
}
void BM_lane_cvt_rn_f16_f32(benchmark::State& s) {
    lane_bench(s, make(ptx::op::cvt, ptx::type::f16, ptx::rounding::rn, ptx::type::f32));
}
void BM_lane_mul_wide_s32(benchmark::State& s) {
    auto in = make(ptx::op::mul, ptx::type::s32);
    in.mode = ptx::mul_mode::wide;
    lane_bench(s, in);
}

} // namespace

BENCHMARK(BM_lane_fma_rn_f32);
BENCHMARK(BM_lane_div_rz_f32);
BENCHMARK(BM_lane_cvt_rni_s32_f32);
BENCHMARK(BM_lane_cvt_rn_f16_f32);
BENCHMARK(BM_lane_mul_wide_s32);
BENCHMARK(BM_prepare_sgemm_tiled)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_functional_vector_add)->Arg(1 << 16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_functional_sgemm_naive)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fermi_vector_add)->Arg(1 << 16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fermi_sgemm_naive)->Arg(64)->Unit(benchmark::kMillisecond);
