#include <warpkit/core/json.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include "bundled_kernels.hpp"
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace warpkit;

namespace {
// Ways to run a kernel: functional with either SIMT stack, or timed on a GPU preset.
template <class Stack>
struct functional {
    static void run(const func::isa_kernel& k, func::global_memory& mem) {
        (void)func::run_functional<32, Stack>(k, mem);
    }
};
template <class Preset>
struct timed {
    static void run(const func::isa_kernel& k, func::global_memory& mem) {
        gpu::gpu<Preset> g(Preset::params());
        const auto rs = g.run(k, mem);
        CHECK(rs.cycles > 0);
        CHECK(rs.total.blocks_completed == k.blocks());
    }
};
using pdom_f = functional<simt::pdom_stack<32>>;
using ssy_f = functional<simt::ssy_stack<32>>;
using fermi_t = timed<gpu::fermi_gtx480>;
using tesla_t = timed<gpu::tesla_seed004>;
using amoeba_t = timed<gpu::amoeba_48>;

template <class Runner>
func::global_memory run(const isa::program& p) {
    func::isa_kernel k(p);
    func::global_memory mem;
    func::load_data(k, mem);
    Runner::run(k, mem);
    return mem;
}
} // namespace

#define KERNEL_RUNNERS pdom_f, ssy_f, fermi_t, tesla_t, amoeba_t

TEST_CASE_TEMPLATE("vector add matches the C++ reference", R, KERNEL_RUNNERS) {
    const auto mem = run<R>(test::bundled_kernel("vadd.s"));
    const auto c = mem.read(0x800, 256);
    for (std::uint32_t i = 0; i < 256; ++i)
        CHECK(c[i] == i + 3 * i + 1);
}

TEST_CASE_TEMPLATE("tree reduction matches the C++ reference", R, KERNEL_RUNNERS) {
    const auto mem = run<R>(test::bundled_kernel("reduce.s"));
    const auto out = mem.read(0x800, 4);
    for (std::uint32_t b = 0; b < 4; ++b) {
        std::uint32_t sum = 0;
        for (std::uint32_t i = b * 128; i < (b + 1) * 128; ++i)
            sum += i % 7;
        CHECK(out[b] == sum);
    }
}

namespace {
float as_float(std::uint32_t v) {
    return std::bit_cast<float>(v);
}
std::uint32_t as_bits(float f) {
    return std::bit_cast<std::uint32_t>(f);
}
} // namespace

TEST_CASE_TEMPLATE("shared-memory histogram with atomics matches the C++ reference", R,
                   KERNEL_RUNNERS) {
    const auto p = test::bundled_kernel("histogram.s");
    const auto mem = run<R>(p);
    std::vector<std::uint32_t> ref(64, 0);
    for (std::uint32_t i = 0; i < 1000; ++i)
        ++ref[p.kernel.data[i] & 63];
    CHECK(mem.read(0x1000, 64) == ref);
}

TEST_CASE_TEMPLATE("BFS levels match a C++ breadth-first search", R, KERNEL_RUNNERS) {
    auto p = test::bundled_kernel("bfs.s");
    func::isa_kernel k(p);
    func::global_memory mem;
    func::load_data(k, mem);
    const std::uint32_t n = 32;
    const auto row = mem.read(0x0, n + 1);
    const auto col = mem.read(0x100, row[n]);
    // Host loop: launch, then swap next into frontier, until nothing changed.
    int launches = 0;
    while (true) {
        mem.store(0x700, 0);
        R::run(k, mem);
        ++launches;
        if (mem.load(0x700) == 0) break;
        mem.write(0x500, mem.read(0x600, n));
        mem.write(0x600, std::vector<std::uint32_t>(n, 0));
        REQUIRE(launches < 40);
    }
    // Reference BFS from node 0.
    std::vector<std::int32_t> ref(n, -1);
    ref[0] = 0;
    std::vector<std::uint32_t> frontier = {0};
    while (!frontier.empty()) {
        std::vector<std::uint32_t> next;
        for (auto v : frontier)
            for (auto e = row[v]; e < row[v + 1]; ++e)
                if (ref[col[e]] < 0) {
                    ref[col[e]] = ref[v] + 1;
                    next.push_back(col[e]);
                }
        frontier = next;
    }
    const auto cost = mem.read(0x400, n);
    int reached = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
        CHECK(static_cast<std::int32_t>(cost[v]) == ref[v]);
        reached += ref[v] >= 0 ? 1 : 0;
    }
    CHECK(reached > 8); // the graph is not trivially disconnected
}

