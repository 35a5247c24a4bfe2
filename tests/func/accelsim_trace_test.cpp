// The Accel-Sim trace readers against hand-written traces: every header key, the three
// address compressions decoded lane by lane, tracer version 5's immediate, line numbers, a
// partial last warp, streaming block by block, and every malformed input named with its line
// and column.
#include <warpkit/func/accelsim_trace.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace warpkit::func::accelsim;

const char* const header_v3 = R"(-kernel name = _Z6vecAddPfS_S_i
-kernel id = 2
-grid dim = (2,1,1)
-block dim = (48,1,1)
-shmem = 1024
-nregs = 16
-binary version = 70
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f1000000000
-nvbit version = 1.5.5
-accelsim tracer version = 3

#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]

)";

// Block 0: warp 0 (32 threads) with one instruction of each compression and an ALU
// instruction; warp 1 (16 threads) with a partial mask. Block 1: one warp.
const char* const blocks_v3 = R"(#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 4
0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0
0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x1000 0x1010 0x1004 0x2000
0020 ffffffff 0 STG.E 2 R4 R2 4 1 0x7f0000000100 4
0030 00000505 1 R6 LDG.E.64 1 R8 8 2 0x3000 -8 64 8

warp = 1
insts = 1
0000 0000ffff 0 EXIT 0 0

#END_TB

#BEGIN_TB
thread block = 1,0,0
warp = 0
insts = 1
0000 ffffffff 0 EXIT 0 0
#END_TB
)";

std::vector<block_trace> read_all(kernel_trace_reader& r) {
    std::vector<block_trace> blocks;
    block_trace b;
    while (r.next_block(b))
        blocks.push_back(b);
    return blocks;
}

// The parse_error of reading all of `text`, or "" when it reads.
std::string error_of(const std::string& text, std::size_t* line = nullptr) {
    std::istringstream in(text);
    try {
        kernel_trace_reader r(in, "k.traceg");
        (void)read_all(r);
    } catch (const warpkit::parse_error& e) {
        if (line != nullptr) *line = e.line();
        return e.what();
    }
    return "";
}

std::string with_blocks(const std::string& blocks) {
    return std::string(header_v3) + blocks;
}

} // namespace

TEST_CASE("kernelslist.g: MemcpyHtoD commands and kernel traces in order") {
    std::istringstream in("MemcpyHtoD,0x00007efe7b500000,2052\n\n"
                          "# a comment\nMemcpyHtoD,0x7efe7b500a00,262144\r\n"
                          "kernel-1.traceg\nkernel-2.traceg.xz\n");
    const auto cmds = read_kernel_list(in, "kernelslist.g");
    REQUIRE(cmds.size() == 4);
    CHECK(cmds[0].what == command::kind::memcpy_to_device);
    CHECK(cmds[0].address == 0x00007efe7b500000ULL);
    CHECK(cmds[0].bytes == 2052);
    CHECK(cmds[0].line == 1);
    CHECK(cmds[1].address == 0x7efe7b500a00ULL);
    CHECK(cmds[1].bytes == 262144);
    CHECK(cmds[2].what == command::kind::kernel);
    CHECK(cmds[2].trace == "kernel-1.traceg");
    CHECK(cmds[2].line == 5);
    CHECK(cmds[3].trace == "kernel-2.traceg.xz");
}

TEST_CASE("kernelslist.g: bad lines name the file, line and what was expected") {
    const auto error_in = [](const std::string& text) -> std::string {
        std::istringstream in(text);
        try {
            (void)read_kernel_list(in, "list.g");
        } catch (const warpkit::parse_error& e) {
            return e.what();
        }
        return "";
    };
    CHECK(error_in("kernel-1.traceg\nMemcpyHtoD,0x10\n")
              .rfind("list.g:2:1: expected MemcpyHtoD", 0) == 0);
    CHECK(error_in("MemcpyHtoD,0xzz,4\n").find("the destination address (hexadecimal)") !=
          std::string::npos);
    CHECK(error_in("MemcpyHtoD,0x10,-4\n").find("the byte count") != std::string::npos);
    CHECK(error_in("kernel-1.trace\n").find("kernel trace file") != std::string::npos);
    CHECK(error_in("MemcpyHtoD,0x10,4,5\n").find("expected MemcpyHtoD,<address>,<bytes>") !=
          std::string::npos);
}

TEST_CASE("kernel trace: the header's keys") {
    std::istringstream in(with_blocks(blocks_v3));
    kernel_trace_reader r(in, "k.traceg");
    const kernel_header& h = r.header();
    CHECK(h.name == "_Z6vecAddPfS_S_i");
    CHECK(h.id == 2);
    CHECK(h.grid == dim3{2, 1, 1});
    CHECK(h.block == dim3{48, 1, 1});
    CHECK(h.warps_per_block() == 2);
    CHECK(h.shared_bytes == 1024);
    CHECK(h.registers == 16);
    CHECK(h.binary_version == 70);
    CHECK(h.stream == 0);
    CHECK(h.shared_base == 0x00007f0000000000ULL);
    CHECK(h.local_base == 0x00007f1000000000ULL);
    CHECK(h.nvbit_version == "1.5.5");
    CHECK(h.tracer_version == 3);
    CHECK_FALSE(h.line_numbers);
    CHECK(h.other.empty());
}

