#include <warpkit/core/lane_mask.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using warpkit::lane_mask;

TEST_CASE_TEMPLATE("lane_mask basics over widths", M, lane_mask<1>, lane_mask<5>, lane_mask<32>,
                   lane_mask<33>, lane_mask<64>) {
    constexpr std::size_t n = M::lanes;
    M m;
    CHECK(m.none());
    CHECK(!m.any());
    CHECK(m.count() == 0);
    CHECK(m.first() == n);
    CHECK(m.last() == n);
    CHECK(M::full().count() == n);
    CHECK(M::full().all());
    CHECK((~M{}).all());
    CHECK((~M::full()).none());
    m.set(n - 1);
    CHECK(m.count() == 1);
    CHECK(m.first() == n - 1);
    CHECK(m.last() == n - 1);
    CHECK(m.test(n - 1));
    CHECK(M::first_n(n) == M::full());
    CHECK(M::first_n(0).none());
    CHECK_THROWS_AS(m.set(n), warpkit::contract_error);
    static_assert(sizeof(M) == (n <= 32 ? 4 : 8), "one machine word");
}

TEST_CASE("lane_mask iterates set lanes in ascending order") {
    lane_mask<32> m{0x8000'0105U};
    std::vector<std::size_t> lanes;
    for (auto l : m)
        lanes.push_back(l);
    CHECK(lanes == std::vector<std::size_t>{0, 2, 8, 31});
    std::vector<std::size_t> lanes2;
    m.for_each([&](std::size_t l) { lanes2.push_back(l); });
    CHECK(lanes2 == lanes);
    CHECK(m.count() == 4);
    CHECK(m.first() == 0);
    CHECK(m.last() == 31);

    lane_mask<64> w{0x8000'0000'0000'0001ULL};
    std::vector<std::size_t> wl(w.begin(), w.end());
    CHECK(wl == std::vector<std::size_t>{0, 63});
}

TEST_CASE("lane_mask set algebra drops bits beyond N") {
    using M = lane_mask<5>;
    M a{0xFFU}; // only 5 bits survive
    CHECK(a.bits() == 0x1FU);
    M b{0b00110U};
    CHECK((a & b) == b);
    CHECK((a ^ b).bits() == 0b11001U);
    CHECK(a.minus(b).bits() == 0b11001U);
    CHECK(a.contains(b));
    CHECK(!b.contains(a));
    CHECK((~b).bits() == 0b11001U);
    CHECK(b.to_string() == "01100");
    M c;
    c.set(1).set(3);
    c.reset(1);
    CHECK(c.bits() == 0b01000U);
    CHECK(M::single(4).bits() == 0b10000U);
}
