#pragma once
/// \file
/// The operands each PTX instruction takes: its operand signature (what kind of operand goes
/// in each slot) and the register type each operand must have, as ptxas applies them. Pure
/// functions of the instruction's opcode and modifiers; operands.hpp reads the operands.

#include <warpkit/ptx/ir.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace warpkit::ptx::detail {

// Signature letters: d destination register (or `_`), D destination predicate, '|' after
// d/D: an optional `|p` second predicate destination, s source register or immediate,
// p predicate source, n predicate source that may be negated, i integer immediate,
// a mov source (register, immediate, special register, symbol), c cvta source (register
// or symbol), m memory, l label, V vector destination, W vector source, '?' the rest is
// optional.
[[nodiscard]] constexpr std::string_view operand_signature(const instruction& in) noexcept {
    if (approx_only_function(in.opcode)) return "ds";
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

// PTX operand type rules (as ptxas applies them): the register has the operand's width
// (ld / st / cvt: at least its width); a .b register fits any type of its width, integer
// operands take .u/.s registers, float operands a register of their own type.
[[nodiscard]] constexpr bool is_bit_type(type t) noexcept {
    return t == type::b8 || t == type::b16 || t == type::b32 || t == type::b64;
}
[[nodiscard]] constexpr bool register_fits(type r, type want, bool wider) noexcept {
    if (bits(r) != bits(want) && !(wider && bits(r) > bits(want))) return false;
    if (is_bit_type(r) || is_bit_type(want)) return true;
    if (is_float(want)) return r == want;
    return !is_float(r);
}
[[nodiscard]] constexpr type widened(type t) noexcept {
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
[[nodiscard]] constexpr std::pair<type, bool> operand_type(const instruction& in,
                                                           std::size_t i) noexcept {
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
        const std::size_t dsts = in.num_operands == (in.combine != bool_op::none ? 5 : 4) ? 2 : 1;
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

} // namespace warpkit::ptx::detail
