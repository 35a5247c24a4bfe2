#pragma once
/// \file
/// The rules between an instruction's modifiers and types that the per-opcode table of
/// legality.hpp cannot express (`.sat` only in `mad.hi.s32`, a float `mad` needs a rounding
/// mode, a load cannot be `.release` ...), as checks that only read the instruction, and the two
/// normalisations the parser applies around them (the generic state space of a memory access
/// written without one, the scope a CTA barrier drops).

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/parse/legality.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <string_view>

namespace warpkit::ptx::detail {

/// The first broken rule of a series of checks: `forbid(condition, why)` keeps `why` when
/// `condition` holds and no earlier rule was broken, so the message names the rule checked
/// first.
class first_violation {
public:
    constexpr void forbid(bool broken, std::string_view why) noexcept {
        if (broken && message_.empty()) message_ = why;
    }
    /// The broken rule; empty when none was.
    [[nodiscard]] constexpr std::string_view message() const noexcept { return message_; }

private:
    std::string_view message_;
};

/// .rn .rz .rm .rp
[[nodiscard]] constexpr bool has_float_rounding(const instruction& in) noexcept {
    return in.rnd >= rounding::rn && in.rnd <= rounding::rp;
}
/// .rni .rzi .rmi .rpi
[[nodiscard]] constexpr bool has_integer_rounding(const instruction& in) noexcept {
    return in.rnd >= rounding::rni;
}

// add, sub (floats: .f16/.f32/.f64; integers: .cc and .sat.s32).
constexpr void check_add_sub(const instruction& in, first_violation& rules) noexcept {
    const type t = in.t;
    if (is_float(t) || t == type::f16) {
        rules.forbid(has_integer_rounding(in), "integer rounding on a floating-point operation");
        rules.forbid(in.cc, ".cc applies only to integer operations");
        rules.forbid(in.ftz && t == type::f64, ".ftz applies only to .f32 and .f16");
        rules.forbid(in.sat && t == type::f64, ".sat applies only to .f32, .f16 and .s32");
    } else {
        rules.forbid(in.rnd != rounding::none || in.ftz, "rounding and .ftz need a float type");
        rules.forbid(in.sat && t != type::s32, ".sat on integers applies only to .s32");
        rules.forbid(in.cc && (type_bit(t) & integer_32_64_types) == 0,
                     ".cc needs a 32- or 64-bit type");
        rules.forbid(in.cc && in.sat, ".cc and .sat cannot be combined");
    }
}

constexpr void check_mul(const instruction& in, first_violation& rules) noexcept {
    const type t = in.t;
    if (is_float(t) || t == type::f16) {
        rules.forbid(in.mode != mul_mode::none, ".lo/.hi/.wide apply only to integers");
        rules.forbid(has_integer_rounding(in), "integer rounding on a floating-point operation");
        rules.forbid(in.ftz && t == type::f64, ".ftz applies only to .f32 and .f16");
        rules.forbid(in.sat && t == type::f64, ".sat applies only to .f32 and .f16");
    } else {
        rules.forbid(in.mode == mul_mode::none, "integer mul needs .lo, .hi or .wide");
        rules.forbid(in.rnd != rounding::none || in.ftz || in.sat, "float modifier on an integer");
        rules.forbid(in.mode == mul_mode::wide && bits(t) == 64,
                     ".wide needs a 16- or 32-bit type");
    }
}

constexpr void check_mad(const instruction& in, first_violation& rules) noexcept {
    const type t = in.t;
    if (is_float(t)) {
        rules.forbid(in.mode != mul_mode::none, ".lo/.hi/.wide apply only to integers");
        rules.forbid(has_integer_rounding(in), "integer rounding on a floating-point operation");
        rules.forbid(in.rnd == rounding::none, "float mad needs a rounding mode");
        rules.forbid(in.cc, ".cc applies only to integers");
        rules.forbid((in.ftz || in.sat) && t != type::f32, ".ftz and .sat apply only to .f32");
    } else {
        rules.forbid(in.mode == mul_mode::none, "integer mad needs .lo, .hi or .wide");
        rules.forbid(in.rnd != rounding::none || in.ftz, "float modifier on an integer");
        rules.forbid(in.mode == mul_mode::wide && bits(t) == 64,
                     ".wide needs a 16- or 32-bit type");
        rules.forbid(in.sat && !(in.mode == mul_mode::hi && t == type::s32),
                     ".sat applies only to mad.hi.s32");
        rules.forbid(in.cc &&
                         (in.mode == mul_mode::wide || (type_bit(t) & integer_32_64_types) == 0),
                     ".cc needs .lo or .hi with a 32- or 64-bit type");
        rules.forbid(in.cc && in.sat, ".cc and .sat cannot be combined");
    }
}

constexpr void check_div(const instruction& in, first_violation& rules) noexcept {
    if (is_float(in.t)) {
        rules.forbid(has_integer_rounding(in), "integer rounding on a floating-point operation");
        if (in.t == type::f32) {
            const int ways =
                (has_float_rounding(in) ? 1 : 0) + (in.approx ? 1 : 0) + (in.full ? 1 : 0);
            rules.forbid(ways != 1,
                         "div.f32 needs exactly one of .approx, .full or a rounding mode");
        } else {
            rules.forbid(!has_float_rounding(in), "div.f64 needs a rounding mode");
            rules.forbid(in.approx || in.full || in.ftz, ".approx/.full/.ftz apply only to .f32");
        }
    } else {
        rules.forbid(in.rnd != rounding::none || in.ftz || in.approx || in.full,
                     "float modifier on an integer division");
    }
}

// setp / set: the comparison and the compared type (set: the second type).
constexpr void check_comparison(const instruction& in, first_violation& rules) noexcept {
    rules.forbid(in.compare == cmp::none, "needs a comparison (.eq .ne .lt .le .gt .ge ...)");
    const type compared = in.opcode == op::set ? in.t2 : in.t;
    const bool float_compare = is_float(compared);
    rules.forbid(!float_compare && in.compare >= cmp::equ,
                 "unordered comparisons apply only to floats");
    rules.forbid((float_compare || is_signed(compared)) && in.compare >= cmp::lo &&
                     in.compare <= cmp::hs,
                 ".lo/.ls/.hi/.hs apply only to unsigned and bit types");
    rules.forbid((type_bit(compared) & bit_types) != 0 && in.compare != cmp::eq &&
                     in.compare != cmp::ne,
                 "bit types compare only with .eq and .ne");
    rules.forbid(in.ftz && compared != type::f32 && compared != type::f16,
                 ".ftz applies only to .f32");
}

// cvt: the rounding a conversion needs follows from its two types.
constexpr void check_cvt(const instruction& in, first_violation& rules) noexcept {
    const type to = in.t, from = in.t2;
    const bool float_to = is_float(to), float_from = is_float(from);
    if (float_to && float_from) {
        if (bits(to) == bits(from))
            rules.forbid(has_float_rounding(in),
                         "a float-to-float conversion of one width rounds only to integers "
                         "(.rni .rzi .rmi .rpi)");
        else if (bits(to) < bits(from))
            rules.forbid(!has_float_rounding(in),
                         "a narrowing float conversion needs .rn, .rz, .rm or .rp");
        else
            rules.forbid(in.rnd != rounding::none, "a widening float conversion takes no rounding");
    } else if (float_from) {
        rules.forbid(!has_integer_rounding(in),
                     "a float-to-integer conversion needs .rni, .rzi, .rmi or .rpi");
    } else if (float_to) {
        rules.forbid(!has_float_rounding(in),
                     "an integer-to-float conversion needs .rn, .rz, .rm or .rp");
    } else {
        rules.forbid(in.rnd != rounding::none, "an integer conversion takes no rounding");
        // .sat only where the value can fall outside the destination's range.
        const bool fits =
            to == from || (bits(to) > bits(from) && (is_signed(to) || !is_signed(from)));
        rules.forbid(in.sat && fits, ".sat needs a conversion that can overflow");
    }
    rules.forbid(in.ftz && to != type::f32 && from != type::f32, ".ftz applies only to .f32");
}

// ld / st: the memory order, its scope and the state spaces an ordered access reaches.
constexpr void check_memory_order(const instruction& in, bool load,
                                  first_violation& rules) noexcept {
    const order o = in.sem;
    rules.forbid(load && (o == order::release || o == order::acq_rel || o == order::sc),
                 "a load can be .weak, .volatile, .relaxed or .acquire");
    rules.forbid(!load && (o == order::acquire || o == order::acq_rel || o == order::sc),
                 "a store can be .weak, .volatile, .relaxed or .release");
    const bool scoped = o == order::relaxed || o == order::acquire || o == order::release;
    rules.forbid(scoped && in.sc == scope::none,
                 "a .relaxed/.acquire/.release access needs a scope");
    rules.forbid(!scoped && in.sc != scope::none, "a scope needs .relaxed, .acquire or .release");
    rules.forbid(o != order::none && o != order::weak && in.sp != space::global &&
                     in.sp != space::shared && in.sp != space::generic,
                 ".volatile/.relaxed/.acquire/.release apply to .global, .shared or generic "
                 "addresses");
}

// ld, st, ldu, prefetch, cvta.
constexpr void check_memory_access(const instruction& in, modifier_set given,
                                   first_violation& rules) noexcept {
    switch (in.opcode) {
    case op::ld:
        check_memory_order(in, true, rules);
        rules.forbid(in.nc && in.sp != space::global, ".nc applies only to ld.global");
        rules.forbid(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
        rules.forbid(in.nc && in.sem != order::none, ".nc cannot take a memory order");
        break;
    case op::st:
        check_memory_order(in, false, rules);
        rules.forbid(in.sp == space::constant, "cannot store to .const");
        rules.forbid(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
        break;
    case op::ldu:
        rules.forbid(in.sp != space::global && in.sp != space::generic, "ldu reads only .global");
        rules.forbid(in.vec == 4 && bits(in.t) == 64, ".v4 needs elements of at most 32 bits");
        break;
    case op::prefetch:
        rules.forbid((given & class_bit(modifier_class::level)) == 0, "prefetch needs .L1 or .L2");
        rules.forbid(in.sp != space::global && in.sp != space::local && in.sp != space::generic,
                     "prefetch applies to .global, .local or generic addresses");
        break;
    default: // cvta
        rules.forbid(in.sp == space::none, "cvta needs a state space");
        break;
    }
}

// atom / red: the operation, the state space, the memory order and the operation's types.
constexpr void check_atomic(const instruction& in, first_violation& rules) noexcept {
    rules.forbid(in.aop == atom_op::none,
                 "needs an operation (.add .min .max .inc .dec .exch .cas .and .or .xor)");
    rules.forbid(in.sp != space::global && in.sp != space::shared && in.sp != space::generic,
                 "atomics apply to .global, .shared or generic addresses");
    const bool red = in.opcode == op::red;
    rules.forbid(red && (in.aop == atom_op::exch || in.aop == atom_op::cas),
                 "red has no .exch or .cas (use atom)");
    rules.forbid(in.sem == order::weak || in.sem == order::volatile_ || in.sem == order::sc,
                 "atomics can be .relaxed, .acquire, .release or .acq_rel");
    rules.forbid(red && (in.sem == order::acquire || in.sem == order::acq_rel),
                 "red can be .relaxed or .release");
    const type t = in.t;
    const type_set the_type = type_bit(t);
    switch (in.aop) {
    case atom_op::add:
        rules.forbid((the_type & (type_bit(type::u32) | type_bit(type::s32) | type_bit(type::u64) |
                                  type_bit(type::f32) | type_bit(type::f64))) == 0,
                     ".add takes .u32, .s32, .u64, .f32 or .f64");
        break;
    case atom_op::inc:
    case atom_op::dec:
        rules.forbid(t != type::u32, ".inc and .dec take .u32");
        break;
    case atom_op::min:
    case atom_op::max:
        rules.forbid((the_type & integer_32_64_types) == 0,
                     ".min and .max take .u32, .s32, .u64 or .s64");
        break;
    default:
        rules.forbid((the_type & bit_32_64_types) == 0,
                     "bitwise, .exch and .cas operations take .b32 or .b64");
        break;
    }
}

// rcp, sqrt: .approx or a rounding mode; .f64 approximations only as rcp.approx.ftz.f64.
constexpr void check_rcp_sqrt(const instruction& in, first_violation& rules) noexcept {
    const bool float_rounding = has_float_rounding(in);
    rules.forbid(has_integer_rounding(in), "integer rounding on a floating-point operation");
    if (in.t == type::f32) {
        rules.forbid(float_rounding == in.approx,
                     "needs exactly one of .approx or a rounding mode");
    } else {
        rules.forbid(float_rounding == in.approx,
                     "needs exactly one of .approx or a rounding mode");
        rules.forbid(in.approx && !(in.opcode == op::rcp && in.ftz),
                     ".approx on .f64 exists only as rcp.approx.ftz.f64");
        rules.forbid(in.ftz && !in.approx, ".ftz with .f64 only in rcp.approx.ftz.f64");
    }
}

// shfl, vote, bar, membar, fence.
constexpr void check_synchronisation(const instruction& in, modifier_set given,
                                     first_violation& rules) noexcept {
    const bool sync = (given & class_bit(modifier_class::sync)) != 0;
    switch (in.opcode) {
    case op::shfl:
        rules.forbid(!sync, "shfl without .sync is not supported (use shfl.sync)");
        rules.forbid(in.shfl == shfl_mode::none, "needs a mode (.up .down .bfly .idx)");
        break;
    case op::vote:
        rules.forbid(!sync, "vote without .sync is not supported (use vote.sync)");
        rules.forbid(in.vote == vote_mode::none, "needs a mode (.all .any .uni .ballot)");
        rules.forbid(in.vote == vote_mode::ballot && in.t != type::b32, "vote.ballot needs .b32");
        rules.forbid(in.vote != vote_mode::ballot && in.t != type::pred,
                     "vote.all/.any/.uni need .pred");
        break;
    case op::bar:
        rules.forbid(in.sc != scope::none && in.sc != scope::cta, "only the .cta scope applies");
        rules.forbid(sync == in.arrive, "needs exactly one of .sync or .arrive");
        rules.forbid(in.warp && in.arrive, "bar.warp has only .sync");
        break;
    case op::membar:
        rules.forbid(in.sc == scope::none, "membar needs .cta, .gl or .sys");
        break;
    default: // fence
        rules.forbid(in.sem != order::sc && in.sem != order::acq_rel,
                     "fence needs .sc or .acq_rel");
        rules.forbid(in.sc == scope::none, "fence needs a scope (.cta .gpu .sys)");
        break;
    }
}

/// The first rule between `in`'s modifiers and types that it breaks (`given`: the modifier
/// classes written, as apply_modifiers returns them); empty when it breaks none.
[[nodiscard]] constexpr std::string_view modifier_rule_violation(const instruction& in,
                                                                 modifier_set given) noexcept {
    const type t = in.t;
    first_violation rules;
    rules.forbid(t == type::f16 && in.rnd != rounding::none && in.rnd != rounding::rn &&
                     in.opcode != op::cvt,
                 ".f16 arithmetic rounds only with .rn");
    if (approx_only_function(in.opcode)) {
        rules.forbid(!in.approx, "needs .approx");
        return rules.message();
    }
    switch (in.opcode) {
    case op::add:
    case op::sub:
        check_add_sub(in, rules);
        break;
    case op::mul:
        check_mul(in, rules);
        break;
    case op::mad:
        check_mad(in, rules);
        break;
    case op::madc:
    case op::mul24:
        rules.forbid(in.mode == mul_mode::none || in.mode == mul_mode::wide, "needs .lo or .hi");
        break;
    case op::mad24:
        rules.forbid(in.mode == mul_mode::none || in.mode == mul_mode::wide, "needs .lo or .hi");
        rules.forbid(in.sat && !(in.mode == mul_mode::hi && t == type::s32),
                     ".sat applies only to mad24.hi.s32");
        break;
    case op::fma:
        rules.forbid(!has_float_rounding(in), "fma needs a rounding mode (.rn .rz .rm .rp)");
        rules.forbid((in.ftz || in.sat) && t == type::f64, ".ftz and .sat do not apply to .f64");
        break;
    case op::div:
        check_div(in, rules);
        break;
    case op::abs:
    case op::neg:
    case op::min:
    case op::max:
        rules.forbid(in.ftz && !(t == type::f32 || t == type::f16),
                     ".ftz applies only to .f32 and .f16");
        break;
    case op::shf:
        rules.forbid((given & class_bit(modifier_class::shf_dir)) == 0, "shf needs .l or .r");
        rules.forbid((given & class_bit(modifier_class::shf_mode)) == 0,
                     "shf needs .wrap or .clamp");
        break;
    case op::setp:
    case op::set:
        check_comparison(in, rules);
        break;
    case op::slct:
        rules.forbid(in.ftz && in.t2 != type::f32, ".ftz applies only to an .f32 selector");
        break;
    case op::testp:
        rules.forbid(in.test == test_op::none, "testp needs a property (.finite .infinite "
                                               ".number .notanumber .normal .subnormal)");
        break;
    case op::cvt:
        check_cvt(in, rules);
        break;
    case op::cvta:
    case op::ld:
    case op::st:
    case op::ldu:
    case op::prefetch:
        check_memory_access(in, given, rules);
        break;
    case op::atom:
    case op::red:
        check_atomic(in, rules);
        break;
    case op::rcp:
    case op::sqrt:
        check_rcp_sqrt(in, rules);
        break;
    case op::shfl:
    case op::vote:
    case op::bar:
    case op::membar:
    case op::fence:
        check_synchronisation(in, given, rules);
        break;
    case op::tex:
        rules.forbid(in.geom == tex_geom::none,
                     "tex needs .1d or .2d (3D, array, cube and multisample textures are not "
                     "supported)");
        rules.forbid(in.vec != 4, "tex needs .v4");
        break;
    default:
        rules.forbid(in.ftz && t != type::f32, ".ftz applies only to .f32");
        break;
    }
    return rules.message();
}

/// Normalisation before the rules: ld / st / ldu / atom / red / prefetch written without a
/// state space access generic addresses.
constexpr void default_to_generic_space(instruction& in, const opcode_legality& accepted) noexcept {
    if (accepted.takes(modifier_class::space) && in.sp == space::none &&
        (in.opcode == op::ld || in.opcode == op::st || in.opcode == op::ldu ||
         in.opcode == op::atom || in.opcode == op::red || in.opcode == op::prefetch))
        in.sp = space::generic;
}

/// Normalisation after the rules: a CTA barrier's only scope is .cta (which the rules allow
/// it to name), so the instruction keeps none.
constexpr void drop_barrier_scope(instruction& in) noexcept {
    if (in.opcode == op::bar) in.sc = scope::none;
}

} // namespace warpkit::ptx::detail
