// Accel-Sim traces through the timing model: the SASS opcode tables and their table files,
// func::trace_source replaying hand-written traces (every opcode family, the three address
// compressions, barriers) against hand-computed instruction counts, unit classes, addresses
// and transactions, the bad traces' errors, and a PTX kernel run from its PTX and from the
// trace the project writes of it.
#include <warpkit/func/accelsim_trace_writer.hpp>
#include <warpkit/func/ptx_source.hpp>
#include <warpkit/func/sass_opcodes.hpp>
#include <warpkit/func/trace_source.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include "../ptx/test_device.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace warpkit;
using func::sass::opcode_kind;

// Options that read the trace from `text` whatever the path.
func::trace_options from_text(const std::string& text, func::trace_options o = {}) {
    o.open = [text](const std::string&) { return std::make_unique<std::istringstream>(text); };
    return o;
}

std::string header(std::uint32_t binary_version, std::uint32_t threads = 64,
                   std::uint32_t blocks = 1) {
    return "-kernel name = _Z4testPfS_\n-kernel id = 1\n-grid dim = (" + std::to_string(blocks) +
           ",1,1)\n-block dim = (" + std::to_string(threads) +
           ",1,1)\n-shmem = 512\n-nregs = 16\n-binary version = " +
           std::to_string(binary_version) +
           "\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
           "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.5.5\n"
           "-accelsim tracer version = 4\n\n#traces format = PC mask dest_num [reg_dests] "
           "opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n";
}

// One warp of the hand-written Volta kernel: 12 instructions, `w` shifting its addresses.
// S2R, IMAD (INT); LDG of 32 lanes as base and stride (one 128-byte line); FFMA, DADD (FP);
// MUFU (SFU); STS as base and stride; BAR.SYNC; LDS of 16 lanes as base and differences; STG
// of 4 lanes as a list (4 lines); BRA; EXIT.
std::string volta_warp(std::uint32_t w) {
    const auto hex = [](std::uint64_t v) {
        std::ostringstream s;
        s << "0x" << std::hex << v;
        return s.str();
    };
    std::string lds_deltas;
    for (int k = 1; k < 16; ++k)
        lds_deltas += k == 8 ? " -28" : " 4";
    std::string t = "warp = " + std::to_string(w) + "\ninsts = 12\n";
    t += "0000 ffffffff 1 R0 S2R 0 0\n";
    t += "0010 ffffffff 1 R2 IMAD 2 R0 R1 0\n";
    t += "0020 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 " + hex(0x7f1000000000 + 128 * w) + " 4\n";
    t += "0030 ffffffff 1 R5 FFMA 3 R4 R4 R255 0\n";
    t += "0040 ffffffff 1 R6 MUFU.RCP 1 R5 0\n";
    t += "0050 ffffffff 2 R8 R9 DADD 2 R6 R6 0\n";
    t += "0060 ffffffff 0 STS 2 R3 R6 4 1 " + hex(0x7f0000000000 + 128 * w) + " 4\n";
    t += "0070 ffffffff 0 BAR.SYNC 0 0\n";
    t += "0080 0000ffff 1 R7 LDS.U.32 1 R3 4 2 " + hex(0x7f0000000010 + 128 * w) + lds_deltas +
         "\n";
    t += "0090 0000000f 0 STG.E.SYS 2 R2 R7 4 0";
    for (std::uint64_t k = 0; k < 4; ++k)
        t += " " + hex(0x7f2000000000 + 0x100 * k + 0x1000 * w);
    t += "\n00a0 ffffffff 0 BRA 0 0\n00b0 ffffffff 0 EXIT 0 0\n";
    return t;
}

std::string volta_trace() {
    return header(70) + "#BEGIN_TB\n\nthread block = 0,0,0\n\n" + volta_warp(0) + "\n" +
           volta_warp(1) + "\n#END_TB\n";
}

using source = func::trace_source<32, simt::pdom_stack<32>>;

