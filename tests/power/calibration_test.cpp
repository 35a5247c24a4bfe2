#include <warpkit/core/error.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/power/calibration.hpp>
#include <warpkit/power/calibration_csv.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/reference.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace wp = warpkit::power;
using power_test::near;

namespace {
// M random benchmarks over `truth.size()` components: rates in [0, 10) (about a third of
// them zero, as component-stressing microbenchmarks leave most parts idle), powers A x
// with multiplicative noise of up to +-noise.
wp::lse_problem synthetic(const std::vector<double>& truth, std::size_t m, double noise,
                          std::uint64_t seed) {
    warpkit::rng r(seed);
    wp::lse_problem p;
    for (std::size_t c = 0; c < truth.size(); ++c)
        p.names.push_back("c" + std::to_string(c));
    std::vector<double> row(truth.size());
    for (std::size_t i = 0; i < m; ++i) {
        double power = 0;
        for (std::size_t c = 0; c < truth.size(); ++c) {
            row[c] = r.below(3) == 0 ? 0.0 : 10 * r.uniform();
            power += row[c] * truth[c];
        }
        p.add_row(row, power * (1 + noise * (2 * r.uniform() - 1)));
    }
    return p;
}
} // namespace

TEST_CASE("LSE recovers known scaling factors from noisy synthetic measurements") {
    const std::vector<double> truth = {1.2, 0.8, 1.5, 0.9, 1.1, 0.6, 2.0};
    const auto p = synthetic(truth, 80, 0.01, 42); // 80 benchmarks as in the paper, 1 % noise
    const auto r = wp::refine(p);
    REQUIRE(r.x.size() == truth.size());
    for (std::size_t c = 0; c < truth.size(); ++c)
        CHECK(r.x[c] == near(truth[c], 0.03));
    CHECK(r.rank == truth.size());
    CHECK_FALSE(r.rank_deficient);
    CHECK(r.mean_abs_rel_error < 0.01); // about the noise: it cannot be fitted away
    CHECK(r.mean_abs_rel_error > 0.001);
    CHECK(std::isfinite(r.condition_number));
    // The residuals are orthogonal to every column (normal equations).
    for (std::size_t c = 0; c < truth.size(); ++c) {
        double dot = 0;
        double scale = 0;
        for (std::size_t i = 0; i < p.rows(); ++i) {
            dot += p.at(i, c) * r.residuals[i];
            scale += std::abs(p.at(i, c) * p.measured[i]);
        }
        CHECK(std::abs(dot) < 1e-9 * scale);
    }
    for (std::size_t i = 0; i < p.rows(); ++i)
        CHECK(r.fitted[i] + r.residuals[i] == near(p.measured[i]));
}

TEST_CASE("noise-free data is fitted exactly") {
    const std::vector<double> truth = {0.5, 3.0, 1.0};
    const auto r = wp::refine(synthetic(truth, 12, 0.0, 7));
    for (std::size_t c = 0; c < truth.size(); ++c)
        CHECK(r.x[c] == near(truth[c], 1e-9));
    CHECK(r.mean_abs_rel_error < 1e-12);
    CHECK_FALSE(r.rank_deficient);
}

TEST_CASE("a rank-deficient suite is flagged and the inseparable columns named") {
    auto p = synthetic({1.0, 2.0, 3.0, 4.0}, 20, 0.0, 3);
    // Column 3 always moves with column 1 (like L2 and NoC accesses, Section 4.3.2).
    for (std::size_t i = 0; i < p.rows(); ++i) {
        p.a[i * 4 + 3] = 2 * p.a[i * 4 + 1];
        p.measured[i] = p.at(i, 0) + 2 * p.at(i, 1) + 3 * p.at(i, 2) + 4 * p.at(i, 3);
    }
    const auto r = wp::refine(p);
    CHECK(r.rank == 3);
    CHECK(r.rank_deficient);
    REQUIRE(r.undetermined.size() == 1);
    const bool one_of_pair = r.undetermined[0] == 1 || r.undetermined[0] == 3;
    CHECK(one_of_pair);
    CHECK(r.x[r.undetermined[0]] == 0.0);
    const bool well_conditioned = std::isfinite(r.condition_number) && r.condition_number < 1e8;
    CHECK_FALSE(well_conditioned);
    const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
        return w.find("rank deficient") != std::string::npos;
    });
    CHECK(warned);
    // The combined effect is still fitted: x1 + 2 x3 = 2 + 2 x 4.
    CHECK(r.x[1] + 2 * r.x[3] == near(10.0, 1e-9));
    CHECK(r.mean_abs_rel_error < 1e-9);
}

