#pragma once
/// \file
/// The compiler hint of paper 000 Section II.D: which branches of a kernel may go different
/// ways on different SMs with the same thread masks. Such a branch depends on something that
/// differs between the blocks (or SMs) of a kernel: the block index, the SM id, the clock, or
/// memory that one of those chose. `block_dependent_branches` finds them by a conservative,
/// flow-insensitive taint analysis over the decoded instructions: the results of the
/// instructions the caller names as sources are tainted; a result computed from a tainted
/// register is tainted; a load is tainted when its address is, or when the kernel stores to
/// that memory space with a tainted address or value, or updates it atomically at all (the
/// order of atomics from different SMs is not fixed, nor is an atomic's old value). A branch
/// reading a tainted register is flagged. The thread index alone does not taint: two SMs' warps in
/// the same slot hold the same thread indices.

#include <warpkit/isa/dynamic_inst.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpkit::reconfig {

/// One flag per instruction of `code`: true for a branch whose condition may differ between
/// blocks. `source(pc)` is true for an instruction whose result differs between blocks by
/// itself (reads the block index, SM id or clock).
template <class Source>
[[nodiscard]] std::vector<bool> block_dependent_branches(std::span<const isa::static_inst> code,
                                                         Source&& source) {
    std::size_t regs = 0;
    for (const auto& si : code) {
        for (std::size_t i = 0; i < si.num_dst; ++i)
            regs = std::max<std::size_t>(regs, std::size_t{si.dst[i]} + 1);
        for (std::size_t i = 0; i < si.num_src; ++i)
            regs = std::max<std::size_t>(regs, std::size_t{si.src[i]} + 1);
    }
    std::vector<bool> tainted(regs, false);
    constexpr std::size_t spaces = static_cast<std::size_t>(isa::mem_space::param) + 1;
    std::array<bool, spaces> memory{}; // the space holds block-dependent values
    const auto reads_tainted = [&](const isa::static_inst& si) {
        for (std::size_t i = 0; i < si.num_src; ++i)
            if (tainted[si.src[i]]) return true;
        return false;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t pc = 0; pc < code.size(); ++pc) {
            const auto& si = code[pc];
            const bool in = reads_tainted(si);
            // Texture fetches read global memory.
            const auto space = static_cast<std::size_t>(
                si.space == isa::mem_space::texture ? isa::mem_space::global : si.space);
            bool out = in || source(pc);
            if (si.mop == isa::mem_op::load) out = out || memory[space];
            if (si.mop == isa::mem_op::atomic) out = true;
            const bool writes_tainted =
                (si.mop == isa::mem_op::store && in) || si.mop == isa::mem_op::atomic;
            if (writes_tainted && !memory[space]) {
                memory[space] = true;
                changed = true;
            }
            if (!out) continue;
            for (std::size_t i = 0; i < si.num_dst; ++i)
                if (!tainted[si.dst[i]]) {
                    tainted[si.dst[i]] = true;
                    changed = true;
                }
        }
    }
    std::vector<bool> flags(code.size(), false);
    for (std::size_t pc = 0; pc < code.size(); ++pc)
        flags[pc] = code[pc].is_branch && reads_tainted(code[pc]);
    return flags;
}

} // namespace warpkit::reconfig