TEST_CASE_TEMPLATE("tiled matrix multiply matches the C++ reference bit for bit", R,
                   KERNEL_RUNNERS) {
    const auto mem = run<R>(test::bundled_kernel("matmul.s"));
    const std::size_t n = 32;
    const auto a = mem.read(0x0, n * n);
    const auto b = mem.read(0x1000, n * n);
    const auto c = mem.read(0x2000, n * n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (std::size_t k = 0; k < n; ++k)
                acc = std::fma(as_float(a[i * n + k]), as_float(b[k * n + j]), acc);
            CHECK(c[i * n + j] == as_bits(acc));
        }
}

TEST_CASE_TEMPLATE("prefix scan matches the C++ reference", R, KERNEL_RUNNERS) {
    const auto mem = run<R>(test::bundled_kernel("scan.s"));
    const auto in = mem.read(0x0, 256);
    const auto out = mem.read(0x800, 256);
    for (std::size_t blk = 0; blk < 2; ++blk) {
        std::uint32_t sum = 0;
        for (std::size_t i = blk * 128; i < (blk + 1) * 128; ++i) {
            sum += in[i];
            CHECK(out[i] == sum);
        }
    }
}

TEST_CASE_TEMPLATE("special-function kernel matches the C++ reference", R, KERNEL_RUNNERS) {
    const auto mem = run<R>(test::bundled_kernel("sfu.s"));
    const auto x = mem.read(0x0, 256);
    const auto y = mem.read(0x400, 256);
    for (std::size_t i = 0; i < 256; ++i) {
        const float v = as_float(x[i]);
        const float one = v + 1.0f;
        float r = std::sqrt(v) * (1.0f / one);
        r = std::fma(std::sin(v), std::cos(v), r);
        r = r + std::exp2(std::log2(one));
        r = r - 1.0f / std::sqrt(one);
        CHECK(y[i] == as_bits(r));
    }
}

TEST_CASE("functional counts, hand-computed") {
    func::isa_kernel vadd(test::bundled_kernel("vadd.s"));
    func::global_memory mem;
    func::load_data(vadd, mem);
    const auto st = func::run_functional(vadd, mem);
    CHECK(st.blocks == 4);
    CHECK(st.warp_instructions == 8 * 21); // 8 warps, all lanes in range: 21 instructions
    CHECK(st.thread_instructions == 256 * 21);
    func::isa_kernel sfu(test::bundled_kernel("sfu.s"));
    const auto s2 = func::run_functional(sfu, mem);
    CHECK(s2.by_unit[isa::index(isa::unit_class::sfu)] == 8 * 7); // 8 warps x 7 SFU ops
}

namespace {
// Functional-run params with preset P's SIMT stack.
template <class P>
func::isa_functional_params stack_of() {
    func::isa_functional_params fp;
    fp.simt_stack = P::params().simt_stack;
    return fp;
}
} // namespace

TEST_CASE_TEMPLATE("a timed run executes exactly the instructions of the functional run", P,
                   gpu::fermi_gtx480, gpu::tesla_seed004, gpu::amoeba_48) {
    for (const char* name : {"vadd.s", "reduce.s", "histogram.s", "matmul.s", "scan.s", "sfu.s"}) {
        CAPTURE(name);
        func::isa_kernel k(test::bundled_kernel(name));
        func::global_memory m1;
        func::load_data(k, m1);
        const auto f = func::run_functional<32, typename P::stack>(k, m1, stack_of<P>());
        func::global_memory m2;
        func::load_data(k, m2);
        gpu::gpu<P> g(P::params());
        const auto t = g.run(k, m2);
        CHECK(t.total.warp_instructions == f.warp_instructions);
        CHECK(t.total.thread_instructions == f.thread_instructions);
        for (std::size_t u = 0; u < isa::unit_class_count; ++u)
            CHECK(t.total.issued_by_unit[u] == f.by_unit[u]);
        CHECK(t.total.barrier_releases == f.barriers);
        CHECK(t.total.blocks_completed == k.blocks());
        CHECK(t.dispatch.blocks_dispatched == k.blocks());
        // Every cycle is either an issue cycle or counted once as a stall.
        const auto& st = t.total.stalls;
        CHECK(st.idle + st.fetch + st.barrier + st.scoreboard + st.unit + st.gated <=
              t.total.cycles);
    }
}

