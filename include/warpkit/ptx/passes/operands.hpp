#pragma once
/// \file
/// Preparation pass 3, operand preparation: turns the flat instructions into `prepared_inst`s
/// whose operands the executor and the timing model read without looking anything up.
///
/// Reads: the module (variable names for messages), the entry (its parameters' offsets, its
/// position), the flat code (inline_calls) and the variable layout (lay_out_variables).
/// Produces: one `prepared_inst` per flat instruction, in order, and an `exit` after the last
/// when a lane could fall off the end of the code.
/// Guarantees: destinations are register indices (no_index for `_`); every source is a
/// register, an immediate already in the bits of the type that reads it (a variable's or
/// parameter's address included) or a special register; a memory operand has its state space
/// (`generic` when none is written) and `[reg + offset]` with the variable's address folded
/// in; a branch has its target pc; call `.param` slots are marked `call_param`.
/// Throws parse_error (file, line) for operands the executor cannot run: a destination that
/// is not a register, an unresolved or misplaced variable, an indirect branch, a memory
/// instruction without an address, a write to a kernel parameter, too many sources.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/passes/layout.hpp>
#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::ptx::passes {

/// Destination operands of `in` (the leading ones): 0 for instructions that write nothing,
/// 2 for setp with a second predicate and for shfl with a predicate, else 1.
[[nodiscard]] inline unsigned destination_count(const instruction& in) noexcept {
    switch (in.opcode) {
    case op::st:
    case op::red:
    case op::bra:
    case op::bar:
    case op::membar:
    case op::fence:
    case op::exit:
    case op::ret:
    case op::trap:
    case op::prefetch:
    case op::call:
        return 0;
    case op::setp:
        return in.num_operands >= (in.combine != bool_op::none ? 5 : 4) ? 2 : 1;
    case op::shfl:
        return in.num_operands >= 6 ? 2 : 1;
    default:
        return in.num_operands == 0 ? 0 : 1;
    }
}

/// The type the source operand at position k (counted after the destinations) is read as.
[[nodiscard]] inline type source_type(const instruction& in, std::size_t k) noexcept {
    switch (in.opcode) {
    case op::cvt:
    case op::set:
        return in.t2 == type::none ? in.t : in.t2;
    case op::slct:
        return k == 2 ? (in.t2 == type::none ? type::s32 : in.t2) : in.t;
    case op::selp:
    case op::setp:
        return k == 2 ? type::pred : in.t;
    case op::shl:
    case op::shr:
        return k == 1 ? type::u32 : in.t;
    case op::shfl:
    case op::vote:
    case op::bar:
        return k == 0 && in.opcode == op::vote ? type::pred : type::b32;
    case op::mad:
        return k == 2 && in.mode == mul_mode::wide ? type::b64 : in.t;
    default:
        return in.t;
    }
}

/// Immediate bits of `o` as read by an operand of type t (a float literal converted to t's
/// format; an integer literal as written).
[[nodiscard]] inline std::uint64_t immediate_as(const operand& o, type t) {
    if (o.immediate == imm_kind::integer) return o.bits;
    if (o.immediate == imm_kind::f32) {
        if (t == type::f64) return bits_of(static_cast<double>(to_f32(o.bits)));
        if (t == type::f16) return double_to_half(static_cast<double>(to_f32(o.bits)));
        return o.bits & 0xffffffffU;
    }
    if (t == type::f32) return bits_of(static_cast<float>(to_f64(o.bits)));
    if (t == type::f16) return double_to_half(to_f64(o.bits));
    if (t == type::f64 || bits(t) == 64) return o.bits;
    return o.bits; // a double literal read as bits of a narrower non-float type: its low bits
}

namespace detail {

// Resolves the operands of one instruction against the variable layout and the entry's
// parameters.
class operand_resolver {
public:
    operand_resolver(const module& m, const std::vector<param>& params,
                     const variable_layout& layout)
        : m_(m), params_(params), layout_(layout) {}

