#pragma once
/// \file
/// Numbers of the power model: per component a peak dynamic power, the access rate at which
/// it is reached and a leakage power; DRAM per-operation energies; the idle-SM power; the
/// nominal operating point. Defaults describe a 40 nm GTX480-class chip (paper 001).
///
/// Where the paper gives a number it is used: 700 MHz and 1.0 V nominal (Sections 4, 5.1),
/// 41.9 W modelled leakage (Table 4), the 0.3 W lane-gating overhead (Section 5.2). The paper
/// gives no per-component peak powers, so the defaults are derived: they are the per-access
/// energies that make the GTX480 reference activity (power/reference.hpp, a Rodinia-like mix
/// on all 15 SMs) draw about 88 W of dynamic power split as in Fig. 12 (execution units
/// 20.1 %, DRAM 17.8 %, register file 13 %, pipeline 11.4 %, memory controller 4.8 %), times
/// the access rate at which each structure is fully busy. Users replace them with McPAT /
/// CACTI figures or refine them against measurements (power/calibration.hpp).

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/power/component.hpp>

#include <cmath>
#include <cstdint>

namespace warpkit::power {

/// Peak dynamic power, the access rate that reaches it, and leakage of one component.
/// SM components: per SM, rate in accesses per core cycle of that SM. Chip components: for
/// the whole chip, rate in accesses per core cycle.
struct component_params {
    double peak_w = 0;    ///< dynamic power at activity factor 1 (nominal V and f)
    double max_rate = 1;  ///< accesses per core cycle that make the activity factor 1
    double leakage_w = 0; ///< leakage at nominal voltage
    void validate() const {
        check(std::isfinite(peak_w) && peak_w >= 0, "peak_w", peak_w, "a finite number >= 0");
        check(std::isfinite(max_rate) && max_rate > 0, "max_rate", max_rate, "a finite number > 0");
        check(std::isfinite(leakage_w) && leakage_w >= 0, "leakage_w", leakage_w,
              "a finite number >= 0");
    }
    WARPKIT_FIELDS(component_params, peak_w, max_rate, leakage_w)

