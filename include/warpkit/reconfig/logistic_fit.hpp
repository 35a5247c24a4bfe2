#pragma once
/// \file
/// Offline training of the scalability predictor (paper 002, Section 4.1.3: the model is
/// "trained using a large amount of offline experimental data"): maximum-likelihood binary
/// logistic regression by Newton's method (iteratively reweighted least squares), with an
/// optional L2 penalty lambda/2 * sum b_i^2 on the weights (never on the intercept).
///
/// Each Newton step solves (A^T W A + L) d = g through a column-pivoting Householder QR of
/// [W^1/2 A; L^1/2] (A = [1, standardised inputs], W = diag(p(1-p))), which also gives the
/// standard errors. Inputs are centred and scaled internally for conditioning; the penalty
/// is transformed so that it acts on the coefficients of the raw inputs.
///
/// Failures are fit_errors that say why: one label only, too few rows, a constant or
/// collinear set of columns (named), linearly separable data (the maximum-likelihood
/// coefficients are infinite: a certificate is an iterate that classifies every row
/// correctly), or no convergence.
///
/// The Eigen QR is instantiated only where fit_logistic_regression() is called (it is a
/// template): keep those calls in few translation units.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <Eigen/Core>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::reconfig {

/// Training parameters.
struct fit_params {
    double l2 = 0; ///< L2 penalty lambda on the weights; 0: plain ML
    /// Stop when the Newton decrement < tol * (deviance + 0.1) and the largest step of a
    /// (standardised) coefficient < sqrt(tol) * (1 + largest coefficient).
    double tolerance = 1e-10;
    std::uint32_t max_iterations = 100; ///< Newton steps before giving up
    WARPKIT_FIELDS(fit_params, l2, tolerance, max_iterations)

    void validate() const {
        check(std::isfinite(l2) && l2 >= 0, "l2", l2, "a finite number >= 0");
        check(tolerance > 0 && tolerance <= 1e-2, "tolerance", tolerance, "(0, 0.01]");
        check_range<std::uint32_t>("max_iterations", max_iterations, 1, 10000);
    }
};

/// Why a fit failed.
enum class fit_failure : std::uint8_t {
    one_class,    ///< every label is the same
    too_few_rows, ///< fewer rows than coefficients (without L2)
    singular,     ///< constant or collinear columns (without L2)
    separable,    ///< linearly separable labels (without L2): infinite coefficients
    not_converged ///< max_iterations reached
};

/// A training failure: the kind, a headline, the reason and the columns involved.
class fit_error : public error {
public:
    fit_error(fit_failure kind, std::string headline, std::string reason,
              std::vector<std::string> columns = {})
        : error(headline + " (" + reason + ")" + remedy(kind)), kind_(kind),
          headline_(std::move(headline)), reason_(std::move(reason)), columns_(std::move(columns)) {
    }

    [[nodiscard]] fit_failure kind() const noexcept { return kind_; }
    /// E.g. "the data are linearly separable".
    [[nodiscard]] const std::string& headline() const noexcept { return headline_; }
    /// The evidence, e.g. which columns are collinear.
    [[nodiscard]] const std::string& reason() const noexcept { return reason_; }
    /// Columns involved (constant or collinear ones), in input order.
    [[nodiscard]] const std::vector<std::string>& columns() const noexcept { return columns_; }

private:
    static std::string remedy(fit_failure k) {
        switch (k) {
        case fit_failure::separable:
            return "; use L2 regularisation (l2 > 0)";
        case fit_failure::singular:
            return "; drop columns or use L2 regularisation (l2 > 0)";
        case fit_failure::too_few_rows:
            return "; add rows or use L2 regularisation (l2 > 0)";
        case fit_failure::not_converged:
            return "; raise max_iterations or use l2 > 0";
        case fit_failure::one_class:
            break;
        }
        return "; the training data need rows of both labels";
    }
    fit_failure kind_;
    std::string headline_;
    std::string reason_;
    std::vector<std::string> columns_;
};

/// A trained model with its diagnostics.
struct fit_result {
    logistic_regression model;
    /// Standard errors of the intercept, then of each weight: square roots of the diagonal of
    /// the inverse (penalised) Hessian at the optimum. With l2 > 0 they are the posterior
    /// standard deviations of the matching Gaussian-prior model, not sampling errors.
    std::vector<double> standard_errors;
    std::uint32_t iterations = 0; ///< Newton steps taken
    double log_likelihood = 0;    ///< of the data under the fitted model (without the penalty)
    std::size_t correct = 0;      ///< rows whose label the model's decision matches
};