TEST_CASE_TEMPLATE("a warp switching to its other divergent path issues what it executes", P,
                   gpu::fermi_gtx480, gpu::tesla_seed004, gpu::amoeba_48) {
    // Even lanes run FADD, SIN and reach the sync point `join`; the stack then moves the warp
    // back to `loop` for the odd lanes without a branch. The instruction buffer must not
    // hold `join`'s STG then: the SM checks each issued decode against what executed.
    const auto p = isa::assemble(".grid 2\n.block 64\n"
                                 "    LDS r1, %laneid\n"
                                 "    MVI r2, 1\n"
                                 "    AND r3, r1, r2\n"
                                 "    SSY join\n"
                                 "    BEQ r3, even\n"
                                 "loop: SUB r1, r1, r2\n"
                                 "    BNE r1, loop\n"
                                 "    BEQ r0, join\n"
                                 "even: FADD r4, r1, r2\n"
                                 "    SIN r5, r4\n"
                                 "join: STG r0, r1\n"
                                 "    EXIT\n");
    func::isa_kernel k(p);
    func::global_memory m1;
    const auto f = func::run_functional<32, typename P::stack>(k, m1, stack_of<P>());
    for (const std::uint32_t depth : {1U, 2U, 4U, 8U}) {
        CAPTURE(depth);
        auto gp = P::params();
        gp.sm.ibuffer_depth = depth;
        gpu::gpu<P> g(gp);
        func::global_memory m2;
        const auto t = g.run(k, m2);
        CHECK(t.total.warp_instructions == f.warp_instructions);
        CHECK(t.total.thread_instructions == f.thread_instructions);
        for (std::size_t u = 0; u < isa::unit_class_count; ++u)
            CHECK(t.total.issued_by_unit[u] == f.by_unit[u]);
    }
}

TEST_CASE("a kernel that never ends is stopped by the watchdog with its position") {
    const auto p = isa::assemble(".grid 1\n.block 32\nMVI r1, 0\nloop: BEQ r1, loop\nEXIT\n");
    func::isa_kernel k(p);
    func::global_memory mem;
    func::isa_functional_params fp;
    fp.max_warp_instructions = 1000;
    try {
        (void)func::run_functional(k, mem, fp);
        FAIL("expected the watchdog");
    } catch (const sim_error& e) {
        CHECK(std::string(e.what()) ==
              "watchdog: more than 1000 warp instructions (block 0, warp 0 at pc 1)");
    }
}

TEST_CASE("kernel faults and bad kernels give clear errors") {
    func::global_memory mem;
    const auto oob = isa::assemble(".block 32\n.shared 64\nMVI r1, 64\nLD r2, r1\nEXIT\n");
    func::isa_kernel k(oob);
    CHECK_THROWS_WITH_AS((void)func::run_functional(k, mem),
                         "kernel fault at pc 1, warp 0, lane 0: shared address 64 outside "
                         "[0, 64) or unaligned",
                         sim_error);
    auto regs = isa::assemble(".regs 2\nADD r5, r1, r2\nEXIT\n");
    CHECK_THROWS_AS(func::isa_kernel{regs}, config_error);
    auto undefined = isa::assemble(".word 0x78000000\nEXIT\n");
    CHECK_THROWS_WITH_AS(func::isa_kernel{undefined},
                         "invalid parameter 'kernel.code[0]' = 0x78000000 (allowed: a defined "
                         "instruction)",
                         config_error);
}

