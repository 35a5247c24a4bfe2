#pragma once
/// \file
/// PTX floating-point operations on raw register bits (part of ptx/semantics.hpp, which
/// states the conventions: canonical NaNs, rounding through the host FPU's modes, `.ftz`,
/// `.sat`, `.approx`).

#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/ir.hpp>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace warpkit::ptx {

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

} // namespace warpkit::ptx
