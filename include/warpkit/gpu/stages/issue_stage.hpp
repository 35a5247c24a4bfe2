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
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <algorithm>
#include <array>
#include <bit>
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
        : views_(contexts), width_(issue_width), state_(contexts, watch_state::absent),
          kept_(contexts), look_((contexts + 63) / 64), touched_((contexts + 63) / 64) {}

    /// One issue cycle of half `h` with scheduler bank `bank`, over `warps` (by slot).
    /// `sharing` answers for a master of a sharing cluster (held warps, full links); `demand`
    /// says which gated types are on or may wake and takes the cycle's counts for power
    /// gating; a stall is counted in `stalls`. Returns the warp instructions issued.
    template <class Sharing, class Port>
    requires issue_port<Port> std::size_t tick(std::uint32_t h, Bank& bank,
                                               std::span<const warp_context> warps,
                                               Sharing& sharing, Port& port, type_demand& demand,
                                               stall_stats& stalls) {
        const stall_cause worst = tracking_ ? describe_tracked_(h, warps, sharing, port, demand)
                                            : describe_(h, warps, sharing, port, demand);
        if (count_ == 0) {
            // No warp to offer (common while every warp waits): the bank picks nothing.
            issue::idle_cycle(bank, width_);
            if (width_ > 0) count_stall(worst, stalls);
            return 0;
        }
        const issue::issue_list done = pick_(h, bank, warps, sharing, port, demand);
        bank.notify_issued(done);
        if (done.size() < width_) count_stall(worst, stalls);
        return done.size();
    }

    /// Tracking (off by default): the stage keeps what stops each warp that cannot issue
    /// (an empty buffer, a barrier, a hazard) and looks at it again only once touch()ed,
    /// describing to the bank only the warps that can issue. The owner must then touch()
    /// every warp whose buffer, writes in flight, barrier, replays or residency change; it
    /// may track only when its bank picks from issuable views alone (issuable_only()), it is
    /// in no sharing cluster and does not split (one half). Switching looks at every warp.
    void track(bool on) {
        if (on == tracking_) return;
        tracking_ = on;
        state_.assign(state_.size(), watch_state::absent);
        look_.assign(look_.size(), 0);
        held_ = {};
        touch_all();
    }
    /// True while tracking.
    [[nodiscard]] bool tracking() const noexcept { return tracking_; }
    /// Warp `s` changed in a way its view may show: the next cycle looks at it again.
    void touch(std::uint32_t s) noexcept {
        if (s < state_.size()) touched_[s / 64] |= std::uint64_t{1} << (s % 64);
    }
    /// Every warp may have changed (a block started, a barrier was released).
    void touch_all() noexcept {
        for (std::size_t i = 0; i < touched_.size(); ++i)
            touched_[i] = ~std::uint64_t{0};
    }

    /// The views of the last cycle's candidates.
    [[nodiscard]] std::span<const issue::warp_view> views() const noexcept {
        return {views_.data(), count_};
    }

