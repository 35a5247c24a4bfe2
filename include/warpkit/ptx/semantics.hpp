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

#include <warpkit/ptx/ir.hpp>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace warpkit::ptx {

__extension__ using int128 = __int128;           ///< exact products and sums
__extension__ using uint128 = unsigned __int128; ///< exact products and sums

// --- bits and integers -------------------------------------------------------------------

/// All ones in the low `n` bits (n <= 64).
[[nodiscard]] constexpr std::uint64_t low_mask(unsigned n) noexcept {
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}
/// The low bits(t) bits of `v`.
[[nodiscard]] constexpr std::uint64_t truncate(type t, std::uint64_t v) noexcept {
    return v & low_mask(bits(t));
}
/// The low bits(t) bits of `v` as a signed value.
[[nodiscard]] constexpr std::int64_t as_signed(type t, std::uint64_t v) noexcept {
    const unsigned n = bits(t);
    if (n == 0 || n >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t m = std::uint64_t{1} << (n - 1);
    const std::uint64_t x = v & low_mask(n);
    return static_cast<std::int64_t>((x ^ m) - m);
}
/// `v` of type `t` widened to 64 bits: sign-extended for .sN, zero-extended otherwise.
[[nodiscard]] constexpr std::uint64_t extend(type t, std::uint64_t v) noexcept {
    return is_signed(t) ? static_cast<std::uint64_t>(as_signed(t, v)) : truncate(t, v);
}
/// The smallest and largest value of integer type `t`, as signed / unsigned 64-bit values.
[[nodiscard]] constexpr std::int64_t int_min(type t) noexcept {
    return is_signed(t) ? -static_cast<std::int64_t>(low_mask(bits(t) - 1)) - 1 : 0;
}
[[nodiscard]] constexpr std::uint64_t int_max(type t) noexcept {
    return is_signed(t) ? low_mask(bits(t) - 1) : low_mask(bits(t));
}

namespace detail::sem {
[[nodiscard]] constexpr bool is_pred(type t) noexcept {
    return t == type::pred;
}
// An exact value clamped to the range of integer type t.
[[nodiscard]] constexpr std::uint64_t clamp_signed(type t, int128 v) noexcept {
    const int128 lo = is_signed(t) ? int_min(t) : 0;
    const int128 hi = static_cast<int128>(int_max(t));
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return truncate(t, static_cast<std::uint64_t>(v));
}
[[nodiscard]] constexpr int128 wide(type t, std::uint64_t v) noexcept {
    return is_signed(t) ? static_cast<int128>(as_signed(t, v))
                        : static_cast<int128>(truncate(t, v));
}
} // namespace detail::sem

/// add: wraps at the type's width; `.sat` (s32) clamps to the type's range.
[[nodiscard]] constexpr std::uint64_t int_add(type t, std::uint64_t a, std::uint64_t b,
                                              bool sat = false) noexcept {
    if (sat) return detail::sem::clamp_signed(t, detail::sem::wide(t, a) + detail::sem::wide(t, b));
    return truncate(t, a + b);
}
/// sub: wraps at the type's width; `.sat` (s32) clamps to the type's range.
[[nodiscard]] constexpr std::uint64_t int_sub(type t, std::uint64_t a, std::uint64_t b,
                                              bool sat = false) noexcept {
    if (sat) return detail::sem::clamp_signed(t, detail::sem::wide(t, a) - detail::sem::wide(t, b));
    return truncate(t, a - b);
}

/// The full product of a and b (type t) as a 128-bit two's-complement value.
[[nodiscard]] constexpr uint128 int_product(type t, std::uint64_t a, std::uint64_t b) noexcept {
    if (is_signed(t))
        return static_cast<uint128>(static_cast<int128>(as_signed(t, a)) *
                                    static_cast<int128>(as_signed(t, b)));
    return static_cast<uint128>(truncate(t, a)) * truncate(t, b);
}
/// mul: `.lo` (and none) the low half of the product, `.hi` the high half, `.wide` the
/// whole product (2 x width, the result type's width).
[[nodiscard]] constexpr std::uint64_t int_mul(type t, mul_mode m, std::uint64_t a,
                                              std::uint64_t b) noexcept {
    const unsigned n = bits(t);
    const uint128 p = int_product(t, a, b);
    switch (m) {
    case mul_mode::hi:
        return static_cast<std::uint64_t>(p >> n) & low_mask(n);
    case mul_mode::wide:
        return static_cast<std::uint64_t>(p) & low_mask(2 * n);
    default:
        return static_cast<std::uint64_t>(p) & low_mask(n);
    }
}
/// mad: the selected part of a * b plus c (c has the result's width: 2 x width for .wide).
/// `.sat` (mad.hi.sat.s32) clamps the sum to the s32 range.
[[nodiscard]] constexpr std::uint64_t int_mad(type t, mul_mode m, std::uint64_t a, std::uint64_t b,
                                              std::uint64_t c, bool sat = false) noexcept {
    const unsigned n = bits(t);
    const std::uint64_t part = int_mul(t, m, a, b);
    if (m == mul_mode::wide) return (part + c) & low_mask(2 * n);
    if (sat)
        return detail::sem::clamp_signed(t, detail::sem::wide(t, part) + detail::sem::wide(t, c));
    return truncate(t, part + c);
}
/// mul24: the product of the low 24 bits (sign-extended for .s32); `.lo` keeps bits 31..0,
/// `.hi` bits 47..16 of the 48-bit product.
[[nodiscard]] constexpr std::uint64_t int_mul24(type t, mul_mode m, std::uint64_t a,
                                                std::uint64_t b) noexcept {
    const auto low24 = [&](std::uint64_t v) {
        return is_signed(t) ? as_signed(type::s32, (v & 0xffffffU) << 8) >> 8
                            : static_cast<std::int64_t>(v & 0xffffffU);
    };
    const std::int64_t x = low24(a), y = low24(b);
    const auto p = static_cast<std::uint64_t>(x * y);
    return m == mul_mode::hi ? (p >> 16) & 0xffffffffU : p & 0xffffffffU;
}

/// div: truncating integer division; division by zero gives all ones (see the file comment).
[[nodiscard]] constexpr std::uint64_t int_div(type t, std::uint64_t a, std::uint64_t b) noexcept {
    if (truncate(t, b) == 0) return low_mask(bits(t));
    if (is_signed(t)) {
        const std::int64_t x = as_signed(t, a), y = as_signed(t, b);
        if (y == -1) return truncate(t, 0 - static_cast<std::uint64_t>(x)); // wraps at min
        return truncate(t, static_cast<std::uint64_t>(x / y));
    }
    return truncate(t, truncate(t, a) / truncate(t, b));
}
/// rem: the remainder of the truncating division (sign of the dividend); x rem 0 is x.
[[nodiscard]] constexpr std::uint64_t int_rem(type t, std::uint64_t a, std::uint64_t b) noexcept {
    if (truncate(t, b) == 0) return truncate(t, a);
    if (is_signed(t)) {
        const std::int64_t x = as_signed(t, a), y = as_signed(t, b);
        if (y == -1) return 0;
        return truncate(t, static_cast<std::uint64_t>(x % y));
    }
    return truncate(t, truncate(t, a) % truncate(t, b));
}
/// abs (wraps: the most negative value stays itself).
[[nodiscard]] constexpr std::uint64_t int_abs(type t, std::uint64_t a) noexcept {
    return as_signed(t, a) < 0 ? truncate(t, 0 - a) : truncate(t, a);
}
/// neg (two's complement, wraps).
[[nodiscard]] constexpr std::uint64_t int_neg(type t, std::uint64_t a) noexcept {
    return truncate(t, 0 - a);
}
/// min (signed for .sN, unsigned otherwise).
[[nodiscard]] constexpr std::uint64_t int_min(type t, std::uint64_t a, std::uint64_t b) noexcept {
    if (is_signed(t)) return as_signed(t, a) <= as_signed(t, b) ? truncate(t, a) : truncate(t, b);
    return truncate(t, a) <= truncate(t, b) ? truncate(t, a) : truncate(t, b);
}
/// max (signed for .sN, unsigned otherwise).
[[nodiscard]] constexpr std::uint64_t int_max(type t, std::uint64_t a, std::uint64_t b) noexcept {
    if (is_signed(t)) return as_signed(t, a) >= as_signed(t, b) ? truncate(t, a) : truncate(t, b);
    return truncate(t, a) >= truncate(t, b) ? truncate(t, a) : truncate(t, b);
}
/// sad: c + |a - b|.
[[nodiscard]] constexpr std::uint64_t int_sad(type t, std::uint64_t a, std::uint64_t b,
                                              std::uint64_t c) noexcept {
    const int128 x = detail::sem::wide(t, a), y = detail::sem::wide(t, b);
    const auto d = static_cast<std::uint64_t>(x > y ? x - y : y - x);
    return truncate(t, c + d);
}

/// popc: number of set bits.
[[nodiscard]] constexpr std::uint64_t popc(type t, std::uint64_t a) noexcept {
    return static_cast<std::uint64_t>(std::popcount(truncate(t, a)));
}
/// clz: leading zeros within the type's width.
[[nodiscard]] constexpr std::uint64_t clz(type t, std::uint64_t a) noexcept {
    const unsigned n = bits(t);
    return static_cast<std::uint64_t>(std::countl_zero(truncate(t, a))) - (64 - n);
}
/// bfind: bit position of the most significant non-sign bit (0xffffffff when none);
/// `.shiftamt` returns the left shift that moves it to the top instead.
[[nodiscard]] constexpr std::uint64_t bfind(type t, std::uint64_t a, bool shiftamt) noexcept {
    const unsigned n = bits(t);
    std::uint64_t x = truncate(t, a);
    if (is_signed(t) && as_signed(t, a) < 0) x = truncate(t, ~x);
    if (x == 0) return 0xffffffffU;
    const auto pos = static_cast<std::uint64_t>(63 - std::countl_zero(x));
    return shiftamt ? (n - 1) - pos : pos;
}
/// brev: bits reversed within the type's width.
[[nodiscard]] constexpr std::uint64_t brev(type t, std::uint64_t a) noexcept {
    const unsigned n = bits(t);
    std::uint64_t r = 0;
    for (unsigned i = 0; i < n; ++i)
        if ((a >> i) & 1U) r |= std::uint64_t{1} << (n - 1 - i);
    return r;
}
/// bfe: `len` bits of a from `pos` (both taken mod 256), zero- or sign-extended (.sN: with
/// the field's top bit, or the value's top bit when the field runs past it).
[[nodiscard]] constexpr std::uint64_t bfe(type t, std::uint64_t a, std::uint64_t b,
                                          std::uint64_t c) noexcept {
    const unsigned msb = bits(t) - 1;
    const unsigned pos = static_cast<unsigned>(b & 0xff), len = static_cast<unsigned>(c & 0xff);
    std::uint64_t sbit = 0;
    if (is_signed(t) && len != 0) {
        const unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
        sbit = (a >> top) & 1U;
    }
    std::uint64_t d = 0;
    for (unsigned i = 0; i <= msb; ++i) {
        const std::uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1U : sbit;
        d |= bit << i;
    }
    return d;
}
/// bfi: b with `len` low bits of a inserted at `pos` (both taken mod 256).
[[nodiscard]] constexpr std::uint64_t bfi(type t, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                          std::uint64_t d) noexcept {
    const unsigned msb = bits(t) - 1;
    const unsigned pos = static_cast<unsigned>(c & 0xff), len = static_cast<unsigned>(d & 0xff);
    std::uint64_t f = truncate(t, b);
    for (unsigned i = 0; i < len && pos + i <= msb; ++i) {
        const std::uint64_t m = std::uint64_t{1} << (pos + i);
        f = ((a >> i) & 1U) ? f | m : f & ~m;
    }
    return f;
}
/// prmt.b32: bytes of {b, a} (a in bytes 0..3, b in 4..7) picked by the selector c; the
/// default mode reads four 4-bit selectors (bit 3: replicate the byte's sign).
[[nodiscard]] constexpr std::uint64_t prmt(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                           prmt_mode m = prmt_mode::none) noexcept {
    const std::uint64_t src = (a & 0xffffffffU) | ((b & 0xffffffffU) << 32);
    const auto byte = [&](unsigned i) { return (src >> (8 * (i & 7))) & 0xffU; };
    std::uint64_t d = 0;
    if (m == prmt_mode::none) {
        for (unsigned i = 0; i < 4; ++i) {
            const auto sel = static_cast<unsigned>((c >> (4 * i)) & 0xf);
            std::uint64_t v = byte(sel);
            if (sel & 8) v = (v & 0x80) ? 0xff : 0;
            d |= v << (8 * i);
        }
        return d;
    }
    // Source byte for result bytes 0..3 per mode and selector c[1:0].
    const auto s = static_cast<unsigned>(c & 3);
    unsigned pick[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 4; ++i) {
        switch (m) {
        case prmt_mode::f4e:
            pick[i] = s + i;
            break;
        case prmt_mode::b4e:
            pick[i] = (s + 8 - i) & 7;
            break;
        case prmt_mode::rc8:
            pick[i] = s;
            break;
        case prmt_mode::ecl:
            pick[i] = i > s ? i : s;
            break;
        case prmt_mode::ecr:
            pick[i] = i < s ? i : s;
            break;
        case prmt_mode::rc16:
            pick[i] = (s & 1) * 2 + (i & 1);
            break;
        default:
            break;
        }
    }
    for (unsigned i = 0; i < 4; ++i)
        d |= byte(pick[i]) << (8 * i);
    return d;
}
/// lop3: bitwise function `lut` of a, b, c (bit i of the result is lut bit
/// (a_i << 2 | b_i << 1 | c_i)).
[[nodiscard]] constexpr std::uint64_t lop3(type t, std::uint64_t a, std::uint64_t b,
                                           std::uint64_t c, std::uint64_t lut) noexcept {
    std::uint64_t d = 0;
    for (unsigned k = 0; k < 8; ++k) {
        if (((lut >> k) & 1U) == 0) continue;
        d |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
    }
    return truncate(t, d);
}
/// shl: shift amounts at or past the width give 0.
[[nodiscard]] constexpr std::uint64_t shl(type t, std::uint64_t a, std::uint64_t n) noexcept {
    const std::uint64_t k = n & 0xffffffffU;
    return k >= bits(t) ? 0 : truncate(t, a << k);
}
/// shr: logical for .u/.b, arithmetic for .s; amounts at or past the width are clamped.
[[nodiscard]] constexpr std::uint64_t shr(type t, std::uint64_t a, std::uint64_t n) noexcept {
    const unsigned w = bits(t);
    const std::uint64_t k = (n & 0xffffffffU) >= w ? w : (n & 0xffffffffU);
    if (is_signed(t)) {
        const std::int64_t x = as_signed(t, a);
        return truncate(t, static_cast<std::uint64_t>(k >= 64 ? (x < 0 ? -1 : 0) : x >> k));
    }
    return k >= 64 ? 0 : truncate(t, a) >> k;
}
/// shf.l / shf.r (b32): funnel shift of {b, a}; `.clamp` limits the amount to 32, `.wrap`
/// takes it mod 32.
[[nodiscard]] constexpr std::uint64_t shf(bool left, bool wrap, std::uint64_t a, std::uint64_t b,
                                          std::uint64_t c) noexcept {
    const std::uint64_t v = (a & 0xffffffffU) | ((b & 0xffffffffU) << 32);
    std::uint64_t n = c & 0xffffffffU;
    n = wrap ? n & 31 : (n > 32 ? 32 : n);
    if (left) return n == 0 ? (v >> 32) : ((v << n) >> 32) & 0xffffffffU;
    return (v >> n) & 0xffffffffU;
}

// --- floating point ----------------------------------------------------------------------

/// The canonical NaN results.
inline constexpr std::uint64_t f32_canonical_nan = 0x7fffffffU;
inline constexpr std::uint64_t f16_canonical_nan = 0x7fffU;

[[nodiscard]] inline float to_f32(std::uint64_t v) noexcept {
    return std::bit_cast<float>(static_cast<std::uint32_t>(v));
}
[[nodiscard]] inline double to_f64(std::uint64_t v) noexcept {
    return std::bit_cast<double>(v);
}
[[nodiscard]] inline std::uint64_t bits_of(float f) noexcept {
    return std::bit_cast<std::uint32_t>(f);
}
[[nodiscard]] inline std::uint64_t bits_of(double d) noexcept {
    return std::bit_cast<std::uint64_t>(d);
}

/// The value of IEEE half `h` (exact).
[[nodiscard]] inline double half_to_double(std::uint64_t h) noexcept {
    const bool neg = (h & 0x8000) != 0;
    const auto e = static_cast<int>((h >> 10) & 0x1f);
    const auto m = static_cast<int>(h & 0x3ff);
    double v = 0;
    if (e == 0x1f)
        v = m == 0 ? std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
    else if (e == 0)
        v = std::ldexp(static_cast<double>(m), -24);
    else
        v = std::ldexp(static_cast<double>(m + 1024), e - 25);
    return neg ? -v : v;
}

/// `x` rounded to IEEE half with rounding `r` (one rounding, from the exact double).
[[nodiscard]] inline std::uint64_t double_to_half(double x, rounding r = rounding::rn) noexcept {
    if (std::isnan(x)) return f16_canonical_nan;
    const std::uint64_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    const bool up_away = (r == rounding::rp && sign == 0) || (r == rounding::rm && sign != 0);
    const bool toward_zero =
        r == rounding::rz || (r == rounding::rp && sign != 0) || (r == rounding::rm && sign == 0);
    const auto overflow = [&]() -> std::uint64_t {
        return sign | (toward_zero ? 0x7bffU : 0x7c00U);
    };
    if (std::isinf(a)) return sign | 0x7c00;
    if (a == 0) return sign;
    int e = 0;
    (void)std::frexp(a, &e);                  // a = m * 2^e, m in [0.5, 1)
    int q = (e - 1 > -14 ? e - 1 : -14) - 10; // ulp exponent of the result
    if (q > 5) return overflow();
    const double scaled = std::ldexp(a, -q); // exact: scaling by a power of two
    double i = std::floor(scaled);
    const double frac = scaled - i;
    if (frac != 0) {
        if (r == rounding::rn || r == rounding::none) {
            if (frac > 0.5 || (frac == 0.5 && std::fmod(i, 2.0) != 0)) i += 1;
        } else if (up_away) {
            i += 1;
        }
    }
    auto mant = static_cast<std::uint64_t>(i);
    if (mant == 2048) {
        mant = 1024;
        ++q;
    }
    if (mant < 1024) return sign | mant; // subnormal (q == -24)
    const int biased = q + 25;
    if (biased >= 31) return overflow();
    return sign | (static_cast<std::uint64_t>(biased) << 10) | (mant - 1024);
}

namespace detail::sem {
[[nodiscard]] inline int fe_mode(rounding r) noexcept {
    switch (r) {
    case rounding::rz:
    case rounding::rzi:
        return FE_TOWARDZERO;
    case rounding::rm:
    case rounding::rmi:
        return FE_DOWNWARD;
    case rounding::rp:
    case rounding::rpi:
        return FE_UPWARD;
    default:
        return FE_TONEAREST;
    }
}
[[nodiscard]] constexpr bool directed(rounding r) noexcept {
    return r == rounding::rz || r == rounding::rm || r == rounding::rp;
}
// Runs f with the host FPU rounding toward r. Callers read their operands from and write
// their result to volatile objects inside f, so the operation cannot leave the mode.
template <class F>
[[nodiscard]] auto in_rounding(rounding r, F&& f) {
    if (!directed(r)) return f();
    const int old = std::fegetround();
    std::fesetround(fe_mode(r));
    const auto v = f();
    std::fesetround(old);
    return v;
}
template <class T>
[[nodiscard]] T add(T a, T b, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a, y = b;
        volatile T z = x + y;
        return static_cast<T>(z);
    });
}
template <class T>
[[nodiscard]] T sub(T a, T b, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a, y = b;
        volatile T z = x - y;
        return static_cast<T>(z);
    });
}
template <class T>
[[nodiscard]] T mul(T a, T b, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a, y = b;
        volatile T z = x * y;
        return static_cast<T>(z);
    });
}
template <class T>
[[nodiscard]] T div(T a, T b, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a, y = b;
        volatile T z = x / y;
        return static_cast<T>(z);
    });
}
template <class T>
[[nodiscard]] T fma(T a, T b, T c, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a, y = b, w = c;
        volatile T z = std::fma(static_cast<T>(x), static_cast<T>(y), static_cast<T>(w));
        return static_cast<T>(z);
    });
}
template <class T>
[[nodiscard]] T sqrt(T a, rounding r) {
    return in_rounding(r, [&] {
        volatile T x = a;
        volatile T z = std::sqrt(static_cast<T>(x));
        return static_cast<T>(z);
    });
}
template <class To, class From>
[[nodiscard]] To convert(From a, rounding r) {
    return in_rounding(r, [&] {
        volatile From x = a;
        volatile To z = static_cast<To>(x);
        return static_cast<To>(z);
    });
}
[[nodiscard]] inline bool subnormal32(std::uint64_t v) noexcept {
    return (v & 0x7f800000U) == 0 && (v & 0x007fffffU) != 0;
}
} // namespace detail::sem

