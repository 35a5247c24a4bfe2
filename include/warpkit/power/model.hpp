#pragma once
/// \file
/// The power model of paper 001, eq. (1): power = sum over components of activity factor x
/// peak power + idle-SM power + leakage, with DRAM from eq. (2). The activity factor of a
/// component is its access count over (max_rate x cycles), so its dynamic energy is count x
/// peak_w / (max_rate x f): a fixed energy per access that scales with V^2.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/dram.hpp>
#include <warpkit/power/params.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::power {

/// Power of one SM over an interval (W).
struct sm_power {
    std::array<double, sm_component_count> dynamic_w{};
    std::array<double, sm_component_count> leakage_w{};
    double idle_w = 0; ///< idle-SM power for the cycles without work

    [[nodiscard]] double dynamic_total_w() const noexcept { return sum_from(idle_w, dynamic_w); }
    [[nodiscard]] double leakage_total_w() const noexcept { return sum_from(0.0, leakage_w); }
    [[nodiscard]] double total_w() const noexcept { return dynamic_total_w() + leakage_total_w(); }
};

/// Average power of an interval, per component (chip totals) and per SM.
struct power_breakdown {
    std::uint64_t cycles = 0;
    double seconds = 0;
    operating_point op{};
    std::array<double, component_count> dynamic_w{}; ///< activity x peak, summed over SMs
    std::array<double, component_count> leakage_w{};
    double idle_sm_w = 0;         ///< all idle-SM power
    double gating_overhead_w = 0; ///< lane clock-gating logic
    std::vector<sm_power> sms;

    /// Component dynamic power + idle SMs + gating overhead.
    [[nodiscard]] double dynamic_total_w() const noexcept {
        return sum_from(idle_sm_w + gating_overhead_w, dynamic_w);
    }
    [[nodiscard]] double leakage_total_w() const noexcept { return sum_from(0.0, leakage_w); }
    [[nodiscard]] double total_w() const noexcept { return dynamic_total_w() + leakage_total_w(); }
    [[nodiscard]] double energy_j() const noexcept { return total_w() * seconds; }
    /// Dynamic + leakage power of component `c`.
    [[nodiscard]] double component_w(component c) const noexcept {
        return dynamic_w[index(c)] + leakage_w[index(c)];
    }
};

/// Count of accesses of each SM component in `a` (rf_banks: reads + writes; scheduler and
/// pipeline: issued warp instructions).
[[nodiscard]] constexpr std::array<std::uint64_t, sm_component_count>
component_counts(const sm_activity& a) noexcept {
    return {a.decoded,
            a.icache_accesses,
            a.issued,
            a.rf_reads + a.rf_writes,
            a.collector_accesses,
            a.crossbar_transfers,
            a.shared_bank_accesses,
            a.shared_transfers,
            a.l1d_accesses,
            a.const_accesses,
            a.tex_accesses,
            a.prt_accesses,
            a.int_ops,
            a.fp_ops,
            a.sfu_ops,
            a.issued};
}

/// Activity factor of each SM component over `cycles`: count / (max_rate x cycles).
[[nodiscard]] inline std::array<double, sm_component_count>
activity_factors(const sm_activity& a, std::uint64_t cycles, const model_params& p) {
    std::array<double, sm_component_count> f{};
    if (cycles == 0) return f;
    const auto n = component_counts(a);
    for (std::size_t i = 0; i < sm_component_count; ++i)
        f[i] = static_cast<double>(n[i]) /
               (at(p, component_at(i)).max_rate * static_cast<double>(cycles));
    return f;
}

/// The eq. (1) model. The operating point passed to evaluate() is the SMs' (core clock
/// domain): their dynamic power scales as V^2 f, idle-SM power and the gating overhead too,
/// their leakage as V^k. L2, NoC, memory controllers and DRAM stay at the nominal point.
class model {
public:
    using params_type = model_params;

    explicit model(const model_params& p = {}) : p_(validated(p)) {
        for (std::size_t i = 0; i < sm_component_count + 3; ++i) {
            energy_j_[i] = at(p_, component_at(i)).energy_per_access_j(p_.nominal_mhz);
            leakage_w_[i] = at(p_, component_at(i)).leakage_w;
        }
    }

    [[nodiscard]] const model_params& params() const noexcept { return p_; }
    /// The nominal operating point (nominal_mhz, nominal_v).
    [[nodiscard]] operating_point nominal() const noexcept {
        return {p_.nominal_mhz, p_.nominal_v};
    }
    /// Energy of one access of component `c` (not DRAM) at nominal voltage (J).
    [[nodiscard]] double energy_per_access_j(component c) const {
        WARPKIT_EXPECTS(c != component::dram);
        return energy_j_[index(c)];
    }

    /// Average power over the interval `a` at the nominal operating point.
    [[nodiscard]] power_breakdown evaluate(const activity& a) const {
        power_breakdown b;
        evaluate(a, b, nominal());
        return b;
    }

