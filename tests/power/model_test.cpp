#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/power/dram.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/reference.hpp>
#include <warpkit/power/report.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <cstddef>

namespace wp = warpkit::power;
using power_test::near;
using wp::component;

namespace {
// Everything zero except what the hand-computed case uses.
wp::model_params tiny_params() {
    wp::model_params p;
    p.nominal_mhz = 100;
    p.nominal_v = 1.0;
    p.idle_sm_w = 1.0;
    for (std::size_t i = 0; i < wp::component_count; ++i)
        if (wp::component_at(i) != component::dram)
            wp::at(p, wp::component_at(i)) = wp::component_params{0, 1, 0};
    p.int_alu = {2.0, 1, 0.5};
    p.rf_banks = {4.0, 2, 0};
    p.l2 = {10.0, 5, 1.0};
    p.dram = {1, 2, 3, 4}; // nJ: precharge, activate, read, write
    return p;
}

wp::activity tiny_activity() {
    wp::activity a;
    a.cycles = 1000;
    a.sms.resize(2);
    a.sms[0].active_cycles = 1000;
    a.sms[0].int_ops = 500;  // alpha 0.5 of 2 W
    a.sms[0].rf_reads = 300; // (300 + 100) / (2 x 1000) = 0.2 of 4 W
    a.sms[0].rf_writes = 100;
    a.sms[1].active_cycles = 250; // idle 750 of 1000 cycles
    a.sms[1].int_ops = 100;
    a.sms[1].leakage_off_cycles[wp::index(component::int_alu)] = 400;
    a.chip.l2_accesses = 1000; // 1000 / (5 x 1000) = 0.2 of 10 W
    a.chip.dram = {10, 10, 100, 50};
    return a;
}
} // namespace

TEST_CASE("hand-computed power of a two-SM configuration") {
    const wp::model m(tiny_params());
    const auto b = m.evaluate(tiny_activity());
    CHECK(b.seconds == near(1e-5)); // 1000 cycles at 100 MHz
    CHECK(b.sms[0].dynamic_w[wp::index(component::int_alu)] == near(1.0));
    CHECK(b.sms[0].dynamic_w[wp::index(component::rf_banks)] == near(0.8));
    CHECK(b.sms[1].dynamic_w[wp::index(component::int_alu)] == near(0.2));
    CHECK(b.sms[0].idle_w == near(0.0));
    CHECK(b.sms[1].idle_w == near(0.75));
    CHECK(b.sms[0].leakage_w[wp::index(component::int_alu)] == near(0.5));
    CHECK(b.sms[1].leakage_w[wp::index(component::int_alu)] == near(0.3)); // 60 % on
    CHECK(b.dynamic_w[wp::index(component::l2)] == near(2.0));
    CHECK(b.leakage_w[wp::index(component::l2)] == near(1.0));
    // eq. 2: (1 x 10 + 2 x 10 + 3 x 100 + 4 x 50) nJ over 10 us.
    CHECK(b.dynamic_w[wp::index(component::dram)] == near(0.053));
    CHECK(b.dynamic_total_w() == near(1.0 + 0.8 + 0.2 + 0.75 + 2.0 + 0.053));
    CHECK(b.leakage_total_w() == near(0.5 + 0.3 + 1.0));
    CHECK(b.energy_j() == near(6.603e-5));
}

TEST_CASE("the operating point scales SM power as V^2 f and leakage as V") {
    const wp::model m(tiny_params());
    wp::power_breakdown b;
    m.evaluate(tiny_activity(), b, wp::operating_point{50, 0.5});
    CHECK(b.seconds == near(2e-5));
    // alpha 0.5 x 2 W x 0.25 (V^2) x 0.5 (f).
    CHECK(b.sms[0].dynamic_w[wp::index(component::int_alu)] == near(0.125));
    CHECK(b.sms[1].idle_w == near(1.0 * 0.25 * 0.5 * 0.75));
    CHECK(b.sms[0].leakage_w[wp::index(component::int_alu)] == near(0.25));
    // Shared parts keep their nominal energy per access: half the power over twice the time.
    CHECK(b.dynamic_w[wp::index(component::l2)] == near(1.0));
    CHECK(b.leakage_w[wp::index(component::l2)] == near(1.0));
    // Energy per access of the SMs scales with V^2 only.
    const auto nominal = m.evaluate(tiny_activity());
    CHECK(b.sms[0].dynamic_w[wp::index(component::int_alu)] * b.seconds ==
          near(0.25 * nominal.sms[0].dynamic_w[wp::index(component::int_alu)] * nominal.seconds));
}

TEST_CASE("DRAM power is eq. 2: per-operation energies times counts over time") {
    const wp::dram_energy_params e{3, 7, 15, 16};
    const wp::dram_ops ops{2, 4, 10, 5};
    // 3 x 2 + 7 x 4 + 15 x 10 + 16 x 5 = 264 nJ
    CHECK(wp::dram_energy_j(ops, e) == near(264e-9));
    CHECK(wp::dram_power_w(ops, e, 1e-6) == near(0.264));
    CHECK(wp::dram_power_w(ops, e, 0.0) == 0.0);
    // Each operation kind counts on its own.
    CHECK(wp::dram_energy_j({1, 0, 0, 0}, e) == near(3e-9));
    CHECK(wp::dram_energy_j({0, 1, 0, 0}, e) == near(7e-9));
    CHECK(wp::dram_energy_j({0, 0, 1, 0}, e) == near(15e-9));
    CHECK(wp::dram_energy_j({0, 0, 0, 1}, e) == near(16e-9));
}

