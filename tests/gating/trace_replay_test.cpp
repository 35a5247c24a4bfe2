// Hand-computed demand traces through warpkit-gating's replay (idle_detect 5, break-even 14,
// wakeup 3 unless stated). Arrivals queue; the block serves one per cycle while on.
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/trace_replay.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gating = warpkit::gating;
using adaptive = gating::adaptive_idle_detect<gating::naive_blackout>;

namespace {

std::vector<std::uint8_t> trace(const std::string& s) {
    return gating::parse_demand_trace(s);
}
std::string zeros(std::size_t n) {
    return std::string(n, '0');
}

// The counters a row of the hand-computed table gives.
struct expected {
    std::uint64_t cycles, gating_events, wakeups, negative, critical, uncompensated, compensated,
        waking, on, stall;
    double savings;
};

void check_row(const gating::replay_result& r, const expected& e) {
    const auto& s = r.stats;
    CHECK(r.cycles == e.cycles);
    CHECK(s.cycles == e.cycles);
    CHECK(s.gating_events == e.gating_events);
    CHECK(s.wakeups == e.wakeups);
    CHECK(s.negative_events == e.negative);
    CHECK(s.critical_wakeups == e.critical);
    CHECK(s.uncompensated_cycles == e.uncompensated);
    CHECK(s.compensated_cycles == e.compensated);
    CHECK(s.waking_cycles == e.waking);
    CHECK(s.on_cycles == e.on);
    CHECK(s.stall_cycles == e.stall);
    CHECK(r.static_energy_savings == doctest::Approx(e.savings));
}

} // namespace

TEST_CASE("trace parsing: 0/1 per cycle, whitespace ignored, errors say where") {
    CHECK(trace(" 1 0\n\t1\r\n0 ") == std::vector<std::uint8_t>{1, 0, 1, 0});
    CHECK(trace("").empty());
    try {
        static_cast<void>(gating::parse_demand_trace("10 1\n0x1", "t.txt"));
        FAIL("expected parse_error");
    } catch (const warpkit::parse_error& e) {
        CHECK(e.file() == "t.txt");
        CHECK(e.line() == 2);
        CHECK(e.column() == 2);
        CHECK(e.message() == "unexpected 'x' at cycle 4 (expected '0', '1' or whitespace)");
    }
    try {
        static_cast<void>(gating::parse_demand_trace(std::string("01\x01", 3)));
        FAIL("expected parse_error");
    } catch (const warpkit::parse_error& e) {
        CHECK(e.column() == 3);
        CHECK(e.message().find("byte 0x01 at cycle 2") != std::string::npos);
    }
    CHECK_THROWS_AS(static_cast<void>(trace("0102")), warpkit::parse_error);
}

TEST_CASE("one long idle period: gated 25 cycles, woken once from compensated") {
    // Arrivals in cycles 0 and 31. Gated at the end of cycle 5, cycles 6..30 gated (14
    // uncompensated, 11 compensated), cycles 31..33 waking, the second instruction served in
    // cycle 34: 35 cycles against 32 without gating. Static energy 35 - 25 + 14 = 24 units.
    const auto t = trace("1" + zeros(30) + "1");
    const expected e{35, 1, 1, 0, 0, 14, 11, 3, 7, 3, 1.0 - 24.0 / 32.0};
    check_row(gating::replay<gating::conventional>(t, {}), e);
    check_row(gating::replay<gating::naive_blackout>(t, {}), e);
    const auto a = gating::replay<adaptive>(t, {});
    check_row(a, e);
    CHECK(a.baseline_cycles == 32);
    CHECK(a.final_idle_detect == 5);
    CHECK(a.stats.idle_periods.beyond_break_even == 1);
    CHECK(a.stats.idle_periods.lengths.count(30) == 1);
}

TEST_CASE("gaps shorter than idle_detect: never gated, nothing saved or lost") {
    const auto t = trace("1 0000 1 000 1 0000 1");
    const expected e{15, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0.0};
    check_row(gating::replay<gating::conventional>(t, {}), e);
    check_row(gating::replay<gating::naive_blackout>(t, {}), e);
    const auto a = gating::replay<adaptive>(t, {});
    check_row(a, e);
    CHECK(a.stats.idle_periods.below_idle_detect == 3);
}

