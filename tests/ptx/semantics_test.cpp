#include <warpkit/core/rng.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

using namespace warpkit;
using namespace warpkit::ptx;

namespace {

instruction ins(op o, type t) {
    instruction in;
    in.opcode = o;
    in.t = t;
    return in;
}
std::uint64_t ev(const instruction& in, std::initializer_list<std::uint64_t> src,
                 bool carry = false) {
    const std::vector<std::uint64_t> v(src);
    return evaluate(in, v, carry).value;
}
std::uint64_t f(float x) {
    return bits_of(x);
}
std::uint64_t d(double x) {
    return bits_of(x);
}
std::uint64_t i32(std::int32_t x) {
    return static_cast<std::uint32_t>(x);
}
float as_f(std::uint64_t b) {
    return to_f32(b);
}

std::uint64_t cvt(type to, type from, rounding r, std::uint64_t a, bool sat = false,
                  bool ftz = false) {
    return convert(to, from, r, ftz, sat, a);
}

} // namespace

TEST_CASE("ptx semantics: integer add, sub and multiply wrap at the type's width") {
    CHECK(ev(ins(op::add, type::u8), {200, 100}) == 44);
    CHECK(ev(ins(op::add, type::u16), {0xffff, 1}) == 0);
    CHECK(ev(ins(op::add, type::s32), {i32(INT32_MAX), 1}) == i32(INT32_MIN));
    CHECK(ev(ins(op::sub, type::u32), {0, 1}) == 0xffffffffU);
    instruction sat = ins(op::add, type::s32);
    sat.sat = true;
    CHECK(ev(sat, {i32(INT32_MAX), 5}) == i32(INT32_MAX));
    CHECK(ev(sat, {i32(INT32_MIN), i32(-5)}) == i32(INT32_MIN));
    instruction hi = ins(op::mul, type::s32);
    hi.mode = mul_mode::hi;
    CHECK(ev(hi, {i32(-1), 1}) == 0xffffffffU); // -1 * 1 = -1: the high word is all ones
    hi.t = type::u32;
    CHECK(ev(hi, {0xffffffffU, 2}) == 1);
    instruction wide = ins(op::mul, type::s32);
    wide.mode = mul_mode::wide;
    CHECK(ev(wide, {i32(-2), 3}) == static_cast<std::uint64_t>(std::int64_t{-6}));
    wide.t = type::u32;
    CHECK(ev(wide, {0xffffffffU, 0xffffffffU}) == 0xfffffffe00000001ULL);
    wide.t = type::u16;
    CHECK(ev(wide, {0xffff, 0xffff}) == 0xfffe0001U);
    instruction lo = ins(op::mul, type::u32);
    lo.mode = mul_mode::lo;
    CHECK(ev(lo, {0x10000, 0x10000}) == 0);
    instruction mad = ins(op::mad, type::s32);
    mad.mode = mul_mode::lo;
    CHECK(ev(mad, {3, 4, i32(-20)}) == i32(-8));
    mad.mode = mul_mode::wide;
    CHECK(ev(mad, {i32(-3), 4, 100}) == 88);
    instruction m24 = ins(op::mul24, type::s32);
    m24.mode = mul_mode::lo;
    CHECK(ev(m24, {0x00ffffff, 2}) == i32(-2)); // the low 24 bits are -1
    m24.t = type::u32;
    m24.mode = mul_mode::hi;
    CHECK(ev(m24, {0x00ffffff, 0x00ffffff}) == ((0xffffffULL * 0xffffffULL) >> 16 & 0xffffffffU));
}

TEST_CASE("ptx semantics: division and remainder, by zero as the hardware") {
    CHECK(ev(ins(op::div, type::u32), {7, 2}) == 3);
    CHECK(ev(ins(op::div, type::s32), {i32(-7), 2}) == i32(-3)); // truncates
    CHECK(ev(ins(op::rem, type::s32), {i32(-7), 2}) == i32(-1)); // sign of the dividend
    CHECK(ev(ins(op::div, type::u32), {7, 0}) == 0xffffffffU);
    CHECK(ev(ins(op::div, type::s32), {7, 0}) == i32(-1));
    CHECK(ev(ins(op::div, type::u64), {7, 0}) == ~std::uint64_t{0});
    CHECK(ev(ins(op::rem, type::u32), {7, 0}) == 7);
    CHECK(ev(ins(op::div, type::s32), {i32(INT32_MIN), i32(-1)}) == i32(INT32_MIN));
    CHECK(ev(ins(op::rem, type::s32), {i32(INT32_MIN), i32(-1)}) == 0);
    CHECK(ev(ins(op::div, type::s16), {0xff9c, 7}) == 0xfff2); // -100 / 7 = -14
}

