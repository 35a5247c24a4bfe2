#pragma once
/// \file
/// `pdom_stack<WarpSize>`: the immediate-post-dominator (PDOM) reconvergence stack of Fung et
/// al. Each entry holds a pc, the pc where its lanes reconverge and their mask; the top entry
/// is the path that issues.
///
/// On a divergent branch the top entry turns into the reconvergence entry (its pc becomes the
/// branch's reconvergence pc), then the not-taken and the taken paths are pushed, so the taken
/// path runs first. A path whose start pc already equals the reconvergence pc is not pushed:
/// its lanes simply wait in the reconvergence entry. When the top entry's pc reaches its
/// reconvergence pc it is popped and the entry below resumes.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/simt/entry_stack.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/stats.hpp>

#include <cstddef>

namespace warpkit::simt {

namespace detail {

/// One entry of `pdom_stack<WarpSize>`.
template <std::size_t WarpSize>
struct pdom_entry {
    pc_type pc = no_pc;         ///< next pc of this path
    pc_type rpc = no_pc;        ///< where this path reconverges (no_pc: only by exiting)
    lane_mask<WarpSize> mask{}; ///< lanes on this path
    bool waiting = false;       ///< a reconvergence entry whose divergence is still open
    friend constexpr bool operator==(const pdom_entry&, const pdom_entry&) noexcept = default;
};

} // namespace detail

/// PDOM reconvergence stack of one warp of `WarpSize` lanes; fixed storage, no allocation.
/// Its capacity is the worst-case depth: W-1 nested divergences (each one splits off at least
/// one lane) of two entries each, plus the bottom entry.
template <std::size_t WarpSize>
class pdom_stack
    : public detail::entry_stack<detail::pdom_entry<WarpSize>, 2 * WarpSize - 1, WarpSize> {
    using base = detail::entry_stack<detail::pdom_entry<WarpSize>, 2 * WarpSize - 1, WarpSize>;
    // A class template sees the names of its base only where it names them again.
    using base::entries_, base::size_, base::stats_;

public:
    using base::capacity, typename base::entry, typename base::mask_type;

    /// A finished (empty) warp.
    pdom_stack() = default;
    /// A warp starting at `start` with lanes `lanes`.
    explicit pdom_stack(pc_type start, mask_type lanes = mask_type::full()) : pdom_stack() {
        reset(start, lanes);
    }

    /// Starts a new warp at `start` with lanes `lanes`; keeps the stats.
    void reset(pc_type start, mask_type lanes) noexcept {
        size_ = 0;
        if (lanes.any()) {
            set_(entries_[0], start, no_pc, lanes);
            this->grow_to_(1);
        }
    }

    /// Pc of the path to issue (no_pc once finished).
    [[nodiscard]] pc_type pc() const noexcept { return size_ == 0 ? no_pc : top_().pc; }
    /// Lanes of the path to issue.
    [[nodiscard]] mask_type active() const noexcept {
        return size_ == 0 ? mask_type{} : top_().mask;
    }
    /// Lanes that have not exited (every entry is a subset of the bottom one).
    [[nodiscard]] mask_type live() const noexcept {
        return size_ == 0 ? mask_type{} : entries_[0].mask;
    }
    // depth() is 1 when converged, 0 when finished.
    /// No divergence is open: the active lanes are all live lanes.
    [[nodiscard]] bool converged() const noexcept { return size_ <= 1; }
    /// Every lane has exited.
    [[nodiscard]] bool finished() const noexcept { return size_ == 0; }

    /// The issued instruction was not a branch: the path continues at `next_pc`.
    void advance(pc_type next_pc) {
        WARPKIT_EXPECTS(size_ > 0 && next_pc != no_pc);
        top_().pc = next_pc;
        settle_();
    }

    /// The issued branch sends `taken` lanes (lanes outside the active mask are ignored) to
    /// `target` and the other active lanes to `fallthrough`; the two paths reconverge at
    /// `reconvergence` (the immediate post-dominator of the branch; no_pc if unknown).
    void branch(mask_type taken, pc_type target, pc_type fallthrough, pc_type reconvergence) {
        WARPKIT_EXPECTS(size_ > 0 && target != no_pc && fallthrough != no_pc);
        entry& t = top_();
        taken &= t.mask;
        const mask_type not_taken = t.mask.minus(taken);
        if (taken.none() || not_taken.none() || target == fallthrough) {
            ++stats_.uniform_branches;
            t.pc = taken.any() ? target : fallthrough;
            settle_();
            return;
        }
        WARPKIT_EXPECTS(size_ + 2 <= capacity);
        ++stats_.divergent_branches;
        t.pc = reconvergence;
        t.waiting = true;
        std::size_t n = size_;
        if (fallthrough != reconvergence)
            set_(entries_[n++], fallthrough, reconvergence, not_taken);
        if (target != reconvergence) set_(entries_[n++], target, reconvergence, taken);
        this->grow_to_(n);
        record_divergence_depth(stats_, n);
        // target != fallthrough, so at least one path was pushed and its pc is not its rpc.
    }

    /// The active lanes in `lanes` executed EXIT: they leave every entry and entries left
    /// empty are dropped. Active lanes not in `lanes` stay at the current pc (call advance()).
    void exit(mask_type lanes) noexcept {
        if (size_ == 0) return;
        lanes &= top_().mask;
        if (lanes.none()) return;
        stats_.exited_lanes += lanes.count();
        std::size_t kept = 0;
        for (std::size_t i = 0; i < size_; ++i) {
            entry& e = entries_[i];
            e.mask = e.mask.minus(lanes);
            if (e.mask.none()) {
                if (e.waiting) ++stats_.reconvergences; // every lane of it exited: closed
                continue;
            }
            if (kept != i) entries_[kept] = e;
            ++kept;
        }
        size_ = kept;
        uncover_();
        settle_();
    }

    /// The warp keeps only `lanes` (it was split in two, AMOEBA paper 002 Sec. 4.3): other
    /// lanes leave every entry as if they had never been in the warp (not counted as exits),
    /// entries left empty are dropped and a path left without lanes ends.
    void keep(mask_type lanes) noexcept {
        this->keep_lanes_(lanes);
        uncover_();
        settle_();
    }

    /// Records the issue of one instruction with the current active lanes.
    void record_issue() noexcept { record_active_lanes(stats_, active().count()); }

private:
    [[nodiscard]] entry& top_() noexcept { return entries_[size_ - 1]; }
    [[nodiscard]] const entry& top_() const noexcept { return entries_[size_ - 1]; }

    // Makes `e` a path that is not waiting, field by field (see entry_stack: not a copy of a
    // whole temporary entry).
    static void set_(entry& e, pc_type pc, pc_type rpc, mask_type lanes) noexcept {
        e.pc = pc;
        e.rpc = rpc;
        e.mask = lanes;
        e.waiting = false;
    }

    // A reconvergence entry that becomes the top again closes its divergence.
    void uncover_() noexcept {
        if (size_ > 0 && top_().waiting) {
            top_().waiting = false;
            ++stats_.reconvergences;
        }
    }
    // Pops every path standing at its reconvergence point (several when nested divergences
    // share one, as in a loop whose exit is divergent on several iterations).
    void settle_() noexcept {
        while (size_ > 0 && top_().pc == top_().rpc) {
            --size_;
            uncover_();
        }
    }
};

} // namespace warpkit::simt
