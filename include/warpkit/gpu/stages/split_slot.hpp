#pragma once
/// \file
/// AMOEBA's dynamic split (paper 002 Sec. 4.3) as a policy slot of gpu::sm:
/// - `dynamic_split<Bank>` keeps the switch controller and SM1's scheduler bank and carries
///   out the controller's actions. While fused, every warp is on SM0 (half 0) and the SM
///   issues as one. A split action moves divergent warps to SM1 (half 1): a direct split cuts
///   each in the middle and sends both parts there; regrouping keeps the fast part on SM0 and
///   sends the slow part. Each half then issues from its own warps with its own scheduler and
///   units; a warp of the full width takes two passes of a half datapath, a part of a cut warp
///   one. The memory stage, L1s, registers and NoC port stay shared. When SM1 holds no more
///   divergent part, its warps return to SM0 and the SM fuses again.
/// - `no_split` is an empty type for SMs that never split (their source cannot cut warps,
///   they power-gate, or their policies say so): split() is false at compile time.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/reconfig/sm_split.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace warpkit::gpu::stages {

/// A source whose warps can be cut in two (warpkit-ISA and PTX kernels).
template <class Source, std::size_t WarpSize>
concept splittable_source = requires(Source& src, const Source& cs, std::uint32_t s,
                                     lane_mask<WarpSize> m) {
    src.split(s, s, m);
    cs.stack(s).live();
    cs.stack(s).active();
    cs.stack(s).converged();
};

/// Checks that an SM of `WarpSize` lanes can split as `p.split` asks (mode not off):
/// `can_cut` (its source cuts warps), `gated` (it power-gates), `has_split` (its policies
/// keep the split slot). Throws config_error naming split.mode or split.group_lanes.
template <std::size_t WarpSize>
void check_split(const sm_params& p, bool can_cut, bool gated, bool has_split) {
    constexpr std::size_t warp_size = WarpSize;
    const std::string mode(
        enum_names<reconfig::split_mode>::names[static_cast<std::size_t>(p.split.mode)]);
    if (!can_cut)
        throw config_error("split.mode", mode,
                           "off (this kernel's instruction source cannot cut warps; "
                           "warpkit-ISA and PTX kernels can)");
    if (gated)
        throw config_error("split.mode", mode,
                           "off with a power-gating policy (a split SM's second half is "
                           "not gated)");
    if (!has_split)
        throw config_error("split.mode", mode, "off (this SM type has no dynamic split)");
    check(warp_size >= 2 && (warp_size / 2) % p.split.group_lanes == 0, "split.group_lanes",
          p.split.group_lanes, "a divisor of half the warp size");
}

/// An SM that never splits.
template <class Bank>
struct no_split {
    static constexpr bool available = false;
    explicit no_split(const sm_params&, const typename Bank::params_type&) noexcept {}
    [[nodiscard]] static constexpr bool enabled() noexcept { return false; }
    [[nodiscard]] static constexpr bool split() noexcept { return false; }
    static constexpr void reset_stats() noexcept {}
};

/// AMOEBA's dynamic split of a fused SM whose halves schedule with `Bank`s.
template <class Bank>
class dynamic_split {
public:
    static constexpr bool available = true;

    /// The split of an SM with params `p`; SM1's schedulers take `sched`.
    dynamic_split(const sm_params& p, const typename Bank::params_type& sched)
        : controller_(p.split), second_bank_(sched), warp_slots_(p.warp_slots),
          ibuffer_depth_(p.ibuffer_depth), regroup_(p.split.mode == reconfig::split_mode::regroup),
          group_lanes_(p.split.group_lanes) {}

    [[nodiscard]] bool enabled() const noexcept { return controller_.enabled(); }
    /// True while split (both halves issue).
    [[nodiscard]] bool split() const noexcept { return controller_.split(); }
    /// The switch controller.
    [[nodiscard]] const reconfig::sm_split_controller& controller() const noexcept {
        return controller_;
    }
    /// SM1's scheduler bank (its own scheduler comes back when split).
    [[nodiscard]] Bank& second_bank() noexcept { return second_bank_; }
    /// SM1 issued something this cycle (the controller watches SM1 idling).
    void note_second_issued(bool issued) noexcept { second_issued_ = issued; }
    void reset_stats() {
        controller_.reset_stats();
        second_bank_.reset_stats();
    }

    /// One step after issue: observes the warps, carries out the controller's action, moves
    /// the binned warps whose writes have landed, and copies the controller's counters into
    /// `counts.split`. `blocks` count the parts of cut warps; `scoreboard` says which warps
    /// still have writes in flight.
    template <class Source, class Scoreboard>
    void step(std::span<warp_context> warps, std::span<block_context> blocks, Source& source,
              const Scoreboard& scoreboard, sm_stats& counts) {
        const reconfig::split_observation o = observe_(warps, source);
        switch (controller_.tick(o)) {
        case reconfig::split_action::split:
            controller_.split_done(bin_(warps, source));
            break;
        case reconfig::split_action::refuse:
            for (auto& w : warps) {
                w.half = 0;
                w.uncut = false;
            }
            controller_.refused();
            break;
        case reconfig::split_action::rebalance:
            rebalance_(warps, source);
            break;
        case reconfig::split_action::none:
            // While split, warps that diverge later join the bin.
            if (controller_.split() && o.divergent > 0) (void)bin_(warps, source);
            break;
        }
        move_binned_(warps, blocks, source, scoreboard, counts);
        counts.split = controller_.stats();
    }

private:
    template <class Source>
    reconfig::split_observation observe_(std::span<const warp_context> warps,
                                         const Source& source) {
        reconfig::split_observation o;
        o.second_issued = second_issued_;
        second_issued_ = false;
        for (std::uint32_t s = 0; s < warps.size(); ++s) {
            const auto& w = warps[s];
            if (!w.resident) continue;
            if (w.half == 1 || w.binned) {
                if (w.narrow || w.binned || (w.uncut && !source.stack(s).converged()))
                    ++o.second_divergent;
                if (w.half == 1) {
                    ++o.second_warps;
                    continue;
                }
            }
            ++o.warps;
            if (divergent_(warps, s, source)) ++o.divergent;
        }
        return o;
    }

