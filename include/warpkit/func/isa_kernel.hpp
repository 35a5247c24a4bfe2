#pragma once
/// \file
/// `isa_kernel`: a warpkit-ISA program prepared for execution: decoded instructions, their
/// static_inst facts, reconvergence points, and the launch geometry.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/program.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/ipdom.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::func {

/// The static_inst of a warpkit-ISA instruction.
[[nodiscard]] inline isa::static_inst static_info(const isa::instruction& in) {
    using isa::opcode;
    const auto& i = isa::info(in.op);
    isa::static_inst s;
    s.opcode = static_cast<std::uint16_t>(in.op);
    s.unit = i.unit;
    s.latency = i.latency;
    if (i.writes_dest) {
        s.num_dst = 1;
        s.dst[0] = in.dest;
    }
    if (in.reads(isa::operand::src1)) s.src[s.num_src++] = in.src1;
    if (in.reads(isa::operand::src2)) s.src[s.num_src++] = in.src2;
    if (in.reads(isa::operand::src3)) s.src[s.num_src++] = in.src3;
    switch (in.op) {
    case opcode::ld:
        s.space = isa::mem_space::shared;
        s.mop = isa::mem_op::load;
        break;
    case opcode::st:
        s.space = isa::mem_space::shared;
        s.mop = isa::mem_op::store;
        break;
    case opcode::ldc:
        s.space = isa::mem_space::constant;
        s.mop = isa::mem_op::load;
        break;
    case opcode::ldg:
        s.space = isa::mem_space::global;
        s.mop = isa::mem_op::load;
        break;
    case opcode::stg:
        s.space = isa::mem_space::global;
        s.mop = isa::mem_op::store;
        break;
    case opcode::atoms:
        s.space = isa::mem_space::shared;
        s.mop = isa::mem_op::atomic;
        break;
    case opcode::atomg:
        s.space = isa::mem_space::global;
        s.mop = isa::mem_op::atomic;
        break;
    default:
        break;
    }
    if (s.mop != isa::mem_op::none) s.access_bytes = 4;
    s.is_branch = in.op == opcode::beq || in.op == opcode::bne;
    s.is_barrier = in.op == opcode::bar;
    s.is_exit = in.op == opcode::exit;
    return s;
}

/// Reconvergence pc of every instruction (meaningful at BEQ / BNE): the start of the
/// immediate post-dominator of its basic block, or simt::no_pc when the paths only meet at
/// the kernel's end. Blocks end after BEQ, BNE and EXIT and before every branch target.
[[nodiscard]] inline std::vector<simt::pc_type>
reconvergence_points(const std::vector<isa::instruction>& code) {
    const auto is_branch = [&](std::size_t pc) {
        return code[pc].op == isa::opcode::beq || code[pc].op == isa::opcode::bne;
    };
    return simt::block_reconvergence_pcs(
        code.size(),
        [&](std::size_t pc) -> std::optional<std::size_t> {
            if (is_branch(pc)) return code[pc].imm;
            return std::nullopt;
        },
        [&](std::size_t pc) { return is_branch(pc) || code[pc].op == isa::opcode::exit; },
        [&](std::size_t last, auto&& add) {
            if (code[last].op == isa::opcode::exit) return;
            if (is_branch(last)) add(code[last].imm);
            add(last + 1);
        });
}

/// A program ready to run: every word decoded (an undefined word is an error naming its
/// index), static facts and reconvergence points computed once.
class isa_kernel {
public:
    /// Prepares `prog` for warps of `warp_size` lanes. Throws config_error for an undefined
    /// instruction, a branch target outside the code, or too many registers for REG.
    explicit isa_kernel(isa::program prog, std::uint32_t warp_size = 32)
        : prog_(std::move(prog)), warp_size_(warp_size) {
        const auto& k = prog_.kernel;
        if (prog_.code.empty()) throw config_error("kernel.code", "empty", "at least EXIT");
        for (std::size_t pc = 0; pc < prog_.code.size(); ++pc) {
            const auto in = isa::decode(prog_.code[pc]);
            if (!in)
                throw config_error("kernel.code[" + std::to_string(pc) + "]",
                                   "0x" + to_hex(prog_.code[pc]), "a defined instruction");
            if (in->uses(isa::operand::target) && in->imm > prog_.code.size())
                throw config_error("kernel.code[" + std::to_string(pc) + "].target",
                                   std::to_string(in->imm),
                                   "[0, " + std::to_string(prog_.code.size()) + "]");
            code_.push_back(*in);
            static_.push_back(static_info(*in));
        }
        rpc_ = reconvergence_points(code_);
        const std::uint32_t used = prog_.registers_used();
        regs_ = k.regs_per_thread != 0 ? k.regs_per_thread : (used == 0 ? 1 : used);
        if (used > regs_)
            throw config_error("kernel.regs_per_thread", std::to_string(regs_),
                               ">= " + std::to_string(used) + " (registers the code names)");
        const std::uint64_t threads = k.block.count();
        const std::uint64_t warps = (threads + warp_size - 1) / warp_size;
        warps_ = k.warps_per_block != 0 ? k.warps_per_block : static_cast<std::uint32_t>(warps);
        if (warps_ < warps)
            throw config_error("kernel.warps_per_block", std::to_string(warps_),
                               ">= " + std::to_string(warps) + " (block threads / warp size)");
    }

    [[nodiscard]] const isa::program& program() const noexcept { return prog_; }
    [[nodiscard]] const isa::kernel_config& config() const noexcept { return prog_.kernel; }
    [[nodiscard]] std::size_t size() const noexcept { return code_.size(); }
    [[nodiscard]] const isa::instruction& at(std::size_t pc) const { return code_.at(pc); }
    [[nodiscard]] const isa::static_inst& static_at(std::size_t pc) const { return static_.at(pc); }
    [[nodiscard]] simt::pc_type reconvergence(std::size_t pc) const { return rpc_.at(pc); }
    [[nodiscard]] std::uint32_t regs_per_thread() const noexcept { return regs_; }
    [[nodiscard]] std::uint32_t warps_per_block() const noexcept { return warps_; }
    [[nodiscard]] std::uint32_t threads_per_block() const noexcept {
        return static_cast<std::uint32_t>(prog_.kernel.block.count());
    }
    [[nodiscard]] std::uint32_t blocks() const noexcept {
        return static_cast<std::uint32_t>(prog_.kernel.grid.count());
    }
    [[nodiscard]] std::uint32_t warp_size() const noexcept { return warp_size_; }
    /// Shared memory a block declares (`.shared`); 0 when the kernel declares none.
    [[nodiscard]] std::uint32_t shared_bytes() const noexcept { return prog_.kernel.shared_bytes; }

private:
    static std::string to_hex(std::uint32_t w) {
        static constexpr char digits[] = "0123456789abcdef";
        std::string s(8, '0');
        for (int i = 7; i >= 0; --i, w >>= 4)
            s[static_cast<std::size_t>(i)] = digits[w & 15];
        return s;
    }
    isa::program prog_;
    std::uint32_t warp_size_;
    std::vector<isa::instruction> code_;
    std::vector<isa::static_inst> static_;
    std::vector<simt::pc_type> rpc_;
    std::uint32_t regs_ = 0;
    std::uint32_t warps_ = 0;
};

} // namespace warpkit::func