/// f32 bits with a subnormal flushed to zero of the same sign when `ftz`.
[[nodiscard]] inline std::uint64_t flush32(std::uint64_t v, bool ftz) noexcept {
    v &= 0xffffffffU;
    return ftz && detail::sem::subnormal32(v) ? v & 0x80000000U : v;
}

namespace detail::sem {
// Result post-processing of an f32 operation: canonical NaN, ftz, sat.
[[nodiscard]] inline std::uint64_t finish32(float f, bool ftz, bool sat) noexcept {
    if (std::isnan(f)) return sat ? 0 : f32_canonical_nan;
    if (sat) f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
    if (sat && f == 0.0f) f = 0.0f; // -0 -> +0
    return flush32(bits_of(f), ftz);
}
[[nodiscard]] inline std::uint64_t finish64(double d, bool sat) noexcept {
    if (sat) {
        if (std::isnan(d)) return 0;
        d = d < 0.0 ? 0.0 : (d > 1.0 ? 1.0 : d);
        if (d == 0.0) d = 0.0;
    }
    return bits_of(d);
}
[[nodiscard]] inline std::uint64_t finish16(double d, rounding r, bool sat) noexcept {
    if (sat) {
        if (std::isnan(d)) return 0;
        d = d < 0.0 ? 0.0 : (d > 1.0 ? 1.0 : d);
        if (d == 0.0) d = 0.0;
    }
    return double_to_half(d, r);
}
[[nodiscard]] inline float in32(std::uint64_t v, bool ftz) noexcept {
    return to_f32(flush32(v, ftz));
}
} // namespace detail::sem

