#pragma once
/// \file
/// Contracts of the power area.

#include <concepts>
#include <cstddef>

namespace warpkit::power {

/// What a DVFS policy sees at the end of an epoch of one voltage / frequency domain.
struct epoch_view {
    std::size_t state = 0;         ///< P-state in force (0 = fastest)
    std::size_t states = 1;        ///< number of P-states
    double memory_stall_share = 0; ///< share of the epoch's time stalled on memory
    bool idle = false;             ///< no SM of the domain had work in the epoch
};

/// A DVFS policy: reads an epoch_view (changes nothing) and returns the P-state it wants next.
template <class P>
concept dvfs_policy = requires(const P& p, const epoch_view& v) {
    { p.decide(v) } -> std::convertible_to<std::size_t>;
};

} // namespace warpkit::power
