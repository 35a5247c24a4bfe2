#pragma once
/// \file
/// `two_level<Inner>`: the two-level warp scheduler that Warped Gates uses as its baseline
/// (paper 003 Section 2.1). Warps waiting on a long-latency event (a memory result) or at a
/// barrier sit in a pending set; the active set holds at most `active_warps` of the others,
/// and only active warps are offered to the inner policy (lrr by default). A warp that starts
/// waiting is demoted to the tail of the pending FIFO; when the active set has room, the
/// first pending warp (in FIFO order) that no longer waits is promoted.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace warpkit::issue {

/// Params of two_level: the active-set size (at most `MaxWarps`, the warps the inner policy
/// tracks) and the inner policy's params.
template <class InnerParams, std::size_t MaxWarps>
struct two_level_params {
    /// Most warps in the active set. Paper 003 Section 6: at most 32 active warps are present
    /// in the active warp set of the Fermi baseline (hence its 5-bit ready counters).
    std::uint32_t active_warps = 32;
    /// Params of the policy that picks among the active warps.
    InnerParams inner{};

    void validate() const {
        check_range("active_warps", active_warps, std::uint32_t{1},
                    static_cast<std::uint32_t>(MaxWarps));
    }
    WARPKIT_FIELDS(two_level_params, active_warps, inner)
};

/// Counters of two_level, with the inner policy's counters nested.
template <class InnerStats>
struct two_level_stats {
    std::uint64_t demotions = 0;  ///< active -> pending (long-latency wait or barrier)
    std::uint64_t promotions = 0; ///< pending -> active
    InnerStats inner{};
    WARPKIT_FIELDS(two_level_stats, demotions, promotions, inner)
};

/// Two-level scheduling: an active set of at most A warps in front of an inner policy.
template <class Inner = lrr>
requires warp_scheduler<Inner>
class two_level {
public:
    using inner_type = Inner;
    /// Warp ids are below this (the inner policy's count).
    static constexpr std::size_t max_warps = max_warps_of<Inner>();
    using params_type = two_level_params<typename Inner::params_type, max_warps>;
    using stats_type = two_level_stats<typename Inner::stats_type>;

    /// Short name for reports.
    static constexpr std::string_view kind = "two_level";

    two_level() : two_level(params_type{}) {}
    /// Throws config_error when `p` is out of range.
    explicit two_level(const params_type& p) : params_(validated(p)), inner_(p.inner) {}

    /// Updates the active and pending sets from `views`, then lets the inner policy pick up
    /// to `width` warps among the active ones.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        // One list, returned from every path (a list copied right after its slots were
        // written is read before those stores are done, and waits for them).
        issue_list out;
        if constexpr (max_warps <= 64) {
            // Views in increasing id order (as an SM lists its warps) are read into per-id
            // masks, and the sets are updated with a few word operations; an inner policy
            // that takes the masks (lrr, GATES over lrr) picks from them too.
            WARPKIT_EXPECTS(views.size() <= max_warps);
            if (detail::ids_may_increase(views)) {
                detail::view_planes planes;
                if (planes.load(views, max_warps)) {
                    update_sets(planes);
                    if constexpr (detail::takes_planes<Inner>())
                        inner_.select_planes(planes, active_.word(0), width, out);
                    else
                        out = inner_.select(copy_active(views), width);
                    return out;
                }
            }
        }
        update_sets(views);
        out = inner_.select(copy_active(views), width);
        return out;
    }

    /// Forwards what issued to the inner policy.
    void notify_issued(const issue_list& done) { inner_.notify_issued(done); }

    /// The active set, one bit per warp id.
    [[nodiscard]] const warp_set<max_warps>& active_set() const noexcept { return active_; }
    [[nodiscard]] std::size_t active_count() const noexcept { return active_count_; }
    [[nodiscard]] bool is_active(warp_id w) const noexcept { return active_.test(w); }
    /// The pending warps, head (next to be considered for promotion) first.
    [[nodiscard]] std::span<const warp_id> pending() const noexcept {
        return {pending_.data() + pending_head_, pending_size_};
    }
    [[nodiscard]] bool is_pending(warp_id w) const noexcept { return pending_set_.test(w); }

    /// The inner policy (GATES reads its priority state through this).
    [[nodiscard]] Inner& inner() noexcept { return inner_; }
    [[nodiscard]] const Inner& inner() const noexcept { return inner_; }
    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    /// Counters, the inner policy's nested (copied from it when asked).
    [[nodiscard]] stats_type stats() const {
        stats_type s = stats_;
        s.inner = inner_.stats();
        return s;
    }
    /// Restarts the counters (the inner policy's included) from zero; the sets stay.
    void reset_stats() {
        reset_counters(stats_);
        inner_.reset_stats();
    }

