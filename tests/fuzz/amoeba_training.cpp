// Fuzz target: the AMOEBA training-data reader (reconfig::read_training_csv) and the training
// warpkit-amoeba runs on what it reads.
//
// Laws: a set that reads has one label (0 or 1) per row, every value finite and inside its
// metric's range; a model trained on it writes a coefficient file that reads back to the
// same model bit for bit.
#include "coefficients_law.hpp"
#include "fuzz.hpp"

#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/logistic_fit.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace warpkit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    reconfig::training_set set;
    if (!fuzz::expect_errors([&] { set = reconfig::read_training_csv(text, "<fuzz>"); })) return 0;
    WARPKIT_FUZZ_LAW(set.rows() > 0 && set.cols() > 0);
    WARPKIT_FUZZ_LAW(set.x.size() == set.rows() * set.cols());
    WARPKIT_FUZZ_LAW(set.lines.size() == set.rows());
    for (const auto l : set.labels)
        WARPKIT_FUZZ_LAW(l == 0 || l == 1);
    for (std::size_t c = 0; c < set.cols(); ++c) {
        const auto k = reconfig::metric_index(set.names[c]);
        WARPKIT_FUZZ_LAW(k.has_value());
        for (std::size_t r = 0; r < set.rows(); ++r) {
            WARPKIT_FUZZ_LAW(std::isfinite(set.at(r, c)));
            const bool in_range =
                fuzz::expect_errors([&] { reconfig::check_metric(*k, set.at(r, c)); });
            WARPKIT_FUZZ_LAW(in_range);
        }
    }

    reconfig::fit_params fp;
    fp.max_iterations = 50;
    fp.l2 = size % 2 == 0 ? 0.0 : 0.5;
    reconfig::fit_result fit{reconfig::logistic_regression({}, 0.0, {}), {}, 0, 0.0, 0};
    if (!fuzz::expect_errors([&] { fit = reconfig::fit_logistic_regression(set, fp); })) return 0;
    WARPKIT_FUZZ_LAW(fit.model.names() == set.names);
    WARPKIT_FUZZ_LAW(fit.correct <= set.rows());
    const std::string file = reconfig::write_coefficients(fit.model);
    fuzz::read_back(file, fit.model);
    return 0;
}
