#pragma once
/// \file
/// Functional execution of the warpkit ISA, one warp instruction at a time: registers per
/// lane, shared / constant / global memory, special registers, barriers, EXIT, and
/// divergence through a SIMT stack part. Each step returns the dynamic_inst that a timing
/// model consumes.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/semantics.hpp>
#include <warpkit/isa/special_register.hpp>
#include <warpkit/simt/concepts.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::func {

/// The functional state of one block (CTA): its coordinates, shared memory and barrier.
struct cta_context {
    isa::dim3 id;                      ///< block index in the grid
    std::vector<std::uint32_t> shared; ///< shared memory, one element per 4 bytes
    std::uint32_t live_warps = 0;      ///< warps that have not exited
    std::uint32_t arrived = 0;         ///< live warps waiting at the barrier
    /// Every live warp has reached the barrier: it may be released.
    [[nodiscard]] bool barrier_complete() const noexcept {
        return arrived != 0 && arrived == live_warps;
    }
};

/// The functional state of one warp: its reconvergence stack and registers.
template <std::size_t WarpSize, class Stack>
struct warp_context {
    Stack stack;
    std::uint32_t warp_in_cta = 0;
    std::uint32_t regs_per_thread = 0;
    std::vector<std::uint32_t> regs; ///< register r of lane l at [r * WarpSize + l]
    bool at_barrier = false;
    std::uint64_t executed = 0; ///< warp instructions executed

    /// Sets up warp `index` of a block of `threads` threads starting at pc 0.
    void start(std::uint32_t index, std::uint32_t threads, std::uint32_t nregs) {
        warp_in_cta = index;
        regs_per_thread = nregs;
        regs.assign(std::size_t{nregs} * WarpSize, 0);
        const std::uint32_t first = index * static_cast<std::uint32_t>(WarpSize);
        const std::uint32_t n = threads > first ? threads - first : 0;
        stack.reset(0, lane_mask<WarpSize>::first_n(n));
        at_barrier = false;
        executed = 0;
    }
    [[nodiscard]] bool finished() const noexcept { return stack.finished(); }
    [[nodiscard]] std::uint32_t& reg(std::uint32_t r, std::size_t lane) {
        return regs[r * WarpSize + lane];
    }
};

namespace detail {
[[noreturn]] inline void fault(std::uint32_t warp, std::size_t pc, std::size_t lane,
                               const std::string& what) {
    throw sim_error("kernel fault at pc " + std::to_string(pc) + ", warp " + std::to_string(warp) +
                    ", lane " + std::to_string(lane) + ": " + what);
}
} // namespace detail

