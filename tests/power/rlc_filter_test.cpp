#include <warpkit/core/error.hpp>
#include <warpkit/power/rlc_filter.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wp = warpkit::power;
using power_test::near;

namespace {
// Time the sampled response `y` (samples dt apart, y[i] at (i + 1) dt) first reaches `level`,
// interpolated linearly.
double crossing(const std::vector<double>& y, double dt, double level) {
    double prev = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        if (y[i] >= level) return (static_cast<double>(i) + (level - prev) / (y[i] - prev)) * dt;
        prev = y[i];
    }
    return -1;
}
} // namespace

TEST_CASE("step response: 0.18 us rise time and 15 % overshoot within 2 %") {
    const double dt = 1e-9;
    wp::rlc_filter f(wp::rlc_params{}, dt);
    f.reset(0);
    std::vector<double> y;
    for (int i = 0; i < 3000; ++i)
        y.push_back(f.step(1.0));
    const double rise = crossing(y, dt, 0.9) - crossing(y, dt, 0.1);
    const double overshoot = *std::max_element(y.begin(), y.end()) - 1.0;
    CHECK(rise == near(0.18e-6, 0.02));
    CHECK(overshoot == near(0.15, 0.02));
    CHECK(y.back() == near(1.0, 0.01)); // unit DC gain
    // Damping from the overshoot: zeta = -ln 0.15 / sqrt(pi^2 + ln^2 0.15) = 0.517.
    CHECK(f.damping() == near(0.5169, 0.001));
}

TEST_CASE("other shapes: 1 us rise, 5 % overshoot") {
    const double dt = 2e-9;
    wp::rlc_filter f(wp::rlc_params{1.0, 0.05}, dt);
    f.reset(0);
    std::vector<double> y;
    for (int i = 0; i < 5000; ++i)
        y.push_back(f.step(2.0) / 2.0);
    CHECK(crossing(y, dt, 0.9) - crossing(y, dt, 0.1) == near(1e-6, 0.02));
    CHECK(*std::max_element(y.begin(), y.end()) - 1.0 == near(0.05, 0.02));
}

TEST_CASE("coarse samples land on the continuous response (exact hold discretisation)") {
    wp::rlc_filter fine(wp::rlc_params{}, 1e-9);
    wp::rlc_filter coarse(wp::rlc_params{}, 50e-9);
    fine.reset(0);
    coarse.reset(0);
    for (int k = 1; k <= 20; ++k) {
        double y = 0;
        for (int i = 0; i < 50; ++i)
            y = fine.step(1.0);
        CHECK(coarse.step(1.0) == near(y, 1e-9));
    }
}

TEST_CASE("a constant trace passes unchanged; bad params are rejected") {
    wp::rlc_filter f(wp::rlc_params{}, 1e-6);
    const std::vector<double> flat(50, 123.0);
    for (double v : f.apply(flat))
        CHECK(v == near(123.0));
    CHECK_THROWS_AS(wp::rlc_filter(wp::rlc_params{0.18, 0.0}, 1e-9), warpkit::config_error);
    CHECK_THROWS_AS(wp::rlc_filter(wp::rlc_params{-1, 0.15}, 1e-9), warpkit::config_error);
}
