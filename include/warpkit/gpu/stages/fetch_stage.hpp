#pragma once
/// \file
/// `fetch_stage`: fetch and decode of an SM. Each cycle the fetches in flight that are due
/// fill their warp's instruction buffer with what the instruction source decodes next, then
/// up to `width` new fetches start, round robin over the warps with room in their buffers
/// (none past a branch, barrier or exit still buffered: the warp's next pc is not known).
/// Decoding puts each instruction on the unit class that executes it on this SM (route():
/// FP64 and matrix instructions go to the FP pipelines of an SM without DP or tensor units).

#include <warpkit/core/error.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpkit::gpu::stages {

/// The fetch / decode stage: fills the warps' instruction buffers.
class fetch_stage {
public:
    /// Buffers of `ibuffer_depth` instructions filled `latency` cycles after a fetch starts.
    fetch_stage(std::uint32_t ibuffer_depth, std::uint32_t latency) noexcept
        : depth_(ibuffer_depth), latency_(latency) {
        for (std::size_t u = 0; u < isa::unit_class_count; ++u)
            route_[u] = static_cast<isa::unit_class>(u);
    }

    /// Instructions of unit class `u` are decoded as `to`'s (the class whose units run them).
    void route(isa::unit_class u, isa::unit_class to) noexcept { route_[isa::index(u)] = to; }

    /// One cycle at `now` over `warps` (indexed by slot) whose instructions `source` decodes
    /// (peek and at_barrier); starts at most `width` fetches. Returns the fetches started.
    template <class Source>
    std::uint32_t tick(std::span<warp_context> warps, const Source& source, std::uint64_t now,
                       std::uint32_t width) {
        return tick(warps, source, now, width, [](std::uint32_t) {});
    }
    /// The same, telling `filled(slot)` of each warp whose buffer a completed fetch filled.
    template <class Source, class Filled>
    std::uint32_t tick(std::span<warp_context> warps, const Source& source, std::uint64_t now,
                       std::uint32_t width, Filled&& filled) {
        complete_(warps, source, now, filled);
        if (settled_) {
            if (!woken_.empty()) return search_woken_(warps, source, now, width);
#ifndef NDEBUG
            // Debug builds check that the skipped search would have started nothing.
            const std::uint32_t next = next_;
            WARPKIT_EXPECTS(search_(warps, source, now, width, false) == 0 && next_ == next);
#endif
            return 0;
        }
        return search_(warps, source, now, width, true);
    }

    /// Something a fetch depends on changed other than through this stage: a barrier was
    /// released, a block started, warps left or moved. The next tick searches every warp.
    void wake() noexcept {
        settled_ = false;
        woken_.clear();
    }
    /// Warp `s` alone changed (it issued: its buffer, pc or barrier state, or it left). The
    /// next tick looks at it again; the others, found with nothing to fetch, stay as they were.
    void wake(std::uint32_t s) {
        if (settled_ && std::find(woken_.begin(), woken_.end(), s) == woken_.end())
            woken_.push_back(s);
    }

    /// The warp slot the round robin looks at first next cycle.
    [[nodiscard]] std::uint32_t next() const noexcept { return next_; }

private:
    // Starts up to `width` fetches, round robin from next_ (`start`: false only to check,
    // changing nothing). The k-th warp looked at is next_ + k, with next_ as it stands: a
    // fetch started moves next_ past its warp, so a second fetch in the cycle is looked for
    // from there. A search that started nothing looked at every warp and found none to fetch
    // for: until wake() or a completion, the next would find none either (settled_).
    template <class Source>
    std::uint32_t search_(std::span<warp_context> warps, const Source& source, std::uint64_t now,
                          std::uint32_t width, bool start) {
        std::uint32_t started = 0;
        const auto n = static_cast<std::uint32_t>(warps.size());
        std::uint32_t k = 0;
        for (; k < n && started < width; ++k) {
            std::uint32_t s = next_ + k; // next_ < n and k < n
            if (s >= n) s -= n;
            if (!fetchable_(warps[s], s, source)) continue;
            ++started;
            if (start) start_(warps[s], s, n, now);
        }
        if (start) settled_ = started == 0 && k == n;
        return started;
    }

