#pragma once
/// \file
/// Analytic area and power of one multiprocessor versus its number of streaming processors
/// (paper 004, Chapter 5): a fixed part (scheduler, caches, control), a part linear in the
/// SPs (datapaths, register-file partitions) and a part quadratic in them (the detection of
/// non-coalesced shared-memory accesses compares every pair of lane addresses, and the banks
/// grow with the SPs). The three coefficients are calibrated to the paper's Table 5.3 and
/// scaled to its Tesla synthesis (Table 5.2: 16 multiprocessors of 8 SPs, 25.41 mm^2 and
/// 11.55 W at 300 MHz in 65 nm).

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <Eigen/Core>
#include <Eigen/LU>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace warpkit::ppa {

/// What to calibrate to: Table 5.3 of paper 004 (percent per doubling of SPs, starting at
/// `first_sps`) and the per-multiprocessor area / power of the Tesla configuration.
struct scaling_targets {
    std::uint32_t first_sps = 4;
    /// Increase in processors per unit area when doubling: 4->8, 8->16, 16->32, 32->64.
    std::array<double, 4> area_gain_pct = {83, 81, 32, -5};
    /// Reduction in total power per processor when doubling.
    std::array<double, 4> power_reduction_pct = {49, 47, 32, 8};
    std::uint32_t anchor_sps = 8;        ///< the Tesla multiprocessor
    double anchor_area_mm2 = 25.41 / 16; ///< Table 5.2 area / 16 multiprocessors
    double anchor_power_w = 11.55 / 16;  ///< Table 5.2 power / 16 multiprocessors
    void validate() const {
        check_range("first_sps", first_sps, 1U, 1024U);
        check_range("anchor_sps", anchor_sps, 1U, 4096U);
        check(anchor_area_mm2 > 0, "anchor_area_mm2", anchor_area_mm2, "> 0");
        check(anchor_power_w > 0, "anchor_power_w", anchor_power_w, "> 0");
        for (std::size_t i = 0; i < 4; ++i) {
            check(area_gain_pct[i] > -100 && area_gain_pct[i] < 100, "area_gain_pct",
                  area_gain_pct[i], "(-100, 100)");
            check(power_reduction_pct[i] > -100 && power_reduction_pct[i] < 100,
                  "power_reduction_pct", power_reduction_pct[i], "(-100, 100)");
        }
    }
    WARPKIT_FIELDS(scaling_targets, first_sps, area_gain_pct, power_reduction_pct, anchor_sps,
                   anchor_area_mm2, anchor_power_w)
};

/// c0 + c1 n + c2 n^2.
struct quadratic {
    double c0 = 0;
    double c1 = 0;
    double c2 = 0;
    [[nodiscard]] constexpr double operator()(double n) const noexcept {
        return c0 + c1 * n + c2 * n * n;
    }
    WARPKIT_FIELDS(quadratic, c0, c1, c2)
};

/// Area (mm^2) and power (W) of one multiprocessor as functions of its SP count.
class sm_scaling_model {
public:
    sm_scaling_model(quadratic area, quadratic power) : area_(area), power_(power) {}

    /// The model whose doubling figures best match `t` (least squares over the percentages,
    /// Gauss-Newton with damping) and whose value at anchor_sps is the anchor.
    [[nodiscard]] static sm_scaling_model calibrate(const scaling_targets& t = {}) {
        validate(t);
        const auto area_pct = [](const quadratic& q, double n) {
            return 100.0 * (2.0 * q(n) / q(2 * n) - 1.0);
        };
        const auto power_pct = [](const quadratic& q, double n) {
            return 100.0 * (1.0 - q(2 * n) / (2.0 * q(n)));
        };
        const quadratic a = fit(t, t.area_gain_pct, area_pct, t.anchor_area_mm2);
        const quadratic p = fit(t, t.power_reduction_pct, power_pct, t.anchor_power_w);
        return {a, p};
    }

    [[nodiscard]] double area_mm2(double sps) const noexcept { return area_(sps); }
    [[nodiscard]] double power_w(double sps) const noexcept { return power_(sps); }
    /// Percent more SPs per unit area when going from `sps` to 2 x `sps` per multiprocessor.
    [[nodiscard]] double area_gain_pct(double sps) const noexcept {
        return 100.0 * (2.0 * area_(sps) / area_(2 * sps) - 1.0);
    }
    /// Percent less power per SP when going from `sps` to 2 x `sps`.
    [[nodiscard]] double power_reduction_pct(double sps) const noexcept {
        return 100.0 * (1.0 - power_(2 * sps) / (2.0 * power_(sps)));
    }
    /// Smallest SP count (among powers of two from `from`) at which doubling the SPs gives
    /// fewer SPs per unit area: from there on, adding multiprocessors beats wider ones.
    [[nodiscard]] double crossover_sps(double from = 4, double limit = 4096) const noexcept {
        for (double n = from; n <= limit; n *= 2)
            if (area_gain_pct(n) < 0) return n;
        return 0;
    }
    [[nodiscard]] const quadratic& area() const noexcept { return area_; }
    [[nodiscard]] const quadratic& power() const noexcept { return power_; }

private:
    template <class Metric>
    static quadratic fit(const scaling_targets& t, const std::array<double, 4>& target,
                         Metric metric, double anchor_value) {
        // Shape q(n) = 1 + u0 n + u1 n^2 (scale-free), coefficients kept non-negative.
        Eigen::Vector2d u(0.01, 0.001);
        const auto shape = [](const Eigen::Vector2d& v) { return quadratic{1.0, v[0], v[1]}; };
        const auto residuals = [&](const Eigen::Vector2d& v) {
            Eigen::Vector4d r;
            double n = t.first_sps;
            for (int i = 0; i < 4; ++i, n *= 2)
                r[i] = metric(shape(v), n) - target[static_cast<std::size_t>(i)];
            return r;
        };
        double lambda = 1e-3;
        for (int it = 0; it < 200; ++it) {
            const Eigen::Vector4d r = residuals(u);
            Eigen::Matrix<double, 4, 2> j;
            for (int k = 0; k < 2; ++k) {
                Eigen::Vector2d h = u;
                const double step = std::max(1e-9, std::abs(u[k]) * 1e-6);
                h[k] += step;
                j.col(k) = (residuals(h) - r) / step;
            }
            const Eigen::Matrix2d jtj = j.transpose() * j;
            const Eigen::Vector2d g = j.transpose() * r;
            Eigen::Matrix2d damped = jtj;
            damped.diagonal() *= 1.0 + lambda;
            Eigen::Vector2d next = u - damped.inverse() * g;
            next = next.cwiseMax(0.0);
            if (residuals(next).squaredNorm() < r.squaredNorm()) {
                u = next;
                lambda *= 0.3;
            } else {
                lambda *= 10;
            }
            if (lambda > 1e12) break;
        }
        const quadratic q = shape(u);
        const double scale = anchor_value / q(t.anchor_sps);
        return {q.c0 * scale, q.c1 * scale, q.c2 * scale};
    }

    quadratic area_;
    quadratic power_;
};

} // namespace warpkit::ppa
