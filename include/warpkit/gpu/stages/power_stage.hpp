#pragma once
/// \file
/// `power_stage`: power gating and type adaptation of an SM's INT and FP clusters (Warped
/// Gates Sections 2.2, 4.1, 5, 5.1, 6). Per cycle: power() (before issue) powers each cluster
/// by its controller's state for this cycle and says which types are blocked for the
/// scheduler and which are on or may wake for issue (type_demand); issue lets a scheduler pick
/// an instruction whose type has no cluster on but one a wakeup may start from (the pick is
/// the wakeup request, the instruction waits); gate() (after issue) describes the cycle to
/// every controller: busy = the cluster's pipeline held an instruction, demand = an
/// instruction of the type wanted a cluster that was not on. With adaptive idle-detect the
/// two clusters of a type share one idle-detect register, tuned from the type's critical
/// wakeups (adapt).

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/idle_detect_tuner.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace warpkit::gpu {

/// `Base`'s gating decisions against an idle-detect register shared by all clusters of one
/// unit type: how an SM runs `gating::adaptive_idle_detect<Base>`. Warped Gates (Sections 5.1
/// and 6) keeps one critical-wakeup counter and one idle-detect register per type (INT, FP),
/// read by the idle-detect logic of both clusters of the type; the SM counts the type's
/// critical wakeups in its own idle_detect_tuner and loads the register after every cycle.
template <gating::policy Base>
class shared_idle_detect {
public:
    static constexpr bool blackout = Base::blackout;

    explicit shared_idle_detect(const gating::params& p) : base_(p), value_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "adaptive_idle_detect<" + Base::name() + ">"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return value_; }
    [[nodiscard]] gating::decision decide(const gating::gate_view& v) const noexcept {
        return base_.decide(v);
    }
    gating::adaptation end_cycle(bool critical) noexcept {
        static_cast<void>(base_.end_cycle(critical));
        return gating::adaptation::none; // the type's tuner adapts, not the cluster
    }
    /// Loads the register (the one piece of the policy written from outside).
    void load(std::uint32_t idle_detect) noexcept { value_ = idle_detect; }

private:
    Base base_;
    std::uint32_t value_;
};

namespace detail {
/// The policy an SM gives each INT / FP cluster's controller for the policy `P` it is asked for.
template <class P>
struct cluster_policy {
    using type = P;
    static constexpr bool per_type_idle_detect = false;
};
template <class B>
struct cluster_policy<gating::adaptive_idle_detect<B>> {
    using type = shared_idle_detect<B>;
    static constexpr bool per_type_idle_detect = true;
};
} // namespace detail

/// Adaptive idle-detect counters of one unit type (kept by the SM for shared registers).
struct type_adaptation_stats {
    std::uint64_t epochs = 0;
    std::uint64_t critical_wakeups = 0; ///< of both clusters, as the type's counter saw them
    std::uint64_t idle_detect_increments = 0;
    std::uint64_t idle_detect_decrements = 0;
    WARPKIT_FIELDS(type_adaptation_stats, epochs, critical_wakeups, idle_detect_increments,
                   idle_detect_decrements)
};

namespace stages {

/// Power gating of the INT and FP clusters of `sp_count` SPs each under `GatingPolicy`.
template <class GatingPolicy>
class power_stage {
public:
    /// Controller of one INT or FP cluster (adaptive idle-detect runs as shared_idle_detect).
    using controller_type = gating::controller<typename detail::cluster_policy<GatingPolicy>::type>;
    /// True when idle-detect adapts per unit type (one register for the clusters of a type).
    static constexpr bool per_type_idle_detect =
        detail::cluster_policy<GatingPolicy>::per_type_idle_detect;
    /// True for the policy that never gates (its clusters are always on, which power() and
    /// gate() then take as given).
    static constexpr bool never_gates = std::is_same_v<GatingPolicy, gating::no_gating>;

    power_stage(std::uint32_t sp_count, const gating::params& p) : sps_(sp_count) {
        for (std::size_t c = 0; c < 2 * std::size_t{sp_count}; ++c)
            gates_.emplace_back(p);
        if constexpr (per_type_idle_detect)
            for (std::size_t t = 0; t < 2; ++t)
                tuners_.emplace_back(p);
    }

    /// Start of a cycle: powers each cluster of `units` (exec::execution_units, INT clusters
    /// then FP clusters first) by its controller's state; clears the demand counts. Returns
    /// the types whose clusters are all in blackout (GATES gives up their priority, paper 003
    /// Section 5; a waking cluster serves within wakeup_delay cycles).
    template <class Units>
    issue::unit_set power(Units& units) {
        if constexpr (never_gates) {
            for (std::size_t c = 0; c < gates_.size(); ++c)
                units[c].set_powered(true);
            demand_ = type_demand{};
            demand_.on = {true, true};
            return {};
        }
        issue::unit_set blocked;
        for (std::size_t t = 0; t < 2; ++t) {
            bool on = false;
            bool waking = false;
            bool may_wake = false;
            for (std::size_t k = 0; k < sps_; ++k) {
                const auto& g = gates_[t * sps_ + k];
                units[t * sps_ + k].set_powered(g.can_issue());
                on = on || g.can_issue();
                waking = waking || g.state() == gating::power_state::waking;
                may_wake = may_wake || (g.gated() && !g.in_blackout());
            }
            demand_.on[t] = on;
            // One wakeup at a time per type: while a cluster wakes, instructions wait for it.
            demand_.wakeable[t] = may_wake && !waking;
            if (!on && !waking && !may_wake) blocked.set(unit_of_type(t));
        }
        demand_.unplaced = {};
        demand_.ready_ops = {};
        return blocked;
    }

