// func::write_accelsim_trace against the run it writes: a PTX kernel with a gathered load,
// shared memory across a barrier, a divergent branch and a store, written as a trace and read
// back with func::accelsim's reader, must give every block, every warp's instructions in
// order with their PCs, masks and opcodes, and every active lane's address exactly as the
// functional run executed them.
#include <warpkit/func/accelsim_trace.hpp>
#include <warpkit/func/accelsim_trace_writer.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include "../ptx/test_device.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace warpkit;

const char* const gather_ptx = R"(.version 9.0
.target sm_75
.address_size 64

.visible .entry gather(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b32 tile[64];
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    mul.lo.s32 %r6, %r5, 7;
    rem.u32 %r7, %r6, %r1;
    mul.wide.u32 %rd3, %r7, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r8, [%rd4];
    mov.u32 %r10, tile;
    shl.b32 %r11, %r4, 2;
    add.s32 %r11, %r10, %r11;
    st.shared.u32 [%r11], %r8;
    bar.sync 0;
    xor.b32 %r9, %r4, 1;
    shl.b32 %r9, %r9, 2;
    add.s32 %r9, %r10, %r9;
    ld.shared.u32 %r9, [%r9];
    and.b32 %r6, %r4, 1;
    setp.eq.s32 %p1, %r6, 0;
    @%p1 bra $L_even;
    add.s32 %r9, %r9, %r9;
$L_even:
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r9;
    ret;
}
)";

// One executed warp instruction as the functional run saw it.
struct seen {
    std::uint32_t block = 0;
    std::uint32_t warp = 0;
    std::uint32_t pc = 0;
    std::uint64_t mask = 0;
    std::vector<std::uint64_t> addresses; // active lanes of a memory access, in lane order
};

// Records every instruction of a functional run.
struct recorder {
    std::uint32_t block = 0;
    std::vector<seen> all;
    void block_started(std::uint32_t b) { block = b; }
    void executed(std::uint32_t warp, const isa::dynamic_inst<32>& d) {
        seen s{block, warp, d.pc, d.active.bits(), {}};
        if (d.si.mop != isa::mem_op::none && d.si.access_bytes != 0)
            for (std::size_t lane = 0; lane < 32; ++lane)
                if (d.active.test(lane)) s.addresses.push_back(d.addr[lane]);
        all.push_back(std::move(s));
    }
    void block_finished(std::uint32_t) {}
};

} // namespace

TEST_CASE("write_accelsim_trace: the trace read back is the run that wrote it") {
    const ptx::module m = ptx::parse_ptx(gather_ptx, "gather.ptx");
    const ptx::kernel k(m, "gather");
    const std::uint32_t blocks = 3;
    const std::uint32_t threads = 64;
    const std::uint32_t n = blocks * threads;
    std::vector<std::uint32_t> input(n);
    for (std::uint32_t i = 0; i < n; ++i)
        input[i] = 1000 + i;

    // The run that writes the trace, and the same run recorded.
    std::ostringstream text;
    func::ptx_source_stats written;
    std::vector<std::uint32_t> out_written;
    {
        ptx_test::device dev;
        const std::uint64_t in = dev.put(input);
        const std::uint64_t out = dev.alloc(4 * n);
        const ptx::launch l(k, {blocks, 1, 1}, {threads, 1, 1},
                            ptx::param_pack(k).add(in).add(out).add(n).bytes());
        written = func::write_accelsim_trace(l, dev.mem, text, 7);
        out_written = dev.get<std::uint32_t>(out, n);
    }
    recorder rec;
    {
        ptx_test::device dev;
        const std::uint64_t in = dev.put(input);
        const std::uint64_t out = dev.alloc(4 * n);
        const ptx::launch l(k, {blocks, 1, 1}, {threads, 1, 1},
                            ptx::param_pack(k).add(in).add(out).add(n).bytes());
        (void)func::run_functional(l, dev.mem, {}, rec);
    }
    // The kernel ran as it should: out[t] = in[7t mod n] of the partner lane, doubled when odd.
    for (std::uint32_t t = 0; t < n; ++t) {
        const std::uint32_t partner = t ^ 1U;
        const std::uint32_t v = input[(partner * 7) % n];
        CHECK(out_written[t] == (t % 2 == 1 ? 2 * v : v));
    }
    CHECK(rec.all.size() == written.warp_instructions);

    std::istringstream in(text.str());
    func::accelsim::kernel_trace_reader r(in, "gather.traceg");
    const auto& h = r.header();
    CHECK(h.name == "gather");
    CHECK(h.id == 7);
    CHECK(h.grid == func::accelsim::dim3{blocks, 1, 1});
    CHECK(h.block == func::accelsim::dim3{threads, 1, 1});
    CHECK(h.line_numbers);
    REQUIRE(h.other.size() == 1);
    CHECK(h.other[0].first == "opcode set");
    CHECK(h.other[0].second == "ptx");

    // The recorded run, grouped by block and warp in execution order.
    using per_warp = std::vector<std::vector<const seen*>>;
    std::vector<per_warp> by(blocks, per_warp(2));
    for (const auto& s : rec.all)
        by[s.block][s.warp].push_back(&s);
    func::accelsim::block_trace b;
    std::uint32_t read_blocks = 0;
    std::uint64_t instructions = 0;
    std::uint64_t memory = 0;
    while (r.next_block(b)) {
        const std::uint32_t bi = b.index.x;
        REQUIRE(bi < blocks);
        REQUIRE(b.warps.size() == 2);
        for (const auto& w : b.warps) {
            const auto& want = by[bi][w.warp];
            REQUIRE(w.instructions.size() == want.size());
            for (std::size_t i = 0; i < want.size(); ++i) {
                const auto& got = w.instructions[i];
                CHECK(got.pc == want[i]->pc);
                CHECK(got.mask == want[i]->mask);
                CHECK(got.source_line == k.line(want[i]->pc));
                const auto op = func::detail::accelsim_trace_observer<32>::opcode_text(
                    k.at(want[i]->pc).in);
                CHECK(r.opcodes()[got.opcode] == op);
                CHECK((got.mem_width != 0) == !want[i]->addresses.empty());
                for (std::size_t a = 0; a < want[i]->addresses.size(); ++a)
                    CHECK(b.address(got, static_cast<std::uint32_t>(a)) == want[i]->addresses[a]);
                memory += want[i]->addresses.empty() ? 0 : 1;
            }
            instructions += w.instructions.size();
        }
        ++read_blocks;
    }
    CHECK(read_blocks == blocks);
    CHECK(instructions == written.warp_instructions);
    // Per warp: three ld.param, ld.global, st.shared, ld.shared, st.global.
    CHECK(memory == 7 * 2 * blocks);
    // Both compressions appear: the stores' consecutive lanes as base and stride, the gathered
    // load as base and differences.
    const std::string t = text.str();
    CHECK(t.find(" ld.global.u32 ") != std::string::npos);
    CHECK(t.find(" 4 1 0x") != std::string::npos);
    CHECK(t.find(" 4 2 0x") != std::string::npos);
}
