#pragma once
/// \file
/// `cta_dispatcher`: the global block scheduler (paper 004's "global scheduler"): hands the
/// blocks of a kernel to SMs that have room for them under per-SM limits on blocks, warps,
/// registers and shared memory, optionally in equal shares to the SMs of a cluster.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpkit::gpu {

/// Resources of one SM that resident blocks share.
struct sm_limits {
    std::uint32_t max_blocks = 8;       ///< GTX480: 8 CTAs per SM
    std::uint32_t max_warps = 48;       ///< GTX480: 48 warps per SM
    std::uint32_t registers = 32768;    ///< 32-bit registers per SM
    std::uint32_t shared_bytes = 49152; ///< shared memory per SM
    void validate() const {
        check_range("max_blocks", max_blocks, 1U, 64U);
        check_range("max_warps", max_warps, 1U, 64U);
        check_range("registers", registers, 1U, 1U << 24);
        check_range("shared_bytes", shared_bytes, 0U, 1U << 24);
    }
    WARPKIT_FIELDS(sm_limits, max_blocks, max_warps, registers, shared_bytes)
};

/// What one block of a kernel needs.
struct block_footprint {
    std::uint32_t warps = 1;
    std::uint32_t registers = 0; ///< registers per thread x threads allocated (whole warps)
    std::uint32_t shared_bytes = 0;
};

/// Blocks of footprint `fp` one SM can hold within `lim` (0: not even one): the least of the
/// block slots, the warp slots, the registers and the shared memory they leave room for (the
/// CUDA occupancy calculation).
[[nodiscard]] constexpr std::uint64_t blocks_per_sm(const sm_limits& lim,
                                                    const block_footprint& fp) noexcept {
    std::uint64_t n =
        std::min<std::uint64_t>(lim.max_blocks, lim.max_warps / (fp.warps > 0 ? fp.warps : 1U));
    if (fp.registers > 0) n = std::min<std::uint64_t>(n, lim.registers / fp.registers);
    if (fp.shared_bytes > 0) n = std::min<std::uint64_t>(n, lim.shared_bytes / fp.shared_bytes);
    return n;
}

/// Dispatcher statistics.
struct dispatch_stats {
    std::uint64_t blocks_dispatched = 0;
    std::uint64_t blocks_retired = 0;
    std::uint64_t cycles_waiting = 0; ///< calls that found blocks left but no room
    WARPKIT_FIELDS(dispatch_stats, blocks_dispatched, blocks_retired, cycles_waiting)
};

/// Hands out block indices 0 .. blocks-1 in order. Each `dispatch()` call (one per cycle)
/// places at most one block, on the first SM at or after a rotating start that has room
/// (round robin, so an idle GPU spreads blocks over all SMs). With `cluster_size` S > 1 the
/// SMs form clusters of S adjacent SMs and a call places one block on every member of the
/// next cluster that has room on all members (fewer only for the kernel's last blocks), so
/// cluster members get equal shares (front-end sharing, paper 000).
class cta_dispatcher {
public:
    /// One placement: block `block` goes to SM `sm`.
    struct placement {
        std::uint32_t block;
        std::uint32_t sm;
    };

    cta_dispatcher(std::uint32_t sms, const sm_limits& limits, std::uint32_t cluster_size = 1)
        : limits_(limits), cluster_(cluster_size), used_(sms) {
        validate(limits_);
        if (sms == 0) throw config_error("sms", "0", ">= 1");
        if (cluster_size == 0 || sms % cluster_size != 0)
            throw config_error("cluster_size", std::to_string(cluster_size),
                               "a divisor of the SM count " + std::to_string(sms));
    }

