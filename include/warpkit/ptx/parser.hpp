#pragma once
/// \file
/// PTX text -> ptx::module for the subset nvcc 13 emits at -O3 and -G (see ir.hpp for what
/// each field means). Every name is resolved (registers, variables, parameters, labels,
/// functions); anything outside the subset or malformed is a warpkit::parse_error with
/// file, line and column whose message names the instruction, e.g.
/// `unsupported instruction 'tex.2d.v4.f32.f32'`.
///
/// Field conventions beyond ir.hpp:
/// - `t` is the instruction type; mul/mad `.wide` keep the source type (the result is twice
///   as wide); popc/clz/bfind/brev keep the source type (popc, clz, bfind write a .u32);
///   shl/shr/shf take the shift amount as .u32; vote: .pred for all/any/uni, .b32 for ballot.
/// - Two-type instructions: cvt `t` = destination, `t2` = source; set `t` = destination,
///   `t2` = compared type; slct `t` = data type, `t2` = selector type.
/// - `sp` is space::generic for ld / st / ldu / atom / red / prefetch without a state space.
/// - `membar.gl` is scope::gpu; `barrier.sync` is op::bar (`.aligned` dropped); cache-policy
///   qualifiers (`.ca .cg .cs .lu .cv .wb .wt .L2::128B` ...) carry no semantics and are dropped.
/// - Special registers may only be read by mov, symbols (variable and function addresses)
///   only by mov and cvta, as ptxas requires.
/// Register declarations may not be used before they appear. Positions count bytes from 1
/// (a tab is one column).

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace warpkit::ptx {

namespace detail {

/// Packs up to the first 8 characters of a word and its length into one key.
[[nodiscard]] constexpr std::uint64_t word_key(std::string_view w) noexcept {
    std::uint64_t k = 0;
    for (std::size_t i = 0; i < w.size() && i < 8; ++i)
        k |= static_cast<std::uint64_t>(static_cast<unsigned char>(w[i])) << (8 * i);
    return k ^ (static_cast<std::uint64_t>(w.size() > 255 ? 255 : w.size()) << 56);
}

/// A word looked up in a table built at compile time (sorted by key, binary search).
template <class Entry, std::size_t N>
struct word_table {
    std::array<Entry, N> entries;
    constexpr explicit word_table(std::array<Entry, N> e) : entries(e) {
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& a, const Entry& b) { return a.key < b.key; });
    }
    [[nodiscard]] constexpr const Entry* find(std::string_view w) const noexcept {
        const std::uint64_t k = word_key(w);
        std::size_t lo = 0, hi = N;
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (entries[mid].key < k)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (std::size_t i = lo; i < N && entries[i].key == k; ++i)
            if (entries[i].text == w) return &entries[i];
        return nullptr;
    }
};

// --- modifiers ------------------------------------------------------------------------

/// Classes of instruction modifiers; each class fills one field of the instruction.
enum class mclass : std::uint8_t {
    type,
    bad_type, // a PTX type outside the subset (.b128, .bf16, .f16x2 ...)
    space,
    rnd,
    cmp,
    boolop,
    mulmode, // .lo .hi .wide
    aop,
    shfl,
    vote,
    order,
    scope,
    gl, // membar.gl
    ftz,
    sat,
    approx,
    full,
    nc,
    to,
    cc,
    shf_dir,
    shf_mode,
    sync,
    arrive,
    warp,
    aligned,
    shiftamt,
    test,
    vec,
    uni,
    cache, // cache-policy qualifiers: accepted and dropped
    level, // prefetch .L1 / .L2
    geom,  // tex .1d / .2d
    none,
};
[[nodiscard]] constexpr std::uint64_t bit(mclass c) noexcept {
    return std::uint64_t{1} << static_cast<unsigned>(c);
}

struct mod_word {
    std::string_view text;
    mclass c1 = mclass::none;
    std::uint8_t v1 = 0;
    mclass c2 = mclass::none; // the meaning when the instruction does not take c1
    std::uint8_t v2 = 0;
    std::uint64_t key = word_key(text);
};
template <class E>
constexpr mod_word mw(std::string_view t, mclass c, E v) {
    return {t, c, static_cast<std::uint8_t>(v), mclass::none, 0, word_key(t)};
}
template <class E1, class E2>
constexpr mod_word mw2(std::string_view t, mclass c1, E1 v1, mclass c2, E2 v2) {
    return {t, c1, static_cast<std::uint8_t>(v1), c2, static_cast<std::uint8_t>(v2), word_key(t)};
}

inline constexpr word_table<mod_word, 126> modifier_words{std::array<mod_word, 126>{
    mw("pred", mclass::type, type::pred),
    mw("b8", mclass::type, type::b8),
    mw("b16", mclass::type, type::b16),
    mw("b32", mclass::type, type::b32),
    mw("b64", mclass::type, type::b64),
    mw("u8", mclass::type, type::u8),
    mw("u16", mclass::type, type::u16),
    mw("u32", mclass::type, type::u32),
    mw("u64", mclass::type, type::u64),
    mw("s8", mclass::type, type::s8),
    mw("s16", mclass::type, type::s16),
    mw("s32", mclass::type, type::s32),
    mw("s64", mclass::type, type::s64),
    mw("f16", mclass::type, type::f16),
    mw("f32", mclass::type, type::f32),
    mw("f64", mclass::type, type::f64),
    mw("b128", mclass::bad_type, 0),
    mw("u128", mclass::bad_type, 0),
    mw("s128", mclass::bad_type, 0),
    mw("f16x2", mclass::bad_type, 0),
    mw("bf16", mclass::bad_type, 0),
    mw("bf16x2", mclass::bad_type, 0),
    mw("tf32", mclass::bad_type, 0),
    mw("e4m3", mclass::bad_type, 0),
    mw("e5m2", mclass::bad_type, 0),
    mw("u16x2", mclass::bad_type, 0),
    mw("s16x2", mclass::bad_type, 0),
    mw("global", mclass::space, space::global),
    mw("shared", mclass::space, space::shared),
    mw("const", mclass::space, space::constant),
    mw("local", mclass::space, space::local),
    mw("param", mclass::space, space::param),
    mw("rn", mclass::rnd, rounding::rn),
    mw("rz", mclass::rnd, rounding::rz),
    mw("rm", mclass::rnd, rounding::rm),
    mw("rp", mclass::rnd, rounding::rp),
    mw("rni", mclass::rnd, rounding::rni),
    mw("rzi", mclass::rnd, rounding::rzi),
    mw("rmi", mclass::rnd, rounding::rmi),
    mw("rpi", mclass::rnd, rounding::rpi),
    mw("eq", mclass::cmp, cmp::eq),
    mw("ne", mclass::cmp, cmp::ne),
    mw("lt", mclass::cmp, cmp::lt),
    mw("le", mclass::cmp, cmp::le),
    mw("gt", mclass::cmp, cmp::gt),
    mw("ge", mclass::cmp, cmp::ge),
    mw2("lo", mclass::cmp, cmp::lo, mclass::mulmode, mul_mode::lo),
    mw("ls", mclass::cmp, cmp::ls),
    mw2("hi", mclass::cmp, cmp::hi, mclass::mulmode, mul_mode::hi),
    mw("hs", mclass::cmp, cmp::hs),
    mw("equ", mclass::cmp, cmp::equ),
    mw("neu", mclass::cmp, cmp::neu),
    mw("ltu", mclass::cmp, cmp::ltu),
    mw("leu", mclass::cmp, cmp::leu),
    mw("gtu", mclass::cmp, cmp::gtu),
    mw("geu", mclass::cmp, cmp::geu),
    mw("num", mclass::cmp, cmp::num),
    mw("nan", mclass::cmp, cmp::nan),
    mw2("and", mclass::boolop, bool_op::and_, mclass::aop, atom_op::and_),
    mw2("or", mclass::boolop, bool_op::or_, mclass::aop, atom_op::or_),
    mw2("xor", mclass::boolop, bool_op::xor_, mclass::aop, atom_op::xor_),
    mw("wide", mclass::mulmode, mul_mode::wide),
    mw("add", mclass::aop, atom_op::add),
    mw("min", mclass::aop, atom_op::min),
    mw("max", mclass::aop, atom_op::max),
    mw("inc", mclass::aop, atom_op::inc),
    mw("dec", mclass::aop, atom_op::dec),
    mw("exch", mclass::aop, atom_op::exch),
    mw("cas", mclass::aop, atom_op::cas),
    mw("up", mclass::shfl, shfl_mode::up),
    mw("down", mclass::shfl, shfl_mode::down),
    mw("bfly", mclass::shfl, shfl_mode::bfly),
    mw("idx", mclass::shfl, shfl_mode::idx),
    mw("all", mclass::vote, vote_mode::all),
    mw("any", mclass::vote, vote_mode::any),
    mw("ballot", mclass::vote, vote_mode::ballot),
    mw2("uni", mclass::uni, 1, mclass::vote, vote_mode::uni),
    mw("weak", mclass::order, order::weak),
    mw("relaxed", mclass::order, order::relaxed),
    mw("acquire", mclass::order, order::acquire),
    mw("release", mclass::order, order::release),
    mw("acq_rel", mclass::order, order::acq_rel),
    mw("sc", mclass::order, order::sc),
    mw("volatile", mclass::order, order::volatile_),
    mw("cta", mclass::scope, scope::cta),
    mw("gpu", mclass::scope, scope::gpu),
    mw("sys", mclass::scope, scope::sys),
    mw("gl", mclass::gl, scope::gpu),
    mw("ftz", mclass::ftz, 1),
    mw("sat", mclass::sat, 1),
    mw("approx", mclass::approx, 1),
    mw("full", mclass::full, 1),
    mw("nc", mclass::nc, 1),
    mw("to", mclass::to, 1),
    mw("cc", mclass::cc, 1),
    mw("l", mclass::shf_dir, 1),
    mw("r", mclass::shf_dir, 0),
    mw("wrap", mclass::shf_mode, 1),
    mw("clamp", mclass::shf_mode, 0),
    mw("sync", mclass::sync, 1),
    mw("arrive", mclass::arrive, 1),
    mw("warp", mclass::warp, 1),
    mw("aligned", mclass::aligned, 1),
    mw("shiftamt", mclass::shiftamt, 1),
    mw("finite", mclass::test, test_op::finite),
    mw("infinite", mclass::test, test_op::infinite),
    mw("number", mclass::test, test_op::number),
    mw("notanumber", mclass::test, test_op::notanumber),
    mw("normal", mclass::test, test_op::normal),
    mw("subnormal", mclass::test, test_op::subnormal),
    mw("v2", mclass::vec, 2),
    mw("v4", mclass::vec, 4),
    mw("ca", mclass::cache, 1),
    mw("cg", mclass::cache, 1),
    mw("cs", mclass::cache, 1),
    mw("lu", mclass::cache, 1),
    mw("cv", mclass::cache, 1),
    mw("wb", mclass::cache, 1),
    mw("wt", mclass::cache, 1),
    mw("L1", mclass::level, 1),
    mw("L2", mclass::level, 2),
    mw("1d", mclass::geom, tex_geom::d1),
    mw("2d", mclass::geom, tex_geom::d2),
}};

// --- opcodes ----------------------------------------------------------------------------

[[nodiscard]] constexpr std::uint32_t tb(type t) noexcept {
    return std::uint32_t{1} << static_cast<unsigned>(t);
}
inline constexpr std::uint32_t t_pred = tb(type::pred);
inline constexpr std::uint32_t t_b = tb(type::b16) | tb(type::b32) | tb(type::b64);
inline constexpr std::uint32_t t_u = tb(type::u16) | tb(type::u32) | tb(type::u64);
inline constexpr std::uint32_t t_s = tb(type::s16) | tb(type::s32) | tb(type::s64);
inline constexpr std::uint32_t t_int = t_u | t_s;
inline constexpr std::uint32_t t_f = tb(type::f32) | tb(type::f64);
inline constexpr std::uint32_t t_h = tb(type::f16);
inline constexpr std::uint32_t t_32_64 =
    tb(type::u32) | tb(type::s32) | tb(type::u64) | tb(type::s64);
inline constexpr std::uint32_t t_b3264 = tb(type::b32) | tb(type::b64);
inline constexpr std::uint32_t t_mem =
    tb(type::b8) | tb(type::u8) | tb(type::s8) | t_b | t_u | t_s | t_f;
inline constexpr std::uint32_t t_cvt = tb(type::u8) | tb(type::s8) | t_u | t_s | t_f | t_h;

/// Operand signature letters (see parser::parse_operands).
struct op_spec {
    std::string_view text;
    op code = op::mov;
    std::uint64_t mods = 0;   ///< allowed modifier classes
    std::uint32_t types = 0;  ///< allowed (first) types; 0: the instruction takes no type
    std::uint32_t types2 = 0; ///< allowed second types (cvt, set, slct)
    bool barrier = false;     ///< the `barrier` spelling of bar
    std::uint64_t key = word_key(text);
};
constexpr op_spec os(std::string_view t, op o, std::uint64_t mods, std::uint32_t types,
                     std::uint32_t types2 = 0, bool barrier = false) {
    return {t, o, mods, types, types2, barrier, word_key(t)};
}
inline constexpr std::uint64_t m_ty = bit(mclass::type) | bit(mclass::bad_type);
inline constexpr std::uint64_t m_fp =
    bit(mclass::rnd) | bit(mclass::ftz) | bit(mclass::sat); // float arithmetic modifiers
