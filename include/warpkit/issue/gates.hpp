#pragma once
/// \file
/// GATES, the gating-aware two-level warp scheduler of Warped Gates (paper 003 Sections 4,
/// 4.1 and 6). `gates_priority<Inner>` is the issue arbiter over the active warps: it splits
/// them into per-unit-type subsets, counts the instructions in each (INT_ACTV, FP_ACTV, ...)
/// and the ready ones (INT_RDY, FP_RDY, LDST_RDY, SFU_RDY), and fills the N issue slots in
/// the priority order INT/FP, LDST, SFU, FP/INT, so INT and FP sit at the two ends. The
/// highest priority switches between INT and FP when its active subset empties while the
/// other's is not empty, optionally when it has been held for a maximum switching time, and
/// (coordinated Blackout) when the units of the highest type are blocked by power gating.
/// `gates<Inner>` is `two_level<gates_priority<Inner>>` with the GATES inputs and outputs.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/two_level.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace warpkit::issue {

/// Params of the GATES issue arbiter.
template <class InnerParams>
struct gates_priority_params {
    /// Issue cycles after which the highest priority is forced to the other of INT/FP when
    /// that one has active instructions; 0 disables it. Paper 003 Section 4 leaves the value
    /// to the designer ("a large maximum switching time threshold"), so it is off by default.
    std::uint32_t max_switch_cycles = 0;
    /// Highest priority at start: int_alu (the paper initialises INT highest) or fp.
    isa::unit_class initial = isa::unit_class::int_alu;
    /// Params of the policy that orders warps of one type (lrr by default).
    InnerParams inner{};

    void validate() const {
        check_range("max_switch_cycles", max_switch_cycles, std::uint32_t{0},
                    std::uint32_t{1} << 24);
        check(initial == isa::unit_class::int_alu || initial == isa::unit_class::fp, "initial",
              std::string(enum_names<isa::unit_class>::names[isa::index(initial)]), "int or fp");
    }
    WARPKIT_FIELDS(gates_priority_params, max_switch_cycles, initial, inner)
};

/// Counters of the GATES issue arbiter.
struct gates_priority_stats {
    std::uint64_t switches_on_empty = 0;     ///< highest subset empty, the other not
    std::uint64_t switches_on_threshold = 0; ///< maximum switching time reached
    std::uint64_t switches_on_blocked = 0;   ///< highest type blocked by power gating
    std::uint64_t int_high_cycles = 0;       ///< issue cycles with INT highest
    std::uint64_t fp_high_cycles = 0;        ///< issue cycles with FP highest
    std::uint64_t mixed_int_fp_cycles = 0;   ///< cycles issuing both INT and FP
    scheduler_stats issue{};
    WARPKIT_FIELDS(gates_priority_stats, switches_on_empty, switches_on_threshold,
                   switches_on_blocked, int_high_cycles, fp_high_cycles, mixed_int_fp_cycles, issue)
};

/// The GATES issue arbiter over a set of (active) warps; Inner orders warps of one type.
template <class Inner = lrr>
requires warp_scheduler<Inner>
class gates_priority {
public:
    using inner_type = Inner;
    using params_type = gates_priority_params<typename Inner::params_type>;
    using stats_type = gates_priority_stats;
    /// Warp ids are below this (the inner policy's count).
    static constexpr std::size_t max_warps = max_warps_of<Inner>();

    /// Short name for reports.
    static constexpr std::string_view kind = "gates_priority";

    /// True when there is a select_planes (two_level uses it): ids below 64 and an inner
    /// policy that picks from a set of ready warps (lrr).
    static constexpr bool takes_planes = max_warps <= 64 && detail::takes_planes<Inner>();

    gates_priority() : gates_priority(params_type{}) {}
    /// Throws config_error when `p` is out of range.
    explicit gates_priority(const params_type& p)
        : params_(validated(p)), inner_(p.inner), high_(p.initial) {}