/// Which binary float operation fp_binary computes.
enum class fp_binary_op : std::uint8_t { add, sub, mul, div, min, max };

/// A binary float operation of type t (f16, f32, f64) with rounding, `.ftz` and `.sat`.
/// min / max return the non-NaN operand when one is NaN and order -0 below +0.
[[nodiscard]] inline std::uint64_t fp_binary(fp_binary_op o, type t, rounding r, bool ftz, bool sat,
                                             std::uint64_t a, std::uint64_t b) {
    const auto minmax = [o](auto x, auto y) {
        using T = decltype(x);
        if (std::isnan(x)) return y;
        if (std::isnan(y)) return x;
        if (x == T(0) && y == T(0)) // -0 orders below +0
            return (o == fp_binary_op::min) == std::signbit(x) ? x : y;
        return o == fp_binary_op::min ? (x < y ? x : y) : (x > y ? x : y);
    };
    const auto apply = [&](auto x, auto y, rounding rr) {
        using T = decltype(x);
        switch (o) {
        case fp_binary_op::add:
            return detail::sem::add<T>(x, y, rr);
        case fp_binary_op::sub:
            return detail::sem::sub<T>(x, y, rr);
        case fp_binary_op::mul:
            return detail::sem::mul<T>(x, y, rr);
        case fp_binary_op::div:
            return detail::sem::div<T>(x, y, rr);
        default:
            return minmax(x, y);
        }
    };
    if (t == type::f64) return detail::sem::finish64(apply(to_f64(a), to_f64(b), r), sat);
    if (t == type::f16) {
        // Exact in double for add, sub, mul; div rounds twice only below half precision's
        // needs (53 >= 2 x 11 + 2 bits), so the half result is correctly rounded.
        const double x = half_to_double(a), y = half_to_double(b);
        return detail::sem::finish16(apply(x, y, rounding::rn), r, sat);
    }
    const float x = detail::sem::in32(a, ftz), y = detail::sem::in32(b, ftz);
    return detail::sem::finish32(apply(x, y, r), ftz, sat);
}

