#pragma once
/// \file
/// Binary logistic regression over named inputs (paper 002, Section 4.1.3, eq. 2 and 5):
/// P = 1 / (1 + e^-(b0 + sum_i b_i x_i)), the probability that the kernel should run on
/// scale-up (fused) SMs. Inference only; logistic_fit.hpp trains a model.

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::reconfig {

/// The predictor's choice for a kernel: more, smaller SMs or fused pairs of SMs.
enum class scale_decision : std::uint8_t {
    scale_out, ///< keep the baseline SMs apart (P < 0.5)
    scale_up,  ///< fuse neighbouring SMs (P >= 0.5)
};

/// The logistic function 1 / (1 + e^-z), exact to rounding and free of overflow for any z.
[[nodiscard]] inline double logistic(double z) noexcept {
    // e^-z overflows for z below about -709; e^z cannot overflow on this branch.
    if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
    const double e = std::exp(z);
    return e / (1.0 + e);
}

/// log(1 + e^z) without overflow (the negative log-likelihood of a label-0 row).
[[nodiscard]] inline double log1p_exp(double z) noexcept {
    return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

/// scale_up when P >= 0.5, i.e. when the logit is >= 0 (the paper fuses on a positive sum).
[[nodiscard]] constexpr scale_decision decide(double logit) noexcept {
    return logit >= 0 ? scale_decision::scale_up : scale_decision::scale_out;
}

/// One prediction: the logit z, P = logistic(z) and the decision.
struct prediction {
    double logit = 0;
    double probability = 0.5;
    scale_decision decision = scale_decision::scale_up;
};

/// The prediction for logit `z`.
[[nodiscard]] inline prediction predict_from_logit(double z) noexcept {
    return {z, logistic(z), decide(z)};
}

/// A logistic-regression model: an intercept b0 and one weight per named input.
class logistic_regression {
public:
    logistic_regression() = default;

    /// A model over inputs `names` (distinct, non-empty) with finite coefficients; throws
    /// config_error naming the offending input otherwise.
    logistic_regression(std::vector<std::string> names, double intercept,
                        std::vector<double> weights)
        : names_(std::move(names)), intercept_(intercept), weights_(std::move(weights)) {
        if (names_.size() != weights_.size())
            throw config_error("weights", std::to_string(weights_.size()) + " values",
                               std::to_string(names_.size()) + " (one per input name)");
        if (!std::isfinite(intercept_))
            throw config_error("constant", std::to_string(intercept_), "a finite number");
        for (std::size_t i = 0; i < names_.size(); ++i) {
            if (names_[i].empty()) throw config_error("names", "''", "non-empty input names");
            if (!std::isfinite(weights_[i]))
                throw config_error(names_[i], std::to_string(weights_[i]), "a finite number");
            for (std::size_t j = 0; j < i; ++j)
                if (names_[j] == names_[i])
                    throw config_error(names_[i], "a second coefficient", "one per input");
        }
    }

    /// Input names, in coefficient order.
    [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
    /// b0, the constant term.
    [[nodiscard]] double intercept() const noexcept { return intercept_; }
    /// b1..bn, one per input.
    [[nodiscard]] const std::vector<double>& weights() const noexcept { return weights_; }
    /// Number of inputs.
    [[nodiscard]] std::size_t inputs() const noexcept { return weights_.size(); }
    /// Position of input `name`, or nullopt.
    [[nodiscard]] std::optional<std::size_t> index_of(std::string_view name) const noexcept {
        for (std::size_t i = 0; i < names_.size(); ++i)
            if (names_[i] == name) return i;
        return std::nullopt;
    }

    /// z = b0 + sum b_i x_i; `x` holds one value per input, in name order.
    [[nodiscard]] double logit(std::span<const double> x) const {
        WARPKIT_EXPECTS(x.size() == weights_.size());
        double z = intercept_;
        for (std::size_t i = 0; i < x.size(); ++i)
            z += weights_[i] * x[i];
        return z;
    }
    /// P(scale up | x).
    [[nodiscard]] double probability(std::span<const double> x) const { return logistic(logit(x)); }
    /// Logit, probability and decision for `x`.
    [[nodiscard]] prediction predict(std::span<const double> x) const {
        return predict_from_logit(logit(x));
    }

    friend bool operator==(const logistic_regression&, const logistic_regression&) = default;

private:
    std::vector<std::string> names_;
    double intercept_ = 0;
    std::vector<double> weights_;
};

} // namespace warpkit::reconfig

template <>
struct warpkit::enum_names<warpkit::reconfig::scale_decision> {
    static constexpr std::array<std::string_view, 2> names = {"scale_out", "scale_up"};
};
