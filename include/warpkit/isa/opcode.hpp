#pragma once
/// \file
/// The warpkit instruction set: paper 004 Table 4.1 plus the documented extensions, with each
/// opcode's encoding, operand format, unit class and latency class.

#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpkit::isa {

/// Every instruction of the warpkit ISA. The first 24 are Table 4.1 of the configurable
/// GPGPU paper, bit for bit; the rest use opcodes that table leaves free.
// clang-format off
enum class opcode : std::uint8_t {
    // Table 4.1
    nop, mad, mul, add, sub, slt, sgt, shr, shl, not_, and_, or_, xor_, mv, mvi, ld, ldc, lds,
    beq, bne, st, ssy, bar, exit,
    // Extensions: integer (opcode 0 group)
    sel, sra, min, max, seq,
    // Extensions: floating point (opcode 9 group)
    fadd, fsub, fmul, fmad, fmin, fmax, fslt, fsgt, fneg, fabs, i2f, f2i,
    // Extensions: special functions (opcode 10 group)
    rcp, sqrt, sin, cos, ex2, lg2, rsqrt,
    // Extensions: upper-half immediate, global memory, atomics
    mvhi, ldg, stg, atoms, atomg,
};
// clang-format on

/// Number of opcodes.
inline constexpr std::size_t opcode_count = static_cast<std::size_t>(opcode::atomg) + 1;

/// One operand position of an instruction's text form, naming the word field it fills.
enum class operand : std::uint8_t {
    dest,   ///< destination register, field [25:21]
    src1,   ///< first source register, field [20:16]
    src2,   ///< second source register, field [15:11]
    src3,   ///< third source register, field [10:6]
    imm,    ///< immediate, field [15:0]
    target, ///< branch target (instruction index), field [15:0]
    sreg,   ///< special register number held in the src1 field
};

/// What the instruction costs in time: the execution units map these to latencies.
enum class latency_class : std::uint8_t {
    int_alu,
    int_mul,
    int_mad,
    fp_add,
    fp_mul,
    fp_mad,
    sfu,
    special_reg,
    shared_mem,
    const_mem,
    global_mem,
    atomic,
    branch,
    none,
    // Longer pipelines the PTX front end uses (GTX480: integer divide 145 cycles, single
    // divide 39, double add / multiply / fused multiply-add 8, double divide 330).
    int_div,
    fp_div,
    dp_add,
    dp_mul,
    dp_fma,
    dp_div,
    tensor, ///< a warp-wide matrix multiply-accumulate (PTX wmma.mma / mma, SASS HMMA...)
};

/// Static facts about one opcode.
struct opcode_info {
    opcode op;
    std::string_view mnemonic;
    std::uint8_t primary; ///< bits [31:26]
    std::int8_t func;     ///< bits [5:0], or -1 when the opcode has no function code
    std::array<operand, 4> operands;
    std::uint8_t operand_count;
    unit_class unit;
    latency_class latency;
    bool writes_dest; ///< has a register result
    bool extension;   ///< not in Table 4.1
};

