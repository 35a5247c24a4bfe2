// SSY warp stack of paper 004 (Section 4.3.1): SSY sets the convergence point, a divergent
// branch pushes {SSY pc, other pc, other mask, state}, the taken lanes run first, the masks are
// swapped on the first arrival at the SSY pc and ORed (entry popped) on the second.

#include "program.hpp"

#include <warpkit/simt/concepts.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <doctest/doctest.h>

#include <vector>

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;
using ssy8 = warpkit::simt::ssy_stack<8>;
using entry = ssy8::entry;
using path = ssy8::path;
using mask = ssy8::mask_type;

static_assert(warpkit::simt::sync_point_stack<warpkit::simt::ssy_stack<>>);
static_assert(warpkit::simt::sync_point_stack<ssy8>);
static_assert(ssy8::capacity == 8); // paper 004: as many entries as threads in a warp

namespace {
std::vector<entry> entries_of(const ssy8& s) {
    return {s.entries().begin(), s.entries().end()};
}
} // namespace

TEST_CASE("ssy: swap masks on the first arrival, OR them and pop on the second") {
    ssy8 s(0);
    s.ssy(9);
    CHECK(s.sync_point() == 9);
    s.advance(1);
    s.branch(mask{0x3C}, 6, 2); // lanes 2-5 taken
    CHECK(entries_of(s) == std::vector<entry>{{9, 2, mask{0xC3}, path::taken}});
    CHECK(s.pc() == 6);
    CHECK(s.active() == mask{0x3C});
    s.advance(7);
    s.advance(8);
    s.advance(9); // first arrival: the current mask is swapped with the entry's
    CHECK(s.pc() == 2);
    CHECK(s.active() == mask{0xC3});
    CHECK(entries_of(s) == std::vector<entry>{{9, 2, mask{0x3C}, path::not_taken}});
    CHECK(s.stats().reconvergences == 0);
    s.advance(3);
    s.branch(mask{0xFF}, 9, 4); // uniform jump to the SSY pc: second arrival, masks ORed
    CHECK(s.depth() == 0);
    CHECK(s.pc() == 9);
    CHECK(s.active() == mask{0xFF});
    CHECK(s.converged());
    CHECK(s.stats().reconvergences == 1);
    CHECK(s.stats().divergent_branches == 1);
    CHECK(s.stats().uniform_branches == 1);
}

TEST_CASE("ssy: nested divergence keeps one entry per open divergence") {
    ssy8 s(0);
    s.ssy(20);
    s.branch(mask{0x0F}, 10, 1); // outer
    s.ssy(15);
    s.branch(mask{0x01}, 11, 12); // inner, inside the taken path
    CHECK(entries_of(s) ==
          std::vector<entry>{{20, 1, mask{0xF0}, path::taken}, {15, 12, mask{0x0E}, path::taken}});
    CHECK(s.max_depth() == 2);
    s.advance(15); // lane 0 arrives at the inner SSY pc
    CHECK(entries_of(s).back() == entry{15, 12, mask{0x01}, path::not_taken});
    s.advance(13);
    s.advance(15); // lanes 1-3 arrive: inner merge; the outer entry is now the top
    CHECK(s.active() == mask{0x0F});
    CHECK(s.depth() == 1);
    s.advance(20); // outer first arrival
    CHECK(s.pc() == 1);
    CHECK(s.active() == mask{0xF0});
    s.advance(20);
    CHECK(s.converged());
    CHECK(s.active() == mask{0xFF});
    CHECK(s.stats().reconvergences == 2);
}

TEST_CASE("ssy: both paths start at the SSY pc") {
    ssy8 s(0);
    s.ssy(5);
    s.branch(mask{0x0F}, 5, 1); // taken path is empty: swap at once
    CHECK(s.pc() == 1);
    CHECK(s.active() == mask{0xF0});
    CHECK(entries_of(s) == std::vector<entry>{{5, 1, mask{0x0F}, path::not_taken}});
    s.advance(5);
    CHECK(s.converged());
    s.branch(mask{0x0F}, 3, 5); // not-taken path is empty: the taken lanes run, then merge
    CHECK(s.active() == mask{0x0F});
    s.advance(5);
    CHECK(s.active() == mask{0xFF});
    CHECK(s.converged());
}

TEST_CASE("ssy: EXIT of the running path moves on as on arrival at the SSY pc") {
    ssy8 s(0);
    s.ssy(9);
    s.branch(mask{0x0F}, 5, 1);
    s.exit(mask{0xF3}); // lanes 0-1 exit (lanes 4-7 are not active: ignored)
    CHECK(s.active() == mask{0x0C});
    CHECK(s.live() == mask{0xFC});
    CHECK(s.pc() == 5);
    s.exit(mask{0x0C}); // the taken path is gone: the not-taken path runs
    CHECK(s.pc() == 1);
    CHECK(s.active() == mask{0xF0});
    CHECK(entries_of(s) == std::vector<entry>{{9, 1, mask{}, path::not_taken}});
    s.advance(9);
    CHECK(s.converged());
    CHECK(s.active() == mask{0xF0});
    CHECK(s.stats().reconvergences == 1);
    CHECK(s.stats().exited_lanes == 4);
    s.exit(mask{0xF0});
    CHECK(s.finished());
    CHECK(s.pc() == no_pc);
}

TEST_CASE("ssy: a divergent branch needs an SSY point; a uniform one does not") {
    ssy8 s(0);
    CHECK(s.sync_point() == no_pc);
    s.branch(mask{0xFF}, 4, 1); // uniform
    CHECK(s.pc() == 4);
    CHECK_THROWS_AS(s.branch(mask{0x01}, 8, 5), warpkit::contract_error);
    // The four-operand form is an SSY immediately before the branch.
    s.branch(mask{0x01}, 8, 5, 12);
    CHECK(s.sync_point() == 12);
    CHECK(entries_of(s) == std::vector<entry>{{12, 5, mask{0xFE}, path::taken}});
}

TEST_CASE("ssy: preconditions and reset") {
    ssy8 s;
    CHECK(s.finished());
    CHECK(s.pc() == no_pc);
    CHECK_THROWS_AS(s.advance(1), warpkit::contract_error);
    s.reset(2, mask{0x30});
    CHECK(s.pc() == 2);
    CHECK(s.active() == mask{0x30});
    CHECK(s.depth() == 0);
    s.ssy(7);
    s.reset(2, mask{0x30}); // a new warp starts without an SSY point
    CHECK(s.sync_point() == no_pc);
}
