#pragma once
/// \file
/// A decoded warpkit instruction and its bit-exact encoding into a 32-bit word.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/encoding.hpp>
#include <warpkit/isa/opcode.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace warpkit::isa {

/// A decoded instruction: opcode plus the fields its operands use (others are zero).
struct instruction {
    opcode op = opcode::nop;
    std::uint8_t dest = 0;
    std::uint8_t src1 = 0; ///< also the special register number of LDS
    std::uint8_t src2 = 0;
    std::uint8_t src3 = 0;
    std::uint32_t imm = 0; ///< immediate of MVI / MVHI, or branch target of BEQ / BNE / SSY

    friend constexpr bool operator==(const instruction&, const instruction&) = default;

    /// True if operand position `o` is used by this opcode.
    [[nodiscard]] constexpr bool uses(operand o) const noexcept {
        const auto& i = info(op);
        for (std::uint8_t k = 0; k < i.operand_count; ++k)
            if (i.operands[k] == o) return true;
        return false;
    }
    /// True if register field `o` (src1/src2/src3) is read as a register.
    [[nodiscard]] constexpr bool reads(operand o) const noexcept {
        return o != operand::sreg && uses(o);
    }
};

/// The word for `in`. Fields the opcode does not use (Table 4.1's x bits) are zero.
/// Throws config_error if a field does not fit its width.
[[nodiscard]] inline std::uint32_t encode(const instruction& in, const encoding_params& p = {}) {
    const auto& i = info(in.op);
    std::uint32_t w = detail::place(i.primary, p.op_shift(), p.op_width);
    if (i.func >= 0) w |= detail::place(static_cast<std::uint32_t>(i.func), 0, p.func_width);
    for (std::uint8_t k = 0; k < i.operand_count; ++k) {
        const auto put = [&](std::uint32_t v, std::uint32_t shift, std::uint32_t width,
                             const char* name) {
            if (v >> width)
                throw config_error(std::string(i.mnemonic) + "." + name, std::to_string(v),
                                   "[0, " + std::to_string((1ULL << width) - 1) + "]");
            w |= detail::place(v, shift, width);
        };
        switch (i.operands[k]) {
        case operand::dest:
            put(in.dest, p.dest_shift(), p.dest_width, "dest");
            break;
        case operand::src1:
        case operand::sreg:
            put(in.src1, p.src1_shift(), p.src_width, "src1");
            break;
        case operand::src2:
            put(in.src2, p.src2_shift(), p.src_width, "src2");
            break;
        case operand::src3:
            put(in.src3, p.src3_shift(), p.src_width, "src3");
            break;
        case operand::imm:
        case operand::target:
            put(in.imm, 0, p.imm_width, "imm");
            break;
        }
    }
    return w;
}

/// The instruction in `word`, or nothing if its opcode / function code is not defined.
/// Don't-care bits are ignored.
[[nodiscard]] inline std::optional<instruction> decode(std::uint32_t word,
                                                       const encoding_params& p = {}) noexcept {
    const auto op = find_encoding(detail::field(word, p.op_shift(), p.op_width),
                                  detail::field(word, 0, p.func_width));
    if (!op) return std::nullopt;
    instruction in;
    in.op = *op;
    const auto& i = info(*op);
    for (std::uint8_t k = 0; k < i.operand_count; ++k) {
        switch (i.operands[k]) {
        case operand::dest:
            in.dest = static_cast<std::uint8_t>(detail::field(word, p.dest_shift(), p.dest_width));
            break;
        case operand::src1:
        case operand::sreg:
            in.src1 = static_cast<std::uint8_t>(detail::field(word, p.src1_shift(), p.src_width));
            break;
        case operand::src2:
            in.src2 = static_cast<std::uint8_t>(detail::field(word, p.src2_shift(), p.src_width));
            break;
        case operand::src3:
            in.src3 = static_cast<std::uint8_t>(detail::field(word, p.src3_shift(), p.src_width));
            break;
        case operand::imm:
        case operand::target:
            in.imm = detail::field(word, 0, p.imm_width);
            break;
        }
    }
    return in;
}

} // namespace warpkit::isa