namespace detail {

/// "'a'", "'a' and 'b'", "'a', 'b' and 'c'".
[[nodiscard]] inline std::string quoted_names(const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) s += i + 1 == v.size() ? " and " : ", ";
        s += "'" + v[i] + "'";
    }
    return s;
}

/// `v` with 2 significant digits.
[[nodiscard]] inline std::string short_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
}

/// "1 iteration", "3 iterations".
[[nodiscard]] inline std::string iterations_text(std::uint32_t n) {
    return std::to_string(n) + (n == 1 ? " iteration" : " iterations");
}

/// Penalised negative log-likelihood sum log(1 + e^z) - y z + 1/2 sum pen_j b_j^2.
template <class Vec>
[[nodiscard]] double penalised_nll(const Vec& z, const Vec& y, const Vec& beta, const Vec& pen) {
    double f = 0;
    for (Eigen::Index i = 0; i < z.size(); ++i)
        f += log1p_exp(static_cast<double>(z(i))) - static_cast<double>(y(i) * z(i));
    for (Eigen::Index j = 0; j < beta.size(); ++j)
        f += 0.5 * static_cast<double>(pen(j) * beta(j) * beta(j));
    return f;
}

/// True when every row lies strictly on the side of its label.
template <class Vec>
[[nodiscard]] bool separates(const Vec& z, const Vec& y) {
    for (Eigen::Index i = 0; i < z.size(); ++i)
        if (y(i) > 0 ? !(z(i) > 0) : !(z(i) < 0)) return false;
    return true;
}

/// Solves (B^T B) u = g from the QR of B (B P = Q R, full rank).
template <class QR, class Vec>
[[nodiscard]] Vec normal_solve(const QR& qr, const Vec& g) {
    const Eigen::Index q = g.size();
    const auto r = qr.matrixR().topLeftCorner(q, q).template triangularView<Eigen::Upper>();
    Vec t = qr.colsPermutation().transpose() * g;
    r.transpose().solveInPlace(t);
    r.solveInPlace(t);
    return qr.colsPermutation() * t;
}

} // namespace detail

