#pragma once
/// \file
/// Opcode classes with distinct pipeline timing, and the unit class each executes on.

#include <warpkit/core/reflect.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::exec {

/// A group of opcodes sharing one latency and initiation interval on a functional unit.
enum class op_class : std::uint8_t {
    int_add, ///< integer add, logic, shift, compare, move (INT pipeline)
    int_mul, ///< integer multiply and multiply-add (INT pipeline)
    fp_add,  ///< single-precision add / compare / convert (FP pipeline)
    fp_mul,  ///< single-precision multiply (FP pipeline)
    fp_mad,  ///< single-precision fused multiply-add (FP pipeline)
    sfu,     ///< transcendental and reciprocal operations (SFU)
    ldst,    ///< address generation of loads and stores (LD/ST unit)
    int_mad, ///< integer multiply-add where it differs from multiply (INT pipeline)
    int_div, ///< integer divide and remainder (INT pipeline)
    fp_div,  ///< single-precision IEEE divide, reciprocal, square root (FP pipeline)
    dp_add,  ///< double-precision add / compare / convert (DP unit)
    dp_mul,  ///< double-precision multiply (DP unit)
    dp_fma,  ///< double-precision fused multiply-add (DP unit)
    dp_div,  ///< double-precision divide, reciprocal, square root (DP unit)
    tensor,  ///< a warp's matrix multiply-accumulate (tensor core)
};

/// Number of opcode classes.
inline constexpr std::size_t op_class_count = 15;

/// Index of an opcode class, for arrays indexed by class.
[[nodiscard]] constexpr std::size_t index(op_class o) noexcept {
    return static_cast<std::size_t>(o);
}

/// The unit class (INT, FP, SFU, LD/ST, DP, tensor) whose pipeline executes `o`. An SM
/// without DP or tensor units runs those classes on its FP pipelines
/// (execution_units::clusters_of).
[[nodiscard]] constexpr isa::unit_class unit_of(op_class o) noexcept {
    switch (o) {
    case op_class::int_add:
    case op_class::int_mul:
    case op_class::int_mad:
    case op_class::int_div:
        return isa::unit_class::int_alu;
    case op_class::fp_add:
    case op_class::fp_mul:
    case op_class::fp_mad:
    case op_class::fp_div:
        return isa::unit_class::fp;
    case op_class::dp_add:
    case op_class::dp_mul:
    case op_class::dp_fma:
    case op_class::dp_div:
        return isa::unit_class::dp;
    case op_class::tensor:
        return isa::unit_class::tensor;
    case op_class::sfu:
        return isa::unit_class::sfu;
    case op_class::ldst:
        return isa::unit_class::ldst;
    }
    return isa::unit_class::ctrl;
}

/// The opcode class of an instruction of latency class `l` on unit class `u` (latency classes
/// without a pipeline of their own take the unit's basic class).
[[nodiscard]] constexpr op_class op_class_of(isa::latency_class l, isa::unit_class u) noexcept {
    using L = isa::latency_class;
    switch (l) {
    case L::int_mul:
        return op_class::int_mul;
    case L::int_mad:
        return op_class::int_mad;
    case L::int_div:
        return op_class::int_div;
    case L::fp_add:
        return op_class::fp_add;
    case L::fp_mul:
        return op_class::fp_mul;
    case L::fp_mad:
        return op_class::fp_mad;
    case L::fp_div:
        return op_class::fp_div;
    case L::dp_add:
        return op_class::dp_add;
    case L::dp_mul:
        return op_class::dp_mul;
    case L::dp_fma:
        return op_class::dp_fma;
    case L::dp_div:
        return op_class::dp_div;
    case L::tensor:
        return op_class::tensor;
    case L::sfu:
        return op_class::sfu;
    case L::shared_mem:
    case L::const_mem:
    case L::global_mem:
    case L::atomic:
        return op_class::ldst;
    default:
        break;
    }
    switch (u) {
    case isa::unit_class::fp:
        return op_class::fp_add;
    case isa::unit_class::dp:
        return op_class::dp_add;
    case isa::unit_class::tensor:
        return op_class::tensor;
    case isa::unit_class::sfu:
        return op_class::sfu;
    case isa::unit_class::ldst:
        return op_class::ldst;
    default:
        return op_class::int_add;
    }
}

/// True for the unit classes that own a datapath (INT, FP, SFU, LD/ST, DP, tensor).
[[nodiscard]] constexpr bool has_datapath(isa::unit_class u) noexcept {
    return u == isa::unit_class::int_alu || u == isa::unit_class::fp || u == isa::unit_class::sfu ||
           u == isa::unit_class::ldst || u == isa::unit_class::dp || u == isa::unit_class::tensor;
}

} // namespace warpkit::exec

/// Names used in params files and reports.
template <>
struct warpkit::enum_names<warpkit::exec::op_class> {
    static constexpr std::array<std::string_view, 15> names = {
        "int_add", "int_mul", "fp_add", "fp_mul", "fp_mad", "sfu",    "ldst",  "int_mad",
        "int_div", "fp_div",  "dp_add", "dp_mul", "dp_fma", "dp_div", "tensor"};
};
