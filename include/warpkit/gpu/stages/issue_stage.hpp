#pragma once
/// \file
/// `issue_stage`: the issue stage of an SM (or of one half of a split SM) with its stall
/// accounting. Each cycle it describes the half's resident warps to a scheduler bank as
/// warp_views (ready: operands and unit free, or a wakeup the pick may request), lets the bank
/// pick up to issue_width warps, and executes the picks through the SM's issue_port. A pick
/// whose unit is taken after all gives its slot back and the bank fills it again from what can
/// still issue; a cycle with fewer issues than issue_width counts one stall, by the most
/// advanced obstacle among the warps (idle, fetch, barrier, scoreboard, unit, gated).

#include <warpkit/gpu/stages/issue_port.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpkit::gpu::stages {

/// Why a warp cannot issue, ordered from the least to the most advanced obstacle.
enum class stall_cause : std::uint8_t { idle, fetch, barrier, scoreboard, unit, gated };

/// Counts one stalled cycle of cause `c` in `stalls`.
inline void count_stall(stall_cause c, stall_stats& stalls) noexcept {
    switch (c) {
    case stall_cause::idle:
        ++stalls.idle;
        break;
    case stall_cause::fetch:
        ++stalls.fetch;
        break;
    case stall_cause::barrier:
        ++stalls.barrier;
        break;
    case stall_cause::scoreboard:
        ++stalls.scoreboard;
        break;
    case stall_cause::unit:
        ++stalls.unit;
        break;
    case stall_cause::gated:
        ++stalls.gated;
        break;
    }
}

/// The issue stage of an SM whose warp schedulers are a `Bank` (issue::scheduler_bank), over
/// `contexts` warp contexts issuing `issue_width` per cycle.
template <class Bank>
class issue_stage {
public:
    issue_stage(std::uint32_t contexts, std::uint32_t issue_width)
        : views_(contexts), width_(issue_width) {}

    /// One issue cycle of half `h` with scheduler bank `bank`, over `warps` (by slot).
    /// `sharing` answers for a master of a sharing cluster (held warps, full links); `demand`
    /// says which gated types are on or may wake and takes the cycle's counts for power
    /// gating; a stall is counted in `stalls`. Returns the warp instructions issued.
    template <class Sharing, class Port>
    requires issue_port<Port> std::size_t tick(std::uint32_t h, Bank& bank,
                                               std::span<const warp_context> warps,
                                               Sharing& sharing, Port& port, type_demand& demand,
                                               stall_stats& stalls) {
        const stall_cause worst = describe_(h, warps, sharing, port, demand);
        const issue::issue_list done = pick_(h, bank, warps, sharing, port, demand);
        bank.notify_issued(done);
        if (done.size() < width_) count_stall(worst, stalls);
        return done.size();
    }

    /// The views of the last cycle's candidates.
    [[nodiscard]] std::span<const issue::warp_view> views() const noexcept {
        return {views_.data(), count_};
    }

private:
    // Fills the views of half `h`'s resident warps; returns the most advanced obstacle.
    template <class Sharing, class Port>
    stall_cause describe_(std::uint32_t h, std::span<const warp_context> warps,
                          const Sharing& sharing, const Port& port, type_demand& demand) {
        std::uint32_t n = 0;
        stall_cause worst = stall_cause::idle;
        const auto note = [&](stall_cause c) { worst = std::max(worst, c); };
        for (std::uint32_t s = 0; s < warps.size(); ++s) {
            auto& v = views_[n];
            const auto& w = warps[s];
            if (!w.resident || w.half != h) continue;
            v = issue::warp_view{};
            v.id = static_cast<issue::warp_id>(s);
            v.age = w.age;
            v.at_barrier = port.at_barrier(s);
            v.valid = (!w.ibuf.empty() || w.replays > 0) && !w.binned;
            if (w.replays > 0) {
                // The lanes a bank conflict left out re-enter the pipeline first.
                v.unit = isa::unit_class::ldst;
                v.ready = port.ldst_free(h);
                if (!v.ready) note(stall_cause::unit);
            } else if (v.at_barrier) {
                note(stall_cause::barrier);
            } else if (!v.valid || sharing.held(s)) {
                // A warp held while the slaves compare its branch waits like one refetching.
                note(stall_cause::fetch);
            } else {
                const auto& si = w.ibuf.front();
                v.unit = si.unit;
                const auto hz = port.hazard(s, si);
                v.long_latency = hz.long_latency;
                if (hz.any()) {
                    note(stall_cause::scoreboard);
                } else {
                    demand.note_ready(si.unit);
                    if (!port.unit_free(si, h) && !demand.may_wake(si.unit))
                        note(demand.powered_off(si.unit) ? stall_cause::gated : stall_cause::unit);
                    else
                        v.ready = true;
                }
            }
            ++n;
        }
        count_ = n;
        return worst;
    }

