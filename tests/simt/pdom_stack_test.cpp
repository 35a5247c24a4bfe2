// PDOM stack: entry contents of the Fung et al. scheme, dropping of paths that start at their
// reconvergence point, EXIT, stats and preconditions.

#include "program.hpp"

#include <warpkit/simt/concepts.hpp>
#include <warpkit/simt/pdom_stack.hpp>

#include <doctest/doctest.h>

#include <vector>

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;
using pdom8 = warpkit::simt::pdom_stack<8>;
using entry = pdom8::entry;
using mask = pdom8::mask_type;

static_assert(warpkit::simt::simt_stack<warpkit::simt::pdom_stack<>>);
static_assert(warpkit::simt::simt_stack<pdom8>);
static_assert(!warpkit::simt::sync_point_stack<pdom8>);
static_assert(warpkit::simt::pdom_stack<>::warp_size == 32);
static_assert(pdom8::capacity == 15);

namespace {
std::vector<entry> entries_of(const pdom8& s) {
    return {s.entries().begin(), s.entries().end()};
}
} // namespace

TEST_CASE("pdom: a divergent branch turns the top into the reconvergence entry, pushes the "
          "not-taken then the taken path") {
    pdom8 s(1);
    CHECK(entries_of(s) == std::vector<entry>{{1, no_pc, mask{0xFF}, false}});
    s.branch(mask{0x0F}, 5, 2, 11);
    CHECK(entries_of(s) == std::vector<entry>{{11, no_pc, mask{0xFF}, true},
                                              {2, 11, mask{0xF0}, false},
                                              {5, 11, mask{0x0F}, false}});
    s.advance(6);
    s.branch(mask{0x03}, 9, 7, 10);
    CHECK(entries_of(s) == std::vector<entry>{{11, no_pc, mask{0xFF}, true},
                                              {2, 11, mask{0xF0}, false},
                                              {10, 11, mask{0x0F}, true},
                                              {7, 10, mask{0x0C}, false},
                                              {9, 10, mask{0x03}, false}});
    s.advance(10); // taken inner path reaches its reconvergence pc: popped
    CHECK(s.depth() == 4);
    CHECK(s.pc() == 7);
    CHECK(s.stats().reconvergences == 0);
    s.advance(10); // not-taken inner path too: the inner reconvergence entry resumes
    CHECK(s.pc() == 10);
    CHECK(s.active() == mask{0x0F});
    CHECK(s.stats().reconvergences == 1);
    CHECK(entries_of(s).back() == entry{10, 11, mask{0x0F}, false});
}

TEST_CASE("pdom: if without else, the path starting at the reconvergence pc is not pushed") {
    // BRA skip -> 4 (reconverge 4): the taken lanes skip the body and wait at 4.
    pdom8 s(1);
    s.branch(mask{0xAA}, 4, 2, 4);
    CHECK(entries_of(s) ==
          std::vector<entry>{{4, no_pc, mask{0xFF}, true}, {2, 4, mask{0x55}, false}});
    CHECK(s.active() == mask{0x55});
    s.advance(3);
    s.advance(4);
    CHECK(s.depth() == 1);
    CHECK(s.active() == mask{0xFF});
    CHECK(s.pc() == 4);
    // And the mirror case: the fall-through is the reconvergence pc (a loop's exit).
    s.branch(mask{0x0F}, 1, 5, 5);
    CHECK(entries_of(s) ==
          std::vector<entry>{{5, no_pc, mask{0xFF}, true}, {1, 5, mask{0x0F}, false}});
}

TEST_CASE("pdom: EXIT removes lanes from every entry and drops emptied entries") {
    pdom8 s(0);
    s.branch(mask{0x0F}, 10, 20, 30); // [30:FF*] [20:F0] [10:0F]
    s.branch(mask{0x03}, 11, 12, 13); // [30:FF*] [20:F0] [13:0F*] [12:0C] [11:03]
    CHECK(s.depth() == 5);
    s.exit(mask{0x81}); // only active lane 0 exits; lane 7 is not active and stays
    CHECK(entries_of(s) == std::vector<entry>{{30, no_pc, mask{0xFE}, true},
                                              {20, 30, mask{0xF0}, false},
                                              {13, 30, mask{0x0E}, true},
                                              {12, 13, mask{0x0C}, false},
                                              {11, 13, mask{0x02}, false}});
    CHECK(s.live() == mask{0xFE});
    s.exit(mask{0x02}); // the taken inner path is gone: the not-taken inner path runs
    CHECK(s.depth() == 4);
    CHECK(s.pc() == 12);
    CHECK(s.active() == mask{0x0C});
    s.exit(mask{0x0C}); // the whole inner divergence exited: its reconvergence entry is dropped
    CHECK(entries_of(s) ==
          std::vector<entry>{{30, no_pc, mask{0xF0}, true}, {20, 30, mask{0xF0}, false}});
    CHECK(s.stats().reconvergences == 1);
    CHECK(s.stats().exited_lanes == 4);
    s.advance(30);
    CHECK(s.converged());
    CHECK(s.active() == mask{0xF0});
    CHECK(s.stats().reconvergences == 2);
    s.exit(mask{0xF0});
    CHECK(s.finished());
    CHECK(s.depth() == 0);
    CHECK(s.live().none());
    CHECK(s.pc() == no_pc);
}

TEST_CASE("pdom: an unknown reconvergence point keeps paths apart until they exit") {
    pdom8 s(0);
    s.branch(mask{0x0F}, 10, 20, no_pc);
    s.advance(11);
    s.exit(mask{0x0F});
    CHECK(s.pc() == 20);
    CHECK(s.active() == mask{0xF0});
    s.exit(mask{0xF0});
    CHECK(s.finished());
    CHECK(s.stats().reconvergences == s.stats().divergent_branches);
}

TEST_CASE("pdom: preconditions and reset") {
    pdom8 s;
    CHECK(s.finished());
    CHECK_THROWS_AS(s.advance(1), warpkit::contract_error);
    CHECK_THROWS_AS(s.branch(mask{1}, 1, 2, 3), warpkit::contract_error);
    s.exit(mask{0xFF}); // nothing to do
    s.reset(3, mask{0x0F});
    CHECK(s.pc() == 3);
    CHECK(s.active() == mask{0x0F});
    CHECK(s.live() == mask{0x0F});
    CHECK_THROWS_AS(s.advance(no_pc), warpkit::contract_error);
    s.reset(3, mask{});
    CHECK(s.finished());
}