/// Executes the instruction at the warp's pc for its active lanes, updates the warp (pc,
/// stack, registers, barrier flag) and the memories, and returns what it did. `cta` must be
/// the warp's block. Memory faults (unaligned or out-of-range shared / constant access) are
/// sim_errors naming pc, warp and lane.
template <std::size_t WarpSize, class Stack>
requires simt::simt_stack<Stack> isa::dynamic_inst<WarpSize>
execute(const isa_kernel& k, warp_context<WarpSize, Stack>& w, cta_context& cta, global_memory& mem,
        exec_site site = {}) {
    using isa::opcode;
    WARPKIT_EXPECTS(!w.finished() && !w.at_barrier);
    const auto pc = static_cast<std::size_t>(w.stack.pc());
    if (pc >= k.size())
        detail::fault(w.warp_in_cta, pc, w.stack.active().first(), "pc past the end of the code");
    const isa::instruction& in = k.at(pc);
    isa::dynamic_inst<WarpSize> d;
    d.si = k.static_at(pc);
    d.pc = static_cast<std::uint32_t>(pc);
    d.active = w.stack.active();
    d.seq = w.executed++;
    w.stack.record_issue();

    const auto& cfg = k.config();
    const auto next = static_cast<simt::pc_type>(pc + 1);
    const auto shared_word = [&](std::size_t lane, std::uint32_t addr) -> std::uint32_t& {
        if (addr % 4 != 0 || addr / 4 >= cta.shared.size())
            detail::fault(w.warp_in_cta, pc, lane,
                          "shared address " + std::to_string(addr) + " outside [0, " +
                              std::to_string(cta.shared.size() * 4) + ") or unaligned");
        return cta.shared[addr / 4];
    };
    const auto special = [&](std::size_t lane, std::uint32_t n) -> std::uint32_t {
        const auto& b = cfg.block;
        const std::uint32_t t =
            w.warp_in_cta * static_cast<std::uint32_t>(WarpSize) + static_cast<std::uint32_t>(lane);
        using sr = isa::special_register;
        switch (static_cast<sr>(n)) {
        case sr::tid_x:
            return t % b.x;
        case sr::tid_y:
            return (t / b.x) % b.y;
        case sr::tid_z:
            return t / (b.x * b.y);
        case sr::ntid_x:
            return b.x;
        case sr::ntid_y:
            return b.y;
        case sr::ntid_z:
            return b.z;
        case sr::ctaid_x:
            return cta.id.x;
        case sr::ctaid_y:
            return cta.id.y;
        case sr::ctaid_z:
            return cta.id.z;
        case sr::nctaid_x:
            return cfg.grid.x;
        case sr::nctaid_y:
            return cfg.grid.y;
        case sr::nctaid_z:
            return cfg.grid.z;
        case sr::laneid:
            return static_cast<std::uint32_t>(lane);
        case sr::warpid:
            return w.warp_in_cta;
        case sr::smid:
            return site.sm;
        case sr::clock:
            return static_cast<std::uint32_t>(site.clock);
        default:
            break;
        }
        const std::uint32_t p = n - static_cast<std::uint32_t>(sr::param0);
        if (n >= isa::special_register_count) return 0;
        return p < cfg.params.size() ? cfg.params[p] : 0;
    };

    switch (in.op) {
    case opcode::beq:
    case opcode::bne: {
        lane_mask<WarpSize> taken;
        d.active.for_each([&](std::size_t l) {
            const bool zero = w.reg(in.src1, l) == 0;
            if (zero == (in.op == opcode::beq)) taken.set(l);
        });
        if constexpr (simt::sync_point_stack<Stack>) {
            if (simt::uses_sync_points(w.stack)) {
                w.stack.branch(taken, in.imm, next); // to the last SSY point
                return d;
            }
        }
        w.stack.branch(taken, in.imm, next, k.reconvergence(pc));
        return d;
    }
    case opcode::ssy:
        if constexpr (simt::sync_point_stack<Stack>) w.stack.ssy(in.imm);
        w.stack.advance(next);
        return d;
    case opcode::exit:
        w.stack.exit(d.active);
        return d;
    case opcode::bar:
        w.at_barrier = true;
        ++cta.arrived;
        w.stack.advance(next);
        return d;
    case opcode::nop:
        w.stack.advance(next);
        return d;
    case opcode::ld:
    case opcode::st:
    case opcode::atoms:
        d.active.for_each([&](std::size_t l) {
            const std::uint32_t addr = w.reg(in.src1, l);
            d.addr[l] = addr;
            std::uint32_t& cell = shared_word(l, addr);
            if (in.op == opcode::ld) {
                w.reg(in.dest, l) = cell;
            } else if (in.op == opcode::st) {
                cell = w.reg(in.src2, l);
            } else { // lanes in order: a deterministic serialisation of the atomics
                const std::uint32_t old = cell;
                cell = old + w.reg(in.src2, l);
                w.reg(in.dest, l) = old;
            }
        });
        w.stack.advance(next);
        return d;
    case opcode::ldc:
        d.active.for_each([&](std::size_t l) {
            const std::uint32_t addr = w.reg(in.src1, l);
            d.addr[l] = addr;
            if (addr % 4 != 0 || addr / 4 >= cfg.consts.size())
                detail::fault(w.warp_in_cta, pc, l,
                              "constant address " + std::to_string(addr) + " outside [0, " +
                                  std::to_string(cfg.consts.size() * 4) + ") or unaligned");
            w.reg(in.dest, l) = cfg.consts[addr / 4];
        });
        w.stack.advance(next);
        return d;
    case opcode::ldg:
    case opcode::stg:
    case opcode::atomg:
        d.active.for_each([&](std::size_t l) {
            const std::uint32_t addr = w.reg(in.src1, l);
            d.addr[l] = addr;
            if (addr % 4 != 0)
                detail::fault(w.warp_in_cta, pc, l,
                              "global address " + std::to_string(addr) + " is unaligned");
            if (in.op == opcode::ldg) {
                w.reg(in.dest, l) = mem.load(addr);
            } else if (in.op == opcode::stg) {
                mem.store(addr, w.reg(in.src2, l));
            } else {
                const std::uint32_t old = mem.load(addr);
                mem.store(addr, old + w.reg(in.src2, l));
                w.reg(in.dest, l) = old;
            }
        });
        w.stack.advance(next);
        return d;
    default:
        break;
    }
    // Arithmetic, logic, moves, special registers, FP and SFU.
    d.active.for_each([&](std::size_t l) {
        const std::uint32_t a = in.op == opcode::lds ? 0 : w.reg(in.src1, l);
        const std::uint32_t b = w.reg(in.src2, l);
        const std::uint32_t c = w.reg(in.src3, l);
        const std::uint32_t s = in.op == opcode::lds ? special(l, in.src1) : 0;
        w.reg(in.dest, l) = isa::evaluate(in, a, b, c, s);
    });
    w.stack.advance(next);
    return d;
}

} // namespace warpkit::func