TEST_CASE("a gap between idle_detect and idle_detect + BET: negative vs blacked out") {
    // Arrivals in cycles 0 and 11 (a 10-cycle gap); 12 cycles without gating.
    const auto t = trace("1" + zeros(10) + "1");
    // Conventional: gated in cycles 6..10, woken by the arrival after 5 gated cycles (< 14,
    // a negative event), served in cycle 14. Energy 15 - 5 + 14 = 24.
    const auto c = gating::replay<gating::conventional>(t, {});
    check_row(c, {15, 1, 1, 1, 0, 5, 0, 3, 7, 3, 1.0 - 24.0 / 12.0});
    CHECK(c.stats.idle_periods.up_to_break_even == 1);
    CHECK(c.stats.idle_periods.lengths.count(10) == 1);
    // Naive Blackout: the arrival waits out the blackout (cycles 11..19), the wakeup in cycle
    // 20 is critical, the instruction runs in cycle 23. Energy 24 - 14 + 14 = 24.
    const auto b = gating::replay<gating::naive_blackout>(t, {});
    check_row(b, {24, 1, 1, 0, 1, 14, 0, 3, 7, 12, 1.0 - 24.0 / 12.0});
    CHECK(b.stats.blackout_stall_cycles == 9);
    CHECK(b.stats.idle_periods.lengths.count(19) == 1);
    CHECK(b.stats.idle_periods.up_to_break_even == 1);
    check_row(gating::replay<adaptive>(t, {}),
              {24, 1, 1, 0, 1, 14, 0, 3, 7, 12, 1.0 - 24.0 / 12.0});
}

TEST_CASE("demand during blackout queues up and drains after the wakeup") {
    // Arrivals in cycles 0, 7, 8; 15 cycles without gating.
    const auto t = trace("1" + zeros(6) + "11" + zeros(6));
    // Conventional: one gated cycle (6); woken in 7; both waiting instructions run in 10, 11.
    const auto c = gating::replay<gating::conventional>(t, {});
    check_row(c, {15, 1, 1, 1, 0, 1, 0, 3, 11, 3, 1.0 - 28.0 / 15.0});
    CHECK(c.max_queue == 2);
    // Blackout: gated 6..19 while two instructions wait; critical wakeup in 20; they run in
    // 23 and 24. Energy 25 - 14 + 14 = 25.
    const auto b = gating::replay<gating::naive_blackout>(t, {});
    check_row(b, {25, 1, 1, 0, 1, 14, 0, 3, 8, 16, 1.0 - 25.0 / 15.0});
    CHECK(b.stats.blackout_stall_cycles == 13);
    check_row(gating::replay<adaptive>(t, {}),
              {25, 1, 1, 0, 1, 14, 0, 3, 8, 16, 1.0 - 25.0 / 15.0});
}

TEST_CASE("adaptive idle-detect: two critical wakeups raise idle-detect and avert a third") {
    // Epoch 50, threshold 1. Arrivals in cycles 0, 10, 33, 52.
    gating::params p;
    p.adaptive.epoch = 50;
    p.adaptive.critical_threshold = 1;
    std::string s(53, '0');
    s[0] = s[10] = s[33] = s[52] = '1';
    const auto t = trace(s);
    // Critical wakeups in cycles 20 and 43 (served 23, 46); the epoch ending with cycle 49
    // had 2 > 1, so idle-detect becomes 6; cycles 47..51 are only 5 idle cycles, so the
    // arrival of cycle 52 finds the block on.
    const auto a = gating::replay<adaptive>(t, p);
    check_row(a, {53, 2, 2, 0, 2, 28, 0, 6, 19, 26, 1.0 - 53.0 / 53.0});
    CHECK(a.final_idle_detect == 6);
    CHECK(a.stats.epochs == 1);
    CHECK(a.stats.idle_detect_increments == 1);
    // Without adaptation the block gates at the end of cycle 51 and blacks out cycle 52's
    // instruction until cycle 66 (a third critical wakeup), served in 69.
    const auto b = gating::replay<gating::naive_blackout>(t, p);
    check_row(b, {70, 3, 3, 0, 3, 42, 0, 9, 19, 43, 1.0 - 70.0 / 53.0});
    CHECK(b.final_idle_detect == 5);
    // Conventional: woken after 4 and 10 gated cycles (negative), and once after 14
    // (critical, not negative). Energy 56 - 28 + 42 = 70.
    const auto c = gating::replay<gating::conventional>(t, p);
    check_row(c, {56, 3, 3, 2, 1, 28, 0, 9, 19, 9, 1.0 - 70.0 / 53.0});
}

TEST_CASE("a periodic mid-region gap: every conventional event is negative, Blackout none") {
    std::string s;
    for (int i = 0; i < 50; ++i)
        s += "1" + zeros(10);
    const auto t = trace(s);
    const auto c = gating::replay<gating::conventional>(t, {});
    // The 50th episode is still gated when the trace ends.
    CHECK(c.stats.gating_events == 50);
    CHECK(c.stats.wakeups == 49);
    CHECK(c.stats.negative_events == 49);
    CHECK(c.static_energy_savings < 0.0);
    const auto b = gating::replay<gating::naive_blackout>(t, {});
    CHECK(b.stats.negative_events == 0);
    CHECK(b.stats.gating_events > 0);
    CHECK(b.stats.critical_wakeups == b.stats.wakeups);
}
