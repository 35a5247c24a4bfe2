// Fuzz target: the power-calibration CSV readers (power/calibration_csv.hpp) and what
// warpkit-power does with what they read: LSE refinement and the constant-power fit.
//
// Input: one CSV file, or an activity file and a measured-power file separated by a line
// `===`. Laws: a table that reads is rectangular, finite and in source-line order; a
// problem that reads refines to one factor per column and one fit per benchmark.
#include "fuzz.hpp"

#include <warpkit/power/calibration.hpp>
#include <warpkit/power/calibration_csv.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using namespace warpkit;

void check_table(std::string_view text) {
    power::csv_table t;
    if (!fuzz::expect_errors([&] { t = power::parse_csv_table(text, "<fuzz>"); })) return;
    WARPKIT_FUZZ_LAW(t.cols() > 0 && t.rows() > 0);
    WARPKIT_FUZZ_LAW(t.values.size() == t.rows() * t.cols());
    for (const double v : t.values)
        WARPKIT_FUZZ_LAW(std::isfinite(v));
    for (std::size_t r = 1; r < t.rows(); ++r)
        WARPKIT_FUZZ_LAW(t.lines[r] > t.lines[r - 1] && t.lines[0] > 1);
}

void check_points(std::string_view text) {
    std::pair<std::vector<double>, std::vector<double>> pts;
    if (!fuzz::expect_errors([&] { pts = power::read_frequency_points(text, "<fuzz>"); })) return;
    WARPKIT_FUZZ_LAW(!pts.first.empty() && pts.first.size() == pts.second.size());
    power::constant_fit f;
    if (!fuzz::expect_errors([&] { f = power::fit_constant_power(pts.first, pts.second); })) return;
    WARPKIT_FUZZ_LAW(f.residuals.size() == pts.first.size());
}

void check_problem(std::string_view activity, std::string_view measured) {
    power::lse_problem p;
    if (!fuzz::expect_errors([&] {
            p = power::read_lse_problem(activity, "activity.csv", measured, "measured.csv");
        }))
        return;
    WARPKIT_FUZZ_LAW(p.rows() > 0 && p.cols() > 0 && p.a.size() == p.rows() * p.cols());
    const bool valid = fuzz::expect_errors([&] { p.validate(); });
    WARPKIT_FUZZ_LAW(valid);
    // Refinement is cubic in the size; the readers are the target, keep the solve small.
    if (p.rows() * p.cols() > 4096) return;
    power::lse_result r;
    if (!fuzz::expect_errors([&] { r = power::refine(p); })) return;
    WARPKIT_FUZZ_LAW(r.x.size() == p.cols() && r.fitted.size() == p.rows());
    WARPKIT_FUZZ_LAW(r.residuals.size() == p.rows() && r.relative_errors.size() == p.rows());
    WARPKIT_FUZZ_LAW(r.rank <= p.cols() && r.rank <= p.rows());
    WARPKIT_FUZZ_LAW(r.singular_values.size() == p.cols());
    WARPKIT_FUZZ_LAW(r.correlation.size() == p.rows() * p.rows());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const std::string_view sep = "\n===\n";
    if (const auto at = text.find(sep); at != std::string_view::npos) {
        check_problem(text.substr(0, at + 1), text.substr(at + sep.size()));
        return 0;
    }
    check_table(text);
    check_points(text);
    return 0;
}