    /// Energy of one access at nominal voltage (J): peak_w / (max_rate x f).
    [[nodiscard]] double energy_per_access_j(double mhz) const noexcept {
        return peak_w / (max_rate * mhz * 1e6);
    }
};

/// DRAM energy per operation (eq. 2). Defaults: GDDR5, 64-byte bursts per read / write,
/// derived so the reference activity's DRAM power is 17.8 % of its dynamic power.
struct dram_energy_params {
    double precharge_nj = 3;
    double activate_nj = 7;
    double read_nj = 15;
    double write_nj = 16;
    void validate() const {
        for (const auto& [n, v] :
             {std::pair{"precharge_nj", precharge_nj}, std::pair{"activate_nj", activate_nj},
              std::pair{"read_nj", read_nj}, std::pair{"write_nj", write_nj}})
            check(std::isfinite(v) && v >= 0, n, v, "a finite number >= 0");
    }
    WARPKIT_FIELDS(dram_energy_params, precharge_nj, activate_nj, read_nj, write_nj)
};

/// Lane-level clock gating (Section 5.2): only active SIMD lanes of the execution units,
/// operand collectors and register-file crossbar toggle, register-file accesses are gated
/// per 32-bit lane column; the extra AND gates and flip-flops (32 lanes x 24 stages per SM)
/// cost `overhead_w` whatever the activity.
struct lane_gating_params {
    bool enabled = false;
    double overhead_w = 0.3;  ///< whole chip, nominal V and f
    std::uint32_t lanes = 32; ///< SIMD lanes per warp instruction
    void validate() const {
        check(std::isfinite(overhead_w) && overhead_w >= 0, "overhead_w", overhead_w,
              "a finite number >= 0");
        check_range("lanes", lanes, 1U, 64U);
    }
    WARPKIT_FIELDS(lane_gating_params, enabled, overhead_w, lanes)
};

/// Every number of the model (eq. 1 plus eq. 2). Dynamic power scales as V^2 f from the
/// nominal point, leakage as V^leakage_voltage_exponent (1: leakage ~ V).
struct model_params {
    double nominal_mhz = 700;
    double nominal_v = 1.0;
    double leakage_voltage_exponent = 1.0;
    /// Dynamic power of an SM with no work (clock tree, control), per SM (Section 2.6).
    double idle_sm_w = 1.5;
    component_params front_end{0.69, 2, 0.12};
    component_params icache{0.415, 2, 0.05};
    component_params scheduler{0.50, 2, 0.05};
    component_params rf_banks{6.96, 32, 0.50}; ///< 16 dual-ported banks: 32 row accesses
    component_params operand_collectors{1.47, 16, 0.08};
    component_params rf_crossbar{1.16, 16, 0.05};  ///< 16 x 16, 1024 bits per port
    component_params shared_memory{0.90, 1, 0.20}; ///< one pass over the 32 banks per cycle
    component_params shared_crossbar{0.54, 1, 0.04};
    component_params l1d{1.80, 1, 0.15};
    component_params const_cache{0.45, 1, 0.03};
    component_params tex_cache{1.35, 1, 0.06};
    component_params coalescer{0.72, 1, 0.02};
    component_params int_alu{2.42, 2, 0.35}; ///< SP0 + SP1: two warp instructions per cycle
    component_params fp{3.87, 2, 0.45};
    component_params sfu{2.42, 0.25, 0.15}; ///< 4 SFUs: a warp instruction every 4 cycles
    component_params pipeline{1.67, 2, 0.05};
    component_params l2{25.1, 6, 3.5};        ///< 6 slices, one 128-byte access each per cycle
    component_params noc{33.5, 24, 1.5};      ///< 32-byte flits
    component_params mem_ctrl{40.2, 6, 1.65}; ///< 6 controllers, one request each per cycle
    dram_energy_params dram{};
    lane_gating_params lane_gating{};
    void validate() const {
        check(std::isfinite(nominal_mhz) && nominal_mhz > 0, "nominal_mhz", nominal_mhz, "> 0");
        check(std::isfinite(nominal_v) && nominal_v > 0, "nominal_v", nominal_v, "> 0");
        check(std::isfinite(leakage_voltage_exponent) && leakage_voltage_exponent >= 0,
              "leakage_voltage_exponent", leakage_voltage_exponent, "a finite number >= 0");
        check(std::isfinite(idle_sm_w) && idle_sm_w >= 0, "idle_sm_w", idle_sm_w,
              "a finite number >= 0");
    }
    WARPKIT_FIELDS(model_params, nominal_mhz, nominal_v, leakage_voltage_exponent, idle_sm_w,
                   front_end, icache, scheduler, rf_banks, operand_collectors, rf_crossbar,
                   shared_memory, shared_crossbar, l1d, const_cache, tex_cache, coalescer, int_alu,
                   fp, sfu, pipeline, l2, noc, mem_ctrl, dram, lane_gating)
};

/// The params of component `c` (DRAM has none: its energies are `dram`; asking for it is a
/// contract error).
[[nodiscard]] inline component_params& at(model_params& p, component c) {
    using C = component;
    switch (c) {
    case C::front_end:
        return p.front_end;
    case C::icache:
        return p.icache;
    case C::scheduler:
        return p.scheduler;
    case C::rf_banks:
        return p.rf_banks;
    case C::operand_collectors:
        return p.operand_collectors;
    case C::rf_crossbar:
        return p.rf_crossbar;
    case C::shared_memory:
        return p.shared_memory;
    case C::shared_crossbar:
        return p.shared_crossbar;
    case C::l1d:
        return p.l1d;
    case C::const_cache:
        return p.const_cache;
    case C::tex_cache:
        return p.tex_cache;
    case C::coalescer:
        return p.coalescer;
    case C::int_alu:
        return p.int_alu;
    case C::fp:
        return p.fp;
    case C::sfu:
        return p.sfu;
    case C::pipeline:
        return p.pipeline;
    case C::l2:
        return p.l2;
    case C::noc:
        return p.noc;
    case C::mem_ctrl:
        return p.mem_ctrl;
    default:
        break;
    }
    throw contract_error("power::at: DRAM is priced per operation (model_params::dram)");
}

/// Read-only access to the params of component `c` (not DRAM).
[[nodiscard]] inline const component_params& at(const model_params& p, component c) {
    return at(const_cast<model_params&>(p), c);
}

/// A clock frequency and supply voltage.
struct operating_point {
    double mhz = 700;
    double volts = 1.0;
    WARPKIT_FIELDS(operating_point, mhz, volts)
};

} // namespace warpkit::power
