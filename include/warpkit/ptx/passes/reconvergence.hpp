#pragma once
/// \file
/// Preparation pass 4, reconvergence points: where the lanes a branch splits meet again, the
/// pc a SIMT stack pushes when the branch diverges.
///
/// Reads: the prepared code (prepare_operands): opcodes, guards and branch targets.
/// Produces: one pc per instruction: for a `bra`, the first pc of the immediate
/// post-dominator of the branch's basic block in the control-flow graph; `simt::no_pc` for
/// every other instruction and for a branch whose paths meet only at exit (or never reach it).
/// Guarantees: basic blocks start at pc 0, at every branch target and after every branch,
/// unguarded exit and trap; a block's successors are its last instruction's (`successors`).

#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/ipdom.hpp>

#include <cstddef>
#include <vector>

namespace warpkit::ptx::passes {

/// The reconvergence pc of each instruction of `code` (see the file comment).
[[nodiscard]] inline std::vector<simt::pc_type>
reconvergence_points(const std::vector<prepared_inst>& code) {
    const std::size_t n = code.size();
    std::vector<char> leader(n + 1, 0);
    leader[0] = 1;
    for (std::size_t pc = 0; pc < n; ++pc) {
        const auto& p = code[pc];
        if (p.in.opcode == op::bra) {
            if (p.target < n) leader[p.target] = 1;
            leader[pc + 1] = 1;
        } else if (ends_straight_line(p.in)) {
            leader[pc + 1] = 1;
        }
    }
    std::vector<std::size_t> block_of(n, 0);
    std::vector<simt::pc_type> block_pc;
    for (std::size_t pc = 0; pc < n; ++pc) {
        if (leader[pc]) block_pc.push_back(static_cast<simt::pc_type>(pc));
        block_of[pc] = block_pc.size() - 1;
    }
    std::vector<std::vector<std::size_t>> succ(block_pc.size());
    for (std::size_t b = 0; b < block_pc.size(); ++b) {
        const std::size_t last = (b + 1 < block_pc.size() ? block_pc[b + 1] : n) - 1;
        for (const std::size_t s : successors(code, last))
            succ[b].push_back(block_of[s]);
    }
    const simt::post_dominator_tree tree(succ);
    const auto block_rpc = tree.reconvergence_pcs(block_pc);
    std::vector<simt::pc_type> rpc(n, simt::no_pc);
    for (std::size_t pc = 0; pc < n; ++pc)
        if (code[pc].in.opcode == op::bra) rpc[pc] = block_rpc[block_of[pc]];
    return rpc;
}

} // namespace warpkit::ptx::passes
