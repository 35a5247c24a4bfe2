#include <warpkit/core/concepts.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gating.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

namespace gating = warpkit::gating;
using gating::event;
using gating::power_state;

static_assert(gating::policy<gating::no_gating>);
static_assert(gating::policy<gating::conventional>);
static_assert(gating::policy<gating::naive_blackout>);
static_assert(gating::policy<gating::coordinated_blackout>);
static_assert(gating::policy<gating::adaptive_idle_detect<gating::coordinated_blackout>>);
static_assert(gating::gate_controller<gating::controller<gating::naive_blackout>>);
static_assert(warpkit::observable_component<gating::controller<>>);

namespace {

char letter(power_state s) {
    switch (s) {
    case power_state::on:
        return 'O';
    case power_state::uncompensated:
        return 'U';
    case power_state::compensated:
        return 'C';
    case power_state::waking:
        return 'W';
    }
    return '?';
}

// Drives a controller with one character per cycle: 'd' = an instruction wants the block
// (the owner issues it if the block is on, which makes the cycle busy), '.' = nothing.
// Returns the state at the start of each cycle as O/U/C/W.
template <class C>
std::string drive(C& ctl, const std::string& inputs) {
    std::string states;
    for (const char c : inputs) {
        states += letter(ctl.state());
        const bool demand = c == 'd';
        static_cast<void>(ctl.tick({demand, demand && ctl.can_issue(), 0, false}));
    }
    return states;
}

std::string rep(char c, std::size_t n) {
    return std::string(n, c);
}

} // namespace