TEST_CASE("kernel trace: instructions, registers and the three address compressions") {
    std::istringstream in(with_blocks(blocks_v3));
    kernel_trace_reader r(in, "k.traceg");
    const auto blocks = read_all(r);
    REQUIRE(blocks.size() == 2);
    CHECK(r.blocks_read() == 2);
    const block_trace& b = blocks[0];
    CHECK(b.index == dim3{0, 0, 0});
    REQUIRE(b.warps.size() == 2);
    const auto& w0 = b.warps[0].instructions;
    REQUIRE(w0.size() == 4);

    CHECK(w0[0].pc == 0x0);
    CHECK(w0[0].mask == 0xffffffffU);
    CHECK(r.opcodes()[w0[0].opcode] == "IMAD.MOV.U32");
    CHECK(w0[0].dst_count == 1);
    CHECK(w0[0].dst[0] == 1);
    CHECK(w0[0].src_count == 2);
    CHECK(w0[0].src[0] == 255);
    CHECK(w0[0].mem_width == 0);

    // The addresses of the first n active lanes of instruction i.
    const auto lanes = [&](const trace_instruction& i, std::uint32_t n) {
        std::vector<std::uint64_t> v;
        for (std::uint32_t k = 0; k < n; ++k)
            v.push_back(b.address(i, k));
        return v;
    };
    // List of every active lane's address (lanes 0-3).
    CHECK(r.opcodes()[w0[1].opcode] == "LDG.E");
    CHECK(w0[1].mem_width == 4);
    CHECK(lanes(w0[1], 4) == std::vector<std::uint64_t>{0x1000, 0x1010, 0x1004, 0x2000});

    // Base and stride: lane k at base + 4k for all 32 lanes.
    CHECK(w0[2].src_count == 2);
    CHECK(w0[2].dst_count == 0);
    for (std::uint32_t k = 0; k < 32; ++k)
        CHECK(b.address(w0[2], k) == 0x7f0000000100ULL + 4 * k);

    // Base and differences over lanes 0, 2, 8 and 10 (mask 0x505): 0x3000, -8, +64, +8.
    CHECK(w0[3].mem_width == 8);
    CHECK(lanes(w0[3], 4) == std::vector<std::uint64_t>{0x3000, 0x2ff8, 0x3038, 0x3040});
    CHECK(w0[3].line == 25);

    // The last warp of a 48-thread block holds 16 threads.
    CHECK(b.warps[1].warp == 1);
    CHECK(b.warps[1].instructions[0].mask == 0xffffU);
    CHECK(blocks[1].index == dim3{1, 0, 0});
    CHECK(blocks[1].warps[0].instructions.size() == 1);
}

TEST_CASE("kernel trace: tracer version 5's immediate and line numbers") {
    const std::string text = R"(-kernel name = k
-grid dim = (1,1,1)
-block dim = (32,1,1)
-accelsim tracer version = 5
-enable lineinfo = 1
-some future key = 7
#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate
#BEGIN_TB
thread block = 0,0,0
warp = 0
insts = 3
12 0000 ffffffff 1 R1 LDG.E.32 1 R2 4 1 1000 4 0
13 0010 ffffffff 1 R3 IADD3 2 R1 R1 0 -16
14 0020 ffffffff 0 EXIT 0 0 0
#END_TB
)";
    std::istringstream in(text);
    kernel_trace_reader r(in, "k.traceg");
    CHECK(r.header().tracer_version == 5);
    CHECK(r.header().line_numbers);
    REQUIRE(r.header().other.size() == 1);
    CHECK(r.header().other[0].first == "some future key");
    CHECK(r.header().other[0].second == "7");
    const auto blocks = read_all(r);
    REQUIRE(blocks.size() == 1);
    const auto& w = blocks[0].warps[0].instructions;
    REQUIRE(w.size() == 3);
    CHECK(w[0].source_line == 12);
    CHECK(blocks[0].address(w[0], 31) == 0x1000 + 4 * 31);
    CHECK(w[1].immediate == -16);
    CHECK(w[2].source_line == 14);
}

