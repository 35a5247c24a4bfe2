// Fuzz target: the AMOEBA coefficient-file reader (reconfig::read_coefficients).
//
// Laws: a model that reads has finite coefficients and known, distinct metric names; written
// back (write_coefficients) it reads to the same model bit for bit and prints to the same
// text; it predicts a probability in [0, 1] for in-range metric values.
#include "coefficients_law.hpp"
#include "fuzz.hpp"

#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace warpkit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    reconfig::logistic_regression m({}, 0.0, {});
    if (!fuzz::expect_errors([&] { m = reconfig::read_coefficients(text, "<fuzz>"); })) return 0;
    WARPKIT_FUZZ_LAW(std::isfinite(m.intercept()));
    WARPKIT_FUZZ_LAW(m.names().size() == m.weights().size());
    for (std::size_t i = 0; i < m.names().size(); ++i) {
        WARPKIT_FUZZ_LAW(reconfig::metric_index(m.names()[i]).has_value());
        WARPKIT_FUZZ_LAW(std::isfinite(m.weights()[i]));
    }
    const std::string file = reconfig::write_coefficients(m);
    const reconfig::logistic_regression back = fuzz::read_back(file, m);
    WARPKIT_FUZZ_LAW(reconfig::write_coefficients(back) == file);

    // Metric values at both ends of [0, 1]: the probability is a probability.
    for (const double v : {0.0, 1.0}) {
        const std::vector<double> x(m.inputs(), v);
        reconfig::prediction pr{};
        if (!fuzz::expect_errors([&] { pr = m.predict(x); })) continue;
        WARPKIT_FUZZ_LAW(pr.probability >= 0.0 && pr.probability <= 1.0);
    }
    return 0;
}