inline constexpr std::uint64_t m_mem = m_ty | bit(mclass::space) | bit(mclass::order) |
                                       bit(mclass::scope) | bit(mclass::vec) | bit(mclass::cache);

inline constexpr word_table<op_spec, 69> op_words{std::array<op_spec, 69>{
    os("add", op::add, m_ty | m_fp | bit(mclass::cc), t_int | t_f | t_h),
    os("addc", op::addc, m_ty | bit(mclass::cc), t_32_64),
    os("sub", op::sub, m_ty | m_fp | bit(mclass::cc), t_int | t_f | t_h),
    os("subc", op::subc, m_ty | bit(mclass::cc), t_32_64),
    os("mul", op::mul, m_ty | m_fp | bit(mclass::mulmode), t_int | t_f | t_h),
    os("mad", op::mad, m_ty | m_fp | bit(mclass::mulmode) | bit(mclass::cc), t_int | t_f),
    os("madc", op::madc, m_ty | bit(mclass::mulmode) | bit(mclass::cc), t_32_64),
    os("mul24", op::mul24, m_ty | bit(mclass::mulmode), tb(type::u32) | tb(type::s32)),
    os("mad24", op::mad24, m_ty | bit(mclass::mulmode) | bit(mclass::sat),
       tb(type::u32) | tb(type::s32)),
    os("fma", op::fma, m_ty | m_fp, t_f | t_h),
    os("div", op::div,
       m_ty | bit(mclass::rnd) | bit(mclass::ftz) | bit(mclass::approx) | bit(mclass::full),
       t_int | t_f),
    os("rem", op::rem, m_ty, t_int),
    os("abs", op::abs, m_ty | bit(mclass::ftz), t_s | t_f | t_h),
    os("neg", op::neg, m_ty | bit(mclass::ftz), t_s | t_f | t_h),
    os("min", op::min, m_ty | bit(mclass::ftz), t_int | t_f),
    os("max", op::max, m_ty | bit(mclass::ftz), t_int | t_f),
    os("sad", op::sad, m_ty, t_int),
    os("popc", op::popc, m_ty, t_b3264),
    os("clz", op::clz, m_ty, t_b3264),
    os("bfind", op::bfind, m_ty | bit(mclass::shiftamt), t_32_64),
    os("brev", op::brev, m_ty, t_b3264),
    os("bfe", op::bfe, m_ty, t_32_64),
    os("bfi", op::bfi, m_ty, t_b3264),
    os("prmt", op::prmt, m_ty, tb(type::b32)),
    os("and", op::and_, m_ty, t_pred | t_b),
    os("or", op::or_, m_ty, t_pred | t_b),
    os("xor", op::xor_, m_ty, t_pred | t_b),
    os("not", op::not_, m_ty, t_pred | t_b),
    os("cnot", op::cnot, m_ty, t_b),
    os("lop3", op::lop3, m_ty, tb(type::b32)),
    os("shl", op::shl, m_ty, t_b),
    os("shr", op::shr, m_ty, t_b | t_int),
    os("shf", op::shf, m_ty | bit(mclass::shf_dir) | bit(mclass::shf_mode), tb(type::b32)),
    os("setp", op::setp, m_ty | bit(mclass::cmp) | bit(mclass::boolop) | bit(mclass::ftz),
       t_b | t_int | t_f | t_h),
    os("set", op::set, m_ty | bit(mclass::cmp) | bit(mclass::boolop) | bit(mclass::ftz),
       tb(type::u32) | tb(type::s32) | tb(type::f32), t_b | t_int | t_f),
    os("selp", op::selp, m_ty, t_b | t_int | t_f),
    os("slct", op::slct, m_ty | bit(mclass::ftz), t_b | t_int | t_f, tb(type::s32) | tb(type::f32)),
    os("testp", op::testp, m_ty | bit(mclass::test), t_f),
    os("copysign", op::copysign, m_ty, t_f),
    os("cvt", op::cvt, m_ty | m_fp, t_cvt, t_cvt),
    os("cvta", op::cvta, m_ty | bit(mclass::space) | bit(mclass::to),
       tb(type::u32) | tb(type::u64)),
    os("mov", op::mov, m_ty, t_pred | t_b | t_int | t_f),
    os("ld", op::ld, m_mem | bit(mclass::nc), t_mem),
    os("ldu", op::ldu, m_ty | bit(mclass::space) | bit(mclass::vec), t_mem),
    os("st", op::st, m_mem, t_mem),
    os("atom", op::atom,
       m_ty | bit(mclass::space) | bit(mclass::order) | bit(mclass::scope) | bit(mclass::aop),
       t_b3264 | t_32_64 | t_f),
    os("red", op::red,
       m_ty | bit(mclass::space) | bit(mclass::order) | bit(mclass::scope) | bit(mclass::aop),
       t_b3264 | t_32_64 | t_f),
    os("prefetch", op::prefetch, bit(mclass::space) | bit(mclass::level), 0),
    os("rcp", op::rcp, m_ty | bit(mclass::rnd) | bit(mclass::ftz) | bit(mclass::approx), t_f),
    os("sqrt", op::sqrt, m_ty | bit(mclass::rnd) | bit(mclass::ftz) | bit(mclass::approx), t_f),
    os("rsqrt", op::rsqrt, m_ty | bit(mclass::ftz) | bit(mclass::approx), t_f),
    os("sin", op::sin, m_ty | bit(mclass::ftz) | bit(mclass::approx), tb(type::f32)),
    os("cos", op::cos, m_ty | bit(mclass::ftz) | bit(mclass::approx), tb(type::f32)),
    os("lg2", op::lg2, m_ty | bit(mclass::ftz) | bit(mclass::approx), tb(type::f32)),
    os("ex2", op::ex2, m_ty | bit(mclass::ftz) | bit(mclass::approx), tb(type::f32)),
    os("tanh", op::tanh, m_ty | bit(mclass::approx), tb(type::f32)),
    os("shfl", op::shfl, m_ty | bit(mclass::sync) | bit(mclass::shfl), tb(type::b32)),
    os("vote", op::vote, m_ty | bit(mclass::sync) | bit(mclass::vote), t_pred | tb(type::b32)),
    os("activemask", op::activemask, m_ty, tb(type::b32)),
    os("bar", op::bar,
       bit(mclass::sync) | bit(mclass::arrive) | bit(mclass::warp) | bit(mclass::scope), 0),
    os("barrier", op::bar,
       bit(mclass::sync) | bit(mclass::arrive) | bit(mclass::aligned) | bit(mclass::scope), 0, 0,
       true),
    os("membar", op::membar, bit(mclass::gl) | bit(mclass::scope), 0),
    os("fence", op::fence, bit(mclass::order) | bit(mclass::scope), 0),
    os("bra", op::bra, bit(mclass::uni), 0),
    os("call", op::call, bit(mclass::uni), 0),
    os("ret", op::ret, bit(mclass::uni), 0),
    os("exit", op::exit, 0, 0),
    os("trap", op::trap, 0, 0),
    os("tex", op::tex, m_ty | bit(mclass::geom) | bit(mclass::vec),
       tb(type::u32) | tb(type::s32) | tb(type::f32), tb(type::s32) | tb(type::f32)),
}};

/// Special registers by name (with the `%`).
struct sreg_word {
    std::string_view text;
    sreg s = sreg::tid;
    std::uint64_t key = word_key(text);
};
constexpr sreg_word sw(std::string_view t, sreg s) {
    return {t, s, word_key(t)};
}
inline constexpr word_table<sreg_word, 17> sreg_words{std::array<sreg_word, 17>{
    sw("%tid", sreg::tid),
    sw("%ntid", sreg::ntid),
    sw("%ctaid", sreg::ctaid),
    sw("%nctaid", sreg::nctaid),
    sw("%laneid", sreg::laneid),
    sw("%warpid", sreg::warpid),
    sw("%nwarpid", sreg::nwarpid),
    sw("%smid", sreg::smid),
    sw("%nsmid", sreg::nsmid),
    sw("%gridid", sreg::gridid),
    sw("%clock", sreg::clock),
    sw("%clock64", sreg::clock64),
    sw("%lanemask_eq", sreg::lanemask_eq),
    sw("%lanemask_le", sreg::lanemask_le),
    sw("%lanemask_lt", sreg::lanemask_lt),
    sw("%lanemask_ge", sreg::lanemask_ge),
    sw("%lanemask_gt", sreg::lanemask_gt),
}};

/// Names visible in nested `{ }` scopes: declare / find / push / pop, shadowing handled.
template <class Value>
class scoped_names {
public:
    struct entry {
        std::string_view name;
        Value value{};
        std::uint32_t depth = 0;
        std::uint32_t shadowed = no_index; ///< the entry this one hides
    };

    void clear() {
        visible_.clear();
        entries_.clear();
        marks_.clear();
    }
    void push() { marks_.push_back(static_cast<std::uint32_t>(entries_.size())); }
    void pop() {
        const std::uint32_t mark = marks_.empty() ? 0 : marks_.back();
        if (!marks_.empty()) marks_.pop_back();
        while (entries_.size() > mark) {
            const entry& e = entries_.back();
            if (e.shadowed == no_index)
                visible_.erase(e.name);
            else
                visible_[e.name] = e.shadowed;
            entries_.pop_back();
        }
    }
    [[nodiscard]] std::uint32_t depth() const noexcept {
        return static_cast<std::uint32_t>(marks_.size());
    }
    /// Declares `name` in the innermost scope; false when it already exists there.
    bool declare(std::string_view name, Value v) {
        auto [it, inserted] = visible_.try_emplace(name, 0U);
        std::uint32_t shadowed = no_index;
        if (!inserted) {
            if (entries_[it->second].depth == depth()) return false;
            shadowed = it->second;
        }
        it->second = static_cast<std::uint32_t>(entries_.size());
        entries_.push_back(entry{name, v, depth(), shadowed});
        return true;
    }
    [[nodiscard]] const entry* find(std::string_view name) const {
        if (visible_.empty()) return nullptr;
        const auto it = visible_.find(name);
        return it == visible_.end() ? nullptr : &entries_[it->second];
    }
    [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }

private:
    std::unordered_map<std::string_view, std::uint32_t> visible_;
    std::vector<entry> entries_;
    std::vector<std::uint32_t> marks_;
};

struct symbol_ref {
    symbol_kind kind = symbol_kind::module_var;
    std::uint32_t index = no_index;
};

[[nodiscard]] inline std::string squote(std::string_view s) {
    std::string r;
    r.reserve(s.size() + 2);
    r += '\'';
    r += s;
    r += '\'';
    return r;
}

[[nodiscard]] constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

/// The recursive-descent parser behind parse_ptx.
class parser {
public:
    parser(std::string_view text, std::string file) : file_(std::move(file)), lex_(text, file_) {}

    module run() {
        module m;
        m.file = file_;
        mod_ = &m;
        parse_header();
        while (lex_.peek().kind != token_kind::end)
            parse_module_statement();
        mod_ = nullptr;
        return m;
    }

private:
    // --- token helpers -------------------------------------------------------------------
    const token& peek() const noexcept { return lex_.peek(); }
    token next() { return lex_.next(); }
    [[noreturn]] void fail(const token& t, std::string msg) const { lex_.fail(t, std::move(msg)); }
    [[noreturn]] void fail(source_pos p, std::string msg) const {
        lex_.fail(p.line, p.column, std::move(msg));
    }
    static source_pos pos_of(const token& t) noexcept { return {t.line, t.column}; }

    static std::string describe(const token& t) {
        switch (t.kind) {
        case token_kind::end:
            return "end of file";
        case token_kind::directive:
            return squote("." + std::string(t.text));
        case token_kind::string:
            return "a string";
        default:
            return squote(t.text);
        }
    }
    void expect(char c, std::string_view what = {}) {
        const token& t = peek();
        if (!t.is(c)) {
            std::string m = "expected '";
            m += c;
            m += '\'';
            if (!what.empty()) {
                m += ' ';
                m += what;
            }
            m += ", found " + describe(t);
            fail(t, std::move(m));
        }
        next();
    }
    bool accept(char c) {
        if (!peek().is(c)) return false;
        next();
        return true;
    }
    bool accept_directive(std::string_view d) {
        if (peek().kind != token_kind::directive || peek().text != d) return false;
        next();
        return true;
    }
    token expect_ident(std::string_view what) {
        if (peek().kind != token_kind::ident)
            fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
        return next();
    }
    std::uint64_t expect_uint(std::string_view what, std::uint64_t max) {
        const token& t = peek();
        if (t.kind != token_kind::integer)
            fail(t, "expected " + std::string(what) + ", found " + describe(t));
        if (t.value > max)
            fail(t, std::string(what) + " " + std::string(t.text) + " is out of range (at most " +
                        std::to_string(max) + ")");
        return next().value;
    }
    // A type directive such as `.u32`; fails on anything else.
    type expect_type(std::string_view context) {
        const token& t = peek();
        if (t.kind == token_kind::directive) {
            const mod_word* w = modifier_words.find(t.text);
            if (w != nullptr && w->c1 == mclass::type) {
                next();
                return static_cast<type>(w->v1);
            }
            if (w != nullptr && w->c1 == mclass::bad_type)
                fail(t, "unsupported type ." + std::string(t.text) + " in " + std::string(context));
        }
        fail(t, "expected a type in " + std::string(context) + ", found " + describe(t));
    }

