// AMOEBA's dynamic split of a fused SM (paper 002 Sec. 4.3): the switch controller's
// decisions, hand-computed cuts of divergent warps, parameter errors.
#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/reconfig/sm_split.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rc = warpkit::reconfig;
using mask64 = warpkit::lane_mask<64>;

namespace {

rc::sm_split_params params(rc::split_mode m, double threshold, std::uint32_t interval) {
    rc::sm_split_params p;
    p.mode = m;
    p.threshold = threshold;
    p.check_interval = interval;
    return p;
}

rc::split_observation seen(std::uint32_t warps, std::uint32_t divergent,
                           std::uint32_t second_divergent = 0, bool second_issued = true) {
    return {warps, divergent, second_divergent, second_divergent, second_issued};
}

// Lanes [lo, hi).
mask64 lanes(std::size_t lo, std::size_t hi) {
    return mask64::first_n(hi).minus(mask64::first_n(lo));
}

} // namespace

TEST_CASE("split controller: off never acts") {
    rc::sm_split_controller c;
    CHECK_FALSE(c.enabled());
    for (int i = 0; i < 1000; ++i)
        CHECK(c.tick(seen(32, 32)) == rc::split_action::none);
    CHECK(c.stats().checks == 0);
}

TEST_CASE("split controller: splits when the divergent ratio exceeds the threshold, at checks") {
    rc::sm_split_controller c(params(rc::split_mode::direct, 0.25, 4));
    // 8 of 32 warps divergent is exactly the threshold: not above it.
    for (int i = 0; i < 3; ++i)
        CHECK(c.tick(seen(32, 8)) == rc::split_action::none);
    CHECK(c.tick(seen(32, 8)) == rc::split_action::none); // 4th cycle: a check, 0.25 !> 0.25
    CHECK(c.stats().checks == 1);
    // 9 of 32 is above, but only the check cycle acts.
    for (int i = 0; i < 3; ++i)
        CHECK(c.tick(seen(32, 9)) == rc::split_action::none);
    CHECK(c.tick(seen(32, 9)) == rc::split_action::split);
    CHECK(c.stats().checks == 2);
    // The SM found nothing it could move: still fused, collects again.
    c.split_done(0);
    CHECK_FALSE(c.split());
    CHECK(c.stats().splits == 0);
    for (int i = 0; i < 3; ++i)
        CHECK(c.tick(seen(32, 9)) == rc::split_action::none);
    CHECK(c.tick(seen(32, 9)) == rc::split_action::split);
    c.split_done(7);
    c.moved(14, 7);
    CHECK(c.split());
    CHECK(c.stats().splits == 1);
    CHECK(c.stats().warps_moved == 14);
    CHECK(c.stats().warps_cut == 7);
    // No resident warps: nothing to split.
    rc::sm_split_controller empty(params(rc::split_mode::direct, 0.0, 1));
    CHECK(empty.tick(seen(0, 0)) == rc::split_action::none);
    CHECK(empty.tick(seen(4, 1)) == rc::split_action::split);
}

TEST_CASE("split controller: re-fuses as soon as SM1 has finished its divergent warps") {
    rc::sm_split_controller c(params(rc::split_mode::direct, 0.0, 10));
    for (int i = 0; i < 9; ++i)
        CHECK(c.tick(seen(4, 1)) == rc::split_action::none);
    CHECK(c.tick(seen(4, 1)) == rc::split_action::split);
    c.split_done(1);
    CHECK(c.tick(seen(3, 0, 2)) == rc::split_action::none);
    CHECK(c.tick(seen(3, 0, 1)) == rc::split_action::none);
    CHECK(c.tick(seen(3, 0, 0)) == rc::split_action::refuse);
    c.refused();
    CHECK_FALSE(c.split());
    CHECK(c.stats().refuses == 1);
    CHECK(c.stats().split_cycles == 3);
    // A fresh interval starts at the re-fuse.
    for (int i = 0; i < 9; ++i)
        CHECK(c.tick(seen(4, 1)) == rc::split_action::none);
    CHECK(c.tick(seen(4, 1)) == rc::split_action::split);
}

TEST_CASE("split controller: regrouping gives a stalling SM1 a fast warp; direct split does not") {
    for (auto mode : {rc::split_mode::regroup, rc::split_mode::direct}) {
        CAPTURE(static_cast<int>(mode));
        rc::sm_split_controller c(params(mode, 0.0, 4));
        for (int i = 0; i < 3; ++i)
            (void)c.tick(seen(4, 2));
        REQUIRE(c.tick(seen(4, 2)) == rc::split_action::split);
        c.split_done(2);
        // SM1 idle 3 of 4 cycles: 0.75 > 0.5.
        CHECK(c.tick(seen(2, 0, 2, false)) == rc::split_action::none);
        CHECK(c.tick(seen(2, 0, 2, false)) == rc::split_action::none);
        CHECK(c.tick(seen(2, 0, 2, true)) == rc::split_action::none);
        const auto a = c.tick(seen(2, 0, 2, false));
        CHECK(a == (mode == rc::split_mode::regroup ? rc::split_action::rebalance
                                                    : rc::split_action::none));
        // Idle exactly half of the next interval: not above the share.
        CHECK(c.tick(seen(2, 0, 2, false)) == rc::split_action::none);
        CHECK(c.tick(seen(2, 0, 2, false)) == rc::split_action::none);
        CHECK(c.tick(seen(2, 0, 2, true)) == rc::split_action::none);
        CHECK(c.tick(seen(2, 0, 2, true)) == rc::split_action::none);
        // Idle because it holds no warp yet (the binned ones drain): not a stall.
        rc::split_observation empty = seen(2, 0, 2, false);
        empty.second_warps = 0;
        for (int i = 0; i < 4; ++i)
            CHECK(c.tick(empty) == rc::split_action::none);
    }
}