// A PTX kernel with a reciprocal, conversions, shared memory across a barrier, a loop whose
// trip count differs by lane, a global atomic and a store.
const char* const mix_ptx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry mix(.param .u64 in, .param .u64 out, .param .u64 count)
{
    .reg .pred %p<3>;
    .reg .b32 %r<16>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<8>;
    .shared .align 4 .f32 tile[128];
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u64 %rd3, [count];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd4, %r4, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.f32 %f1, [%rd5];
    rcp.approx.f32 %f2, %f1;
    cvt.rn.f32.s32 %f3, %r1;
    mul.f32 %f4, %f2, %f3;
    mov.u32 %r5, tile;
    shl.b32 %r6, %r1, 2;
    add.s32 %r7, %r5, %r6;
    st.shared.f32 [%r7], %f4;
    bar.sync 0;
    mov.u32 %r8, 0;
    and.b32 %r9, %r1, 3;
$L_loop:
    xor.b32 %r10, %r1, %r8;
    and.b32 %r10, %r10, 127;
    shl.b32 %r10, %r10, 2;
    add.s32 %r10, %r5, %r10;
    ld.shared.f32 %f5, [%r10];
    add.f32 %f4, %f4, %f5;
    add.s32 %r8, %r8, 1;
    setp.le.s32 %p1, %r8, %r9;
    @%p1 bra $L_loop;
    cvt.rzi.s32.f32 %r11, %f4;
    atom.global.add.u32 %r12, [%rd3], %r11;
    add.s64 %rd6, %rd2, %rd4;
    st.global.f32 [%rd6], %f4;
    ret;
}
)";

// Runs `k` on the GTX480 preset.
gpu::run_stats run_fermi(const auto& k) {
    gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
    func::global_memory mem;
    return g.run(k, mem);
}

// The message of the parse_error `f` throws, with its file and line.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const parse_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("sass opcode tables: families, kinds and modifiers") {
    using func::sass::family;
    CHECK(func::sass::family_of_binary_version(70) == family::volta);
    CHECK(func::sass::family_of_binary_version(75) == family::turing);
    CHECK(func::sass::family_of_binary_version(86) == family::ampere);
    CHECK(func::sass::family_of_binary_version(61) == family::pascal);
    CHECK(func::sass::family_of_binary_version(35) == family::kepler);
    CHECK_FALSE(func::sass::family_of_binary_version(0).has_value());
    CHECK(func::sass::family_named("turing") == family::turing);

    const func::sass::opcode_table volta(family::volta);
    CHECK(volta.find("LDG.E.64.SYS") == opcode_kind::load_global);
    CHECK(volta.find("ATOMS.ADD") == opcode_kind::atomic_shared);
    CHECK(volta.find("RED.E.ADD.STRONG.GPU") == opcode_kind::atomic_global);
    CHECK(volta.find("BSSY") == opcode_kind::branch_setup);
    CHECK(volta.find("WARPSYNC") == opcode_kind::branch);
    CHECK(volta.find("HMMA.884.F32.F32") == opcode_kind::tensor);
    CHECK_FALSE(volta.find("UIADD3").has_value()); // the uniform datapath came with Turing
    CHECK_FALSE(volta.find("SSY").has_value());    // Volta dropped the SSY stack
    CHECK(func::sass::opcode_table(family::turing).find("UIADD3") == opcode_kind::uniform);
    CHECK(func::sass::opcode_table(family::pascal).find("SSY") == opcode_kind::branch_setup);
    CHECK(func::sass::opcode_table(family::ampere).find("LDGSTS.E.BYPASS.128") ==
          opcode_kind::load_global);
    CHECK(func::sass::opcode_table(family::kepler).find("LDSLK") == opcode_kind::load_shared);

    using func::sass::static_inst_of;
    const auto bar = static_inst_of(opcode_kind::barrier, "BAR.SYNC", false);
    CHECK((bar.is_barrier && bar.unit == isa::unit_class::ctrl));
    CHECK_FALSE(static_inst_of(opcode_kind::barrier, "BAR.ARV", false).is_barrier);
    CHECK(static_inst_of(opcode_kind::conversion, "F2F.F64.F32", false).latency ==
          isa::latency_class::dp_add);
    CHECK(static_inst_of(opcode_kind::conversion, "I2F", false).latency ==
          isa::latency_class::fp_add);
    const auto tensor = static_inst_of(opcode_kind::tensor, "HMMA", false);
    CHECK((tensor.unit == isa::unit_class::tensor && tensor.latency == isa::latency_class::tensor));
    const auto dfma = static_inst_of(opcode_kind::dp_fma, "DFMA", false);
    CHECK((dfma.unit == isa::unit_class::dp && dfma.latency == isa::latency_class::dp_fma));
    CHECK(static_inst_of(opcode_kind::conversion, "F2F.F64.F32", false).unit ==
          isa::unit_class::dp);
    CHECK(static_inst_of(opcode_kind::conversion, "F2F.F32.F16", false).unit ==
          isa::unit_class::fp);
    const auto ldg = static_inst_of(opcode_kind::load_global, "LDG", true);
    CHECK((ldg.unit == isa::unit_class::ldst && ldg.mop == isa::mem_op::load &&
           ldg.space == isa::mem_space::global && ldg.latency == isa::latency_class::global_mem));
    const auto atoms = static_inst_of(opcode_kind::atomic_shared, "ATOMS", true);
    CHECK((atoms.space == isa::mem_space::shared && atoms.latency == isa::latency_class::atomic));
    // A memory opcode without addresses in the trace (LDC as the tracer writes it) runs on INT.
    const auto ldc = static_inst_of(opcode_kind::load_constant, "LDC", false);
    CHECK((ldc.unit == isa::unit_class::int_alu && ldc.mop == isa::mem_op::none));
    CHECK(static_inst_of(opcode_kind::exit, "EXIT", false).is_exit);
    CHECK(static_inst_of(opcode_kind::branch, "BRA", false).is_branch);
}

