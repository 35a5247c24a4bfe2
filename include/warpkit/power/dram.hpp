#pragma once
/// \file
/// DRAM dynamic energy and power from counted commands (paper 001, eq. 2):
/// P = (E_pre c_pre + E_act c_act + E_wr c_wr + E_rd c_rd) / execution time.

#include <warpkit/power/activity.hpp>
#include <warpkit/power/params.hpp>

namespace warpkit::power {

/// Energy of the counted DRAM commands (J).
[[nodiscard]] constexpr double dram_energy_j(const dram_ops& ops,
                                             const dram_energy_params& e) noexcept {
    return 1e-9 * (e.precharge_nj * static_cast<double>(ops.precharges) +
                   e.activate_nj * static_cast<double>(ops.activates) +
                   e.write_nj * static_cast<double>(ops.writes) +
                   e.read_nj * static_cast<double>(ops.reads));
}

/// Average DRAM dynamic power over `seconds` of execution (W); 0 for an empty interval.
[[nodiscard]] constexpr double dram_power_w(const dram_ops& ops, const dram_energy_params& e,
                                            double seconds) noexcept {
    return seconds > 0 ? dram_energy_j(ops, e) / seconds : 0.0;
}

} // namespace warpkit::power
