#pragma once
/// \file
/// The board's power-delivery network as a second-order low-pass filter (paper 001, Section
/// 4.3.1, Fig. 10): rise time 0.18 us and 15 % overshoot by default. Applied to a simulated
/// power trace it reproduces the RLC ramps and ringing of a measured one. The filter is
/// discretised exactly for inputs held constant over each sample (zero-order hold), so a
/// sampled step response equals the continuous one at the sample instants.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

namespace warpkit::power {

/// Step-response shape of the filter. Rise time is 10 % to 90 % of the final value.
struct rlc_params {
    double rise_time_us = 0.18;
    double overshoot = 0.15; ///< maximum overshoot as a share of the step (0 < overshoot < 1)
    void validate() const {
        check(std::isfinite(rise_time_us) && rise_time_us > 0, "rise_time_us", rise_time_us, "> 0");
        check(overshoot > 0 && overshoot < 1, "overshoot", overshoot, "(0, 1)");
    }
    WARPKIT_FIELDS(rlc_params, rise_time_us, overshoot)
};

namespace detail {
// Unit step response of w'' + 2 z wn w' + wn^2 w = wn^2 u with wn = 1, underdamped.
[[nodiscard]] inline double unit_step(double zeta, double t) noexcept {
    const double wd = std::sqrt(1 - zeta * zeta);
    return 1 - std::exp(-zeta * t) * (std::cos(wd * t) + zeta / wd * std::sin(wd * t));
}
// First time the normalised response reaches `level` (it rises monotonically up to its
// first peak at pi / wd).
[[nodiscard]] inline double first_crossing(double zeta, double level) noexcept {
    double lo = 0;
    double hi = std::numbers::pi / std::sqrt(1 - zeta * zeta);
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (unit_step(zeta, mid) < level ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}
} // namespace detail

/// Second-order low-pass filter y'' + 2 zeta wn y' + wn^2 y = wn^2 u, sampled every `dt`.
class rlc_filter {
public:
    using params_type = rlc_params;

    /// A filter for samples `dt_seconds` apart.
    rlc_filter(const rlc_params& p, double dt_seconds) : p_(validated(p)) {
        WARPKIT_EXPECTS(std::isfinite(dt_seconds) && dt_seconds > 0);
        const double l = std::log(p_.overshoot);
        zeta_ = -l / std::sqrt(std::numbers::pi * std::numbers::pi + l * l);
        const double span = detail::first_crossing(zeta_, 0.9) - detail::first_crossing(zeta_, 0.1);
        wn_ = span / (p_.rise_time_us * 1e-6);
        // Exact transition over dt: e^{A dt} and the response to a unit input held for dt.
        const double s = zeta_ * wn_;
        const double wd = wn_ * std::sqrt(1 - zeta_ * zeta_);
        const double e = std::exp(-s * dt_seconds);
        const double c = std::cos(wd * dt_seconds);
        const double sn = std::sin(wd * dt_seconds);
        a00_ = e * (c + s / wd * sn);
        a01_ = e * sn / wd;
        a10_ = -e * wn_ * wn_ / wd * sn;
        a11_ = e * (c - s / wd * sn);
        b0_ = 1 - a00_;
        b1_ = e * wn_ * wn_ / wd * sn;
    }

    [[nodiscard]] const rlc_params& params() const noexcept { return p_; }
    /// Damping ratio from the overshoot: zeta = -ln(Mp) / sqrt(pi^2 + ln^2 Mp).
    [[nodiscard]] double damping() const noexcept { return zeta_; }
    /// Natural frequency (rad/s) from the rise time.
    [[nodiscard]] double natural_frequency() const noexcept { return wn_; }

    /// Starts from rest at `value` (output and input equal, no slope).
    void reset(double value = 0) noexcept {
        y_ = value;
        dy_ = 0;
    }
    /// Feeds one input sample (held over the sample period); returns the output at the end.
    double step(double u) noexcept {
        const double y = a00_ * y_ + a01_ * dy_ + b0_ * u;
        const double dy = a10_ * y_ + a11_ * dy_ + b1_ * u;
        y_ = y;
        dy_ = dy;
        return y_;
    }
    /// Filters a whole trace, starting from rest at its first value.
    [[nodiscard]] std::vector<double> apply(std::span<const double> in) {
        std::vector<double> out;
        out.reserve(in.size());
        reset(in.empty() ? 0.0 : in.front());
        for (double u : in)
            out.push_back(step(u));
        return out;
    }

private:
    rlc_params p_;
    double zeta_ = 0;
    double wn_ = 0;
    double a00_ = 0, a01_ = 0, a10_ = 0, a11_ = 0, b0_ = 0, b1_ = 0;
    double y_ = 0;
    double dy_ = 0;
};

} // namespace warpkit::power