TEST_CASE("opcode table files: entries win over the family, errors at file:line:column") {
    std::istringstream in("# extra opcodes\nFOO int_mul\n\nBAR.SYNC.DEFER_BLOCKING barrier\n"
                          "LDGSTS ldst   # a comment\n");
    const auto extra = func::sass::read_opcode_table(in, "extra.txt");
    REQUIRE(extra.size() == 3);
    CHECK(extra[0].line == 2);
    const func::sass::opcode_table t(func::sass::family::volta, extra);
    CHECK(t.find("FOO.X") == opcode_kind::int_mul);
    CHECK(t.find("LDGSTS.E") == opcode_kind::load_generic);
    CHECK(t.find("BAR.SYNC.DEFER_BLOCKING") == opcode_kind::barrier);

    const auto bad = [](const std::string& text) {
        std::istringstream s(text);
        return error_of([&] { (void)func::sass::read_opcode_table(s, "extra.txt"); });
    };
    CHECK(bad("FOO\n") == "extra.txt:1:4: the line ends where the kind of 'FOO' should be");
    CHECK(bad("\nFOO widget\n").rfind("extra.txt:2:5: unknown kind 'widget'", 0) == 0);
    CHECK(bad("FOO int x\n").rfind("extra.txt:1:9: unexpected field 'x'", 0) == 0);
    CHECK(bad("F$O int\n").rfind("extra.txt:1:1: expected an opcode", 0) == 0);
}

