// Paper 003 Fig. 4 / Sections 3.1 and 4: ten active warps with an interleaved INT/FP mix,
// every instruction a 4-cycle add with initiation interval 1, one issue per cycle, over a
// 15-cycle window.
//
// The mix (warp: instructions in order; the second instruction of w0 and w1 reads the first's
// result):
//   w0: INT r1 <- ; FP  <- r1        w1: INT r1 <- ; INT <- r1
//   w2: FP   w3: INT   w4: FP   w5..w8: INT   w9: FP
// 8 INT and 4 FP instructions. Worked by hand:
//
// Two-level (active set = the ten warps, lrr inside, i.e. from the front of the set):
//   cycle  1  2  3  4  5  6  7  8  9 10 11 12
//   warp   0  1  2  3  4  5  6  7  8  9  0  1
//   type   I  I  F  I  F  I  I  I  I  F  F  I
//   FP busy 3-6, 5-8, 10-13, 11-14: idle 1-2, 9, 15 -> idle periods {2, 1, 1}, as the paper
//   describes (idle the first two cycles, FP in cycles 3 and 5, one idle cycle after the
//   first two complete, then two more). INT busy every cycle 1-15 -> no idle period.
//
// GATES (INT highest at start; INT_ACTV reaches 0 after cycle 8 -> FP highest):
//   cycle  1  2  3  4  5  6  7  8  9 10 11 12
//   warp   0  1  3  5  6  7  8  1  2  4  9  0
//   type   I  I  I  I  I  I  I  I  F  F  F  F
//   INT busy 1-11: idle 12-15 -> {4};  FP busy 9-15: idle 1-8 -> {8}, the paper's "four
//   consecutive idle cycles" for INT and "eight consecutive idle cycles" for FP.
#include "replay.hpp"

#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/two_level.hpp>

#include <doctest/doctest.h>

#include <vector>

namespace {

using replay::inst;
using warpkit::isa::unit_class;
using warpkit::issue::operands;

std::vector<std::vector<inst>> fig4_mix() {
    const inst int_op{unit_class::int_alu, operands{}.read(2).write(3)};
    const inst fp_op{unit_class::fp, operands{}.read(2).write(4)};
    const inst int_def{unit_class::int_alu, operands{}.read(2).write(1)};
    const inst fp_use{unit_class::fp, operands{}.read(1).write(5)};
    const inst int_use{unit_class::int_alu, operands{}.read(1).write(5)};
    return {
        {int_def, fp_use},  // w0
        {int_def, int_use}, // w1
        {fp_op},            // w2
        {int_op},           // w3
        {fp_op},            // w4
        {int_op},           // w5
        {int_op},           // w6
        {int_op},           // w7
        {int_op},           // w8
        {fp_op},            // w9
    };
}

constexpr unit_class I = unit_class::int_alu;
constexpr unit_class F = unit_class::fp;

} // namespace

TEST_CASE("paper 003 Fig. 4: two-level interleaves types and leaves short FP idle periods") {
    warpkit::issue::two_level<>::params_type p;
    p.active_warps = 10;
    warpkit::issue::two_level<> s(p);
    const auto r = replay::run(s, fig4_mix(), replay::config{});

    CHECK(r.order() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1});
    CHECK(r.classes() == std::vector<unit_class>{I, I, F, I, F, I, I, I, I, F, F, I});
    CHECK(r.idle_periods(unit_class::fp) == std::vector<int>{2, 1, 1});
    CHECK(r.idle_periods(unit_class::int_alu).empty());
    CHECK(s.stats().inner.issued[warpkit::isa::index(I)] == 8);
    CHECK(s.stats().inner.issued[warpkit::isa::index(F)] == 4);
}

TEST_CASE("paper 003 Fig. 4: GATES issues the INT block first and coalesces idle periods") {
    warpkit::issue::gates<>::params_type p;
    p.active_warps = 10;
    warpkit::issue::gates<> s(p);
    CHECK(s.high_priority() == I);
    const auto r = replay::run(s, fig4_mix(), replay::config{});

    CHECK(r.order() == std::vector<int>{0, 1, 3, 5, 6, 7, 8, 1, 2, 4, 9, 0});
    CHECK(r.classes() == std::vector<unit_class>{I, I, I, I, I, I, I, I, F, F, F, F});
    CHECK(r.idle_periods(unit_class::int_alu) == std::vector<int>{4});
    CHECK(r.idle_periods(unit_class::fp) == std::vector<int>{8});
    CHECK(s.high_priority() == F);
    const auto st = s.stats().inner;
    CHECK(st.switches_on_empty == 1);
    CHECK(st.switches_on_threshold == 0);
    CHECK(st.switches_on_blocked == 0);
    CHECK(st.mixed_int_fp_cycles == 0);
    CHECK(st.int_high_cycles == 8);
    CHECK(st.fp_high_cycles == 7);
}

TEST_CASE("paper 003 Fig. 4 mix with two issue slots: INT and FP mix only when one is left") {
    // Width 2 (Fermi's N), worked by hand:
    //   c1: w0 w1 (I I)   c2: w3 w5 (I I)   c3: w6 w7 (I I)
    //   c4: w8 I, then INT_RDY is exhausted (w1's second INT waits for r1 until cycle 5), no
    //       LDST/SFU, so the lowest type fills the slot: FP w9 (first after w7 in rotation)
    //   c5: w1 I (r1 back), the second slot again FP: w0 (first after w9)
    //   c6: INT_ACTV = 0, FP_ACTV = 2: FP becomes highest: w2 w4
    warpkit::issue::gates<>::params_type p;
    p.active_warps = 10;
    warpkit::issue::gates<> s(p);
    replay::config cfg;
    cfg.width = 2;
    const auto r = replay::run(s, fig4_mix(), cfg);
    CHECK(r.order() == std::vector<int>{0, 1, 3, 5, 6, 7, 8, 9, 1, 0, 2, 4});
    CHECK(r.classes() == std::vector<unit_class>{I, I, I, I, I, I, I, F, I, F, F, F});
    CHECK(r.issued[5].size() == 2);
    CHECK(r.issued[6].empty());
    CHECK(s.stats().inner.mixed_int_fp_cycles == 2);
    CHECK(s.stats().inner.switches_on_empty == 1);
}