TEST_CASE("ptx semantics: abs, neg, min, max, sad") {
    CHECK(ev(ins(op::abs, type::s32), {i32(-5)}) == 5);
    CHECK(ev(ins(op::abs, type::s32), {i32(INT32_MIN)}) == i32(INT32_MIN));
    CHECK(ev(ins(op::neg, type::s16), {1}) == 0xffff);
    CHECK(ev(ins(op::min, type::s32), {i32(-1), 1}) == i32(-1));
    CHECK(ev(ins(op::min, type::u32), {i32(-1), 1}) == 1);
    CHECK(ev(ins(op::max, type::s64), {static_cast<std::uint64_t>(-3), 2}) == 2);
    CHECK(ev(ins(op::sad, type::s32), {i32(-3), 4, 10}) == 17);
}

TEST_CASE("ptx semantics: shifts clamp their amounts") {
    CHECK(ev(ins(op::shl, type::b32), {1, 31}) == 0x80000000U);
    CHECK(ev(ins(op::shl, type::b32), {1, 32}) == 0);
    CHECK(ev(ins(op::shl, type::b32), {1, 0xffffffffU}) == 0);
    CHECK(ev(ins(op::shr, type::u32), {0x80000000U, 31}) == 1);
    CHECK(ev(ins(op::shr, type::u32), {0x80000000U, 40}) == 0);
    CHECK(ev(ins(op::shr, type::s32), {i32(-8), 1}) == i32(-4));
    CHECK(ev(ins(op::shr, type::s32), {i32(-8), 40}) == i32(-1));
    CHECK(ev(ins(op::shr, type::s16), {0x8000, 100}) == 0xffff);
    CHECK(ev(ins(op::shl, type::b64), {1, 63}) == 0x8000000000000000ULL);
    instruction f = ins(op::shf, type::b32);
    f.shift_left = true;
    CHECK(ev(f, {0x80000000U, 0x1, 1}) == 0x3);          // clamp: {b, a} << 1, high word
    CHECK(ev(f, {0x80000000U, 0x1, 40}) == 0x80000000U); // clamped to 32: a
    f.wrap = true;
    CHECK(ev(f, {0x80000000U, 0x1, 33}) == 0x3); // 33 mod 32 = 1
    f.shift_left = false;
    f.wrap = false;
    CHECK(ev(f, {0x2, 0x1, 1}) == 0x80000001U); // {b, a} >> 1, low word
}

