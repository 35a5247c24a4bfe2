// Throughput of the PTX front end on a synthetic kernel shaped like nvcc -O3 output (about
// 5000 lines: loads, address arithmetic, predicated branches, shared memory, shuffles,
// call sequences). Reports time per instruction and per token.

#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/printer.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>

namespace {

// One basic-block-sized chunk of nvcc-like PTX; `i` keeps labels unique.
void append_chunk(std::string& s, std::size_t i) {
    const std::string n = std::to_string(i);
    s += "$L__BB0_" + n + ":\n";
    s += "\tld.param.u64 \t%rd1, [synthetic_param_0];\n"
         "\tmov.u32 \t%r3, %ctaid.x;\n"
         "\tmov.u32 \t%r4, %ntid.x;\n"
         "\tmov.u32 \t%r5, %tid.x;\n"
         "\tmad.lo.s32 \t%r1, %r3, %r4, %r5;\n"
         "\tsetp.ge.s32 \t%p1, %r1, %r2;\n";
    s += "\t@%p1 bra \t$L__BB0_" + std::to_string(i + 1) + ";\n";
    s += "\tcvta.to.global.u64 \t%rd4, %rd1;\n"
         "\tmul.wide.s32 \t%rd5, %r1, 4;\n"
         "\tadd.s64 \t%rd6, %rd4, %rd5;\n"
         "\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd6+16];\n"
         "\tfma.rn.f32 \t%f5, %f1, %f2, 0f3F800000;\n"
         "\tshl.b32 \t%r10, %r5, 2;\n"
         "\tmov.u32 \t%r11, tile;\n"
         "\tadd.s32 \t%r12, %r11, %r10;\n"
         "\tst.shared.f32 \t[%r12], %f5;\n"
         "\tbar.sync \t0;\n"
         "\tld.shared.f32 \t%f6, [tile+128];\n"
         "\tshfl.sync.down.b32 \t%r13|%p2, %r12, 16, 31, -1;\n"
         "\tatom.global.add.u32 \t%r14, [%rd6], %r13;\n"
         "\tcvt.rn.f32.s32 \t%f7, %r14;\n"
         "\t{ // callseq " +
         n +
         ", 0\n"
         "\t.param .b32 param0;\n"
         "\tst.param.f32 \t[param0+0], %f7;\n"
         "\t.param .b32 retval0;\n"
         "\tcall.uni (retval0), \n\thelper, \n\t(\n\tparam0\n\t);\n"
         "\tld.param.f32 \t%f8, [retval0+0];\n"
         "\t} // callseq " +
         n +
         "\n"
         "\tst.global.f32 \t[%rd6], %f8;\n\n";
}

const std::string& synthetic_ptx() {
    static const std::string text = [] {
        std::string s = ".version 9.0\n.target sm_75\n.address_size 64\n\n"
                        ".func  (.param .b32 func_retval0) helper(\n"
                        "\t.param .b32 helper_param_0\n)\n{\n\t.reg .f32 \t%f<3>;\n"
                        "\tld.param.f32 \t%f1, [helper_param_0];\n"
                        "\tadd.f32 \t%f2, %f1, %f1;\n"
                        "\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n}\n"
                        "\t// .globl\tsynthetic\n"
                        ".visible .entry synthetic(\n\t.param .u64 synthetic_param_0,\n"
                        "\t.param .u32 synthetic_param_1\n)\n{\n"
                        "\t.reg .pred \t%p<4>;\n\t.reg .f32 \t%f<16>;\n\t.reg .b32 \t%r<32>;\n"
                        "\t.reg .b64 \t%rd<16>;\n\t.shared .align 4 .b8 tile[1024];\n\n"
                        "\tld.param.u32 \t%r2, [synthetic_param_1];\n";
        for (std::size_t i = 0; i < 160; ++i)
            append_chunk(s, i);
        s += "$L__BB0_160:\n\tret;\n\n}\n";
        return s;
    }();
    return text;
}

std::size_t instruction_count(const warpkit::ptx::module& m) {
    std::size_t n = 0;
    for (const auto& f : m.functions)
        n += f.code.size();
    return n;
}

void BM_ptx_parse(benchmark::State& state) {
    const std::string& text = synthetic_ptx();
    const std::size_t n = instruction_count(warpkit::ptx::parse_ptx(text, "synthetic.ptx"));
    for (auto _ : state) {
        auto m = warpkit::ptx::parse_ptx(text, "synthetic.ptx");
        benchmark::DoNotOptimize(m.functions.data());
    }
    std::size_t lines = 0;
    for (char c : text)
        lines += c == '\n' ? 1U : 0U;
    state.counters["lines"] = static_cast<double>(lines);
    state.counters["instructions"] = static_cast<double>(n);
    state.counters["time_per_inst"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                       benchmark::Counter::kInvert);
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_ptx_parse)->Unit(benchmark::kMicrosecond);

void BM_ptx_lex(benchmark::State& state) {
    const std::string& text = synthetic_ptx();
    std::size_t tokens = 0;
    for (auto _ : state) {
        warpkit::ptx::lexer lx(text, "synthetic.ptx");
        tokens = 0;
        while (lx.next().kind != warpkit::ptx::token_kind::end)
            ++tokens;
        benchmark::DoNotOptimize(tokens);
    }
    state.counters["tokens"] = static_cast<double>(tokens);
    state.counters["time_per_token"] = benchmark::Counter(
        static_cast<double>(tokens),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ptx_lex)->Unit(benchmark::kMicrosecond);

void BM_ptx_print(benchmark::State& state) {
    const auto m = warpkit::ptx::parse_ptx(synthetic_ptx(), "synthetic.ptx");
    const std::size_t n = instruction_count(m);
    for (auto _ : state) {
        auto s = warpkit::ptx::print_ptx(m);
        benchmark::DoNotOptimize(s.data());
    }
    state.counters["time_per_inst"] =
        benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                       benchmark::Counter::kInvert);
}
BENCHMARK(BM_ptx_print)->Unit(benchmark::kMicrosecond);

} // namespace
