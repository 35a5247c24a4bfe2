#pragma once
/// \file
/// `detail::entry_stack`: what the reconvergence stacks (`pdom_stack`, `ssy_stack`) keep alike:
/// their mask, entry and size types, fixed storage for their entries, the deepest the stack
/// has been, and their counters.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/simt/stats.hpp>

#include <array>
#include <cstddef>
#include <span>

namespace warpkit::simt::detail {

/// Base of a reconvergence stack of one warp of `WarpSize` lanes holding up to `Capacity`
/// entries of `Entry` (each with a `mask` of lanes); fixed storage, no allocation. The stack
/// itself says what an entry means and when it is pushed and popped.
template <class Entry, std::size_t Capacity, std::size_t WarpSize>
class entry_stack {
public:
    /// The warp's lane mask type.
    using mask_type = lane_mask<WarpSize>;
    /// Lanes per warp.
    static constexpr std::size_t warp_size = WarpSize;
    /// Most entries the stack holds at once (the stack says why it is enough).
    static constexpr std::size_t capacity = Capacity;
    /// One stack entry.
    using entry = Entry;

    /// Number of entries.
    [[nodiscard]] std::size_t depth() const noexcept { return size_; }
    /// Deepest the stack has been since construction.
    [[nodiscard]] std::size_t max_depth() const noexcept { return max_depth_; }
    /// The entries, bottom first.
    [[nodiscard]] std::span<const Entry> entries() const noexcept {
        return std::span<const Entry>(entries_.data(), size_);
    }

    /// Counters since construction or reset_stats().
    [[nodiscard]] const stack_stats& stats() const noexcept { return stats_; }
    /// Zeroes the stats (keeps the warp state).
    void reset_stats() { stats_ = make_stack_stats(WarpSize); }

protected:
    entry_stack() : stats_(make_stack_stats(WarpSize)) {}

    // Entries are written field by field, never copied whole from a temporary: g++ moves the
    // 13 bytes of data of a 16-byte entry as two overlapping 8-byte words, and a later 4-byte
    // load of one field (the next settle() reads the pc and rpc, or sync pc, of the new top)
    // then straddles two stores, which store-to-load forwarding cannot serve: a stall of over
    // a dozen cycles on every divergent branch.

    /// The stack now holds `n` entries; the caller has checked the capacity and filled in
    /// entries [depth(), n).
    void grow_to_(std::size_t n) noexcept {
        size_ = n;
        if (n > max_depth_) max_depth_ = n;
    }
    /// Keeps only `lanes` in every entry; entries left without lanes are dropped.
    void keep_lanes_(mask_type lanes) noexcept {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < size_; ++i) {
            entries_[i].mask &= lanes;
            if (entries_[i].mask.none()) continue;
            if (kept != i) entries_[kept] = entries_[i];
            ++kept;
        }
        size_ = kept;
    }

    std::array<Entry, Capacity> entries_{};
    std::size_t size_ = 0;
    std::size_t max_depth_ = 0;
    stack_stats stats_;
};

} // namespace warpkit::simt::detail