TEST_CASE("ptx semantics: bit manipulation") {
    CHECK(ev(ins(op::popc, type::b32), {0xf0f0}) == 8);
    CHECK(ev(ins(op::popc, type::b64), {~std::uint64_t{0}}) == 64);
    CHECK(ev(ins(op::clz, type::b32), {1}) == 31);
    CHECK(ev(ins(op::clz, type::b32), {0}) == 32);
    CHECK(ev(ins(op::clz, type::b64), {1}) == 63);
    CHECK(ev(ins(op::brev, type::b32), {1}) == 0x80000000U);
    CHECK(ev(ins(op::bfind, type::u32), {0x10}) == 4);
    CHECK(ev(ins(op::bfind, type::u32), {0}) == 0xffffffffU);
    CHECK(ev(ins(op::bfind, type::s32), {i32(-1)}) == 0xffffffffU);
    CHECK(ev(ins(op::bfind, type::s32), {i32(-2)}) == 0);
    instruction amt = ins(op::bfind, type::u32);
    amt.shiftamt = true;
    CHECK(ev(amt, {0x10}) == 27);
    CHECK(ev(ins(op::bfe, type::u32), {0xf0f0, 4, 8}) == 0x0f);
    CHECK(ev(ins(op::bfe, type::s32), {0xf0, 4, 4}) == 0xffffffffU);
    CHECK(ev(ins(op::bfe, type::s32), {0x70, 4, 4}) == 7);
    CHECK(ev(ins(op::bfe, type::u32), {0xffffffffU, 4, 0}) == 0);
    CHECK(ev(ins(op::bfe, type::s32), {0x80000000U, 28, 8}) == 0xfffffff8U); // past the msb
    CHECK(ev(ins(op::bfi, type::b32), {0xf, 0, 4, 4}) == 0xf0);
    CHECK(ev(ins(op::bfi, type::b32), {0x5, 0xffffffffU, 8, 4}) == 0xfffff5ffU);
    CHECK(ev(ins(op::prmt, type::b32), {0x33221100U, 0x77665544U, 0x3210}) == 0x33221100U);
    CHECK(ev(ins(op::prmt, type::b32), {0x33221100U, 0x77665544U, 0x7654}) == 0x77665544U);
    CHECK(ev(ins(op::prmt, type::b32), {0x33221100U, 0x77665544U, 0x0123}) == 0x00112233U);
    CHECK(ev(ins(op::prmt, type::b32), {0x80, 0, 0x4448}) == 0x000000ffU); // sign replicate
    CHECK(prmt(0x33221100U, 0x77665544U, 1, prmt_mode::f4e) == 0x44332211U);
    CHECK(prmt(0x33221100U, 0x77665544U, 0, prmt_mode::b4e) == 0x55667700U);
    CHECK(prmt(0x33221100U, 0x77665544U, 2, prmt_mode::rc8) == 0x22222222U);
    CHECK(prmt(0x33221100U, 0x77665544U, 1, prmt_mode::ecl) == 0x33221111U);
    CHECK(prmt(0x33221100U, 0x77665544U, 1, prmt_mode::ecr) == 0x11111100U);
    CHECK(prmt(0x33221100U, 0x77665544U, 1, prmt_mode::rc16) == 0x33223322U);
    const std::uint64_t a = 0xf0f0f0f0U, b = 0xcccccccc, c = 0xaaaaaaaaU;
    CHECK(ev(ins(op::lop3, type::b32), {a, b, c, 0xf0}) == a);
    CHECK(ev(ins(op::lop3, type::b32), {a, b, c, 0xcc}) == b);
    CHECK(ev(ins(op::lop3, type::b32), {a, b, c, 0x96}) == (a ^ b ^ c));
    CHECK(ev(ins(op::lop3, type::b32), {a, b, c, 0x80}) == (a & b & c));
    CHECK(ev(ins(op::not_, type::pred), {1}) == 0);
    CHECK(ev(ins(op::cnot, type::b32), {0}) == 1);
    CHECK(ev(ins(op::cnot, type::b32), {5}) == 0);
}

TEST_CASE("ptx semantics: carry chains add 64-bit numbers from 32-bit halves") {
    warpkit::rng r(11);
    instruction add_cc = ins(op::add, type::u32);
    add_cc.cc = true;
    const instruction addc = ins(op::addc, type::u32);
    instruction sub_cc = ins(op::sub, type::u32);
    sub_cc.cc = true;
    const instruction subc = ins(op::subc, type::u32);
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t x = r(), y = r();
        const std::uint64_t s[] = {x & 0xffffffffU, y & 0xffffffffU};
        const auto lo = evaluate(add_cc, s);
        const std::uint64_t h[] = {x >> 32, y >> 32};
        const auto hi = evaluate(addc, h, lo.carry);
        CHECK(((hi.value << 32) | lo.value) == x + y);
        const auto dlo = evaluate(sub_cc, s);
        const auto dhi = evaluate(subc, h, dlo.carry);
        CHECK(((dhi.value << 32) | dlo.value) == x - y);
    }
}

