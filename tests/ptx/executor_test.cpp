#include <warpkit/core/stats.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/func/ptx_source.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <doctest/doctest.h>

#include "test_device.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

using pdom = simt::pdom_stack<32>;
using ssy = simt::ssy_stack<32>;

const std::string header = ".version 9.0\n.target sm_75\n.address_size 64\n";

using ptx_test::device;

// The head of a kernel `name(.param .u64 out)` declaring `preds` predicates, `words` 32-bit
// and `wides` 64-bit registers, up to loading `out` into %rd1; the body follows on the next
// line.
std::string entry_with_out(const std::string& name, int preds, int words, int wides) {
    return "\n.visible .entry " + name + "(.param .u64 out)\n{\n    .reg .pred %p<" +
           std::to_string(preds) + ">;\n    .reg .b32 %r<" + std::to_string(words) +
           ">;\n    .reg .b64 %rd<" + std::to_string(wides) + ">;\n    ld.param.u64 %rd1, [out];";
}

// A kernel parsed and prepared from PTX text.
struct compiled {
    ptx::module m;
    ptx::kernel k;
    compiled(const std::string& body, const std::string& entry, ptx::kernel_options o = {})
        : m(ptx::parse_ptx(header + body, "test.ptx")), k(m, entry, o) {}
};

// Device memory with one output buffer of `bytes` bytes, and a launch of `c` as one block of
// `threads` threads whose only parameter is that buffer.
struct one_block {
    device dev;
    std::uint64_t out;
    ptx::launch l;
    one_block(const compiled& c, std::uint32_t threads, std::uint64_t bytes)
        : out(dev.alloc(bytes)),
          l(c.k, {1, 1, 1}, {threads, 1, 1}, ptx::param_pack(c.k).add(out).bytes()) {}
};

// The thread-instruction total of a timed run, from every SM's source.
template <class Preset>
gpu::run_stats run_timed(const ptx::launch& l, func::global_memory& mem,
                         func::ptx_source_stats* src = nullptr) {
    gpu::gpu<Preset> g(Preset::params());
    func::ptx_source_stats total;
    auto rs = g.run(l, mem, [&](const auto& sm) { accumulate(total, sm.source().stats()); });
    if (src != nullptr) *src = total;
    return rs;
}

std::size_t op_index(ptx::op o) {
    return static_cast<std::size_t>(o);
}

} // namespace

// --- control flow ------------------------------------------------------------------------

namespace {
// out[tid] = (odd ? (tid % 4 == 1 ? 110 : 10) : 20) + 1000 * (1 + 2 + ... + tid % 5); then a
// do-while loop of tid % 3 + 1 trips adds 7 each, and an early exit for tid == 37 leaves 0.
const std::string branches = entry_with_out("branches", 6, 12, 4) + R"(
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p5, %r1, 37;
    @%p5 bra $L_exit;
    and.b32 %r2, %r1, 1;
    setp.eq.s32 %p1, %r2, 0;
    @%p1 bra $L_even;
    mov.u32 %r3, 10;
    and.b32 %r4, %r1, 3;
    setp.ne.s32 %p2, %r4, 1;
    @%p2 bra $L_join;
    add.s32 %r3, %r3, 100;
    bra.uni $L_join;
$L_even:
    mov.u32 %r3, 20;
$L_join:
    rem.u32 %r6, %r1, 5;
    mov.u32 %r5, 0;
    mov.u32 %r7, 0;
$L_loop:
    setp.ge.u32 %p3, %r7, %r6;
    @%p3 bra $L_done;
    add.s32 %r7, %r7, 1;
    add.s32 %r5, %r5, %r7;
    bra.uni $L_loop;
$L_done:
    mul.lo.s32 %r8, %r5, 1000;
    add.s32 %r8, %r8, %r3;
    rem.u32 %r9, %r1, 3;
$L_do:
    add.s32 %r8, %r8, 7;
    add.s32 %r9, %r9, -1;
    setp.ge.s32 %p4, %r9, 0;
    @%p4 bra $L_do;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r8;
    ret;
$L_exit:
    ret;
}
)";

std::vector<std::uint32_t> branches_expected(std::uint32_t n) {
    std::vector<std::uint32_t> e(n);
    for (std::uint32_t t = 0; t < n; ++t) {
        if (t == 37) continue;
        const std::uint32_t a = t % 2 == 0 ? 20 : (t % 4 == 1 ? 110 : 10);
        const std::uint32_t k = t % 5;
        e[t] = a + 1000 * (k * (k + 1) / 2) + 7 * (t % 3 + 1);
    }
    return e;
}
} // namespace

TEST_CASE_TEMPLATE("ptx executor: if/else, nested ifs, data-dependent loops reconverge", Stack,
                   pdom, ssy) {
    const compiled c(branches, "branches");
    const std::uint32_t n = 96;
    one_block run(c, n, 4 * n);
    auto& [dev, out, l] = run;
    const auto st = func::run_functional<32, Stack>(l, dev.mem);
    CHECK(dev.get<std::uint32_t>(out, n) == branches_expected(n));
    // Every warp runs the store once with all its live lanes: the paths reconverged.
    CHECK(st.warp_by_opcode[op_index(ptx::op::st)] == 3);
    CHECK(st.thread_by_opcode[op_index(ptx::op::st)] == n - 1);
    CHECK(st.thread_by_opcode[op_index(ptx::op::mul)] == 2 * (n - 1)); // mul.lo, mul.wide
}

TEST_CASE_TEMPLATE("ptx executor: peek predicts exactly the instructions a warp executes next",
                   Stack, pdom, ssy) {
    // The timing model buffers what peek returns; a reconvergence point ends the prediction,
    // as a branch does, because the stack may switch to another path there.
    const compiled c(branches, "branches");
    one_block run(c, 64, 4 * 64);
    auto& [dev, out, l] = run;
    func::ptx_source<32, Stack> src(l, dev.mem, 2, 1, 0);
    const std::uint32_t slots[] = {0, 1};
    REQUIRE(src.start_block(0, 0, slots) == 2);
    std::size_t predicted = 0;
    for (int steps = 0; steps < 10000 && !src.block_finished(0); ++steps) {
        for (std::uint32_t s = 0; s < 2; ++s) {
            if (src.finished(s)) continue;
            std::vector<std::size_t> pcs;
            for (std::size_t i = 0; i < 4; ++i) {
                const auto* si = src.peek(s, i);
                if (si == nullptr) break;
                pcs.push_back(static_cast<std::size_t>(si - &c.k.static_at(0)));
            }
            REQUIRE(!pcs.empty());
            for (const std::size_t pc : pcs) {
                if (src.finished(s)) break;
                const auto d = src.execute(s, {});
                CHECK(d.pc == pc);
                ++predicted;
            }
        }
    }
    CHECK(src.block_finished(0));
    CHECK(predicted > 100);
    CHECK(dev.get<std::uint32_t>(out, 64) == branches_expected(64));
}

