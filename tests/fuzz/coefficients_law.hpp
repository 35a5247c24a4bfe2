#pragma once
// The law both AMOEBA fuzz targets (amoeba_coefficients, amoeba_training) check on a model
// they hold: written as a coefficient file, it reads back to the same model bit for bit.
#include "fuzz.hpp"

#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace warpkit::fuzz {

/// True when the two models have the same metric names and the same coefficients, bit for bit.
[[nodiscard]] inline bool same_bits(const reconfig::logistic_regression& a,
                                    const reconfig::logistic_regression& b) {
    if (a.names() != b.names() || a.weights().size() != b.weights().size()) return false;
    if (std::bit_cast<std::uint64_t>(a.intercept()) != std::bit_cast<std::uint64_t>(b.intercept()))
        return false;
    for (std::size_t i = 0; i < a.weights().size(); ++i)
        if (std::bit_cast<std::uint64_t>(a.weights()[i]) !=
            std::bit_cast<std::uint64_t>(b.weights()[i]))
            return false;
    return true;
}

/// Reads `file`, the coefficient file written for `model`, back: the laws are that it reads
/// and gives `model` again, bit for bit. Returns the model read back.
inline reconfig::logistic_regression read_back(const std::string& file,
                                               const reconfig::logistic_regression& model) {
    reconfig::logistic_regression back({}, 0.0, {});
    const bool reads =
        expect_errors([&] { back = reconfig::read_coefficients(file, "<written>"); });
    WARPKIT_FUZZ_LAW(reads);
    WARPKIT_FUZZ_LAW(same_bits(back, model));
    return back;
}

} // namespace warpkit::fuzz
