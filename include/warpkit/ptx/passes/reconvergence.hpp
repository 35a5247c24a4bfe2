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
#include <optional>
#include <vector>

namespace warpkit::ptx::passes {

/// The reconvergence pc of each instruction of `code` (see the file comment).
[[nodiscard]] inline std::vector<simt::pc_type>
reconvergence_points(const std::vector<prepared_inst>& code) {
    auto rpc = simt::block_reconvergence_pcs(
        code.size(),
        [&](std::size_t pc) -> std::optional<std::size_t> {
            if (code[pc].in.opcode == op::bra) return code[pc].target;
            return std::nullopt;
        },
        [&](std::size_t pc) {
            return code[pc].in.opcode == op::bra || ends_straight_line(code[pc].in);
        },
        [&](std::size_t last, auto&& add) {
            for (const std::size_t s : successors(code, last))
                add(s);
        });
    // Only branches diverge: the other instructions need no reconvergence point.
    for (std::size_t pc = 0; pc < code.size(); ++pc)
        if (code[pc].in.opcode != op::bra) rpc[pc] = simt::no_pc;
    return rpc;
}

} // namespace warpkit::ptx::passes
