#pragma once
/// \file
/// Per-lane semantics of PTX instructions on raw register bits. A value of type `t` lives in
/// the low `bits(t)` bits of a 64-bit word (f16 in the low 16, f32 in the low 32, a
/// predicate in bit 0); results come back the same way, zero above the type's width.
///
/// Definitions where PTX leaves a choice (each matches what NVIDIA hardware does):
/// - Integer division by zero: the quotient is all ones (unsigned: the type's maximum; signed:
///   -1), the remainder is the dividend. The most negative value divided by -1 wraps to
///   itself with remainder 0.
/// - Float NaN results of f32 arithmetic are the canonical NaN 0x7fffffff; f16 0x7fff.
/// - Rounding: `.rn` (and no modifier) rounds to nearest even, `.rz .rm .rp` towards zero,
///   minus and plus infinity, computed exactly by the host FPU in that rounding mode
///   (std::fesetround around volatile operands, so no constant folding can move the
///   operation out of the mode). f16 results round once, from an exact double.
/// - `.ftz` (f32 only) flushes subnormal inputs and results to zero of the same sign; `.sat`
///   clamps a float result to [0, 1] with NaN -> +0.
/// - `.approx` special functions (rcp sqrt rsqrt sin cos lg2 ex2 tanh, div.approx) are
///   computed in float by the C++ standard library (std::sin, std::exp2, ...): the same
///   value class as the hardware's approximation, not its exact bits. `div.full.f32` is
///   computed correctly rounded, within the 2 ulp PTX allows it.
/// - cvt float -> integer always saturates (NaN -> 0, out of range -> the type's minimum or
///   maximum), as PTX specifies for sm_20 and later.

#include <warpkit/ptx/float_ops.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/ir.hpp>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace warpkit::ptx {

// --- comparison, selection ---------------------------------------------------------------

/// a `c` b for type t (integers signed per type, `.lo .ls .hi .hs` unsigned; floats with
/// `.ftz` for f32; ordered comparisons are false and unordered ones true on NaN).
[[nodiscard]] inline bool compare(cmp c, type t, bool ftz, std::uint64_t a,
                                  std::uint64_t b) noexcept {
    if (is_float(t)) {
        const double x = fp_value(t, a, ftz), y = fp_value(t, b, ftz);
        const bool nan = std::isnan(x) || std::isnan(y);
        switch (c) {
        case cmp::eq:
            return !nan && x == y;
        case cmp::ne:
            return !nan && x != y;
        case cmp::lt:
            return !nan && x < y;
        case cmp::le:
            return !nan && x <= y;
        case cmp::gt:
            return !nan && x > y;
        case cmp::ge:
            return !nan && x >= y;
        case cmp::equ:
            return nan || x == y;
        case cmp::neu:
            return nan || x != y;
        case cmp::ltu:
            return nan || x < y;
        case cmp::leu:
            return nan || x <= y;
        case cmp::gtu:
            return nan || x > y;
        case cmp::geu:
            return nan || x >= y;
        case cmp::num:
            return !nan;
        case cmp::nan:
            return nan;
        default:
            return false;
        }
    }
    const std::uint64_t ua = truncate(t, a), ub = truncate(t, b);
    const std::int64_t sa = as_signed(t, a), sb = as_signed(t, b);
    const bool s = is_signed(t);
    switch (c) {
    case cmp::eq:
        return ua == ub;
    case cmp::ne:
        return ua != ub;
    case cmp::lt:
        return s ? sa < sb : ua < ub;
    case cmp::le:
        return s ? sa <= sb : ua <= ub;
    case cmp::gt:
        return s ? sa > sb : ua > ub;
    case cmp::ge:
        return s ? sa >= sb : ua >= ub;
    case cmp::lo:
        return ua < ub;
    case cmp::ls:
        return ua <= ub;
    case cmp::hi:
        return ua > ub;
    case cmp::hs:
        return ua >= ub;
    default:
        return false;
    }
}

/// p `op` q for the .and / .or / .xor forms of setp / set (none: p).
[[nodiscard]] constexpr bool combine(bool_op op, bool p, bool q) noexcept {
    switch (op) {
    case bool_op::and_:
        return p && q;
    case bool_op::or_:
        return p || q;
    case bool_op::xor_:
        return p != q;
    default:
        return p;
    }
}

