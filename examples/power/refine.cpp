// The LSE refinement subcommand: the only translation unit of warpkit-power that
// instantiates the Eigen solver.
#include "commands.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/power/calibration.hpp>
#include <warpkit/power/calibration_csv.hpp>

#include <cstdio>
#include <string>

namespace example {

int run_refine(const std::string& activity_file, const std::string& measured_file) {
    const auto problem =
        warpkit::power::read_lse_problem(warpkit::read_file(activity_file), activity_file,
                                         warpkit::read_file(measured_file), measured_file);
    const auto r = warpkit::power::refine(problem);
    for (std::size_t c = 0; c < problem.cols(); ++c)
        std::printf("%s %.10g\n", problem.names[c].c_str(), r.x[c]);
    std::printf("mean_abs_rel_error %.10g\n", r.mean_abs_rel_error);
    std::fprintf(stderr, "rank %zu of %zu, condition number %.6g, max benchmark correlation %.4f\n",
                 r.rank, problem.cols(), r.condition_number, r.max_abs_correlation);
    for (std::size_t i = 0; i < problem.rows(); ++i)
        std::fprintf(stderr, "  benchmark %zu: measured %.6g fitted %.6g relative error %.4f\n", i,
                     problem.measured[i], r.fitted[i], r.relative_errors[i]);
    for (const auto& w : r.warnings)
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    return 0;
}

} // namespace example