TEST_CASE("ptx semantics: integer laws over random values") {
    warpkit::rng r(7);
    for (const type t :
         {type::u8, type::s8, type::u16, type::s16, type::u32, type::s32, type::u64, type::s64}) {
        instruction lo = ins(op::mul, t);
        lo.mode = mul_mode::lo;
        for (int i = 0; i < 500; ++i) {
            const std::uint64_t a = truncate(t, r()), b = truncate(t, r());
            CHECK(ev(ins(op::add, t), {a, b}) == ev(ins(op::add, t), {b, a}));
            CHECK(ev(lo, {a, b}) == ev(lo, {b, a}));
            CHECK(ev(ins(op::add, t), {ev(ins(op::sub, t), {a, b}), b}) == a);
            CHECK((ev(ins(op::min, t), {a, b}) != ev(ins(op::max, t), {a, b}) || a == b));
            CHECK(compare(cmp::le, t, false, ev(ins(op::min, t), {a, b}),
                          ev(ins(op::max, t), {a, b})));
            if (truncate(t, b) != 0 && !(is_signed(t) && as_signed(t, b) == -1)) {
                const std::uint64_t q = ev(ins(op::div, t), {a, b});
                const std::uint64_t m = ev(ins(op::rem, t), {a, b});
                CHECK(ev(ins(op::add, t), {ev(lo, {q, b}), m}) == a);
            }
            if (bits(t) == 16 || bits(t) == 32) { // .wide is the exact product
                instruction w = ins(op::mul, t);
                w.mode = mul_mode::wide;
                const std::int64_t exact = is_signed(t) ? as_signed(t, a) * as_signed(t, b)
                                                        : static_cast<std::int64_t>(a * b);
                CHECK(ev(w, {a, b}) == truncate(bits(t) == 32 ? type::u64 : type::u32,
                                                static_cast<std::uint64_t>(exact)));
            }
            const std::uint64_t n = r.below(bits(t));
            const std::uint64_t back = ev(ins(op::shr, t), {ev(ins(op::shl, t), {a, n}), n});
            if (is_signed(t)) // the low bits(t) - n bits of a, sign-extended
                CHECK(back == truncate(t, static_cast<std::uint64_t>(as_signed(t, a << n) >> n)));
            else
                CHECK(back == (truncate(t, a) & (low_mask(bits(t)) >> n)));
        }
    }
}

TEST_CASE("ptx semantics: cvt to integers rounds as asked and saturates") {
    CHECK(cvt(type::s32, type::f32, rounding::rni, f(2.5f)) == 2);
    CHECK(cvt(type::s32, type::f32, rounding::rni, f(-2.5f)) == i32(-2));
    CHECK(cvt(type::s32, type::f32, rounding::rni, f(3.5f)) == 4);
    CHECK(cvt(type::s32, type::f32, rounding::rzi, f(-2.7f)) == i32(-2));
    CHECK(cvt(type::s32, type::f32, rounding::rmi, f(-2.2f)) == i32(-3));
    CHECK(cvt(type::s32, type::f32, rounding::rpi, f(2.2f)) == 3);
    CHECK(cvt(type::s32, type::f32, rounding::rzi, f(3e9f)) == i32(INT32_MAX));
    CHECK(cvt(type::s32, type::f32, rounding::rzi, f(-3e9f)) == i32(INT32_MIN));
    CHECK(cvt(type::s32, type::f32, rounding::rzi, f(std::nanf(""))) == 0);
    CHECK(cvt(type::u32, type::f32, rounding::rzi, f(-1.0f)) == 0);
    CHECK(cvt(type::u32, type::f32, rounding::rzi, f(5e9f)) == 0xffffffffU);
    CHECK(cvt(type::u8, type::f32, rounding::rni, f(300.0f)) == 255);
    CHECK(cvt(type::s64, type::f64, rounding::rzi, d(1e30)) ==
          static_cast<std::uint64_t>(INT64_MAX));
    CHECK(cvt(type::u64, type::f64, rounding::rzi, d(18446744073709549568.0)) ==
          18446744073709549568ULL);
    CHECK(cvt(type::s32, type::f16, rounding::rzi, 0x4500) == 5); // 5.0 in half
    // integer to integer: extension, truncation, saturation
    CHECK(cvt(type::s32, type::s8, rounding::none, 0x80) == i32(-128));
    CHECK(cvt(type::u32, type::u8, rounding::none, 0x80) == 0x80);
    CHECK(cvt(type::u8, type::u32, rounding::none, 0x1ff) == 0xff);
    CHECK(cvt(type::u8, type::s32, rounding::none, 300, true) == 255);
    CHECK(cvt(type::u8, type::s32, rounding::none, i32(-5), true) == 0);
    CHECK(cvt(type::s8, type::s32, rounding::none, i32(-200), true) == 0x80);
    CHECK(cvt(type::s64, type::s32, rounding::none, i32(-1)) == ~std::uint64_t{0});
    CHECK(cvt(type::u64, type::u32, rounding::none, 0xffffffffU) == 0xffffffffU);
}

