#pragma once
/// \file
/// What the preparation passes of a `ptx::kernel` (ptx/passes/) hand each other: the resolved
/// operands and the prepared instruction (`ptx::value_ref`, `ptx::address_ref`,
/// `ptx::prepared_inst`, part of `ptx::kernel`'s interface and so in `warpkit::ptx`), and the
/// control flow of prepared code, which reconvergence and register allocation both walk.

#include <warpkit/core/error.hpp>
#include <warpkit/ptx/ir.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::ptx {

/// A value an instruction reads, resolved: a register, an immediate (already the bits of the
/// type reading it; a variable's address in its state space) or a special register.
struct value_ref {
    enum class kind : std::uint8_t { none, reg, imm, sreg };
    kind k = kind::none;
    bool negate = false; ///< `!p`: the predicate's complement
    std::uint32_t reg = no_index;
    std::uint64_t bits = 0;
    sreg special = sreg::tid;
    std::uint8_t dim = 0;
};

/// A memory operand, resolved: the state space accessed and `[reg + offset]` (reg may be
/// absent; a variable's address is folded into offset).
struct address_ref {
    space sp = space::none;
    std::uint32_t reg = no_index;
    std::uint64_t offset = 0;
};

/// One instruction of a prepared kernel.
struct prepared_inst {
    instruction in;           ///< as parsed, registers and labels renumbered
    std::uint8_t num_dst = 0; ///< destination registers (vector elements included)
    std::array<std::uint32_t, 4> dst{no_index, no_index, no_index, no_index}; ///< no_index: `_`
    std::uint8_t num_src = 0;       ///< values read (memory operand excluded)
    std::array<value_ref, 6> src{}; ///< in the order written
    bool has_addr = false;
    address_ref addr;                ///< the memory operand of ld / st / atom / red
    std::uint32_t target = no_index; ///< bra: the target pc
    bool call_param = false;         ///< a ld / st of a call sequence's `.param` slot
    bool reads_carry = false;        ///< addc / subc / madc
    bool writes_carry = false;       ///< `.cc`
};

} // namespace warpkit::ptx

namespace warpkit::ptx::passes {

namespace detail {

/// Throws parse_error at `pos` of the module's file: the passes' one way to refuse input.
[[noreturn]] inline void reject(const module& m, const source_pos& pos, const std::string& what) {
    throw parse_error(m.file, pos.line, pos.column, what);
}

} // namespace detail

/// True when no lane continues at the next pc after `in`: an unguarded exit, trap or branch.
[[nodiscard]] inline bool ends_straight_line(const instruction& in) noexcept {
    return in.guard == no_index &&
           (in.opcode == op::exit || in.opcode == op::trap || in.opcode == op::bra);
}

/// The pcs (< code.size()) that may run after the instruction at `pc`: a branch's target, the
/// next pc unless no lane can fall through. A guarded branch to the next pc lists it once.
[[nodiscard]] inline std::vector<std::size_t> successors(const std::vector<prepared_inst>& code,
                                                         std::size_t pc) {
    std::vector<std::size_t> out;
    const auto& p = code[pc];
    const bool guarded = p.in.guard != no_index;
    if (p.in.opcode == op::bra) {
        if (p.target < code.size()) out.push_back(p.target);
        if (guarded && pc + 1 < code.size() && pc + 1 != p.target) out.push_back(pc + 1);
        return out;
    }
    if ((p.in.opcode == op::exit || p.in.opcode == op::trap) && !guarded) return out;
    if (pc + 1 < code.size()) out.push_back(pc + 1);
    return out;
}

} // namespace warpkit::ptx::passes