    /// Starts a kernel of `blocks` blocks, each needing `fp`. Throws config_error when one
    /// block alone exceeds an SM's limits (it could never run).
    void launch(std::uint32_t blocks, const block_footprint& fp) {
        const auto too_big = [&](const char* what, std::uint32_t need, std::uint32_t have) {
            if (need > have)
                throw config_error(std::string("block.") + what, std::to_string(need),
                                   "<= " + std::to_string(have) + " (one SM's capacity)");
        };
        too_big("warps", fp.warps, limits_.max_warps);
        too_big("registers", fp.registers, limits_.registers);
        too_big("shared_bytes", fp.shared_bytes, limits_.shared_bytes);
        fp_ = fp;
        next_block_ = 0;
        blocks_ = blocks;
    }

    /// True when `sm` could take one more block now.
    [[nodiscard]] bool has_room(std::uint32_t sm) const {
        const auto& u = used_.at(sm);
        return u.blocks + 1 <= limits_.max_blocks && u.warps + fp_.warps <= limits_.max_warps &&
               u.registers + fp_.registers <= limits_.registers &&
               u.shared + fp_.shared_bytes <= limits_.shared_bytes;
    }

    /// Places the next block(s) this cycle; returns how many were placed (written to `out`,
    /// which must hold cluster_size entries). `ready(g)` may hold cluster g back this cycle
    /// even where its members have room (a front-end sharing cluster whose members have not
    /// yet freed the same block slots).
    template <class Ready = bool (*)(std::uint32_t)>
    std::size_t dispatch(std::vector<placement>& out,
                         Ready&& ready = [](std::uint32_t) { return true; }) {
        out.clear();
        if (next_block_ >= blocks_) return 0;
        const auto n = static_cast<std::uint32_t>(used_.size());
        const std::uint32_t groups = n / cluster_;
        for (std::uint32_t k = 0; k < groups; ++k) {
            const std::uint32_t g = (start_ + k) % groups;
            const std::uint32_t want = std::min(cluster_, blocks_ - next_block_);
            bool room = true;
            for (std::uint32_t m = 0; m < want && room; ++m)
                room = has_room(g * cluster_ + m);
            if (!room || !ready(g)) continue;
            for (std::uint32_t m = 0; m < want; ++m) {
                const std::uint32_t sm = g * cluster_ + m;
                take_(sm);
                out.push_back({next_block_++, sm});
            }
            start_ = (g + 1) % groups;
            stats_.blocks_dispatched += want;
            return want;
        }
        ++stats_.cycles_waiting;
        return 0;
    }

    /// A block on `sm` finished: its resources are free again.
    void retire(std::uint32_t sm) {
        auto& u = used_.at(sm);
        WARPKIT_EXPECTS(u.blocks > 0);
        --u.blocks;
        u.warps -= fp_.warps;
        u.registers -= fp_.registers;
        u.shared -= fp_.shared_bytes;
        ++stats_.blocks_retired;
    }

    /// Blocks not yet placed.
    [[nodiscard]] std::uint32_t pending() const noexcept { return blocks_ - next_block_; }
    /// Blocks resident on `sm`.
    [[nodiscard]] std::uint32_t resident(std::uint32_t sm) const { return used_.at(sm).blocks; }
    /// Every block placed and retired.
    [[nodiscard]] bool done() const noexcept {
        return next_block_ >= blocks_ && stats_.blocks_retired == stats_.blocks_dispatched;
    }
    [[nodiscard]] const dispatch_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const sm_limits& limits() const noexcept { return limits_; }

private:
    struct usage {
        std::uint32_t blocks = 0;
        std::uint32_t warps = 0;
        std::uint32_t registers = 0;
        std::uint32_t shared = 0;
    };
    void take_(std::uint32_t sm) {
        auto& u = used_[sm];
        ++u.blocks;
        u.warps += fp_.warps;
        u.registers += fp_.registers;
        u.shared += fp_.shared_bytes;
    }

    sm_limits limits_;
    std::uint32_t cluster_;
    std::vector<usage> used_;
    block_footprint fp_{};
    std::uint32_t blocks_ = 0;
    std::uint32_t next_block_ = 0;
    std::uint32_t start_ = 0;
    dispatch_stats stats_;
};

} // namespace warpkit::gpu
