#pragma once
/// \file
/// The contract between an SM's timing model and whatever produces its instructions (the
/// warpkit-ISA executor, the PTX executor, a trace, a synthetic generator).

#include <warpkit/isa/dynamic_inst.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

namespace warpkit::gpu {

/// Where a warp executes: the SM number (%smid) and the current core cycle (%clock).
struct exec_site {
    std::uint32_t sm = 0;
    std::uint64_t clock = 0;
};

/// Supplies the warps of one SM. Warps live in slots, blocks in block slots. The timing
/// model asks what each warp will execute next (`peek`: the i-th upcoming instruction on
/// the fall-through path, nullptr past a control instruction or the end), executes it when
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

} // namespace warpkit::gpu