    [[nodiscard]] prepared_inst prepare(instruction in) const {
        prepared_inst p;
        if (in.opcode == op::call) reject(m_, in.pos, "internal: call left after inlining");
        if (is_matrix(in.opcode)) return prepare_matrix_(std::move(in));
        const unsigned ndst = destination_count(in);
        std::size_t k = 0;
        for (; k < ndst && k < in.num_operands; ++k) {
            const operand& o = in.operands[k];
            if (o.k == operand::kind::reg) {
                p.dst[p.num_dst++] = o.reg;
            } else if (o.k == operand::kind::vector) {
                for (std::size_t e = 0; e < o.count && e < 4; ++e)
                    p.dst[p.num_dst++] = o.elements[e];
            } else if (o.k == operand::kind::sink) {
                p.dst[p.num_dst++] = no_index;
            } else {
                reject(m_, in.pos, "the destination operand is not a register");
            }
        }
        for (std::size_t s = 0; k < in.num_operands; ++k, ++s)
            source_(in, in.operands[k], s, p);
        p.reads_carry = in.opcode == op::addc || in.opcode == op::subc || in.opcode == op::madc;
        p.writes_carry = in.cc;
        check_(in, p);
        p.in = std::move(in);
        return p;
    }

private:
    // A matrix instruction: its fragments stay in the instruction's vector operands (the
    // executor and register allocation read them there, ptx/matrix.hpp); the address of
    // wmma.load / wmma.store and the stride, if any, are resolved as for ld / st.
    [[nodiscard]] prepared_inst prepare_matrix_(instruction in) const {
        prepared_inst p;
        for (std::size_t k = 0; k < in.num_operands; ++k) {
            const operand& o = in.operands[k];
            if (o.k == operand::kind::memory)
                memory_(in, o, p);
            else if (o.k != operand::kind::vector)
                p.src[p.num_src++] = value_(in, o, 0);
        }
        if (p.has_addr && (p.addr.sp == space::param || p.addr.sp == space::constant))
            reject(m_, in.pos, "wmma.load / wmma.store access global or shared memory");
        p.in = std::move(in);
        return p;
    }

    // Where a symbol lives: its space and address in it; `slot`: a call `.param` slot.
    [[nodiscard]] address_ref symbol_(const instruction& in, const operand& o, bool& slot) const {
        slot = false;
        const auto& module_places = layout_.module_places;
        const auto& function_places = layout_.function_places;
        switch (o.symbol_of) {
        case symbol_kind::module_var:
            if (o.index >= module_places.size()) reject(m_, in.pos, "unresolved module variable");
            if (module_places[o.index].sp == space::constant ||
                module_places[o.index].sp == space::global ||
                module_places[o.index].sp == space::shared ||
                module_places[o.index].sp == space::local)
                return module_places[o.index];
            reject(m_, in.pos,
                   "variable `" + m_.variables[o.index].name +
                       "` is in an unsupported state space");
        case symbol_kind::function_var:
            if (o.index >= function_places.size()) reject(m_, in.pos, "unresolved variable");
            if (function_places[o.index].sp != space::shared &&
                function_places[o.index].sp != space::local &&
                function_places[o.index].sp != space::param)
                reject(m_, in.pos,
                       "variables of this state space cannot be declared in a function");
            slot = layout_.call_slots[o.index] != 0;
            return function_places[o.index];
        case symbol_kind::param:
            if (o.index >= params_.size()) reject(m_, in.pos, "unresolved parameter");
            return address_ref{space::param, no_index, params_[o.index].offset};
        default:
            reject(m_, in.pos, "a function name is not a value");
        }
    }

    // The memory operand `[base + offset]` of `in`.
    void memory_(const instruction& in, const operand& o, prepared_inst& p) const {
        bool slot = false;
        address_ref a;
        if (o.index != no_index) {
            a = symbol_(in, o, slot);
            if (slot && in.sp != space::param && in.sp != space::local)
                reject(m_, in.pos, "call parameter accessed outside .param");
            if (!slot && in.sp != space::generic && in.sp != space::none && in.sp != a.sp)
                reject(m_, in.pos, "variable accessed in the wrong state space");
            a.reg = o.reg;
        } else {
            a.sp = in.sp;
            a.reg = o.reg;
        }
        if (a.sp == space::none) a.sp = space::generic;
        a.offset += static_cast<std::uint64_t>(o.offset);
        p.addr = a;
        p.has_addr = true;
        p.call_param = slot;
    }

