#pragma once
/// \file
/// The contract between an SM's timing model and whatever produces its instructions (the
/// warpkit-ISA executor, the PTX executor, a trace, a synthetic generator).

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/simt/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

namespace warpkit::func {

/// Where a warp executes: the SM number (%smid) and the current core cycle (%clock).
struct exec_site {
    std::uint32_t sm = 0;
    std::uint64_t clock = 0;
};

/// Supplies the warps of one SM. Warps live in slots, blocks in block slots. The timing
/// model asks what each warp will execute next (`peek`: the i-th upcoming instruction on
/// the fall-through path, nullptr past a control instruction, a reconvergence point or the
/// end), executes it when
/// it issues (`execute`: functional effects happen then, the returned dynamic_inst is all
/// the timing model learns), and manages barriers and block lifetimes. A source never reads
/// timing state; an optional `pc(slot)` names where a warp is in deadlock reports.
template <class S, std::size_t W>
concept instruction_source = requires(S& s, const S& cs, std::uint32_t slot, std::size_t i,
                                      exec_site site, std::uint32_t block,
                                      std::span<const std::uint32_t> slots) {
    { cs.finished(slot) } -> std::same_as<bool>;
    { cs.at_barrier(slot) } -> std::same_as<bool>;
    { cs.peek(slot, i) } -> std::same_as<const isa::static_inst*>;
    { s.execute(slot, site) } -> std::same_as<isa::dynamic_inst<W>>;
    { s.start_block(slot, block, slots) } -> std::same_as<std::uint32_t>;
    { cs.barrier_complete(slot) } -> std::same_as<bool>;
    s.release_barrier(slot);
    { cs.block_finished(slot) } -> std::same_as<bool>;
};

/// Where the fall-through path of the warp owning `stack` stops being what it will execute:
/// the reconvergence pc of its top stack entry (the SSY sync point on a sync_point_stack).
/// When the warp gets there the stack pops and the pc may jump back to another divergent
/// path without a branch, so nothing at or past it may be fetched ahead. no_pc when unknown.
template <class Stack>
[[nodiscard]] simt::pc_type reconvergence_boundary(const Stack& stack) {
    if constexpr (requires { stack.visit([](const auto&) { return simt::no_pc; }); }) {
        // A stack chosen at run time (selectable_stack): the boundary of the one it is.
        return stack.visit([](const auto& s) { return reconvergence_boundary(s); });
    } else if constexpr (requires { stack.entries(); }) {
        const auto e = stack.entries();
        if (e.empty()) return simt::no_pc;
        if constexpr (simt::sync_point_stack<Stack>)
            return e.back().sync_pc;
        else
            return e.back().rpc;
    } else {
        return simt::no_pc;
    }
}

/// The `i`-th instruction of kernel `k` a warp at `pc` whose path stops at `stop` (see
/// reconvergence_boundary) will execute if no control instruction comes first: nullptr
/// beyond a branch, barrier or exit, at or past `stop`, or past the end of the code.
/// K needs `size()` and `static_at(pc)`.
template <class K>
[[nodiscard]] const isa::static_inst* peek_fall_through(const K& k, std::size_t pc,
                                                        simt::pc_type stop, std::size_t i) {
    for (std::size_t n = 0; n < i; ++n) {
        if (pc + n >= k.size()) return nullptr;
        const auto& s = k.static_at(pc + n);
        if (s.is_branch || s.is_barrier || s.is_exit) return nullptr;
        if (pc + n + 1 == stop) return nullptr;
    }
    return pc + i < k.size() ? &k.static_at(pc + i) : nullptr;
}

/// The instruction source an SM uses for kernels of type K: each kernel type specialises it
/// with a member alias template `type<WarpSize, Stack>` (the source's constructor takes the
/// kernel, device memory, warp slots, block slots and shared bytes per block).
template <class K>
struct source_of;

/// The instruction source of kernel type K for warps of W lanes reconverging with Stack.
template <class K, std::size_t W, class Stack>
using source_of_t = typename source_of<K>::template type<W, Stack>;

/// A kernel ready to launch: its geometry and per-block footprint, and an instruction source
/// type (source_of) that executes it.
template <class K>
concept launchable_kernel = requires(const K& k) {
    typename source_of<K>;
    { k.warp_size() } -> std::convertible_to<std::uint32_t>;
    { k.blocks() } -> std::convertible_to<std::uint32_t>;
    { k.warps_per_block() } -> std::convertible_to<std::uint32_t>;
    { k.regs_per_thread() } -> std::convertible_to<std::uint32_t>;
    { k.shared_bytes() } -> std::convertible_to<std::uint32_t>; ///< per block; 0: none declared
};

} // namespace warpkit::func
