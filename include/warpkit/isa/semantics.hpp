#pragma once
/// \file
/// Per-lane semantics of the warpkit ISA's arithmetic, logic, floating-point and
/// special-function instructions: 32-bit values in, 32-bit value out.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/opcode.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace warpkit::isa {

/// Integers wrap modulo 2^32; SLT, SGT, MIN and MAX compare as signed; SHR is logical and SRA
/// arithmetic, both shifting by the low five bits of src2 (as SHL). MVI zero-extends its
/// 16-bit immediate; MVHI keeps the low half of src1 and puts the immediate above it.
/// Floating point is IEEE-754 single precision, round to nearest even; FMAD is fused (one
/// rounding, as Fermi's FFMA); FMIN / FMAX return the other operand when one is NaN; FSLT /
/// FSGT give 1 or 0 and are false on NaN; F2I truncates toward zero, saturates, maps NaN to
/// 0. Special functions are computed in single precision by the host's C library, which is
/// at least as accurate as the hardware's approximations (2-ulp class) and deterministic.
[[nodiscard]] inline bool has_lane_semantics(opcode op) noexcept {
    const auto u = unit_of(op);
    return u == unit_class::int_alu || u == unit_class::fp || u == unit_class::sfu;
}

namespace detail {
[[nodiscard]] inline float as_float(std::uint32_t v) noexcept {
    return std::bit_cast<float>(v);
}
[[nodiscard]] inline std::uint32_t as_bits(float f) noexcept {
    return std::bit_cast<std::uint32_t>(f);
}
[[nodiscard]] inline std::int32_t as_signed(std::uint32_t v) noexcept {
    return static_cast<std::int32_t>(v);
}
[[nodiscard]] inline std::uint32_t f2i(float f) noexcept {
    if (std::isnan(f)) return 0;
    if (f >= 2147483648.0f)
        return static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());
    if (f <= -2147483648.0f) return 0x8000'0000U;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(f));
}
} // namespace detail

/// The result of `in` for one lane whose source registers hold a (src1), b (src2) and
/// c (src3); `special` is the value of the special register LDS reads. Only for opcodes
/// with has_lane_semantics(); others are a contract violation.
[[nodiscard]] inline std::uint32_t evaluate(const instruction& in, std::uint32_t a, std::uint32_t b,
                                            std::uint32_t c, std::uint32_t special = 0) {
    using detail::as_bits;
    using detail::as_float;
    using detail::as_signed;
    switch (in.op) {
    case opcode::mad:
        return a * b + c;
    case opcode::mul:
        return b * c;
    case opcode::add:
        return a + b;
    case opcode::sub:
        return a - b;
    case opcode::slt:
        return as_signed(a) < as_signed(b) ? 1U : 0U;
    case opcode::sgt:
        return as_signed(a) > as_signed(b) ? 1U : 0U;
    case opcode::shr:
        return a >> (b & 31U);
    case opcode::shl:
        return a << (b & 31U);
    case opcode::sra:
        return static_cast<std::uint32_t>(as_signed(a) >> (b & 31U));
    case opcode::not_:
        return ~b;
    case opcode::and_:
        return a & b;
    case opcode::or_:
        return a | b;
    case opcode::xor_:
        return a ^ b;
    case opcode::sel:
        return a != 0 ? b : c;
    case opcode::min:
        return as_signed(a) < as_signed(b) ? a : b;
    case opcode::max:
        return as_signed(a) > as_signed(b) ? a : b;
    case opcode::seq:
        return a == b ? 1U : 0U;
    case opcode::mv:
        return a;
    case opcode::mvi:
        return in.imm;
    case opcode::mvhi:
        return (a & 0xFFFFU) | (in.imm << 16);
    case opcode::lds:
        return special;
    case opcode::fadd:
        return as_bits(as_float(a) + as_float(b));
    case opcode::fsub:
        return as_bits(as_float(a) - as_float(b));
    case opcode::fmul:
        return as_bits(as_float(a) * as_float(b));
    case opcode::fmad:
        return as_bits(std::fma(as_float(a), as_float(b), as_float(c)));
    case opcode::fmin:
        return as_bits(std::fmin(as_float(a), as_float(b)));
    case opcode::fmax:
        return as_bits(std::fmax(as_float(a), as_float(b)));
    case opcode::fslt:
        return as_float(a) < as_float(b) ? 1U : 0U;
    case opcode::fsgt:
        return as_float(a) > as_float(b) ? 1U : 0U;
    case opcode::fneg:
        return a ^ 0x8000'0000U;
    case opcode::fabs:
        return a & 0x7FFF'FFFFU;
    case opcode::i2f:
        return as_bits(static_cast<float>(as_signed(a)));
    case opcode::f2i:
        return detail::f2i(as_float(a));
    case opcode::rcp:
        return as_bits(1.0f / as_float(a));
    case opcode::sqrt:
        return as_bits(std::sqrt(as_float(a)));
    case opcode::sin:
        return as_bits(std::sin(as_float(a)));
    case opcode::cos:
        return as_bits(std::cos(as_float(a)));
    case opcode::ex2:
        return as_bits(std::exp2(as_float(a)));
    case opcode::lg2:
        return as_bits(std::log2(as_float(a)));
    case opcode::rsqrt:
        return as_bits(1.0f / std::sqrt(as_float(a)));
    default:
        break;
    }
    throw contract_error("evaluate: " + std::string(mnemonic(in.op)) +
                         " has no per-lane arithmetic semantics");
}

} // namespace warpkit::isa
