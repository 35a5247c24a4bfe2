#pragma once
/// \file
/// An assembled kernel: launch configuration (the `.kernel` directives) plus its code.

#include <warpkit/isa/instruction.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::isa {

/// Grid or block dimensions.
struct dim3 {
    std::uint32_t x = 1;
    std::uint32_t y = 1;
    std::uint32_t z = 1;
    [[nodiscard]] constexpr std::uint64_t count() const noexcept {
        return std::uint64_t{x} * y * z;
    }
    friend constexpr bool operator==(const dim3&, const dim3&) = default;
};

/// Launch configuration and memory contents of a kernel (Table 4.3's GRID, BLOCK, PARAM,
/// CONST, DATA, WARP and REG). Zero warps / registers mean "derive from the code".
struct kernel_config {
    std::string name;
    dim3 grid;
    dim3 block;
    std::uint32_t warps_per_block = 0;
    std::uint32_t regs_per_thread = 0;
    /// Shared memory per block in bytes (`.shared`; in images the SHARED entry, beyond Table
    /// 4.3; 0 leaves the choice to the GPU).
    std::uint32_t shared_bytes = 0;
    std::vector<std::uint32_t> params;
    std::vector<std::uint32_t> consts;
    std::vector<std::uint32_t> data;
    friend bool operator==(const kernel_config&, const kernel_config&) = default;
};

/// An assembled program: words, their decoded form, source lines and labels.
struct program {
    kernel_config kernel;
    std::vector<std::uint32_t> code;
    std::vector<std::size_t> source_line; ///< 1-based line of each code word
    std::vector<std::pair<std::string, std::uint32_t>> labels;

    /// Highest register index named by any instruction, plus one (0 for no registers).
    [[nodiscard]] std::uint32_t registers_used(const encoding_params& p = {}) const {
        std::uint32_t n = 0;
        for (auto w : code) {
            const auto in = decode(w, p);
            if (!in) continue;
            const auto bump = [&](operand o, std::uint32_t r) {
                if (in->uses(o) && o != operand::sreg && r + 1 > n) n = r + 1;
            };
            bump(operand::dest, in->dest);
            bump(operand::src1, in->src1);
            bump(operand::src2, in->src2);
            bump(operand::src3, in->src3);
        }
        return n;
    }
};

} // namespace warpkit::isa