TEST_CASE("trace_source replays a hand-written Volta trace: masks, units, addresses, barrier") {
    const func::trace_kernel k("volta.traceg", from_text(volta_trace()));
    CHECK(k.family() == func::sass::family::volta);
    CHECK((k.blocks() == 1 && k.warps_per_block() == 2 && k.regs_per_thread() == 16 &&
           k.shared_bytes() == 512));
    func::global_memory mem;
    source src(k, mem, 4, 1, 0);
    const std::array<std::uint32_t, 2> slots{0, 1};
    CHECK(src.start_block(0, 0, slots) == 2);
    // Fetch looks ahead to the barrier and no further.
    REQUIRE(src.peek(0, 7) != nullptr);
    CHECK(src.peek(0, 7)->is_barrier);
    CHECK(src.peek(0, 8) == nullptr);
    CHECK(src.peek(0, 0)->latency == isa::latency_class::special_reg);
    CHECK(src.peek(0, 5)->num_dst == 2); // DADD's R8 R9
    CHECK(src.peek(0, 3)->num_src == 1); // FFMA's R4 once, RZ none

    for (std::uint32_t w = 0; w < 2; ++w) {
        std::vector<isa::dynamic_inst<32>> d;
        for (int i = 0; i < 8; ++i)
            d.push_back(src.execute(w, {}));
        CHECK(d[2].si.unit == isa::unit_class::ldst);
        CHECK(d[2].si.space == isa::mem_space::global);
        CHECK(d[2].si.access_bytes == 4);
        for (std::size_t lane = 0; lane < 32; ++lane)
            CHECK(d[2].addr[lane] == 0x7f1000000000 + 128 * w + 4 * lane);
        // Shared addresses become offsets in the block's shared memory.
        CHECK(d[6].si.space == isa::mem_space::shared);
        CHECK(d[6].addr[31] == 128 * w + 124);
        CHECK(d[3].si.unit == isa::unit_class::fp);
        CHECK(d[4].si.unit == isa::unit_class::sfu);
        CHECK(d[5].si.latency == isa::latency_class::dp_add);
        CHECK(src.at_barrier(w));
        CHECK(src.barrier_complete(0) == (w == 1));
    }
    src.release_barrier(0);
    for (std::uint32_t w = 0; w < 2; ++w) {
        CHECK_FALSE(src.at_barrier(w));
        const auto lds = src.execute(w, {});
        CHECK(lds.active.count() == 16);
        CHECK(lds.addr[0] == 0x10 + 128 * w);
        CHECK(lds.addr[7] == 0x2c + 128 * w);
        CHECK(lds.addr[8] == 0x10 + 128 * w); // the difference -28
        CHECK(lds.addr[15] == 0x2c + 128 * w);
        const auto stg = src.execute(w, {});
        CHECK(stg.active.bits() == 0xf);
        CHECK(stg.addr[3] == 0x7f2000000300 + 0x1000 * w);
        CHECK(src.execute(w, {}).si.is_branch);
        CHECK_FALSE(src.finished(w));
        CHECK(src.execute(w, {}).si.is_exit);
        CHECK(src.finished(w));
    }
    CHECK(src.block_finished(0));
    CHECK(src.stats().warp_instructions == 24);
    CHECK(src.stats().thread_instructions == 2 * (10 * 32 + 16 + 4));
}

TEST_CASE("a hand-written Volta trace through the GTX480's timing model") {
    const func::trace_kernel k("volta.traceg", from_text(volta_trace()));
    const auto r = run_fermi(k);
    const auto& t = r.total;
    CHECK(t.warp_instructions == 24);
    CHECK(t.thread_instructions == 680);
    using U = isa::unit_class;
    CHECK(t.issued_by_unit[isa::index(U::int_alu)] == 4);
    CHECK(t.issued_by_unit[isa::index(U::fp)] == 4);
    CHECK(t.issued_by_unit[isa::index(U::sfu)] == 2);
    CHECK(t.issued_by_unit[isa::index(U::ldst)] == 8);
    CHECK(t.issued_by_unit[isa::index(U::branch)] == 2);
    CHECK(t.issued_by_unit[isa::index(U::ctrl)] == 4);
    CHECK(t.barrier_releases == 1);
    CHECK(t.shared_accesses == 4);
    // Two loads of one 128-byte line each, two stores of four lanes on four lines each.
    CHECK(t.global_accesses == 4);
    CHECK(t.global_transactions == 2 * 1 + 2 * 4);
    CHECK(r.cycles > 0);
    // The kernel runs again from the start of its file.
    CHECK(run_fermi(k).total.warp_instructions == 24);
}