/// fma / mad of floats: a * b + c rounded once.
[[nodiscard]] inline std::uint64_t fp_fma(type t, rounding r, bool ftz, bool sat, std::uint64_t a,
                                          std::uint64_t b, std::uint64_t c) {
    if (t == type::f64)
        return detail::sem::finish64(detail::sem::fma<double>(to_f64(a), to_f64(b), to_f64(c), r),
                                     sat);
    if (t == type::f16) {
        // The half product is exact in double and the sum of it and c rounds to double
        // exactly enough: |a*b| < 2^32 and c's bits overlap within 53 bits or the sum is
        // dominated; round once to half from the double fma.
        const double v = std::fma(half_to_double(a), half_to_double(b), half_to_double(c));
        return detail::sem::finish16(v, r, sat);
    }
    const float x = detail::sem::in32(a, ftz), y = detail::sem::in32(b, ftz),
                z = detail::sem::in32(c, ftz);
    return detail::sem::finish32(detail::sem::fma<float>(x, y, z, r), ftz, sat);
}

/// abs of a float (clears the sign; `.ftz` flushes a subnormal first).
[[nodiscard]] inline std::uint64_t fp_abs(type t, bool ftz, std::uint64_t a) noexcept {
    if (t == type::f32) return flush32(a, ftz) & 0x7fffffffU;
    if (t == type::f16) return a & 0x7fffU;
    return a & 0x7fffffffffffffffULL;
}
/// neg of a float (flips the sign; `.ftz` flushes a subnormal first).
[[nodiscard]] inline std::uint64_t fp_neg(type t, bool ftz, std::uint64_t a) noexcept {
    if (t == type::f32) return flush32(a, ftz) ^ 0x80000000U;
    if (t == type::f16) return (a ^ 0x8000U) & 0xffffU;
    return a ^ 0x8000000000000000ULL;
}
/// copysign: b with the sign of a.
[[nodiscard]] inline std::uint64_t fp_copysign(type t, std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t s = t == type::f64 ? 0x8000000000000000ULL : 0x80000000U;
    return (b & ~s & low_mask(bits(t))) | (a & s);
}

