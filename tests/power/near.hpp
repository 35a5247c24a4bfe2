#pragma once
// Relative comparison for the power tests (doctest's Approx adds an absolute 1.0 scale,
// far too loose for watts of a few milliwatts and for joules).
#include <doctest/doctest.h>

namespace power_test {
/// Equal to `v` within `rel` of its magnitude (0 only to 0 within 1e-300).
inline doctest::Approx near(double v, double rel = 1e-9) {
    return doctest::Approx(v).epsilon(rel).scale(v == 0 ? 1e-300 / rel : 0.0);
}
/// |x| below `tolerance`.
inline bool negligible(double x, double tolerance = 1e-12) {
    return x < tolerance && x > -tolerance;
}
} // namespace power_test
