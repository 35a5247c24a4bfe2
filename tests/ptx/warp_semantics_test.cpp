// The whole-warp fast path (ptx/warp_semantics.hpp) against the per-lane semantics
// (ptx::evaluate): the same results on every lane for every instruction of the fast set, and
// no claim on the instructions it leaves to evaluate.
#include <warpkit/core/rng.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/semantics.hpp>
#include <warpkit/ptx/warp_semantics.hpp>

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace warpkit;
using ptx::op;
using ptx::type;

namespace {

constexpr std::size_t lanes = 32;

struct lane_values {
    std::array<std::uint64_t, lanes> v{};
    [[nodiscard]] std::uint64_t at(std::size_t l) const noexcept { return v[l]; }
};

// A lane value as a register of type t holds it after a write: cut to the type's width and,
// for signed types, sign-extended (what the PTX source's register write does).
std::uint64_t as_written(type t, std::uint64_t v) {
    return ptx::is_signed(t) ? ptx::extend(t, v) : v & ptx::low_mask(ptx::bits(t));
}

// Interesting raw values first (zero, one, all ones, sign bits, float specials), then random.
lane_values random_operand(rng& r, type t) {
    const float f32_specials[] = {0.0f,
                                  -0.0f,
                                  1.0f,
                                  -1.5f,
                                  std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::denorm_min(),
                                  3.0e38f};
    lane_values o;
    for (std::size_t l = 0; l < lanes; ++l) {
        std::uint64_t v = r();
        if (l < 8 && t == type::f32)
            v = std::bit_cast<std::uint32_t>(f32_specials[l]);
        else if (l < 8)
            v = std::array<std::uint64_t, 8>{
                0,        1, ~0ULL, 0x80000000ULL, 0x7fffffffULL, 0x8000ULL, 0x8000000000000000ULL,
                0xffffULL}[l];
        else if (t == type::f32 && l < 24)
            v = std::bit_cast<std::uint32_t>(static_cast<float>(r.uniform() * 200.0 - 100.0));
        o.v[l] = as_written(t == type::none ? type::b64 : t, v);
    }
    return o;
}

struct fast_case {
    std::string name;
    ptx::instruction in;
    std::array<type, 3> operand_types; // the register types the operands are read from
};

fast_case make(std::string name, op o, type t, std::array<type, 3> ops,
               ptx::mul_mode mode = ptx::mul_mode::none, type t2 = type::none,
               ptx::cmp c = ptx::cmp::none) {
    fast_case f{std::move(name), {}, ops};
    f.in.opcode = o;
    f.in.t = t;
    f.in.t2 = t2;
    f.in.mode = mode;
    f.in.compare = c;
    return f;
}

std::vector<fast_case> fast_cases() {
    using ptx::mul_mode;
    std::vector<fast_case> v;
    for (const type t : {type::b32, type::u64, type::s16, type::f32, type::pred})
        v.push_back(make("mov", op::mov, t, {t, t, t}));
    for (const type t : {type::u32, type::s32, type::u64, type::s64, type::u16, type::f32})
        v.push_back(make("add", op::add, t, {t, t, t}));
    for (const type t : {type::u32, type::s32, type::s64})
        v.push_back(make("sub", op::sub, t, {t, t, t}));
    for (const type t : {type::u32, type::s32, type::u64, type::s16})
        v.push_back(make("mul.lo", op::mul, t, {t, t, t}, mul_mode::lo));
    v.push_back(make("mul.f32", op::mul, type::f32, {type::f32, type::f32, type::f32}));
    for (const type t : {type::u32, type::s32, type::u16, type::s16}) {
        const type w = ptx::result_type(make("", op::mul, t, {}, mul_mode::wide).in);
        v.push_back(make("mul.wide", op::mul, t, {t, t, t}, mul_mode::wide));
        v.push_back(make("mad.wide", op::mad, t, {t, t, w}, mul_mode::wide));
    }
    for (const type t : {type::u32, type::s32, type::s64})
        v.push_back(make("mad.lo", op::mad, t, {t, t, t}, mul_mode::lo));
    v.push_back(make("fma.rn.f32", op::fma, type::f32, {type::f32, type::f32, type::f32}));
    for (const op o : {op::and_, op::or_, op::xor_, op::not_})
        for (const type t : {type::b32, type::b64, type::b16, type::pred})
            v.push_back(make("logic", o, t, {t, t, t}));
    for (const op o : {op::shl, op::shr})
        for (const type t : {type::b32, type::u32, type::s32, type::b64, type::s64, type::u16})
            v.push_back(make("shift", o, t, {t, type::u32, t}));
    for (const type t : {type::b32, type::u64, type::f32, type::s16})
        v.push_back(make("selp", op::selp, t, {t, t, type::pred}));
    for (const type t : {type::s32, type::u32, type::u64, type::s64, type::f32, type::b16})
        for (const auto c :
             {ptx::cmp::eq, ptx::cmp::ne, ptx::cmp::lt, ptx::cmp::le, ptx::cmp::gt, ptx::cmp::ge,
              ptx::cmp::lo, ptx::cmp::hs, ptx::cmp::ltu, ptx::cmp::nan})
            if (ptx::is_float(t) || (c != ptx::cmp::ltu && c != ptx::cmp::nan))
                v.push_back(
                    make("setp", op::setp, t, {t, t, type::pred}, mul_mode::none, type::none, c));
    const type ints[] = {type::u8,  type::s8,  type::u16, type::s16, type::u32,
                         type::s32, type::u64, type::s64, type::b32};
    for (const type to : ints)
        for (const type from : ints)
            v.push_back(make("cvt", op::cvt, to, {from, from, from}, mul_mode::none, from));
    return v;
}

} // namespace

