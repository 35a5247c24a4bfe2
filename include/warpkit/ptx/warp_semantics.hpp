#pragma once
/// \file
/// Whole-warp evaluation of the most frequent ALU instructions, the fast path of PTX
/// execution: one tight loop over the active lanes per instruction instead of a call of
/// `evaluate` per lane. It is the same arithmetic as `evaluate` (ptx/semantics.hpp), which
/// every instruction outside the fast set, and every one with `.sat`, `.ftz` or a directed
/// rounding, goes through; tests/ptx check the two agree lane for lane on every fast opcode.

#include <warpkit/ptx/float_ops.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace warpkit::ptx {

namespace detail {
/// An f32 result as register bits, NaN canonical.
[[nodiscard]] inline std::uint64_t f32_result(float f) noexcept {
    return f != f ? f32_canonical_nan : bits_of(f);
}
} // namespace detail

/// Evaluates `in` for a whole warp, if it is one of the fast set: mov, add, sub, mul, mad
/// (integer, any mode but `.hi`; f32 add and mul rounding to nearest), fma.rn.f32, and, or,
/// xor, not, shl, shr, selp, setp without a boolean combine, and integer-to-integer cvt.
/// `a`, `b` and `c` are the source operands, anything with `at(lane)` giving a lane's raw
/// bits. `store(f)` is called once with a function of the lane that gives the lane's result
/// (of type result_type(in), not yet cut to it); the caller applies it to its active lanes and
/// writes the destination. Returns false, calling nothing, for any other instruction (and for
/// any with `.sat` or `.ftz`): those go through evaluate() lane by lane. The caller keeps
/// instructions with carries or a second destination out of here.
template <class Operand, class Store>
[[nodiscard]] bool evaluate_warp(const instruction& in, const Operand& a, const Operand& b,
                                 const Operand& c, Store&& store) {
    if (in.sat || in.ftz) return false;
    const type t = in.t;
    const bool fl = is_float(t);
    const bool nearest = in.rnd == rounding::none || in.rnd == rounding::rn;
    switch (in.opcode) {
    case op::mov:
        store([&](std::size_t l) { return a.at(l); });
        return true;
    case op::add:
        if (fl) {
            if (t != type::f32 || !nearest) return false;
            store([&](std::size_t l) {
                return detail::f32_result(to_f32(a.at(l)) + to_f32(b.at(l)));
            });
        } else {
            store([&](std::size_t l) { return a.at(l) + b.at(l); });
        }
        return true;
    case op::sub:
        if (fl) return false;
        store([&](std::size_t l) { return a.at(l) - b.at(l); });
        return true;
    case op::mul:
    case op::mad: {
        const bool mad = in.opcode == op::mad;
        if (fl) {
            if (t != type::f32 || !nearest || mad) return false;
            store([&](std::size_t l) {
                return detail::f32_result(to_f32(a.at(l)) * to_f32(b.at(l)));
            });
            return true;
        }
        if (in.mode == mul_mode::hi) return false;
        if (in.mode == mul_mode::wide) {
            if (is_signed(t))
                store([&](std::size_t l) {
                    return static_cast<std::uint64_t>(as_signed(t, a.at(l)) *
                                                      as_signed(t, b.at(l))) +
                           (mad ? c.at(l) : 0);
                });
            else
                store([&](std::size_t l) {
                    return truncate(t, a.at(l)) * truncate(t, b.at(l)) + (mad ? c.at(l) : 0);
                });
            return true;
        }
        store([&](std::size_t l) { return a.at(l) * b.at(l) + (mad ? c.at(l) : 0); });
        return true;
    }
    case op::fma:
        if (t != type::f32 || !nearest) return false;
        store([&](std::size_t l) {
            return detail::f32_result(std::fma(to_f32(a.at(l)), to_f32(b.at(l)), to_f32(c.at(l))));
        });
        return true;
    case op::and_:
        store([&](std::size_t l) { return a.at(l) & b.at(l); });
        return true;
    case op::or_:
        store([&](std::size_t l) { return a.at(l) | b.at(l); });
        return true;
    case op::xor_:
        store([&](std::size_t l) { return a.at(l) ^ b.at(l); });
        return true;
    case op::not_:
        store([&](std::size_t l) { return ~a.at(l); });
        return true;
    case op::shl:
        store([&](std::size_t l) { return shl(t, a.at(l), b.at(l)); });
        return true;
    case op::shr:
        store([&](std::size_t l) { return shr(t, a.at(l), b.at(l)); });
        return true;
    case op::selp:
        store([&](std::size_t l) { return (c.at(l) & 1U) != 0 ? a.at(l) : b.at(l); });
        return true;
    case op::setp: {
        if (in.combine != bool_op::none) return false;
        const cmp cm = in.compare;
        store([&](std::size_t l) -> std::uint64_t {
            return compare(cm, t, false, a.at(l), b.at(l)) ? 1 : 0;
        });
        return true;
    }
    case op::cvt:
        if (fl || is_float(in.t2) || in.t2 == type::pred || t == type::pred) return false;
        store([&](std::size_t l) { return extend(in.t2, a.at(l)); });
        return true;
    default:
        return false;
    }
}

} // namespace warpkit::ptx
