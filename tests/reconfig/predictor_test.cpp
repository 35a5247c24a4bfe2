#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/logistic_fit.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/predictor.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rc = warpkit::reconfig;

namespace {

rc::scalability_metrics metrics(const std::array<double, rc::metric_count>& a) {
    return rc::from_array(a);
}

// A "typical" sampled CTA: 4 resident CTAs, 5% idle lanes, 0.1 transactions per thread access,
// L1D/L1I/L1C miss rates 50% / 1% / 5%, 20% of misses merged in the MSHRs, 15% loads, 5%
// stores, 0.3 flits injected per cycle.
constexpr std::array<double, rc::metric_count> typical = {4,    0.05, 0.1,  0.5,  0.01,
                                                          0.05, 0.2,  0.15, 0.05, 0.3};

// Synthetic training data from a known model: every metric uniform over a plausible range,
// labels drawn with P = logistic(b0 + sum b_i x_i).
struct known_model {
    double b0 = -1.0;
    std::array<double, rc::metric_count> w = {0.5, 8, 12, -4, 30, -6, 3, -10, 15, -2};
    std::array<double, rc::metric_count> hi = {8, 0.3, 0.5, 1, 0.1, 0.5, 1, 0.4, 0.2, 1};
};

rc::training_set synthetic(const known_model& km, std::size_t n, warpkit::rng& r) {
    rc::training_set t;
    t.names.assign(rc::metric_names.begin(), rc::metric_names.end());
    std::array<double, rc::metric_count> x{};
    for (std::size_t i = 0; i < n; ++i) {
        double z = km.b0;
        for (std::size_t c = 0; c < rc::metric_count; ++c) {
            x[c] = km.hi[c] * r.uniform();
            z += km.w[c] * x[c];
        }
        t.add_row(x, r.bernoulli(rc::logistic(z)));
    }
    return t;
}

double weight_norm(const rc::logistic_regression& m) {
    double s = 0;
    for (double w : m.weights())
        s += w * w;
    return std::sqrt(s);
}

template <class F>
rc::fit_error fit_failure_of(F&& f) {
    try {
        f();
    } catch (const rc::fit_error& e) {
        return e;
    }
    FAIL("expected a fit_error");
    return rc::fit_error(rc::fit_failure::not_converged, "", "");
}

template <class F>
warpkit::parse_error parse_failure_of(F&& f) {
    try {
        f();
    } catch (const warpkit::parse_error& e) {
        return e;
    }
    FAIL("expected a parse_error");
    return warpkit::parse_error("", 0, 0, "");
}

bool contains(const std::string& s, std::string_view part) {
    return s.find(part) != std::string::npos;
}

// A text a reader must refuse: the line and column its parse_error names and a part of its
// message.
struct bad_text {
    const char* text;
    std::size_t line;
    std::size_t column;
    const char* message;
};

// Every case, given to `read(text)`, fails with a parse_error naming `file` and the case's
// line, column and message.
template <class Read>
void check_refused(std::span<const bad_text> cases, std::string_view file, Read read) {
    for (const auto& c : cases) {
        CAPTURE(c.text);
        const auto e = parse_failure_of([&] { read(c.text); });
        CHECK(e.file() == file);
        CHECK(e.line() == c.line);
        CHECK(e.column() == c.column);
        CHECK(contains(e.message(), c.message));
    }
}

} // namespace

TEST_CASE("metric keys, field pointers and reflection agree on order") {
    std::vector<std::string> reflected;
    rc::scalability_metrics m;
    warpkit::for_each_member(m,
                             [&](std::string_view name, double&) { reflected.emplace_back(name); });
    REQUIRE(reflected.size() == rc::metric_count);
    for (std::size_t i = 0; i < rc::metric_count; ++i) {
        CHECK(reflected[i] == rc::metric_names[i]);
        CHECK(rc::metric_index(rc::metric_names[i]) == i);
    }
    CHECK_FALSE(rc::metric_index("label").has_value());

    // Distinct values through from_array land in the reflected members in the same order.
    std::array<double, rc::metric_count> a{};
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = 0.01 * static_cast<double>(i + 1);
    const auto filled = rc::from_array(a);
    std::size_t i = 0;
    warpkit::for_each_member(filled, [&](std::string_view, const double& v) {
        CHECK(v == a[i]);
        ++i;
    });
    CHECK(rc::to_array(filled) == a);
}

