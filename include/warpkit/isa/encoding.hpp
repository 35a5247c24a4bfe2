#pragma once
/// \file
/// Field layout of a 32-bit warpkit instruction word (configurable GPGPU, Tables 4.1 and 4.2).

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <cstdint>

namespace warpkit::isa {

/// Field widths of the instruction word (Table 4.2: OP_WIDTH, DEST_WIDTH, SRC_WIDTH,
/// FUNC_WIDTH, IMM_WIDTH). Fields are packed from the most significant bit down: opcode,
/// dest, src1, src2, src3; func and the immediate / branch target sit in the low bits.
/// The defaults give Table 4.1's layout: opcode [31:26], dest [25:21], src1 [20:16],
/// src2 [15:11], src3 [10:6], func [5:0], immediate [15:0].
struct encoding_params {
    std::uint32_t op_width = 6;
    std::uint32_t dest_width = 5;
    std::uint32_t src_width = 5;
    std::uint32_t func_width = 6;
    std::uint32_t imm_width = 16;

    void validate() const {
        check_range("op_width", op_width, 6U, 6U); // the opcode map below needs six bits
        check_range("dest_width", dest_width, 1U, 8U);
        check_range("src_width", src_width, 1U, 8U);
        check_range("func_width", func_width, 6U, 6U);
        check_range("imm_width", imm_width, 1U, 24U);
        check(op_width + dest_width + 3 * src_width + func_width <= 32, "src_width", src_width,
              "op_width + dest_width + 3 * src_width + func_width <= 32");
        check(op_width + dest_width + src_width + imm_width <= 32, "imm_width", imm_width,
              "op_width + dest_width + src_width + imm_width <= 32");
    }
    WARPKIT_FIELDS(encoding_params, op_width, dest_width, src_width, func_width, imm_width)

    [[nodiscard]] constexpr std::uint32_t op_shift() const noexcept { return 32 - op_width; }
    [[nodiscard]] constexpr std::uint32_t dest_shift() const noexcept {
        return op_shift() - dest_width;
    }
    [[nodiscard]] constexpr std::uint32_t src1_shift() const noexcept {
        return dest_shift() - src_width;
    }
    [[nodiscard]] constexpr std::uint32_t src2_shift() const noexcept {
        return src1_shift() - src_width;
    }
    [[nodiscard]] constexpr std::uint32_t src3_shift() const noexcept {
        return src2_shift() - src_width;
    }
    /// Registers addressable by a destination field.
    [[nodiscard]] constexpr std::uint32_t dest_regs() const noexcept { return 1U << dest_width; }
    /// Registers addressable by a source field.
    [[nodiscard]] constexpr std::uint32_t src_regs() const noexcept { return 1U << src_width; }
    /// Largest immediate / branch target.
    [[nodiscard]] constexpr std::uint32_t imm_max() const noexcept {
        return static_cast<std::uint32_t>((std::uint64_t{1} << imm_width) - 1);
    }
};

namespace detail {
[[nodiscard]] constexpr std::uint32_t field(std::uint32_t word, std::uint32_t shift,
                                            std::uint32_t width) noexcept {
    return (word >> shift) & static_cast<std::uint32_t>((std::uint64_t{1} << width) - 1);
}
[[nodiscard]] constexpr std::uint32_t place(std::uint32_t value, std::uint32_t shift,
                                            std::uint32_t width) noexcept {
    return (value & static_cast<std::uint32_t>((std::uint64_t{1} << width) - 1)) << shift;
}
} // namespace detail

} // namespace warpkit::isa
