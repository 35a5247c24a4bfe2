#pragma once
/// \file
/// PTX spellings of the IR enums (`op::and_` is "and", `type::u32` is "u32", `space::constant`
/// is "const"), for printing, messages and per-opcode statistics.

#include <warpkit/ptx/ir.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace warpkit::ptx {

namespace detail {
template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view spell(const std::array<std::string_view, N>& names,
                                               E e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view{"?"};
}
inline constexpr std::array<std::string_view, 72> op_names{
    "add",   "addc", "sub",        "subc",  "mul",       "mad",        "madc",     "mul24",
    "mad24", "fma",  "div",        "rem",   "abs",       "neg",        "min",      "max",
    "sad",   "popc", "clz",        "bfind", "brev",      "bfe",        "bfi",      "prmt",
    "and",   "or",   "xor",        "not",   "cnot",      "lop3",       "shl",      "shr",
    "shf",   "setp", "set",        "selp",  "slct",      "testp",      "copysign", "cvt",
    "cvta",  "mov",  "ld",         "ldu",   "st",        "atom",       "red",      "prefetch",
    "rcp",   "sqrt", "rsqrt",      "sin",   "cos",       "lg2",        "ex2",      "tanh",
    "shfl",  "vote", "activemask", "bar",   "membar",    "fence",      "bra",      "call",
    "ret",   "exit", "trap",       "tex",   "wmma.load", "wmma.store", "wmma.mma", "mma"};
inline constexpr std::array<std::string_view, 17> type_names{
    "",    "pred", "b8",  "b16", "b32", "b64", "u8",  "u16", "u32",
    "u64", "s8",   "s16", "s32", "s64", "f16", "f32", "f64"};
inline constexpr std::array<std::string_view, 9> space_names{
    "", "reg", "sreg", "", "global", "shared", "const", "param", "local"};
inline constexpr std::array<std::string_view, 9> rounding_names{"",    "rn",  "rz",  "rm", "rp",
                                                                "rni", "rzi", "rmi", "rpi"};
inline constexpr std::array<std::string_view, 19> cmp_names{
    "",   "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls", "hi",
    "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
inline constexpr std::array<std::string_view, 4> bool_op_names{"", "and", "or", "xor"};
inline constexpr std::array<std::string_view, 4> mul_mode_names{"", "lo", "hi", "wide"};
inline constexpr std::array<std::string_view, 11> atom_op_names{
    "", "add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor"};
inline constexpr std::array<std::string_view, 5> shfl_mode_names{"", "up", "down", "bfly", "idx"};
inline constexpr std::array<std::string_view, 5> vote_mode_names{"", "all", "any", "uni", "ballot"};
inline constexpr std::array<std::string_view, 8> order_names{
    "", "weak", "relaxed", "acquire", "release", "acq_rel", "sc", "volatile"};
inline constexpr std::array<std::string_view, 4> scope_names{"", "cta", "gpu", "sys"};
inline constexpr std::array<std::string_view, 7> test_op_names{
    "", "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
inline constexpr std::array<std::string_view, 3> tex_geom_names{"", "1d", "2d"};
inline constexpr std::array<std::string_view, 17> sreg_names{
    "%tid",         "%ntid",        "%ctaid",       "%nctaid",      "%laneid",     "%warpid",
    "%nwarpid",     "%smid",        "%nsmid",       "%gridid",      "%clock",      "%clock64",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt"};
} // namespace detail

/// The mnemonic of an opcode ("add", "and", "activemask").
[[nodiscard]] constexpr std::string_view name(op o) noexcept {
    return detail::spell(detail::op_names, o);
}
/// A type without the dot ("u32"); empty for type::none.
[[nodiscard]] constexpr std::string_view name(type t) noexcept {
    return detail::spell(detail::type_names, t);
}
/// A state space as written after the dot ("global", "const"); empty for none / generic.
[[nodiscard]] constexpr std::string_view name(space s) noexcept {
    return detail::spell(detail::space_names, s);
}
/// A rounding modifier ("rn", "rzi"); empty for none.
[[nodiscard]] constexpr std::string_view name(rounding r) noexcept {
    return detail::spell(detail::rounding_names, r);
}
/// A comparison ("lt", "geu"); empty for none.
[[nodiscard]] constexpr std::string_view name(cmp c) noexcept {
    return detail::spell(detail::cmp_names, c);
}
/// A predicate combination ("and"); empty for none.
[[nodiscard]] constexpr std::string_view name(bool_op b) noexcept {
    return detail::spell(detail::bool_op_names, b);
}
/// A product part ("lo", "hi", "wide"); empty for none.
[[nodiscard]] constexpr std::string_view name(mul_mode m) noexcept {
    return detail::spell(detail::mul_mode_names, m);
}
/// An atomic operation ("add", "cas"); empty for none.
[[nodiscard]] constexpr std::string_view name(atom_op a) noexcept {
    return detail::spell(detail::atom_op_names, a);
}
/// A shuffle mode ("down"); empty for none.
[[nodiscard]] constexpr std::string_view name(shfl_mode m) noexcept {
    return detail::spell(detail::shfl_mode_names, m);
}
/// A vote mode ("ballot"); empty for none.
[[nodiscard]] constexpr std::string_view name(vote_mode m) noexcept {
    return detail::spell(detail::vote_mode_names, m);
}
/// A memory-ordering qualifier ("relaxed", "volatile"); empty for none.
[[nodiscard]] constexpr std::string_view name(order o) noexcept {
    return detail::spell(detail::order_names, o);
}
/// A scope ("cta", "gpu", "sys"); empty for none.
[[nodiscard]] constexpr std::string_view name(scope s) noexcept {
    return detail::spell(detail::scope_names, s);
}
/// A testp property ("finite"); empty for none.
[[nodiscard]] constexpr std::string_view name(test_op t) noexcept {
    return detail::spell(detail::test_op_names, t);
}
/// A texture geometry ("1d", "2d"); empty for none.
[[nodiscard]] constexpr std::string_view name(tex_geom g) noexcept {
    return detail::spell(detail::tex_geom_names, g);
}
/// A special register with its `%` ("%tid"), without a component.
[[nodiscard]] constexpr std::string_view name(sreg s) noexcept {
    return detail::spell(detail::sreg_names, s);
}
/// Special registers with .x/.y/.z components (`%tid`, `%ntid`, `%ctaid`, `%nctaid`).
[[nodiscard]] constexpr bool has_components(sreg s) noexcept {
    return s == sreg::tid || s == sreg::ntid || s == sreg::ctaid || s == sreg::nctaid;
}

} // namespace warpkit::ptx
