#include <warpkit/core/histogram.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>

using warpkit::histogram;

TEST_CASE("histogram bins values by lower bounds") {
    // Lane-utilisation bins: 0, 1-2, 3-4, ..., 31-32 collapse to 17 bins starting 0,1,3,5,...
    std::array<std::uint64_t, 17> lo{};
    lo[0] = 0;
    for (std::size_t i = 1; i < lo.size(); ++i)
        lo[i] = 2 * i - 1;
    histogram<17> h(lo);
    h.add(0);
    h.add(1);
    h.add(2);
    h.add(3);
    h.add(32, 5);
    CHECK(h.count(0) == 1);
    CHECK(h.count(1) == 2);
    CHECK(h.count(2) == 1);
    CHECK(h.count(16) == 5);
    CHECK(h.label(0) == "0");
    CHECK(h.label(1) == "1-2");
    CHECK(h.label(15) == "29-30");
    CHECK(h.label(16) == "31+");
    CHECK(h.samples() == 9);
    CHECK(h.sum() == 0 + 1 + 2 + 3 + 32 * 5);
    CHECK(h.mean() == doctest::Approx(166.0 / 9.0));
    CHECK(h.underflow() == 0);
}

TEST_CASE("histogram linear bins, underflow, sum and shape mismatch") {
    auto h = histogram<4>::linear(10, 5); // [10,15) [15,20) [20,25) [25,inf)
    h.add(9);
    h.add(10);
    h.add(14);
    h.add(15);
    h.add(1000);
    CHECK(h.underflow() == 1);
    CHECK(h.count(0) == 2);
    CHECK(h.count(1) == 1);
    CHECK(h.count(3) == 1);
    CHECK(h.upper(0) == 14);
    auto g = histogram<4>::linear(10, 5);
    g.add(21, 3);
    g += h;
    CHECK(g.count(2) == 3);
    CHECK(g.samples() == 8);
    auto other = histogram<4>::linear(0, 5);
    CHECK_THROWS_AS(other += h, warpkit::config_error);
    CHECK_THROWS_AS((histogram<3>(std::array<std::uint64_t, 3>{0, 5, 5})), warpkit::config_error);
    CHECK_THROWS_AS((void)histogram<3>::linear(0, 0), warpkit::config_error);
    histogram<3> unit; // 0, 1, 2+
    unit.add(7);
    CHECK(unit.count(2) == 1);
    CHECK(unit.label(2) == "2+");
}

namespace {

// bin_of by a scan from the top: the last bin whose lower bound is <= v (Bins: underflow).
template <std::size_t Bins>
std::size_t bin_by_scan(const std::array<std::uint64_t, Bins>& lo, std::uint64_t v) {
    for (std::size_t i = Bins; i-- > 0;)
        if (lo[i] <= v) return i;
    return Bins;
}

template <std::size_t Bins>
void check_bins_against_scan(std::mt19937_64& rng) {
    for (int round = 0; round < 50; ++round) {
        std::array<std::uint64_t, Bins> lo{};
        std::uint64_t at = rng() % 5;
        for (auto& b : lo) {
            b = at;
            at += 1 + rng() % 9;
        }
        const histogram<Bins> h(lo);
        for (std::uint64_t v = 0; v < at + 3; ++v) {
            CAPTURE(Bins);
            CAPTURE(v);
            CHECK(h.bin_of(v) == bin_by_scan(lo, v));
        }
    }
}

} // namespace

TEST_CASE("histogram: bin_of agrees with a scan for every bin count's halving steps") {
    std::mt19937_64 rng(11);
    check_bins_against_scan<1>(rng);
    check_bins_against_scan<2>(rng);
    check_bins_against_scan<3>(rng);
    check_bins_against_scan<16>(rng);
    check_bins_against_scan<17>(rng);
    check_bins_against_scan<33>(rng);
    check_bins_against_scan<48>(rng);
    check_bins_against_scan<65>(rng);
}