/// Unary float functions.
enum class fp_unary_op : std::uint8_t { rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh };

/// A unary float function: `.approx` (or rsqrt / sin / cos / lg2 / ex2 / tanh, which only
/// exist approximate) computed in the type's precision by the standard library; rcp and sqrt
/// with `.rn .rz .rm .rp` correctly rounded.
[[nodiscard]] inline std::uint64_t fp_unary(fp_unary_op o, type t, rounding r, bool ftz,
                                            std::uint64_t a) {
    const auto f = [&](auto x) {
        using T = decltype(x);
        switch (o) {
        case fp_unary_op::rcp:
            return detail::sem::div<T>(T(1), x, r);
        case fp_unary_op::sqrt:
            return detail::sem::sqrt<T>(x, r);
        case fp_unary_op::rsqrt:
            return T(1) / std::sqrt(x);
        case fp_unary_op::sin:
            return std::sin(x);
        case fp_unary_op::cos:
            return std::cos(x);
        case fp_unary_op::lg2:
            return std::log2(x);
        case fp_unary_op::ex2:
            return std::exp2(x);
        case fp_unary_op::tanh:
            return std::tanh(x);
        }
        return x;
    };
    if (t == type::f64) return bits_of(f(to_f64(a)));
    if (t == type::f16)
        return double_to_half(static_cast<double>(f(static_cast<float>(half_to_double(a)))));
    return detail::sem::finish32(f(detail::sem::in32(a, ftz)), ftz, false);
}