TEST_CASE("per-SM powers add up to the chip totals") {
    const wp::model m;
    auto a = wp::gtx480_reference_activity();
    a.sms[3].active_cycles = 4000;
    a.sms[7].leakage_off_cycles[wp::index(component::fp)] = 2500;
    const auto b = m.evaluate(a);
    double idle = 0;
    for (std::size_t i = 0; i < wp::sm_component_count; ++i) {
        double dyn = 0;
        double leak = 0;
        for (const auto& s : b.sms) {
            dyn += s.dynamic_w[i];
            leak += s.leakage_w[i];
        }
        CHECK(dyn == near(b.dynamic_w[i]));
        CHECK(leak == near(b.leakage_w[i]));
    }
    for (const auto& s : b.sms)
        idle += s.idle_w;
    CHECK(idle == near(b.idle_sm_w));
    CHECK(b.sms[3].idle_w == near(1.5 * 0.6));
}

TEST_CASE("energy is additive over intervals (eq. 1 is linear in counts and cycles)") {
    const wp::model m;
    auto a1 = wp::gtx480_reference_activity();
    auto a2 = a1;
    a2.cycles = 3000;
    for (auto& s : a2.sms) {
        s.active_cycles = 1200;
        s.int_ops /= 7;
        s.rf_reads /= 3;
        s.leakage_off_cycles[wp::index(component::int_alu)] = 900;
    }
    a2.chip.dram.reads = 17;
    auto sum = a1;
    warpkit::accumulate(sum, a2);
    wp::energy_account parts;
    parts.add(m.evaluate(a1));
    parts.add(m.evaluate(a2));
    wp::energy_account whole;
    whole.add(m.evaluate(sum));
    CHECK(parts.total_j() == near(whole.total_j()));
    CHECK(parts.cycles() == whole.cycles());
    for (std::size_t i = 0; i < wp::component_count; ++i) {
        const auto c = wp::component_at(i);
        CHECK(parts.dynamic_j(c) == near(whole.dynamic_j(c)));
        CHECK(parts.leakage_j(c) == near(whole.leakage_j(c)));
    }
    // difference() undoes accumulate().
    const auto back = wp::difference(sum, a1);
    CHECK(back.cycles == a2.cycles);
    CHECK(back.sms[4].int_ops == a2.sms[4].int_ops);
    CHECK(back.chip.dram.reads == a2.chip.dram.reads);
}

TEST_CASE("GTX480 defaults: Table 4 leakage and the Fig. 12 pie on the reference activity") {
    const wp::model m;
    const auto b = m.evaluate(wp::gtx480_reference_activity());
    CHECK(b.leakage_total_w() == near(41.9)); // Table 4: modelled leakage
    CHECK(b.dynamic_total_w() == near(88.0, 0.02));
    wp::energy_account e;
    e.add(b);
    const auto s = e.figure12_shares();
    const auto share = [&](wp::figure12_group g) { return 100 * s[static_cast<std::size_t>(g)]; };
    CHECK(share(wp::figure12_group::execution_units) == near(20.1, 0.02));
    CHECK(share(wp::figure12_group::dram) == near(17.8, 0.02));
    CHECK(share(wp::figure12_group::register_file) == near(13.0, 0.02));
    CHECK(share(wp::figure12_group::pipeline) == near(11.4, 0.02));
    CHECK(share(wp::figure12_group::mem_ctrl) == near(4.8, 0.02));
    // Leakage of the whole chip plus the 17 W of board parts is the 59 W constant power
    // of Section 4.2, which it must not exceed.
    CHECK(b.leakage_total_w() < 59.0);
}

TEST_CASE("an interval of no cycles draws nothing; all-idle SMs draw idle power") {
    const wp::model m;
    wp::activity a;
    a.sms.resize(15);
    auto b = m.evaluate(a);
    CHECK(b.total_w() == 0.0);
    a.cycles = 700;
    b = m.evaluate(a);
    CHECK(a.active_sms() == 0);
    CHECK(b.idle_sm_w == near(15 * 1.5));
    CHECK(b.dynamic_total_w() == near(15 * 1.5));
    CHECK(b.leakage_total_w() == near(41.9));
}

TEST_CASE("invalid params name the field") {
    wp::model_params p;
    p.rf_banks.max_rate = 0;
    try {
        const wp::model m(p);
        FAIL("accepted max_rate = 0");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "rf_banks.max_rate");
    }
    p = {};
    CHECK_THROWS_AS(warpkit::apply_override(p, "nosuch=1"), warpkit::config_error);
    warpkit::apply_override(p, "l2.peak_w=12.5");
    CHECK(p.l2.peak_w == 12.5);
    p.dram.read_nj = -1;
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error);
}

TEST_CASE("scale_component multiplies peak power (DRAM: its energies)") {
    wp::model_params p;
    wp::scale_component(p, component::fp, 2.0);
    CHECK(p.fp.peak_w == near(2 * 3.87));
    wp::scale_component(p, component::dram, 0.5);
    CHECK(p.dram.read_nj == near(7.5));
    CHECK(p.dram.activate_nj == near(3.5));
}