TEST_CASE("direct split cuts a warp in the middle") {
    const auto c = rc::direct_split(mask64::full());
    CHECK(c.first == lanes(0, 32));
    CHECK(c.second == lanes(32, 64));
    // Exited threads stay out of both parts.
    const auto live = lanes(8, 40);
    const auto d = rc::direct_split(live);
    CHECK(d.first == lanes(8, 32));
    CHECK(d.second == lanes(32, 40));
    // A warp whose live threads all sit in one half: the other part is empty.
    CHECK(rc::direct_split(lanes(40, 64)).first.none());
}

TEST_CASE("warp regrouping: fast groups stay together, the slowest groups form the slow warp") {
    // 64 threads in 8 groups of 8. The running path holds groups 1, 3, 5, 7 whole; groups 0,
    // 2, 4, 6 wait entirely. Fast warp: the four fast groups; slow warp: the four waiting.
    mask64 active{};
    for (std::size_t g : {1U, 3U, 5U, 7U})
        active |= lanes(8 * g, 8 * g + 8);
    auto c = rc::regroup(mask64::full(), active, 8);
    CHECK(c.first == active);
    CHECK(c.second == mask64::full().minus(active));

    // Group 2 is mixed (lanes 16..19 run, 20..23 wait: 4 waiting), groups 4..7 wait whole
    // (8 waiting), groups 0, 1, 3 run. Fast warp: 0, 1, 3 plus the least slow group 2
    // (the slow warp may hold only four groups).
    active = lanes(0, 20) | lanes(24, 32);
    c = rc::regroup(mask64::full(), active, 8);
    CHECK(c.first == lanes(0, 32));
    CHECK(c.second == lanes(32, 64));

    // Six fast groups: the fast warp holds four (lowest index first), the other two join
    // the slow warp with the two waiting groups.
    active = lanes(0, 48);
    c = rc::regroup(mask64::full(), active, 8);
    CHECK(c.first == lanes(0, 32));
    CHECK(c.second == lanes(32, 64));

    // Only three groups hold live threads, none fast: one warp already fits; no fast warp.
    const auto live = lanes(0, 24);
    c = rc::regroup(live, lanes(0, 4), 8);
    CHECK(c.first.none());
    CHECK(c.second == live);

    // Groups of 4 threads: lanes 0..3 and 60..63 run, the rest wait.
    active = lanes(0, 4) | lanes(60, 64);
    c = rc::regroup(mask64::full(), active, 4);
    CHECK(c.first.count() == 32);
    CHECK(c.second.count() == 32);
    CHECK(c.first.contains(active));
}

TEST_CASE("warp regrouping and direct split neither lose nor create threads (every mask)") {
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const mask64 live{x};
        const mask64 active = live & mask64{x * 0xbf58476d1ce4e5b9ULL};
        for (std::uint32_t g : {1U, 2U, 4U, 8U, 16U, 32U}) {
            const auto c = rc::regroup(live, active, g);
            CHECK((c.first | c.second) == live);
            CHECK((c.first & c.second).none());
            // Each part fits a warp of half the width: at most half the groups.
            std::size_t gf = 0;
            std::size_t gs = 0;
            for (std::size_t k = 0; k < 64 / g; ++k) {
                const auto grp = lanes(k * g, k * g + g);
                gf += (c.first & grp).any() ? 1 : 0;
                gs += (c.second & grp).any() ? 1 : 0;
            }
            CHECK(gf <= 32 / g);
            CHECK(gs <= 32 / g);
        }
        const auto d = rc::direct_split(live);
        CHECK((d.first | d.second) == live);
        CHECK((d.first & d.second).none());
    }
}

TEST_CASE("split params: bad values are named") {
    rc::sm_split_params p;
    p.threshold = 1.0;
    CHECK_THROWS_WITH_AS(warpkit::validate(p), doctest::Contains("threshold"),
                         warpkit::config_error);
    p = {};
    p.check_interval = 0;
    CHECK_THROWS_WITH_AS(warpkit::validate(p), doctest::Contains("check_interval"),
                         warpkit::config_error);
    p = {};
    p.group_lanes = 3;
    CHECK_THROWS_WITH_AS(warpkit::validate(p), doctest::Contains("group_lanes"),
                         warpkit::config_error);
    p = {};
    p.rebalance_idle = 0.0;
    CHECK_THROWS_WITH_AS(warpkit::validate(p), doctest::Contains("rebalance_idle"),
                         warpkit::config_error);
    p = {};
    warpkit::apply_overrides(p, std::vector<std::string>{"mode=regroup", "threshold=0.5"});
    CHECK(p.mode == rc::split_mode::regroup);
    CHECK(p.threshold == 0.5);
    CHECK_THROWS_AS(warpkit::apply_overrides(p, std::vector<std::string>{"mode=sideways"}), warpkit::config_error);
}