TEST_CASE("params: Warped Gates defaults, validation names the field") {
    const gating::params p;
    CHECK(p.idle_detect == 5);
    CHECK(p.break_even == 14);
    CHECK(p.wakeup_delay == 3);
    CHECK(p.adaptive.epoch == 1000);
    CHECK(p.adaptive.critical_threshold == 5);
    CHECK(p.adaptive.decrement_epochs == 4);
    CHECK(p.adaptive.min_idle_detect == 5);
    CHECK(p.adaptive.max_idle_detect == 10);

    gating::params bad;
    warpkit::apply_override(bad, "adaptive.epoch=0");
    try {
        gating::controller<> c(bad);
        FAIL("expected config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "adaptive.epoch");
    }
    gating::params swapped;
    swapped.adaptive.min_idle_detect = 8;
    swapped.adaptive.max_idle_detect = 6;
    CHECK_THROWS_AS(warpkit::validate(swapped), warpkit::config_error);
    gating::params zero;
    zero.wakeup_delay = 0;
    CHECK_THROWS_AS(gating::controller<>{zero}, warpkit::config_error);
    // Adaptive idle-detect starts inside its bounds.
    gating::params low;
    low.idle_detect = 3;
    CHECK_NOTHROW(gating::controller<gating::naive_blackout>{low});
    try {
        gating::controller<gating::adaptive_idle_detect<>> c(low);
        FAIL("expected config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "idle_detect");
        CHECK(e.value() == "3");
    }
    const auto j = warpkit::params_to_json(p);
    CHECK(j["break_even"] == 14);
    CHECK(j["adaptive"]["max_idle_detect"] == 10);
}

TEST_CASE("conventional: gate after idle_detect idle cycles, compensated after break_even") {
    gating::controller<gating::conventional> c;
    // Cycle 0 busy; idle from cycle 1: cycles 1..5 are the idle-detect window, the block is
    // gated from cycle 6; gated cycles 1..14 (cycles 6..19) are uncompensated.
    std::string states;
    std::string events;
    const std::string in = "d" + rep('.', 30);
    for (std::size_t t = 0; t < in.size(); ++t) {
        states += letter(c.state());
        const event e = c.tick({in[t] == 'd', in[t] == 'd', 0, false});
        if (e == event::gated) events += "gated@" + std::to_string(t) + " ";
        if (e == event::broke_even) events += "broke_even@" + std::to_string(t) + " ";
    }
    CHECK(states == rep('O', 6) + rep('U', 14) + rep('C', 11));
    CHECK(events == "gated@5 broke_even@19 ");
    const auto& s = c.stats();
    CHECK(s.cycles == 31);
    CHECK(s.on_cycles == 6);
    CHECK(s.uncompensated_cycles == 14);
    CHECK(s.compensated_cycles == 11);
    CHECK(s.gating_events == 1);
    CHECK(s.wakeups == 0);
    CHECK(gating::net_savings(s, c.params()) == 25 - 14);
    CHECK(gating::static_energy(s, c.params()) == 31 - 25 + 14);
}

TEST_CASE("conventional: a demand before break-even wakes the block (a negative event)") {
    gating::controller<gating::conventional> c;
    // Gated in cycles 6 and 7; the demand of cycle 8 (third gated cycle) starts the wakeup:
    // cycles 8, 9, 10 are waking, the block is on again in cycle 11.
    const std::string states = drive(c, "d" + rep('.', 7) + "d" + rep('.', 5));
    CHECK(states == rep('O', 6) + "UUU" + "WW" + "OOO");
    const auto& s = c.stats();
    CHECK(s.gating_events == 1);
    CHECK(s.wakeups == 1);
    CHECK(s.negative_events == 1);
    CHECK(s.critical_wakeups == 0);
    CHECK(s.uncompensated_cycles == 2);
    CHECK(s.waking_cycles == 3);
    CHECK(s.on_cycles == 9);
    CHECK(s.stall_cycles == 1);
    CHECK(gating::net_savings(s, c.params()) == 2 - 14);
}

TEST_CASE("Blackout: demand waits until break-even; the first allowed wakeup is critical") {
    // Demand from cycle 8 on, served whenever the block is on.
    const std::string in = "d" + rep('.', 7) + rep('d', 20) + rep('.', 4);

    gating::controller<gating::naive_blackout> b;
    CHECK(drive(b, in) == rep('O', 6) + rep('U', 14) + "C" + "WW" + rep('O', 9));
    const auto& s = b.stats();
    CHECK(s.gating_events == 1);
    CHECK(s.wakeups == 1);
    CHECK(s.negative_events == 0);
    CHECK(s.critical_wakeups == 1);
    CHECK(s.uncompensated_cycles == 14);
    CHECK(s.compensated_cycles == 0); // cycle 20 is the first waking cycle
    CHECK(s.waking_cycles == 3);
    CHECK(s.stall_cycles == 15);          // cycles 8..22
    CHECK(s.blackout_stall_cycles == 12); // cycles 8..19
    CHECK(gating::net_savings(s, b.params()) == 0);

    gating::controller<gating::conventional> c;
    CHECK(drive(c, in) == rep('O', 6) + "UUU" + "WW" + rep('O', 21));
    CHECK(c.stats().negative_events == 1);
    CHECK(c.stats().stall_cycles == 3);
}

TEST_CASE("critical means the wakeup came in the first cycle break-even allowed it") {
    // Gated cycle k = 15 (cycle 20) is the first compensated cycle.
    gating::controller<gating::conventional> at15;
    static_cast<void>(drive(at15, "d" + rep('.', 19) + "d"));
    CHECK(at15.stats().critical_wakeups == 1);
    CHECK(at15.stats().negative_events == 0);
    gating::controller<gating::conventional> at16;
    static_cast<void>(drive(at16, "d" + rep('.', 20) + "d"));
    CHECK(at16.stats().critical_wakeups == 0);
    CHECK(at16.stats().negative_events == 0);
    gating::controller<gating::conventional> at14;
    static_cast<void>(drive(at14, "d" + rep('.', 18) + "d"));
    CHECK(at14.stats().critical_wakeups == 0);
    CHECK(at14.stats().negative_events == 1);
}

TEST_CASE("wakeup_delay 1 and idle_detect 1") {
    gating::params p;
    p.idle_detect = 1;
    p.break_even = 2;
    p.wakeup_delay = 1;
    gating::controller<gating::naive_blackout> c(p);
    // Gated after one idle cycle (cycle 1); cycles 2, 3 uncompensated; demand in cycle 3 is
    // refused, in cycle 4 (compensated) it wakes the block for one cycle; on in cycle 5.
    CHECK(drive(c, "d..dddd") == "OOUUCOO");
    CHECK(c.stats().critical_wakeups == 1);
    CHECK(c.stats().waking_cycles == 1);
}

TEST_CASE("the pipeline must be empty while the block is not on") {
    gating::controller<gating::conventional> c;
    static_cast<void>(drive(c, "......"));
    REQUIRE(c.gated());
    CHECK(c.blocked());
    CHECK_FALSE(c.in_blackout());
    CHECK_THROWS_AS(c.tick({false, true, 0, false}), warpkit::contract_error);
    gating::controller<gating::naive_blackout> b;
    static_cast<void>(drive(b, "......"));
    CHECK(b.in_blackout());
}

TEST_CASE("idle periods fall in the three regions of Fig. 3") {
    gating::controller<gating::conventional> c;
    // Idle periods of 3 (< 5), 5 and 19 (5..19), 20 (> 19), the last one still open. The
    // demands of cycles 10 and 32 wake the block; the 'd's while it wakes only stall.
    static_cast<void>(
        drive(c, "d...d" + rep('.', 5) + "ddd" + rep('.', 19) + "dddd" + rep('.', 20)));
    c.finish();
    const auto& ip = c.stats().idle_periods;
    CHECK(ip.below_idle_detect == 1);
    CHECK(ip.up_to_break_even == 2);
    CHECK(ip.beyond_break_even == 1);
    CHECK(ip.lengths.count(3) == 1);
    CHECK(ip.lengths.count(5) == 1);
    CHECK(ip.lengths.count(19) == 1);
    CHECK(ip.lengths.count(20) == 1);
    CHECK(ip.lengths.samples() == 4);
    const auto j = warpkit::stats_to_json(c.stats());
    CHECK(j["idle_periods"]["up_to_break_even"] == 2);
}

TEST_CASE("coordinated Blackout: the second cluster gates at once when the type has no warps") {
    using ctl = gating::controller<gating::coordinated_blackout>;
    ctl a;
    ctl b;
    std::string sb;
    for (int t = 0; t < 14; ++t) {
        const bool a_gated = a.gated(); // both read at the start of the cycle
        const bool b_gated = b.gated();
        sb += letter(b.state());
        const bool b_busy = t < 10;
        static_cast<void>(a.tick({false, false, 0, b_gated}));
        const event e = b.tick({b_busy, b_busy, 0, a_gated});
        if (t == 10) CHECK(e == event::gated);
    }
    // A gates after its idle-detect window (cycles 0..4); B, busy until cycle 9, gates at the
    // end of its first idle cycle (10) because A is gated and INT_ACTV is zero.
    CHECK(a.stats().gating_events == 1);
    CHECK(a.stats().early_gating_events == 0);
    CHECK(sb == rep('O', 11) + "UUU");
    CHECK(b.stats().early_gating_events == 1);
    CHECK(b.stats().gating_events == 1);
}

TEST_CASE("coordinated Blackout: the second cluster never gates while the type has a warp") {
    using ctl = gating::controller<gating::coordinated_blackout>;
    ctl a;
    ctl b;
    for (int t = 0; t < 42; ++t) {
        const bool a_gated = a.gated();
        const bool b_gated = b.gated();
        const bool b_busy = t < 10;
        const std::uint32_t int_actv = t <= 40 ? 2 : 0;
        static_cast<void>(a.tick({false, false, int_actv, b_gated}));
        const event e = b.tick({b_busy, b_busy, int_actv, a_gated});
        if (t <= 40) CHECK(b.state() == power_state::on);
        if (t == 41) CHECK(e == event::gated);
    }
    // B's window passed at cycle 14 (idle 10..14): cycles 14..40 were held on.
    CHECK(b.stats().held_cycles == 27);
    CHECK(b.stats().early_gating_events == 0);
    CHECK(b.stats().gating_events == 1);
    CHECK(a.state() == power_state::compensated);
}

TEST_CASE("coordinated Blackout: with no sibling gated it is plain idle-detect Blackout") {
    using ctl = gating::controller<gating::coordinated_blackout>;
    ctl a;
    ctl b;
    // Both idle from cycle 0 with warps in the active subset: neither saw the other gated at
    // the start of cycle 4, so both gate at its end (the corner case of Section 7.4).
    for (int t = 0; t < 5; ++t) {
        const bool a_gated = a.gated();
        const bool b_gated = b.gated();
        static_cast<void>(a.tick({false, false, 3, b_gated}));
        static_cast<void>(b.tick({false, false, 3, a_gated}));
    }
    CHECK(a.state() == power_state::uncompensated);
    CHECK(b.state() == power_state::uncompensated);
    // Blackout: a demand in cycle 5 is refused.
    CHECK(b.tick({true, false, 3, true}) == event::none);
    CHECK(b.stats().blackout_stall_cycles == 1);
    CHECK(b.in_blackout());
}

namespace {

// Runs one epoch of `epoch` cycles with `critical` critical wakeups; checks that only the last
// cycle reports and returns its report.
gating::adaptation epoch_with(gating::idle_detect_tuner& t, std::uint32_t epoch,
                              std::uint32_t critical) {
    gating::adaptation last = gating::adaptation::none;
    for (std::uint32_t c = 0; c < epoch; ++c) {
        if (c < critical) t.record_critical();
        last = t.end_cycle();
        if (c + 1 < epoch) CHECK(last == gating::adaptation::none);
    }
    return last;
}

} // namespace

TEST_CASE("adaptive idle-detect: raise after > threshold, lower after 4 quiet epochs, [5, 10]") {
    using gating::adaptation;
    gating::params p;
    p.adaptive.epoch = 10;
    gating::idle_detect_tuner t(p);
    CHECK(t.value() == 5);
    // (critical wakeups in the epoch, expected report, expected value afterwards)
    struct step {
        std::uint32_t critical;
        adaptation report;
        std::uint32_t value;
    };
    const step schedule[] = {
        {6, adaptation::raised, 6},  {5, adaptation::kept, 6}, // 5 is not over the threshold
        {0, adaptation::kept, 6},    {0, adaptation::kept, 6},    {0, adaptation::lowered, 5},
        {0, adaptation::kept, 5},    {0, adaptation::kept, 5},    {0, adaptation::kept, 5},
        {0, adaptation::kept, 5}, // fourth quiet epoch: would lower, bounded at 5
        {9, adaptation::raised, 6},  {9, adaptation::raised, 7},  {9, adaptation::raised, 8},
        {9, adaptation::raised, 9},  {9, adaptation::raised, 10}, {9, adaptation::kept, 10},
        {0, adaptation::kept, 10},   {0, adaptation::kept, 10},   {0, adaptation::kept, 10},
        {6, adaptation::kept, 10}, // a noisy epoch restarts the quiet run
        {0, adaptation::kept, 10},   {0, adaptation::kept, 10},   {0, adaptation::kept, 10},
        {0, adaptation::lowered, 9},
    };
    int i = 0;
    for (const step& s : schedule) {
        CAPTURE(i);
        CHECK(epoch_with(t, 10, s.critical) == s.report);
        CHECK(t.value() == s.value);
        ++i;
    }

    // Every number is a parameter.
    gating::params q;
    q.idle_detect = 4;
    q.adaptive = {20, 1, 2, 2, 9, 3};
    gating::idle_detect_tuner u(q);
    CHECK(epoch_with(u, 20, 2) == adaptation::raised);
    CHECK(u.value() == 7);
    CHECK(epoch_with(u, 20, 2) == adaptation::raised);
    CHECK(u.value() == 9); // bounded by max 9
    CHECK(epoch_with(u, 20, 1) == adaptation::kept);
    CHECK(epoch_with(u, 20, 0) == adaptation::lowered);
    CHECK(u.value() == 6);
    CHECK(epoch_with(u, 20, 0) == adaptation::kept);
    CHECK(epoch_with(u, 20, 0) == adaptation::lowered);
    CHECK(u.value() == 3);
    CHECK(epoch_with(u, 20, 0) == adaptation::kept);
    CHECK(epoch_with(u, 20, 0) == adaptation::lowered);
    CHECK(u.value() == 2); // bounded by min 2
}

TEST_CASE("adaptive controller counts epochs and idle-detect changes") {
    gating::params p;
    p.adaptive.epoch = 30;
    p.adaptive.critical_threshold = 0;
    gating::controller<gating::adaptive_idle_detect<gating::naive_blackout>> c(p);
    // One critical wakeup (cycle 20) in the first 30-cycle epoch raises idle-detect to 6.
    static_cast<void>(drive(c, "d" + rep('.', 7) + rep('d', 20) + rep('.', 2)));
    CHECK(c.stats().critical_wakeups == 1);
    CHECK(c.stats().epochs == 1);
    CHECK(c.stats().idle_detect_increments == 1);
    CHECK(c.idle_detect() == 6);
    CHECK(c.policy().tuner().value() == 6);
    CHECK(gating::adaptive_idle_detect<gating::coordinated_blackout>::name() ==
          "adaptive_idle_detect<coordinated_blackout>");
}

TEST_CASE("energy accounting in units of one block's leakage per cycle") {
    gating::stats s;
    s.cycles = 100;
    s.uncompensated_cycles = 14;
    s.compensated_cycles = 20;
    s.gating_events = 2;
    const gating::params p; // break_even 14
    CHECK(gating::static_energy(s, p) == 100 - 34 + 28);
    CHECK(gating::net_savings(s, p) == 6);
    CHECK(gating::static_energy_savings(s, p) == doctest::Approx(0.06));
    CHECK(gating::static_energy_savings(s, p, 80) == doctest::Approx(1.0 - 94.0 / 80.0));
    CHECK(gating::static_energy_savings(gating::stats{}, p) == 0.0);
}
