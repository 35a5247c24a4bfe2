#include <warpkit/core/clock_domains.hpp>
#include <warpkit/core/cycle.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>
#include <vector>

using warpkit::clock_domains;
using warpkit::cycle;
using namespace warpkit::literals;

TEST_CASE("cycle is a strong integer with offset arithmetic") {
    cycle c{10};
    CHECK(c.value() == 10);
    CHECK((c + 5u).value() == 15);
    CHECK((c + 3_cy) == 13_cy);
    CHECK((20_cy - c) == 10_cy);
    ++c;
    CHECK(c == 11_cy);
    c += 4u;
    CHECK(c == 15_cy);
    CHECK(1_cy < 2_cy);
    static_assert(!std::is_convertible_v<int, cycle>, "no implicit conversion from int");
    static_assert(!std::is_convertible_v<cycle, std::uint64_t>, "no implicit conversion out");
}

namespace {
// The GTX480 clock set: core, interconnect and L2 at 700 MHz, DRAM at 924 MHz, plus a
// front-end-sharing cluster NoC at twice the core clock.
struct gtx480_clocks {
    clock_domains clk;
    clock_domains::id core = clk.add_mhz("core", 700);
    clock_domains::id icnt = clk.add_mhz("icnt", 700);
    clock_domains::id l2 = clk.add_mhz("l2", 700);
    clock_domains::id dram = clk.add_mhz("dram", 924);
    clock_domains::id cnoc = clk.add_mhz("cluster_noc", 1400);
};
} // namespace

TEST_CASE("clock_domains steps GTX480 domains in hand-computed edge order") {
    gtx480_clocks g;
    const std::uint32_t core3 = (1U << g.core) | (1U << g.icnt) | (1U << g.l2);
    const std::uint32_t c = 1U << g.cnoc;
    const std::uint32_t d = 1U << g.dram;
    // Edge times by hand: core k*1428.571 ps, DRAM k*1082.251 ps, cluster NoC k*714.286 ps.
    const std::vector<std::pair<std::uint64_t, std::uint32_t>> expected = {
        {0, core3 | c | d}, {714, c},          {1082, d}, {1428, core3 | c}, {2142, c},
        {2164, d},          {2857, core3 | c}, {3246, d}, {3571, c},         {4285, core3 | c},
        {4329, d},          {5000, c},         {5411, d}, {5714, core3 | c},
    };
    for (const auto& [t, mask] : expected) {
        const auto e = g.clk.next();
        CHECK(e.time_ps == t);
        CHECK(e.mask == mask);
    }
    CHECK(g.clk.cycles(g.core) == cycle{5});
    CHECK(g.clk.cycles(g.dram) == cycle{6});
    CHECK(g.clk.cycles(g.cnoc) == cycle{9});
}

TEST_CASE("clock_domains keeps exact time: 700 and 924 MHz edges meet at 1 us") {
    gtx480_clocks g;
    bool met = false;
    while (true) {
        const auto e = g.clk.next();
        REQUIRE(e.time_ps <= 1'000'000);
        if (e.time_ps == 1'000'000 && g.clk.now_is_exactly_ps(1'000'000)) {
            CHECK(e.has(g.core));
            CHECK(e.has(g.dram));
            CHECK(e.has(g.cnoc));
            met = true;
            break;
        }
        if (e.has(g.core)) {
            // Between 0 and 1 us a DRAM edge never coincides with a core edge: 924/700 = 33/25,
            // so they meet every 25 core cycles (35.714 ns) and at those points only.
            const bool on_grid = (g.clk.cycles(g.core).value() - 1) % 25 == 0;
            CHECK(e.has(g.dram) == on_grid);
        }
    }
    CHECK(met);
    // Edges in [0, 1 us]: 701 core, 925 DRAM, 1401 cluster NoC (t = 0 counts).
    CHECK(g.clk.cycles(g.core) == cycle{701});
    CHECK(g.clk.cycles(g.dram) == cycle{925});
    CHECK(g.clk.cycles(g.cnoc) == cycle{1401});
}

TEST_CASE("clock_domains by period and kHz") {
    clock_domains clk;
    const auto a = clk.add_period_ps("a", 1000); // 1 GHz
    const auto b = clk.add_khz("b", 1'500'000);  // 1.5 GHz: 666.67 ps
    std::vector<std::pair<std::uint64_t, std::uint32_t>> seen;
    for (int i = 0; i < 6; ++i) {
        const auto e = clk.next();
        seen.emplace_back(e.time_ps, e.mask);
    }
    const std::uint32_t ma = 1U << a;
    const std::uint32_t mb = 1U << b;
    const std::vector<std::pair<std::uint64_t, std::uint32_t>> expected = {
        {0, ma | mb}, {666, mb}, {1000, ma}, {1333, mb}, {2000, ma | mb}, {2666, mb}};
    CHECK(seen == expected);
}

TEST_CASE("clock_domains rejects bad frequencies and late additions") {
    clock_domains clk;
    CHECK_THROWS_AS(clk.add_mhz("core", 0), warpkit::config_error);
    CHECK_THROWS_AS(clk.add_period_ps("x", 0), warpkit::config_error);
    try {
        clk.add_mhz("dram", 0);
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "dram.frequency_mhz");
        CHECK(e.value() == "0");
    }
    CHECK_THROWS_AS(clk.next(), warpkit::contract_error); // no domains yet
    clk.add_mhz("core", 700);
    (void)clk.next();
    CHECK_THROWS_AS(clk.add_mhz("late", 100), warpkit::contract_error);
}