namespace detail {
using o = operand;
using u = unit_class;
using l = latency_class;
// clang-format off
inline constexpr std::array<opcode_info, opcode_count> opcode_table = {{
    {opcode::nop, "NOP", 0, 0, {}, 0, u::ctrl, l::none, false, false},
    {opcode::mad, "MAD", 0, 1, {o::dest, o::src1, o::src2, o::src3}, 4, u::int_alu, l::int_mad, true, false},
    {opcode::mul, "MUL", 0, 2, {o::dest, o::src2, o::src3}, 3, u::int_alu, l::int_mul, true, false},
    {opcode::add, "ADD", 0, 3, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::sub, "SUB", 0, 4, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::slt, "SLT", 0, 5, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::sgt, "SGT", 0, 6, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::shr, "SHR", 0, 7, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::shl, "SHL", 0, 8, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::not_, "NOT", 0, 9, {o::dest, o::src2}, 2, u::int_alu, l::int_alu, true, false},
    {opcode::and_, "AND", 0, 10, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::or_, "OR", 0, 11, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::xor_, "XOR", 0, 12, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, false},
    {opcode::mv, "MV", 1, -1, {o::dest, o::src1}, 2, u::int_alu, l::int_alu, true, false},
    {opcode::mvi, "MVI", 2, -1, {o::dest, o::imm}, 2, u::int_alu, l::int_alu, true, false},
    {opcode::ld, "LD", 3, -1, {o::dest, o::src1}, 2, u::ldst, l::shared_mem, true, false},
    {opcode::ldc, "LDC", 4, -1, {o::dest, o::src1}, 2, u::ldst, l::const_mem, true, false},
    {opcode::lds, "LDS", 5, -1, {o::dest, o::sreg}, 2, u::int_alu, l::special_reg, true, false},
    {opcode::beq, "BEQ", 6, -1, {o::src1, o::target}, 2, u::branch, l::branch, false, false},
    {opcode::bne, "BNE", 7, -1, {o::src1, o::target}, 2, u::branch, l::branch, false, false},
    {opcode::st, "ST", 8, -1, {o::src1, o::src2}, 2, u::ldst, l::shared_mem, false, false},
    {opcode::ssy, "SSY", 61, -1, {o::target}, 1, u::branch, l::branch, false, false},
    {opcode::bar, "BAR", 62, -1, {}, 0, u::ctrl, l::none, false, false},
    {opcode::exit, "EXIT", 63, -1, {}, 0, u::ctrl, l::none, false, false},
    {opcode::sel, "SEL", 0, 13, {o::dest, o::src1, o::src2, o::src3}, 4, u::int_alu, l::int_alu, true, true},
    {opcode::sra, "SRA", 0, 14, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, true},
    {opcode::min, "MIN", 0, 15, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, true},
    {opcode::max, "MAX", 0, 16, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, true},
    {opcode::seq, "SEQ", 0, 17, {o::dest, o::src1, o::src2}, 3, u::int_alu, l::int_alu, true, true},
    {opcode::fadd, "FADD", 9, 1, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fsub, "FSUB", 9, 2, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fmul, "FMUL", 9, 3, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_mul, true, true},
    {opcode::fmad, "FMAD", 9, 4, {o::dest, o::src1, o::src2, o::src3}, 4, u::fp, l::fp_mad, true, true},
    {opcode::fmin, "FMIN", 9, 5, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fmax, "FMAX", 9, 6, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fslt, "FSLT", 9, 7, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fsgt, "FSGT", 9, 8, {o::dest, o::src1, o::src2}, 3, u::fp, l::fp_add, true, true},
    {opcode::fneg, "FNEG", 9, 9, {o::dest, o::src1}, 2, u::fp, l::fp_add, true, true},
    {opcode::fabs, "FABS", 9, 10, {o::dest, o::src1}, 2, u::fp, l::fp_add, true, true},
    {opcode::i2f, "I2F", 9, 11, {o::dest, o::src1}, 2, u::fp, l::fp_add, true, true},
    {opcode::f2i, "F2I", 9, 12, {o::dest, o::src1}, 2, u::fp, l::fp_add, true, true},
    {opcode::rcp, "RCP", 10, 1, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::sqrt, "SQRT", 10, 2, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::sin, "SIN", 10, 3, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::cos, "COS", 10, 4, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::ex2, "EX2", 10, 5, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::lg2, "LG2", 10, 6, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::rsqrt, "RSQRT", 10, 7, {o::dest, o::src1}, 2, u::sfu, l::sfu, true, true},
    {opcode::mvhi, "MVHI", 11, -1, {o::dest, o::src1, o::imm}, 3, u::int_alu, l::int_alu, true, true},
    {opcode::ldg, "LDG", 12, -1, {o::dest, o::src1}, 2, u::ldst, l::global_mem, true, true},
    {opcode::stg, "STG", 13, -1, {o::src1, o::src2}, 2, u::ldst, l::global_mem, false, true},
    {opcode::atoms, "ATOMS", 14, -1, {o::dest, o::src1, o::src2}, 3, u::ldst, l::atomic, true, true},
    {opcode::atomg, "ATOMG", 15, -1, {o::dest, o::src1, o::src2}, 3, u::ldst, l::atomic, true, true},
}};
// clang-format on

[[nodiscard]] constexpr bool table_in_enum_order() noexcept {
    for (std::size_t i = 0; i < opcode_count; ++i)
        if (static_cast<std::size_t>(opcode_table[i].op) != i) return false;
    return true;
}
static_assert(table_in_enum_order(), "opcode_table rows must follow the opcode enum");
} // namespace detail

/// Facts about `op`.
[[nodiscard]] constexpr const opcode_info& info(opcode op) noexcept {
    return detail::opcode_table[static_cast<std::size_t>(op)];
}
/// All opcodes in declaration order.
[[nodiscard]] constexpr const std::array<opcode_info, opcode_count>& all_opcodes() noexcept {
    return detail::opcode_table;
}
[[nodiscard]] constexpr std::string_view mnemonic(opcode op) noexcept {
    return info(op).mnemonic;
}
[[nodiscard]] constexpr unit_class unit_of(opcode op) noexcept {
    return info(op).unit;
}

/// The opcode with this mnemonic (case-insensitive), if any.
[[nodiscard]] constexpr std::optional<opcode> find_mnemonic(std::string_view text) noexcept {
    for (const auto& i : detail::opcode_table) {
        if (i.mnemonic.size() != text.size()) continue;
        bool same = true;
        for (std::size_t k = 0; k < text.size() && same; ++k) {
            char c = text[k];
            if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
            same = c == i.mnemonic[k];
        }
        if (same) return i.op;
    }
    return std::nullopt;
}

/// The opcode encoded by a primary opcode and function code, if any. Opcodes without a
/// function code ignore `func` (those bits are don't-care).
[[nodiscard]] constexpr std::optional<opcode> find_encoding(std::uint32_t primary,
                                                            std::uint32_t func) noexcept {
    for (const auto& i : detail::opcode_table)
        if (i.primary == primary && (i.func < 0 || static_cast<std::uint32_t>(i.func) == func))
            return i.op;
    return std::nullopt;
}

} // namespace warpkit::isa

template <>
struct warpkit::enum_names<warpkit::isa::latency_class> {
    static constexpr std::array<std::string_view, 21> names = {
        "int_alu",     "int_mul",    "int_mad",   "fp_add",     "fp_mul", "fp_mad", "sfu",
        "special_reg", "shared_mem", "const_mem", "global_mem", "atomic", "branch", "none",
        "int_div",     "fp_div",     "dp_add",    "dp_mul",     "dp_fma", "dp_div", "tensor"};
};