TEST_CASE("ptx semantics: cvt to floats in every rounding mode") {
    // 2^24 + 1 is not a float: it lies between 2^24 and 2^24 + 2.
    const std::uint64_t big = 16777217;
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rn, big)) == 16777216.0f);
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rz, big)) == 16777216.0f);
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rm, big)) == 16777216.0f);
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rp, big)) == 16777218.0f);
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rp, i32(-16777217))) == -16777216.0f);
    CHECK(as_f(cvt(type::f32, type::s32, rounding::rm, i32(-16777217))) == -16777218.0f);
    CHECK(as_f(cvt(type::f32, type::u64, rounding::rz, ~std::uint64_t{0})) ==
          std::nextafter(18446744073709551616.0f, 0.0f));
    CHECK(as_f(cvt(type::f32, type::u64, rounding::rn, ~std::uint64_t{0})) ==
          18446744073709551616.0f);
    CHECK(to_f64(cvt(type::f64, type::s64, rounding::rn, static_cast<std::uint64_t>(-3))) == -3.0);
    // f64 -> f32 narrowing
    const double third = 1.0 / 3.0;
    const float down = static_cast<float>(third) <= third
                           ? static_cast<float>(third)
                           : std::nextafter(static_cast<float>(third), 0.0f);
    CHECK(as_f(cvt(type::f32, type::f64, rounding::rz, d(third))) == down);
    CHECK(as_f(cvt(type::f32, type::f64, rounding::rm, d(third))) == down);
    CHECK(as_f(cvt(type::f32, type::f64, rounding::rp, d(third))) == std::nextafter(down, 1.0f));
    CHECK(as_f(cvt(type::f32, type::f64, rounding::rn, d(1e300))) == INFINITY);
    CHECK(as_f(cvt(type::f32, type::f64, rounding::rz, d(1e300))) ==
          std::numeric_limits<float>::max());
    CHECK(to_f64(cvt(type::f64, type::f32, rounding::none, f(0.1f))) == static_cast<double>(0.1f));
    // same-size rounding to integral values
    CHECK(as_f(cvt(type::f32, type::f32, rounding::rni, f(2.5f))) == 2.0f);
    CHECK(as_f(cvt(type::f32, type::f32, rounding::rmi, f(-0.5f))) == -1.0f);
    CHECK(to_f64(cvt(type::f64, type::f64, rounding::rpi, d(1.25))) == 2.0);
    // .ftz and .sat
    CHECK(cvt(type::f32, type::f32, rounding::none, f(1e-40f), false, true) == 0);
    CHECK(cvt(type::f32, type::f32, rounding::none, f(-1e-40f), false, true) == 0x80000000U);
    CHECK(as_f(cvt(type::f32, type::f32, rounding::none, f(1.5f), true)) == 1.0f);
    CHECK(as_f(cvt(type::f32, type::f32, rounding::none, f(std::nanf("")), true)) == 0.0f);
    // the environment's rounding is left as it was
    CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("ptx semantics: f16 conversions") {
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(1.0f)) == 0x3c00);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(-2.0f)) == 0xc000);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(65504.0f)) == 0x7bff);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(65520.0f)) == 0x7c00); // ties away to inf
    CHECK(cvt(type::f16, type::f32, rounding::rz, f(65520.0f)) == 0x7bff);
    CHECK(cvt(type::f16, type::f32, rounding::rm, f(-1e6f)) == 0xfc00);
    CHECK(cvt(type::f16, type::f32, rounding::rp, f(-1e6f)) == 0xfbff);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(1e-8f)) == 0);      // below half of 2^-24
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(3e-8f)) == 0x0001); // just above half
    CHECK(cvt(type::f16, type::f32, rounding::rp, f(1e-8f)) == 0x0001);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(std::ldexp(1.0f, -14))) == 0x0400);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(1.0f + std::ldexp(1.0f, -11))) == 0x3c00);
    CHECK(cvt(type::f16, type::f32, rounding::rp, f(1.0f + std::ldexp(1.0f, -11))) == 0x3c01);
    CHECK(cvt(type::f16, type::f32, rounding::rn, f(std::nanf(""))) == f16_canonical_nan);
    CHECK(as_f(cvt(type::f32, type::f16, rounding::none, 0x3555)) == 0.333251953125f);
    CHECK(as_f(cvt(type::f32, type::f16, rounding::none, 0x0001)) == std::ldexp(1.0f, -24));
    CHECK(std::isinf(as_f(cvt(type::f32, type::f16, rounding::none, 0xfc00))));
    CHECK(cvt(type::f16, type::s32, rounding::rn, 2049) == 0x6800); // 2048: ties to even
    CHECK(cvt(type::f16, type::s32, rounding::rp, 2049) == 0x6801);
    // every half converts to f32 and back unchanged
    for (std::uint64_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) continue; // NaN payloads
        CHECK(cvt(type::f16, type::f32, rounding::rn,
                  cvt(type::f32, type::f16, rounding::none, h)) == h);
    }
}

