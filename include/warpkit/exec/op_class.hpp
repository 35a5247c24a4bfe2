#pragma once
/// \file
/// Opcode classes with distinct pipeline timing, and the unit class each executes on.

#include <warpkit/core/reflect.hpp>
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
};

/// Number of opcode classes.
inline constexpr std::size_t op_class_count = 7;

/// Index of an opcode class, for arrays indexed by class.
[[nodiscard]] constexpr std::size_t index(op_class o) noexcept {
    return static_cast<std::size_t>(o);
}

/// The unit class (INT, FP, SFU, LD/ST) whose pipeline executes `o`.
[[nodiscard]] constexpr isa::unit_class unit_of(op_class o) noexcept {
    switch (o) {
    case op_class::int_add:
    case op_class::int_mul:
        return isa::unit_class::int_alu;
    case op_class::fp_add:
    case op_class::fp_mul:
    case op_class::fp_mad:
        return isa::unit_class::fp;
    case op_class::sfu:
        return isa::unit_class::sfu;
    case op_class::ldst:
        return isa::unit_class::ldst;
    }
    return isa::unit_class::ctrl;
}

/// True for the unit classes that own a datapath (INT, FP, SFU, LD/ST).
[[nodiscard]] constexpr bool has_datapath(isa::unit_class u) noexcept {
    return u == isa::unit_class::int_alu || u == isa::unit_class::fp || u == isa::unit_class::sfu ||
           u == isa::unit_class::ldst;
}

} // namespace warpkit::exec

/// Names used in params files and reports.
template <>
struct warpkit::enum_names<warpkit::exec::op_class> {
    static constexpr std::array<std::string_view, 7> names = {
        "int_add", "int_mul", "fp_add", "fp_mul", "fp_mad", "sfu", "ldst"};
};