TEST_CASE("ptx executor: reconvergence points are immediate post-dominators") {
    const compiled c(branches, "branches");
    const auto& k = c.k;
    // Find the pcs of the labels by their first instruction.
    const auto pc_of_line = [&](std::uint32_t line) {
        for (std::size_t pc = 0; pc < k.size(); ++pc)
            if (k.line(pc) == line) return static_cast<simt::pc_type>(pc);
        return simt::no_pc;
    };
    // Lines of test.ptx: three header lines, then the text of `branches` from line 4.
    const simt::pc_type join = pc_of_line(26);  // rem.u32 %r6 after $L_join
    const simt::pc_type done = pc_of_line(36);  // mul.lo after $L_done
    const simt::pc_type after = pc_of_line(44); // mul.wide after the do-while loop
    int seen = 0;
    for (std::size_t pc = 0; pc < k.size(); ++pc) {
        if (k.at(pc).in.opcode != ptx::op::bra) continue;
        const auto line = k.line(pc);
        CAPTURE(line);
        if (line == 16 || line == 20) CHECK(k.reconvergence(pc) == join); // @%p1, @%p2
        if (line == 31) CHECK(k.reconvergence(pc) == done);               // loop exit
        if (line == 43) CHECK(k.reconvergence(pc) == after);              // do-while
        if (line == 13) CHECK(k.reconvergence(pc) == simt::no_pc);        // paths meet only at exit
        seen += line == 13 || line == 16 || line == 20 || line == 31 || line == 43 ? 1 : 0;
    }
    CHECK(seen == 5);
}

TEST_CASE("ptx executor: thread instructions count active lanes whose guard is true") {
    const compiled c(entry_with_out("guards", 2, 4, 3) + R"(
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    setp.lt.u32 %p1, %r1, 8;
    @%p1 add.s32 %r2, %r2, 5;
    @!%p1 bra $L_skip;
    add.s32 %r2, %r2, 1;
$L_skip:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r2;
    ret;
}
)",
                     "guards");
    one_block run(c, 40, 4 * 40);
    auto& [dev, out, l] = run;
    const auto st = func::run_functional(l, dev.mem);
    const auto v = dev.get<std::uint32_t>(out, 40);
    for (std::uint32_t t = 0; t < 40; ++t)
        CHECK(v[t] == (t < 8 ? 6U : 0U));
    // 2 warps (32 + 8 lanes): ld, mov, mov, setp run on all 40 lanes; `@p add` on 8; `@!p bra`
    // taken by the 32 lanes >= 8 only; the unguarded add on 8; mul, add, st, ret on 40.
    CHECK(st.thread_by_opcode[op_index(ptx::op::add)] == 8 + 8 + 40);
    CHECK(st.thread_by_opcode[op_index(ptx::op::bra)] == 32);
    CHECK(st.warp_by_opcode[op_index(ptx::op::bra)] == 2);
    CHECK(st.thread_instructions == 40 * 4 + 8 + 32 + 8 + 40 * 4);
    CHECK(st.warp_instructions ==
          std::accumulate(st.warp_by_opcode.begin(), st.warp_by_opcode.end(), std::uint64_t{0}));
    // A timed run counts the same thread instructions, in the SM and in the sources.
    device dev2;
    const std::uint64_t out2 = dev2.alloc(4 * 40);
    const ptx::launch l2(c.k, {3, 1, 1}, {40, 1, 1}, ptx::param_pack(c.k).add(out2).bytes());
    func::ptx_source_stats src;
    const auto rs = run_timed<gpu::fermi_gtx480>(l2, dev2.mem, &src);
    CHECK(src.thread_instructions == 3 * st.thread_instructions);
    CHECK(rs.total.thread_instructions == src.thread_instructions);
    CHECK(rs.total.warp_instructions == src.warp_instructions);
}

// --- barriers, shared memory, atomics ------------------------------------------------------

namespace {
// Each thread writes its id to shared memory; after the barrier it reads its neighbour's.
const std::string rotate = R"(
.visible .entry rotate(.param .u64 out)
{
    .shared .align 4 .b8 buf[512];
    .reg .b32 %r<10>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r9, %ntid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.s32 %r4, %r3, %r2;
    mul.lo.s32 %r8, %r1, 3;
    st.shared.u32 [%r4], %r8;
    bar.sync 0;
    add.s32 %r5, %r1, 1;
    rem.u32 %r5, %r5, %r9;
    shl.b32 %r5, %r5, 2;
    add.s32 %r5, %r3, %r5;
    ld.shared.u32 %r6, [%r5];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], %r6;
    ret;
}
)";
} // namespace

TEST_CASE_TEMPLATE("ptx executor: bar.sync orders shared memory between warps", P,
                   gpu::fermi_gtx480, gpu::tesla_seed004, gpu::amoeba_48) {
    const compiled c(rotate, "rotate");
    CHECK(c.k.static_shared_bytes() == 512);
    device dev;
    const std::uint32_t n = 128, blocks = 5;
    const std::uint64_t out = dev.alloc(4 * n * blocks);
    const ptx::launch l(c.k, {blocks, 1, 1}, {n, 1, 1}, ptx::param_pack(c.k).add(out).bytes());
    CHECK(l.shared_bytes() == 512);
    func::ptx_source_stats src;
    const auto rs = run_timed<P>(l, dev.mem, &src);
    CHECK(src.barrier_releases == blocks);
    CHECK(rs.total.barrier_releases == blocks);
    const auto v = dev.get<std::uint32_t>(out, n); // block 0 wrote out[0..n)
    for (std::uint32_t t = 0; t < n; ++t)
        CHECK(v[t] == 3 * ((t + 1) % n));
}