TEST_CASE("metric validation names the metric and its range") {
    CHECK_NOTHROW(metrics(typical).validate());
    auto m = metrics(typical);
    m.l1d_miss = 1.5;
    try {
        m.validate();
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "l1d_miss");
        CHECK(e.allowed() == "a finite number in [0, 1]");
    }
    m = metrics(typical);
    m.noc = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(m.validate(), warpkit::config_error);
    m = metrics(typical);
    m.concurrent_cta = -1;
    CHECK_THROWS_AS(m.validate(), warpkit::config_error);
    m.concurrent_cta = 48; // unbounded above: occupancy depends on the machine
    CHECK_NOTHROW(m.validate());
}

TEST_CASE("logistic and log(1 + e^z) are stable for any z") {
    CHECK(rc::logistic(0) == 0.5);
    CHECK(rc::logistic(1000) == 1.0);
    CHECK(rc::logistic(-1000) == 0.0);
    CHECK(rc::logistic(-700) > 0); // e^-700 is representable; the naive 1/(1+e^700) is not
    CHECK(rc::logistic(-700) == doctest::Approx(std::exp(-700.0)).epsilon(1e-12));
    for (double z : {-50.0, -3.0, -0.1, 0.1, 3.0, 50.0}) {
        CHECK(rc::logistic(z) + rc::logistic(-z) == doctest::Approx(1.0).epsilon(1e-15));
        CHECK(rc::log1p_exp(z) == doctest::Approx(std::log1p(std::exp(z))).epsilon(1e-14));
    }
    CHECK(rc::log1p_exp(1000) == 1000);
    CHECK(rc::log1p_exp(-1000) == 0);
    CHECK(rc::decide(0.0) == rc::scale_decision::scale_up); // P = 0.5 fuses
    CHECK(rc::decide(-1e-300) == rc::scale_decision::scale_out);
}

TEST_CASE("Table 2 predictor on hand-computed metric vectors") {
    const auto p = rc::scalability_predictor::table2();
    CHECK(p.intercept() == -73.635);
    CHECK(p.weight("coalescing") == 2057.050);
    CHECK(p.weight("store_rate") == -804.7);

    SUBCASE("typical vector: strongly scale out") {
        // -73.635 + 1.414*4 + 444.628*0.05 + 2057.050*0.1 - 313.838*0.5 + 1674.513*0.01
        // - 67.277*0.05 - 102.971*0.2 - 680.786*0.15 - 804.7*0.05 - 8.301*0.3
        // = -73.635 + 5.656 + 22.2314 + 205.705 - 156.919 + 16.74513 - 3.36385 - 20.5942
        //   - 102.1179 - 40.235 - 2.4903 = -149.01772
        const auto r = p.predict(metrics(typical));
        CHECK(r.logit == doctest::Approx(-149.01772).epsilon(1e-12));
        CHECK(r.probability == doctest::Approx(1.9161367403424438e-65).epsilon(1e-9));
        CHECK(r.decision == rc::scale_decision::scale_out);
    }
    SUBCASE("coalescing alone just past the constant: P = 0.6032") {
        // -73.635 + 2057.05 * 0.036 = -73.635 + 74.0538 = 0.4188; 1/(1+e^-0.4188) = 0.603196
        const auto r = p.predict(metrics({0, 0, 0.036, 0, 0, 0, 0, 0, 0, 0}));
        CHECK(r.logit == doctest::Approx(0.4188).epsilon(1e-9));
        CHECK(r.probability == doctest::Approx(0.6031960647761737).epsilon(1e-12));
        CHECK(r.decision == rc::scale_decision::scale_up);
    }
    SUBCASE("two CTAs, coalescing 0.035, L1I misses 0.1%: P = 0.9461") {
        // -73.635 + 1.414*2 + 2057.05*0.035 + 1674.513*0.001
        // = -73.635 + 2.828 + 71.99675 + 1.674513 = 2.864263
        const auto r = p.predict(metrics({2, 0, 0.035, 0, 0.001, 0, 0, 0, 0, 0}));
        CHECK(r.logit == doctest::Approx(2.864263).epsilon(1e-9));
        CHECK(r.probability == doctest::Approx(0.9460512897472805).epsilon(1e-12));
        CHECK(r.decision == rc::scale_decision::scale_up);
    }
    SUBCASE("the generic model gives the same numbers") {
        const auto model = p.to_model();
        const auto x = typical;
        CHECK(model.logit(x) == doctest::Approx(p.logit(metrics(typical))).epsilon(1e-14));
        CHECK(rc::scalability_predictor::from(model).weights() == p.weights());
    }
}