    // A register, immediate, special register or symbol read as source s.
    [[nodiscard]] value_ref value_(const instruction& in, const operand& o, std::size_t s) const {
        value_ref v;
        v.negate = o.negate;
        if (o.k == operand::kind::reg) {
            v.k = value_ref::kind::reg;
            v.reg = o.reg;
        } else if (o.k == operand::kind::imm) {
            v.k = value_ref::kind::imm;
            v.bits = immediate_as(o, source_type(in, s));
        } else if (o.k == operand::kind::sreg) {
            v.k = value_ref::kind::sreg;
            v.special = o.special;
            v.dim = o.dim;
        } else {
            if (o.symbol_of == symbol_kind::function)
                reject(m_, in.pos, "a function name is not a value");
            bool slot = false;
            const address_ref a = symbol_(in, o, slot);
            v.k = value_ref::kind::imm;
            v.bits = a.offset + static_cast<std::uint64_t>(o.offset);
        }
        return v;
    }

    // Source operand s (counted after the destinations) of `in`.
    void source_(const instruction& in, const operand& o, std::size_t s, prepared_inst& p) const {
        switch (o.k) {
        case operand::kind::memory:
            memory_(in, o, p);
            break;
        case operand::kind::label:
            p.target = o.index;
            break;
        case operand::kind::vector:
            for (std::size_t e = 0; e < o.count && e < 4; ++e) {
                if (p.num_src >= p.src.size()) reject(m_, in.pos, "too many source operands");
                value_ref v;
                if (o.elements[e] == no_index) {
                    v.k = value_ref::kind::imm; // `_` in a source vector reads as 0
                } else {
                    v.k = value_ref::kind::reg;
                    v.reg = o.elements[e];
                }
                p.src[p.num_src++] = v;
            }
            break;
        case operand::kind::reg:
        case operand::kind::imm:
        case operand::kind::sreg:
        case operand::kind::symbol:
            if (p.num_src >= p.src.size()) reject(m_, in.pos, "too many source operands");
            p.src[p.num_src++] = value_(in, o, s);
            break;
        case operand::kind::sink:
            break;
        default:
            reject(m_, in.pos, "unsupported operand");
        }
    }

    // What the executor cannot run although every operand resolved.
    void check_(const instruction& in, const prepared_inst& p) const {
        if (in.opcode == op::bra && p.target == no_index)
            reject(m_, in.pos, "bra needs a label (indirect branches are not supported)");
        if ((in.opcode == op::ld || in.opcode == op::st || in.opcode == op::atom ||
             in.opcode == op::red || in.opcode == op::ldu) &&
            !p.has_addr)
            reject(m_, in.pos, "memory instruction without an address operand");
        if (p.has_addr && p.addr.sp == space::param && !p.call_param && in.opcode != op::ld &&
            in.opcode != op::ldu)
            reject(m_, in.pos, "kernel parameters are read-only");
    }

    const module& m_;
    const std::vector<param>& params_;
    const variable_layout& layout_;
};

} // namespace detail

/// The prepared code of an entry (see the file comment): `code` is flat_code::code, `layout`
/// its variable layout.
[[nodiscard]] inline std::vector<prepared_inst> prepare_operands(const module& m,
                                                                 const function& entry,
                                                                 std::vector<instruction> code,
                                                                 const variable_layout& layout) {
    const detail::operand_resolver resolver(m, entry.params, layout);
    std::vector<prepared_inst> out;
    out.reserve(code.size());
    for (auto& in : code)
        out.push_back(resolver.prepare(std::move(in)));
    if (out.empty() || !ends_straight_line(out.back().in)) {
        // Falling off the end of a kernel ends the thread.
        prepared_inst x;
        x.in.opcode = op::exit;
        x.in.pos = out.empty() ? entry.pos : out.back().in.pos;
        out.push_back(x);
    }
    return out;
}

} // namespace warpkit::ptx::passes