TEST_CASE("ptx executor: atomics and reductions run lane by lane") {
    const compiled c(R"(
.visible .entry atomics(.param .u64 out, .param .u64 olds)
{
    .shared .align 4 .b8 cnt[8];
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [olds];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    atom.global.add.u32 %r5, [%rd1], 1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r5;
    atom.global.max.s32 %r6, [%rd1+4], %r4;
    atom.global.min.s32 %r6, [%rd1+8], %r4;
    atom.global.inc.u32 %r6, [%rd1+12], 9;
    atom.global.dec.u32 %r6, [%rd1+16], 9;
    add.s32 %r7, %r4, 1;
    atom.global.cas.b32 %r8, [%rd1+20], 0, %r7;
    setp.eq.s32 %p1, %r8, 0;
    selp.u32 %r9, 1, 0, %p1;
    red.global.add.u32 [%rd1+24], %r9;
    red.global.add.u32 [%rd1+28], 2;
    mov.f32 %f1, 0f3F000000;
    atom.global.add.f32 %f2, [%rd1+32], %f1;
    and.b32 %r10, %r4, 31;
    mov.u32 %r11, 1;
    shl.b32 %r11, %r11, %r10;
    atom.global.or.b32 %r6, [%rd1+36], %r11;
    atom.global.xor.b32 %r6, [%rd1+40], %r11;
    atom.global.add.u64 %rd5, [%rd1+48], 3;
    atom.global.exch.b32 %r6, [%rd1+56], %r4;
    mov.u32 %r6, cnt;
    atom.shared.add.u32 %r7, [%r6], 2;
    bar.sync 0;
    ld.shared.u32 %r8, [cnt];
    atom.global.add.u32 %r9, [%rd1+60], %r8;
    ret;
}
)",
                     "atomics");
    device dev;
    const std::uint32_t n = 64, blocks = 3, total = n * blocks;
    std::vector<std::uint32_t> init(16, 0);
    init[2] = 0x7fffffff; // min
    const std::uint64_t out = dev.put(init);
    const std::uint64_t olds = dev.alloc(4 * total);
    const ptx::launch l(c.k, {blocks, 1, 1}, {n, 1, 1},
                        ptx::param_pack(c.k).add(out).add(olds).bytes());
    (void)func::run_functional(l, dev.mem);
    const auto v = dev.get<std::uint32_t>(out, 16);
    CHECK(v[0] == total);
    CHECK(v[1] == total - 1);
    CHECK(v[2] == 0);
    CHECK(v[3] == total % 10);             // inc wraps to 0 after 9
    CHECK(v[4] == (10 - total % 10) % 10); // dec from 0 goes to 9
    CHECK(v[5] >= 1);                      // one CAS won
    CHECK(v[5] <= total);
    CHECK(v[6] == 1); // exactly one thread saw 0
    CHECK(v[7] == 2 * total);
    float half_sum = 0;
    std::memcpy(&half_sum, &v[8], 4);
    CHECK(half_sum == 0.5f * total);
    CHECK(v[9] == 0xffffffffU);
    CHECK(v[10] == 0); // every bit toggled an even number of times (192 threads / 32 bits = 6)
    CHECK((std::uint64_t{v[13]} << 32 | v[12]) == 3ULL * total);
    CHECK(v[14] < total);
    CHECK(v[15] == total * 2 * n); // every thread adds its block's shared count, 2 per thread
    // The old values of the counter are a permutation of 0 .. total-1.
    auto o = dev.get<std::uint32_t>(olds, total);
    std::sort(o.begin(), o.end());
    std::vector<std::uint32_t> iota(total);
    std::iota(iota.begin(), iota.end(), 0U);
    CHECK(o == iota);
}

// --- warp-level instructions --------------------------------------------------------------

TEST_CASE_TEMPLATE("ptx executor: shfl.sync, vote.sync and activemask", Stack, pdom, ssy) {
    const compiled c(entry_with_out("warp", 8, 24, 4) + R"(
    mov.u32 %r1, %laneid;
    mul.lo.s32 %r2, %r1, 10;
    shfl.sync.up.b32 %r3|%p1, %r2, 1, 0, -1;
    shfl.sync.down.b32 %r4|%p2, %r2, 3, 31, -1;
    shfl.sync.bfly.b32 %r5, %r2, 1, 31, -1;
    shfl.sync.idx.b32 %r6, %r2, 5, 31, -1;
    shfl.sync.idx.b32 %r7, %r2, 2, 6175, -1;
    shfl.sync.down.b32 %r8|%p3, %r2, 1, 6175, -1;
    selp.u32 %r9, 1, 0, %p1;
    selp.u32 %r10, 1, 0, %p2;
    selp.u32 %r11, 1, 0, %p3;
    and.b32 %r12, %r1, 1;
    setp.eq.s32 %p4, %r12, 1;
    vote.sync.ballot.b32 %r13, %p4, -1;
    mov.u32 %r14, 0;
    mov.u32 %r15, 0;
    mov.u32 %r16, 0;
    mov.u32 %r17, 0;
    setp.lt.u32 %p5, %r1, 16;
    @!%p5 bra $L_after;
    setp.lt.u32 %p6, %r1, 20;
    vote.sync.all.pred %p7, %p6, 65535;
    selp.u32 %r14, 1, 0, %p7;
    vote.sync.any.pred %p7, %p4, 65535;
    selp.u32 %r15, 1, 0, %p7;
    vote.sync.uni.pred %p7, %p4, 65535;
    selp.u32 %r16, 1, 0, %p7;
    activemask.b32 %r17;
$L_after:
    mul.lo.s32 %r18, %r1, 64;
    cvt.u64.u32 %rd2, %r18;
    add.s64 %rd2, %rd1, %rd2;
    st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
    st.global.v4.u32 [%rd2+16], {%r7, %r8, %r9, %r10};
    st.global.v4.u32 [%rd2+32], {%r11, %r13, %r14, %r15};
    st.global.v2.u32 [%rd2+48], {%r16, %r17};
    ret;
}
)",
                     "warp");
    one_block run(c, 32, 64 * 32);
    auto& [dev, out, l] = run;
    (void)func::run_functional<32, Stack>(l, dev.mem);
    const auto v = dev.get<std::uint32_t>(out, 16 * 32);
    for (std::uint32_t l8 = 0; l8 < 32; ++l8) {
        const std::uint32_t* r = &v[16 * l8];
        CAPTURE(l8);
        CHECK(r[0] == (l8 >= 1 ? 10 * (l8 - 1) : 0));             // up 1
        CHECK(r[1] == (l8 + 3 <= 31 ? 10 * (l8 + 3) : 10 * l8));  // down 3
        CHECK(r[2] == 10 * (l8 ^ 1));                             // bfly 1
        CHECK(r[3] == 50);                                        // idx 5
        CHECK(r[4] == 10 * ((l8 & ~7U) | 2));                     // idx 2 in segments of 8
        CHECK(r[5] == ((l8 & 7) != 7 ? 10 * (l8 + 1) : 10 * l8)); // down 1 within 8
        CHECK(r[6] == (l8 >= 1 ? 1U : 0U));
        CHECK(r[7] == (l8 + 3 <= 31 ? 1U : 0U));
        CHECK(r[8] == ((l8 & 7) != 7 ? 1U : 0U));
        CHECK(r[9] == 0xaaaaaaaaU);
        CHECK(r[10] == (l8 < 16 ? 1U : 0U)); // all lanes < 16 are < 20
        CHECK(r[11] == (l8 < 16 ? 1U : 0U)); // some odd lane among 0..15
        CHECK(r[12] == 0);                   // odd and even lanes disagree
        CHECK(r[13] == (l8 < 16 ? 0xffffU : 0U));
    }
}