TEST_CASE("evaluate_warp equals evaluate lane by lane on every instruction it takes") {
    rng r(2024);
    std::size_t checked = 0;
    for (const auto& c : fast_cases()) {
        for (int round = 0; round < 8; ++round) {
            const lane_values a = random_operand(r, c.operand_types[0]);
            const lane_values b = random_operand(r, c.operand_types[1]);
            const lane_values cc = random_operand(r, c.operand_types[2]);
            const type rt = ptx::result_type(c.in);
            std::array<std::uint64_t, lanes> fast{};
            const bool taken = ptx::evaluate_warp(c.in, a, b, cc, [&](auto&& f) {
                for (std::size_t l = 0; l < lanes; ++l)
                    fast[l] = as_written(rt, f(l));
            });
            INFO(c.name << " type " << ptx::bits(c.in.t) << "-bit"
                        << (ptx::is_signed(c.in.t) ? " signed" : ""));
            REQUIRE(taken);
            for (std::size_t l = 0; l < lanes; ++l) {
                const std::array<std::uint64_t, 3> src{a.at(l), b.at(l), cc.at(l)};
                const ptx::lane_result slow = ptx::evaluate(c.in, src);
                INFO("lane " << l << ": a=" << a.at(l) << " b=" << b.at(l) << " c=" << cc.at(l));
                CHECK(fast[l] == as_written(rt, slow.value));
                ++checked;
            }
        }
    }
    CHECK(checked > 20000);
}

TEST_CASE("evaluate_warp leaves modified and uncommon instructions to evaluate") {
    const lane_values zero{};
    int calls = 0;
    const auto count = [&](auto&&) { ++calls; };
    auto in = make("", op::add, type::f32, {}).in;
    in.ftz = true;
    CHECK_FALSE(ptx::evaluate_warp(in, zero, zero, zero, count));
    in.ftz = false;
    in.sat = true;
    CHECK_FALSE(ptx::evaluate_warp(in, zero, zero, zero, count));
    in.sat = false;
    in.rnd = ptx::rounding::rz; // directed rounding
    CHECK_FALSE(ptx::evaluate_warp(in, zero, zero, zero, count));
    CHECK_FALSE(ptx::evaluate_warp(make("", op::sub, type::f32, {}).in, zero, zero, zero, count));
    CHECK_FALSE(ptx::evaluate_warp(make("", op::mul, type::u32, {}, ptx::mul_mode::hi).in, zero,
                                   zero, zero, count));
    CHECK_FALSE(ptx::evaluate_warp(make("", op::fma, type::f64, {}).in, zero, zero, zero, count));
    CHECK_FALSE(ptx::evaluate_warp(make("", op::div, type::s32, {}).in, zero, zero, zero, count));
    CHECK_FALSE(
        ptx::evaluate_warp(make("", op::cvt, type::f32, {}, ptx::mul_mode::none, type::s32).in,
                           zero, zero, zero, count));
    auto setp = make("", op::setp, type::s32, {}, ptx::mul_mode::none, type::none, ptx::cmp::lt).in;
    setp.combine = ptx::bool_op::and_;
    CHECK_FALSE(ptx::evaluate_warp(setp, zero, zero, zero, count));
    CHECK(calls == 0);
}