TEST_CASE("each metric moves the logit by its own Table 2 coefficient (positive = towards "
          "fusing)") {
    const auto p = rc::scalability_predictor::table2();
    const std::array<double, rc::metric_count> b = {1.414,   444.628,  2057.050, -313.838, 1674.513,
                                                    -67.277, -102.971, -680.786, -804.7,   -8.301};
    const auto base = metrics(typical);
    for (std::size_t i = 0; i < rc::metric_count; ++i) {
        CAPTURE(rc::metric_names[i]);
        auto more = base;
        more.*rc::metric_fields[i] += 0.01;
        const double dz = p.logit(more) - p.logit(base);
        CHECK(dz == doctest::Approx(0.01 * b[i]).epsilon(1e-9));
        // A positive coefficient raises P(scale up), a negative one lowers it.
        CHECK((p.probability(more) > p.probability(base)) == (b[i] > 0));
        CHECK(p.weight(rc::metric_names[i]) == b[i]);
    }
}

TEST_CASE("Figure 20 impact breakdown") {
    const auto p = rc::scalability_predictor::table2();
    const auto br = p.impact(metrics(typical));
    // Hand-computed impacts (see the typical vector above); L1 = L1D + L1I + L1C.
    const std::array<double, rc::impact_term_count> want = {
        -73.635,  5.656,     22.2314, 205.705, -156.919 + 16.74513 - 3.36385,
        -20.5942, -102.1179, -40.235, -2.4903};
    double abs_total = 0;
    for (double v : want)
        abs_total += std::abs(v);
    double share_abs = 0;
    double sum = 0;
    for (std::size_t t = 0; t < rc::impact_term_count; ++t) {
        CAPTURE(t);
        CHECK(br.terms[t].name == rc::impact_term_names[t]);
        CHECK(br.terms[t].impact == doctest::Approx(want[t]).epsilon(1e-12));
        CHECK(br.terms[t].share == doctest::Approx(want[t] / abs_total).epsilon(1e-12));
        CHECK(std::abs(br.terms[t].share) <= 1.0);
        share_abs += std::abs(br.terms[t].share);
        sum += br.terms[t].impact;
    }
    CHECK(share_abs == doctest::Approx(1.0));
    CHECK(sum == doctest::Approx(br.logit).epsilon(1e-12));
    CHECK(br.logit == p.logit(metrics(typical)));
    CHECK(br.decision == rc::scale_decision::scale_out);
    CHECK(br.terms[3].name == "coalescing"); // the largest push towards fusing
    CHECK(br.terms[3].share == doctest::Approx(205.705 / abs_total));

    const auto zero = p.impact(rc::scalability_metrics{});
    CHECK(zero.terms[0].share == -1.0); // only the constant remains
    CHECK(zero.decision == rc::scale_decision::scale_out);
}

TEST_CASE("scalability_predictor from a model over a subset of metrics") {
    const rc::logistic_regression m({"noc", "mshr"}, 0.5, {2.0, -1.0});
    const auto p = rc::scalability_predictor::from(m);
    auto x = metrics(typical);
    const std::array<double, 2> sub = {x.noc, x.mshr};
    CHECK(p.logit(x) == doctest::Approx(m.logit(sub)).epsilon(1e-15));
    CHECK(p.weight("l1d_miss") == 0.0);
    CHECK_THROWS_AS(
        (void)rc::scalability_predictor::from(rc::logistic_regression({"bogus"}, 0, {1})),
        warpkit::config_error);
    CHECK_THROWS_AS(rc::logistic_regression({"noc", "noc"}, 0, {1, 2}), warpkit::config_error);
    CHECK_THROWS_AS(rc::logistic_regression({"noc"}, 0, {}), warpkit::config_error);
    CHECK_THROWS_AS(rc::logistic_regression({"noc"}, 0, {std::nan("")}), warpkit::config_error);
}