    // The search of a settled stage: only the warps woken since can have something to fetch,
    // so it looks at those alone, in the order search_ would reach them (the nearest at or
    // past next_ + k, next_ moving past each warp it starts). A woken warp looked at leaves
    // the list (started, it is fetching; otherwise it has nothing to fetch); the stage stays
    // settled.
    template <class Source>
    std::uint32_t search_woken_(std::span<warp_context> warps, const Source& source,
                                std::uint64_t now, std::uint32_t width) {
        const auto n = static_cast<std::uint32_t>(warps.size());
#ifndef NDEBUG
        for (std::uint32_t s = 0; s < n; ++s)
            WARPKIT_EXPECTS(!fetchable_(warps[s], s, source) ||
                            std::find(woken_.begin(), woken_.end(), s) != woken_.end());
#endif
        std::uint32_t started = 0;
        std::uint32_t k = 0;
        while (started < width) {
            std::size_t pick = woken_.size();
            std::uint32_t distance = n;
            for (std::size_t i = 0; i < woken_.size(); ++i) {
                const std::uint32_t d =
                    woken_[i] >= next_ ? woken_[i] - next_ : woken_[i] + n - next_;
                if (d >= k && d < distance) {
                    distance = d;
                    pick = i;
                }
            }
            if (pick == woken_.size()) break;
            const std::uint32_t s = woken_[pick];
            woken_.erase(woken_.begin() + static_cast<std::ptrdiff_t>(pick));
            k = distance + 1;
            if (!fetchable_(warps[s], s, source)) continue;
            ++started;
            start_(warps[s], s, n, now);
        }
        return started;
    }

    // Warp `s` has room in its buffer, is not fetching or waiting at a barrier, has no branch,
    // barrier or exit buffered, and its source has an instruction after those buffered.
    template <class Source>
    [[nodiscard]] bool fetchable_(const warp_context& w, std::uint32_t s,
                                  const Source& source) const {
        if (!w.resident || w.fetching || w.ibuf.size() >= depth_) return false;
        if (source.at_barrier(s)) return false;
        if (!w.ibuf.empty()) {
            const auto& last = w.ibuf.back();
            if (last.is_branch || last.is_barrier || last.is_exit) return false;
        }
        return source.peek(s, w.ibuf.size()) != nullptr;
    }

    void start_(warp_context& w, std::uint32_t s, std::uint32_t n, std::uint64_t now) {
        w.fetching = true;
        w.fetch_ready = now + latency_;
        in_flight_.push_back({s, w.fetch_ready});
        next_ = s + 1 == n ? 0 : s + 1;
    }

    // A fetch started: the warp slot and the cycle it completes.
    struct fetch_in_flight {
        std::uint32_t slot = 0;
        std::uint64_t ready = 0;
    };

    // Fetches due by `now` fill their buffers. They complete in the order they started (the
    // latency is fixed), so only the oldest are looked at; a fetch the SM cancelled (a taken
    // branch, a warp that left) no longer matches its warp and is dropped.
    // A warp whose fetch completed is woken (it may fetch again).
    template <class Source, class Filled>
    void complete_(std::span<warp_context> warps, const Source& source, std::uint64_t now,
                   Filled& filled) {
        while (head_ < in_flight_.size() && in_flight_[head_].ready <= now) {
            const fetch_in_flight f = in_flight_[head_++];
            auto& w = warps[f.slot];
            if (!w.fetching || w.fetch_ready != f.ready) continue;
            w.fetching = false;
            wake(f.slot);
            filled(f.slot);
            while (w.ibuf.size() < depth_) {
                const auto* si = source.peek(f.slot, w.ibuf.size());
                if (si == nullptr) break;
                isa::static_inst decoded = *si;
                decoded.unit = route_[isa::index(si->unit)];
                w.ibuf.push_back(decoded);
            }
        }
        if (head_ == in_flight_.size()) {
            in_flight_.clear();
            head_ = 0;
        } else if (head_ >= 64 && 2 * head_ >= in_flight_.size()) {
            in_flight_.erase(in_flight_.begin(), in_flight_.begin() + static_cast<long>(head_));
            head_ = 0;
        }
    }

    std::uint32_t depth_;
    std::uint32_t latency_;
    std::array<isa::unit_class, isa::unit_class_count> route_{};
    std::uint32_t next_ = 0;
    std::vector<fetch_in_flight> in_flight_; // from in_flight_[head_] on, oldest first
    std::size_t head_ = 0;
    // The last full search found nothing to fetch; since then only the warps in woken_ (each
    // once) changed.
    bool settled_ = false;
    std::vector<std::uint32_t> woken_;
};

} // namespace warpkit::gpu::stages
