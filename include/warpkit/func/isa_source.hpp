#pragma once
/// \file
/// `isa_source`: the warpkit-ISA functional executor as the instruction source of one SM.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/isa_executor.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/isa/dynamic_inst.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpkit::func {

/// The warps of one SM running a warpkit-ISA kernel: functional state per warp slot and
/// per block slot. Holds references to the kernel and to device memory, which outlive it.
template <std::size_t WarpSize, class Stack>
class isa_source {
public:
    /// An SM with `warp_slots` warp slots and `block_slots` block slots running `k`;
    /// each block gets `shared_bytes` of shared memory. Every warp's stack starts as a copy of
    /// `stack` (a selectable_stack carries its kind).
    isa_source(const isa_kernel& k, global_memory& mem, std::uint32_t warp_slots,
               std::uint32_t block_slots, std::uint32_t shared_bytes, const Stack& stack = {})
        : k_(&k), mem_(&mem), warps_(warp_slots, with_stack(stack)), block_of_(warp_slots, 0),
          blocks_(block_slots), shared_words_((shared_bytes + 3) / 4) {}

    [[nodiscard]] bool finished(std::uint32_t slot) const { return warps_.at(slot).finished(); }
    [[nodiscard]] bool at_barrier(std::uint32_t slot) const { return warps_.at(slot).at_barrier; }
    /// True when the live warp in `slot` has run past the kernel's last instruction (a path
    /// without EXIT): it has nothing left to issue.
    [[nodiscard]] bool past_end(std::uint32_t slot) const {
        const auto& w = warps_.at(slot);
        return !w.finished() && w.stack.pc() >= k_->size();
    }
    /// The i-th instruction the warp in `slot` will execute if no control instruction or
    /// reconvergence point comes first; nullptr beyond one, past the end, or for a finished
    /// warp.
    [[nodiscard]] const isa::static_inst* peek(std::uint32_t slot, std::size_t i) const {
        const auto& w = warps_.at(slot);
        if (w.finished()) return nullptr;
        return peek_fall_through(*k_, w.stack.pc(), reconvergence_boundary(w.stack), i);
    }
    /// Executes the warp's next instruction.
    isa::dynamic_inst<WarpSize> execute(std::uint32_t slot, exec_site site) {
        auto& w = warps_.at(slot);
        auto& b = blocks_.at(block_of_[slot]);
        auto d = func::execute(*k_, w, b, *mem_, site);
        d.warp = slot;
        if (w.finished()) --b.live_warps;
        return d;
    }
    /// Starts block number `block` in block slot `bslot` on the warp slots `slots` (one per
    /// warp of the block); returns how many of them hold live warps.
    std::uint32_t start_block(std::uint32_t bslot, std::uint32_t block,
                              std::span<const std::uint32_t> slots) {
        WARPKIT_EXPECTS(slots.size() == k_->warps_per_block());
        auto& b = blocks_.at(bslot);
        b.id = block_index(k_->config().grid, block);
        b.shared.assign(shared_words_, 0);
        b.live_warps = 0;
        b.arrived = 0;
        for (std::uint32_t i = 0; i < slots.size(); ++i) {
            auto& w = warps_.at(slots[i]);
            w.start(i, k_->threads_per_block(), k_->regs_per_thread());
            block_of_[slots[i]] = bslot;
            if (!w.finished()) ++b.live_warps;
        }
        return b.live_warps;
    }
    /// Every live warp of block slot `bslot` waits at the barrier.
    [[nodiscard]] bool barrier_complete(std::uint32_t bslot) const {
        return blocks_.at(bslot).barrier_complete();
    }
    /// Lets the warps of block slot `bslot` past the barrier.
    void release_barrier(std::uint32_t bslot) {
        auto& b = blocks_.at(bslot);
        for (std::size_t s = 0; s < warps_.size(); ++s)
            if (block_of_[s] == bslot) warps_[s].at_barrier = false;
        b.arrived = 0;
    }
    /// Every warp of block slot `bslot` has exited.
    [[nodiscard]] bool block_finished(std::uint32_t bslot) const {
        return blocks_.at(bslot).live_warps == 0;
    }
    /// Cuts the warp in `slot` in two (AMOEBA's split, paper 002 Sec. 4.3): it keeps the
    /// threads `keep`, its other live threads become a warp of the same block in the free
    /// slot `into` with a copy of the registers and reconvergence stack (each warp then holds
    /// only its own threads). Both parts must hold threads; the warp must not wait at a
    /// barrier. The block has one more live warp.
    void split(std::uint32_t slot, std::uint32_t into, lane_mask<WarpSize> keep) {
        auto& w = warps_.at(slot);
        auto& t = warps_.at(into);
        const auto live = w.stack.live();
        WARPKIT_EXPECTS(slot != into && !w.finished() && !w.at_barrier && t.finished());
        WARPKIT_EXPECTS((live & keep).any() && live.minus(keep).any());
        t = w;
        t.stack.reset_stats();
        t.executed = 0;
        w.stack.keep(keep);
        t.stack.keep(live.minus(keep));
        block_of_[into] = block_of_[slot];
        ++blocks_.at(block_of_[slot]).live_warps;
    }
    /// Pc of the warp in `slot` (for deadlock reports).
    [[nodiscard]] std::uint32_t pc(std::uint32_t slot) const { return warps_.at(slot).stack.pc(); }
    /// The warp's reconvergence stack (its active lanes, divergence stats).
    [[nodiscard]] const Stack& stack(std::uint32_t slot) const { return warps_.at(slot).stack; }

private:
    static warp_context<WarpSize, Stack> with_stack(const Stack& stack) {
        warp_context<WarpSize, Stack> w;
        w.stack = stack;
        return w;
    }

    const isa_kernel* k_;
    global_memory* mem_;
    std::vector<warp_context<WarpSize, Stack>> warps_;
    std::vector<std::uint32_t> block_of_;
    std::vector<cta_context> blocks_;
    std::size_t shared_words_;
};

/// warpkit-ISA kernels run on isa_source.
template <>
struct source_of<isa_kernel> {
    template <std::size_t W, class Stack>
    using type = isa_source<W, Stack>;
};

} // namespace warpkit::func
