#pragma once
/// \file
/// PTX integer and bit operations on raw register bits (part of ptx/semantics.hpp, which
/// states the conventions): a value of type `t` lives in the low `bits(t)` bits of a 64-bit
/// word. Integer division by zero gives all ones (unsigned: the type's maximum; signed: -1)
/// and leaves the dividend as the remainder; the most negative value divided by -1 wraps to
/// itself with remainder 0.

#include <warpkit/ptx/ir.hpp>

#include <bit>
#include <cstdint>
#include <limits>

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
/// extend(t, v) with the type looked at once, for loops over a warp's lanes:
/// `extension{t}(v) == extend(t, v)` for every v.
struct extension {
    std::uint64_t keep = 0; ///< the bits of the value (all of them for a 64-bit or untyped .sN)
    std::uint64_t sign = 0; ///< the sign bit of a narrower signed type, else 0
    constexpr explicit extension(type t) noexcept {
        const unsigned n = bits(t);
        if (!is_signed(t)) {
            keep = low_mask(n);
        } else if (n == 0 || n >= 64) {
            keep = ~std::uint64_t{0};
        } else {
            keep = low_mask(n);
            sign = std::uint64_t{1} << (n - 1);
        }
    }
    [[nodiscard]] constexpr std::uint64_t operator()(std::uint64_t v) const noexcept {
        return ((v & keep) ^ sign) - sign;
    }
};
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

} // namespace warpkit::ptx