TEST_CASE("ptx semantics: float arithmetic with rounding modes, ftz and sat") {
    const float one = 1.0f, tiny = std::ldexp(1.0f, -30);
    instruction add = ins(op::add, type::f32);
    add.rnd = rounding::rn;
    CHECK(as_f(ev(add, {f(one), f(tiny)})) == 1.0f);
    add.rnd = rounding::rz;
    CHECK(as_f(ev(add, {f(one), f(tiny)})) == 1.0f);
    add.rnd = rounding::rp;
    CHECK(as_f(ev(add, {f(one), f(tiny)})) == std::nextafter(1.0f, 2.0f));
    add.rnd = rounding::rm;
    CHECK(as_f(ev(add, {f(-one), f(-tiny)})) == std::nextafter(-1.0f, -2.0f));
    add.rnd = rounding::rz;
    CHECK(as_f(ev(add, {f(-one), f(-tiny)})) == -1.0f);
    CHECK(std::fegetround() == FE_TONEAREST);
    // .ftz flushes subnormal inputs and results
    instruction a = ins(op::add, type::f32);
    CHECK(as_f(ev(a, {f(1e-40f), f(0.0f)})) == 1e-40f);
    a.ftz = true;
    CHECK(ev(a, {f(1e-40f), f(0.0f)}) == 0);
    CHECK(ev(a, {f(-1e-40f), f(-0.0f)}) == 0x80000000U);
    instruction mul = ins(op::mul, type::f32);
    CHECK(as_f(ev(mul, {f(1e-20f), f(1e-20f)})) == 1e-20f * 1e-20f);
    mul.ftz = true;
    CHECK(ev(mul, {f(1e-20f), f(1e-20f)}) == 0);
    // .sat clamps to [0, 1]; NaN becomes 0
    instruction s = ins(op::add, type::f32);
    s.sat = true;
    CHECK(as_f(ev(s, {f(0.75f), f(0.5f)})) == 1.0f);
    CHECK(ev(s, {f(-0.75f), f(0.25f)}) == 0);
    CHECK(ev(s, {f(INFINITY), f(-INFINITY)}) == 0);
    // fma rounds once: (1 + 2^-12)^2 - 1 keeps the 2^-24 that a separate multiply loses
    const float x = 1.0f + std::ldexp(1.0f, -12);
    CHECK(as_f(ev(ins(op::fma, type::f32), {f(x), f(x), f(-1.0f)})) ==
          std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
    CHECK(as_f(ev(ins(op::add, type::f32),
                  {ev(ins(op::mul, type::f32), {f(x), f(x)}), f(-1.0f)})) == std::ldexp(1.0f, -11));
    // NaN results are canonical
    CHECK(ev(ins(op::add, type::f32), {f(INFINITY), f(-INFINITY)}) == f32_canonical_nan);
    // min / max: a NaN operand loses, -0 is below +0
    CHECK(as_f(ev(ins(op::min, type::f32), {f(std::nanf("")), f(1.0f)})) == 1.0f);
    CHECK(as_f(ev(ins(op::max, type::f32), {f(2.0f), f(std::nanf(""))})) == 2.0f);
    CHECK(ev(ins(op::min, type::f32), {f(0.0f), f(-0.0f)}) == 0x80000000U);
    CHECK(ev(ins(op::max, type::f32), {f(-0.0f), f(0.0f)}) == 0);
    CHECK(ev(ins(op::abs, type::f32), {f(-0.0f)}) == 0);
    CHECK(ev(ins(op::neg, type::f32), {f(0.0f)}) == 0x80000000U);
    CHECK(as_f(ev(ins(op::copysign, type::f32), {f(-1.0f), f(2.0f)})) == -2.0f);
    CHECK(to_f64(ev(ins(op::copysign, type::f64), {d(1.0), d(-3.0)})) == 3.0);
    // f64
    instruction dd = ins(op::div, type::f64);
    dd.rnd = rounding::rn;
    CHECK(to_f64(ev(dd, {d(1.0), d(3.0)})) == 1.0 / 3.0);
    dd.rnd = rounding::rp;
    CHECK(to_f64(ev(dd, {d(1.0), d(3.0)})) == std::nextafter(1.0 / 3.0, 1.0));
    instruction da = ins(op::add, type::f64);
    da.rnd = rounding::rz;
    CHECK(to_f64(ev(da, {d(1.0), d(std::ldexp(1.0, -60))})) == 1.0);
    // f16 arithmetic rounds once to half
    CHECK(ev(ins(op::add, type::f16), {0x3c00, 0x3c00}) == 0x4000);
    CHECK(ev(ins(op::fma, type::f16), {0x4000, 0x4200, 0x3c00}) == 0x4700); // 2*3+1 = 7
}

TEST_CASE("ptx semantics: div.rn and div.rz of f32 against exact quotients") {
    warpkit::rng r(3);
    instruction rn = ins(op::div, type::f32);
    rn.rnd = rounding::rn;
    instruction rz = rn, rp = rn;
    rz.rnd = rounding::rz;
    rp.rnd = rounding::rp;
    for (int i = 0; i < 2000; ++i) {
        const auto a =
            static_cast<float>(std::ldexp(1.0 + r.uniform(), static_cast<int>(r.below(40)) - 20));
        const auto b =
            static_cast<float>(std::ldexp(1.0 + r.uniform(), static_cast<int>(r.below(40)) - 20));
        // Rounding the double quotient to float is correct: 53 >= 2 x 24 + 2 bits.
        CHECK(as_f(ev(rn, {f(a), f(b)})) == static_cast<float>(static_cast<double>(a) / b));
        // Products of two floats are exact in double, so these comparisons are exact.
        const float q = as_f(ev(rz, {f(a), f(b)}));
        CHECK(static_cast<double>(q) * b <= a);
        CHECK(static_cast<double>(std::nextafter(q, INFINITY)) * b > a);
        const float p = as_f(ev(rp, {f(a), f(b)}));
        CHECK(static_cast<double>(p) * b >= a);
        CHECK(static_cast<double>(std::nextafter(p, 0.0f)) * b < a);
    }
    CHECK(std::fegetround() == FE_TONEAREST);
    instruction approx = ins(op::div, type::f32);
    approx.approx = true;
    CHECK(as_f(ev(approx, {f(1.0f), f(4.0f)})) == 0.25f);
}

TEST_CASE("ptx semantics: special functions") {
    instruction i = ins(op::sin, type::f32);
    i.approx = true;
    CHECK(ev(i, {f(0.0f)}) == 0);
    i.opcode = op::cos;
    CHECK(as_f(ev(i, {f(0.0f)})) == 1.0f);
    i.opcode = op::ex2;
    CHECK(as_f(ev(i, {f(3.0f)})) == 8.0f);
    i.ftz = true;
    CHECK(as_f(ev(i, {f(1e-40f)})) == 1.0f);
    i.opcode = op::lg2;
    CHECK(as_f(ev(i, {f(8.0f)})) == 3.0f);
    CHECK(as_f(ev(i, {f(0.0f)})) == -INFINITY);
    CHECK(ev(i, {f(-1.0f)}) == f32_canonical_nan);
    i.opcode = op::rsqrt;
    CHECK(as_f(ev(i, {f(4.0f)})) == 0.5f);
    i.opcode = op::rcp;
    CHECK(as_f(ev(i, {f(4.0f)})) == 0.25f);
    i.opcode = op::sqrt;
    CHECK(as_f(ev(i, {f(9.0f)})) == 3.0f);
    i.opcode = op::tanh;
    CHECK(ev(i, {f(0.0f)}) == 0);
    instruction s = ins(op::sqrt, type::f32);
    s.rnd = rounding::rn;
    CHECK(as_f(ev(s, {f(2.0f)})) == std::sqrt(2.0f));
    s.rnd = rounding::rp;
    CHECK(as_f(ev(s, {f(2.0f)})) == std::nextafter(std::sqrt(2.0f), 2.0f)); // sqrt(2) rounds down
    instruction rc = ins(op::rcp, type::f64);
    rc.rnd = rounding::rn;
    CHECK(to_f64(ev(rc, {d(3.0)})) == 1.0 / 3.0);
}

TEST_CASE("ptx semantics: comparisons, unordered floats, selection") {
    instruction sp = ins(op::setp, type::f32);
    const std::uint64_t nan = f(std::nanf(""));
    const auto cmpf = [&](cmp c, std::uint64_t x, std::uint64_t y) {
        sp.compare = c;
        return ev(sp, {x, y});
    };
    CHECK(cmpf(cmp::lt, f(1.0f), f(2.0f)) == 1);
    CHECK(cmpf(cmp::lt, nan, f(2.0f)) == 0);
    CHECK(cmpf(cmp::ltu, nan, f(2.0f)) == 1);
    CHECK(cmpf(cmp::ne, nan, f(2.0f)) == 0);
    CHECK(cmpf(cmp::neu, nan, f(2.0f)) == 1);
    CHECK(cmpf(cmp::eq, f(0.0f), f(-0.0f)) == 1);
    CHECK(cmpf(cmp::num, f(1.0f), f(2.0f)) == 1);
    CHECK(cmpf(cmp::nan, f(1.0f), nan) == 1);
    CHECK(cmpf(cmp::geu, f(1.0f), f(2.0f)) == 0);
    instruction si = ins(op::setp, type::s32);
    si.compare = cmp::lt;
    CHECK(ev(si, {i32(-1), 0}) == 1);
    si.t = type::u32;
    CHECK(ev(si, {i32(-1), 0}) == 0);
    si.t = type::s32;
    si.compare = cmp::lo; // unsigned compare on a signed type
    CHECK(ev(si, {i32(-1), 0}) == 0);
    // p|q with a combining predicate
    instruction comb = ins(op::setp, type::s32);
    comb.compare = cmp::gt;
    comb.combine = bool_op::and_;
    const std::uint64_t s1[] = {5, 3, 1};
    const auto r = evaluate(comb, s1);
    CHECK(r.value == 1);
    CHECK(r.value2 == 0);
    comb.combine = bool_op::or_;
    const std::uint64_t s2[] = {1, 3, 1};
    CHECK(evaluate(comb, s2).value2 == 1);
    comb.combine = bool_op::xor_;
    CHECK(evaluate(comb, s1).value == 0);
    instruction set = ins(op::set, type::u32);
    set.t2 = type::f32;
    set.compare = cmp::gt;
    CHECK(ev(set, {f(2.0f), f(1.0f)}) == 0xffffffffU);
    set.t = type::f32;
    CHECK(as_f(ev(set, {f(2.0f), f(1.0f)})) == 1.0f);
    CHECK(ev(ins(op::selp, type::b32), {7, 9, 1}) == 7);
    CHECK(ev(ins(op::selp, type::b32), {7, 9, 0}) == 9);
    instruction sl = ins(op::slct, type::b32);
    sl.t2 = type::s32;
    CHECK(ev(sl, {7, 9, i32(-1)}) == 9);
    CHECK(ev(sl, {7, 9, 0}) == 7);
    sl.t2 = type::f32;
    CHECK(ev(sl, {7, 9, f(-0.0f)}) == 7);
    instruction tp = ins(op::testp, type::f32);
    tp.test = test_op::subnormal;
    CHECK(ev(tp, {f(1e-40f)}) == 1);
    tp.test = test_op::normal;
    CHECK(ev(tp, {f(1e-40f)}) == 0);
    CHECK(ev(tp, {f(1.0f)}) == 1);
    tp.test = test_op::infinite;
    CHECK(ev(tp, {f(-INFINITY)}) == 1);
    tp.test = test_op::finite;
    CHECK(ev(tp, {nan}) == 0);
    tp.test = test_op::notanumber;
    CHECK(ev(tp, {nan}) == 1);
}