    // A divergent warp SM0 may hand to SM1: of the full width, not replaying, not at a
    // barrier. It goes into the bin, stops issuing, and moves once its register writes in
    // flight have landed (a context moves whole).
    template <class Source>
    [[nodiscard]] static bool divergent_(std::span<const warp_context> warps, std::uint32_t s,
                                         const Source& source) {
        const auto& w = warps[s];
        return w.resident && w.half == 0 && !w.narrow && !w.binned && w.replays == 0 &&
               !source.at_barrier(s) && !source.stack(s).converged();
    }

    // Puts every divergent warp of SM0 in the bin; returns how many.
    template <class Source>
    std::uint32_t bin_(std::span<warp_context> warps, const Source& source) {
        std::uint32_t n = 0;
        for (std::uint32_t s = 0; s < warps.size(); ++s)
            if (divergent_(warps, s, source)) {
                warps[s].binned = true;
                ++n;
            }
        return n;
    }

    // Regrouping: SM1 idles; the first converged full-width warp of SM0 goes there (no cut:
    // its writes in flight land in the shared register file).
    template <class Source>
    void rebalance_(std::span<warp_context> warps, const Source& source) {
        for (std::uint32_t s = 0; s < warps.size(); ++s) {
            auto& w = warps[s];
            if (w.resident && w.half == 0 && !w.narrow && !w.binned &&
                source.stack(s).converged()) {
                w.half = 1;
                controller_.rebalanced();
                break;
            }
        }
    }

    // False when the source holds a kernel whose warps must not be cut (PTX with
    // warp-collective instructions): divergent warps then move to SM1 whole.
    template <class Source>
    [[nodiscard]] static bool can_cut_(const Source& source) {
        if constexpr (requires { source.can_cut(); })
            return source.can_cut();
        else
            return true;
    }

    // Cuts or moves every binned warp whose writes have landed (a cut needs a free slot above
    // the warp slots; without one the warp waits in the bin).
    template <class Source, class Scoreboard>
    void move_binned_(std::span<warp_context> warps, std::span<block_context> blocks,
                      Source& source, const Scoreboard& scoreboard, sm_stats& counts) {
        std::uint32_t moved = 0;
        std::uint32_t cut = 0;
        const bool cut_ok = can_cut_(source);
        for (std::uint32_t s = 0; s < warps.size(); ++s) {
            auto& w = warps[s];
            if (!w.resident || !w.binned || scoreboard.pending_count(s) != 0) continue;
            if (!cut_ok) { // a warp that must not be cut moves whole, at the full width
                w.binned = false;
                w.half = 1;
                w.uncut = true;
                ++moved;
                continue;
            }
            const auto& st = source.stack(s);
            const auto c = regroup_ ? reconfig::regroup(st.live(), st.active(), group_lanes_)
                                    : reconfig::direct_split(st.live());
            // One part without threads: the warp already fits half a datapath; it moves
            // whole (regrouping found no fast group, or a direct split's half is empty).
            if (c.first.none() || c.second.none()) {
                w.binned = false;
                w.half = 1;
                w.narrow = true;
                ++moved;
                continue;
            }
            std::uint32_t t = warp_slots_;
            while (t < warps.size() && warps[t].resident)
                ++t;
            if (t == warps.size()) break; // no slot for a second part yet
            source.split(s, t, c.first);
            cut_(warps, s, t, blocks, counts);
            moved += regroup_ ? 1 : 2;
            ++cut;
        }
        if (moved > 0) controller_.moved(moved, cut);
    }

    // Warp `s` was cut: its second part lives on SM1 in slot `t`.
    void cut_(std::span<warp_context> warps, std::uint32_t s, std::uint32_t t,
              std::span<block_context> blocks, sm_stats& counts) {
        auto& w = warps[s];
        w.binned = false;
        w.ibuf.clear();
        w.fetching = false;
        w.narrow = true;
        w.half = regroup_ ? 0 : 1;
        auto& n = warps[t];
        n = warp_context{};
        n.ibuf.reserve(ibuffer_depth_);
        n.resident = true;
        n.block_slot = w.block_slot;
        n.age = w.age;
        n.narrow = true;
        n.half = 1;
        ++blocks[w.block_slot].live_warps;
        ++counts.warps_started;
    }

    reconfig::sm_split_controller controller_;
    Bank second_bank_; // SM1's schedulers
    bool second_issued_ = false;
    std::uint32_t warp_slots_;
    std::uint32_t ibuffer_depth_;
    bool regroup_;
    std::uint32_t group_lanes_;
};

} // namespace warpkit::gpu::stages
