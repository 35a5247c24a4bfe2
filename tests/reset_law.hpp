#pragma once
// The reset law every observable component obeys (core/concepts.hpp): two twins driven by
// the same inputs, one reset after a warm-up; afterwards the reset twin's stats are the other
// twin's minus its stats at the moment of the reset.
#include <warpkit/core/stats.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>

namespace reset_law {

/// Builds twins with `make()`, advances both with `step(twin, i)` for i < warm, resets one with
/// `reset(twin)`, then advances both up to warm + more. Checks that the reset twin reads all
/// zeros (in the same shape) right after the reset, and the unreset twin's stats minus the
/// snapshot at the end. Both windows must have counted something, or the law could not fail.
template <class Make, class Step, class StatsOf, class Reset>
void check(Make make, Step step, StatsOf stats_of, Reset reset, std::size_t warm,
           std::size_t more) {
    auto a = make();
    auto b = make();
    std::size_t i = 0;
    for (; i < warm; ++i) {
        step(a, i);
        step(b, i);
    }
    const auto snapshot = stats_of(a);
    auto zero = snapshot;
    warpkit::reset_counters(zero);
    reset(b);
    const std::string zero_text = warpkit::stats_to_csv(zero);
    CHECK(warpkit::stats_to_csv(stats_of(b)) == zero_text);
    CHECK(warpkit::stats_to_csv(snapshot) != zero_text);
    for (; i < warm + more; ++i) {
        step(a, i);
        step(b, i);
    }
    auto expected = stats_of(a);
    warpkit::subtract(expected, snapshot);
    CHECK(warpkit::stats_to_csv(expected) != zero_text);
    CHECK(warpkit::stats_to_csv(stats_of(b)) == warpkit::stats_to_csv(expected));
}

/// The same with `twin.component.stats()` and `twin.component.reset_stats()`.
template <class Make, class Step>
void check(Make make, Step step, std::size_t warm, std::size_t more) {
    check(
        make, step, [](const auto& t) { return t.component.stats(); },
        [](auto& t) { t.component.reset_stats(); }, warm, more);
}

} // namespace reset_law