TEST_CASE("fewer benchmarks than unknowns and unused columns are reported") {
    wp::lse_problem p;
    p.names = {"int_alu", "fp", "tex_cache"};
    p.add_row(std::vector<double>{1, 2, 0}, 5);
    p.add_row(std::vector<double>{2, 1, 0}, 4);
    const auto r = wp::refine(p);
    CHECK(r.rank == 2);
    CHECK(r.undetermined == std::vector<std::size_t>{2});
    const auto has = [&](const char* s) {
        return std::any_of(r.warnings.begin(), r.warnings.end(),
                           [&](const std::string& w) { return w.find(s) != std::string::npos; });
    };
    CHECK(has("underdetermined"));
    CHECK(has("'tex_cache' is zero"));
    CHECK(r.x[0] == near(1.0));
    CHECK(r.x[1] == near(2.0));
}

TEST_CASE("condition number and benchmark correlation") {
    wp::lse_problem p;
    p.names = {"a", "b"};
    p.add_row(std::vector<double>{3, 0}, 1);
    p.add_row(std::vector<double>{0, 1}, 1);
    p.add_row(std::vector<double>{0, 0}, 0);
    const auto r = wp::refine(p);
    REQUIRE(r.singular_values.size() == 2);
    CHECK(r.singular_values[0] == near(3.0));
    CHECK(r.singular_values[1] == near(1.0));
    CHECK(r.condition_number == near(3.0));
    // Rows (3, 0) and (0, 1) are perfectly anti-correlated around their means.
    CHECK(r.correlation[0 * 3 + 1] == near(-1.0));
    CHECK(r.max_abs_correlation == near(1.0));
    CHECK(r.correlation[2 * 3 + 2] == 1.0);

    // Singular values keep the Frobenius norm: sum of squares of all entries.
    const auto q = synthetic({1, 1, 1, 1, 1}, 9, 0, 11);
    const auto s = wp::detail::singular_values(q.a, q.rows(), q.cols());
    double fro = 0;
    double sv2 = 0;
    for (double v : q.a)
        fro += v * v;
    for (double v : s)
        sv2 += v * v;
    CHECK(sv2 == near(fro, 1e-9));
    CHECK(std::is_sorted(s.rbegin(), s.rend()));
}

TEST_CASE("refinement through the model: modelled rows recover scaled peak powers") {
    // Measured power from a chip whose FP and DRAM are 30 % hungrier and L2 20 % leaner.
    wp::model_params real;
    wp::scale_component(real, wp::component::fp, 1.3);
    wp::scale_component(real, wp::component::dram, 1.3);
    wp::scale_component(real, wp::component::l2, 0.8);
    const wp::model modelled;
    const wp::model truth(real);
    warpkit::rng r(5);
    wp::lse_problem p;
    p.names = wp::component_names();
    for (int b = 0; b < 60; ++b) {
        auto a = wp::gtx480_reference_activity();
        // Stress components unevenly, one microbenchmark at a time.
        for (auto& s : a.sms)
            for (auto* f : {&s.decoded, &s.icache_accesses, &s.rf_reads, &s.collector_accesses,
                            &s.crossbar_transfers, &s.shared_bank_accesses, &s.shared_transfers,
                            &s.l1d_accesses, &s.const_accesses, &s.tex_accesses, &s.prt_accesses,
                            &s.int_ops, &s.fp_ops, &s.sfu_ops})
                *f = *f * (1 + r.below(8)) / 4;
        for (auto& s : a.sms)
            s.issued = s.issued * (1 + r.below(8)) / 4;
        a.chip.l2_accesses = a.chip.l2_accesses * (1 + r.below(8)) / 4;
        a.chip.noc_flits = a.chip.noc_flits * (1 + r.below(8)) / 4;
        a.chip.mc_requests = a.chip.mc_requests * (1 + r.below(8)) / 4;
        a.chip.dram.reads = a.chip.dram.reads * (1 + r.below(8)) / 4;
        const auto measured = truth.evaluate(a);
        p.add_row(wp::modeled_row(modelled, a),
                  measured.dynamic_total_w() - measured.idle_sm_w - measured.gating_overhead_w);
    }
    const auto res = wp::refine(p);
    // Scheduler and pipeline both count issued instructions: the suite cannot split them.
    CHECK(res.rank_deficient);
    CHECK(res.mean_abs_rel_error < 1e-9);
    auto idx = [](wp::component c) { return wp::index(c); };
    CHECK(res.x[idx(wp::component::fp)] == near(1.3, 1e-6));
    CHECK(res.x[idx(wp::component::l2)] == near(0.8, 1e-6));
    CHECK(res.x[idx(wp::component::int_alu)] == near(1.0, 1e-6));
    wp::model_params fixed;
    CHECK(wp::apply_scaling(fixed, p.names, res.x) == wp::component_count);
    CHECK(fixed.fp.peak_w == near(real.fp.peak_w, 1e-6));
}

