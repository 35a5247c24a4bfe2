#pragma once
/// \file
/// Static-energy accounting of a gated block, in units of the block's leakage per cycle:
/// every cycle not gated leaks one unit, every gating event costs break_even units.

#include <warpkit/gating/params.hpp>
#include <warpkit/gating/stats.hpp>

#include <cstdint>

namespace warpkit::gating {

/// Static energy of the block: (cycles - gated cycles) + break_even x gating events.
[[nodiscard]] constexpr std::uint64_t static_energy(const stats& s, const params& p) noexcept {
    return s.cycles - s.gated_cycles() + std::uint64_t{p.break_even} * s.gating_events;
}

/// Net saving over the same cycles without gating: gated cycles - break_even x gating events
/// (negative when the events cost more than the gated cycles saved).
[[nodiscard]] constexpr std::int64_t net_savings(const stats& s, const params& p) noexcept {
    return static_cast<std::int64_t>(s.gated_cycles()) -
           static_cast<std::int64_t>(std::uint64_t{p.break_even} * s.gating_events);
}

/// Static-energy saving as a fraction of a never-gated run of `baseline_cycles` cycles
/// (which leaks one unit per cycle): 1 - static_energy / baseline_cycles; 0 if the baseline
/// is empty. May be negative.
[[nodiscard]] constexpr double static_energy_savings(const stats& s, const params& p,
                                                     std::uint64_t baseline_cycles) noexcept {
    if (baseline_cycles == 0) return 0.0;
    return 1.0 - static_cast<double>(static_energy(s, p)) / static_cast<double>(baseline_cycles);
}

/// Static-energy saving against never gating over the same cycles: net_savings / cycles.
[[nodiscard]] constexpr double static_energy_savings(const stats& s, const params& p) noexcept {
    return static_energy_savings(s, p, s.cycles);
}

} // namespace warpkit::gating
