#pragma once
/// \file
/// `ssy_stack<WarpSize>`: the warp stack of the configurable Tesla-like GPGPU (paper 004,
/// Section 4.3.1). An SSY instruction sets the convergence point of the next divergent
/// branches. A divergent branch pushes one entry {SSY pc, pc of the other path, mask of the
/// other path, state} and the taken lanes run first. When the running path reaches the SSY pc
/// for the first time, the current mask is swapped with the entry's mask and the not-taken
/// path runs from its pc; on the second arrival the two masks are ORed and the entry popped.
///
/// The current pc and mask live in the warp, not on the stack, so a converged warp has an
/// empty stack and each divergence costs one entry (paper: at most as many entries as lanes).

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/simt/entry_stack.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/stats.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace warpkit::simt {

namespace detail {

/// Which of the two paths of an `ssy_stack` entry is running.
enum class ssy_path : std::uint8_t {
    taken,     ///< the taken path runs; the entry holds the not-taken lanes
    not_taken, ///< the not-taken path runs; the entry holds the taken lanes, waiting
};

/// One entry of `ssy_stack<WarpSize>`: one divergence.
template <std::size_t WarpSize>
struct ssy_entry {
    pc_type sync_pc = no_pc;          ///< convergence point set by SSY
    pc_type other_pc = no_pc;         ///< where the not-taken path starts
    lane_mask<WarpSize> mask{};       ///< lanes of the path that is not running
    ssy_path state = ssy_path::taken; ///< which path runs
    friend constexpr bool operator==(const ssy_entry&, const ssy_entry&) noexcept = default;
};

} // namespace detail

/// SSY-driven warp stack of one warp of `WarpSize` lanes; fixed storage, no allocation. Its
/// capacity is as many entries as lanes (paper 004: the worst case, each lane on its own
/// path); nested divergences each split off at least one lane, so W-1 are ever used at once.
template <std::size_t WarpSize>
class ssy_stack : public detail::entry_stack<detail::ssy_entry<WarpSize>, WarpSize, WarpSize> {
    using base = detail::entry_stack<detail::ssy_entry<WarpSize>, WarpSize, WarpSize>;
    // A class template sees the names of its base only where it names them again.
    using base::entries_, base::size_, base::stats_;

public:
    using base::capacity, typename base::entry, typename base::mask_type;
    /// Which of the two paths of an entry is running.
    using path = detail::ssy_path;

    /// A finished (empty) warp.
    ssy_stack() = default;
    /// A warp starting at `start` with lanes `lanes`.
    explicit ssy_stack(pc_type start, mask_type lanes = mask_type::full()) : ssy_stack() {
        reset(start, lanes);
    }

    /// Starts a new warp at `start` with lanes `lanes` and no SSY point; keeps the stats.
    void reset(pc_type start, mask_type lanes) noexcept {
        size_ = 0;
        active_ = lanes;
        live_ = lanes;
        pc_ = lanes.any() ? start : no_pc;
        sync_ = no_pc;
    }

    /// Pc of the path to issue (no_pc once finished).
    [[nodiscard]] pc_type pc() const noexcept { return pc_; }
    /// Lanes of the path to issue.
    [[nodiscard]] mask_type active() const noexcept { return active_; }
    /// Lanes that have not exited.
    [[nodiscard]] mask_type live() const noexcept { return live_; }
    // depth() is 0 when converged.
    /// No divergence is open: the active lanes are all live lanes.
    [[nodiscard]] bool converged() const noexcept { return size_ == 0; }
    /// Every lane has exited.
    [[nodiscard]] bool finished() const noexcept { return active_.none(); }
    /// The convergence point set by the last SSY (no_pc before the first).
    [[nodiscard]] pc_type sync_point() const noexcept { return sync_; }

    /// The issued instruction was SSY `convergence`: later divergent branches reconverge there.
    /// The SSY itself then advances like any other instruction.
    void ssy(pc_type convergence) noexcept { sync_ = convergence; }

    /// The issued instruction was not a branch: the path continues at `next_pc`.
    void advance(pc_type next_pc) {
        WARPKIT_EXPECTS(active_.any() && next_pc != no_pc);
        pc_ = next_pc;
        settle_();
    }

    /// The issued branch sends `taken` lanes (lanes outside the active mask are ignored) to
    /// `target` and the other active lanes to `fallthrough`. A divergent branch needs an SSY
    /// point; it pushes one entry and runs the taken path first.
    void branch(mask_type taken, pc_type target, pc_type fallthrough) {
        WARPKIT_EXPECTS(active_.any() && target != no_pc && fallthrough != no_pc);
        taken &= active_;
        const mask_type not_taken = active_.minus(taken);
        if (taken.none() || not_taken.none() || target == fallthrough) {
            ++stats_.uniform_branches;
            pc_ = taken.any() ? target : fallthrough;
            settle_();
            return;
        }
        WARPKIT_EXPECTS(sync_ != no_pc);
        WARPKIT_EXPECTS(size_ < capacity);
        ++stats_.divergent_branches;
        entry& e = entries_[size_]; // field by field, see entry_stack
        e.sync_pc = sync_;
        e.other_pc = fallthrough;
        e.mask = not_taken;
        e.state = path::taken;
        this->grow_to_(size_ + 1);
        record_divergence_depth(stats_, size_);
        active_ = taken;
        pc_ = target;
        settle_();
    }

    /// A branch whose convergence point is given directly: the same as `ssy(reconvergence)`
    /// immediately before `branch(taken, target, fallthrough)` (the SSY register keeps it).
    void branch(mask_type taken, pc_type target, pc_type fallthrough, pc_type reconvergence) {
        sync_ = reconvergence;
        branch(taken, target, fallthrough);
    }

    /// The active lanes in `lanes` executed EXIT. If no active lane is left, the running path
    /// has ended and the stack moves on as if it had reached the convergence point; otherwise
    /// the remaining active lanes stay at the current pc (call advance()).
    void exit(mask_type lanes) noexcept {
        lanes &= active_;
        if (lanes.none()) return;
        stats_.exited_lanes += lanes.count();
        active_ = active_.minus(lanes);
        live_ = live_.minus(lanes);
        settle_();
    }

    /// The warp keeps only `lanes` (it was split in two, AMOEBA paper 002 Sec. 4.3): other
    /// lanes leave the running path and every entry as if they had never been in the warp
    /// (not counted as exits); entries left without lanes are dropped and a running path
    /// left without lanes ends, as at its convergence point.
    void keep(mask_type lanes) noexcept {
        active_ &= lanes;
        live_ &= lanes;
        this->keep_lanes_(lanes);
        settle_();
    }

    /// Records the issue of one instruction with the current active lanes.
    void record_issue() noexcept { record_active_lanes(stats_, active_.count()); }

private:
    // Applies the convergence rule while the running path stands at the top entry's SSY pc
    // (or has no lane left): first arrival swaps in the other path, second arrival merges.
    void settle_() noexcept {
        while (size_ > 0 && (pc_ == entries_[size_ - 1].sync_pc || active_.none())) {
            entry& e = entries_[size_ - 1];
            if (e.state == path::taken) {
                std::swap(active_, e.mask);
                pc_ = e.other_pc;
                e.state = path::not_taken;
            } else {
                active_ |= e.mask;
                pc_ = e.sync_pc;
                --size_;
                ++stats_.reconvergences;
            }
        }
        if (active_.none()) pc_ = no_pc;
    }

    pc_type pc_ = no_pc;
    pc_type sync_ = no_pc;
    mask_type active_{};
    mask_type live_{};
};

} // namespace warpkit::simt