private:
    // The active views, in the order offered, for an inner policy that reads views.
    [[nodiscard]] std::span<const warp_view> copy_active(std::span<const warp_view> views) {
        std::size_t n = 0;
        for (const auto& v : views) { // copy each, keep the active ones: no branch
            active_views_[n] = v;
            n += static_cast<std::size_t>(active_.test(v.id));
        }
        return {active_views_.data(), n};
    }

    // The pending FIFO is pending_[pending_head_ .. pending_head_ + pending_size_): warps
    // promoted from its head leave by moving the head, not the rest of the FIFO. Twice the
    // room the FIFO can fill: it moves back to the start only when it reaches the end.
    [[nodiscard]] warp_id* fifo() noexcept { return pending_.data() + pending_head_; }
    void make_room() noexcept { // room for max_warps more after the tail
        if (pending_head_ <= max_warps) return;
        std::copy(fifo(), fifo() + pending_size_, pending_.data());
        pending_head_ = 0;
    }

    void push_pending(std::size_t w) noexcept {
        make_room();
        fifo()[pending_size_++] = static_cast<warp_id>(w);
        pending_set_.set(w);
    }

    // Idempotent for a given view: a second call finds nothing to drop, admit, demote or promote.
    void update_sets(std::span<const warp_view> views) {
        WARPKIT_EXPECTS(views.size() <= max_warps);
        warp_set<max_warps> seen;
        warp_set<max_warps> alive;
        warp_set<max_warps> waits; // offered warps that wait (long latency or barrier)
        // One pass: new warps queue up as pending in the order they are offered; active warps
        // that started waiting go to the tail of the pending FIFO.
        for (std::size_t i = 0; i < views.size(); ++i) {
            const warp_view& v = views[i];
            seen.set(v.id); // refuses ids >= max_warps; duplicates are checked after the pass
            if (v.finished) continue;
            waits.set_if(v.id, waiting(v));
            alive.set(v.id);
            const bool active = active_.test(v.id);
            if (!active && !pending_set_.test(v.id)) {
                push_pending(v.id);
            } else if (active && waiting(v)) {
                active_.reset(v.id);
                --active_count_;
                push_pending(v.id);
                ++stats_.demotions;
            }
        }
        WARPKIT_EXPECTS(seen.count() == views.size()); // no id twice

        // Finished warps and warps no longer offered leave both sets.
        if (!active_.subset_of(alive)) {
            active_ &= alive;
            active_count_ = active_.count();
        }
        if (!pending_set_.subset_of(alive)) {
            std::size_t keep = 0;
            warp_id* const q = fifo();
            for (std::size_t i = 0; i < pending_size_; ++i)
                if (alive.test(q[i])) q[keep++] = q[i];
            pending_size_ = keep;
            pending_set_ &= alive;
        }

        // Fill the active set from the pending FIFO in order, skipping warps that still wait
        // (one pass that also closes the gaps the promoted warps leave).
        std::size_t room =
            params_.active_warps - std::min<std::size_t>(active_count(), params_.active_warps);
        if (room == 0 || pending_size_ == 0) return;
        std::size_t keep = 0;
        warp_id* const q = fifo();
        for (std::size_t i = 0; i < pending_size_; ++i) {
            const warp_id w = q[i];
            if (room > 0 && !waits.test(w)) {
                --room;
                active_.set(w);
                ++active_count_;
                pending_set_.reset(w);
                ++stats_.promotions;
            } else {
                q[keep++] = w;
            }
        }
        pending_size_ = keep;
    }

    // update_sets for views read into masks, their ids increasing: the order they are
    // offered in is the order of their ids, so a set's members pushed in id order queue up
    // in that order. The same steps as above on words of bits.
    void update_sets(const detail::view_planes& planes) requires(max_warps <= 64) {
        const std::uint64_t alive = planes.alive();
        const std::uint64_t waits = alive & planes.waiting();
        std::uint64_t active = active_.word(0);
        std::uint64_t pending = pending_set_.word(0);
        // New warps, and active warps that started waiting (demoted), join the pending FIFO.
        const std::uint64_t demoted = active & waits;
        const std::uint64_t fresh = alive & ~active & ~pending;
        if ((demoted | fresh) != 0) {
            make_room();
            warp_id* const q = fifo();
            std::size_t d = 0; // demoted warps (counted on the way: a few bits set)
            for (std::uint64_t push = demoted | fresh; push != 0; push &= push - 1) {
                const auto w = static_cast<warp_id>(std::countr_zero(push));
                d += (demoted >> w) & 1U;
                q[pending_size_++] = w;
            }
            active &= ~demoted;
            active_count_ -= d;
            stats_.demotions += d;
            pending |= demoted | fresh;
        }
        // Finished warps and warps no longer offered leave both sets.
        if ((active & ~alive) != 0) {
            active &= alive;
            active_count_ = detail::popcount64(active);
        }
        if ((pending & ~alive) != 0) {
            std::size_t keep = 0;
            warp_id* const q = fifo();
            for (std::size_t i = 0; i < pending_size_; ++i)
                if (((alive >> q[i]) & 1U) != 0) q[keep++] = q[i];
            pending_size_ = keep;
            pending &= alive;
        }
        // Fill the active set from the pending FIFO in order, skipping warps that still wait.
        // Once the room is filled the rest of the FIFO stays as it is: the warps that still
        // wait ahead of the last promoted one move up to it, and the head moves past them.
        std::size_t room =
            params_.active_warps - std::min<std::size_t>(active_count_, params_.active_warps);
        warp_id* const q = fifo();
        std::size_t i = 0;
        std::size_t kept = 0;
        for (; room != 0 && i < pending_size_; ++i) {
            const std::uint64_t bit = std::uint64_t{1} << q[i];
            if ((waits & bit) == 0) {
                --room;
                active |= bit;
                pending &= ~bit;
            } else {
                ++kept;
            }
        }
        if (const std::size_t promoted = i - kept; promoted != 0) {
            // The waiting ones among q[0, i) move up to end at q[i - 1], last first (each
            // lands at or after the place it is read from).
            for (std::size_t from = i, to = i; kept != 0; --kept) {
                do
                    --from;
                while (((waits >> q[from]) & 1U) == 0);
                q[--to] = q[from];
            }
            pending_head_ += promoted;
            pending_size_ -= promoted;
            active_count_ += promoted;
            stats_.promotions += promoted;
        }
        active_.set_word(0, active);
        pending_set_.set_word(0, pending);
    }

    [[nodiscard]] static bool waiting(const warp_view& v) noexcept {
        return v.long_latency | v.at_barrier; // no branch: the flags change by the cycle
    }

    params_type params_;
    Inner inner_;
    stats_type stats_{}; // its `inner` stays empty: stats() fills it from inner_
    warp_set<max_warps> active_;
    std::size_t active_count_ = 0;
    warp_set<max_warps> pending_set_;
    std::array<warp_id, 2 * max_warps> pending_{};
    std::size_t pending_head_ = 0;
    std::size_t pending_size_ = 0;
    std::array<warp_view, max_warps> active_views_{};
};

} // namespace warpkit::issue