TEST_CASE("kernel trace: read one thread block at a time") {
    // 64 blocks of one warp of 50 instructions each: the reader holds one block at a time.
    std::string text = "-kernel name = k\n-grid dim = (8,8,1)\n-block dim = (32,1,1)\n"
                       "-accelsim tracer version = 4\n#traces format = ...\n";
    for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 8; ++x) {
            text += "#BEGIN_TB\nthread block = " + std::to_string(x) + "," + std::to_string(y) +
                    ",0\nwarp = 0\ninsts = 50\n";
            for (int i = 0; i < 50; ++i)
                text += "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4\n";
            text += "#END_TB\n";
        }
    }
    std::istringstream in(text);
    kernel_trace_reader r(in, "k.traceg");
    block_trace b;
    std::uint64_t instructions = 0;
    std::uint64_t blocks = 0;
    while (r.next_block(b)) {
        CHECK(b.addresses.size() == 50 * 32);
        instructions += b.warps[0].instructions.size();
        ++blocks;
    }
    CHECK(blocks == 64);
    CHECK(instructions == 64 * 50);
    CHECK(r.opcodes().size() == 1);
    CHECK_FALSE(r.next_block(b));
    CHECK(b.warps.empty());
}

TEST_CASE("kernel trace: malformed traces are parse errors at their line") {
    const std::string ok_warp = "thread block = 0,0,0\nwarp = 0\ninsts = 1\n";
    struct bad_case {
        std::string blocks;
        std::size_t line;
        std::string says;
    };
    // header_v3 is 15 lines, so the block text starts on line 16.
    const std::vector<bad_case> cases = {
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 EXIT 0 0\n", 20, "ends inside a thread block"},
        {"#BEGIN_TB\n" + ok_warp + "#END_TB\n", 20, "has 0 instructions, its insts line said 1"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 EXIT 0 0\n0000 ffffffff 0 EXIT 0 0\n", 21,
         "more instructions than its insts line said"},
        {"#BEGIN_TB\nthread block = 2,0,0\n", 17, "outside the grid"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 EXIT 0 0\nwarp = 0\n", 21,
         "twice in one block"},
        {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n", 18, "warp 2 of a block of 2 warps"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 EXIT 0 0\n#END_TB\n#BEGIN_TB\n" + ok_warp, 23,
         "a second time"},
        {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\ninsts = 1\n0000 00010000 0 EXIT 0 0\n", 20,
         "a lane outside the block (warp 1 holds 16 threads)"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 1 R1 LDG.E 1 R2 4 3 0x10\n", 20,
         "address format 3"},
        {"#BEGIN_TB\n" + ok_warp + "0000 00000005 1 R1 LDG.E 1 R2 4 1 0x10 4\n", 20,
         "not consecutive"},
        {"#BEGIN_TB\n" + ok_warp + "0000 00000003 1 R1 LDG.E 1 R2 4 0 0x10\n", 20,
         "the line ends where an address should be"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0xfffffffffffffff0 8\n",
         20, "outside the 64-bit address space"},
        {"#BEGIN_TB\n" + ok_warp + "0000 00000003 1 R1 LDG.E 1 R2 4 2 0x10 -17\n", 20,
         "outside the 64-bit address space"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 EXIT 0 0 7\n", 20,
         "unexpected field after the instruction"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 9 R1 R1 R1 R1 R1 R1 R1 R1 R1 EXIT 0 0\n", 20,
         "9 destination registers (at most 8)"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 1 P0 ISETP 0 0\n", 20, "(R<n>), found 'P0'"},
        {"#BEGIN_TB\n" + ok_warp + "00z0 ffffffff 0 EXIT 0 0\n", 20,
         "expected the PC (hexadecimal)"},
        {"#BEGIN_TB\n" + ok_warp + "0000 ffffffff 0 12 0 0\n", 20, "expected an opcode"},
        {"#BEGIN_TB\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n", 20,
         "without a 'thread block =' line"},
        {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n0000 ffffffff 0 EXIT 0 0\n", 19,
         "expected 'insts = <count>'"},
        {"thread block = 0,0,0\n", 16, "expected #BEGIN_TB"},
        {"#BEGIN_TB\n#BEGIN_TB\n", 17, "no #END_TB before it"},
        {"", 15, "no thread block"},
        {"#BEGIN_TB\n" + ok_warp + std::string(70000, 'x') + "\n", 20, "a line longer than 65536"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.blocks.substr(0, 200));
        std::size_t line = 0;
        const std::string e = error_of(with_blocks(c.blocks), &line);
        CHECK(e.find(c.says) != std::string::npos);
        CHECK(e.rfind("k.traceg:", 0) == 0);
        CHECK(line == c.line);
    }
    // The header: a missing grid, a bad dimension, an empty block.
    CHECK(error_of("-kernel name = k\n-block dim = (32,1,1)\n#BEGIN_TB\n").find("no -grid dim") !=
          std::string::npos);
    CHECK(error_of("-grid dim = (1,x,1)\n").find("the grid dimensions") != std::string::npos);
    CHECK(error_of("-grid dim = (1,1,1)\n-block dim = (0,1,1)\n").find("at least 1") !=
          std::string::npos);
    CHECK(error_of("kernel name = k\n").find("expected a '-key = value' header line") !=
          std::string::npos);
}