    /// End of a cycle: each controller of `units` sees its cluster's cycle. `type_active(u)`
    /// counts the active warps whose next instruction is of unit class u; at most
    /// `issue_width` ready instructions count as demand while a type can neither issue nor
    /// wake.
    template <class Units, class TypeActive>
    void gate(const Units& units, std::uint32_t issue_width, TypeActive&& type_active) {
        if constexpr (never_gates) {
            // Every cluster stays on: no demand is placed on one and no sibling is gated;
            // each controller sees whether its pipeline was busy (its idle periods).
            for (std::size_t c = 0; c < gates_.size(); ++c)
                gates_[c].tick_never_gating(units[c].busy());
            return;
        }
        for (std::size_t t = 0; t < 2; ++t) {
            // Instructions that wanted a cluster that was not on: picks that found no free
            // cluster on (wakeup requests, or waits for a waking or blacked-out cluster), or,
            // while no cluster is on and none may wake, the instructions ready to issue to it.
            std::uint32_t want = demand_.unplaced[t];
            if (!demand_.on[t] && !demand_.wakeable[t])
                want = std::min(demand_.ready_ops[t], issue_width);
            const std::array<bool, 16> demand = place_demand_(t, want);
            std::array<bool, 16> gated{};
            for (std::size_t k = 0; k < sps_; ++k)
                gated[k] = gates_[t * sps_ + k].gated();
            const std::uint32_t actv = type_active(unit_of_type(t));
            std::uint64_t critical = 0;
            for (std::size_t k = 0; k < sps_; ++k) {
                auto& g = gates_[t * sps_ + k];
                bool sibling_gated = false;
                for (std::size_t j = 0; j < sps_; ++j)
                    sibling_gated = sibling_gated || (j != k && gated[j]);
                const std::uint64_t before = g.stats().critical_wakeups;
                (void)g.tick(gating::cycle_input{demand[k], units[t * sps_ + k].busy(), actv,
                                                 sibling_gated});
                critical += g.stats().critical_wakeups - before;
            }
            if constexpr (per_type_idle_detect) adapt_(t, critical);
        }
    }

    /// The port to issue: which types are on or may wake, and issue's counts for gate().
    [[nodiscard]] type_demand& demand() noexcept { return demand_; }
    [[nodiscard]] const type_demand& demand() const noexcept { return demand_; }
    /// Gating controllers of the INT clusters (0 .. sp_count-1) then the FP clusters.
    [[nodiscard]] const std::vector<controller_type>& gates() const noexcept { return gates_; }
    /// The idle-detect threshold in force for unit type `u` (int_alu or fp).
    [[nodiscard]] std::uint32_t idle_detect(isa::unit_class u) const {
        WARPKIT_EXPECTS(gated_type(u));
        return gates_[type_of(u) * sps_].idle_detect();
    }
    /// Adaptive idle-detect counters of unit type `u` (zero unless per_type_idle_detect).
    [[nodiscard]] const type_adaptation_stats& adaptation(isa::unit_class u) const {
        WARPKIT_EXPECTS(gated_type(u));
        return adaptation_[type_of(u)];
    }
    /// Restarts the counters of the controllers and the adaptation from zero.
    void reset_stats() {
        adaptation_ = {};
        for (auto& g : gates_)
            g.reset_stats();
    }
    /// Closes the open idle periods of the controllers (call once at the end).
    void finish() {
        for (auto& g : gates_)
            g.finish();
    }

private:
    // The clusters of type `t` the `want` instructions that found none on ask for: a waking
    // cluster serves first, then one a wakeup may start from (lowest index first), then one
    // in blackout (the demand only stalls there).
    [[nodiscard]] std::array<bool, 16> place_demand_(std::size_t t, std::uint32_t want) const {
        std::array<bool, 16> demand{};
        for (int pass = 0; pass < 3 && want > 0; ++pass)
            for (std::size_t k = 0; k < sps_ && want > 0; ++k) {
                const auto& g = gates_[t * sps_ + k];
                if (g.can_issue() || demand[k]) continue;
                const int rank = g.state() == gating::power_state::waking ? 0
                                 : g.in_blackout()                        ? 2
                                                                          : 1;
                if (rank != pass) continue;
                demand[k] = true;
                --want;
            }
        return demand;
    }

    // The type's idle-detect register: one critical-wakeup counter for both clusters.
    void adapt_(std::size_t t, std::uint64_t critical) {
        auto& tuner = tuners_[t];
        auto& a = adaptation_[t];
        a.critical_wakeups += critical;
        for (std::uint64_t i = 0; i < critical; ++i)
            tuner.record_critical();
        switch (tuner.end_cycle()) {
        case gating::adaptation::none:
            return;
        case gating::adaptation::kept:
            break;
        case gating::adaptation::raised:
            ++a.idle_detect_increments;
            break;
        case gating::adaptation::lowered:
            ++a.idle_detect_decrements;
            break;
        }
        ++a.epochs;
        for (std::size_t k = 0; k < sps_; ++k)
            gates_[t * sps_ + k].policy().load(tuner.value());
    }

    std::size_t sps_;
    std::vector<controller_type> gates_;
    std::vector<gating::idle_detect_tuner> tuners_;     // per type, if per_type_idle_detect
    std::array<type_adaptation_stats, 2> adaptation_{}; // per type: INT, FP
    type_demand demand_{};
};

} // namespace stages
} // namespace warpkit::gpu
