#pragma once
/// \file
/// Preparation pass 6, static timing information: the `isa::static_inst` a timing model sees
/// for each prepared instruction (unit and latency class, timing register ids, memory
/// operation, state space and access size, branch / barrier / exit flags).
///
/// Reads: a prepared instruction (prepare_operands), the timing ids of register allocation,
/// the carry flag's register.
/// Produces: one `isa::static_inst` per instruction.
/// Guarantees: source and destination ids are the timing ids of the registers the
/// instruction reads and writes (register_uses_defs), each id once, as many as the
/// static_inst holds; the loads and stores of call `.param` slots are register moves (no
/// memory operation, integer unit); kernel-parameter loads are constant-memory loads.

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/ptx/passes/registers.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::ptx::passes {

/// Unit and latency class of a prepared instruction.
[[nodiscard]] inline std::pair<isa::unit_class, isa::latency_class>
timing_class(const prepared_inst& p) noexcept {
    using U = isa::unit_class;
    using L = isa::latency_class;
    const instruction& in = p.in;
    const type ct = in.opcode == op::set || in.opcode == op::cvt ? in.t2 : in.t;
    const bool dbl = in.t == type::f64 || ct == type::f64;
    const bool fl = is_float(in.t) || is_float(ct);
    if (approx_only_function(in.opcode)) return {U::sfu, L::sfu};
    switch (in.opcode) {
    case op::ld:
    case op::ldu:
    case op::st:
    case op::atom:
    case op::red:
        if (p.call_param) return {U::int_alu, L::int_alu};
        if (in.opcode == op::atom || in.opcode == op::red) return {U::ldst, L::atomic};
        if (p.addr.sp == space::shared) return {U::ldst, L::shared_mem};
        if (p.addr.sp == space::constant || p.addr.sp == space::param)
            return {U::ldst, L::const_mem};
        return {U::ldst, L::global_mem};
    case op::tex: // through the texture cache; the ideal memory gives it the global latency
        return {U::ldst, L::global_mem};
    case op::wmma_load:
    case op::wmma_store:
        return {U::ldst, p.addr.sp == space::shared ? L::shared_mem : L::global_mem};
    case op::wmma_mma:
    case op::mma:
        return {U::tensor, L::tensor};
    case op::bra:
        return {U::branch, L::branch};
    case op::exit:
    case op::ret:
    case op::trap:
    case op::bar:
    case op::membar:
    case op::fence:
    case op::prefetch:
    case op::call:
        return {U::ctrl, L::none};
    case op::mov:
        for (std::size_t i = 0; i < p.num_src; ++i)
            if (p.src[i].k == value_ref::kind::sreg) return {U::int_alu, L::special_reg};
        return {U::int_alu, L::int_alu};
    case op::rcp:
    case op::sqrt:
        if (in.approx && !dbl) return {U::sfu, L::sfu};
        return dbl ? std::pair{U::dp, L::dp_div} : std::pair{U::fp, L::fp_div};
    case op::div:
        if (!fl) return {U::int_alu, L::int_div};
        if (in.approx && !dbl) return {U::sfu, L::sfu};
        return dbl ? std::pair{U::dp, L::dp_div} : std::pair{U::fp, L::fp_div};
    case op::rem:
        return {U::int_alu, L::int_div};
    case op::mul:
        if (fl) return dbl ? std::pair{U::dp, L::dp_mul} : std::pair{U::fp, L::fp_mul};
        return {U::int_alu, L::int_mul};
    case op::mul24:
        return {U::int_alu, L::int_mul};
    case op::mad:
    case op::fma:
        if (fl) return dbl ? std::pair{U::dp, L::dp_fma} : std::pair{U::fp, L::fp_mad};
        return {U::int_alu, L::int_mad};
    case op::madc:
    case op::mad24:
        return {U::int_alu, L::int_mad};
    case op::add:
    case op::sub:
    case op::min:
    case op::max:
    case op::abs:
    case op::neg:
    case op::setp:
    case op::set:
    case op::selp:
    case op::slct:
    case op::copysign:
    case op::testp:
    case op::cvt:
        if (fl) return dbl ? std::pair{U::dp, L::dp_add} : std::pair{U::fp, L::fp_add};
        return {U::int_alu, L::int_alu};
    default:
        return {U::int_alu, L::int_alu};
    }
}

namespace detail {

// Appends `id` to the first `count` ids unless it is among them or the array is full.
template <std::size_t N>
void add_once(std::array<isa::reg_id, N>& ids, std::uint8_t& count, isa::reg_id id) noexcept {
    for (std::size_t i = 0; i < count; ++i)
        if (ids[i] == id) return;
    if (count < N) ids[count++] = id;
}

// The memory operation, state space and access size of `p`.
inline void memory_access(const prepared_inst& p, isa::static_inst& s) noexcept {
    const instruction& in = p.in;
    if (!p.call_param) {
        switch (in.opcode) {
        case op::ld:
        case op::ldu:
            s.mop = isa::mem_op::load;
            break;
        case op::st:
        case op::wmma_store:
            s.mop = isa::mem_op::store;
            break;
        case op::wmma_load:
            s.mop = isa::mem_op::load;
            break;
        case op::atom:
        case op::red:
            s.mop = isa::mem_op::atomic;
            break;
        default:
            break;
        }
    }
    if (in.opcode == op::tex) {
        // The executor gives each fetch its texel size (access_bytes) and addresses.
        s.mop = isa::mem_op::load;
        s.space = isa::mem_space::texture;
        s.access_bytes = 4;
    } else if (s.mop != isa::mem_op::none) {
        switch (p.addr.sp) {
        case space::shared:
            s.space = isa::mem_space::shared;
            break;
        case space::constant:
        case space::param:
            s.space = isa::mem_space::constant;
            break;
        case space::local:
            s.space = isa::mem_space::local;
            break;
        default: // global, and generic until the executor sees the addresses
            s.space = isa::mem_space::global;
            break;
        }
        s.access_bytes = static_cast<std::uint8_t>(size_of(in.t) * (in.vec == 0 ? 1 : in.vec));
        // A tile moves in 16-byte pieces, one per lane (ptx::matrix_timing_offset).
        if (is_matrix(in.opcode)) s.access_bytes = matrix_lane_access_bytes;
    }
}

} // namespace detail

/// The static_inst of `p`: `timing_ids` maps each flat register to its timing id
/// (register_allocation::timing_ids), `carry_register` is the carry flag's index.
[[nodiscard]] inline isa::static_inst static_info(const prepared_inst& p,
                                                  const std::vector<isa::reg_id>& timing_ids,
                                                  std::uint32_t carry_register) {
    isa::static_inst s;
    const instruction& in = p.in;
    s.opcode = static_cast<std::uint16_t>(in.opcode);
    const auto [u, l] = timing_class(p);
    s.unit = u;
    s.latency = l;
    std::vector<std::uint32_t> uses, defs;
    register_uses_defs(p, carry_register, uses, defs);
    for (const auto r : uses)
        detail::add_once(s.src, s.num_src, timing_ids[r]);
    for (const auto r : defs)
        detail::add_once(s.dst, s.num_dst, timing_ids[r]);
    detail::memory_access(p, s);
    s.is_branch = in.opcode == op::bra;
    s.is_barrier = in.opcode == op::bar && !in.arrive && !in.warp;
    s.is_exit = in.opcode == op::exit || in.opcode == op::trap;
    return s;
}

/// The static_inst of each instruction of `code` (static_info).
[[nodiscard]] inline std::vector<isa::static_inst>
static_infos(const std::vector<prepared_inst>& code, const std::vector<isa::reg_id>& timing_ids,
             std::uint32_t carry_register) {
    std::vector<isa::static_inst> out;
    out.reserve(code.size());
    for (const auto& p : code)
        out.push_back(static_info(p, timing_ids, carry_register));
    return out;
}

} // namespace warpkit::ptx::passes
