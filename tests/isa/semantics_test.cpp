#include <warpkit/isa/semantics.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>

using namespace warpkit::isa;

namespace {
std::uint32_t run(opcode op, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0,
                  std::uint32_t imm = 0) {
    instruction in;
    in.op = op;
    in.imm = imm;
    return evaluate(in, a, b, c);
}
std::uint32_t f(float x) {
    return std::bit_cast<std::uint32_t>(x);
}
float tf(std::uint32_t v) {
    return std::bit_cast<float>(v);
}
} // namespace

TEST_CASE("integer semantics, hand-computed") {
    CHECK(run(opcode::add, 0xFFFFFFFFU, 2) == 1); // wraps
    CHECK(run(opcode::sub, 1, 2) == 0xFFFFFFFFU);
    CHECK(run(opcode::mul, 99, 7, 6) == 42);             // MUL reads src2 and src3
    CHECK(run(opcode::mad, 3, 4, 5) == 17);              // src1 * src2 + src3
    CHECK(run(opcode::mad, 0x10000U, 0x10000U, 1) == 1); // low 32 bits of the product
    CHECK(run(opcode::slt, 0xFFFFFFFFU, 0) == 1);        // -1 < 0, signed
    CHECK(run(opcode::sgt, 0xFFFFFFFFU, 0) == 0);
    CHECK(run(opcode::shr, 0x80000000U, 31) == 1);             // logical
    CHECK(run(opcode::sra, 0x80000000U, 31) == 0xFFFFFFFFU);   // arithmetic
    CHECK(run(opcode::shl, 1, 33) == 2);                       // shift amount mod 32
    CHECK(run(opcode::not_, 123, 0x0F0F0F0FU) == 0xF0F0F0F0U); // NOT reads src2
    CHECK(run(opcode::and_, 0b1100, 0b1010) == 0b1000);
    CHECK(run(opcode::or_, 0b1100, 0b1010) == 0b1110);
    CHECK(run(opcode::xor_, 0b1100, 0b1010) == 0b0110);
    CHECK(run(opcode::sel, 0, 7, 9) == 9);
    CHECK(run(opcode::sel, 5, 7, 9) == 7);
    CHECK(run(opcode::min, 0xFFFFFFFEU, 3) == 0xFFFFFFFEU);
    CHECK(run(opcode::max, 0xFFFFFFFEU, 3) == 3);
    CHECK(run(opcode::seq, 4, 4) == 1);
    CHECK(run(opcode::mv, 77) == 77);
    CHECK(run(opcode::mvi, 0, 0, 0, 0xFFFF) == 0xFFFF); // zero-extended
    CHECK(run(opcode::mvhi, 0xABCD1234U, 0, 0, 0x5678) == 0x56781234U);
}

TEST_CASE("floating-point and special-function semantics") {
    CHECK(tf(run(opcode::fadd, f(1.5f), f(2.25f))) == 3.75f);
    CHECK(tf(run(opcode::fsub, f(1.5f), f(2.25f))) == -0.75f);
    CHECK(tf(run(opcode::fmul, f(1.5f), f(-4.0f))) == -6.0f);
    // Fused: (1 + 2^-23) * (1 - 2^-23) - 1 = -2^-46 exactly; unfused rounding would give 0.
    const float e = std::ldexp(1.0f, -23);
    CHECK(tf(run(opcode::fmad, f(1 + e), f(1 - e), f(-1.0f))) == -std::ldexp(1.0f, -46));
    CHECK(tf(run(opcode::fmin, f(NAN), f(2.0f))) == 2.0f);
    CHECK(tf(run(opcode::fmax, f(-1.0f), f(2.0f))) == 2.0f);
    CHECK(run(opcode::fslt, f(-1.0f), f(2.0f)) == 1);
    CHECK(run(opcode::fslt, f(NAN), f(2.0f)) == 0);
    CHECK(run(opcode::fsgt, f(3.0f), f(2.0f)) == 1);
    CHECK(run(opcode::fneg, f(2.0f)) == f(-2.0f));
    CHECK(run(opcode::fabs, f(-2.0f)) == f(2.0f));
    CHECK(tf(run(opcode::i2f, 0xFFFFFFFDU)) == -3.0f);
    CHECK(run(opcode::f2i, f(-3.7f)) == 0xFFFFFFFDU); // toward zero
    CHECK(run(opcode::f2i, f(3e10f)) == 0x7FFFFFFFU); // saturates
    CHECK(run(opcode::f2i, f(-3e10f)) == 0x80000000U);
    CHECK(run(opcode::f2i, f(NAN)) == 0);
    CHECK(tf(run(opcode::rcp, f(4.0f))) == 0.25f);
    CHECK(tf(run(opcode::sqrt, f(9.0f))) == 3.0f);
    CHECK(tf(run(opcode::rsqrt, f(16.0f))) == 0.25f);
    CHECK(tf(run(opcode::ex2, f(3.0f))) == 8.0f);
    CHECK(tf(run(opcode::lg2, f(8.0f))) == 3.0f);
    CHECK(tf(run(opcode::sin, f(0.0f))) == 0.0f);
    CHECK(tf(run(opcode::cos, f(0.0f))) == 1.0f);
    CHECK(tf(run(opcode::sin, f(1.0f))) == doctest::Approx(0.8414709848).epsilon(1e-6));
}

TEST_CASE("every opcode either has lane semantics or is executed elsewhere") {
    for (const auto& i : all_opcodes()) {
        CAPTURE(i.mnemonic);
        instruction in;
        in.op = i.op;
        if (has_lane_semantics(i.op))
            CHECK_NOTHROW((void)evaluate(in, 1, 2, 3));
        else
            CHECK_THROWS_AS((void)evaluate(in, 1, 2, 3), warpkit::contract_error);
    }
}