// --- memory spaces ------------------------------------------------------------------------

namespace {
const std::string spaces = R"(
.const .align 4 .b8 tbl[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
.global .align 4 .u32 gvar[2] = {100, 200};
.visible .entry spaces(.param .u64 out)
{
    .local .align 8 .b8 loc[16];
    .shared .align 8 .b8 sh[512];
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, loc;
    cvta.local.u64 %rd3, %rd2;
    add.s32 %r2, %r1, 1000;
    st.u32 [%rd3+4], %r2;
    ld.local.u32 %r3, [loc+4];
    mov.u64 %rd4, sh;
    cvta.shared.u64 %rd5, %rd4;
    mul.wide.u32 %rd6, %r1, 8;
    add.s64 %rd7, %rd5, %rd6;
    cvt.u64.u32 %rd8, %r1;
    st.u64 [%rd7], %rd8;
    bar.sync 0;
    cvta.to.shared.u64 %rd9, %rd7;
    cvt.u32.u64 %r4, %rd9;
    ld.shared.u32 %r5, [%r4];
    and.b32 %r6, %r1, 3;
    shl.b32 %r6, %r6, 2;
    mov.u32 %r7, tbl;
    add.s32 %r7, %r7, %r6;
    ld.const.u32 %r8, [%r7];
    ld.global.u32 %r9, [gvar+4];
    mov.u64 %rd10, gvar;
    ld.u32 %r10, [%rd10];
    mul.wide.u32 %rd11, %r1, 24;
    add.s64 %rd12, %rd1, %rd11;
    st.v2.u32 [%rd12], {%r3, %r5};
    st.global.v2.u32 [%rd12+8], {%r8, %r9};
    st.global.u32 [%rd12+16], %r10;
    ld.global.u8 %r11, [%rd12+17];
    ld.global.s8 %r12, [gvar+4];
    st.global.u8 [%rd12+20], %r12;
    st.global.u8 [%rd12+21], %r11;
    st.global.u16 [%rd12+22], %r12;
    ret;
}
)";
} // namespace

TEST_CASE("ptx executor: local, shared, constant, global and generic addresses") {
    const compiled c(spaces, "spaces");
    CHECK(c.k.local_bytes() == 16);
    CHECK(c.k.static_shared_bytes() == 512);
    REQUIRE(c.k.constant_bank().size() == 16);
    CHECK(c.k.constant_bank()[8] == 3);
    REQUIRE(c.k.globals().size() == 1);
    CHECK(c.k.globals()[0].address == ptx::global_variable_base);
    const std::uint32_t n = 32;
    one_block run(c, n, 24 * n);
    auto& [dev, out, l] = run;
    func::load_globals(c.k, dev.mem);
    (void)func::run_functional(l, dev.mem);
    const auto v = dev.get<std::uint32_t>(out, 6 * n);
    for (std::uint32_t t = 0; t < n; ++t) {
        const std::uint32_t* r = &v[6 * t];
        CAPTURE(t);
        CHECK(r[0] == 1000 + t); // local, through a generic address
        CHECK(r[1] == t);        // shared, written generic, read through cvta.to.shared
        CHECK(r[2] == t % 4 + 1);
        CHECK(r[3] == 200);
        CHECK(r[4] == 100);
        CHECK(r[5] == 0xffc800c8U); // s8 of 200 is -56: bytes c8, 00 (byte 17 of 100), then c8 ff
    }
}

namespace {
// Addresses in the 32-bit windows: a base stepped back by 4 * tid in a 32-bit register and
// read with a positive offset wraps to the right word (shared, local, constant); a 64-bit
// register with high bits set is truncated to the window's 32 bits; a .u32 generic-to-
// specific conversion gives the same offset as the .u64 one.
const std::string windows = R"(
.const .align 4 .b8 tbl[256];
.visible .entry windows(.param .u64 out)
{
    .local .align 4 .b8 loc[64];
    .shared .align 4 .b8 sh[256];
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, sh;
    add.s32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    mad.lo.s32 %r5, %r1, -4, %r3;
    ld.shared.u32 %r6, [%r5+28];
    mov.u32 %r7, loc;
    add.s32 %r8, %r7, -4;
    add.s32 %r9, %r1, 500;
    st.local.u32 [%r8+12], %r9;
    ld.local.u32 %r10, [loc+8];
    mov.u32 %r11, tbl;
    mad.lo.s32 %r12, %r1, -4, %r11;
    ld.const.u32 %r13, [%r12+128];
    mov.u64 %rd2, sh;
    or.b64 %rd3, %rd2, -4294967296;
    ld.shared.u32 %r14, [%rd3+4];
    cvta.shared.u64 %rd4, %rd2;
    cvt.u32.u64 %r15, %rd4;
    cvta.to.shared.u32 %r16, %r15;
    add.s32 %r17, %r16, %r2;
    ld.shared.u32 %r18, [%r17];
    mul.wide.u32 %rd5, %r1, 32;
    add.s64 %rd6, %rd1, %rd5;
    st.global.v4.u32 [%rd6], {%r6, %r10, %r13, %r14};
    st.global.u32 [%rd6+16], %r18;
    ret;
}
)";
} // namespace

