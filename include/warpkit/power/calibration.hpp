#pragma once
/// \file
/// Calibration against measurements (paper 001, Sections 3 and 4.2). LSE refinement: M
/// microbenchmarks give an M x N matrix A of per-component access rates (or modelled
/// per-component powers) and M measured dynamic powers P; the least-squares solution of
/// A x = P (eq. 5) gives per-component scaling factors x (eq. 4). Reported with it: the
/// residuals, each benchmark's relative error, the rank (with the columns the suite cannot
/// tell apart), the condition number of A and the correlation between benchmark vectors
/// (the Fig. 6 check that the suite stresses components independently). Constant-power fit:
/// P = k f + P_const over measurements at several frequencies (eq. 7).
///
/// The Eigen solver is instantiated only where refine() is called (it is a template): keep
/// those calls in few translation units, the QR costs several seconds of compile time.

#include <warpkit/core/error.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/params.hpp>

#include <Eigen/Core>
#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::power {

/// A refinement problem: column names, A (row-major) and the measured powers.
struct lse_problem {
    std::vector<std::string> names; ///< one per column
    std::vector<double> a;          ///< rows() x cols(), row-major
    std::vector<double> measured;   ///< one per row

    [[nodiscard]] std::size_t rows() const noexcept { return measured.size(); }
    [[nodiscard]] std::size_t cols() const noexcept { return names.size(); }
    [[nodiscard]] double at(std::size_t r, std::size_t c) const { return a.at(r * cols() + c); }

    /// Appends one benchmark: its row of A and its measured power.
    void add_row(std::span<const double> row, double power) {
        if (row.size() != cols())
            throw config_error("row", std::to_string(row.size()) + " values",
                               std::to_string(cols()) + " (one per column)");
        a.insert(a.end(), row.begin(), row.end());
        measured.push_back(power);
    }

    /// Throws config_error on an empty problem, a shape mismatch or a non-finite value.
    void validate() const {
        if (cols() == 0) throw config_error("names", "(none)", "at least one column");
        if (rows() == 0) throw config_error("measured", "(none)", "at least one benchmark");
        if (a.size() != rows() * cols())
            throw config_error("a", std::to_string(a.size()) + " values",
                               std::to_string(rows()) + " x " + std::to_string(cols()) + " = " +
                                   std::to_string(rows() * cols()));
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!std::isfinite(a[i]))
                throw config_error("a[" + std::to_string(i / cols()) + "][" +
                                       std::to_string(i % cols()) + "]",
                                   std::to_string(a[i]), "a finite number");
        for (std::size_t i = 0; i < measured.size(); ++i)
            if (!std::isfinite(measured[i]))
                throw config_error("measured[" + std::to_string(i) + "]",
                                   std::to_string(measured[i]), "a finite number");
    }
};

/// Knobs of the refinement's diagnostics.
struct lse_options {
    double rank_threshold = 0;         ///< relative pivot threshold of the QR; 0: Eigen's default
    double condition_warning = 1e8;    ///< warn above this condition number
    double correlation_warning = 0.95; ///< warn when two benchmarks correlate above this
};

/// The refinement's answer and diagnostics.
struct lse_result {
    std::vector<double> x;               ///< scaling factor per column
    std::vector<double> fitted;          ///< A x per benchmark
    std::vector<double> residuals;       ///< P - A x
    std::vector<double> relative_errors; ///< |P - A x| / |P| (0 when P = 0 and fitted exactly)
    double mean_abs_rel_error = 0;
    std::size_t rank = 0;
    bool rank_deficient = false;
    std::vector<std::size_t> undetermined; ///< columns the suite cannot separate (x set to 0)
    std::vector<double> singular_values;   ///< of A, largest first
    double condition_number = 0;           ///< largest / smallest singular value (inf if 0)
    std::vector<double> correlation;       ///< M x M correlation of benchmark rows, row-major
    double max_abs_correlation = 0;        ///< between two different benchmarks
    std::pair<std::size_t, std::size_t> most_correlated{0, 0};
    std::vector<std::string> warnings;
};