    /// Average power over the interval `a` with the SMs at `op`. Reuses `out` (no allocation
    /// once `out.sms` has the SM count). An interval of 0 cycles draws nothing.
    void evaluate(const activity& a, power_breakdown& out, const operating_point& op) const {
        WARPKIT_EXPECTS(op.mhz > 0 && op.volts > 0);
        out.cycles = a.cycles;
        out.op = op;
        out.seconds = static_cast<double>(a.cycles) / (op.mhz * 1e6);
        out.dynamic_w.fill(0);
        out.leakage_w.fill(0);
        out.idle_sm_w = 0;
        out.gating_overhead_w = 0;
        out.sms.resize(a.sms.size());
        if (a.cycles == 0) {
            for (auto& s : out.sms)
                s = sm_power{};
            return;
        }
        const double v = op.volts / p_.nominal_v;
        const double dyn_scale = v * v;
        const double clock_scale = dyn_scale * op.mhz / p_.nominal_mhz;
        const double leak_scale = std::pow(v, p_.leakage_voltage_exponent);
        const double inv_t = 1.0 / out.seconds;
        const auto cycles = static_cast<double>(a.cycles);
        const bool gate = p_.lane_gating.enabled;
        const double lanes = p_.lane_gating.lanes;

        for (std::size_t s = 0; s < a.sms.size(); ++s) {
            const sm_activity& sa = a.sms[s];
            sm_power& sp = out.sms[s];
            const auto n = component_counts(sa);
            std::array<double, sm_component_count> work{};
            for (std::size_t i = 0; i < sm_component_count; ++i)
                work[i] = static_cast<double>(n[i]);
            if (gate) {
                // Only active lanes toggle: an instruction costs its active share of a full
                // warp; register-file rows, collectors and crossbar follow the operand lanes.
                // More active lanes than lanes exist are clamped: gating never costs more
                // than a full warp.
                const auto lane_work = [&](std::uint64_t lane_ops, std::uint64_t ops) {
                    return std::min(static_cast<double>(lane_ops) / lanes,
                                    static_cast<double>(ops));
                };
                work[index(component::int_alu)] = lane_work(sa.int_lanes, sa.int_ops);
                work[index(component::fp)] = lane_work(sa.fp_lanes, sa.fp_ops);
                work[index(component::sfu)] = lane_work(sa.sfu_lanes, sa.sfu_ops);
                const double rows = static_cast<double>(sa.rf_reads + sa.rf_writes);
                const double share =
                    rows > 0 ? std::min(1.0, static_cast<double>(sa.operand_lanes) / (lanes * rows))
                             : 0.0;
                for (component c :
                     {component::rf_banks, component::operand_collectors, component::rf_crossbar})
                    work[index(c)] *= share;
            }
            for (std::size_t i = 0; i < sm_component_count; ++i) {
                sp.dynamic_w[i] = work[i] * energy_j_[i] * dyn_scale * inv_t;
                out.dynamic_w[i] += sp.dynamic_w[i];
                const auto off = std::min<std::uint64_t>(sa.leakage_off_cycles[i], a.cycles);
                sp.leakage_w[i] =
                    leakage_w_[i] * leak_scale * static_cast<double>(a.cycles - off) / cycles;
                out.leakage_w[i] += sp.leakage_w[i];
            }
            const auto active = std::min<std::uint64_t>(sa.active_cycles, a.cycles);
            sp.idle_w =
                p_.idle_sm_w * clock_scale * static_cast<double>(a.cycles - active) / cycles;
            out.idle_sm_w += sp.idle_w;
        }

        const chip_activity& c = a.chip;
        const std::array<std::uint64_t, 3> chip_counts = {c.l2_accesses, c.noc_flits,
                                                          c.mc_requests};
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t i = sm_component_count + k;
            out.dynamic_w[i] = static_cast<double>(chip_counts[k]) * energy_j_[i] * inv_t;
            out.leakage_w[i] = leakage_w_[i];
        }
        out.dynamic_w[index(component::dram)] = dram_energy_j(c.dram, p_.dram) * inv_t;
        if (gate) out.gating_overhead_w = p_.lane_gating.overhead_w * clock_scale;
    }

private:
    model_params p_;
    std::array<double, component_count> energy_j_{};
    std::array<double, component_count> leakage_w_{};
};

/// Multiplies the peak power of component `c` by `x` (for DRAM: its four energies), as the
/// LSE refinement's scaling factor x_i does (eq. 4).
inline void scale_component(model_params& p, component c, double x) {
    if (c == component::dram) {
        p.dram.precharge_nj *= x;
        p.dram.activate_nj *= x;
        p.dram.read_nj *= x;
        p.dram.write_nj *= x;
        return;
    }
    at(p, c).peak_w *= x;
}

} // namespace warpkit::power
