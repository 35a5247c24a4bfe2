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
/// the timing model learns), and manages barriers and block lifetimes. A source never
/// reads timing state.
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

} // namespace warpkit::gpu
