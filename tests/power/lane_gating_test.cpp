#include <warpkit/core/lane_mask.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/power/lane_gating.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <cstddef>

namespace wp = warpkit::power;
using power_test::near;
using warpkit::warp_mask;
using warpkit::isa::unit_class;

TEST_CASE("lane clock gating saves exactly the idle-lane share minus the overhead") {
    wp::model_params p;
    p.nominal_mhz = 100;
    for (std::size_t i = 0; i < wp::component_count; ++i)
        if (wp::component_at(i) != wp::component::dram)
            wp::at(p, wp::component_at(i)) = wp::component_params{0, 1, 0};
    // Energies per access at 100 MHz: peak / (rate x 1e8).
    p.int_alu = {3.2, 1, 0};            // 32 nJ per warp instruction
    p.fp = {6.4, 1, 0};                 // 64 nJ
    p.sfu = {1.6, 0.125, 0};            // 128 nJ
    p.rf_banks = {8.0, 4, 0};           // 20 nJ per row
    p.operand_collectors = {2.0, 2, 0}; // 10 nJ
    p.rf_crossbar = {1.0, 2, 0};        // 5 nJ
    p.pipeline = {1.0, 1, 0};           // 10 nJ, never lane gated
    p.lane_gating.overhead_w = 0.3;

    // The hand-made lane trace of one SM over 10 cycles (100 ns).
    wp::activity a;
    a.cycles = 10;
    a.sms.resize(1);
    auto& s = a.sms[0];
    s.active_cycles = 10;
    wp::count_instruction(s, unit_class::int_alu, warp_mask::full(), 2, 1);
    wp::count_instruction(s, unit_class::int_alu, warp_mask::first_n(16), 2, 1);
    wp::count_instruction(s, unit_class::fp, warp_mask::single(5), 3, 1);
    wp::count_instruction(s, unit_class::sfu, warp_mask(0xF0F0F0F0u), 1, 1);
    wp::count_instruction(s, unit_class::ldst, warp_mask::full(), 1, 0);
    CHECK(s.issued == 5);
    CHECK(s.int_lanes == 48);
    CHECK(s.rf_reads == 9);
    CHECK(s.rf_writes == 4);
    // Active lanes over the 13 rows: 32 x 3 + 16 x 3 + 1 x 4 + 16 x 2 + 32 x 1.
    CHECK(s.operand_lanes == 212);

    const double t = 100e-9;
    const double rf_share = 212.0 / (32 * 13);
    // Idle share of each gated component's ungated energy (nJ).
    const double saved_nj = 2 * 32 * (1 - 48.0 / 64) +  // INT: 48 of 64 lanes
                            1 * 64 * (1 - 1.0 / 32) +   // FP: 1 of 32
                            1 * 128 * (1 - 16.0 / 32) + // SFU: 16 of 32
                            13 * 20 * (1 - rf_share) +  // register-file rows
                            9 * 10 * (1 - rf_share) +   // operand collectors
                            9 * 5 * (1 - rf_share);     // crossbar
    const double ungated_nj = 2 * 32 + 64 + 128 + 13 * 20 + 9 * 10 + 9 * 5 + 5 * 10;
    const auto r = wp::compare_lane_gating(a, p);
    CHECK(r.ungated_dynamic_w == near(ungated_nj * 1e-9 / t));
    CHECK(r.overhead_w == near(0.3));
    CHECK(r.saved_w() == near(saved_nj * 1e-9 / t - 0.3));
    CHECK(r.saving() == near((saved_nj * 1e-9 / t - 0.3) / (ungated_nj * 1e-9 / t)));
}

TEST_CASE("without divergence lane gating only costs its overhead") {
    const wp::model_params p;
    wp::activity a;
    a.cycles = 1000;
    a.sms.resize(15);
    for (auto& s : a.sms) {
        s.active_cycles = 1000;
        for (int i = 0; i < 300; ++i)
            wp::count_instruction(s, i % 2 ? unit_class::int_alu : unit_class::fp,
                                  warp_mask::full(), 2, 1);
    }
    const auto r = wp::compare_lane_gating(a, p);
    CHECK(r.saved_w() == near(-0.3));
}

TEST_CASE("lane counts above the SIMD width never make gating cost more than a full warp") {
    const wp::model_params p;
    wp::activity a;
    a.cycles = 100;
    a.sms.resize(1);
    auto& s = a.sms[0];
    s.active_cycles = 100;
    s.issued = s.int_ops = 50;
    s.int_lanes = 50 * 40; // inconsistent input: 40 lanes per instruction
    s.rf_reads = 100;
    s.operand_lanes = 100 * 64;
    const auto r = wp::compare_lane_gating(a, p);
    CHECK(r.saved_w() == near(-0.3));
}