namespace detail {

/// Singular values of the rows x cols matrix `a` (row-major), largest first: one-sided
/// Jacobi (Hestenes) rotations of the columns until they are orthogonal.
[[nodiscard]] inline std::vector<double> singular_values(std::vector<double> a, std::size_t rows,
                                                         std::size_t cols) {
    const auto col = [&](std::size_t r, std::size_t c) -> double& { return a[r * cols + c]; };
    for (int sweep = 0; sweep < 60; ++sweep) {
        bool rotated = false;
        for (std::size_t p = 0; p + 1 < cols; ++p)
            for (std::size_t q = p + 1; q < cols; ++q) {
                double alpha = 0, beta = 0, gamma = 0;
                for (std::size_t r = 0; r < rows; ++r) {
                    alpha += col(r, p) * col(r, p);
                    beta += col(r, q) * col(r, q);
                    gamma += col(r, p) * col(r, q);
                }
                if (gamma == 0 || std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
                rotated = true;
                const double zeta = (beta - alpha) / (2 * gamma);
                const double t =
                    (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
                const double c = 1 / std::sqrt(1 + t * t);
                const double s = c * t;
                for (std::size_t r = 0; r < rows; ++r) {
                    const double u = col(r, p);
                    const double v = col(r, q);
                    col(r, p) = c * u - s * v;
                    col(r, q) = s * u + c * v;
                }
            }
        if (!rotated) break;
    }
    std::vector<double> sv(cols, 0.0);
    for (std::size_t c = 0; c < cols; ++c) {
        double n = 0;
        for (std::size_t r = 0; r < rows; ++r)
            n += col(r, c) * col(r, c);
        sv[c] = std::sqrt(n);
    }
    std::sort(sv.begin(), sv.end(), [](double x, double y) { return x > y; });
    // A rows x cols matrix with rows < cols has at most `rows` non-zero singular values.
    for (std::size_t c = rows; c < cols; ++c)
        sv[c] = 0;
    return sv;
}

/// Pearson correlation of rows i and j of `p.a` (0 when either row is constant).
[[nodiscard]] inline double row_correlation(const lse_problem& p, std::size_t i, std::size_t j) {
    const std::size_t n = p.cols();
    double mi = 0, mj = 0;
    for (std::size_t c = 0; c < n; ++c) {
        mi += p.at(i, c);
        mj += p.at(j, c);
    }
    mi /= static_cast<double>(n);
    mj /= static_cast<double>(n);
    double sij = 0, sii = 0, sjj = 0;
    for (std::size_t c = 0; c < n; ++c) {
        const double di = p.at(i, c) - mi;
        const double dj = p.at(j, c) - mj;
        sij += di * dj;
        sii += di * di;
        sjj += dj * dj;
    }
    return sii > 0 && sjj > 0 ? sij / std::sqrt(sii * sjj) : 0.0;
}

} // namespace detail

/// Solves A x = P in the least-squares sense (column-pivoting Householder QR) and reports the
/// diagnostics. Columns the suite cannot determine (rank deficiency) get x = 0 and a warning.
template <class Real = double>
[[nodiscard]] lse_result refine(const lse_problem& p, const lse_options& opt = {}) {
    p.validate();
    using matrix = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;
    using vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
    const std::size_t m = p.rows();
    const std::size_t n = p.cols();
    const auto em = static_cast<Eigen::Index>(m);
    const auto en = static_cast<Eigen::Index>(n);
    matrix a(em, en);
    vector b(em);
    for (std::size_t r = 0; r < m; ++r) {
        for (std::size_t c = 0; c < n; ++c)
            a(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
                static_cast<Real>(p.at(r, c));
        b(static_cast<Eigen::Index>(r)) = static_cast<Real>(p.measured[r]);
    }
    Eigen::ColPivHouseholderQR<matrix> qr(a);
    if (opt.rank_threshold > 0) qr.setThreshold(static_cast<Real>(opt.rank_threshold));
    const vector x = qr.solve(b);

    lse_result r;
    r.rank = static_cast<std::size_t>(qr.rank());
    r.rank_deficient = r.rank < n;
    const auto& perm = qr.colsPermutation().indices();
    for (std::size_t k = r.rank; k < n; ++k)
        r.undetermined.push_back(static_cast<std::size_t>(perm(static_cast<Eigen::Index>(k))));
    std::sort(r.undetermined.begin(), r.undetermined.end());
    r.x.resize(n);
    for (std::size_t c = 0; c < n; ++c)
        r.x[c] = static_cast<double>(x(static_cast<Eigen::Index>(c)));
    double sum = 0;
    for (std::size_t i = 0; i < m; ++i) {
        double f = 0;
        for (std::size_t c = 0; c < n; ++c)
            f += p.at(i, c) * r.x[c];
        r.fitted.push_back(f);
        r.residuals.push_back(p.measured[i] - f);
        const double e = p.measured[i] != 0        ? std::abs(r.residuals.back() / p.measured[i])
                         : r.residuals.back() == 0 ? 0.0
                                                   : std::numeric_limits<double>::infinity();
        r.relative_errors.push_back(e);
        sum += e;
    }
    r.mean_abs_rel_error = sum / static_cast<double>(m);

    r.singular_values = detail::singular_values(p.a, m, n);
    const double smax = r.singular_values.front();
    const double smin = r.singular_values.back();
    r.condition_number = smin > 0 ? smax / smin : std::numeric_limits<double>::infinity();

    r.correlation.assign(m * m, 0.0);
    for (std::size_t i = 0; i < m; ++i) {
        r.correlation[i * m + i] = 1.0;
        for (std::size_t j = i + 1; j < m; ++j) {
            const double c = detail::row_correlation(p, i, j);
            r.correlation[i * m + j] = c;
            r.correlation[j * m + i] = c;
            if (std::abs(c) > r.max_abs_correlation) {
                r.max_abs_correlation = std::abs(c);
                r.most_correlated = {i, j};
            }
        }
    }

    if (m < n)
        r.warnings.push_back("only " + std::to_string(m) + " benchmarks for " + std::to_string(n) +
                             " unknowns: the system is underdetermined");
    for (std::size_t c = 0; c < n; ++c) {
        bool used = false;
        for (std::size_t i = 0; i < m && !used; ++i)
            used = p.at(i, c) != 0;
        if (!used) r.warnings.push_back("column '" + p.names[c] + "' is zero in every benchmark");
    }
    if (r.rank_deficient) {
        std::string cols;
        for (std::size_t c : r.undetermined)
            cols += (cols.empty() ? "" : ", ") + p.names[c];
        r.warnings.push_back("rank deficient: rank " + std::to_string(r.rank) + " of " +
                             std::to_string(n) + " columns; cannot determine (set to 0): " + cols);
    }
    if (!(r.condition_number <= opt.condition_warning))
        r.warnings.push_back("ill-conditioned: condition number " +
                             std::to_string(r.condition_number));
    if (m > 1 && r.max_abs_correlation > opt.correlation_warning)
        r.warnings.push_back("benchmarks " + std::to_string(r.most_correlated.first) + " and " +
                             std::to_string(r.most_correlated.second) + " are correlated (" +
                             std::to_string(r.max_abs_correlation) + ")");
    for (std::size_t c = 0; c < n; ++c)
        if (r.x[c] < 0) r.warnings.push_back("negative scaling factor for '" + p.names[c] + "'");
    return r;
}

/// A row of A for one benchmark: the modelled dynamic power of every component (W) at the
/// nominal point, so the solution x holds scaling factors of the peak powers (eq. 4).
[[nodiscard]] inline std::vector<double> modeled_row(const model& m, const activity& a) {
    const auto b = m.evaluate(a);
    return {b.dynamic_w.begin(), b.dynamic_w.end()};
}

/// Column names matching modeled_row(): the component names.
[[nodiscard]] inline std::vector<std::string> component_names() {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < component_count; ++i)
        v.emplace_back(name(component_at(i)));
    return v;
}

/// Applies scaling factors `x` for the columns `names` (component names; others ignored)
/// to the peak powers of `p` (eq. 4). Returns how many were applied.
inline std::size_t apply_scaling(model_params& p, const std::vector<std::string>& names,
                                 std::span<const double> x) {
    WARPKIT_EXPECTS(names.size() == x.size());
    std::size_t applied = 0;
    for (std::size_t k = 0; k < names.size(); ++k)
        for (std::size_t i = 0; i < component_count; ++i)
            if (name(component_at(i)) == names[k]) {
                scale_component(p, component_at(i), x[k]);
                ++applied;
            }
    return applied;
}

/// Measured power as a linear function of frequency: P = k f + P_const (eq. 7).
struct constant_fit {
    double k = 0;       ///< W per unit of frequency
    double p_const = 0; ///< W
    double r_squared = 0;
    std::vector<double> residuals;
};

/// Least-squares line through (frequency, power) points. Throws config_error on fewer than
/// two points, different lengths, non-finite values or a single frequency.
[[nodiscard]] inline constant_fit fit_constant_power(std::span<const double> frequency,
                                                     std::span<const double> power) {
    if (frequency.size() != power.size())
        throw config_error("power", std::to_string(power.size()) + " values",
                           std::to_string(frequency.size()) + " (one per frequency)");
    if (frequency.size() < 2)
        throw config_error("frequency", std::to_string(frequency.size()) + " points",
                           "at least 2 points");
    for (std::size_t i = 0; i < frequency.size(); ++i) {
        if (!std::isfinite(frequency[i]))
            throw config_error("frequency[" + std::to_string(i) + "]", std::to_string(frequency[i]),
                               "a finite number");
        if (!std::isfinite(power[i]))
            throw config_error("power[" + std::to_string(i) + "]", std::to_string(power[i]),
                               "a finite number");
    }
    const auto n = static_cast<double>(frequency.size());
    double mf = 0, mp = 0;
    for (std::size_t i = 0; i < frequency.size(); ++i) {
        mf += frequency[i];
        mp += power[i];
    }
    mf /= n;
    mp /= n;
    double sff = 0, sfp = 0, spp = 0;
    for (std::size_t i = 0; i < frequency.size(); ++i) {
        sff += (frequency[i] - mf) * (frequency[i] - mf);
        sfp += (frequency[i] - mf) * (power[i] - mp);
        spp += (power[i] - mp) * (power[i] - mp);
    }
    if (!(sff > 0))
        throw config_error("frequency", std::to_string(frequency[0]),
                           "at least two different frequencies");
    constant_fit f;
    f.k = sfp / sff;
    f.p_const = mp - f.k * mf;
    double sse = 0;
    for (std::size_t i = 0; i < frequency.size(); ++i) {
        f.residuals.push_back(power[i] - (f.k * frequency[i] + f.p_const));
        sse += f.residuals.back() * f.residuals.back();
    }
    f.r_squared = spp > 0 ? 1 - sse / spp : 1.0;
    return f;
}

} // namespace warpkit::power