TEST_CASE("ptx executor: shared, local and constant addresses wrap at 32 bits") {
    const compiled c(windows, "windows");
    const std::uint32_t n = 8;
    for (const bool timed : {false, true}) {
        CAPTURE(timed);
        one_block run(c, n, 32 * n);
        auto& [dev, out, l] = run;
        if (timed)
            (void)run_timed<gpu::fermi_gtx480>(l, dev.mem);
        else
            (void)func::run_functional(l, dev.mem);
        const auto v = dev.get<std::uint32_t>(out, 8 * n);
        for (std::uint32_t t = 0; t < n; ++t) {
            CAPTURE(t);
            CHECK(v[8 * t] == 7 - t);       // sh + 28 - 4 t: word 7 - t
            CHECK(v[8 * t + 1] == 500 + t); // loc - 4 + 12 = loc + 8
            CHECK(v[8 * t + 2] == 0);       // tbl + 128 - 4 t, in the (zero) bank
            CHECK(v[8 * t + 3] == 1);       // sh + 4 with bits 32-63 set: word 1
            CHECK(v[8 * t + 4] == t);       // cvta.to.shared.u32 of a truncated generic address
        }
    }
}

TEST_CASE("ptx executor: the timing model sees each lane's address in its state space") {
    const compiled c(spaces, "spaces");
    one_block run(c, 64, 24 * 64);
    auto& [dev, out, l] = run;
    func::load_globals(c.k, dev.mem);
    func::ptx_source<32, pdom> src(l, dev.mem, 2, 1, 0);
    const std::uint32_t slots[] = {0, 1};
    REQUIRE(src.start_block(0, 0, slots) == 2);
    bool saw_generic_shared = false, saw_local = false, saw_param = false;
    for (int steps = 0; steps < 1000 && !src.block_finished(0); ++steps) {
        for (std::uint32_t s = 0; s < 2; ++s) {
            if (src.finished(s) || src.at_barrier(s)) continue;
            const auto* peeked = src.peek(s, 0);
            REQUIRE(peeked != nullptr);
            const auto d = src.execute(s, {});
            CHECK(d.si.opcode == peeked->opcode);
            const auto& p = c.k.at(d.pc);
            if (p.in.opcode == ptx::op::st && p.addr.sp == ptx::space::generic &&
                p.in.t == ptx::type::u64) {
                // st.u64 [%rd7]: a generic address in the shared window
                CHECK(d.si.space == isa::mem_space::shared);
                for (const std::size_t lane : d.active)
                    CHECK(d.addr[lane] == 8 * (32 * s + lane));
                saw_generic_shared = true;
            }
            if (p.in.opcode == ptx::op::ld && p.addr.sp == ptx::space::local) {
                CHECK(d.si.space == isa::mem_space::local);
                // consecutive lanes, consecutive words
                CHECK(d.addr[1] == d.addr[0] + 4);
                saw_local = true;
            }
            if (p.in.opcode == ptx::op::ld && p.addr.sp == ptx::space::param) {
                CHECK(d.si.space == isa::mem_space::constant);
                CHECK(d.si.latency == isa::latency_class::const_mem);
                CHECK(d.addr[0] == 0);
                saw_param = true;
            }
            if (p.in.opcode == ptx::op::st && p.in.vec == 2 && p.addr.sp == ptx::space::global)
                CHECK(d.si.access_bytes == 8);
        }
        if (src.barrier_complete(0)) src.release_barrier(0);
    }
    CHECK(src.block_finished(0));
    CHECK(saw_generic_shared);
    CHECK(saw_local);
    CHECK(saw_param);
}

TEST_CASE("ptx executor: faults name the PTX line and the address") {
    const compiled c(R"(
.visible .entry bad(.param .u64 p, .param .u32 mode)
{
    .shared .align 4 .b8 sh[64];
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [mode];
    setp.eq.s32 %p1, %r1, 1;
    @%p1 bra $L_shared;
    setp.eq.s32 %p2, %r1, 2;
    @%p2 bra $L_trap;
    ld.global.u32 %r2, [%rd1+2];
    ret;
$L_shared:
    mov.u32 %r3, 64;
    st.shared.u32 [%r3], %r1;
    ret;
$L_trap:
    trap;
}
)",
                     "bad");
    device dev;
    const std::uint64_t buf = dev.alloc(64);
    const auto run = [&](std::uint32_t mode, std::uint64_t p = 0) {
        const ptx::launch l(c.k, {1, 1, 1}, {32, 1, 1},
                            ptx::param_pack(c.k).add(p != 0 ? p : buf).add(mode).bytes());
        (void)func::run_functional(l, dev.mem);
    };
    // A global access between the generic windows is no device address.
    CHECK_THROWS_WITH_AS(run(0, ptx::generic_shared_base + (std::uint64_t{1} << 33)),
                         doctest::Contains("range of the generic windows"), sim_error);
    CHECK_THROWS_WITH_AS(run(0), doctest::Contains("test.ptx:17"), sim_error);
    CHECK_THROWS_WITH_AS(run(0), doctest::Contains("not aligned"), sim_error);
    CHECK_THROWS_WITH_AS(run(1), doctest::Contains("test.ptx:21"), sim_error);
    CHECK_THROWS_WITH_AS(run(1), doctest::Contains("outside the 64 bytes of shared"), sim_error);
    CHECK_THROWS_WITH_AS(run(2), doctest::Contains("trap"), sim_error);
}

TEST_CASE("ptx executor: an endless loop trips the watchdog") {
    const compiled c(R"(
.visible .entry spin()
{
$L_top:
    bra.uni $L_top;
}
)",
                     "spin");
    func::global_memory mem;
    const ptx::launch l(c.k, {1, 1, 1}, {32, 1, 1});
    func::ptx_functional_params p;
    p.max_warp_instructions = 1000;
    CHECK_THROWS_WITH_AS((void)func::run_functional(l, mem, p), doctest::Contains("watchdog"),
                         sim_error);
}

// --- calls --------------------------------------------------------------------------------