TEST_CASE("timed runs that cannot finish stop with every warp's state") {
    // A spin loop waiting for a flag nobody sets: caught by max_cycles, warps listed.
    const auto spin = isa::assemble(".grid 2\n.block 64\nMVI r1, 0x100\nloop: LDG r2, r1\n"
                                    "BEQ r2, loop\nEXIT\n");
    func::isa_kernel k(spin);
    func::global_memory mem;
    auto p = gpu::fermi_gtx480::params();
    p.max_cycles = 5000;
    gpu::gpu<gpu::fermi_gtx480> g(p);
    try {
        (void)g.run(k, mem);
        FAIL("expected max_cycles to stop the run");
    } catch (const sim_error& e) {
        const std::string what = e.what();
        CHECK(what.find("max_cycles: kernel still running after 5000 cycles") == 0);
        CHECK(what.find("sm 0 warp slot 0: block 0, pc ") != std::string::npos);
        CHECK(what.find("sm 1 warp slot 1: block 1, pc ") != std::string::npos);
    }
    // Code that runs off its end without EXIT never gets another instruction: the watchdog
    // sees no issue and reports where each warp stands.
    const auto off_end = isa::assemble(".block 32\nMVI r1, 1\nADD r2, r1, r1\n");
    func::isa_kernel k2(off_end);
    auto p2 = gpu::fermi_gtx480::params();
    p2.watchdog_cycles = 200;
    gpu::gpu<gpu::fermi_gtx480> g2(p2);
    CHECK_THROWS_WITH_AS((void)g2.run(k2, mem),
                         doctest::Contains("watchdog: no warp instruction issued for 200 cycles"),
                         sim_error);
    try {
        (void)g2.run(k2, mem);
    } catch (const sim_error& e) {
        CHECK(std::string(e.what()).find("sm 0 warp slot 0: block 0, pc 2, buffered 0") !=
              std::string::npos);
    }
}

TEST_CASE_TEMPLATE("same kernel, same preset: bit-identical stats and memory", P, gpu::fermi_gtx480,
                   gpu::tesla_seed004, gpu::amoeba_48) {
    for (const char* name : {"histogram.s", "matmul.s"}) {
        CAPTURE(name);
        func::isa_kernel k(test::bundled_kernel(name));
        std::string first;
        func::global_memory first_mem;
        for (int run_no = 0; run_no < 2; ++run_no) {
            func::global_memory mem;
            func::load_data(k, mem);
            gpu::gpu<P> g(P::params());
            const std::string j = stats_to_json(g.run(k, mem)).dump();
            if (run_no == 0) {
                first = j;
                first_mem = std::move(mem);
            } else {
                CHECK(j == first);
                CHECK(mem == first_mem);
            }
        }
    }
}

namespace {
// A GTX480 whose scheduler type is fixed at compile time to `Scheduler`: the reference a run
// with that policy chosen at run time (gpu_params::scheduler) must match cycle for cycle.
template <class Scheduler>
struct fermi_with_static_scheduler : gpu::fermi_gtx480 {
    using scheduler = Scheduler;
};

template <class Preset>
gpu::run_stats timed_stats(const isa::program& p, const gpu::gpu_params& params) {
    func::isa_kernel k(p);
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<Preset> g(params);
    return g.run(k, mem);
}

template <class Scheduler>
void check_same_as_static(issue::scheduler_kind kind) {
    auto chosen = gpu::fermi_gtx480::params();
    chosen.scheduler.kind = kind;
    for (const std::string name : {"matmul.s", "histogram.s", "bfs.s"}) {
        CAPTURE(name);
        const auto program = test::bundled_kernel(name);
        const auto by_name = timed_stats<gpu::fermi_gtx480>(program, chosen);
        const auto fixed = timed_stats<fermi_with_static_scheduler<Scheduler>>(
            program, gpu::fermi_gtx480::params());
        CHECK(by_name.cycles == fixed.cycles);
        CHECK(stats_to_json(by_name).dump() == stats_to_json(fixed).dump());
    }
}
} // namespace