    /// Counts the subsets, applies the priority switch rules, then fills up to `width` slots
    /// type by type in priority order; within a type the inner policy picks.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        WARPKIT_EXPECTS(views.size() <= max_warps);
        issue_list out;
        if constexpr (takes_planes) {
            // Views in increasing id order: read into per-id masks, then select_planes.
            if (detail::ids_may_increase(views)) {
                detail::view_planes planes;
                if (planes.load(views, max_warps)) {
                    select_planes(planes, ~std::uint64_t{0}, width, out);
                    return out;
                }
            }
        }
        width_ = width;
        count(views);
        switch_priority();
        for (const isa::unit_class u : priority_order()) {
            if (out.size() >= width) break;
            if (blocked_.test(u) || rdy_[isa::index(u)] == 0) continue;
            std::size_t n = 0;
            for (const auto& v : views) { // copy each, keep those of type u: no branch
                subset_[n] = v;
                n += static_cast<std::size_t>((v.unit == u) & issuable(v));
            }
            out.append(
                inner_.select(std::span<const warp_view>(subset_.data(), n), width - out.size()));
        }
        return out;
    }

    /// select() for ids below 64 given as masks (see view_planes), over the warps of `among`
    /// (two_level passes its active set), the picks appended to `out`: the subsets, counts
    /// and ready sets are words of bits, and the inner policy picks from a ready set.
    void select_planes(const detail::view_planes& planes, std::uint64_t among, std::size_t width,
                       issue_list& out) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        width_ = width;
        by_masks_ = true;
        live_ = planes.live() & among;
        ready_ = live_ & planes.ready;
        unit0_ = planes.unit0;
        unit1_ = planes.unit1;
        unit2_ = planes.unit2;
        switch_priority();
        for (const isa::unit_class u : priority_order()) {
            if (out.size() >= width) break;
            const std::uint64_t ready = ready_ & of_class(u);
            if (blocked_.test(u) || ready == 0) continue;
            inner_.select_ready(
                ready, width - out.size(), [u](std::size_t) { return u; }, out);
        }
    }

    /// Advances the inner policy and the time spent at the current priority.
    void notify_issued(const issue_list& done) {
        stats_.issue.record(width_, done);
        inner_.notify_issued(done);
        ++cycles_at_high_;
        ++(high_ == isa::unit_class::int_alu ? stats_.int_high_cycles : stats_.fp_high_cycles);
        bool int_issued = false;
        bool fp_issued = false;
        for (const auto& s : done) {
            int_issued = int_issued || s.unit == isa::unit_class::int_alu;
            fp_issued = fp_issued || s.unit == isa::unit_class::fp;
        }
        if (int_issued && fp_issued) ++stats_.mixed_int_fp_cycles;
    }

    /// Unit classes whose units cannot take an instruction (all of their clusters are power
    /// gated / in blackout); their instructions are not issued, and a blocked highest type
    /// gives the priority to the other of INT/FP. Holds until changed.
    void set_blocked(unit_set blocked) noexcept { blocked_ = blocked; }
    [[nodiscard]] unit_set blocked() const noexcept { return blocked_; }

    /// The type with the highest priority (int_alu or fp).
    [[nodiscard]] isa::unit_class high_priority() const noexcept { return high_; }
    /// The type with the lowest priority (the other of int_alu and fp).
    [[nodiscard]] isa::unit_class low_priority() const noexcept { return other(high_); }
    /// The issue order of the unit classes: highest, LDST, SFU, DP, TENSOR, BRANCH, CTRL,
    /// lowest. (The paper's 2-bit type has no DP, tensor, branch or control class; they use
    /// neither INT nor FP units, so they take the middle, keeping INT and FP at the two ends.
    /// An SM without DP or tensor units issues those instructions as FP ones.)
    [[nodiscard]] std::array<isa::unit_class, isa::unit_class_count>
    priority_order() const noexcept {
        return {high_,
                isa::unit_class::ldst,
                isa::unit_class::sfu,
                isa::unit_class::dp,
                isa::unit_class::tensor,
                isa::unit_class::branch,
                isa::unit_class::ctrl,
                other(high_)};
    }

    /// Instructions of type `u` in the active subset at the last select (INT_ACTV, FP_ACTV...).
    [[nodiscard]] std::uint32_t actv(isa::unit_class u) const noexcept {
        if (by_masks_) return static_cast<std::uint32_t>(detail::popcount64(live_ & of_class(u)));
        return actv_[isa::index(u)];
    }
    /// Ready instructions of type `u` at the last select (INT_RDY, FP_RDY, LDST_RDY, SFU_RDY).
    [[nodiscard]] std::uint32_t rdy(isa::unit_class u) const noexcept {
        if (by_masks_) return static_cast<std::uint32_t>(detail::popcount64(ready_ & of_class(u)));
        return rdy_[isa::index(u)];
    }
    /// INT_ACTV: what a coordinated Blackout controller reads for the INT clusters.
    [[nodiscard]] std::uint32_t int_actv() const noexcept { return actv(isa::unit_class::int_alu); }
    /// FP_ACTV: what a coordinated Blackout controller reads for the FP clusters.
    [[nodiscard]] std::uint32_t fp_actv() const noexcept { return actv(isa::unit_class::fp); }
    /// Issue cycles since the last priority switch.
    [[nodiscard]] std::uint64_t cycles_at_priority() const noexcept { return cycles_at_high_; }

    [[nodiscard]] Inner& inner() noexcept { return inner_; }
    [[nodiscard]] const Inner& inner() const noexcept { return inner_; }
    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    [[nodiscard]] const stats_type& stats() const noexcept { return stats_; }
    /// Restarts the counters (the inner policy's included) from zero; priorities stay.
    void reset_stats() {
        reset_counters(stats_);
        inner_.reset_stats();
    }