namespace {
const std::string calls = R"(
.func (.param .b32 ret) square_plus(.param .b32 a, .param .b32 b)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a];
    ld.param.b32 %r2, [b];
    setp.lt.s32 %p1, %r1, 0;
    @%p1 bra $L_neg;
    mul.lo.s32 %r3, %r1, %r1;
    add.s32 %r3, %r3, %r2;
    st.param.b32 [ret], %r3;
    ret;
$L_neg:
    st.param.b32 [ret], -1;
    ret;
}
.func (.param .b32 ret) twice(.param .b32 a)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 param1;
    st.param.b32 [param1], 1;
    .param .b32 retval0;
    call.uni (retval0), square_plus, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }
    shl.b32 %r3, %r2, 1;
    st.param.b32 [ret], %r3;
    ret;
})" + entry_with_out("caller", 2, 6, 3) +
                          R"(
    mov.u32 %r1, %tid.x;
    add.s32 %r1, %r1, -4;
    mov.u32 %r3, 7;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %r2, [retval0];
    }
    setp.gt.s32 %p1, %r1, 10;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 param1;
    st.param.b32 [param1], 5;
    .param .b32 retval0;
    @%p1 call.uni (retval0), square_plus, (param0, param1);
    @%p1 ld.param.b32 %r3, [retval0];
    }
    mov.u32 %r4, %tid.x;
    mul.wide.u32 %rd2, %r4, 8;
    add.s64 %rd2, %rd1, %rd2;
    st.global.v2.u32 [%rd2], {%r2, %r3};
    ret;
}
)";
} // namespace

TEST_CASE_TEMPLATE("ptx executor: device functions are inlined, nested and guarded calls included",
                   Stack, pdom, ssy) {
    const compiled c(calls, "caller");
    const std::uint32_t n = 40;
    one_block run(c, n, 8 * n);
    auto& [dev, out, l] = run;
    (void)func::run_functional<32, Stack>(l, dev.mem);
    const auto v = dev.get<std::int32_t>(out, 2 * n);
    for (std::int32_t t = 0; t < static_cast<std::int32_t>(n); ++t) {
        const std::int32_t x = t - 4;
        CAPTURE(t);
        CHECK(v[2 * t] == (x < 0 ? -2 : 2 * (x * x + 1)));
        CHECK(v[2 * t + 1] == (x > 10 ? x * x + 5 : 7));
    }
    for (std::size_t pc = 0; pc < c.k.size(); ++pc)
        CHECK(c.k.at(pc).in.opcode != ptx::op::call);
}

TEST_CASE("ptx executor: recursion and external calls are refused with the function's name") {
    const std::string rec = R"(
.func (.param .b32 ret) fact(.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), fact, (param0);
    ld.param.b32 %r2, [retval0];
    }
    st.param.b32 [ret], %r2;
    ret;
}
.visible .entry k()
{
    .reg .b32 %r<2>;
    {
    .param .b32 param0;
    st.param.b32 [param0], 3;
    .param .b32 retval0;
    call.uni (retval0), fact, (param0);
    ld.param.b32 %r1, [retval0];
    }
    ret;
}
)";
    const ptx::module m = ptx::parse_ptx(header + rec, "rec.ptx");
    CHECK_THROWS_WITH_AS(ptx::kernel(m, "k"), doctest::Contains("recursive call of `fact`"),
                         parse_error);
    CHECK_THROWS_WITH_AS(ptx::kernel(m, "nope"), doctest::Contains("k"), config_error);
}

// --- kernel preparation -------------------------------------------------------------------

TEST_CASE("ptx kernel: unit and latency classes, access sizes, control flags") {
    const compiled c(R"(
.visible .entry classes(.param .u64 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<6>;
    .reg .f64 %fd<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    div.s32 %r2, %r1, 3;
    mad.lo.s32 %r3, %r1, %r2, %r1;
    mul.lo.s32 %r4, %r1, %r3;
    cvt.rn.f32.s32 %f1, %r4;
    div.rn.f32 %f2, %f1, %f1;
    sin.approx.f32 %f3, %f2;
    fma.rn.f32 %f4, %f3, %f2, %f1;
    cvt.f64.f32 %fd1, %f4;
    fma.rn.f64 %fd2, %fd1, %fd1, %fd1;
    div.rn.f64 %fd3, %fd2, %fd1;
    ld.global.v4.f32 {%f1, %f2, %f3, %f5}, [%rd1];
    st.global.f64 [%rd1], %fd3;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L_end;
    bar.sync 0;
$L_end:
    ret;
}
)",
                     "classes");
    const auto& k = c.k;
    using L = isa::latency_class;
    using U = isa::unit_class;
    const std::vector<std::pair<U, L>> want = {
        {U::ldst, L::const_mem},  {U::int_alu, L::special_reg},
        {U::int_alu, L::int_div}, {U::int_alu, L::int_mad},
        {U::int_alu, L::int_mul}, {U::fp, L::fp_add},
        {U::fp, L::fp_div},       {U::sfu, L::sfu},
        {U::fp, L::fp_mad},       {U::dp, L::dp_add},
        {U::dp, L::dp_fma},       {U::dp, L::dp_div},
        {U::ldst, L::global_mem}, {U::ldst, L::global_mem},
        {U::int_alu, L::int_alu}, {U::branch, L::branch},
        {U::ctrl, L::none},       {U::ctrl, L::none}};
    REQUIRE(k.size() == want.size());
    for (std::size_t pc = 0; pc < k.size(); ++pc) {
        CAPTURE(pc);
        CHECK(k.static_at(pc).unit == want[pc].first);
        CHECK(k.static_at(pc).latency == want[pc].second);
    }
    CHECK(k.static_at(12).access_bytes == 16); // ld.v4.f32
    CHECK(k.static_at(12).num_dst == 4);
    CHECK(k.static_at(13).access_bytes == 8);
    CHECK(k.static_at(13).mop == isa::mem_op::store);
    CHECK(k.static_at(15).is_branch);
    CHECK(k.static_at(16).is_barrier);
    CHECK(k.static_at(17).is_exit);
    // the setp writes what the guarded bra reads
    CHECK(k.static_at(14).dst[0] == k.static_at(15).src[0]);
}

