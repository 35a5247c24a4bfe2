#pragma once
/// \file
/// AMOEBA's scalability predictor (paper 002, Section 4.1.3, Table 2, Figure 20): a logistic
/// regression over the scalability metrics of a kernel's first CTA that says whether the
/// kernel should run on fused (scale-up) or baseline (scale-out) SMs.
///
/// Which side is "scale up": the paper's P is the probability of fusing two SMs (the text
/// under eq. 5), and Section 5.3 reads the model the same way: a positive impact b_i x_i
/// pushes towards scale up and a positive sum fuses. So P >= 0.5 (z >= 0) -> scale_up.
/// Under that reading Table 2 makes high coalescing rate, L1I miss rate and CTA count push
/// towards fusing, as Section 4.1.2 argues for coalescing and L1 misses; its signs for control
/// divergence (+), MSHR rate (-), NoC (-), L1D and L1C miss rates (-) run against Section
/// 4.1.2's one-metric arguments (divergent kernels prefer scale out; high MSHR rates, a
/// congested NoC and high L1 miss rates prefer scale up). Reversing the convention would not
/// reconcile them (coalescing and L1I would then disagree) and would contradict Sections 4.1.3
/// and 5.3, so the coefficients are used as printed: they are one jointly fitted model, and
/// a coefficient's sign in such a model need not match the metric's effect on its own.

#include <warpkit/core/error.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::reconfig {

/// One bar of Figure 20: a term's impact magnitude b_i x_i and its share of the total.
struct impact_term {
    std::string_view name;
    double impact = 0; ///< b_i x_i (the constant: b0)
    double share = 0;  ///< impact / sum of |impact| over all terms, in [-1, 1]
};

/// Number of terms of the Figure 20 breakdown: the constant and eight metric groups.
inline constexpr std::size_t impact_term_count = 9;

/// Names of the Figure 20 terms; the three L1 miss rates form one term, as in the paper.
inline constexpr std::array<std::string_view, impact_term_count> impact_term_names = {
    "constant", "concurrent_cta", "control_divergent", "coalescing", "l1_miss",
    "mshr",     "load_rate",      "store_rate",        "noc"};

/// Figure 20 for one metric vector. Section 5.3 defines a metric's impact magnitude as its
/// coefficient times its measured value, shows it between -1 and 1, merges the L1D, L1I and
/// L1C miss rates into one L1 miss term, and decides by the sign of the sum. It does not say
/// how the impacts are scaled into [-1, 1]; warpkit divides each by the sum of the absolute
/// impacts. The constant is a term of its own: without it the sum would not be the model's
/// logit and its sign would not be the decision. No per-metric typical ranges are needed.
struct impact_breakdown {
    std::array<impact_term, impact_term_count> terms{};
    double logit = 0; ///< sum of the impacts = b0 + sum b_i x_i
    scale_decision decision = scale_decision::scale_up;
};

/// The scalability predictor over scalability_metrics: an intercept and one weight per metric.
class scalability_predictor {
public:
    using weight_array = std::array<double, metric_count>;

    /// A predictor with constant `intercept` and `weights` in the order of metric_names.
    constexpr scalability_predictor(double intercept, const weight_array& weights) noexcept
        : intercept_(intercept), weights_(weights) {}

    /// Table 2 of paper 002.
    [[nodiscard]] static constexpr scalability_predictor table2() noexcept {
        return {-73.635,
                {/* concurrent_cta */ 1.414, /* control_divergent */ 444.628,
                 /* coalescing */ 2057.050, /* l1d_miss */ -313.838, /* l1i_miss */ 1674.513,
                 /* l1c_miss */ -67.277, /* mshr */ -102.971, /* load_rate */ -680.786,
                 /* store_rate */ -804.7, /* noc */ -8.301}};
    }

    /// The predictor of a model whose inputs are metric keys (any subset, any order; the
    /// metrics it lacks get weight 0). Throws config_error naming an input that is not a
    /// metric.
    [[nodiscard]] static scalability_predictor from(const logistic_regression& m) {
        weight_array w{};
        for (std::size_t i = 0; i < m.inputs(); ++i) {
            const auto k = metric_index(m.names()[i]);
            if (!k) throw config_error(m.names()[i], "an input", "a metric: " + metric_list());
            w[*k] = m.weights()[i];
        }
        return {m.intercept(), w};
    }

    /// The same model as a logistic_regression over all ten metrics.
    [[nodiscard]] logistic_regression to_model() const {
        return {std::vector<std::string>(metric_names.begin(), metric_names.end()), intercept_,
                std::vector<double>(weights_.begin(), weights_.end())};
    }

    /// b0.
    [[nodiscard]] constexpr double intercept() const noexcept { return intercept_; }
    /// b_i in the order of metric_names.
    [[nodiscard]] constexpr const weight_array& weights() const noexcept { return weights_; }
    /// The weight of metric `name`; throws config_error for an unknown name.
    [[nodiscard]] double weight(std::string_view name) const {
        const auto k = metric_index(name);
        if (!k) throw config_error(std::string(name), "a metric name", metric_list());
        return weights_[*k];
    }

    /// z = b0 + sum b_i x_i.
    [[nodiscard]] constexpr double logit(const scalability_metrics& m) const noexcept {
        double z = intercept_;
        for (std::size_t i = 0; i < metric_count; ++i)
            z += weights_[i] * (m.*metric_fields[i]);
        return z;
    }
    /// P(scale up) = 1 / (1 + e^-z).
    [[nodiscard]] double probability(const scalability_metrics& m) const noexcept {
        return logistic(logit(m));
    }
    /// Logit, probability and decision.
    [[nodiscard]] prediction predict(const scalability_metrics& m) const noexcept {
        return predict_from_logit(logit(m));
    }

    /// The Figure 20 breakdown of the prediction for `m`.
    [[nodiscard]] impact_breakdown impact(const scalability_metrics& m) const noexcept {
        const auto x = to_array(m);
        const auto bx = [&](std::size_t i) { return weights_[i] * x[i]; };
        impact_breakdown r;
        const std::array<double, impact_term_count> v = {
            intercept_, bx(0), bx(1), bx(2), bx(3) + bx(4) + bx(5), bx(6), bx(7), bx(8), bx(9)};
        double total = 0;
        for (std::size_t t = 0; t < impact_term_count; ++t) {
            r.terms[t].name = impact_term_names[t];
            r.terms[t].impact = v[t];
            total += std::abs(v[t]);
        }
        for (auto& t : r.terms)
            t.share = total > 0 ? t.impact / total : 0.0;
        // The model's own sum, so the breakdown never disagrees with predict() by rounding.
        r.logit = logit(m);
        r.decision = decide(r.logit);
        return r;
    }

private:
    double intercept_;
    weight_array weights_;
};

} // namespace warpkit::reconfig
