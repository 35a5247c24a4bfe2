#include <warpkit/core/rng.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/disassembler.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

using namespace warpkit::isa;

TEST_CASE("assembles a kernel with directives, labels and comments") {
    const char* src = R"(; vector add: c[i] = a[i] + b[i]
.kernel vadd
.grid 4
.block 64 1 1
.regs 8
.param 0x100 0x200   // a, b
.param 0x300
.data 1 2 -1 1.5
start:
    LDS r1, %tid.x
    LDS r2, %param1
    ADD r3, r1, r2 ; address of b[i]
    BEQ r1, done
    MVI r4, 0xffff
    MAD r5, r1, r2, r3
    MUL r6, r2, r3
    NOT r7, r2
    SSY done
done: EXIT
)";
    const program p = assemble(src, "vadd.s");
    CHECK(p.kernel.name == "vadd");
    CHECK(p.kernel.grid == dim3{4, 1, 1});
    CHECK(p.kernel.block == dim3{64, 1, 1});
    CHECK(p.kernel.regs_per_thread == 8);
    CHECK(p.kernel.params == std::vector<std::uint32_t>{0x100, 0x200, 0x300});
    CHECK(p.kernel.data ==
          std::vector<std::uint32_t>{1, 2, 0xFFFFFFFFU, std::bit_cast<std::uint32_t>(1.5f)});
    REQUIRE(p.code.size() == 10);
    CHECK(p.labels.size() == 2);
    CHECK(p.code[0] == encode({opcode::lds, 1, 0, 0, 0, 0}));
    CHECK(p.code[1] == encode({opcode::lds, 2, 17, 0, 0, 0})); // %param1 = 16 + 1
    CHECK(p.code[3] == encode({opcode::beq, 0, 1, 0, 0, 9}));
    CHECK(p.code[4] == encode({opcode::mvi, 4, 0, 0, 0, 0xFFFF}));
    CHECK(p.code[5] == encode({opcode::mad, 5, 1, 2, 3, 0}));
    CHECK(p.code[6] == encode({opcode::mul, 6, 0, 2, 3, 0})); // MUL uses src2, src3
    CHECK(p.code[7] == encode({opcode::not_, 7, 0, 2, 0, 0}));
    CHECK(p.code[8] == encode({opcode::ssy, 0, 0, 0, 0, 9}));
    CHECK(p.source_line[9] == 19);
    CHECK(p.registers_used() == 8);
}

namespace {
std::string error_of(const std::string& src) {
    try {
        (void)assemble(src, "k.s");
    } catch (const warpkit::parse_error& e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE("assembler errors name file:line:column and what was wrong") {
    CHECK(error_of("  ADX r1, r2, r3") == "k.s:1:3: unknown instruction 'ADX'");
    CHECK(error_of("ADD r1, r2") ==
          "k.s:1:11: expected ',' before operand 3 of ADD before end of line");
    CHECK(error_of("ADD r1, r2, r32") == "k.s:1:13: expected a register r0..r31, found 'r32'");
    CHECK(error_of("ADD r1, r2, r3, r4") == "k.s:1:15: unexpected ', r4' after ADD operands");
    CHECK(error_of("\nMVI r1, 0x10000") ==
          "k.s:2:9: expected an immediate in [0, 65535], found '0x10000'");
    CHECK(error_of("MVI r1, -1") == "k.s:1:9: expected an immediate in [0, 65535], found '-1'");
    CHECK(error_of("BEQ r1, nowhere\nEXIT") == "k.s:1:9: undefined label 'nowhere'");
    CHECK(error_of("a: NOP\na: NOP") == "k.s:2:1: label 'a' defined twice");
    CHECK(error_of("LDS r1, %tid.w") ==
          "k.s:1:9: expected a special register (%tid.x, %ctaid.y, %laneid, %param0 ...), "
          "found '%tid.w'");
    CHECK(error_of(".grid 0 1") == "k.s:1:1: .grid dimensions must be >= 1");
    CHECK(error_of(".grid 1 2 3 4") == "k.s:1:1: .grid takes 1 to 3 value(s), got 4");
    CHECK(error_of(".blocks 4") ==
          "k.s:1:1: unknown directive '.blocks' (known: .kernel .grid .block .regs .warps "
          ".shared .param .const .data .word)");
    CHECK(error_of(".data 1 two") == "k.s:1:9: bad value 'two'");
    CHECK(error_of(".param 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17") ==
          "k.s:1:1: more than 16 kernel parameters");
    CHECK(error_of("EXIT r1") == "k.s:1:6: unexpected 'r1' after EXIT operands");
    CHECK(error_of("ADD: NOP") == "k.s:1:1: label 'ADD' is an instruction name");
    CHECK(error_of("ST r1") == "k.s:1:6: expected ',' before operand 2 of ST before end of line");
    CHECK(error_of("ADD r1, , r3") == "k.s:1:9: expected an operand, found ','");
}

TEST_CASE("words -> text -> words is the identity for any word") {
    warpkit::rng r(99);
    std::vector<std::uint32_t> words;
    // Canonical encodings of every opcode with random fields, plus raw random words
    // (undefined opcodes and non-zero don't-care bits come back as .word).
    for (const auto& i : all_opcodes()) {
        for (int t = 0; t < 20; ++t) {
            instruction in;
            in.op = i.op;
            if (in.uses(operand::dest)) in.dest = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src1)) in.src1 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::sreg)) in.src1 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src2)) in.src2 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src3)) in.src3 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::imm)) in.imm = static_cast<std::uint32_t>(r.below(65536));
            if (in.uses(operand::target)) in.imm = static_cast<std::uint32_t>(r.below(2000));
            words.push_back(encode(in));
        }
    }
    for (int t = 0; t < 20000; ++t)
        words.push_back(static_cast<std::uint32_t>(r()));
    const std::string text = disassemble(std::span<const std::uint32_t>(words));
    const program back = assemble(text, "round.s");
    CHECK(back.code == words);
    // And the text is canonical: disassembling again reproduces it exactly.
    CHECK(disassemble(std::span<const std::uint32_t>(back.code)) == text);
}

TEST_CASE("canonical program text round-trips through words exactly") {
    const char* canonical = R"(.kernel scan
.grid 2 1 1
.block 128 1 1
.warps 4
.regs 12
.shared 2048
.param 0x00001000 0x00002000
.const 0x3f800000
.data 0x00000001 0x00000002 0x00000003 0x00000004 0x00000005 0x00000006 0x00000007 0x00000008
.data 0x00000009
L0:
    LDS r1, %tid.x
    SHL r2, r1, r1
    BNE r2, L5
    FADD r3, r1, r2
    SEL r4, r1, r2, r3
L5:
    MVHI r4, r4, 0x1234
    BAR
    BEQ r4, L0
    EXIT
)";
    const program p = assemble(canonical);
    CHECK(disassemble(p) == canonical);
    CHECK(disassemble_word(p.code[0]) == "LDS r1, %tid.x");
    CHECK(disassemble_word(p.code[2]) == "BNE r2, 5");
    CHECK(disassemble_word(0xFFFFFFFFU) == ".word 0xffffffff"); // EXIT with don't-care bits set
}
