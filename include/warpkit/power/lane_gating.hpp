#pragma once
/// \file
/// Lane-level clock gating during branch divergence (paper 001, Section 5.2): counting the
/// active lanes of each warp instruction into an SM's activity, and the dynamic power the
/// gating saves (idle-lane share of the gated components minus the gating logic's overhead).

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/model.hpp>

#include <cstdint>

namespace warpkit::power {

/// Counts one issued warp instruction with active lanes `active`, executing on `unit`,
/// reading `reads` and writing `writes` register-file rows (each read goes through the
/// crossbar into an operand collector). Memory and control instructions count as issued only.
template <std::size_t N>
void count_instruction(sm_activity& a, isa::unit_class unit, lane_mask<N> active,
                       std::uint32_t reads, std::uint32_t writes) noexcept {
    const auto lanes = static_cast<std::uint64_t>(active.count());
    ++a.issued;
    ++a.decoded;
    a.rf_reads += reads;
    a.rf_writes += writes;
    a.collector_accesses += reads;
    a.crossbar_transfers += reads;
    a.operand_lanes += lanes * (std::uint64_t{reads} + writes);
    switch (unit) {
    case isa::unit_class::int_alu:
        ++a.int_ops;
        a.int_lanes += lanes;
        break;
    case isa::unit_class::fp:
    case isa::unit_class::dp:     // no FP64 datapath of its own in the power model
    case isa::unit_class::tensor: // nor a tensor datapath: both count as FP
        ++a.fp_ops;
        a.fp_lanes += lanes;
        break;
    case isa::unit_class::sfu:
        ++a.sfu_ops;
        a.sfu_lanes += lanes;
        break;
    default:
        break;
    }
}

/// Dynamic power of one interval with and without lane clock gating.
struct lane_gating_result {
    double ungated_dynamic_w = 0; ///< no gating: every lane toggles
    double gated_dynamic_w = 0;   ///< active lanes only, plus the gating overhead
    double overhead_w = 0;
    /// Saved dynamic power (may be negative when nothing diverges).
    [[nodiscard]] double saved_w() const noexcept { return ungated_dynamic_w - gated_dynamic_w; }
    /// Saved share of the ungated dynamic power.
    [[nodiscard]] double saving() const noexcept {
        return ungated_dynamic_w > 0 ? saved_w() / ungated_dynamic_w : 0.0;
    }
};

/// Evaluates `a` with `p` twice, lane gating off and on (p.lane_gating.enabled is ignored).
/// Only processor power is compared (Fig. 17): DRAM is left out.
[[nodiscard]] inline lane_gating_result compare_lane_gating(const activity& a, model_params p) {
    p.lane_gating.enabled = false;
    const auto off = model(p).evaluate(a);
    p.lane_gating.enabled = true;
    const auto on = model(p).evaluate(a);
    lane_gating_result r;
    r.ungated_dynamic_w = off.dynamic_total_w() - off.dynamic_w[index(component::dram)];
    r.gated_dynamic_w = on.dynamic_total_w() - on.dynamic_w[index(component::dram)];
    r.overhead_w = on.gating_overhead_w;
    return r;
}

} // namespace warpkit::power