TEST_CASE("training: one binary input has the closed-form MLE and standard errors") {
    // Rows at x = 0: 30 of 100 labelled 1; at x = 1: 80 of 120. The MLE reproduces both
    // proportions: b0 = logit(0.3), b0 + b1 = logit(2/3); Var(b0) = 1/30 + 1/70 and
    // Var(b1) = 1/30 + 1/70 + 1/80 + 1/40.
    rc::training_set t;
    t.names = {"mshr"};
    for (int i = 0; i < 100; ++i)
        t.add_row(std::array<double, 1>{0.0}, i < 30);
    for (int i = 0; i < 120; ++i)
        t.add_row(std::array<double, 1>{1.0}, i < 80);
    const auto r = rc::fit_logistic_regression(t);
    CHECK(r.model.intercept() == doctest::Approx(std::log(30.0 / 70.0)).epsilon(1e-10));
    CHECK(r.model.weights()[0] ==
          doctest::Approx(std::log(80.0 / 40.0) - std::log(30.0 / 70.0)).epsilon(1e-10));
    CHECK(r.standard_errors[0] == doctest::Approx(std::sqrt(1.0 / 30 + 1.0 / 70)).epsilon(1e-8));
    CHECK(r.standard_errors[1] ==
          doctest::Approx(std::sqrt(1.0 / 30 + 1.0 / 70 + 1.0 / 80 + 1.0 / 40)).epsilon(1e-8));
    const double ll =
        30 * std::log(0.3) + 70 * std::log(0.7) + 80 * std::log(2.0 / 3) + 40 * std::log(1.0 / 3);
    CHECK(r.log_likelihood == doctest::Approx(ll).epsilon(1e-12));
    CHECK(r.correct == 70 + 80); // x = 0 predicts 0, x = 1 predicts 1
    CHECK(r.iterations < 15);
}

TEST_CASE("training recovers a known model within its standard errors") {
    // N = 20000 rows of all ten metrics. Each estimate is asymptotically normal around the
    // true coefficient with the reported standard error, so |estimate - truth| < 4 SE (fails
    // with probability ~6e-5 per coefficient for a random seed; the seed is fixed). The
    // standard errors themselves are checked against replicate fits below.
    const known_model km;
    warpkit::rng r(20240611);
    const auto data = synthetic(km, 20000, r);
    const auto fit = rc::fit_logistic_regression(data);
    REQUIRE(fit.standard_errors.size() == rc::metric_count + 1);
    CHECK(std::abs(fit.model.intercept() - km.b0) < 4 * fit.standard_errors[0]);
    for (std::size_t c = 0; c < rc::metric_count; ++c) {
        CAPTURE(rc::metric_names[c]);
        const double se = fit.standard_errors[c + 1];
        CHECK(std::abs(fit.model.weights()[c] - km.w[c]) < 4 * se);
        CHECK(se < 0.35 * std::abs(km.w[c])); // the data pin every coefficient down
    }
    CHECK(fit.model.names() == data.names);
}

TEST_CASE("reported standard errors match the spread of replicate fits") {
    // 40 independent data sets of 2000 rows: the sample standard deviation of each estimate
    // should match the mean reported standard error (relative sampling error of a standard
    // deviation from 40 replicates is about 11%, so [0.65, 1.4] is a ~3-sigma band).
    const known_model km;
    constexpr std::size_t reps = 40;
    std::vector<std::array<double, rc::metric_count + 1>> est(reps);
    std::array<double, rc::metric_count + 1> mean_se{};
    for (std::size_t k = 0; k < reps; ++k) {
        warpkit::rng r(7, k);
        const auto fit = rc::fit_logistic_regression(synthetic(km, 2000, r));
        est[k][0] = fit.model.intercept();
        for (std::size_t c = 0; c < rc::metric_count; ++c)
            est[k][c + 1] = fit.model.weights()[c];
        for (std::size_t j = 0; j <= rc::metric_count; ++j)
            mean_se[j] += fit.standard_errors[j] / reps;
    }
    for (std::size_t j = 0; j <= rc::metric_count; ++j) {
        CAPTURE(j);
        double m = 0;
        for (const auto& e : est)
            m += e[j] / reps;
        double ss = 0;
        for (const auto& e : est)
            ss += (e[j] - m) * (e[j] - m);
        const double sd = std::sqrt(ss / (reps - 1));
        CHECK(sd / mean_se[j] > 0.65);
        CHECK(sd / mean_se[j] < 1.4);
    }
}