TEST_CASE("extension: extend with the type looked at once, on every type and edge value") {
    // The lane loops widen through ptx::extension; extend is the definition.
    rng r(11);
    std::vector<std::uint64_t> values{0,
                                      1,
                                      0x7f,
                                      0x80,
                                      0xff,
                                      0x7fff,
                                      0x8000,
                                      0xffff,
                                      0x7fffffff,
                                      0x80000000,
                                      0xffffffff,
                                      0x7fffffffffffffff,
                                      0x8000000000000000,
                                      ~std::uint64_t{0}};
    for (int i = 0; i < 200; ++i)
        values.push_back(r());
    int checked = 0;
    for (auto t = static_cast<unsigned>(type::none); t <= static_cast<unsigned>(type::f64); ++t) {
        const auto ty = static_cast<type>(t);
        const ptx::extension e(ty);
        for (const std::uint64_t v : values) {
            CHECK(e(v) == ptx::extend(ty, v));
            ++checked;
        }
    }
    CHECK(checked == 214 * (static_cast<int>(type::f64) + 1));
}

TEST_CASE("atomic_result: the read-modify-write of each atom operation") {
    ptx::instruction in;
    in.opcode = op::atom;
    in.t = type::u32;
    const auto with = [&](ptx::atom_op o) {
        in.aop = o;
        return in;
    };
    CHECK(ptx::atomic_result(with(ptx::atom_op::add), 0xffffffffU, 2, 0) == 1); // wraps at 32
    CHECK(ptx::atomic_result(with(ptx::atom_op::inc), 5, 5, 0) == 0); // old >= b: back to 0
    CHECK(ptx::atomic_result(with(ptx::atom_op::inc), 4, 5, 0) == 5);
    CHECK(ptx::atomic_result(with(ptx::atom_op::dec), 0, 7, 0) == 7); // old == 0: b
    CHECK(ptx::atomic_result(with(ptx::atom_op::dec), 9, 7, 0) == 7); // old > b: b
    CHECK(ptx::atomic_result(with(ptx::atom_op::dec), 3, 7, 0) == 2);
    CHECK(ptx::atomic_result(with(ptx::atom_op::cas), 3, 3, 11) == 11);
    CHECK(ptx::atomic_result(with(ptx::atom_op::cas), 4, 3, 11) == 4);
    CHECK(ptx::atomic_result(with(ptx::atom_op::exch), 4, 0x1'0000'0009ULL, 0) == 9);
    in.t = type::s32;
    CHECK(ptx::atomic_result(with(ptx::atom_op::min), 0xffffffffU, 1, 0) == 0xffffffffU); // -1
    in.t = type::f32;
    const auto f = [](float x) { return std::uint64_t{std::bit_cast<std::uint32_t>(x)}; };
    CHECK(ptx::atomic_result(with(ptx::atom_op::add), f(1.5f), f(2.25f), 0) == f(3.75f));
    // atom.add.f32 flushes a subnormal operand to zero
    CHECK(ptx::atomic_result(with(ptx::atom_op::add), f(0.0f),
                             f(std::numeric_limits<float>::denorm_min()), 0) == f(0.0f));
}

TEST_CASE("generic address windows: decode, cvta and names") {
    const std::uint64_t in_shared = ptx::generic_shared_base + 0x40;
    CHECK(ptx::decode_generic(in_shared).sp == ptx::space::shared);
    CHECK(ptx::decode_generic(in_shared).addr == 0x40);
    CHECK(ptx::decode_generic(ptx::generic_param_base + ptx::generic_window_bytes - 1).sp ==
          ptx::space::param);
    CHECK(ptx::decode_generic(ptx::generic_param_base + ptx::generic_window_bytes).sp ==
          ptx::space::global);
    CHECK(ptx::decode_generic(0x1000).addr == 0x1000);
    ptx::instruction in;
    in.opcode = op::cvta;
    in.t = type::u64;
    in.sp = ptx::space::local;
    CHECK(ptx::cvta(in, 0x10) == ptx::generic_local_base + 0x10);
    in.to = true;
    CHECK(ptx::cvta(in, ptx::generic_local_base + 0x10) == 0x10);
    in.sp = ptx::space::global;
    CHECK(ptx::cvta(in, 0x1234) == 0x1234);
    CHECK(std::string(ptx::space_name(ptx::space::param)) == "parameter");
}