TEST_CASE("trace_source: Kepler, Pascal, Turing and Ampere opcodes, generic spaces") {
    // One warp of 32 threads per family, each with the family's own opcodes.
    const auto one_warp = [](std::uint32_t version, const std::string& body, std::size_t n) {
        return header(version, 32) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = " +
               std::to_string(n) + "\n" + body + "#END_TB\n";
    };
    struct family_case {
        std::uint32_t version;
        std::string body;
        // int fp sfu ldst branch ctrl (dp and tensor: 0, the GTX480 runs them as FP)
        std::array<std::uint64_t, isa::unit_class_count> units;
    };
    const std::vector<family_case> cases{
        {35,
         "0000 ffffffff 1 R1 ISUB 2 R2 R3 0\n0008 ffffffff 0 SSY 0 0\n"
         "0010 ffffffff 1 R2 LD.E 1 R4 4 1 0x1000 4\n0018 ffffffff 0 SYNC 0 0\n"
         "0020 ffffffff 0 EXIT 0 0\n",
         {1, 0, 0, 1, 2, 1}},
        {61,
         "0000 ffffffff 1 R1 XMAD 2 R2 R3 0\n0008 ffffffff 1 R2 DMNMX 2 R4 R6 0\n"
         "0010 ffffffff 0 PBK 0 0\n0018 ffffffff 0 BRK 0 0\n0020 ffffffff 0 EXIT 0 0\n",
         {1, 1, 0, 0, 2, 1}},
        {75,
         "0000 ffffffff 1 R1 UIADD3 2 R2 R3 0\n0010 ffffffff 1 R4 HMMA.1688.F32 3 R4 R6 R8 0\n"
         "0020 ffffffff 1 R2 LDSM.16.M88.4 1 R4 16 1 0x00007f0000000000 16\n"
         "0030 ffffffff 0 EXIT 0 0\n",
         {1, 1, 0, 1, 0, 1}},
        {86,
         "0000 ffffffff 0 LDGSTS.E.BYPASS.128 2 R2 R4 16 1 0x2000 16\n"
         "0010 ffffffff 0 LDGDEPBAR 0 0\n0020 ffffffff 1 R1 REDUX.SUM 1 R2 0\n"
         "0030 ffffffff 1 R2 ATOM.E.ADD 2 R4 R5 4 1 0x00007f0000000040 4\n"
         "0040 ffffffff 0 EXIT 0 0\n",
         {1, 0, 0, 2, 0, 2}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.version);
        const std::size_t n =
            static_cast<std::size_t>(std::count(c.body.begin(), c.body.end(), '\n'));
        const func::trace_kernel k("k.traceg", from_text(one_warp(c.version, c.body, n)));
        const auto r = run_fermi(k);
        CHECK(r.total.warp_instructions == n);
        for (std::size_t u = 0; u < isa::unit_class_count; ++u)
            CHECK(r.total.issued_by_unit[u] == c.units[u]);
    }
    // ATOM on an address in the shared window is a shared atomic; LD outside it is global.
    const func::trace_kernel ampere("a.traceg", from_text(one_warp(86, cases[3].body, 5)));
    func::global_memory mem;
    source src(ampere, mem, 1, 1, 0);
    const std::array<std::uint32_t, 1> slot{0};
    (void)src.start_block(0, 0, slot);
    CHECK(src.execute(0, {}).si.space == isa::mem_space::global);
    (void)src.execute(0, {});
    (void)src.execute(0, {});
    const auto atom = src.execute(0, {});
    CHECK((atom.si.space == isa::mem_space::shared && atom.si.mop == isa::mem_op::atomic));
    CHECK(atom.addr[1] == 0x44);
}