/// Fits b0..bn to `data` (labels 1 = scale up). Throws fit_error when the maximum-likelihood
/// (or penalised) coefficients do not exist or cannot be found; config_error for bad params.
template <class Real = double>
[[nodiscard]] fit_result fit_logistic_regression(const training_set& data,
                                                 const fit_params& params = {}) {
    params.validate();
    using matrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
    using vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
    using index = Eigen::Index;
    const std::size_t n = data.rows();
    const std::size_t k = data.cols();
    WARPKIT_EXPECTS(data.x.size() == n * k && data.names.size() == k);
    const bool ridge = params.l2 > 0;

    if (n == 0) throw fit_error(fit_failure::too_few_rows, "no training data", "no rows");
    const auto ones = static_cast<std::size_t>(
        std::count(data.labels.begin(), data.labels.end(), std::uint8_t{1}));
    if (ones == 0 || ones == n)
        throw fit_error(fit_failure::one_class, "the training data have one label only",
                        "all " + std::to_string(n) + " rows are labelled " +
                            (ones == 0 ? "0" : "1") + ", so the intercept diverges");

    // Centre and scale each column; a constant column keeps scale 1 (it becomes all zeros).
    std::vector<double> mean(k, 0.0);
    std::vector<double> scale(k, 1.0);
    std::vector<std::string> constant_columns;
    for (std::size_t c = 0; c < k; ++c) {
        double lo = data.at(0, c);
        double hi = lo;
        double s = 0;
        for (std::size_t r = 0; r < n; ++r) {
            const double v = data.at(r, c);
            s += v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        mean[c] = s / static_cast<double>(n);
        if (lo == hi) {
            mean[c] = lo;
            constant_columns.push_back(data.names[c]);
            continue;
        }
        double ss = 0;
        for (std::size_t r = 0; r < n; ++r)
            ss += (data.at(r, c) - mean[c]) * (data.at(r, c) - mean[c]);
        scale[c] = std::sqrt(ss / static_cast<double>(n));
    }
    if (!ridge && !constant_columns.empty())
        throw fit_error(
            fit_failure::singular, "the data are singular",
            (constant_columns.size() == 1 ? "column " : "columns ") +
                detail::quoted_names(constant_columns) +
                (constant_columns.size() == 1 ? " is" : " are") +
                " constant, so the intercept and " +
                (constant_columns.size() == 1 ? "its coefficient" : "their coefficients") +
                " cannot be told apart",
            constant_columns);
    if (!ridge && n < k + 1)
        throw fit_error(fit_failure::too_few_rows, "too few rows",
                        std::to_string(n) + " rows cannot determine " + std::to_string(k + 1) +
                            " coefficients (the constant and one per column)");

    const auto m = static_cast<index>(n);
    const auto q = static_cast<index>(k + 1);
    matrix a(m, q);
    vector y(m);
    for (index r = 0; r < m; ++r) {
        a(r, 0) = Real(1);
        for (std::size_t c = 0; c < k; ++c)
            a(r, static_cast<index>(c + 1)) =
                static_cast<Real>((data.at(static_cast<std::size_t>(r), c) - mean[c]) / scale[c]);
        y(r) = static_cast<Real>(data.labels[static_cast<std::size_t>(r)]);
    }
    // lambda/2 * w_c^2 with w_c = beta_c / scale_c.
    vector pen = vector::Zero(q);
    for (std::size_t c = 0; c < k; ++c)
        pen(static_cast<index>(c + 1)) = static_cast<Real>(params.l2 / (scale[c] * scale[c]));

    const auto column_name = [&](index j) {
        return j == 0 ? std::string("constant") : data.names[static_cast<std::size_t>(j - 1)];
    };

    if (!ridge) {
        // The columns are standardised (norm sqrt(n), like the intercept's), so a pivot of
        // R below 1e-5 sqrt(n) means a column whose part not explained by the others has under
        // 1e-5 of its spread: collinear up to the rounding of values written with ~6 digits.
        Eigen::ColPivHouseholderQR<matrix> qr(a);
        qr.setThreshold(Real(1e-5));
        const index rank = qr.rank();
        if (rank < q) {
            // Each column past the rank is a combination of the leading pivot columns: solve
            // R11 c = R12 for the combination and name every column that takes part.
            const auto& perm = qr.colsPermutation().indices();
            std::vector<bool> involved(static_cast<std::size_t>(q), false);
            const auto r11 =
                qr.matrixR().topLeftCorner(rank, rank).template triangularView<Eigen::Upper>();
            for (index t = rank; t < q; ++t) {
                involved[static_cast<std::size_t>(perm(t))] = true;
                if (rank == 0) continue;
                const vector comb = r11.solve(qr.matrixR().block(0, t, rank, 1));
                const Real big = std::max(Real(1), comb.cwiseAbs().maxCoeff());
                for (index i = 0; i < rank; ++i)
                    if (std::abs(comb(i)) > Real(1e-6) * big)
                        involved[static_cast<std::size_t>(perm(i))] = true;
            }
            const double residual = static_cast<double>(std::abs(qr.matrixR()(rank, rank))) /
                                    std::sqrt(static_cast<double>(n));
            std::vector<std::string> cols;
            for (index j = 0; j < q; ++j)
                if (involved[static_cast<std::size_t>(j)]) cols.push_back(column_name(j));
            throw fit_error(fit_failure::singular, "the data are singular",
                            "columns " + detail::quoted_names(cols) +
                                " are collinear (one is a linear combination of the others" +
                                (residual > 1e-12
                                     ? " up to " + detail::short_number(residual) + " of its spread"
                                     : std::string()) +
                                "), so their coefficients cannot be told apart",
                            cols);
        }
    }

    vector beta = vector::Zero(q);
    beta(0) =
        static_cast<Real>(std::log(static_cast<double>(ones) / static_cast<double>(n - ones)));
    vector z = a * beta;
    double f = detail::penalised_nll(z, y, beta, pen);
    const index extra = ridge ? static_cast<index>(k) : 0;
    matrix b = matrix::Zero(m + extra, q);
    for (std::size_t c = 0; c < k && ridge; ++c)
        b(m + static_cast<index>(c), static_cast<index>(c + 1)) =
            std::sqrt(pen(static_cast<index>(c + 1)));
    vector prob(m);
    vector sqrt_w(m);
    const auto weigh = [&](const vector& zz) {
        for (index i = 0; i < m; ++i) {
            const double zi = static_cast<double>(zz(i));
            prob(i) = static_cast<Real>(logistic(zi));
            // p (1 - p) = e^-|z| / (1 + e^-|z|)^2, without cancellation for large |z|.
            const double e = std::exp(-std::abs(zi));
            sqrt_w(i) = static_cast<Real>(std::sqrt(e) / (1 + e));
        }
        b.topRows(m) = sqrt_w.asDiagonal() * a;
    };
    const auto separable = [&](const std::string& why) {
        return fit_error(fit_failure::separable, "the data are linearly separable", why);
    };

    fit_result res;
    bool converged = false;
    for (std::uint32_t it = 1; it <= params.max_iterations && !converged; ++it) {
        res.iterations = it;
        weigh(z);
        const vector g = a.transpose() * (y - prob) - pen.cwiseProduct(beta);
        Eigen::ColPivHouseholderQR<matrix> qr(b);
        if (qr.rank() < q) {
            // Full-rank inputs lose rank only when the fitted probabilities reach 0 or 1.
            if (!ridge)
                throw separable("the weights p(1-p) of the rows vanished after " +
                                detail::iterations_text(it) + ": the coefficients grow unbounded");
            throw fit_error(fit_failure::not_converged, "training did not converge",
                            "the Hessian became singular");
        }
        const vector step = detail::normal_solve(qr, g);
        const double decrement = static_cast<double>(g.dot(step));
        // Damped step: halve until the objective does not rise (rounding aside).
        Real t = 1;
        vector nb = beta + step;
        vector nz = a * nb;
        double nf = detail::penalised_nll(nz, y, nb, pen);
        for (int h = 0; h < 50 && nf > f + 1e-12 * std::abs(f); ++h) {
            t /= 2;
            nb = beta + t * step;
            nz = a * nb;
            nf = detail::penalised_nll(nz, y, nb, pen);
        }
        beta = nb;
        z = nz;
        f = nf;
        if (!ridge && detail::separates(z, y))
            throw separable("after " + detail::iterations_text(it) +
                            " the coefficients put every row strictly on the side of "
                            "its label, so scaling them up raises the likelihood without bound");
        // Both the predicted gain and the step must be small: under quasi-complete separation
        // the gain vanishes while Newton keeps taking steps of constant size along the
        // separating direction, and the coefficients grow without bound.
        const double moved = static_cast<double>(t * step.cwiseAbs().maxCoeff());
        const double size = static_cast<double>(beta.cwiseAbs().maxCoeff());
        converged = decrement <= params.tolerance * (2 * f + 0.1) &&
                    moved <= std::sqrt(params.tolerance) * (1 + size);
    }
    if (!converged) {
        const double zmax = static_cast<double>(z.cwiseAbs().maxCoeff());
        if (!ridge && zmax > 30)
            throw separable("quasi-complete separation: after " +
                            detail::iterations_text(params.max_iterations) +
                            " the coefficients still grow and some rows are fitted "
                            "with probability within e^-30 of their label");
        throw fit_error(fit_failure::not_converged, "training did not converge",
                        detail::iterations_text(params.max_iterations));
    }

    // Back to raw inputs: b0 = beta0 - sum beta_c mean_c / scale_c, w_c = beta_c / scale_c;
    // the covariance transforms with the same matrix T.
    matrix tr = matrix::Zero(q, q);
    tr(0, 0) = Real(1);
    for (std::size_t c = 0; c < k; ++c) {
        const auto j = static_cast<index>(c + 1);
        tr(0, j) = static_cast<Real>(-mean[c] / scale[c]);
        tr(j, j) = static_cast<Real>(1 / scale[c]);
    }
    const vector raw = tr * beta;
    weigh(z);
    Eigen::ColPivHouseholderQR<matrix> qr(b);
    matrix hinv = matrix::Zero(q, q);
    if (qr.rank() == q) {
        matrix rinv = matrix::Identity(q, q);
        qr.matrixR().topLeftCorner(q, q).template triangularView<Eigen::Upper>().solveInPlace(rinv);
        const matrix perm_inv = rinv * rinv.transpose();
        hinv = qr.colsPermutation() * perm_inv * qr.colsPermutation().transpose();
    } else {
        hinv.setConstant(std::numeric_limits<Real>::quiet_NaN());
    }
    const matrix cov = tr * hinv * tr.transpose();

    std::vector<double> weights(k);
    for (std::size_t c = 0; c < k; ++c)
        weights[c] = static_cast<double>(raw(static_cast<index>(c + 1)));
    res.model = logistic_regression(data.names, static_cast<double>(raw(0)), std::move(weights));
    res.standard_errors.resize(k + 1);
    for (index j = 0; j < q; ++j)
        res.standard_errors[static_cast<std::size_t>(j)] =
            std::sqrt(static_cast<double>(cov(j, j)));
    double ll = 0;
    for (index i = 0; i < m; ++i) {
        const double zi = static_cast<double>(z(i));
        ll -= log1p_exp(zi) - static_cast<double>(y(i)) * zi;
        res.correct += (decide(zi) == scale_decision::scale_up) == (y(i) > 0) ? 1 : 0;
    }
    res.log_likelihood = ll;
    return res;
}

} // namespace warpkit::reconfig