TEST_CASE("constant-power fit on exact linear data (eq. 7)") {
    // The GTX480's 59 W constant power and 0.1 W per MHz.
    const std::vector<double> f = {300, 400, 500, 600, 700};
    std::vector<double> pw;
    for (double x : f)
        pw.push_back(0.1 * x + 59);
    const auto fit = wp::fit_constant_power(f, pw);
    CHECK(fit.k == near(0.1));
    CHECK(fit.p_const == near(59.0));
    CHECK(fit.r_squared == near(1.0));
    for (double e : fit.residuals)
        CHECK(std::abs(e) < 1e-9);
    CHECK_THROWS_AS(
        (void)wp::fit_constant_power(std::vector<double>{700, 700}, std::vector<double>{1, 2}),
        warpkit::config_error);
    CHECK_THROWS_AS((void)wp::fit_constant_power(std::vector<double>{700}, std::vector<double>{1}),
                    warpkit::config_error);
    CHECK_THROWS_AS(
        (void)wp::fit_constant_power(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2}),
        warpkit::config_error);
}

TEST_CASE("calibration CSV files: shapes, NaN, empty files") {
    const auto p =
        wp::read_lse_problem("int_alu, fp\n1,2\n3,4\n\n", "A.csv", "power\n5\n6\n", "P.csv");
    CHECK(p.names == std::vector<std::string>{"int_alu", "fp"});
    CHECK(p.rows() == 2);
    CHECK(p.at(1, 0) == 3.0);
    CHECK(p.measured[1] == 6.0);

    const auto fails = [](auto&& f, std::string file, std::size_t line, std::size_t col,
                          const char* text) {
        try {
            f();
            FAIL("accepted bad input");
        } catch (const warpkit::parse_error& e) {
            CHECK(e.file() == file);
            CHECK(e.line() == line);
            CHECK(e.column() == col);
            CHECK(e.message().find(text) != std::string::npos);
        }
    };
    fails([] { (void)wp::parse_csv_table("", "A.csv"); }, "A.csv", 1, 1, "empty file");
    fails([] { (void)wp::parse_csv_table("\n \n", "A.csv"); }, "A.csv", 1, 1, "empty file");
    fails([] { (void)wp::parse_csv_table("a,b\n", "A.csv"); }, "A.csv", 2, 1, "no data rows");
    fails([] { (void)wp::parse_csv_table("a,b\n1,2\n3\n", "A.csv"); }, "A.csv", 3, 1,
          "row has 1 values");
    fails([] { (void)wp::parse_csv_table("a,b\n1,nan\n", "A.csv"); }, "A.csv", 2, 3,
          "not a finite number");
    fails([] { (void)wp::parse_csv_table("a,b\n1, x7\n", "A.csv"); }, "A.csv", 2, 4,
          "not a number");
    fails([] { (void)wp::parse_csv_table("a,,b\n1,2,3\n", "A.csv"); }, "A.csv", 1, 3,
          "empty column name");
    fails([] { (void)wp::parse_csv_table("a,a\n1,2\n", "A.csv"); }, "A.csv", 1, 3, "duplicate");
    fails([] { (void)wp::read_lse_problem("a\n1\n2\n3\n", "A.csv", "power\n1\n2\n", "P.csv"); },
          "A.csv", 4, 1, "A.csv has 3 benchmarks but P.csv has 2");
    fails([] { (void)wp::read_lse_problem("a\n1\n", "A.csv", "watts\n1\n", "P.csv"); }, "P.csv", 1,
          1, "header 'power'");
    fails([] { (void)wp::read_frequency_points("f,p\n1,2\n", "F.csv"); }, "F.csv", 1, 1,
          "frequency,power");
    const auto pts = wp::read_frequency_points("frequency,power\r\n700,129\r\n350,94\r\n", "F.csv");
    CHECK(pts.first == std::vector<double>{700, 350});
    CHECK(pts.second == std::vector<double>{129, 94});
}