TEST_CASE("bad traces: errors name the file and the line") {
    const auto run_text = [](const std::string& text, func::trace_options o = {}) {
        return error_of([&] { (void)run_fermi(func::trace_kernel("bad.traceg", from_text(text, o))); });
    };
    const std::string begin = header(70, 32) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n";
    // Line 20 is the first instruction.
    CHECK(run_text(begin + "insts = 2\n0000 ffffffff 0 FROB.X 0 0\n0010 ffffffff 0 EXIT 0 0\n"
                           "#END_TB\n")
              .rfind("bad.traceg:20:1: unknown opcode 'FROB.X' for the volta family", 0) == 0);
    // An opcode table file classifies it.
    std::istringstream extra("FROB int\n");
    func::trace_options o;
    o.extra_opcodes = func::sass::read_opcode_table(extra, "extra.txt");
    CHECK(run_text(begin + "insts = 2\n0000 ffffffff 0 FROB.X 0 0\n0010 ffffffff 0 EXIT 0 0\n"
                           "#END_TB\n",
                   o) == "no error");
    // Truncated: the file ends inside the block, or a warp has fewer lines than its count.
    CHECK(run_text(begin + "insts = 2\n0000 ffffffff 0 EXIT 0 0\n")
              .rfind("bad.traceg:", 0) == 0);
    CHECK(run_text(begin + "insts = 2\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n")
              .find("warp 0 has 1 instructions, its insts line said 2") != std::string::npos);
    // A barrier warp 1 never reaches: named at warp 0's BAR (line 21).
    const std::string two = header(70, 64) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
                            "insts = 3\n0000 ffffffff 0 NOP 0 0\n0010 ffffffff 0 BAR.SYNC 0 0\n"
                            "0020 ffffffff 0 EXIT 0 0\nwarp = 1\ninsts = 2\n"
                            "0000 ffffffff 0 NOP 0 0\n0020 ffffffff 0 EXIT 0 0\n#END_TB\n";
    CHECK(run_text(two).rfind("bad.traceg:21:1: warp 0 of thread block (0,0,0) waits at a "
                              "barrier that warp 1 never reaches",
                              0) == 0);
    // A binary version of no known family needs a family given.
    CHECK(error_of([&] {
              (void)func::trace_kernel("v.traceg", from_text(header(90) + "#BEGIN_TB\n"));
          }).rfind("v.traceg:1:1: binary version 90 names no SASS family", 0) == 0);
    // Fewer blocks than the grid.
    CHECK(run_text(header(70, 32, 2) + "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                                       "0000 ffffffff 0 EXIT 0 0\n#END_TB\n")
              .find("the trace holds 1 thread blocks, the grid 2") != std::string::npos);
}

TEST_CASE("a PTX kernel runs from its PTX and from the trace the project writes of it") {
    const ptx::module m = ptx::parse_ptx(mix_ptx, "mix.ptx");
    const ptx::kernel k(m, "mix");
    const std::uint32_t blocks = 4;
    const std::uint32_t threads = 128;
    std::vector<float> input(blocks * threads);
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = 1.0F + static_cast<float>(i);
    // The same launch on a fresh device each time.
    const auto launch_on = [&](ptx_test::device& dev) {
        const std::uint64_t in = dev.put(input);
        const std::uint64_t out = dev.alloc(4 * input.size());
        const std::uint64_t count = dev.alloc(8);
        return ptx::launch(k, {blocks, 1, 1}, {threads, 1, 1},
                           ptx::param_pack(k).add(in).add(out).add(count).bytes());
    };
    gpu::run_stats from_ptx;
    {
        ptx_test::device dev;
        from_ptx = run_fermi(launch_on(dev));
    }
    std::ostringstream text;
    {
        ptx_test::device dev;
        (void)func::write_accelsim_trace(launch_on(dev), dev.mem, text);
    }
    const func::trace_kernel traced("mix.traceg", from_text(text.str()));
    CHECK(traced.family() == func::sass::family::ptx);
    const auto from_trace = run_fermi(traced);
    CHECK(from_trace.total.warp_instructions == from_ptx.total.warp_instructions);
    CHECK(from_trace.total.thread_instructions == from_ptx.total.thread_instructions);
    for (std::size_t u = 0; u < isa::unit_class_count; ++u) {
        CAPTURE(u);
        CHECK(from_trace.total.issued_by_unit[u] == from_ptx.total.issued_by_unit[u]);
    }
    CHECK(from_trace.total.barrier_releases == from_ptx.total.barrier_releases);
    CHECK(from_trace.total.shared_accesses == from_ptx.total.shared_accesses);
    CHECK(from_trace.total.global_accesses == from_ptx.total.global_accesses);
    CHECK(from_trace.total.global_transactions == from_ptx.total.global_transactions);
    // Cycles differ a little: the PTX source stops fetching ahead at reconvergence points.
    MESSAGE("mix on fermi_gtx480: " << from_ptx.cycles << " cycles from PTX, "
                                    << from_trace.cycles << " from its trace ("
                                    << from_ptx.total.warp_instructions << " warp instructions)");
    CHECK(from_trace.cycles > from_ptx.cycles / 2);
    CHECK(from_trace.cycles < from_ptx.cycles * 2);
}

TEST_CASE("a trace in the form Accel-Sim's tracer writes: version 5, immediates, no binary version") {
    // As NVBit's tracer writes an element-wise kernel (tracer version 5: an immediate ends every
    // line; blank lines between parts; trailing spaces; `-binary version = 0`, which names no
    // family): 2 blocks of 128 threads, each warp 33 instructions: 11 on INT, a BRA no lane
    // takes (mask 0), two 16-byte loads and two stores of 32 consecutive lanes (4 lines each),
    // 16 FMULs and EXIT.
    const auto hex = [](std::uint64_t v) {
        std::ostringstream s;
        s << "0x" << std::hex << v;
        return s.str();
    };
    std::string t =
        "-kernel name = _ZN2at6native29vectorized_elementwise_kernelILi4EEEviT_\n"
        "-kernel id = 593\n-grid dim = (2,1,1)\n-block dim = (128,1,1)\n-shmem = 0\n"
        "-nregs = 22\n-binary version = 0\n-cuda stream id = 0\n"
        "-shmem base_addr = 0x00007f59dd000000\n-local mem base_addr = 0x00007f59db000000\n"
        "-nvbit version = 1.7.6\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
        "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
        "mem_width [adrrescompress?] [mem_addresses] immediate\n\n\n\n";
    for (std::uint64_t b = 0; b < 2; ++b) {
        t += "#BEGIN_TB\n\nthread block = " + std::to_string(b) + ",0,0\n\n";
        for (std::uint64_t w = 0; w < 4; ++w) {
            const std::uint64_t in = 0x7f580face400 + 0x1000 * b + 0x200 * w;
            const std::uint64_t out = 0x7f580fb3c400 + 0x1000 * b + 0x200 * w;
            t += "warp = " + std::to_string(w) + "\ninsts = 33\n";
            t += "0000 ffffffff 1 R1 MOV 0 0 0 \n0010 ffffffff 1 R0 S2R 0 0 0 \n"
                 "0020 ffffffff 1 R0 SHF.L.U32 2 R0 R255 0 10 \n"
                 "0030 ffffffff 1 R2 IADD3 2 R0 R255 0 0 \n"
                 "0040 ffffffff 0 ISETP.GE.U32.AND 1 R2 0 1024 \n0050 00000000 0 BRA 0 0 528 \n"
                 "0060 ffffffff 1 R11 S2R 0 0 0 \n0070 ffffffff 1 R9 MOV 0 0 4 \n"
                 "0080 ffffffff 1 R2 IMAD.WIDE 2 R0 R9 0 0 \n"
                 "0090 ffffffff 1 R2 IMAD.WIDE.U32 2 R11 R2 0 16 \n";
            t += "00a0 ffffffff 1 R12 LDG.E.128.SYS 1 R2 16 1 " + hex(in) + " 16 0 \n";
            t += "00b0 ffffffff 1 R4 LDG.E.128.SYS 1 R2 16 1 " + hex(in + 0x800) + " 16 0 \n";
            t += "00c0 ffffffff 1 R8 IMAD.WIDE.U32 2 R0 R9 0 0 \n"
                 "00d0 ffffffff 1 R8 IMAD.WIDE 2 R11 R8 0 16 \n";
            for (int i = 0; i < 16; ++i) {
                char line[64];
                std::snprintf(line, sizeof line, "%04x ffffffff 1 R%d FMUL 2 R%d R%d 0 0 \n",
                              0xe0 + 16 * i, 4 + i % 12, 4 + i % 12, 12 - i % 8);
                t += line;
            }
            t += "01e0 ffffffff 0 STG.E.128.SYS 2 R8 R12 16 1 " + hex(out) + " 16 0 \n";
            t += "01f0 ffffffff 0 STG.E.128.SYS 2 R8 R4 16 1 " + hex(out + 0x800) + " 16 0 \n";
            t += "0200 ffffffff 0 EXIT 0 0 0 \n\n";
        }
        t += "#END_TB\n\n";
    }
    CHECK(error_of([&] { (void)func::trace_kernel("kernel-593.traceg", from_text(t)); })
              .rfind("kernel-593.traceg:1:1: binary version 0 names no SASS family", 0) == 0);
    func::trace_options o;
    o.family = func::sass::family::ampere;
    const func::trace_kernel k("kernel-593.traceg", from_text(t, o));
    CHECK((k.blocks() == 2 && k.warps_per_block() == 4 && k.regs_per_thread() == 22));
    const auto r = run_fermi(k);
    const auto& s = r.total;
    CHECK(s.warp_instructions == 8 * 33);
    CHECK(s.thread_instructions == 8 * 32 * 32);
    using U = isa::unit_class;
    CHECK(s.issued_by_unit[isa::index(U::int_alu)] == 8 * 11);
    CHECK(s.issued_by_unit[isa::index(U::fp)] == 8 * 16);
    CHECK(s.issued_by_unit[isa::index(U::ldst)] == 8 * 4);
    CHECK(s.issued_by_unit[isa::index(U::branch)] == 8);
    CHECK(s.issued_by_unit[isa::index(U::ctrl)] == 8);
    // Each access: 32 lanes x 16 bytes from a 128-byte boundary, 4 lines.
    CHECK(s.global_accesses == 8 * 4);
    CHECK(s.global_transactions == 8 * 4 * 4);
    CHECK(s.blocks_completed == 2);
}
