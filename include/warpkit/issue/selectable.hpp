#pragma once
/// \file
/// `selectable`: a warp scheduler whose policy is a parameter (`kind`), so a GPU built with it
/// runs lrr, rr, gto, two-level or GATES scheduling as its params say: the presets use it,
/// and `--set scheduler.kind=gates` changes any preset's policy at run time without another
/// compiled GPU type. The policy sits in a std::variant of the five static schedulers and
/// each call goes to the chosen one, so a run with kind K issues exactly as the static
/// scheduler K does. A simulator that fixes its policy at compile time uses the static type
/// itself and saves the dispatch.

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_stats.hpp>
#include <warpkit/issue/two_level.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>

namespace warpkit::issue {

/// The policies `selectable` can run, by the name each static scheduler reports as `kind`.
enum class scheduler_kind : std::uint8_t {
    loose_round_robin,  ///< "lrr"
    round_robin,        ///< "rr"
    greedy_then_oldest, ///< "gto"
    two_level_lrr,      ///< "two_level"
    gates_lrr           ///< "gates"
};

} // namespace warpkit::issue

template <>
struct warpkit::enum_names<warpkit::issue::scheduler_kind> {
    static constexpr std::array<std::string_view, 5> names = {"lrr", "rr", "gto", "two_level",
                                                              "gates"};
};

namespace warpkit::issue {

/// Params of `selectable`: which policy runs and the params of the policies that have any
/// (lrr, rr and gto have none). Only the chosen policy's params are used.
struct scheduler_choice {
    /// The policy (GTX480: gto, paper 003 Section 2.1's baseline).
    scheduler_kind kind = scheduler_kind::greedy_then_oldest;
    /// Two-level scheduling over lrr (kind two_level).
    two_level<lrr>::params_type two_level{};
    /// GATES over lrr (kind gates, paper 003).
    gates<lrr>::params_type gates{};
    WARPKIT_FIELDS(scheduler_choice, kind, two_level, gates)
};

/// Counters of `selectable`: the issue counters every policy has (the chosen policy's own
/// counters, such as GATES' priority switches, come from the static scheduler's stats).
struct selectable_stats {
    scheduler_stats issue{};
    WARPKIT_FIELDS(selectable_stats, issue)
};

namespace detail {
/// The issue counters inside a static scheduler's stats `s`: `s` itself (lrr), its `issue`
/// member (rr, gto, GATES) or those of its inner policy (two-level).
template <class Stats>
[[nodiscard]] const scheduler_stats& issue_counters(const Stats& s) noexcept {
    if constexpr (std::is_same_v<Stats, scheduler_stats>)
        return s;
    else if constexpr (requires { s.issue; })
        return s.issue;
    else
        return issue_counters(s.inner);
}
} // namespace detail

/// A warp scheduler running the policy its params choose (see the file comment).
class selectable {
public:
    using params_type = scheduler_choice;
    using stats_type = selectable_stats;
    /// Warp ids are below this (that of the five static schedulers).
    static constexpr std::size_t max_warps = issue::max_warps;
    /// Short name for reports: the policy's own name is kind_name().
    static constexpr std::string_view kind = "selectable";

    selectable() : selectable(params_type{}) {}
    /// Throws config_error when the chosen policy's params are out of range.
    explicit selectable(const params_type& p) : params_(validated(p)), policy_(make(p)) {}

    /// The chosen policy's name ("gto", "gates"...).
    [[nodiscard]] std::string_view kind_name() const noexcept {
        return enum_names<scheduler_kind>::names[static_cast<std::size_t>(params_.kind)];
    }
    /// True when the chosen policy picks from the issuable views alone (gto, lrr).
    [[nodiscard]] bool issuable_only() const noexcept {
        return std::holds_alternative<gto>(policy_) || std::holds_alternative<lrr>(policy_);
    }
    /// See warp_scheduler: the chosen policy's picks.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        return std::visit([&](auto& s) { return s.select(views, width); }, policy_);
    }
    /// See warp_scheduler.
    void notify_issued(const issue_list& done) {
        std::visit([&](auto& s) { s.notify_issued(done); }, policy_);
    }
    /// See issue::idle_cycle.
    void idle_cycle(std::size_t width) {
        std::visit([&](auto& s) { issue::idle_cycle(s, width); }, policy_);
    }
    /// The unit classes power gating blocks, for GATES; the other policies do not look.
    void set_blocked(unit_set blocked) noexcept {
        if (auto* g = std::get_if<gates<lrr>>(&policy_)) g->set_blocked(blocked);
    }
    /// True when the policy counts the active warps of each class itself (GATES' INT_ACTV and
    /// FP_ACTV); the SM counts them otherwise.
    [[nodiscard]] bool counts_active() const noexcept {
        return std::holds_alternative<gates<lrr>>(policy_);
    }
    /// GATES' active-subset count of class `u`; 0 under the other policies (counts_active()).
    [[nodiscard]] std::uint32_t actv(isa::unit_class u) const noexcept {
        const auto* g = std::get_if<gates<lrr>>(&policy_);
        return g != nullptr ? g->actv(u) : 0;
    }

    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    /// The chosen policy's issue counters (every static scheduler keeps them).
    [[nodiscard]] stats_type stats() const {
        return std::visit(
            [](const auto& s) { return stats_type{detail::issue_counters(s.stats())}; }, policy_);
    }
    /// Restarts the policy's counters (the scheduling state stays).
    void reset_stats() {
        std::visit([](auto& s) { s.reset_stats(); }, policy_);
    }

private:
    using policy_type = std::variant<lrr, rr, gto, two_level<lrr>, gates<lrr>>;

    [[nodiscard]] static policy_type make(const params_type& p) {
        switch (p.kind) {
        case scheduler_kind::loose_round_robin:
            return lrr{};
        case scheduler_kind::round_robin:
            return rr{};
        case scheduler_kind::greedy_then_oldest:
            return gto{};
        case scheduler_kind::two_level_lrr:
            return two_level<lrr>(p.two_level);
        case scheduler_kind::gates_lrr:
            return gates<lrr>(p.gates);
        }
        throw config_error("kind", std::to_string(static_cast<unsigned>(p.kind)),
                           "lrr, rr, gto, two_level or gates");
    }

    params_type params_;
    policy_type policy_;
};

} // namespace warpkit::issue
