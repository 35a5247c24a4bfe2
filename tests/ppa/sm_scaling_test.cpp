#include <warpkit/ppa/sm_scaling.hpp>

#include <doctest/doctest.h>

#include <cmath>

using warpkit::ppa::quadratic;
using warpkit::ppa::scaling_targets;
using warpkit::ppa::sm_scaling_model;

TEST_CASE("doubling figures of a hand-made model") {
    // A(n) = 1 + n^2 / 64: A(4) = 1.25, A(8) = 2 -> 2 x 1.25 / 2 - 1 = 25 % more SPs per area.
    const sm_scaling_model m(quadratic{1, 0, 1.0 / 64}, quadratic{1, 0.25, 0});
    CHECK(m.area_gain_pct(4) == doctest::Approx(25.0));
    // P(n) = 1 + n / 4: P(4) = 2, P(8) = 3 -> 1 - 3 / 4 = 25 % less power per SP.
    CHECK(m.power_reduction_pct(4) == doctest::Approx(25.0));
    // A(8) = 2, A(16) = 5: 2 x 2 / 5 - 1 < 0, so SMs beat wider SMs from 8 SPs on.
    CHECK(m.crossover_sps() == 8);
}

TEST_CASE("calibrated to paper 004 Table 5.3 and Table 5.2") {
    const auto m = sm_scaling_model::calibrate();
    const scaling_targets t;
    // Anchored at the Tesla multiprocessor (8 SPs): 25.41 mm^2 and 11.55 W over 16 MPs.
    CHECK(m.area_mm2(8) == doctest::Approx(25.41 / 16).epsilon(1e-9));
    CHECK(m.power_w(8) == doctest::Approx(11.55 / 16).epsilon(1e-9));
    double n = 4;
    double worst_area = 0;
    double worst_power = 0;
    for (std::size_t i = 0; i < 4; ++i, n *= 2) {
        worst_area = std::max(worst_area, std::abs(m.area_gain_pct(n) - t.area_gain_pct[i]));
        worst_power =
            std::max(worst_power, std::abs(m.power_reduction_pct(n) - t.power_reduction_pct[i]));
    }
    // A smooth fixed + linear + quadratic model cannot follow the synthesis step between
    // 8->16 (81 %) and 16->32 (32 %) exactly: its least-squares fit is 89.6 / 72.7 / 36.9 /
    // -6.8 % against 83 / 81 / 32 / -5 % (power: 48.1 / 44.7 / 34.2 / 7.4 against 49 / 47 /
    // 32 / 8). No such model does better than 7.3 points on area (minimax).
    CHECK(worst_area < 8.5);
    CHECK(worst_power < 2.5);
    // The calibration is a least-squares optimum: nudging a shape coefficient makes it worse.
    const auto sse = [&](const quadratic& q) {
        double e = 0;
        double k = 4;
        for (std::size_t i = 0; i < 4; ++i, k *= 2) {
            const double g = 100.0 * (2.0 * q(k) / q(2 * k) - 1.0) - t.area_gain_pct[i];
            e += g * g;
        }
        return e;
    };
    const quadratic a = m.area();
    const double best = sse(a);
    for (double f : {0.98, 1.02}) {
        CHECK(sse(quadratic{a.c0, a.c1 * f, a.c2}) > best);
        CHECK(sse(quadratic{a.c0, a.c1, a.c2 * f}) > best);
    }
    // The paper's conclusion: 32 SPs per multiprocessor is the sweet spot; beyond it, adding
    // multiprocessors gives more SPs per area than widening them.
    CHECK(m.crossover_sps() == 32);
    CHECK(m.area_gain_pct(16) > 0);
    // Every coefficient is a physical (non-negative) cost.
    CHECK(m.area().c0 > 0);
    CHECK(m.area().c1 >= 0);
    CHECK(m.area().c2 > 0);
    CHECK(m.power().c2 >= 0);
}

TEST_CASE("bad calibration targets are rejected") {
    scaling_targets t;
    t.anchor_area_mm2 = 0;
    CHECK_THROWS_AS((void)sm_scaling_model::calibrate(t), warpkit::config_error);
    scaling_targets u;
    u.area_gain_pct[1] = 150;
    CHECK_THROWS_AS((void)sm_scaling_model::calibrate(u), warpkit::config_error);
}
