#pragma once
/// \file
/// `selectable_power_stage`: the power stage of an SM whose gating policy is
/// gating::selectable (every preset's): a std::variant of the power_stage of every static
/// policy (gating::selectable_policies), built for the kind params choose
/// (gating::params::policy), with each call going to it. A run with kind K therefore gates,
/// adapts and counts exactly as an SM built with K's static policy type. `power_stage_for<P>`
/// names the stage an SM with gating policy P runs.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/controller_ref.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gating/selectable.hpp>
#include <warpkit/gpu/stages/power_stage.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace warpkit::gpu::stages {

namespace detail {
template <class Tuple>
struct selectable_parts;
template <class... Ps>
struct selectable_parts<std::tuple<Ps...>> {
    using stage = std::variant<power_stage<Ps>...>;
    using controllers = gating::controller_span<typename gpu::detail::cluster_policy<Ps>::type...>;
};
} // namespace detail

/// Power gating of the INT and FP clusters under the policy `params::policy` names (see the
/// file comment); the same interface as power_stage. `Policies`: the static policies in
/// policy_kind order (a template, so that a file that never builds one does not compile the
/// six stages).
template <class Policies = gating::selectable_policies>
class selectable_power_stage {
public:
    /// The controllers of the clusters, whatever the kind: a range of controller_ref.
    using controller_span = typename detail::selectable_parts<Policies>::controllers;
    /// One controller, seen through its const accessors.
    using controller_type = typename controller_span::value_type;
    /// Whether idle-detect adapts per unit type depends on the kind (adaptive kinds do);
    /// per_type_idle_detect() says so at run time.
    static constexpr bool per_type_idle_detect = false;

    /// The stage of kind `p.policy`. Throws config_error for a value that names no kind.
    selectable_power_stage(std::uint32_t sp_count, const gating::params& p)
        : stage_(make_(sp_count, p, std::make_index_sequence<std::variant_size_v<stage_type>>{})) {}

    /// The policy running.
    [[nodiscard]] gating::policy_kind kind() const noexcept {
        return static_cast<gating::policy_kind>(stage_.index());
    }
    /// True when idle-detect adapts per unit type (the adaptive kinds).
    [[nodiscard]] bool adapts_per_type() const noexcept {
        return std::visit([](const auto& s) { return s.per_type_idle_detect; }, stage_);
    }

    /// See power_stage::power.
    template <class Units>
    issue::unit_set power(Units& units) {
        return std::visit([&](auto& s) { return s.power(units); }, stage_);
    }
    /// See power_stage::gate. Only a policy that reads the active-warp counts gets
    /// `type_active`: counting takes a pass over the warps, which a static stage's inlined
    /// gate() drops when its policy ignores the count, and the dispatch would keep.
    template <class Units, class TypeActive>
    void gate(const Units& units, std::uint32_t issue_width, TypeActive&& type_active) {
        std::visit(
            [&]<class P>(power_stage<P>& s) {
                if constexpr (gating::reads_type_active<P>)
                    s.gate(units, issue_width, type_active);
                else
                    s.gate(units, issue_width, [](isa::unit_class) { return std::uint32_t{0}; });
            },
            stage_);
    }
    /// See power_stage::demand.
    [[nodiscard]] type_demand& demand() noexcept {
        return std::visit([](auto& s) -> type_demand& { return s.demand(); }, stage_);
    }
    [[nodiscard]] const type_demand& demand() const noexcept {
        return std::visit([](const auto& s) -> const type_demand& { return s.demand(); }, stage_);
    }
    /// Gating controllers of the INT clusters (0 .. sp_count-1) then the FP clusters.
    [[nodiscard]] controller_span gates() const noexcept {
        return std::visit(
            [](const auto& s) {
                return controller_span(std::span(s.gates().data(), s.gates().size()));
            },
            stage_);
    }
    /// See power_stage::idle_detect.
    [[nodiscard]] std::uint32_t idle_detect(isa::unit_class u) const {
        return std::visit([u](const auto& s) { return s.idle_detect(u); }, stage_);
    }
    /// See power_stage::adaptation.
    [[nodiscard]] const type_adaptation_stats& adaptation(isa::unit_class u) const {
        return std::visit(
            [u](const auto& s) -> const type_adaptation_stats& { return s.adaptation(u); }, stage_);
    }
    /// See power_stage::reset_stats.
    void reset_stats() {
        std::visit([](auto& s) { s.reset_stats(); }, stage_);
    }
    /// See power_stage::finish.
    void finish() {
        std::visit([](auto& s) { s.finish(); }, stage_);
    }

private:
    using stage_type = typename detail::selectable_parts<Policies>::stage;

    template <std::size_t... I>
    [[nodiscard]] static stage_type make_(std::uint32_t sp_count, const gating::params& p,
                                          std::index_sequence<I...>) {
        std::optional<stage_type> made;
        const auto index = static_cast<std::size_t>(p.policy);
        static_cast<void>(
            ((index == I ? (made.emplace(std::in_place_index<I>, sp_count, p), true) : false) ||
             ...));
        if (!made)
            throw config_error("policy", std::to_string(index),
                               warpkit::detail::enum_choices<gating::policy_kind>());
        return std::move(*made);
    }

    stage_type stage_;
};

/// The power stage an SM with gating policy P runs: selectable_power_stage for
/// gating::selectable, else power_stage<P>.
template <class P>
using power_stage_for = std::conditional_t<std::is_same_v<P, gating::selectable>,
                                           selectable_power_stage<>, power_stage<P>>;

} // namespace warpkit::gpu::stages
