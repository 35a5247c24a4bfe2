// SIMT stats: the lane-utilisation bins of paper 001 Fig. 16 and how they scale with the warp
// size; the stats struct reflects, sums and serialises like every other stats struct.

#include <warpkit/core/json.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>
#include <warpkit/simt/stats.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

using namespace warpkit::simt;

TEST_CASE("lane-utilisation bins: 0, 1-2, 3-4, ..., 31-32 for a 32-lane warp") {
    const stack_stats s;
    const auto& h = s.lane_utilisation;
    CHECK(h.label(0) == "0");
    CHECK(h.label(1) == "1-2");
    CHECK(h.label(2) == "3-4");
    CHECK(h.label(15) == "29-30");
    CHECK(h.lower(16) == 31); // the last bin is 31-32 (open-ended in the histogram)
    CHECK(lane_utilisation_bounds(32) == h.lower_bounds());
    stack_stats t;
    for (std::size_t lanes = 0; lanes <= 32; ++lanes)
        record_active_lanes(t, lanes);
    CHECK(t.lane_utilisation.count(0) == 1);
    for (std::size_t b = 1; b < lane_utilisation_bins; ++b)
        CHECK(t.lane_utilisation.count(b) == 2);
    CHECK(t.lane_utilisation.sum() == 32 * 33 / 2);
}

TEST_CASE("lane-utilisation bins scale with the warp size") {
    CHECK(lane_utilisation_width(32) == 2);
    CHECK(lane_utilisation_width(64) == 4);
    CHECK(lane_utilisation_width(16) == 1);
    CHECK(lane_utilisation_width(8) == 1);
    CHECK(lane_utilisation_width(48) == 3);
    const auto b64 = lane_utilisation_bounds(64);
    CHECK(b64[0] == 0);
    CHECK(b64[1] == 1);
    CHECK(b64[2] == 5);
    CHECK(b64[16] == 61); // 61-64
    const auto b8 = lane_utilisation_bounds(8);
    for (std::size_t i = 0; i < b8.size(); ++i)
        CHECK(b8[i] == i);
    const auto s = make_stack_stats(64);
    CHECK(s.lane_utilisation.label(1) == "1-4");
    CHECK(s.lane_utilisation.label(15) == "57-60");
}

TEST_CASE("record_issue counts the active lanes of the issuing path") {
    pdom_stack<64> p(0);
    p.record_issue();                                    // 64 lanes: last bin
    p.branch(pdom_stack<64>::mask_type{0x7}, 10, 1, 20); // 3 lanes taken
    p.record_issue();                                    // 3 lanes: bin 1 (1-4)
    CHECK(p.stats().lane_utilisation.count(16) == 1);
    CHECK(p.stats().lane_utilisation.count(1) == 1);
    ssy_stack<16> q(0);
    q.record_issue();
    q.exit(ssy_stack<16>::mask_type{0xFFF0}); // 12 lanes exit, 4 remain
    q.record_issue();
    CHECK(q.stats().lane_utilisation.count(16) == 1);
    CHECK(q.stats().lane_utilisation.count(4) == 1);
}

TEST_CASE("stack stats are reflected: they add up and serialise") {
    pdom_stack<32> a(0);
    a.branch(warpkit::warp_mask{0xFFFF}, 5, 1, 9);
    a.record_issue();
    ssy_stack<32> b(0);
    b.branch(warpkit::warp_mask{0xFFFFFFFF}, 5, 1);
    b.record_issue();
    const std::vector<stack_stats> all{a.stats(), b.stats()};
    const stack_stats total = warpkit::sum_stats(all);
    CHECK(total.divergent_branches == 1);
    CHECK(total.uniform_branches == 1);
    CHECK(total.lane_utilisation.samples() == 2);
    CHECK(total.lane_utilisation.count(8) == 1);  // 16 lanes: 15-16
    CHECK(total.lane_utilisation.count(16) == 1); // 32 lanes
    const auto j = warpkit::stats_to_json(total);
    CHECK(j["divergent_branches"] == 1);
    CHECK(j["lane_utilisation"]["labels"][1] == "1-2");
    CHECK(j["depth_at_divergence"]["counts"][3] == 1);
    const std::string header = warpkit::stats_csv_header(total);
    CHECK(header.find("reconvergences") != std::string::npos);
    CHECK(header.find("lane_utilisation") != std::string::npos);
    // Other warp sizes add up into stats made for that size.
    pdom_stack<8> c(0);
    c.record_issue();
    stack_stats into = make_stack_stats(8);
    warpkit::accumulate(into, c.stats());
    warpkit::accumulate(into, c.stats());
    CHECK(into.lane_utilisation.count(8) == 2);
    // ... and not into stats with 32-lane bins.
    stack_stats wrong;
    CHECK_THROWS_AS(warpkit::accumulate(wrong, c.stats()), warpkit::config_error);
    a.reset_stats();
    CHECK(a.stats().divergent_branches == 0);
    CHECK(a.stats().lane_utilisation.lower_bounds() == lane_utilisation_bounds(32));
}