private:
    // What stops a warp from issuing this cycle, as the tracked state keeps it: `look` (none:
    // it may issue, or waits on a unit or a replay, which change every cycle), `absent` (not
    // resident on this half), or a cause kept until the warp is touched.
    enum class watch_state : std::uint8_t { look, absent, fetch, barrier, scoreboard };

    // Describes warp `s` of half `h` into `v`; returns what stops it (and notes its obstacle
    // through `note`).
    template <class Sharing, class Port, class Note>
    watch_state describe_one_(std::uint32_t h, std::uint32_t s, const warp_context& w,
                              issue::warp_view& v, const Sharing& sharing, const Port& port,
                              type_demand& demand, Note&& note) const {
        if (!w.resident || w.half != h) return watch_state::absent;
        v = issue::warp_view{};
        v.id = static_cast<issue::warp_id>(s);
        v.age = w.age;
        v.at_barrier = port.at_barrier(s);
        v.valid = (!w.ibuf.empty() || w.replays > 0) && !w.binned;
        if (w.replays > 0) {
            // The lanes a bank conflict left out re-enter the pipeline first.
            v.unit = isa::unit_class::ldst;
            v.ready = port.ldst_free(s, h);
            if (!v.ready) note(stall_cause::unit);
            return watch_state::look;
        }
        if (v.at_barrier) {
            note(stall_cause::barrier);
            return watch_state::barrier;
        }
        if (!v.valid || sharing.held(s)) {
            // A warp held while the slaves compare its branch waits like one refetching.
            note(stall_cause::fetch);
            return watch_state::fetch;
        }
        const auto& si = w.ibuf.front();
        v.unit = si.unit;
        const auto hz = port.hazard(s, si);
        v.long_latency = hz.long_latency;
        if (hz.any()) {
            note(stall_cause::scoreboard);
            return watch_state::scoreboard;
        }
        demand.note_ready(si.unit);
        if (!port.unit_free(s, si, h) && !demand.may_wake(si.unit))
            note(demand.powered_off(si.unit) ? stall_cause::gated : stall_cause::unit);
        else
            v.ready = true;
        return watch_state::look;
    }

    // Fills the views of half `h`'s resident warps; returns the most advanced obstacle.
    template <class Sharing, class Port>
    stall_cause describe_(std::uint32_t h, std::span<const warp_context> warps,
                          const Sharing& sharing, const Port& port, type_demand& demand) {
        std::uint32_t n = 0;
        stall_cause worst = stall_cause::idle;
        const auto note = [&](stall_cause c) { worst = std::max(worst, c); };
        for (std::uint32_t s = 0; s < warps.size(); ++s)
            if (describe_one_(h, s, warps[s], views_[n], sharing, port, demand, note) !=
                watch_state::absent)
                ++n;
        count_ = n;
        return worst;
    }

    // describe_ while tracking: looks at the warps that may issue and the touched ones,
    // keeps the views of those that can issue; the kept causes of the others count toward
    // the stall's cause as they would if looked at again.
    template <class Sharing, class Port>
    stall_cause describe_tracked_(std::uint32_t h, std::span<const warp_context> warps,
                                  const Sharing& sharing, const Port& port, type_demand& demand) {
        std::uint32_t n = 0;
        stall_cause worst = stall_cause::idle;
        const auto note = [&](stall_cause c) { worst = std::max(worst, c); };
        const auto slots = std::min<std::size_t>(warps.size(), state_.size());
        for (std::size_t i = 0; i < look_.size(); ++i) {
            const std::uint64_t touched = touched_[i];
            std::uint64_t bits = look_[i] | touched;
            touched_[i] = 0;
            for (; bits != 0; bits &= bits - 1) {
                const auto s = static_cast<std::uint32_t>(
                    i * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
                if (s >= slots) break;
                const std::uint64_t bit = std::uint64_t{1} << (s % 64);
                issue::warp_view& v = views_[n];
                if ((touched & bit) == 0) {
                    // Looked at last cycle and unchanged since: only the units can differ.
                    v = kept_[s];
                    recheck_units_(h, warps[s], v, port, demand, note);
                    if (issue::issuable(v)) ++n;
                    continue;
                }
                const watch_state before = state_[s];
                if (held(before)) --held_[held_index(before)];
                const watch_state now = describe_one_(h, s, warps[s], v, sharing, port, demand, note);
                state_[s] = now;
                look_[i] = now == watch_state::look ? (look_[i] | bit) : (look_[i] & ~bit);
                if (held(now)) ++held_[held_index(now)];
                if (now == watch_state::look) kept_[s] = v;
                if (now != watch_state::absent && issue::issuable(v)) ++n;
            }
        }
        if (held_[held_index(watch_state::fetch)] != 0) note(stall_cause::fetch);
        if (held_[held_index(watch_state::barrier)] != 0) note(stall_cause::barrier);
        if (held_[held_index(watch_state::scoreboard)] != 0) note(stall_cause::scoreboard);
        count_ = n;
#ifndef NDEBUG
        check_tracked_(h, warps, sharing, port, demand, worst);
#endif
        return worst;
    }

    // The part of describe_one_ that changes from cycle to cycle for a warp that may issue:
    // whether its unit (the LD/ST unit for a replay) is free, or may wake.
    template <class Port, class Note>
    void recheck_units_(std::uint32_t h, const warp_context& w, issue::warp_view& v,
                        const Port& port, type_demand& demand, Note&& note) const {
        if (w.replays > 0) {
            v.ready = port.ldst_free(v.id, h);
            if (!v.ready) note(stall_cause::unit);
            return;
        }
        const auto& si = w.ibuf.front();
        demand.note_ready(si.unit);
        v.ready = port.unit_free(v.id, si, h) || demand.may_wake(si.unit);
        if (!v.ready) note(demand.powered_off(si.unit) ? stall_cause::gated : stall_cause::unit);
    }

#ifndef NDEBUG
    // Debug builds describe every warp again and check that tracking kept the same cause
    // and the same issuable views (the tests under the sanitizers run it every cycle).
    template <class Sharing, class Port>
    void check_tracked_(std::uint32_t h, std::span<const warp_context> warps,
                        const Sharing& sharing, const Port& port, const type_demand& demand,
                        stall_cause worst) {
        std::vector<issue::warp_view> all(views_.size());
        stall_cause full = stall_cause::idle;
        type_demand scratch = demand;
        const auto note = [&](stall_cause c) { full = std::max(full, c); };
        std::vector<issue::warp_id> want;
        for (std::uint32_t s = 0; s < warps.size(); ++s)
            if (describe_one_(h, s, warps[s], all[0], sharing, port, scratch, note) !=
                    watch_state::absent &&
                issue::issuable(all[0]))
                want.push_back(all[0].id);
        std::vector<issue::warp_id> got;
        for (std::uint32_t k = 0; k < count_; ++k)
            got.push_back(views_[k].id);
        std::sort(got.begin(), got.end());
        WARPKIT_EXPECTS(full == worst && got == want);
    }
#endif

    [[nodiscard]] static constexpr bool held(watch_state w) noexcept {
        return w == watch_state::fetch || w == watch_state::barrier ||
               w == watch_state::scoreboard;
    }
    [[nodiscard]] static constexpr std::size_t held_index(watch_state w) noexcept {
        return static_cast<std::size_t>(w) - static_cast<std::size_t>(watch_state::fetch);
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
                    if (!port.ldst_free(s, h)) {
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
                if (!port.unit_free(s, si, h)) {
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
                      (w.replays > 0 ? port.ldst_free(v.id, h)
                                     : !w.ibuf.empty() && port.unit_free(v.id, w.ibuf.front(), h));
        }
    }

    std::vector<issue::warp_view> views_;
    std::uint32_t count_ = 0; // views filled this cycle
    std::uint32_t width_;
    // Tracking (track()): per warp slot what stops it; bit sets of the slots looked at every
    // cycle and of those touched since the last; how many slots each kept cause holds.
    bool tracking_ = false;
    std::vector<watch_state> state_;
    std::vector<issue::warp_view> kept_; // per slot: its view when last described (look)
    std::vector<std::uint64_t> look_;
    std::vector<std::uint64_t> touched_;
    std::array<std::uint32_t, 3> held_{};
};

} // namespace warpkit::gpu::stages
