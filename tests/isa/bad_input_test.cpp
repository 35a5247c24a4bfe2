// Bad assembler text and kernel images get a parse_error naming file:line:column and what was
// wrong. (A program that branches past its code assembles: word lists need not be kernels; the
// kernel built from it rejects the branch, see tests/gpu/bad_input_test.cpp.)
#include <warpkit/core/error.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <string>

namespace {

using bad_input::thrown;

std::string asm_error(const std::string& text) {
    return thrown<warpkit::parse_error>([&] { (void)warpkit::isa::assemble(text, "k.s"); });
}

std::string image_error(const std::string& text) {
    return thrown<warpkit::parse_error>([&] { (void)warpkit::isa::read_image(text, "k.hex"); });
}

} // namespace

TEST_CASE("assembler: negative and zero sizes in directives") {
    CHECK(asm_error(".grid -1\nEXIT\n") == "k.s:1:7: bad unsigned integer '-1'");
    CHECK(asm_error(".kernel k\n.block 32 0\nEXIT\n") == "k.s:2:1: .block dimensions must be >= 1");
    CHECK(asm_error(".shared -4\n") == "k.s:1:9: bad unsigned integer '-4'");
    CHECK(asm_error(".regs -1\n") == "k.s:1:7: bad unsigned integer '-1'");
    CHECK(asm_error("  .warps 4294967296\n") == "k.s:1:10: bad unsigned integer '4294967296'");
    CHECK(asm_error(".grid 1 2 3 4\n") == "k.s:1:1: .grid takes 1 to 3 value(s), got 4");
}

TEST_CASE("assembler: branch targets that cannot be encoded or do not exist") {
    CHECK(asm_error("MVI r1, 0\nBEQ r1, -1\nEXIT\n") ==
          "k.s:2:9: branch target -1 outside [0, 65535]");
    CHECK(asm_error("MVI r1, 0\nBNE r1, 70000\nEXIT\n") ==
          "k.s:2:9: branch target 70000 outside [0, 65535]");
    CHECK(asm_error("MVI r1, 0\nBNE r1, nowhere\nEXIT\n") == "k.s:2:9: undefined label 'nowhere'");
    CHECK(asm_error("BRA 3\n") == "k.s:1:1: unknown instruction 'BRA'");
}

TEST_CASE("assembler: empty text is an empty program, not an error of its own") {
    // Word lists and fragments assemble from any text; a kernel needs code, which
    // func::isa_kernel and the examples' loader check (tests/gpu/bad_input_test.cpp).
    CHECK(warpkit::isa::assemble("", "k.s").code.empty());
    CHECK(warpkit::isa::assemble("; only a comment\n\n", "k.s").code.empty());
}

TEST_CASE("kernel image: empty, truncated and malformed images") {
    CHECK(image_error("") == "k.hex:1:1: image has no GRID entry");
    CHECK(image_error("\n\n// nothing but a comment\n") == "k.hex:4:1: image has no GRID entry");
    CHECK(image_error("000100401\n") == "k.hex:2:1: image has no BLOCK entry");
    CHECK(image_error("000100401 100100420 300000000") == "k.hex:1:30: image has no START entry");
    // a negative number is not a hex entry
    CHECK(image_error("-00000001") == "k.hex:1:1: expected a hexadecimal entry, found '-00000001'");
    // zero-sized block
    CHECK(image_error("000100401 100000000 f00000000") ==
          "k.hex:1:11: BLOCK dimensions must be >= 1 (x 0, y 0, z 0)");
}