TEST_CASE("ptx kernel: timing register ids follow liveness; too many live registers fold") {
    // 70 registers loaded, then all summed: all 70 live at once.
    std::string body = ".visible .entry many(.param .u64 p)\n{\n.reg .b32 %r<72>;\n"
                       ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n";
    for (int i = 0; i < 70; ++i)
        body +=
            "ld.global.u32 %r" + std::to_string(i) + ", [%rd1+" + std::to_string(4 * i) + "];\n";
    body += "mov.u32 %r70, 0;\n";
    for (int i = 0; i < 70; ++i)
        body += "add.s32 %r70, %r70, %r" + std::to_string(i) + ";\n";
    body += "st.global.u32 [%rd1], %r70;\nret;\n}\n";
    const compiled c(body, "many");
    CHECK(c.k.max_live_registers() == 2 + 70 + 1);
    CHECK(c.k.timing_ids_needed() > 63);
    CHECK(c.k.folded_registers() > 0);
    CHECK(c.k.regs_per_thread() == 63); // capped at Fermi's limit
    for (std::size_t pc = 0; pc < c.k.size(); ++pc) {
        const auto& s = c.k.static_at(pc);
        for (std::size_t i = 0; i < s.num_src; ++i)
            CHECK(s.src[i] < 63);
        for (std::size_t i = 0; i < s.num_dst; ++i)
            CHECK(s.dst[i] < 63);
    }
    ptx::kernel_options o;
    o.regs_per_thread = 40;
    const compiled d(body, "many", o);
    CHECK(d.k.regs_per_thread() == 40);
    // For a 256-register scoreboard: every live value keeps an id of its own.
    ptx::kernel_options wide;
    wide.timing_registers = 255;
    const compiled w(body, "many", wide);
    CHECK(w.k.folded_registers() == 0);
    CHECK(w.k.timing_ids_needed() == c.k.timing_ids_needed());
    std::uint32_t highest = 0;
    for (std::size_t pc = 0; pc < w.k.size(); ++pc) {
        const auto& s = w.k.static_at(pc);
        for (std::size_t i = 0; i < s.num_dst; ++i)
            highest = std::max<std::uint32_t>(highest, s.dst[i]);
    }
    CHECK(highest >= 63);
    CHECK(highest < 255);
    wide.timing_registers = 256;
    CHECK_THROWS_AS(compiled(body, "many", wide), config_error);
    // vector_add needs few: no folding, distinct ids for values live together
    const compiled v(R"(
.visible .entry small(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd1+4];
    add.s32 %r3, %r1, %r2;
    st.global.u32 [%rd1], %r3;
    ret;
}
)",
                     "small");
    CHECK(v.k.folded_registers() == 0);
    CHECK(v.k.max_live_registers() == 4); // %rd1 (2) + %r1 + %r2
    CHECK(v.k.regs_per_thread() == 4 + v.k.options().register_reserve);
    const auto& ld1 = v.k.static_at(1);
    const auto& ld2 = v.k.static_at(2);
    const auto& add = v.k.static_at(3);
    CHECK(ld1.dst[0] != ld2.dst[0]);
    CHECK(ld1.dst[0] != ld2.src[0]); // %r1 is live while %rd1 is read again
    CHECK(add.num_src == 2);
}

TEST_CASE("ptx launch: geometry, parameters and shared memory are checked") {
    const compiled c(rotate, "rotate");
    CHECK_THROWS_AS(ptx::launch(c.k, {1, 1, 1}, {2048, 1, 1},
                                ptx::param_pack(c.k).add(std::uint64_t{0}).bytes()),
                    config_error);
    CHECK_THROWS_AS(
        ptx::launch(c.k, {0, 1, 1}, {32, 1, 1}, ptx::param_pack(c.k).add(std::uint64_t{0}).bytes()),
        config_error);
    CHECK_THROWS_AS(ptx::launch(c.k, {1, 1, 1}, {32, 1, 1}), config_error);    // no parameters
    CHECK_THROWS_AS(ptx::param_pack(c.k).add(std::uint32_t{0}), config_error); // wrong size
    CHECK_THROWS_AS((void)ptx::param_pack(c.k).bytes(), config_error);         // missing
    const ptx::launch l(c.k, {2, 3, 1}, {16, 4, 1},
                        ptx::param_pack(c.k).add(std::uint64_t{0}).bytes(), 1000);
    CHECK(l.blocks() == 6);
    CHECK(l.warps_per_block() == 2);
    CHECK(l.shared_bytes() == 512 + 1000); // dynamic shared memory follows the static
    CHECK(func::launchable_kernel<ptx::launch>);
}

TEST_CASE_TEMPLATE("ptx executor: a cut warp's parts keep their lanes' registers and count "
                   "half a warp each at bar.sync a, b",
                   Stack, pdom, ssy) {
    // Each thread stores 10 * tid before the barrier and tid + 1 after it. Block of 64
    // threads: warp 0 in slot 0 is cut (lanes 0..11 stay, 12..31 go to slot 2), warp 1 in
    // slot 1 stays whole. `bar.sync 1, 32` waits for one warp's worth of threads.
    const compiled c(R"(
.visible .entry cut(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mul.lo.s32 %r2, %r1, 10;
    st.global.u32 [%rd3], %r2;
    bar.sync 1, 32;
    add.s32 %r3, %r1, 1;
    st.global.u32 [%rd3+256], %r3;
    ret;
}
)",
                     "cut");
    one_block run(c, 64, 4 * 128);
    auto& [dev, out, l] = run;
    func::ptx_source<32, Stack> src(l, dev.mem, 3, 1, 0);
    CHECK(src.can_cut());
    const std::uint32_t slots[] = {0, 1};
    REQUIRE(src.start_block(0, 0, slots) == 2);
    // Two instructions, then the cut: the parts carry the registers already written.
    (void)src.execute(0, {});
    (void)src.execute(0, {});
    src.split(0, 2, lane_mask<32>::first_n(12));
    CHECK(src.stack(0).live() == lane_mask<32>::first_n(12));
    CHECK(src.stack(2).live() == lane_mask<32>::first_n(32).minus(lane_mask<32>::first_n(12)));
    const auto to_barrier = [&](std::uint32_t s) {
        while (!src.at_barrier(s))
            (void)src.execute(s, {});
    };
    // One part at the barrier is half a warp: not enough; both parts are one warp.
    to_barrier(0);
    CHECK_FALSE(src.barrier_complete(0));
    to_barrier(2);
    CHECK(src.barrier_complete(0));
    src.release_barrier(0);
    // Warp 1 alone is a whole warp.
    to_barrier(1);
    CHECK(src.barrier_complete(0));
    src.release_barrier(0);
    for (const std::uint32_t s : {0U, 1U, 2U})
        while (!src.finished(s))
            (void)src.execute(s, {});
    CHECK(src.block_finished(0));
    const auto v = dev.get<std::uint32_t>(out, 128);
    for (std::uint32_t t = 0; t < 64; ++t) {
        CHECK(v[t] == 10 * t);
        CHECK(v[64 + t] == t + 1);
    }
}