// --- conversion --------------------------------------------------------------------------

/// cvt: `a` of type `from` converted to type `to` with rounding `r` (integer rounding
/// `.rni .rzi .rmi .rpi` for float -> integer and float -> same-size float; `.rn .rz .rm .rp`
/// for int -> float and narrowing float -> float), `.ftz` (f32 source or destination) and
/// `.sat` (integer destination: clamp to its range; float destination: clamp to [0, 1]).
[[nodiscard]] inline std::uint64_t convert(type to, type from, rounding r, bool ftz, bool sat,
                                           std::uint64_t a) {
    if (to == type::pred || from == type::pred) return truncate(to, a != 0 ? 1 : 0);
    if (!is_float(from) && !is_float(to)) {
        if (sat) return detail::sem::clamp_signed(to, detail::sem::wide(from, a));
        return truncate(to, extend(from, a));
    }
    if (!is_float(to)) {
        // float -> integer: round to integral, then saturate (NaN -> 0).
        double v = fp_value(from, a, ftz && from == type::f32);
        if (std::isnan(v)) return 0;
        switch (r) {
        case rounding::rmi:
        case rounding::rm:
            v = std::floor(v);
            break;
        case rounding::rpi:
        case rounding::rp:
            v = std::ceil(v);
            break;
        case rounding::rni:
        case rounding::rn:
            v = std::nearbyint(v); // the default environment rounds to nearest even
            break;
        default:
            v = std::trunc(v);
            break;
        }
        const auto lo = static_cast<double>(int_min(to));
        const auto hi_plus_one =
            std::ldexp(1.0, static_cast<int>(bits(to)) - (is_signed(to) ? 1 : 0));
        if (v < lo) return truncate(to, static_cast<std::uint64_t>(int_min(to)));
        if (v >= hi_plus_one) return int_max(to);
        if (is_signed(to))
            return truncate(to, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
        return truncate(to, static_cast<std::uint64_t>(v));
    }
    const bool integral =
        r == rounding::rni || r == rounding::rzi || r == rounding::rmi || r == rounding::rpi;
    const rounding fr = integral ? rounding::rn : r;
    if (!is_float(from)) {
        // integer -> float
        if (to == type::f16) {
            const double v = is_signed(from) ? static_cast<double>(as_signed(from, a))
                                             : static_cast<double>(truncate(from, a));
            return detail::sem::finish16(v, fr, sat); // exact in double below 2^53, overflow above
        }
        if (to == type::f64) {
            const double v = is_signed(from) ? detail::sem::convert<double>(as_signed(from, a), fr)
                                             : detail::sem::convert<double>(truncate(from, a), fr);
            return detail::sem::finish64(v, sat);
        }
        const float v = is_signed(from) ? detail::sem::convert<float>(as_signed(from, a), fr)
                                        : detail::sem::convert<float>(truncate(from, a), fr);
        return detail::sem::finish32(v, ftz, sat);
    }
    // float -> float
    const bool ftz_in = ftz && from == type::f32;
    if (integral) {
        double v = fp_value(from, a, ftz_in);
        switch (r) {
        case rounding::rmi:
            v = std::floor(v);
            break;
        case rounding::rpi:
            v = std::ceil(v);
            break;
        case rounding::rzi:
            v = std::trunc(v);
            break;
        default:
            v = std::nearbyint(v);
            break;
        }
        if (to == type::f64) return detail::sem::finish64(v, sat);
        if (to == type::f16) return detail::sem::finish16(v, rounding::rn, sat);
        return detail::sem::finish32(static_cast<float>(v), ftz, sat); // integral: exact
    }
    if (to == type::f16) return detail::sem::finish16(fp_value(from, a, ftz_in), fr, sat);
    if (to == type::f64) return detail::sem::finish64(fp_value(from, a, ftz_in), sat);
    if (from == type::f64)
        return detail::sem::finish32(detail::sem::convert<float>(to_f64(a), fr), ftz, sat);
    return detail::sem::finish32(static_cast<float>(fp_value(from, a, ftz_in)), ftz, sat);
}

// --- whole instructions ------------------------------------------------------------------

/// What one lane of an ALU instruction produced: the destination value, a second
/// destination (setp's `q`, shfl's predicate), and the carry flag (`.cc`).
struct lane_result {
    std::uint64_t value = 0;
    std::uint64_t value2 = 0;
    bool carry = false;
};

namespace detail::sem {

/// add, sub (with carries), mul, mad, mul24, mad24, fma, div, rem, abs, neg, min, max, sad: false
/// for any other instruction.
[[nodiscard]] inline bool evaluate_arithmetic(const instruction& in, std::uint64_t a,
                                              std::uint64_t b, std::uint64_t c, bool carry,
                                              lane_result& out) {
    const type t = in.t;
    const bool fl = is_float(t);
    switch (in.opcode) {
    case op::mov:
        out.value = truncate(t, a);
        break;
    case op::add:
    case op::addc:
        if (fl) {
            out.value = fp_binary(fp_binary_op::add, t, in.rnd, in.ftz, in.sat, a, b);
        } else {
            const std::uint64_t cin = in.opcode == op::addc && carry ? 1 : 0;
            const uint128 sum = static_cast<uint128>(truncate(t, a)) + truncate(t, b) + cin;
            out.value = in.sat && cin == 0 ? int_add(t, a, b, true)
                                           : truncate(t, static_cast<std::uint64_t>(sum));
            out.carry = ((sum >> bits(t)) & 1U) != 0;
        }
        break;
    case op::sub:
    case op::subc:
        if (fl) {
            out.value = fp_binary(fp_binary_op::sub, t, in.rnd, in.ftz, in.sat, a, b);
        } else {
            const std::uint64_t bin = in.opcode == op::subc && carry ? 1 : 0;
            out.value = in.sat && bin == 0 ? int_sub(t, a, b, true) : truncate(t, a - b - bin);
            out.carry = static_cast<uint128>(truncate(t, a)) <
                        static_cast<uint128>(truncate(t, b)) + bin; // borrow
        }
        break;
    case op::mul:
        out.value = fl ? fp_binary(fp_binary_op::mul, t, in.rnd, in.ftz, in.sat, a, b)
                       : int_mul(t, in.mode, a, b);
        break;
    case op::mad:
    case op::madc:
        if (fl) {
            out.value = fp_fma(t, in.rnd, in.ftz, in.sat, a, b, c);
        } else {
            const unsigned n = in.mode == mul_mode::wide ? 2 * bits(t) : bits(t);
            const std::uint64_t part = int_mul(t, in.mode, a, b);
            const std::uint64_t cin = in.opcode == op::madc && carry ? 1 : 0;
            if (cin == 0 && in.sat) {
                out.value = int_mad(t, in.mode, a, b, c, true);
            } else {
                const uint128 sum = static_cast<uint128>(part) + (c & low_mask(n)) + cin;
                out.value = static_cast<std::uint64_t>(sum) & low_mask(n);
                out.carry = ((sum >> n) & 1U) != 0;
            }
        }
        break;
    case op::mul24:
        out.value = int_mul24(t, in.mode, a, b);
        break;
    case op::mad24:
        out.value = truncate(t, int_mul24(t, in.mode, a, b) + c);
        break;
    case op::fma:
        out.value = fp_fma(t, in.rnd, in.ftz, in.sat, a, b, c);
        break;
    case op::div:
        if (!fl) {
            out.value = int_div(t, a, b);
        } else if (in.approx && t == type::f32) {
            // a * (1/b), as the hardware's approximate divide computes it.
            const float x = detail::sem::in32(a, in.ftz), y = detail::sem::in32(b, in.ftz);
            out.value = detail::sem::finish32(x * (1.0f / y), in.ftz, false);
        } else {
            const rounding r = in.rnd == rounding::none ? rounding::rn : in.rnd;
            out.value = fp_binary(fp_binary_op::div, t, r, in.ftz, in.sat, a, b);
        }
        break;
    case op::rem:
        out.value = int_rem(t, a, b);
        break;
    case op::abs:
        out.value = fl ? fp_abs(t, in.ftz, a) : int_abs(t, a);
        break;
    case op::neg:
        out.value = fl ? fp_neg(t, in.ftz, a) : int_neg(t, a);
        break;
    case op::min:
        out.value = fl ? fp_binary(fp_binary_op::min, t, rounding::rn, in.ftz, false, a, b)
                       : int_min(t, a, b);
        break;
    case op::max:
        out.value = fl ? fp_binary(fp_binary_op::max, t, rounding::rn, in.ftz, false, a, b)
                       : int_max(t, a, b);
        break;
    case op::sad:
        out.value = int_sad(t, a, b, c);
        break;
    default:
        return false;
    }
    return true;
}

/// popc, clz, bfind, brev, bfe, bfi, prmt, and, or, xor, not, cnot, lop3, shl, shr, shf: false for
/// any other instruction.
[[nodiscard]] inline bool evaluate_bits(const instruction& in, std::uint64_t a, std::uint64_t b,
                                        std::uint64_t c, std::uint64_t d, lane_result& out) {
    const type t = in.t;
    switch (in.opcode) {
    case op::popc:
        out.value = popc(t, a);
        break;
    case op::clz:
        out.value = clz(t, a);
        break;
    case op::bfind:
        out.value = bfind(t, a, in.shiftamt);
        break;
    case op::brev:
        out.value = brev(t, a);
        break;
    case op::bfe:
        out.value = bfe(t, a, b, c);
        break;
    case op::bfi:
        out.value = bfi(t, a, b, c, d);
        break;
    case op::prmt:
        out.value = prmt(a, b, c, in.perm);
        break;
    case op::and_:
        out.value = truncate(t, a & b);
        break;
    case op::or_:
        out.value = truncate(t, a | b);
        break;
    case op::xor_:
        out.value = truncate(t, a ^ b);
        break;
    case op::not_:
        out.value = truncate(t, ~a);
        break;
    case op::cnot:
        out.value = truncate(t, a) == 0 ? 1 : 0;
        break;
    case op::lop3:
        out.value = lop3(t, a, b, c, d);
        break;
    case op::shl:
        out.value = shl(t, a, b);
        break;
    case op::shr:
        out.value = shr(t, a, b);
        break;
    case op::shf:
        out.value = shf(in.shift_left, in.wrap, a, b, c);
        break;
    default:
        return false;
    }
    return true;
}

/// setp, set, selp, slct, testp, copysign, cvt: false for any other instruction.
[[nodiscard]] inline bool evaluate_compare(const instruction& in, std::uint64_t a, std::uint64_t b,
                                           std::uint64_t c, lane_result& out) {
    const type t = in.t;
    switch (in.opcode) {
    case op::setp: {
        const bool r = compare(in.compare, t, in.ftz, a, b);
        const bool p = (c & 1U) != 0;
        out.value = combine(in.combine, r, p) ? 1 : 0;
        out.value2 = combine(in.combine, !r, p) ? 1 : 0;
        break;
    }
    case op::set: {
        const type st = in.t2 == type::none ? t : in.t2;
        const bool r = combine(in.combine, compare(in.compare, st, in.ftz, a, b), (c & 1U) != 0);
        if (t == type::f32)
            out.value = r ? bits_of(1.0f) : 0;
        else
            out.value = r ? low_mask(bits(t)) : 0;
        break;
    }
    case op::selp:
        out.value = (c & 1U) ? truncate(t, a) : truncate(t, b);
        break;
    case op::slct: {
        const type st = in.t2 == type::none ? type::s32 : in.t2;
        const bool ge = st == type::f32 ? fp_value(st, c, in.ftz) >= 0.0 : as_signed(st, c) >= 0;
        out.value = ge ? truncate(t, a) : truncate(t, b);
        break;
    }
    case op::testp:
        out.value = fp_test(in.test, t, a) ? 1 : 0;
        break;
    case op::copysign:
        out.value = fp_copysign(t, a, b);
        break;
    case op::cvt:
        out.value = convert(t, in.t2, in.rnd, in.ftz, in.sat, a);
        break;
    default:
        return false;
    }
    return true;
}

/// rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh: false for any other instruction.
[[nodiscard]] inline bool evaluate_special(const instruction& in, std::uint64_t a,
                                           lane_result& out) {
    const type t = in.t;
    switch (in.opcode) {
    case op::rcp:
        out.value = fp_unary(fp_unary_op::rcp, t, in.approx ? rounding::rn : in.rnd, in.ftz, a);
        break;
    case op::sqrt:
        out.value = fp_unary(fp_unary_op::sqrt, t, in.approx ? rounding::rn : in.rnd, in.ftz, a);
        break;
    case op::rsqrt:
        out.value = fp_unary(fp_unary_op::rsqrt, t, rounding::rn, in.ftz, a);
        break;
    case op::sin:
        out.value = fp_unary(fp_unary_op::sin, t, rounding::rn, in.ftz, a);
        break;
    case op::cos:
        out.value = fp_unary(fp_unary_op::cos, t, rounding::rn, in.ftz, a);
        break;
    case op::lg2:
        out.value = fp_unary(fp_unary_op::lg2, t, rounding::rn, in.ftz, a);
        break;
    case op::ex2:
        out.value = fp_unary(fp_unary_op::ex2, t, rounding::rn, in.ftz, a);
        break;
    case op::tanh:
        out.value = fp_unary(fp_unary_op::tanh, t, rounding::rn, in.ftz, a);
        break;
    default:
        return false;
    }
    return true;
}

} // namespace detail::sem

/// One lane of an arithmetic, logic, comparison, selection, conversion or special-function
/// instruction: `src` holds the source operands in the order written (destinations left
/// out), each as read (predicate negation applied); `carry` is the lane's CC.CF. Returns the
/// destination bits of the instruction type (`.wide`: twice its width; setp: predicates).
/// Instructions that are not per-lane ALU work (memory, control, warp-level) give {}.
[[nodiscard]] inline lane_result evaluate(const instruction& in, std::span<const std::uint64_t> src,
                                          bool carry = false) {
    const auto s = [&](std::size_t i) { return i < src.size() ? src[i] : std::uint64_t{0}; };
    const std::uint64_t a = s(0), b = s(1), c = s(2), d = s(3);
    lane_result out;
    if (detail::sem::evaluate_arithmetic(in, a, b, c, carry, out) ||
        detail::sem::evaluate_bits(in, a, b, c, d, out) ||
        detail::sem::evaluate_compare(in, a, b, c, out))
        return out;
    (void)detail::sem::evaluate_special(in, a, out);
    return out;
}

/// The type of an ALU instruction's (first) result: a predicate for setp / testp, u32 for
/// popc / clz / bfind, the doubled width of `mul.wide` / `mad.wide`, else the instruction type.
[[nodiscard]] constexpr type result_type(const instruction& in) noexcept {
    switch (in.opcode) {
    case op::setp:
    case op::testp:
        return type::pred;
    case op::popc:
    case op::clz:
    case op::bfind:
        return type::u32;
    case op::mul:
    case op::mad:
        if (in.mode == mul_mode::wide) {
            switch (in.t) {
            case type::s16:
                return type::s32;
            case type::u16:
                return type::u32;
            case type::s32:
                return type::s64;
            default:
                return type::u64;
            }
        }
        return in.t;
    default:
        return in.t;
    }
}

/// The value an atomic read-modify-write leaves in memory: `old` combined with operand `b`
/// (and `c`, the new value of `atom.cas`) by the instruction's operation.
[[nodiscard]] inline std::uint64_t atomic_result(const instruction& in, std::uint64_t old,
                                                 std::uint64_t b, std::uint64_t c) {
    const type t = in.t;
    switch (in.aop) {
    case atom_op::add:
        if (t == type::f32) // atom.add.f32 flushes subnormals, rounds to nearest
            return fp_binary(fp_binary_op::add, t, rounding::rn, true, false, old, b);
        if (is_float(t)) return fp_binary(fp_binary_op::add, t, rounding::rn, false, false, old, b);
        return int_add(t, old, b);
    case atom_op::min:
        if (is_float(t)) return fp_binary(fp_binary_op::min, t, rounding::rn, false, false, old, b);
        return int_min(t, old, b);
    case atom_op::max:
        if (is_float(t)) return fp_binary(fp_binary_op::max, t, rounding::rn, false, false, old, b);
        return int_max(t, old, b);
    case atom_op::inc:
        return truncate(t, old) >= truncate(t, b) ? 0 : truncate(t, old + 1);
    case atom_op::dec:
        return (truncate(t, old) == 0 || truncate(t, old) > truncate(t, b)) ? truncate(t, b)
                                                                            : truncate(t, old - 1);
    case atom_op::exch:
        return truncate(t, b);
    case atom_op::cas:
        return truncate(t, old) == truncate(t, b) ? truncate(t, c) : old;
    case atom_op::and_:
        return truncate(t, old & b);
    case atom_op::or_:
        return truncate(t, old | b);
    case atom_op::xor_:
        return truncate(t, old ^ b);
    default:
        return old;
    }
}

} // namespace warpkit::ptx