private:
    // Members of the active subset of type u (the views' masks of the last select_planes).
    [[nodiscard]] std::uint64_t of_class(isa::unit_class u) const noexcept {
        return detail::view_planes::of_class(u, unit0_, unit1_, unit2_);
    }
    // actv(u) > 0, without counting.
    [[nodiscard]] bool any_active(isa::unit_class u) const noexcept {
        return by_masks_ ? (live_ & of_class(u)) != 0 : actv_[isa::index(u)] > 0;
    }

    [[nodiscard]] static constexpr isa::unit_class other(isa::unit_class u) noexcept {
        return u == isa::unit_class::int_alu ? isa::unit_class::fp : isa::unit_class::int_alu;
    }

    void count(std::span<const warp_view> views) noexcept {
        by_masks_ = false;
        actv_ = {};
        rdy_ = {};
        // A warp waiting at a barrier has no instruction heading for a unit.
        const auto live = [](const warp_view& v) {
            return static_cast<unsigned>(!v.finished & v.valid & !v.at_barrier);
        };
        if constexpr (max_warps < 256 && isa::unit_class_count <= 8) {
            // Eight 8-bit counters in a word each (at most 255 views): no branch on the
            // views' flags and no counter kept in memory from one view to the next.
            std::uint64_t actv = 0;
            std::uint64_t rdy = 0;
            for (const auto& v : views) {
                const unsigned shift = 8 * static_cast<unsigned>(isa::index(v.unit));
                const std::uint64_t a = live(v);
                actv += a << shift;
                rdy += (a & static_cast<unsigned>(v.ready)) << shift;
            }
            for (std::size_t u = 0; u < isa::unit_class_count; ++u) {
                actv_[u] = static_cast<std::uint32_t>((actv >> (8 * u)) & 0xff);
                rdy_[u] = static_cast<std::uint32_t>((rdy >> (8 * u)) & 0xff);
            }
        } else {
            for (const auto& v : views) {
                const unsigned a = live(v);
                actv_[isa::index(v.unit)] += a;
                rdy_[isa::index(v.unit)] += a & static_cast<unsigned>(v.ready);
            }
        }
    }

    // At most one switch per cycle; a repeated select with the same views switches no more.
    void switch_priority() noexcept {
        const isa::unit_class low = other(high_);
        const bool low_waiting = any_active(low);
        if (!low_waiting) return;
        if (!any_active(high_)) {
            ++stats_.switches_on_empty;
        } else if (blocked_.test(high_) && !blocked_.test(low)) {
            ++stats_.switches_on_blocked;
        } else if (params_.max_switch_cycles != 0 && cycles_at_high_ >= params_.max_switch_cycles &&
                   !blocked_.test(low)) {
            // (never forced onto a blocked type: the blocked rule would switch right back)
            ++stats_.switches_on_threshold;
        } else {
            return;
        }
        high_ = low;
        cycles_at_high_ = 0;
    }

    params_type params_;
    Inner inner_;
    stats_type stats_{};
    isa::unit_class high_;
    std::uint64_t cycles_at_high_ = 0;
    std::uint64_t unit2_ = 0; // with unit0_ and unit1_ below
    unit_set blocked_{};
    std::size_t width_ = 0;
    // The counts of the last select: in actv_ and rdy_ (select over views), or (by_masks_,
    // select_planes) as masks of the active subsets' live and ready warps and the unit class
    // bits, counted when asked.
    std::array<std::uint32_t, isa::unit_class_count> actv_{};
    std::array<std::uint32_t, isa::unit_class_count> rdy_{};
    // (No two unit class planes side by side: see view_planes.)
    bool by_masks_ = false;
    std::uint64_t live_ = 0;
    std::uint64_t unit0_ = 0;
    std::uint64_t ready_ = 0;
    std::uint64_t unit1_ = 0;
    std::array<warp_view, max_warps> subset_{};
};

/// GATES: two-level scheduling whose issue arbiter over the active set is gates_priority.
template <class Inner = lrr>
requires warp_scheduler<Inner>
class gates : public two_level<gates_priority<Inner>> {
    using base = two_level<gates_priority<Inner>>;

public:
    using params_type = typename base::params_type;
    using stats_type = typename base::stats_type;

    /// Short name for reports.
    static constexpr std::string_view kind = "gates";

    gates() = default;
    /// Throws config_error when `p` is out of range.
    explicit gates(const params_type& p) : base(p) {}

    /// Unit classes blocked by power gating (see gates_priority::set_blocked).
    void set_blocked(unit_set blocked) noexcept { this->inner().set_blocked(blocked); }
    [[nodiscard]] unit_set blocked() const noexcept { return this->inner().blocked(); }
    [[nodiscard]] isa::unit_class high_priority() const noexcept {
        return this->inner().high_priority();
    }
    [[nodiscard]] std::uint32_t actv(isa::unit_class u) const noexcept {
        return this->inner().actv(u);
    }
    [[nodiscard]] std::uint32_t rdy(isa::unit_class u) const noexcept {
        return this->inner().rdy(u);
    }
    /// INT_ACTV of the active set at the last select.
    [[nodiscard]] std::uint32_t int_actv() const noexcept { return this->inner().int_actv(); }
    /// FP_ACTV of the active set at the last select.
    [[nodiscard]] std::uint32_t fp_actv() const noexcept { return this->inner().fp_actv(); }
};

} // namespace warpkit::issue