TEST_CASE("ptx executor: a kernel with warp-collective instructions cannot be cut") {
    const compiled c(entry_with_out("vote", 2, 3, 2) + R"(
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 5;
    vote.sync.ballot.b32 %r2, %p1, -1;
    st.global.u32 [%rd1], %r2;
    ret;
}
)",
                     "vote");
    one_block run(c, 32, 4);
    auto& [dev, out, l] = run;
    func::ptx_source<32, pdom> src(l, dev.mem, 2, 1, 0);
    CHECK_FALSE(src.can_cut());
}

namespace {
// A straight-line kernel with `chain` f32, `chain` b32 and chain / 8 b64 virtual registers
// (as nvcc -O0/-G or a large unrolled kernel declares them), each defined once from the
// previous one, so only a handful are live at once. out[2 tid] gets the f32 chain's end,
// out[2 tid + 1] the integer chain's (the b64 chain folded in).
std::string many_registers(std::uint32_t chain) {
    std::string s = ".visible .entry many(.param .u64 out)\n{\n";
    s += "    .reg .f32 %f<" + std::to_string(chain) + ">;\n";
    s += "    .reg .b32 %r<" + std::to_string(chain) + ">;\n";
    s += "    .reg .b64 %rd<" + std::to_string(chain / 8 + 4) + ">;\n";
    s += "    .reg .pred %p<2>;\n";
    s += "    mov.u32 %r0, %tid.x;\n    cvt.rn.f32.u32 %f0, %r0;\n";
    s += "    cvt.u64.u32 %rd3, %r0;\n";
    for (std::uint32_t i = 1; i < chain; ++i) {
        const std::string f = std::to_string(i), g = std::to_string(i - 1);
        s += i % 2 == 0 ? "    mul.f32 %f" + f + ", %f" + g + ", 0f3F000000;\n"
                        : "    add.f32 %f" + f + ", %f" + g + ", 0f3F800000;\n";
        s += "    add.s32 %r" + f + ", %r" + g + ", " + std::to_string(i % 7) + ";\n";
        if (i % 8 == 0) {
            const std::uint32_t d = i / 8 + 2;
            s += "    cvt.u64.u32 %rd" + std::to_string(d + 1) + ", %r" + f + ";\n";
            s += "    add.s64 %rd" + std::to_string(d + 1) + ", %rd" + std::to_string(d + 1) +
                 ", %rd" + std::to_string(d) + ";\n";
        }
    }
    const std::string last = std::to_string(chain - 1);
    const std::string dlast = std::to_string((chain - 1) / 8 + 3);
    s += "    cvt.u32.u64 %r1, %rd" + dlast + ";\n";
    s += "    xor.b32 %r1, %r1, %r" + last + ";\n";
    s += "    ld.param.u64 %rd1, [out];\n    mul.wide.u32 %rd2, %r0, 8;\n";
    s += "    add.s64 %rd1, %rd1, %rd2;\n";
    s += "    st.global.f32 [%rd1], %f" + last + ";\n    st.global.u32 [%rd1+4], %r1;\n";
    s += "    ret;\n}\n";
    return s;
}

// The same computation in C++.
std::pair<float, std::uint32_t> many_registers_reference(std::uint32_t chain, std::uint32_t tid) {
    float f = static_cast<float>(tid);
    std::uint32_t r = tid;
    std::uint64_t d = tid;
    for (std::uint32_t i = 1; i < chain; ++i) {
        f = i % 2 == 0 ? f * 0.5F : f + 1.0F;
        r += i % 7;
        if (i % 8 == 0) d += r;
    }
    return {f, static_cast<std::uint32_t>(d) ^ r};
}
} // namespace

TEST_CASE("ptx executor: register storage follows liveness and the resident warps") {
    // 6,000 virtual registers, a few live at once: each warp holds a few rows, 32-bit
    // registers in 32-bit rows, and only warps that run hold storage.
    const std::uint32_t chain = 2900;
    const compiled c(many_registers(chain), "many");
    CHECK(c.k.registers().size() > 6000);
    CHECK(c.k.storage_rows(false) <= 4); // f32, b32 chains and the carry flag's row
    CHECK(c.k.storage_rows(true) <= 3);
    for (std::uint32_t r = 0; r < c.k.registers().size(); ++r)
        CHECK(c.k.storage(r).wide == (ptx::bits(c.k.registers()[r].t) > 32));
    const std::uint32_t threads = 64, blocks = 30;
    for (const bool timed : {false, true}) {
        CAPTURE(timed);
        device dev;
        const std::uint64_t out = dev.alloc(8 * threads); // every block writes the same
        const ptx::launch l(c.k, {blocks, 1, 1}, {threads, 1, 1},
                            ptx::param_pack(c.k).add(out).bytes());
        std::size_t most = 0, per_warp = 0;
        if (timed) {
            gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
            (void)g.run(l, dev.mem, [&](const auto& sm) {
                most = std::max(most, sm.source().storage_bytes());
                per_warp = sm.source().warp_storage_bytes();
            });
            // 30 blocks of 2 warps on 15 SMs: at most 4 warps of an SM hold storage at once
            // (the pool never outgrows the warps that ran together).
            CHECK(per_warp == 32 * (4 * c.k.storage_rows(false) + 8 * c.k.storage_rows(true)));
            CHECK(most <= 4 * per_warp);
        } else {
            (void)func::run_functional(l, dev.mem);
        }
        const auto v = dev.get<std::uint32_t>(out, 2 * threads);
        for (std::uint32_t t = 0; t < threads; ++t) {
            const auto [f, r] = many_registers_reference(chain, t);
            float got = 0;
            std::memcpy(&got, &v[2 * t], 4);
            if (got != f || v[2 * t + 1] != r) {
                CAPTURE(t);
                CHECK(got == f);
                CHECK(v[2 * t + 1] == r);
                break;
            }
        }
    }
}