    // --- module level --------------------------------------------------------------------
    void parse_header() {
        const token& t = peek();
        if (t.kind != token_kind::directive || t.text != "version")
            fail(t, "expected '.version' at the start of the PTX, found " + describe(t));
        next();
        const token v = next();
        // `9.0` lexes as a decimal float; take its text apart.
        const auto dot = v.text.find('.');
        auto digits = [](std::string_view s) {
            return !s.empty() && s.size() <= 3 &&
                   std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (v.kind != token_kind::f64 || dot == std::string_view::npos ||
            !digits(v.text.substr(0, dot)) || !digits(v.text.substr(dot + 1)))
            fail(v, "bad .version " + squote(v.text) + " (expected major.minor, e.g. 9.0)");
        mod_->version_major = to_u32(v.text.substr(0, dot));
        mod_->version_minor = to_u32(v.text.substr(dot + 1));
        if (!accept_directive("target"))
            fail(peek(), "expected '.target' after '.version', found " + describe(peek()));
        const token arch = expect_ident("a target (sm_XX or compute_XX)");
        if (!valid_arch(arch.text))
            fail(arch, "bad target " + squote(arch.text) + " (expected sm_XX or compute_XX)");
        mod_->target = std::string(arch.text);
        while (accept(',')) {
            const token o = expect_ident("a target option");
            if (o.text != "debug" && o.text != "texmode_unified" &&
                o.text != "texmode_independent" && o.text != "map_f64_to_f32")
                fail(o, "unknown target option " + squote(o.text));
        }
        if (accept_directive("address_size")) {
            const token a = peek();
            const std::uint64_t n = expect_uint("address size", 64);
            if (n != 32 && n != 64) fail(a, "bad .address_size " + std::string(a.text));
            mod_->address_size = static_cast<std::uint32_t>(n);
        }
    }
    static std::uint32_t to_u32(std::string_view s) noexcept {
        std::uint32_t v = 0;
        for (char c : s)
            v = v * 10 + static_cast<std::uint32_t>(c - '0');
        return v;
    }
    static bool valid_arch(std::string_view a) noexcept {
        std::string_view rest;
        if (a.substr(0, 3) == "sm_")
            rest = a.substr(3);
        else if (a.substr(0, 8) == "compute_")
            rest = a.substr(8);
        else
            return false;
        std::size_t i = 0;
        while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9')
            ++i;
        if (i < 2 || i > 3) return false;
        return i == rest.size() || (i + 1 == rest.size() && (rest[i] == 'a' || rest[i] == 'f'));
    }

    void parse_module_statement() {
        const token t = peek();
        if (t.kind != token_kind::directive)
            fail(t, "expected a directive at module scope, found " + describe(t));
        const std::string_view d = t.text;
        if (d == "file" || d == "loc") {
            lex_.skip_rest_of_line();
            return;
        }
        if (d == "section") {
            skip_section();
            return;
        }
        if (d == "pragma") {
            skip_pragma();
            return;
        }
        if (d == "version" || d == "target" || d == "address_size")
            fail(t, squote("." + std::string(d)) + " may appear only once, at the start");
        bool is_extern = false;
        bool linkage = false;
        for (;;) {
            const token& l = peek();
            if (l.kind != token_kind::directive) break;
            if (l.text == "extern") {
                is_extern = true;
            } else if (l.text == "visible" || l.text == "weak" || l.text == "common") {
            } else {
                break;
            }
            linkage = true;
            next();
        }
        const token k = peek();
        if (k.kind == token_kind::directive) {
            if (k.text == "entry" || k.text == "func") {
                next();
                parse_function(k, k.text == "entry", is_extern);
                return;
            }
            if (k.text == "global" || k.text == "const" || k.text == "shared" ||
                k.text == "local") {
                next();
                parse_variable_decl(space_of(k.text), is_extern, true);
                return;
            }
        }
        fail(k, linkage ? "expected '.entry', '.func' or a variable after the linkage directive, "
                          "found " +
                              describe(k)
                        : "unsupported directive " + describe(k) + " at module scope");
    }
    static space space_of(std::string_view d) noexcept {
        if (d == "global") return space::global;
        if (d == "const") return space::constant;
        if (d == "shared") return space::shared;
        if (d == "local") return space::local;
        return space::param;
    }

    void skip_section() {
        const token s = next(); // .section
        if (peek().kind != token_kind::directive && peek().kind != token_kind::ident)
            fail(peek(), "expected a section name, found " + describe(peek()));
        next();
        if (!peek().is('{')) fail(peek(), "expected '{' after the section name");
        next();
        int depth = 1;
        while (depth > 0) {
            const token t = next();
            if (t.kind == token_kind::end) fail(s, "unterminated .section (missing '}')");
            if (t.is('{')) ++depth;
            if (t.is('}')) --depth;
        }
    }
    void skip_pragma() {
        next();
        if (peek().kind != token_kind::string)
            fail(peek(), "expected a string after .pragma, found " + describe(peek()));
        next();
        while (accept(',')) {
            if (peek().kind != token_kind::string)
                fail(peek(), "expected a string after ',', found " + describe(peek()));
            next();
        }
        expect(';', "after .pragma");
    }

    // --- variables ----------------------------------------------------------------------
    struct var_attrs {
        type t = type::none;
        std::uint32_t align = 0;
        std::uint32_t vec = 1;
        bool ptr = false;
        space ptr_space = space::none;
    };
    var_attrs parse_var_attrs(std::string_view context, bool allow_ptr) {
        var_attrs a;
        for (;;) {
            const token t = peek();
            if (t.kind != token_kind::directive) break;
            if (t.text == "align") {
                next();
                const token n = peek();
                const std::uint64_t v = expect_uint("alignment", 1U << 16);
                if (v == 0 || (v & (v - 1)) != 0)
                    fail(n, "alignment " + std::string(n.text) + " is not a power of two");
                a.align = static_cast<std::uint32_t>(v);
                continue;
            }
            if (t.text == "v2" || t.text == "v4") {
                next();
                a.vec = t.text == "v2" ? 2 : 4;
                continue;
            }
            if (t.text == "attribute" && context == ".global declaration") {
                // `.attribute(.managed)` (CUDA's __managed__) and `.attribute(.unified(a, b))`:
                // to the device an ordinary .global variable; the host runtime keeps the
                // host's copy coherent.
                next();
                expect('(', "after .attribute");
                if (accept_directive("unified")) {
                    expect('(', "after .unified");
                    (void)expect_uint("a .unified identifier", ~std::uint64_t{0});
                    expect(',', "between the .unified identifiers");
                    (void)expect_uint("a .unified identifier", ~std::uint64_t{0});
                    expect(')', "after the .unified identifiers");
                } else if (!accept_directive("managed")) {
                    fail(peek(),
                         "expected .managed or .unified in .attribute, found " + describe(peek()));
                }
                expect(')', "after the .attribute");
                continue;
            }
            if (allow_ptr && t.text == "ptr") {
                next();
                a.ptr = true;
                continue;
            }
            if (allow_ptr && a.ptr &&
                (t.text == "global" || t.text == "shared" || t.text == "const" ||
                 t.text == "local")) {
                next();
                a.ptr_space = space_of(t.text);
                continue;
            }
            if (a.t != type::none) break;
            a.t = expect_type(context);
        }
        if (a.t == type::none)
            fail(peek(),
                 "expected a type in " + std::string(context) + ", found " + describe(peek()));
        return a;
    }

    // `[N]`, `[N][M]`, `[]`: element count (0 with `open` set for `[]`).
    std::uint64_t parse_dims(bool& open, bool& array) {
        std::uint64_t count = 1;
        open = false;
        array = false;
        while (peek().is('[')) {
            array = true;
            next();
            if (peek().is(']')) {
                if (open) fail(peek(), "only the first dimension may be left open");
                open = true;
                next();
                continue;
            }
            const std::uint64_t n = expect_uint("array size", std::uint64_t{1} << 32);
            count *= n;
            if (count > (std::uint64_t{1} << 32)) fail(peek(), "array too large");
            expect(']', "after the array size");
        }
        return count;
    }

    // `.global .align 4 .b8 name[16] = {...};` (the space directive already read).
    void parse_variable_decl(space sp, bool is_extern, bool module_scope) {
        const std::string context = "." + std::string(name(sp)) + " declaration";
        const var_attrs a = parse_var_attrs(context, false);
        if (a.t == type::pred && sp != space::reg)
            fail(peek(), ".pred variables are not allowed in ." + std::string(name(sp)));
        for (;;) {
            const token n = expect_ident("a variable name");
            variable v;
            v.name = std::string(n.text);
            v.sp = sp;
            v.t = a.t;
            const std::uint64_t elem = std::uint64_t{size_of(a.t)} * a.vec;
            v.align = a.align != 0 ? a.align : static_cast<std::uint32_t>(elem);
            v.is_extern = is_extern;
            v.pos = pos_of(n);
            bool open = false, array = false;
            std::uint64_t count = parse_dims(open, array);
            if (accept('=')) {
                if (is_extern) fail(n, "an .extern variable cannot have an initialiser");
                if (sp != space::global && sp != space::constant)
                    fail(n, "only .global and .const variables can have initialisers");
                std::vector<std::uint8_t> bytes;
                parse_initialiser(a.t, bytes);
                const std::uint64_t given = bytes.size() / size_of(a.t);
                if (open) count = (given + a.vec - 1) / a.vec;
                if (given > count * a.vec)
                    fail(n, "too many initialisers for " + squote(n.text) + " (" +
                                std::to_string(given) + " for " + std::to_string(count * a.vec) +
                                " elements)");
                bytes.resize(count * elem, 0);
                v.init = std::move(bytes);
            } else if (open && !is_extern) {
                fail(n, squote(n.text) + " has an open array size but no initialiser");
            }
            v.bytes = open && v.init.empty() ? 0 : count * elem;
            if (module_scope) {
                declare_module_symbol(
                    n, symbol_ref{symbol_kind::module_var,
                                  static_cast<std::uint32_t>(mod_->variables.size())});
                mod_->variables.push_back(std::move(v));
            } else {
                v.block = block_stack_.back();
                if (!fsyms_.declare(n.text,
                                    symbol_ref{symbol_kind::function_var,
                                               static_cast<std::uint32_t>(fn_->variables.size())}))
                    fail(n, squote(n.text) + " is already declared in this scope");
                fn_->variables.push_back(std::move(v));
            }
            if (!accept(',')) break;
        }
        expect(';', "after the declaration");
    }

    void parse_initialiser(type t, std::vector<std::uint8_t>& out) {
        if (peek().is('{')) {
            const token open = next();
            if (!peek().is('}')) {
                for (;;) {
                    parse_initialiser(t, out);
                    if (!accept(',')) break;
                }
            }
            if (!peek().is('}')) fail(peek(), "expected '}' or ',' in the initialiser list");
            next();
            static_cast<void>(open);
            return;
        }
        const token first = peek();
        bool neg = false;
        if (accept('-')) neg = true;
        const token v = peek();
        std::uint64_t bits = 0;
        const unsigned size = size_of(t);
        if (v.kind == token_kind::integer) {
            next();
            if (is_float(t)) {
                double d = static_cast<double>(v.value);
                if (neg) d = -d;
                bits = float_bits(t, d);
            } else {
                const unsigned width = 8 * size;
                const bool fits = width == 64 || (neg ? v.value <= (std::uint64_t{1} << (width - 1))
                                                      : v.value < (std::uint64_t{1} << width));
                if (!fits)
                    fail(first, "initialiser " + std::string(neg ? "-" : "") + std::string(v.text) +
                                    " does not fit in ." + std::string(name(t)));
                bits = neg ? ~v.value + 1 : v.value;
            }
        } else if (v.kind == token_kind::f32 || v.kind == token_kind::f64) {
            next();
            if (!is_float(t))
                fail(first,
                     "floating-point initialiser for a ." + std::string(name(t)) + " variable");
            double d = 0;
            if (v.kind == token_kind::f32) {
                float f = 0;
                const auto b32 = static_cast<std::uint32_t>(v.value);
                std::memcpy(&f, &b32, sizeof f);
                d = static_cast<double>(f);
                if (t == type::f32) bits = v.value ^ (neg ? 0x80000000U : 0U);
            } else {
                std::memcpy(&d, &v.value, sizeof d);
                if (t == type::f64) bits = v.value ^ (neg ? std::uint64_t{1} << 63 : 0U);
            }
            if (neg) d = -d;
            if ((v.kind == token_kind::f32 && t != type::f32) ||
                (v.kind == token_kind::f64 && t != type::f64))
                bits = float_bits(t, d);
        } else if (v.kind == token_kind::ident) {
            fail(v, "address initialisers (" + squote(v.text) + ") are not supported");
        } else {
            fail(v, "expected an initialiser value, found " + describe(v));
        }
        if (out.size() > (std::uint64_t{1} << 32)) fail(v, "initialiser too large");
        for (unsigned i = 0; i < size; ++i)
            out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }
    static std::uint64_t float_bits(type t, double d) noexcept {
        if (t == type::f64) {
            std::uint64_t b = 0;
            std::memcpy(&b, &d, sizeof b);
            return b;
        }
        if (t == type::f32) {
            const auto f = static_cast<float>(d);
            std::uint32_t b = 0;
            std::memcpy(&b, &f, sizeof b);
            return b;
        }
        return f32_to_f16(static_cast<float>(d));
    }
    static std::uint16_t f32_to_f16(float f) noexcept {
        // Round to nearest even; overflow -> infinity; subnormals kept.
        std::uint32_t x = 0;
        std::memcpy(&x, &f, sizeof x);
        const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000U);
        const std::uint32_t exp = (x >> 23) & 0xffU;
        std::uint32_t man = x & 0x7fffffU;
        if (exp == 0xff)
            return static_cast<std::uint16_t>(sign | 0x7c00U | (man != 0 ? 0x200U : 0U));
        const int e = static_cast<int>(exp) - 127 + 15;
        if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00U);
        if (e <= 0) {
            if (e < -10) return sign;
            man |= 0x800000U;
            const auto shift = static_cast<unsigned>(14 - e);
            std::uint32_t h = man >> shift;
            const std::uint32_t rem = man & ((1U << shift) - 1U);
            const std::uint32_t half = 1U << (shift - 1U);
            if (rem > half || (rem == half && (h & 1U) != 0)) ++h;
            return static_cast<std::uint16_t>(sign | h);
        }
        std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
        const std::uint32_t rem = man & 0x1fffU;
        if (rem > 0x1000U || (rem == 0x1000U && (h & 1U) != 0)) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }

    void declare_module_symbol(const token& n, symbol_ref r) {
        auto [it, inserted] = msyms_.try_emplace(n.text, r);
        if (!inserted) fail(n, squote(n.text) + " is already declared");
    }

    // --- functions ----------------------------------------------------------------------
    // `.param .u64 .ptr .global .align 8 name[N]` (the `.param` already read).
    param parse_param(std::string_view context) {
        const var_attrs a = parse_var_attrs(context, true);
        if (a.vec != 1) fail(peek(), "vector parameters are not supported");
        if (a.t == type::pred) fail(peek(), ".pred parameters are not supported");
        const token n = expect_ident("a parameter name");
        bool open = false, array = false;
        const std::uint64_t count = parse_dims(open, array);
        if (open) fail(n, "parameter " + squote(n.text) + " needs a size");
        param p;
        p.name = std::string(n.text);
        p.t = a.t;
        const std::uint64_t bytes = count * size_of(a.t);
        if (bytes > (1U << 20)) fail(n, "parameter " + squote(n.text) + " is too large");
        p.bytes = static_cast<std::uint32_t>(bytes);
        p.align = std::max(a.align, size_of(a.t));
        p.pos = pos_of(n);
        return p;
    }
    void parse_param_list(std::vector<param>& out, std::string_view context) {
        expect('(', std::string("to open the ") + std::string(context));
        std::uint64_t end = 0;
        if (!peek().is(')')) {
            for (;;) {
                const token d = peek();
                if (d.kind != token_kind::directive || d.text != "param") {
                    if (d.kind == token_kind::directive && d.text == "reg")
                        fail(d, ".reg parameters are not supported (only .param)");
                    fail(d, "expected '.param' in the " + std::string(context) + ", found " +
                                describe(d));
                }
                next();
                param p = parse_param(context);
                p.offset = static_cast<std::uint32_t>(align_up(end, p.align));
                end = std::uint64_t{p.offset} + p.bytes;
                if (end > (1U << 24)) fail(d, "parameter space too large");
                out.push_back(std::move(p));
                if (!accept(',')) break;
            }
        }
        expect(')', std::string("to close the ") + std::string(context));
    }

    void parse_function(const token& kw, bool entry, bool is_extern) {
        function f;
        f.entry = entry;
        f.pos = pos_of(kw);
        if (!entry && peek().is('(')) parse_param_list(f.results, "return parameter list");
        const token n = expect_ident("a function name");
        f.name = std::string(n.text);
        if (peek().is('(')) parse_param_list(f.params, "parameter list");
        // Performance directives and attributes before the body.
        for (;;) {
            const token d = peek();
            if (d.kind != token_kind::directive) break;
            if (d.text == "maxntid" || d.text == "reqntid") {
                next();
                auto& dims = d.text == "maxntid" ? f.maxntid : f.reqntid;
                for (std::size_t i = 0; i < 3; ++i) {
                    dims[i] = static_cast<std::uint32_t>(expect_uint("thread count", 1U << 16));
                    if (!accept(',')) break;
                }
            } else if (d.text == "minnctapersm" || d.text == "maxnctapersm") {
                next();
                f.minnctapersm = static_cast<std::uint32_t>(expect_uint("CTA count", 1U << 16));
            } else if (d.text == "maxnreg") {
                next();
                f.maxnreg = static_cast<std::uint32_t>(expect_uint("register count", 1U << 16));
            } else if (d.text == "noreturn") {
                next();
                f.noreturn = true;
            } else if (d.text == "pragma") {
                skip_pragma();
            } else {
                fail(d, "unsupported function directive " + describe(d));
            }
        }
        // A declaration earlier in the file gives the function its index.
        std::uint32_t index = static_cast<std::uint32_t>(mod_->functions.size());
        const auto it = msyms_.find(n.text);
        if (it != msyms_.end()) {
            if (it->second.kind != symbol_kind::function)
                fail(n, squote(n.text) + " is already declared as a variable");
            index = it->second.index;
            const function& old = mod_->functions[index];
            if (old.entry != f.entry || !same_signature(old.params, f.params) ||
                !same_signature(old.results, f.results))
                fail(n, "declaration of " + squote(n.text) + " does not match an earlier one");
            if (!old.blocks.empty() && peek().is('{'))
                fail(n, "function " + squote(n.text) + " is defined twice");
        } else {
            declare_module_symbol(n, symbol_ref{symbol_kind::function, index});
            mod_->functions.emplace_back();
        }
        if (accept(';')) {
            if (mod_->functions[index].blocks.empty()) {
                f.is_extern = true;
                mod_->functions[index] = std::move(f);
            }
            return;
        }
        if (!peek().is('{'))
            fail(peek(),
                 "expected '{' or ';' after the function header, found " + describe(peek()));
        if (is_extern) fail(peek(), "an .extern function cannot have a body");
        mod_->functions[index] = std::move(f);
        parse_body(index);
    }
    static bool same_signature(const std::vector<param>& a, const std::vector<param>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].bytes != b[i].bytes || a[i].offset != b[i].offset) return false;
        return true;
    }

    // --- function bodies ----------------------------------------------------------------
    struct range_decl {
        std::string_view prefix;
        std::uint32_t base = 0;
        std::uint32_t count = 0;
        std::uint32_t depth = 0;
    };
    struct label_fixup {
        std::uint32_t instr = 0;
        std::uint8_t operand = 0;
        std::string_view name;
        source_pos pos;
    };

    void parse_body(std::uint32_t index) {
        fn_ = &mod_->functions[index];
        fn_->is_extern = false;
        regs_.clear();
        ranges_.clear();
        fsyms_.clear();
        labels_.clear();
        fixups_.clear();
        block_stack_.clear();
        // Parameters and results are visible in the whole body.
        for (std::uint32_t i = 0; i < fn_->params.size(); ++i)
            if (!fsyms_.declare(fn_->params[i].name, symbol_ref{symbol_kind::param, i}))
                fail(fn_->params[i].pos,
                     "parameter " + squote(fn_->params[i].name) + " is declared twice");
        for (std::uint32_t i = 0; i < fn_->results.size(); ++i)
            if (!fsyms_.declare(fn_->results[i].name, symbol_ref{symbol_kind::result, i}))
                fail(fn_->results[i].pos,
                     "return parameter " + squote(fn_->results[i].name) + " is declared twice");
        const token open = next(); // '{'
        reserve_code(open.offset);
        fn_->blocks.push_back(block{0, 0, 0});
        block_stack_.push_back(0);
        fsyms_.push();
        regs_.push();
        open_pos_.clear();
        open_pos_.push_back(pos_of(open));
        while (!block_stack_.empty())
            parse_body_statement();
        resolve_labels();
        fn_ = nullptr;
    }

    // Instructions are large; reserve room for about one per ';' up to the `}` that starts a
    // line (how nvcc closes a body) so the code vector is not copied as it grows.
    void reserve_code(std::uint32_t from) {
        const std::string_view text = lex_.text();
        const std::size_t end = text.find("\n}", from);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        std::size_t semis = 0;
        for (std::size_t i = from; i < stop; ++i)
            semis += text[i] == ';' ? 1U : 0U;
        fn_->code.reserve(std::min<std::size_t>(semis, std::size_t{1} << 20));
    }

    void open_block(const token& t) {
        if (block_stack_.size() >= 64) fail(t, "blocks nested too deeply");
        const auto b = static_cast<std::uint32_t>(fn_->blocks.size());
        fn_->blocks.push_back(block{block_stack_.back(), code_size(), 0});
        block_stack_.push_back(b);
        fsyms_.push();
        regs_.push();
        open_pos_.push_back(pos_of(t));
    }
    void close_block() {
        const std::uint32_t b = block_stack_.back();
        fn_->blocks[b].end = code_size();
        block_stack_.pop_back();
        open_pos_.pop_back();
        fsyms_.pop();
        regs_.pop();
        // Ranges declared in the closed block (at depth block_stack_.size()) go with it.
        const auto depth = static_cast<std::uint32_t>(block_stack_.size());
        while (!ranges_.empty() && ranges_.back().depth >= depth)
            ranges_.pop_back();
    }
    std::uint32_t code_size() const noexcept {
        return static_cast<std::uint32_t>(fn_->code.size());
    }

    void parse_body_statement() {
        const token t = peek();
        switch (t.kind) {
        case token_kind::end:
            fail(open_pos_.back(), "unbalanced '{': the function body is not closed");
        case token_kind::punct:
            if (t.is('{')) {
                next();
                open_block(t);
                return;
            }
            if (t.is('}')) {
                next();
                close_block();
                return;
            }
            if (t.is('@')) {
                parse_guarded_instruction();
                return;
            }
            if (t.is(';')) fail(t, "empty statement");
            break;
        case token_kind::directive:
            parse_body_directive();
            return;
        case token_kind::ident: {
            const token w = next();
            if (peek().is(':')) {
                next();
                define_label(w);
                return;
            }
            parse_instruction(w, no_index, false);
            return;
        }
        default:
            break;
        }
        fail(t, "expected an instruction, label or declaration, found " + describe(t));
    }

    void define_label(const token& w) {
        auto [it, inserted] = labels_.try_emplace(w.text, code_size());
        if (!inserted) fail(w, "label " + squote(w.text) + " is defined twice");
        fn_->labels.push_back(label{std::string(w.text), code_size()});
    }
    void resolve_labels() {
        for (const auto& f : fixups_) {
            const auto it = labels_.find(f.name);
            if (it == labels_.end()) fail(f.pos, "undefined label " + squote(f.name));
            fn_->code[f.instr].operands[f.operand].index = it->second;
        }
    }

    void parse_body_directive() {
        const token d = peek();
        const std::string_view w = d.text;
        if (w == "reg") {
            next();
            parse_reg_decl();
            return;
        }
        if (w == "loc" || w == "file") {
            lex_.skip_rest_of_line();
            return;
        }
        if (w == "pragma") {
            skip_pragma();
            return;
        }
        if (w == "shared" || w == "local" || w == "param") {
            next();
            parse_variable_decl(space_of(w), false, false);
            return;
        }
        if (w == "global" || w == "const")
            fail(d, "." + std::string(w) + " variables must be declared at module scope");
        if (w == "extern") {
            next();
            if (!accept_directive("shared"))
                fail(peek(), "only .extern .shared variables may be declared in a function");
            parse_variable_decl(space::shared, true, false);
            return;
        }
        fail(d, "unsupported directive " + describe(d) + " in a function body");
    }

    void parse_reg_decl() {
        const token& first = peek();
        if (first.kind == token_kind::directive && (first.text == "v2" || first.text == "v4"))
            fail(first,
                 "vector registers (.reg ." + std::string(first.text) + ") are not supported");
        const type t = expect_type(".reg declaration");
        for (;;) {
            const token n = expect_ident("a register name");
            if (n.text == "_") fail(n, "'_' cannot be declared as a register");
            if (accept('<')) {
                const token c = peek();
                const std::uint64_t count = expect_uint("register count", 1U << 20);
                expect('>', "after the register count");
                if (fn_->registers.size() + count > (1U << 22))
                    fail(c, "too many registers in one function");
                if (n.text.back() >= '0' && n.text.back() <= '9')
                    fail(n, "a register range prefix cannot end in a digit");
                const auto depth = static_cast<std::uint32_t>(block_stack_.size() - 1);
                for (const auto& r : ranges_)
                    if (r.depth == depth && r.prefix == n.text)
                        fail(n, "registers " + squote(std::string(n.text) + "<N>") +
                                    " are already declared in this scope");
                const auto base = static_cast<std::uint32_t>(fn_->registers.size());
                ranges_.push_back(
                    range_decl{n.text, base, static_cast<std::uint32_t>(count), depth});
                std::string name_buf(n.text);
                for (std::uint64_t i = 0; i < count; ++i) {
                    name_buf.resize(n.text.size());
                    name_buf += std::to_string(i);
                    fn_->registers.push_back(register_decl{name_buf, t, block_stack_.back()});
                }
            } else {
                const auto idx = static_cast<std::uint32_t>(fn_->registers.size());
                if (in_range_here(n.text) || !regs_.declare(n.text, idx))
                    fail(n, "register " + squote(n.text) + " is already declared in this scope");
                if (fn_->registers.size() + 1 > (1U << 22))
                    fail(n, "too many registers in one function");
                fn_->registers.push_back(
                    register_decl{std::string(n.text), t, block_stack_.back()});
            }
            if (!accept(',')) break;
        }
        expect(';', "after the .reg declaration");
    }

    // Whether `%r5` falls in a `%r<N>` range declared in the innermost block.
    bool in_range_here(std::string_view n) const {
        const auto depth = static_cast<std::uint32_t>(block_stack_.size() - 1);
        std::size_t i = n.size();
        while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
            --i;
        if (i == n.size() || i == 0 || n.size() - i > 9 || (n.size() - i > 1 && n[i] == '0'))
            return false;
        std::uint32_t k = 0;
        for (std::size_t j = i; j < n.size(); ++j)
            k = k * 10 + static_cast<std::uint32_t>(n[j] - '0');
        for (const auto& r : ranges_)
            if (r.depth == depth && r.prefix == n.substr(0, i) && k < r.count) return true;
        return false;
    }

    // A register by name, or no_index. The latest visible declaration wins.
    std::uint32_t find_register(std::string_view n) const {
        std::uint32_t best = no_index;
        if (const auto* e = regs_.find(n)) best = e->value;
        if (ranges_.empty()) return best;
        std::size_t i = n.size();
        while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
            --i;
        if (i == n.size() || i == 0) return best;
        const std::string_view digits = n.substr(i);
        if (digits.size() > 1 && digits[0] == '0') return best;
        if (digits.size() > 9) return best;
        std::uint32_t k = 0;
        for (char c : digits)
            k = k * 10 + static_cast<std::uint32_t>(c - '0');
        const std::string_view prefix = n.substr(0, i);
        for (auto r = ranges_.rbegin(); r != ranges_.rend(); ++r) {
            if (r->prefix != prefix || k >= r->count) continue;
            if (best == no_index || r->base + k > best) best = r->base + k;
            break;
        }
        return best;
    }

    // --- instructions -------------------------------------------------------------------
    void parse_guarded_instruction() {
        next(); // '@'
        const bool neg = accept('!');
        const token g = expect_ident("a guard predicate");
        const std::uint32_t r = find_register(g.text);
        if (r == no_index) fail(g, "undeclared register " + squote(g.text) + " in the guard");
        if (fn_->registers[r].t != type::pred)
            fail(g, "guard " + squote(g.text) + " is not a .pred register");
        const token w = expect_ident("an instruction after the guard");
        if (peek().is(':')) fail(w, "a label cannot be guarded");
        parse_instruction(w, r, neg);
    }

    [[noreturn]] void unsupported(const token& mn, std::string_view full) const {
        fail(mn, "unsupported instruction " + squote(full));
    }

    void parse_instruction(const token& mn, std::uint32_t guard, bool guard_neg) {
        // Collect the dotted modifiers first so every message can show the whole mnemonic.
        std::array<token, 12> mods{};
        std::size_t nmods = 0;
        std::uint32_t end = mn.offset + static_cast<std::uint32_t>(mn.text.size());
        while (peek().kind == token_kind::directive) {
            const token m = next();
            if (nmods == mods.size()) fail(m, "too many modifiers");
            mods[nmods++] = m;
            end = m.offset + 1 + static_cast<std::uint32_t>(m.text.size());
        }
        const std::string_view full = lex_.text().substr(mn.offset, end - mn.offset);
        const op_spec* spec = op_words.find(mn.text);
        if (spec == nullptr) unsupported(mn, full);

        if (fn_->code.size() >= (1U << 24)) fail(mn, "too many instructions in one function");
        instruction& in = fn_->code.emplace_back();
        in.opcode = spec->code;
        in.guard = guard;
        in.guard_negated = guard_neg;
        in.pos = pos_of(mn);
        apply_modifiers(*spec, in, mn, full, mods.data(), nmods);
        check_modifiers(*spec, in, mn, full);
        if (in.opcode == op::call)
            parse_call(in, mn, full);
        else
            parse_operands(in, mn, full);
    }

    void apply_modifiers(const op_spec& spec, instruction& in, const token& mn,
                         std::string_view full, const token* mods, std::size_t n) {
        std::uint64_t seen = 0;
        unsigned types = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const token& m = mods[i];
            const mod_word* w = modifier_words.find(m.text);
            mclass c = mclass::none;
            std::uint8_t v = 0;
            if (w != nullptr) {
                if ((spec.mods & bit(w->c1)) != 0) {
                    c = w->c1;
                    v = w->v1;
                } else if (w->c2 != mclass::none && (spec.mods & bit(w->c2)) != 0) {
                    c = w->c2;
                    v = w->v2;
                }
            } else if ((spec.mods & bit(mclass::cache)) != 0 &&
                       (m.text.substr(0, 4) == "L1::" || m.text.substr(0, 4) == "L2::")) {
                c = mclass::cache;
            }
            if (c == mclass::none) {
                if (w != nullptr && w->c1 == mclass::type && spec.types == 0)
                    fail(m,
                         squote(std::string(name(spec.code))) + " takes no type: " + squote(full));
                fail(m, "unsupported modifier " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            }
            if (c == mclass::bad_type)
                fail(m, "unsupported type " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            if (c == mclass::type) {
                const auto t = static_cast<type>(v);
                const std::uint32_t allowed = types == 0 ? spec.types : spec.types2;
                if (types >= (spec.types2 != 0 ? 2U : 1U))
                    fail(m, "too many types in " + squote(full));
                if ((allowed & tb(t)) == 0)
                    fail(m, "type " + squote("." + std::string(m.text)) + " is not allowed in " +
                                squote(full));
                (types == 0 ? in.t : in.t2) = t;
                ++types;
                continue;
            }
            // .gl and the scopes fill the same field.
            const mclass slot = c == mclass::gl ? mclass::scope : c;
            if (c != mclass::cache && (seen & bit(slot)) != 0)
                fail(m, "conflicting modifier " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            seen |= bit(slot);
            switch (c) {
            case mclass::space:
                in.sp = static_cast<space>(v);
                break;
            case mclass::rnd:
                in.rnd = static_cast<rounding>(v);
                break;
            case mclass::cmp:
                in.compare = static_cast<cmp>(v);
                break;
            case mclass::boolop:
                in.combine = static_cast<bool_op>(v);
                break;
            case mclass::mulmode:
                in.mode = static_cast<mul_mode>(v);
                break;
            case mclass::aop:
                in.aop = static_cast<atom_op>(v);
                break;
            case mclass::shfl:
                in.shfl = static_cast<shfl_mode>(v);
                break;
            case mclass::vote:
                in.vote = static_cast<vote_mode>(v);
                break;
            case mclass::order:
                in.sem = static_cast<order>(v);
                break;
            case mclass::scope:
            case mclass::gl:
                in.sc = static_cast<scope>(v);
                break;
            case mclass::ftz:
                in.ftz = true;
                break;
            case mclass::sat:
                in.sat = true;
                break;
            case mclass::approx:
                in.approx = true;
                break;
            case mclass::full:
                in.full = true;
                break;
            case mclass::nc:
                in.nc = true;
                break;
            case mclass::to:
                in.to = true;
                break;
            case mclass::cc:
                in.cc = true;
                break;
            case mclass::shf_dir:
                in.shift_left = v != 0;
                break;
            case mclass::shf_mode:
                in.wrap = v != 0;
                break;
            case mclass::arrive:
                in.arrive = true;
                break;
            case mclass::warp:
                in.warp = true;
                break;
            case mclass::shiftamt:
                in.shiftamt = true;
                break;
            case mclass::test:
                in.test = static_cast<test_op>(v);
                break;
            case mclass::vec:
                in.vec = v;
                break;
            case mclass::uni:
                in.uni = true;
                break;
            case mclass::geom:
                in.geom = static_cast<tex_geom>(v);
                break;
            case mclass::sync:
            case mclass::aligned:
            case mclass::cache:
            case mclass::level:
                break;
            default:
                fail(m, "unsupported modifier " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            }
        }
        seen_ = seen;
        if (spec.types != 0 && types == 0) fail(mn, squote(full) + " needs a type");
        if (spec.types2 != 0 && types == 1) fail(mn, squote(full) + " needs two types");
        if ((spec.mods & (bit(mclass::space))) != 0 && in.sp == space::none &&
            (in.opcode == op::ld || in.opcode == op::st || in.opcode == op::ldu ||
             in.opcode == op::atom || in.opcode == op::red || in.opcode == op::prefetch))
            in.sp = space::generic;
    }
    bool has(mclass c) const noexcept { return (seen_ & bit(c)) != 0; }

    [[noreturn]] void bad_combo(const token& mn, std::string_view full, std::string why) const {
        fail(mn, squote(full) + ": " + why);
    }

    // Rules between modifiers and types that one table cannot express.
    void check_modifiers(const op_spec& spec, instruction& in, const token& mn,
                         std::string_view full) const {
        const type t = in.t;
        const bool fl = is_float(t);
        const bool f32 = t == type::f32;
        const bool float_rnd = in.rnd >= rounding::rn && in.rnd <= rounding::rp;
        const bool int_rnd = in.rnd >= rounding::rni;
        auto no = [&](bool cond, const char* why) {
            if (cond) bad_combo(mn, full, why);
        };
        auto ftz_rule = [&] { no(in.ftz && !f32, ".ftz applies only to .f32"); };
        no(t == type::f16 && in.rnd != rounding::none && in.rnd != rounding::rn &&
               in.opcode != op::cvt,
           ".f16 arithmetic rounds only with .rn");
        switch (in.opcode) {
        case op::add:
        case op::sub:
            if (fl || t == type::f16) {
                no(int_rnd, "integer rounding on a floating-point operation");
                no(in.cc, ".cc applies only to integer operations");
                no(in.ftz && t == type::f64, ".ftz applies only to .f32 and .f16");
                no(in.sat && t == type::f64, ".sat applies only to .f32, .f16 and .s32");
            } else {
                no(in.rnd != rounding::none || in.ftz, "rounding and .ftz need a float type");
                no(in.sat && t != type::s32, ".sat on integers applies only to .s32");
                no(in.cc && (tb(t) & t_32_64) == 0, ".cc needs a 32- or 64-bit type");
                no(in.cc && in.sat, ".cc and .sat cannot be combined");
            }
            break;
        case op::mul:
            if (fl || t == type::f16) {
                no(in.mode != mul_mode::none, ".lo/.hi/.wide apply only to integers");
                no(int_rnd, "integer rounding on a floating-point operation");
                no(in.ftz && t == type::f64, ".ftz applies only to .f32 and .f16");
                no(in.sat && t == type::f64, ".sat applies only to .f32 and .f16");
            } else {
                no(in.mode == mul_mode::none, "integer mul needs .lo, .hi or .wide");
                no(in.rnd != rounding::none || in.ftz || in.sat, "float modifier on an integer");
                no(in.mode == mul_mode::wide && bits(t) == 64, ".wide needs a 16- or 32-bit type");
            }
            break;
        case op::mad:
            if (fl) {
                no(in.mode != mul_mode::none, ".lo/.hi/.wide apply only to integers");
                no(int_rnd, "integer rounding on a floating-point operation");
                no(in.rnd == rounding::none, "float mad needs a rounding mode");
                no(in.cc, ".cc applies only to integers");
                no((in.ftz || in.sat) && !f32, ".ftz and .sat apply only to .f32");
            } else {
                no(in.mode == mul_mode::none, "integer mad needs .lo, .hi or .wide");
                no(in.rnd != rounding::none || in.ftz, "float modifier on an integer");
                no(in.mode == mul_mode::wide && bits(t) == 64, ".wide needs a 16- or 32-bit type");
                no(in.sat && !(in.mode == mul_mode::hi && t == type::s32),
                   ".sat applies only to mad.hi.s32");
                no(in.cc && (in.mode == mul_mode::wide || (tb(t) & t_32_64) == 0),
                   ".cc needs .lo or .hi with a 32- or 64-bit type");
                no(in.cc && in.sat, ".cc and .sat cannot be combined");
            }
            break;
        case op::madc:
        case op::mul24:
            no(in.mode == mul_mode::none || in.mode == mul_mode::wide, "needs .lo or .hi");
            break;
        case op::mad24:
            no(in.mode == mul_mode::none || in.mode == mul_mode::wide, "needs .lo or .hi");
            no(in.sat && !(in.mode == mul_mode::hi && t == type::s32),
               ".sat applies only to mad24.hi.s32");
            break;
        case op::fma:
            no(!float_rnd, "fma needs a rounding mode (.rn .rz .rm .rp)");
            no((in.ftz || in.sat) && t == type::f64, ".ftz and .sat do not apply to .f64");
            break;
        case op::div:
            if (fl) {
                no(int_rnd, "integer rounding on a floating-point operation");
                if (f32) {
                    const int n = (float_rnd ? 1 : 0) + (in.approx ? 1 : 0) + (in.full ? 1 : 0);
                    no(n != 1, "div.f32 needs exactly one of .approx, .full or a rounding mode");
                } else {
                    no(!float_rnd, "div.f64 needs a rounding mode");
                    no(in.approx || in.full || in.ftz, ".approx/.full/.ftz apply only to .f32");
                }
            } else {
                no(in.rnd != rounding::none || in.ftz || in.approx || in.full,
                   "float modifier on an integer division");
            }
            break;
        case op::abs:
        case op::neg:
        case op::min:
        case op::max:
            no(in.ftz && !(f32 || t == type::f16), ".ftz applies only to .f32 and .f16");
            break;
        case op::shf:
            no(!has(mclass::shf_dir), "shf needs .l or .r");
            no(!has(mclass::shf_mode), "shf needs .wrap or .clamp");
            break;
        case op::setp:
        case op::set: {
            no(in.compare == cmp::none, "needs a comparison (.eq .ne .lt .le .gt .ge ...)");
            const type ct = in.opcode == op::set ? in.t2 : t;
            const bool cf = is_float(ct);
            no(!cf && in.compare >= cmp::equ, "unordered comparisons apply only to floats");
            no((cf || is_signed(ct)) && in.compare >= cmp::lo && in.compare <= cmp::hs,
               ".lo/.ls/.hi/.hs apply only to unsigned and bit types");
            no((tb(ct) & t_b) != 0 && in.compare != cmp::eq && in.compare != cmp::ne,
               "bit types compare only with .eq and .ne");
            no(in.ftz && ct != type::f32 && ct != type::f16, ".ftz applies only to .f32");
            break;
        }
        case op::slct:
            no(in.ftz && in.t2 != type::f32, ".ftz applies only to an .f32 selector");
            break;
        case op::testp:
            no(in.test == test_op::none, "testp needs a property (.finite .infinite .number "
                                         ".notanumber .normal .subnormal)");
            break;
        case op::cvt:
            check_cvt(in, mn, full);
            break;
        case op::cvta:
            no(in.sp == space::none, "cvta needs a state space");
            break;
        case op::ld:
            check_memory_order(in, mn, full, true);
            no(in.nc && in.sp != space::global, ".nc applies only to ld.global");
            no(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
            no(in.nc && in.sem != order::none, ".nc cannot take a memory order");
            break;
        case op::st:
            check_memory_order(in, mn, full, false);
            no(in.sp == space::constant, "cannot store to .const");
            no(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
            break;
        case op::ldu:
            no(in.sp != space::global && in.sp != space::generic, "ldu reads only .global");
            no(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
            break;
        case op::atom:
        case op::red:
            check_atomic(in, mn, full);
            break;
        case op::prefetch:
            no(!has(mclass::level), "prefetch needs .L1 or .L2");
            no(in.sp != space::global && in.sp != space::local && in.sp != space::generic,
               "prefetch applies to .global, .local or generic addresses");
            break;
        case op::rcp:
        case op::sqrt:
            no(int_rnd, "integer rounding on a floating-point operation");
            if (f32) {
                no(float_rnd == in.approx, "needs exactly one of .approx or a rounding mode");
            } else {
                no(float_rnd == in.approx, "needs exactly one of .approx or a rounding mode");
                no(in.approx && !(in.opcode == op::rcp && in.ftz),
                   ".approx on .f64 exists only as rcp.approx.ftz.f64");
                no(in.ftz && !in.approx, ".ftz with .f64 only in rcp.approx.ftz.f64");
            }
            break;
        case op::rsqrt:
        case op::sin:
        case op::cos:
        case op::lg2:
        case op::ex2:
        case op::tanh:
            no(!in.approx, "needs .approx");
            break;
        case op::shfl:
            no(!has(mclass::sync), "shfl without .sync is not supported (use shfl.sync)");
            no(in.shfl == shfl_mode::none, "needs a mode (.up .down .bfly .idx)");
            break;
        case op::vote:
            no(!has(mclass::sync), "vote without .sync is not supported (use vote.sync)");
            no(in.vote == vote_mode::none, "needs a mode (.all .any .uni .ballot)");
            no(in.vote == vote_mode::ballot && t != type::b32, "vote.ballot needs .b32");
            no(in.vote != vote_mode::ballot && t != type::pred, "vote.all/.any/.uni need .pred");
            break;
        case op::bar:
            no(in.sc != scope::none && in.sc != scope::cta, "only the .cta scope applies");
            in.sc = scope::none;
            no(has(mclass::sync) == in.arrive, "needs exactly one of .sync or .arrive");
            no(in.warp && in.arrive, "bar.warp has only .sync");
            break;
        case op::membar:
            no(in.sc == scope::none, "membar needs .cta, .gl or .sys");
            break;
        case op::tex:
            no(in.geom == tex_geom::none,
               "tex needs .1d or .2d (3D, array, cube and multisample textures are not "
               "supported)");
            no(in.vec != 4, "tex needs .v4");
            break;
        case op::fence:
            no(in.sem != order::sc && in.sem != order::acq_rel, "fence needs .sc or .acq_rel");
            no(in.sc == scope::none, "fence needs a scope (.cta .gpu .sys)");
            break;
        default:
            ftz_rule();
            break;
        }
        static_cast<void>(spec);
    }

    void check_cvt(const instruction& in, const token& mn, std::string_view full) const {
        const type d = in.t, s = in.t2;
        const bool df = is_float(d), sf = is_float(s);
        const bool float_rnd = in.rnd >= rounding::rn && in.rnd <= rounding::rp;
        const bool int_rnd = in.rnd >= rounding::rni;
        auto no = [&](bool cond, const char* why) {
            if (cond) bad_combo(mn, full, why);
        };
        if (df && sf) {
            if (bits(d) == bits(s))
                no(float_rnd, "a float-to-float conversion of one width rounds only to integers "
                              "(.rni .rzi .rmi .rpi)");
            else if (bits(d) < bits(s))
                no(!float_rnd, "a narrowing float conversion needs .rn, .rz, .rm or .rp");
            else
                no(in.rnd != rounding::none, "a widening float conversion takes no rounding");
        } else if (sf) {
            no(!int_rnd, "a float-to-integer conversion needs .rni, .rzi, .rmi or .rpi");
        } else if (df) {
            no(!float_rnd, "an integer-to-float conversion needs .rn, .rz, .rm or .rp");
        } else {
            no(in.rnd != rounding::none, "an integer conversion takes no rounding");
            // .sat only where the value can fall outside the destination's range.
            const bool fits = d == s || (bits(d) > bits(s) && (is_signed(d) || !is_signed(s)));
            no(in.sat && fits, ".sat needs a conversion that can overflow");
        }
        no(in.ftz && d != type::f32 && s != type::f32, ".ftz applies only to .f32");
    }

    void check_memory_order(const instruction& in, const token& mn, std::string_view full,
                            bool load) const {
        auto no = [&](bool cond, const char* why) {
            if (cond) bad_combo(mn, full, why);
        };
        const order o = in.sem;
        no(load && (o == order::release || o == order::acq_rel || o == order::sc),
           "a load can be .weak, .volatile, .relaxed or .acquire");
        no(!load && (o == order::acquire || o == order::acq_rel || o == order::sc),
           "a store can be .weak, .volatile, .relaxed or .release");
        const bool scoped = o == order::relaxed || o == order::acquire || o == order::release;
        no(scoped && in.sc == scope::none, "a .relaxed/.acquire/.release access needs a scope");
        no(!scoped && in.sc != scope::none, "a scope needs .relaxed, .acquire or .release");
        no(o != order::none && o != order::weak && in.sp != space::global &&
               in.sp != space::shared && in.sp != space::generic,
           ".volatile/.relaxed/.acquire/.release apply to .global, .shared or generic "
           "addresses");
    }

    void check_atomic(const instruction& in, const token& mn, std::string_view full) const {
        auto no = [&](bool cond, const char* why) {
            if (cond) bad_combo(mn, full, why);
        };
        no(in.aop == atom_op::none,
           "needs an operation (.add .min .max .inc .dec .exch .cas .and .or .xor)");
        no(in.sp != space::global && in.sp != space::shared && in.sp != space::generic,
           "atomics apply to .global, .shared or generic addresses");
        const bool red = in.opcode == op::red;
        no(red && (in.aop == atom_op::exch || in.aop == atom_op::cas),
           "red has no .exch or .cas (use atom)");
        no(in.sem == order::weak || in.sem == order::volatile_ || in.sem == order::sc,
           "atomics can be .relaxed, .acquire, .release or .acq_rel");
        no(red && (in.sem == order::acquire || in.sem == order::acq_rel),
           "red can be .relaxed or .release");
        const type t = in.t;
        const std::uint32_t m = tb(t);
        switch (in.aop) {
        case atom_op::add:
            no((m & (tb(type::u32) | tb(type::s32) | tb(type::u64) | tb(type::f32) |
                     tb(type::f64))) == 0,
               ".add takes .u32, .s32, .u64, .f32 or .f64");
            break;
        case atom_op::inc:
        case atom_op::dec:
            no(t != type::u32, ".inc and .dec take .u32");
            break;
        case atom_op::min:
        case atom_op::max:
            no((m & t_32_64) == 0, ".min and .max take .u32, .s32, .u64 or .s64");
            break;
        default:
            no((m & t_b3264) == 0, "bitwise, .exch and .cas operations take .b32 or .b64");
            break;
        }
    }

    // --- operands -----------------------------------------------------------------------
    // Signature letters: d destination register (or `_`), D destination predicate, '|' after
    // d/D: an optional `|p` second predicate destination, s source register or immediate,
    // p predicate source, n predicate source that may be negated, i integer immediate,
    // a mov source (register, immediate, special register, symbol), c cvta source (register
    // or symbol), m memory, l label, V vector destination, W vector source, '?' the rest is
    // optional.
    std::string_view signature(const instruction& in) const noexcept {
        switch (in.opcode) {
        case op::add:
        case op::addc:
        case op::sub:
        case op::subc:
        case op::mul:
        case op::mul24:
        case op::div:
        case op::rem:
        case op::min:
        case op::max:
        case op::and_:
        case op::or_:
        case op::xor_:
        case op::shl:
        case op::shr:
        case op::copysign:
            return "dss";
        case op::mad:
        case op::madc:
        case op::mad24:
        case op::fma:
        case op::sad:
        case op::bfe:
        case op::prmt:
        case op::shf:
        case op::slct:
            return "dsss";
        case op::selp:
            return "dssp";
        case op::lop3:
            return "dsssi";
        case op::bfi:
            return "dssss";
        case op::abs:
        case op::neg:
        case op::not_:
        case op::cnot:
        case op::popc:
        case op::clz:
        case op::bfind:
        case op::brev:
        case op::rcp:
        case op::sqrt:
        case op::rsqrt:
        case op::sin:
        case op::cos:
        case op::lg2:
        case op::ex2:
        case op::tanh:
        case op::cvt:
            return "ds";
        case op::setp:
            return in.combine != bool_op::none ? "D|ssn" : "D|ss";
        case op::set:
            return in.combine != bool_op::none ? "dssn" : "dss";
        case op::testp:
            return "Ds";
        case op::cvta:
            return "dc";
        case op::mov:
            return "da";
        case op::ld:
        case op::ldu:
            return in.vec > 1 ? "Vm" : "dm";
        case op::st:
            return in.vec > 1 ? "mW" : "ms";
        case op::atom:
            return in.aop == atom_op::cas ? "dmss" : "dms";
        case op::red:
            return "ms";
        case op::prefetch:
            return "m";
        case op::shfl:
            return "d|ssss";
        case op::vote:
            return in.vote == vote_mode::ballot ? "dns" : "Dns";
        case op::activemask:
            return "d";
        case op::bar:
            return in.warp ? "s" : (in.arrive ? "ss" : "s?s");
        case op::bra:
            return "l";
        case op::tex:
            return "Vt";
        default:
            return "";
        }
    }

    static std::string ordinal(std::size_t i) { return "operand " + std::to_string(i + 1); }

    void parse_operands(instruction& in, const token& mn, std::string_view full) {
        std::string_view sig = signature(in);
        // mov packs / unpacks vectors: `mov.b64 %rd1, {%r1, %r2}` and `mov.b64 {%r1, %r2}, %rd1`.
        if (in.opcode == op::mov) {
            if (peek().is('{'))
                sig = "Vs";
            else if (in.t != type::pred)
                sig = "da"; // the source may be a vector; checked below
        }
        const bool pred_data = in.t == type::pred && in.opcode != op::vote;
        std::array<token, 6> at_tok{};
        std::size_t slot = 0;
        bool optional = false;
        std::size_t written = 0;
        auto expected_count = [&] {
            std::size_t n = 0;
            for (char c : sig)
                if (c != '|' && c != '?') ++n;
            return n;
        };
        for (std::size_t si = 0; si < sig.size(); ++si) {
            char c = sig[si];
            if (c == '?') {
                optional = true;
                continue;
            }
            if (c == '|') continue;
            if (written > 0) {
                if (optional && peek().is(';')) break;
                if (!peek().is(',')) {
                    if (peek().is(';'))
                        fail(mn, squote(full) + " expects " + std::to_string(expected_count()) +
                                     " operands, found " + std::to_string(slot));
                    fail(peek(), "expected ',' between operands of " + squote(full) + ", found " +
                                     describe(peek()));
                }
                next();
            } else if (peek().is(';')) {
                if (optional) break;
                fail(mn, squote(full) + " expects " + std::to_string(expected_count()) +
                             " operands, found 0");
            }
            if (in.opcode == op::mov && slot == 1 && c == 'a' && peek().is('{')) c = 'W';
            const token at = peek();
            at_tok[in.num_operands] = at;
            operand& o = in.operands[in.num_operands];
            switch (c) {
            case 'd':
            case 'D':
                parse_dest(o, at, full, slot, c == 'D' || pred_data);
                break;
            case 's':
                parse_source(in, o, at, full, slot, pred_data, false);
                break;
            case 'p':
            case 'n':
                parse_source(in, o, at, full, slot, true, c == 'n');
                break;
            case 'i':
                parse_source(in, o, at, full, slot, false, false);
                if (o.k != operand::kind::imm || o.immediate != imm_kind::integer || o.bits > 255)
                    fail(at, ordinal(slot) + " of " + squote(full) +
                                 " must be an integer immediate 0..255");
                break;
            case 'a':
            case 'c':
                parse_address_source(in, o, at, full, slot, c == 'a', pred_data);
                break;
            case 'm':
                parse_memory(in, o, at, full, slot);
                break;
            case 'l':
                parse_label(o, at, full, slot);
                break;
            case 'V':
            case 'W':
                parse_vector(in, o, at, full, slot, c == 'V');
                break;
            case 't': // [handle, {coordinates}]: two operands
                parse_texture(in, o, at, full, slot);
                ++in.num_operands;
                at_tok[in.num_operands] = at;
                break;
            default:
                break;
            }
            ++in.num_operands;
            ++slot;
            ++written;
            // `%p|%q`: a second predicate destination.
            if (si + 1 < sig.size() && sig[si + 1] == '|' && peek().is('|')) {
                next();
                const token q = peek();
                at_tok[in.num_operands] = q;
                parse_dest(in.operands[in.num_operands], q, full, slot, true);
                ++in.num_operands;
            }
        }
        if (!peek().is(';')) {
            if (peek().is(','))
                fail(peek(), squote(full) + " expects " + std::to_string(expected_count()) +
                                 " operands, found more");
            fail(peek(), "expected ';' after " + squote(full) + ", found " + describe(peek()));
        }
        next();
        check_operands(in, mn, full);
        check_register_types(in, full, at_tok);
    }

    // Rules between operands and modifiers.
    void check_operands(const instruction& in, const token& mn, std::string_view full) const {
        if (in.opcode == op::mov) {
            const operand& d = in.operands[0];
            const operand& s = in.operands[1];
            if (d.k == operand::kind::vector && s.k == operand::kind::vector)
                fail(mn, squote(full) + ": cannot move a vector to a vector");
            if ((d.k == operand::kind::vector || s.k == operand::kind::vector) &&
                (tb(in.t) & (t_b | t_u | t_s | t_f)) == 0)
                fail(mn, squote(full) + ": packing needs a 16-, 32- or 64-bit type");
        }
    }

    // PTX operand type rules (as ptxas applies them): the register has the operand's width
    // (ld / st / cvt: at least its width); a .b register fits any type of its width, integer
    // operands take .u/.s registers, float operands a register of their own type.
    static bool is_bits(type t) noexcept {
        return t == type::b8 || t == type::b16 || t == type::b32 || t == type::b64;
    }
    static bool register_fits(type r, type want, bool wider) noexcept {
        if (bits(r) != bits(want) && !(wider && bits(r) > bits(want))) return false;
        if (is_bits(r) || is_bits(want)) return true;
        if (is_float(want)) return r == want;
        return !is_float(r);
    }
    static type widened(type t) noexcept {
        switch (t) {
        case type::u16:
            return type::u32;
        case type::s16:
            return type::s32;
        case type::u32:
            return type::u64;
        case type::s32:
            return type::s64;
        default:
            return t;
        }
    }
    // The type operand `i` must fit (type::none: no register rule), and whether it may be wider.
    static std::pair<type, bool> operand_type(const instruction& in, std::size_t i) noexcept {
        const type t = in.t;
        const bool wide = in.mode == mul_mode::wide;
        switch (in.opcode) {
        case op::mul:
            return {i == 0 && wide ? widened(t) : t, false};
        case op::mad:
            return {(i == 0 || i == 3) && wide ? widened(t) : t, false};
        case op::shl:
        case op::shr:
            return {i == 2 ? type::u32 : t, false};
        case op::bfe:
            return {i >= 2 ? type::u32 : t, false};
        case op::bfi:
            return {i >= 3 ? type::u32 : t, false};
        case op::popc:
        case op::clz:
        case op::bfind:
            return {i == 0 ? type::u32 : t, false};
        case op::cvt:
            return {i == 0 ? t : in.t2, true};
        case op::set:
            return {i == 0 ? t : (i <= 2 ? in.t2 : type::none), false};
        case op::setp: {
            const std::size_t dsts =
                in.num_operands == (in.combine != bool_op::none ? 5 : 4) ? 2 : 1;
            return {i >= dsts && i < dsts + 2 ? t : type::none, false};
        }
        case op::slct:
            return {i == 3 ? in.t2 : t, false};
        case op::selp:
            return {i < 3 ? t : type::none, false};
        case op::testp:
            return {i == 1 ? t : type::none, false};
        case op::ld:
        case op::ldu:
            return {i == 0 ? t : type::none, true};
        case op::st:
            return {i == 1 ? t : type::none, true};
        case op::atom:
            return {i == 1 ? type::none : t, false};
        case op::red:
            return {i == 1 ? t : type::none, false};
        case op::shfl:
            return {in.num_operands == 6 && i == 1 ? type::none : type::b32, false};
        case op::vote:
            return {in.vote == vote_mode::ballot && i == 0 ? type::b32
                                                           : (i == 2 ? type::b32 : type::none),
                    false};
        case op::bar:
            return {type::u32, false};
        case op::tex: // {d}, [handle, {coordinates}]
            return {i == 0 ? t : (i == 1 ? type::b64 : in.t2), false};
        case op::and_:
        case op::or_:
        case op::xor_:
        case op::not_:
        case op::mov:
            return {t == type::pred ? type::none : t, false};
        default:
            return {t, false};
        }
    }

    void check_register_types(const instruction& in, std::string_view full,
                              const std::array<token, 6>& at) const {
        for (std::size_t i = 0; i < in.num_operands; ++i) {
            const operand& o = in.operands[i];
            const auto [want, wider] = operand_type(in, i);
            if (o.k == operand::kind::reg) {
                if (want == type::none || want == type::pred) continue;
                const type r = fn_->registers[o.reg].t;
                if (!register_fits(r, want, wider))
                    fail(at[i], ordinal(i) + " of " + squote(full) + ": " +
                                    squote(fn_->registers[o.reg].name) + " is ." +
                                    std::string(name(r)) + ", the operand is ." +
                                    std::string(name(want)));
            } else if (o.k == operand::kind::vector) {
                // mov packs parts of 1/count the width; ld/st vectors hold elements of the type.
                const bool pack = in.opcode == op::mov;
                const std::uint32_t part = pack ? bits(in.t) / (o.count ? o.count : 1U) : 0U;
                type first = type::none;
                for (std::uint8_t e = 0; e < o.count; ++e) {
                    if (o.elements[e] == no_index) continue;
                    const type r = fn_->registers[o.elements[e]].t;
                    const bool ok = pack ? bits(r) == part : register_fits(r, want, wider);
                    if (!ok || (first != type::none && bits(r) != bits(first)))
                        fail(at[i], ordinal(i) + " of " + squote(full) + ": element " +
                                        squote(fn_->registers[o.elements[e]].name) + " is ." +
                                        std::string(name(r)) + ", which does not fit");
                    if (first == type::none) first = r;
                }
            }
        }
    }

    std::uint32_t lookup_register(const token& at) const { return find_register(at.text); }

    [[noreturn]] void undeclared(const token& at) const {
        if (!at.text.empty() && at.text[0] == '%')
            fail(at, is_known_sreg(at.text) ? "unsupported special register " + squote(at.text)
                                            : "undeclared register " + squote(at.text));
        fail(at, "undeclared identifier " + squote(at.text));
    }
    static bool is_known_sreg(std::string_view n) noexcept {
        constexpr std::array<std::string_view, 14> others{"%globaltimer",
                                                          "%globaltimer_lo",
                                                          "%globaltimer_hi",
                                                          "%clock_hi",
                                                          "%dynamic_smem_size",
                                                          "%total_smem_size",
                                                          "%aggr_smem_size",
                                                          "%envreg",
                                                          "%pm",
                                                          "%clusterid",
                                                          "%nclusterid",
                                                          "%cluster_ctaid",
                                                          "%reserved_smem_offset_begin",
                                                          "%current_graph_exec"};
        for (auto o : others)
            if (n.substr(0, o.size()) == o) return true;
        return false;
    }

    void parse_dest(operand& o, const token& at, std::string_view full, std::size_t slot,
                    bool want_pred) {
        if (at.kind != token_kind::ident)
            fail(at, ordinal(slot) + " of " + squote(full) + " must be a register, found " +
                         describe(at));
        next();
        if (at.text == "_") {
            o.k = operand::kind::sink;
            return;
        }
        const std::uint32_t r = lookup_register(at);
        if (r == no_index) {
            if (sreg_words.find(at.text) != nullptr)
                fail(at, "special register " + squote(at.text) + " cannot be written");
            undeclared(at);
        }
        check_pred(r, at, full, slot, want_pred);
        o.k = operand::kind::reg;
        o.reg = r;
    }
    void check_pred(std::uint32_t r, const token& at, std::string_view full, std::size_t slot,
                    bool want_pred) const {
        const bool is_pred = fn_->registers[r].t == type::pred;
        if (is_pred != want_pred)
            fail(at, ordinal(slot) + " of " + squote(full) + ": " + squote(at.text) +
                         (want_pred ? " is not a .pred register" : " is a .pred register"));
    }

    // An immediate (with an optional leading '-'); false when the token is no literal.
    bool parse_immediate(operand& o) {
        const token& t = peek();
        const bool neg = t.is('-');
        if (neg) {
            next();
            const token& v = peek();
            if (v.kind != token_kind::integer && v.kind != token_kind::f32 &&
                v.kind != token_kind::f64)
                fail(v, "expected a number after '-', found " + describe(v));
        }
        const token v = peek();
        switch (v.kind) {
        case token_kind::integer:
            o.immediate = imm_kind::integer;
            o.bits = neg ? ~v.value + 1 : v.value;
            break;
        case token_kind::f32:
            o.immediate = imm_kind::f32;
            o.bits = v.value ^ (neg ? 0x80000000U : 0U);
            break;
        case token_kind::f64:
            o.immediate = imm_kind::f64;
            o.bits = v.value ^ (neg ? std::uint64_t{1} << 63 : 0U);
            break;
        default:
            return false;
        }
        next();
        o.k = operand::kind::imm;
        return true;
    }

    void parse_source(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot, bool want_pred, bool may_negate) {
        if (parse_immediate(o)) return;
        bool neg = false;
        if (at.is('!')) {
            if (!may_negate) fail(at, ordinal(slot) + " of " + squote(full) + " cannot be negated");
            next();
            neg = true;
        }
        const token r_tok = peek();
        if (r_tok.kind != token_kind::ident)
            fail(r_tok, ordinal(slot) + " of " + squote(full) +
                            " must be a register or immediate, found " + describe(r_tok));
        next();
        const std::uint32_t r = lookup_register(r_tok);
        if (r == no_index) {
            if (sreg_words.find(r_tok.text) != nullptr)
                fail(r_tok, "special register " + squote(r_tok.text) +
                                " can only be read by mov, not by " + squote(full));
            if (r_tok.text != "_" && (r_tok.text[0] != '%') &&
                find_symbol(r_tok.text).index != no_index)
                fail(r_tok, ordinal(slot) + " of " + squote(full) +
                                " must be a register or immediate; take the address of " +
                                squote(r_tok.text) + " with mov");
            undeclared(r_tok);
        }
        check_pred(r, r_tok, full, slot, want_pred);
        o.k = operand::kind::reg;
        o.reg = r;
        o.negate = neg;
        static_cast<void>(in);
    }

    symbol_ref find_symbol(std::string_view n) const {
        if (const auto* e = fsyms_.find(n)) return e->value;
        const auto it = msyms_.find(n);
        if (it != msyms_.end()) return it->second;
        return {};
    }

    void parse_address_source(const instruction& in, operand& o, const token& at,
                              std::string_view full, std::size_t slot, bool mov, bool want_pred) {
        if (parse_immediate(o)) {
            if (!mov)
                fail(at,
                     ordinal(slot) + " of " + squote(full) + " must be a register or a variable");
            return;
        }
        if (at.kind != token_kind::ident)
            fail(at, ordinal(slot) + " of " + squote(full) +
                         " must be a register, immediate or symbol, found " + describe(at));
        next();
        const std::uint32_t r = lookup_register(at);
        if (r != no_index) {
            check_pred(r, at, full, slot, want_pred);
            o.k = operand::kind::reg;
            o.reg = r;
            return;
        }
        if (const sreg_word* s = sreg_words.find(at.text)) {
            if (!mov) fail(at, "special register " + squote(at.text) + " can only be read by mov");
            o.k = operand::kind::sreg;
            o.special = s->s;
            if (has_components(s->s)) {
                const token& d = peek();
                if (d.kind != token_kind::directive ||
                    (d.text != "x" && d.text != "y" && d.text != "z"))
                    fail(at, squote(at.text) + " needs a component (.x, .y or .z)");
                o.dim = static_cast<std::uint8_t>(d.text[0] - 'x');
                next();
            }
            const bool wide = s->s == sreg::clock64 || s->s == sreg::gridid;
            if (want_pred || (bits(in.t) != 32 && !(wide && bits(in.t) == 64)))
                fail(at, squote(full) + ": " + squote(at.text) + " is a " + (wide ? "64" : "32") +
                             "-bit special register");
            return;
        }
        const symbol_ref sym = find_symbol(at.text);
        if (sym.index == no_index) undeclared(at);
        if (want_pred) fail(at, squote(full) + ": a symbol's address is not a predicate");
        if (sym.kind == symbol_kind::function && !mov)
            fail(at, "cvta cannot convert the address of function " + squote(at.text));
        o.k = operand::kind::symbol;
        o.symbol_of = sym.kind;
        o.index = sym.index;
    }

    space space_of_symbol(symbol_ref s) const noexcept {
        switch (s.kind) {
        case symbol_kind::module_var:
            return mod_->variables[s.index].sp;
        case symbol_kind::function_var:
            return fn_->variables[s.index].sp;
        case symbol_kind::param:
        case symbol_kind::result:
            return space::param;
        default:
            return space::none;
        }
    }

    void parse_memory(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot) {
        if (!at.is('['))
            fail(at, ordinal(slot) + " of " + squote(full) + " must be an address [...], found " +
                         describe(at));
        next();
        o.k = operand::kind::memory;
        const token b = peek();
        if (b.kind == token_kind::ident) {
            next();
            const std::uint32_t r = lookup_register(b);
            if (r != no_index) {
                if (fn_->registers[r].t == type::pred || is_float(fn_->registers[r].t))
                    fail(b, "address register " + squote(b.text) + " is a ." +
                                std::string(name(fn_->registers[r].t)) + " register");
                o.reg = r;
            } else {
                const symbol_ref s = find_symbol(b.text);
                if (s.index == no_index) {
                    if (sreg_words.find(b.text) != nullptr)
                        fail(b, "special register " + squote(b.text) + " cannot be an address");
                    undeclared(b);
                }
                if (s.kind == symbol_kind::function)
                    fail(b, "function " + squote(b.text) + " cannot be an address");
                const space vs = space_of_symbol(s);
                if (in.sp != space::generic && in.sp != space::none && vs != in.sp)
                    fail(b, squote(b.text) + " is a ." + std::string(name(vs)) + " variable; " +
                                squote(full) + " accesses ." + std::string(name(in.sp)));
                if (s.kind == symbol_kind::param && in.opcode != op::ld &&
                    in.opcode != op::prefetch)
                    fail(b, "parameter " + squote(b.text) + " is read-only");
                o.symbol_of = s.kind;
                o.index = s.index;
            }
            if (peek().is('+') || peek().is('-')) {
                const bool minus = next().is('-');
                const bool neg2 = accept('-');
                const token v = peek();
                if (v.kind != token_kind::integer)
                    fail(v, "expected an integer offset, found " + describe(v));
                next();
                if (v.value > (std::uint64_t{1} << 62)) fail(v, "address offset too large");
                const auto mag = static_cast<std::int64_t>(v.value);
                o.offset = (minus != neg2) ? -mag : mag;
            }
        } else if (b.kind == token_kind::integer) {
            next();
            if (b.value > (std::uint64_t{1} << 62)) fail(b, "address too large");
            o.offset = static_cast<std::int64_t>(b.value);
        } else {
            fail(b, "expected a register, variable or address inside [...], found " + describe(b));
        }
        expect(']', "to close the address");
    }

    void parse_label(operand& o, const token& at, std::string_view full, std::size_t slot) {
        if (at.kind != token_kind::ident)
            fail(at,
                 ordinal(slot) + " of " + squote(full) + " must be a label, found " + describe(at));
        next();
        if (find_register(at.text) != no_index)
            fail(at, "indirect branches through registers are not supported");
        o.k = operand::kind::label;
        const auto it = labels_.find(at.text);
        if (it != labels_.end()) {
            o.index = it->second;
        } else {
            fixups_.push_back(
                label_fixup{code_size() - 1, static_cast<std::uint8_t>(slot), at.text, pos_of(at)});
        }
    }

    void parse_vector(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot, bool dest) {
        if (!at.is('{'))
            fail(at, ordinal(slot) + " of " + squote(full) + " must be a vector {...}, found " +
                         describe(at));
        next();
        o.k = operand::kind::vector;
        for (;;) {
            const token e = peek();
            if (e.kind != token_kind::ident)
                fail(e, "expected a register in the vector, found " + describe(e));
            next();
            if (o.count == 4) fail(e, "a vector has at most 4 elements");
            if (e.text == "_") {
                if (!dest) fail(e, "'_' can only stand for an unused destination");
                o.elements[o.count++] = no_index;
            } else {
                const std::uint32_t r = lookup_register(e);
                if (r == no_index) undeclared(e);
                if (fn_->registers[r].t == type::pred)
                    fail(e, "vector element " + squote(e.text) + " is a .pred register");
                o.elements[o.count++] = r;
            }
            if (!accept(',')) break;
        }
        expect('}', "to close the vector");
        if (in.opcode == op::mov) {
            if (o.count != 2 && o.count != 4)
                fail(at, squote(full) + ": a packed vector has 2 or 4 elements");
            if (bits(in.t) % o.count != 0 || bits(in.t) / o.count < 8)
                fail(at, squote(full) + ": cannot split ." + std::string(name(in.t)) + " into " +
                             std::to_string(o.count) + " parts");
        } else if (o.count != in.vec) {
            fail(at, squote(full) + " needs a vector of " + std::to_string(in.vec) +
                         " registers, found " + std::to_string(o.count));
        }
    }

    // tex: `[a, {c}]` or `[a, c]` (1d), `[a, {x, y}]` (2d); a is the 64-bit texture object
    // handle, held in operand o; the coordinates go to the next operand.
    void parse_texture(instruction& in, operand& o, const token& at, std::string_view full,
                       std::size_t slot) {
        if (!at.is('['))
            fail(at, ordinal(slot) + " of " + squote(full) +
                         " must be [texture, {coordinates}], found " + describe(at));
        next();
        const token h = peek();
        if (h.kind != token_kind::ident)
            fail(h, "expected the texture object register, found " + describe(h));
        next();
        const std::uint32_t r = lookup_register(h);
        if (r == no_index) {
            if (find_symbol(h.text).index != no_index)
                fail(h, "texture references (" + squote(h.text) +
                            ") are not supported; CUDA 13 has texture objects only");
            undeclared(h);
        }
        if (bits(fn_->registers[r].t) != 64 || is_float(fn_->registers[r].t))
            fail(h, "the texture object " + squote(h.text) + " must be a 64-bit integer register");
        o.k = operand::kind::reg;
        o.reg = r;
        expect(',', "between the texture and its coordinates");
        const std::size_t dims = in.geom == tex_geom::d2 ? 2 : 1;
        operand& c = in.operands[in.num_operands + 1];
        c.k = operand::kind::vector;
        const bool braced = accept('{');
        for (;;) {
            const token e = peek();
            if (e.kind != token_kind::ident)
                fail(e, "expected a coordinate register, found " + describe(e));
            next();
            const std::uint32_t cr = lookup_register(e);
            if (cr == no_index) undeclared(e);
            if (c.count == 4) fail(e, "a vector has at most 4 elements");
            c.elements[c.count++] = cr;
            if (!braced || !accept(',')) break;
        }
        if (braced) expect('}', "to close the coordinates");
        if (c.count != dims)
            fail(at, squote(full) + " needs " + std::to_string(dims) + " coordinate" +
                         (dims == 1 ? "" : "s") + ", found " + std::to_string(c.count));
        if (peek().is(',')) fail(peek(), "explicit samplers are not supported in " + squote(full));
        expect(']', "to close the texture operand");
    }

    // call{.uni} (results), f, (args);  call{.uni} f, (args);  call{.uni} f;
    void parse_call(instruction& in, const token& mn, std::string_view full) {
        if (accept('(')) {
            parse_call_list(in.call_results, true);
            expect(',', "after the call's return list");
        }
        const token f = peek();
        if (f.kind != token_kind::ident)
            fail(f, "expected the called function, found " + describe(f));
        next();
        if (find_register(f.text) != no_index)
            fail(f, "indirect calls through registers are not supported");
        const auto it = msyms_.find(f.text);
        if (it == msyms_.end()) fail(f, "call to undeclared function " + squote(f.text));
        if (it->second.kind != symbol_kind::function)
            fail(f, squote(f.text) + " is not a function");
        operand& o = in.operands[0];
        o.k = operand::kind::symbol;
        o.symbol_of = symbol_kind::function;
        o.index = it->second.index;
        in.num_operands = 1;
        if (accept(',')) {
            expect('(', "to open the call's argument list");
            parse_call_list(in.call_args, false);
            if (peek().is(',')) fail(peek(), "indirect calls with a prototype are not supported");
        }
        if (!peek().is(';'))
            fail(peek(), "expected ';' after " + squote(full) + ", found " + describe(peek()));
        next();
        const function& callee = mod_->functions[o.index];
        if (callee.entry) fail(f, "cannot call the kernel " + squote(f.text));
        if (in.call_args.size() != callee.params.size())
            fail(mn, "call to " + squote(f.text) + " passes " +
                         std::to_string(in.call_args.size()) + " arguments; it takes " +
                         std::to_string(callee.params.size()));
        if (in.call_results.size() != callee.results.size())
            fail(mn, "call to " + squote(f.text) + " receives " +
                         std::to_string(in.call_results.size()) + " results; it returns " +
                         std::to_string(callee.results.size()));
    }
    void parse_call_list(std::vector<operand>& out, bool results) {
        if (accept(')')) return;
        for (;;) {
            operand o;
            const token a = peek();
            if (!results && parse_immediate(o)) {
                out.push_back(o);
            } else {
                if (a.kind != token_kind::ident)
                    fail(a, std::string("expected a ") + (results ? "result" : "argument") +
                                ", found " + describe(a));
                next();
                const std::uint32_t r = find_register(a.text);
                if (r != no_index) {
                    o.k = operand::kind::reg;
                    o.reg = r;
                } else {
                    const symbol_ref s = find_symbol(a.text);
                    if (s.index == no_index) undeclared(a);
                    if (space_of_symbol(s) != space::param)
                        fail(a, squote(a.text) + " is not a .param variable");
                    o.k = operand::kind::symbol;
                    o.symbol_of = s.kind;
                    o.index = s.index;
                }
                out.push_back(o);
            }
            if (out.size() > 256) fail(a, "too many call operands");
            if (!accept(',')) break;
        }
        expect(')', results ? "to close the call's return list" : "to close the argument list");
    }

    std::string file_;
    lexer lex_;
    module* mod_ = nullptr;
    function* fn_ = nullptr;
    std::uint64_t seen_ = 0;
    std::unordered_map<std::string_view, symbol_ref> msyms_;
    scoped_names<symbol_ref> fsyms_;
    scoped_names<std::uint32_t> regs_;
    std::vector<range_decl> ranges_;
    std::unordered_map<std::string_view, std::uint32_t> labels_;
    std::vector<label_fixup> fixups_;
    std::vector<std::uint32_t> block_stack_;
    std::vector<source_pos> open_pos_;
};

} // namespace detail

/// Parses PTX text; `file_name` names it in messages. Throws warpkit::parse_error.
[[nodiscard]] inline module parse_ptx(std::string_view text, std::string file_name = "<ptx>") {
    detail::parser p(text, std::move(file_name));
    return p.run();
}

/// Reads and parses a PTX file. Throws warpkit::error naming the file when it cannot be read,
/// warpkit::parse_error when it is not valid PTX of the subset.
[[nodiscard]] inline module read_ptx(const std::filesystem::path& path) {
    return parse_ptx(read_file(path), path.string());
}

} // namespace warpkit::ptx