TEST_CASE("a scheduling policy chosen by params issues exactly as its static scheduler type") {
    check_same_as_static<issue::lrr>(issue::scheduler_kind::loose_round_robin);
    check_same_as_static<issue::two_level<issue::lrr>>(issue::scheduler_kind::two_level_lrr);
    check_same_as_static<issue::gates<issue::lrr>>(issue::scheduler_kind::gates_lrr);
    // The policies differ, so the check above can tell them apart.
    auto gto = gpu::fermi_gtx480::params();
    auto lrr = gto;
    lrr.scheduler.kind = issue::scheduler_kind::loose_round_robin;
    const auto program = test::bundled_kernel("matmul.s");
    CHECK(timed_stats<gpu::fermi_gtx480>(program, gto).cycles !=
          timed_stats<gpu::fermi_gtx480>(program, lrr).cycles);
}

TEST_CASE("a GPU with a static scheduler type reports that type's policy in its params") {
    const gpu::gpu<fermi_with_static_scheduler<issue::lrr>> g(gpu::fermi_gtx480::params());
    CHECK(g.params().scheduler.kind == issue::scheduler_kind::loose_round_robin);
    CHECK(gpu::tesla_seed004::params().scheduler.kind == issue::scheduler_kind::round_robin);
}

namespace {
// A GTX480 whose SIMT stack and coalescer types are fixed at compile time: the reference a run
// with that stack and coalescer chosen by params (simt_stack, sm.coalescer) must match.
template <class Stack, class Coalescer>
struct fermi_with_static_stack : gpu::fermi_gtx480 {
    using stack = Stack;
    using coalescer = Coalescer;
};
} // namespace

TEST_CASE("a SIMT stack and a coalescer chosen by params run exactly as their static types") {
    using static_ssy_cc13 = fermi_with_static_stack<simt::ssy_stack<32>, mem::cc13_coalescer>;
    using static_pdom_sector = fermi_with_static_stack<simt::pdom_stack<32>, mem::sector_coalescer>;
    auto ssy_cc13 = gpu::fermi_gtx480::params();
    ssy_cc13.simt_stack = simt::stack_kind::ssy;
    ssy_cc13.sm.coalescer = mem::coalescer_kind::cc13;
    auto pdom_sector = gpu::fermi_gtx480::params();
    pdom_sector.sm.coalescer = mem::coalescer_kind::sector;
    int ssy_cc13_differs = 0;
    int sector_differs = 0;
    for (const std::string name : {"matmul.s", "histogram.s", "bfs.s", "reduce.s"}) {
        CAPTURE(name);
        const auto program = test::bundled_kernel(name);
        const auto a = timed_stats<gpu::fermi_gtx480>(program, ssy_cc13);
        const auto b = timed_stats<static_ssy_cc13>(program, gpu::fermi_gtx480::params());
        CHECK(a.cycles == b.cycles);
        CHECK(stats_to_json(a).dump() == stats_to_json(b).dump());
        const auto c = timed_stats<gpu::fermi_gtx480>(program, pdom_sector);
        const auto d = timed_stats<static_pdom_sector>(program, gpu::fermi_gtx480::params());
        CHECK(c.cycles == d.cycles);
        CHECK(stats_to_json(c).dump() == stats_to_json(d).dump());
        // The choices change runs, so the checks above can tell them apart.
        const auto line =
            stats_to_json(timed_stats<gpu::fermi_gtx480>(program, gpu::fermi_gtx480::params()));
        ssy_cc13_differs += stats_to_json(a) != line ? 1 : 0;
        sector_differs += stats_to_json(c) != line ? 1 : 0;
    }
    CHECK(ssy_cc13_differs >= 3);
    CHECK(sector_differs >= 3);
    // A GPU built with static types reports their kinds; the presets name theirs.
    const gpu::gpu<static_ssy_cc13> g(gpu::fermi_gtx480::params());
    CHECK(g.params().simt_stack == simt::stack_kind::ssy);
    CHECK(g.params().sm.coalescer == mem::coalescer_kind::cc13);
    CHECK(gpu::tesla_seed004::params().simt_stack == simt::stack_kind::ssy);
    CHECK(gpu::tesla_seed004::params().sm.coalescer == mem::coalescer_kind::cc13);
    CHECK(gpu::fermi_gtx480::params().simt_stack == simt::stack_kind::pdom);
    CHECK(gpu::fermi_gtx480::params().sm.coalescer == mem::coalescer_kind::line);
}