    // A scheduler picks from the views alone, so two picks may want one unit (two LD/ST
    // instructions, or two of a type with one cluster on). Such a pick gives its slot back
    // and the scheduler fills it again from what can still issue this cycle, as an issue
    // stage that checks each pick's unit in turn does (GATES fills its N slots in priority
    // order, paper 003 Section 6). A pick of a type with no cluster free but one a wakeup
    // may start is that type's wakeup request and keeps its slot.
    template <class Sharing, class Port>
    issue::issue_list pick_(std::uint32_t h, Bank& bank, std::span<const warp_context> warps,
                            Sharing& sharing, Port& port, type_demand& demand) {
        issue::issue_list done;
        std::uint64_t issued_warps = 0;
        for (std::uint32_t round = 0; round < width_ && done.size() < width_; ++round) {
            const auto picks = bank.select(std::span<const issue::warp_view>(views_.data(), count_),
                                           width_ - done.size());
            bool refill = false;
            for (std::size_t i = 0; i < picks.size(); ++i) {
                const std::uint32_t s = picks[i].warp;
                const auto& w = warps[s];
                if (w.resident && w.replays > 0) {
                    if (!port.ldst_free(h)) {
                        refill = true;
                        continue;
                    }
                    port.replay(s);
                    issued_warps |= std::uint64_t{1} << s;
                    done.push(static_cast<issue::warp_id>(s), isa::unit_class::ldst);
                    continue;
                }
                if (!w.resident || w.binned || w.ibuf.empty() || port.at_barrier(s)) continue;
                const isa::static_inst si = w.ibuf.front();
                if (port.hazard(s, si).any()) continue;
                if (sharing.master_grouped() && (sharing.held(s) || !sharing.link_free(si))) {
                    if (!sharing.held(s)) sharing.note_link_full();
                    refill = true;
                    continue;
                }
                if (!port.unit_free(si, h)) {
                    const bool wake = demand.may_wake(si.unit) && round == 0;
                    demand.note_unplaced(si.unit);
                    refill = refill || !wake;
                    continue;
                }
                port.execute(s, si);
                issued_warps |= std::uint64_t{1} << s;
                done.push(static_cast<issue::warp_id>(s), si.unit);
            }
            if (!refill) break;
            refresh_(h, warps, port, issued_warps);
        }
        return done;
    }

    // Before a refill: a view stays ready only if its warp did not issue and can still.
    template <class Port>
    void refresh_(std::uint32_t h, std::span<const warp_context> warps, const Port& port,
                  std::uint64_t issued_warps) {
        for (std::uint32_t k = 0; k < count_; ++k) {
            auto& v = views_[k];
            if (!v.ready) continue;
            if ((issued_warps >> v.id) & 1U) {
                v.ready = false;
                continue;
            }
            const auto& w = warps[v.id];
            v.ready = w.resident && !w.binned &&
                      (w.replays > 0 ? port.ldst_free(h)
                                     : !w.ibuf.empty() && port.unit_free(w.ibuf.front(), h));
        }
    }

    std::vector<issue::warp_view> views_;
    std::uint32_t count_ = 0; // views filled this cycle
    std::uint32_t width_;
};

} // namespace warpkit::gpu::stages
