#pragma once
/// \file
/// `fetch_stage`: fetch and decode of an SM. Each cycle the fetches in flight that are due
/// fill their warp's instruction buffer with what the instruction source decodes next, then
/// up to `width` new fetches start, round robin over the warps with room in their buffers
/// (none past a branch, barrier or exit still buffered: the warp's next pc is not known).

#include <warpkit/gpu/stages/warp_context.hpp>

#include <cstdint>
#include <span>

namespace warpkit::gpu::stages {

/// The fetch / decode stage: fills the warps' instruction buffers.
class fetch_stage {
public:
    /// Buffers of `ibuffer_depth` instructions filled `latency` cycles after a fetch starts.
    fetch_stage(std::uint32_t ibuffer_depth, std::uint32_t latency) noexcept
        : depth_(ibuffer_depth), latency_(latency) {}

    /// One cycle at `now` over `warps` (indexed by slot) whose instructions `source` decodes
    /// (peek and at_barrier); starts at most `width` fetches. Returns the fetches started.
    template <class Source>
    std::uint32_t tick(std::span<warp_context> warps, const Source& source, std::uint64_t now,
                       std::uint32_t width) {
        complete_(warps, source, now);
        std::uint32_t started = 0;
        const auto n = static_cast<std::uint32_t>(warps.size());
        for (std::uint32_t k = 0; k < n && started < width; ++k) {
            const std::uint32_t s = (next_ + k) % n;
            auto& w = warps[s];
            if (!w.resident || w.fetching || source.at_barrier(s)) continue;
            if (w.ibuf.size() >= depth_) continue;
            if (!w.ibuf.empty()) {
                const auto& last = w.ibuf.back();
                if (last.is_branch || last.is_barrier || last.is_exit) continue;
            }
            if (source.peek(s, w.ibuf.size()) == nullptr) continue;
            w.fetching = true;
            w.fetch_ready = now + latency_;
            ++started;
            next_ = (s + 1) % n;
        }
        return started;
    }

    /// The warp slot the round robin looks at first next cycle.
    [[nodiscard]] std::uint32_t next() const noexcept { return next_; }

private:
    // Fetches due by `now` fill their buffers.
    template <class Source>
    void complete_(std::span<warp_context> warps, const Source& source, std::uint64_t now) {
        for (std::uint32_t s = 0; s < warps.size(); ++s) {
            auto& w = warps[s];
            if (!w.fetching || w.fetch_ready > now) continue;
            w.fetching = false;
            while (w.ibuf.size() < depth_) {
                const auto* si = source.peek(s, w.ibuf.size());
                if (si == nullptr) break;
                w.ibuf.push_back(*si);
            }
        }
    }

    std::uint32_t depth_;
    std::uint32_t latency_;
    std::uint32_t next_ = 0;
};

} // namespace warpkit::gpu::stages