/// testp properties of a float value.
[[nodiscard]] inline bool fp_test(test_op p, type t, std::uint64_t a) noexcept {
    const double v = t == type::f64 ? to_f64(a) : (t == type::f16 ? half_to_double(a) : to_f32(a));
    const int c = t == type::f32 ? std::fpclassify(to_f32(a)) : std::fpclassify(v);
    const bool sub = t == type::f16 ? ((a & 0x7c00) == 0 && (a & 0x3ff) != 0) : c == FP_SUBNORMAL;
    switch (p) {
    case test_op::finite:
        return std::isfinite(v);
    case test_op::infinite:
        return std::isinf(v);
    case test_op::number:
        return !std::isnan(v);
    case test_op::notanumber:
        return std::isnan(v);
    case test_op::normal:
        return std::isfinite(v) && v != 0 && !sub;
    case test_op::subnormal:
        return sub;
    default:
        return false;
    }
}

/// Float value of `a` of float type t as a double (exact).
[[nodiscard]] inline double fp_value(type t, std::uint64_t a, bool ftz = false) noexcept {
    if (t == type::f64) return to_f64(a);
    if (t == type::f16) return half_to_double(a);
    return static_cast<double>(to_f32(flush32(a, ftz)));
}

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

/// One lane of an arithmetic, logic, comparison, selection, conversion or special-function
/// instruction: `src` holds the source operands in the order written (destinations left
/// out), each as read (predicate negation applied); `carry` is the lane's CC.CF. Returns the
/// destination bits of the instruction type (`.wide`: twice its width; setp: predicates).
/// Instructions that are not per-lane ALU work (memory, control, warp-level) give {}.
[[nodiscard]] inline lane_result evaluate(const instruction& in, std::span<const std::uint64_t> src,
                                          bool carry = false) {
    const type t = in.t;
    const auto s = [&](std::size_t i) { return i < src.size() ? src[i] : std::uint64_t{0}; };
    const std::uint64_t a = s(0), b = s(1), c = s(2);
    lane_result out;
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
        out.value = bfi(t, a, b, c, s(3));
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
        out.value = lop3(t, a, b, c, s(3));
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
        break;
    }
    return out;
}

} // namespace warpkit::ptx