TEST_CASE("L2 shrinks the weights monotonically with lambda and spares the intercept") {
    const known_model km;
    warpkit::rng r(99);
    const auto data = synthetic(km, 1500, r);
    double prev = std::numeric_limits<double>::infinity();
    for (double lambda : {0.0, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
        CAPTURE(lambda);
        rc::fit_params fp;
        fp.l2 = lambda;
        const auto fit = rc::fit_logistic_regression(data, fp);
        const double norm = weight_norm(fit.model);
        CHECK(norm < prev);
        prev = norm;
        // Optimality, computed independently of the solver: sum (y - p) = 0 for the
        // unpenalised intercept and sum x_c (y - p) = lambda w_c for every weight.
        double g0 = 0;
        std::array<double, rc::metric_count> g{};
        for (std::size_t i = 0; i < data.rows(); ++i) {
            const std::span<const double> row(&data.x[i * data.cols()], data.cols());
            const double resid = data.labels[i] - fit.model.probability(row);
            g0 += resid;
            for (std::size_t c = 0; c < rc::metric_count; ++c)
                g[c] += row[c] * resid;
        }
        CHECK(std::abs(g0) < 1e-6);
        for (std::size_t c = 0; c < rc::metric_count; ++c)
            CHECK(std::abs(g[c] - lambda * fit.model.weights()[c]) <
                  1e-6 * (1 + std::abs(lambda * fit.model.weights()[c])));
    }
    CHECK(prev < 0.2); // lambda = 1000 leaves little of weights of norm ~40
}

TEST_CASE("separable data: an error that says so, and L2 gives a finite model") {
    rc::training_set t;
    t.names = {"coalescing", "noc"};
    warpkit::rng r(5);
    for (int i = 0; i < 200; ++i) {
        const double c = r.uniform();
        const double n = r.uniform();
        t.add_row(std::array<double, 2>{c, n}, c + 0.3 * n > 0.6);
    }
    const auto e = fit_failure_of([&] { (void)rc::fit_logistic_regression(t); });
    CHECK(e.kind() == rc::fit_failure::separable);
    CHECK(e.headline() == "the data are linearly separable");
    CHECK(contains(e.what(), "the data are linearly separable"));
    CHECK(contains(e.what(), "l2"));

    rc::fit_params fp;
    fp.l2 = 0.01;
    const auto fit = rc::fit_logistic_regression(t, fp);
    CHECK(std::isfinite(weight_norm(fit.model)));
    CHECK(fit.correct >= t.rows() - 3); // a penalised fit need not separate every row
    // Along the separating direction: the coalescing weight is ~1/0.3 times the noc weight.
    CHECK(fit.model.weights()[0] / fit.model.weights()[1] == doctest::Approx(1 / 0.3).epsilon(0.1));

    SUBCASE("quasi-complete separation is reported as separable too") {
        rc::training_set q;
        q.names = {"mshr"};
        for (int i = 0; i < 50; ++i)
            q.add_row(std::array<double, 1>{0.01 * i}, false);
        for (int i = 0; i < 50; ++i)
            q.add_row(std::array<double, 1>{0.5 + 0.01 * i}, true);
        q.add_row(std::array<double, 1>{0.495}, false); // two rows on the boundary, one of each
        q.add_row(std::array<double, 1>{0.495}, true);
        q.add_row(std::array<double, 1>{0.495}, false);
        const auto qe = fit_failure_of([&] { (void)rc::fit_logistic_regression(q); });
        CHECK(qe.kind() == rc::fit_failure::separable);
    }
}

TEST_CASE("singular data: constant and collinear columns are named") {
    const known_model km;
    warpkit::rng r(11);
    auto data = synthetic(km, 300, r);

    SUBCASE("constant column") {
        for (std::size_t i = 0; i < data.rows(); ++i)
            data.x[i * data.cols() + 9] = 0.25; // noc
        const auto e = fit_failure_of([&] { (void)rc::fit_logistic_regression(data); });
        CHECK(e.kind() == rc::fit_failure::singular);
        CHECK(e.columns() == std::vector<std::string>{"noc"});
        CHECK(contains(e.what(), "'noc' is constant"));
        rc::fit_params fp;
        fp.l2 = 0.1;
        const auto fit = rc::fit_logistic_regression(data, fp); // well-posed with a penalty
        CHECK(fit.model.weights()[9] == doctest::Approx(0.0).scale(1e-9));
    }
    SUBCASE("collinear columns") {
        // store_rate = 0.5 load_rate + 0.1 l1d_miss: those three, and only those, are named.
        for (std::size_t i = 0; i < data.rows(); ++i) {
            double* row = &data.x[i * data.cols()];
            row[8] = 0.5 * row[7] + 0.1 * row[3];
        }
        const auto e = fit_failure_of([&] { (void)rc::fit_logistic_regression(data); });
        CHECK(e.kind() == rc::fit_failure::singular);
        CHECK(e.columns() == std::vector<std::string>{"l1d_miss", "load_rate", "store_rate"});
        CHECK(contains(e.what(), "'l1d_miss', 'load_rate' and 'store_rate' are collinear"));
        rc::fit_params fp;
        fp.l2 = 0.1;
        CHECK_NOTHROW((void)rc::fit_logistic_regression(data, fp));
    }
    SUBCASE("collinear up to the rounding of a CSV file, but not merely correlated columns") {
        // store_rate = load_rate / 2 written with 6 significant digits is still collinear ...
        for (std::size_t i = 0; i < data.rows(); ++i) {
            double* row = &data.x[i * data.cols()];
            row[8] = std::stod(std::to_string(0.5 * row[7]).substr(0, 8));
        }
        const auto e = fit_failure_of([&] { (void)rc::fit_logistic_regression(data); });
        CHECK(e.columns() == std::vector<std::string>{"load_rate", "store_rate"});
        CHECK(contains(e.what(), "of its spread"));
        // ... while a correlation of about 0.995 is data the model can still be fitted to.
        warpkit::rng noise(12);
        for (std::size_t i = 0; i < data.rows(); ++i) {
            double* row = &data.x[i * data.cols()];
            row[8] = 0.5 * row[7] + 0.005 * noise.uniform();
        }
        CHECK_NOTHROW((void)rc::fit_logistic_regression(data));
    }
    SUBCASE("one label only, too few rows, bad params") {
        auto one = data;
        std::fill(one.labels.begin(), one.labels.end(), std::uint8_t{1});
        CHECK(fit_failure_of([&] { (void)rc::fit_logistic_regression(one); }).kind() ==
              rc::fit_failure::one_class);
        rc::training_set few;
        few.names.assign(rc::metric_names.begin(), rc::metric_names.end());
        for (std::size_t i = 0; i < 6; ++i)
            few.add_row(std::span<const double>(&data.x[i * 10], 10), i % 2 == 0);
        CHECK(fit_failure_of([&] { (void)rc::fit_logistic_regression(few); }).kind() ==
              rc::fit_failure::too_few_rows);
        rc::fit_params fp;
        fp.l2 = -1;
        CHECK_THROWS_AS((void)rc::fit_logistic_regression(data, fp), warpkit::config_error);
    }
}

TEST_CASE("train -> coefficient file -> predict round trip") {
    const known_model km;
    warpkit::rng r(3);
    const auto data = synthetic(km, 1000, r);
    const auto fit = rc::fit_logistic_regression(data);
    const std::string text = rc::write_coefficients(fit.model);
    CHECK(text.rfind("constant ", 0) == 0);
    const auto back = rc::read_coefficients(text, "model.txt");
    CHECK(back == fit.model); // bit for bit
    const auto p = rc::scalability_predictor::from(back);
    for (std::size_t i = 0; i < 20; ++i) {
        const std::span<const double> row(&data.x[i * data.cols()], data.cols());
        std::array<double, rc::metric_count> a{};
        std::copy(row.begin(), row.end(), a.begin());
        CHECK(p.predict(metrics(a)).probability ==
              doctest::Approx(fit.model.probability(row)).epsilon(1e-14));
    }
    // The Table 2 preset survives the same trip.
    const auto t2 = rc::scalability_predictor::table2().to_model();
    const std::string t2_text = rc::write_coefficients(t2);
    CHECK(contains(t2_text, "constant -73.635\n"));
    CHECK(contains(t2_text, "\nstore_rate -804.7\n"));
    CHECK(rc::read_coefficients(t2_text, "t2") == t2);
}

TEST_CASE("training CSV reader") {
    SUBCASE("valid file: comments, blanks, CRLF, any metric order") {
        const auto t = rc::read_training_csv(
            "# kernels of the suite\r\nnoc, mshr ,label\r\n\r\n0.5,0.25,1\r\n 1e-1 ,0,0\r\n",
            "d.csv");
        CHECK(t.names == std::vector<std::string>{"noc", "mshr"});
        CHECK(t.rows() == 2);
        CHECK(t.at(0, 0) == 0.5);
        CHECK(t.at(1, 0) == 0.1);
        CHECK(t.labels == std::vector<std::uint8_t>{1, 0});
        CHECK(t.lines == std::vector<std::size_t>{4, 5});
    }
    const bad_text cases[] = {
        {"", 1, 1, "empty file"},
        {"\n# only a comment\n", 1, 1, "empty file"},
        {"noc,mshr\n0.1,0.2\n", 1, 5, "missing label column"},
        {"label,noc\n", 1, 1, "'label' must be the last column"},
        {"noc,bogus,label\n", 1, 5, "unknown column 'bogus'"},
        {"noc,noc,label\n", 1, 5, "appears twice"},
        {"label\n1\n", 1, 1, "no metric columns"},
        {"noc,label\n", 2, 1, "no data rows"},
        {"noc,label\n0.1,1\n0.2\n", 3, 4, "row has 1 values, the header 2 columns"},
        {"noc,label\n0.1,1,5\n", 2, 7, "row has 3 values"},
        {"noc,label\nnan,1\n", 2, 1, "'nan' is not a finite number (column 'noc')"},
        {"noc,label\ninf,1\n", 2, 1, "not a finite number"},
        {"noc,label\n 0x1,1\n", 2, 2, "'0x1' is not a number"},
        {"noc,label\n,1\n", 2, 1, "empty value for 'noc'"},
        {"noc,label\n0.1,2\n", 2, 5, "label must be 0 or 1, found '2'"},
        {"noc,label\n0.1,yes\n", 2, 5, "label must be 0 or 1"},
        {"noc,l1d_miss,label\n0.1,1.5,0\n", 2, 5, "l1d_miss = 1.5 is not allowed"},
    };
    check_refused(cases, "d.csv",
                  [](const char* text) { (void)rc::read_training_csv(text, "d.csv"); });
}

TEST_CASE("coefficient file reader") {
    const auto m =
        rc::read_coefficients("# fitted\nconstant -1.5\n\nnoc 2 # flits\nmshr -0.25\n", "c.txt");
    CHECK(m.intercept() == -1.5);
    CHECK(m.names() == std::vector<std::string>{"noc", "mshr"});
    CHECK(m.weights() == std::vector<double>{2, -0.25});
    const bad_text cases[] = {
        {"", 1, 1, "empty file"},
        {"noc 1\n", 1, 1, "expected 'constant' first"},
        {"constant 1\nfoo 2\n", 2, 1, "unknown metric 'foo'"},
        {"constant x\n", 1, 10, "'x' is not a finite number"},
        {"constant nan\n", 1, 10, "not a finite number"},
        {"constant 1 2\n", 1, 12, "unexpected '2'"},
        {"constant\n", 1, 9, "expected a value after 'constant'"},
        {"constant 1\nnoc 1\n  noc 2\n", 3, 3, "'noc' appears twice"},
        {"constant 1\nconstant 2\n", 2, 1, "'constant' appears twice"},
    };
    check_refused(cases, "c.txt",
                  [](const char* text) { (void)rc::read_coefficients(text, "c.txt"); });
}
