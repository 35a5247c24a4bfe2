#pragma once
/// \file
/// The core contracts: components that tick, and the params / stats structs every component
/// exposes.

#include <warpkit/core/reflect.hpp>

#include <concepts>

namespace warpkit {

/// A stateful component advanced one cycle of its clock by `tick()`; it changes only itself.
template <class T>
concept tickable = requires(T& t) {
    t.tick();
};

/// A tickable that reports whether it did anything (false: idle, a caller may skip it).
template <class T>
concept reporting_tickable = requires(T& t) {
    { t.tick() } -> std::convertible_to<bool>;
};

/// A component exposing reflected `params` (read-only after construction) and `stats`, whose
/// counters `reset_stats()` restarts from zero without touching its state, so a warm-up can be
/// left out of a measurement. The reset law (checked in each area's laws test): run, reset, run
/// on; the stats equal those of an unreset twin minus its stats at the moment of the reset.
template <class T>
concept observable_component = requires(const T& t, T& m) {
    typename T::params_type;
    typename T::stats_type;
    { t.params() } -> std::convertible_to<const typename T::params_type&>;
    { t.stats() } -> std::convertible_to<const typename T::stats_type&>;
    m.reset_stats();
}
&&reflectable<typename T::params_type>&& reflectable<typename T::stats_type>;

} // namespace warpkit
