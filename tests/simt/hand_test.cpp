// Hand-computed (pc, active mask, depth) per issued instruction for both reconvergence stacks.

#include "program.hpp"

#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using warpkit::simt::pdom_stack;
using warpkit::simt::ssy_stack;
using namespace simt_test;

namespace {

template <class S>
std::size_t depth_of(const row& r) {
    return reconverges_at_ssy<S>() ? r.ssy_depth : r.pdom_depth;
}

// Runs `p` from pc 0 on all lanes, checking every step against `rows`, then that the warp ended.
template <class S>
S run_table(const program& p, const predicate& pred, const std::vector<row>& rows) {
    S s(0);
    visits v;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CAPTURE(i);
        REQUIRE_FALSE(s.finished());
        CHECK(s.pc() == rows[i].pc);
        CHECK(s.active().bits() == rows[i].mask);
        CHECK(s.depth() == depth_of<S>(rows[i]));
        step(s, p, pred, v);
    }
    CHECK(s.finished());
    CHECK(s.depth() == 0);
    CHECK(s.pc() == warpkit::simt::no_pc);
    return s;
}

} // namespace

TEST_CASE_TEMPLATE("nested if/else: hand-computed masks per step", S, pdom_stack<8>, ssy_stack<8>,
                   selected_pdom<8>, selected_ssy<8>) {
    const S s = run_table<S>(nested_if_else(), nested_if_else_pred, nested_if_else_rows());
    const auto& st = s.stats();
    CHECK(st.divergent_branches == 2);
    CHECK(st.uniform_branches == 2); // the two JMPs
    CHECK(st.reconvergences == 2);
    CHECK(st.exited_lanes == 8);
    // 13 issues: 4 with 8 lanes, 6 with 4 lanes, 3 with 2 lanes (8-lane bins are 0, 1, ..., 8).
    CHECK(st.lane_utilisation.samples() == 13);
    CHECK(st.lane_utilisation.count(8) == 4);
    CHECK(st.lane_utilisation.count(4) == 6);
    CHECK(st.lane_utilisation.count(2) == 3);
    CHECK(st.lane_utilisation.sum() == 4 * 8 + 6 * 4 + 3 * 2);
    CHECK(st.depth_at_divergence.samples() == 2);
    if (reconverges_at_ssy<S>()) {
        CHECK(s.max_depth() == 2);
        CHECK(st.depth_at_divergence.count(1) == 1);
        CHECK(st.depth_at_divergence.count(2) == 1);
    } else {
        CHECK(s.max_depth() == 5);
        CHECK(st.depth_at_divergence.count(3) == 1);
        CHECK(st.depth_at_divergence.count(5) == 1);
    }
}

TEST_CASE_TEMPLATE("loop with a divergent exit: hand-computed masks per step", S, pdom_stack<8>,
                   ssy_stack<8>, selected_pdom<8>, selected_ssy<8>) {
    const S s = run_table<S>(divergent_loop(), divergent_loop_pred, divergent_loop_rows());
    CHECK(s.stats().divergent_branches == 2);
    CHECK(s.stats().uniform_branches == 1); // third test: nobody loops
    CHECK(s.stats().reconvergences == 2);
}

TEST_CASE_TEMPLATE("EXIT of some lanes inside the taken path", S, pdom_stack<8>, ssy_stack<8>,
                   selected_pdom<8>, selected_ssy<8>) {
    // Lanes 0-1 exit at pc 4, lanes 2-3 go on to the join and wait there for lanes 4-7.
    const auto pred = [](int cond, std::size_t lane, pc_type, std::size_t) {
        return cond == 1 ? lane < 4 : lane < 2;
    };
    const std::vector<row> rows = {{0, 0xFF, 1, 0}, {1, 0xFF, 1, 0}, {4, 0x0F, 3, 1},
                                   {2, 0xF0, 2, 1}, {3, 0xF0, 2, 1}, {5, 0xFC, 1, 0},
                                   {6, 0xFC, 1, 0}};
    const S s = run_table<S>(exit_in_then(), pred, rows);
    CHECK(s.stats().exited_lanes == 8);
    CHECK(s.stats().reconvergences == 1);
}

TEST_CASE_TEMPLATE("EXIT of the whole taken path", S, pdom_stack<8>, ssy_stack<8>, selected_pdom<8>,
                   selected_ssy<8>) {
    const auto pred = [](int, std::size_t lane, pc_type, std::size_t) { return lane < 4; };
    const std::vector<row> rows = {{0, 0xFF, 1, 0}, {1, 0xFF, 1, 0}, {4, 0x0F, 3, 1},
                                   {2, 0xF0, 2, 1}, {3, 0xF0, 2, 1}, {5, 0xF0, 1, 0},
                                   {6, 0xF0, 1, 0}};
    const S s = run_table<S>(exit_in_then(), pred, rows);
    CHECK(s.stats().reconvergences == 1);
}

TEST_CASE_TEMPLATE("EXIT of the whole not-taken path while the taken lanes wait", S, pdom_stack<8>,
                   ssy_stack<8>, selected_pdom<8>, selected_ssy<8>) {
    const auto pred = [](int, std::size_t lane, pc_type, std::size_t) { return lane < 4; };
    const std::vector<row> rows = {{0, 0xFF, 1, 0}, {1, 0xFF, 1, 0}, {3, 0x0F, 3, 1},
                                   {2, 0xF0, 2, 1}, {4, 0x0F, 1, 0}, {5, 0x0F, 1, 0}};
    const S s = run_table<S>(exit_in_else(), pred, rows);
    CHECK(s.stats().reconvergences == 1);
    CHECK(s.stats().divergent_branches == 1);
}

TEST_CASE_TEMPLATE("uniform branches never push", S, pdom_stack<8>, ssy_stack<8>, selected_pdom<8>,
                   selected_ssy<8>) {
    using mask = typename S::mask_type;
    S s(10, mask{0x7E}); // lanes 1-6 live
    const std::size_t d0 = s.depth();
    s.branch(mask{0xFF}, 20, 11, 30); // all active lanes taken (inactive lanes ignored)
    CHECK(s.pc() == 20);
    CHECK(s.depth() == d0);
    s.branch(mask{0x81}, 40, 21, 30); // no active lane taken
    CHECK(s.pc() == 21);
    CHECK(s.depth() == d0);
    s.branch(mask{0x0E}, 22, 22, 30); // lanes split, but both go to 22
    CHECK(s.pc() == 22);
    CHECK(s.depth() == d0);
    CHECK(s.active() == mask{0x7E});
    CHECK(s.stats().uniform_branches == 3);
    CHECK(s.stats().divergent_branches == 0);
    CHECK(s.max_depth() == d0);
}

TEST_CASE_TEMPLATE("worst-case nesting: one lane split off per level", S, pdom_stack<8>,
                   ssy_stack<8>, pdom_stack<32>, ssy_stack<32>, selected_pdom<32>,
                   selected_ssy<32>) {
    using mask = typename S::mask_type;
    constexpr std::size_t w = S::warp_size;
    S s(0);
    // Level i: lanes 0..w-2-i are taken to 100+i, lane w-1-i falls through to 200+i; all of
    // them reconverge at 300+i (the deeper levels inside the shallower ones).
    for (std::size_t i = 0; i + 1 < w; ++i) {
        s.branch(mask::first_n(w - 1 - i), static_cast<pc_type>(100 + i),
                 static_cast<pc_type>(200 + i), static_cast<pc_type>(300 + i));
    }
    CHECK(s.active() == mask::single(0));
    CHECK(s.depth() == (reconverges_at_ssy<S>() ? w - 1 : 2 * w - 1));
    CHECK(s.depth() <= S::capacity);
    // A single lane cannot diverge.
    const pc_type here = s.pc();
    s.branch(mask::single(0), here, here + 1, 9);
    CHECK(s.pc() == here);
    CHECK(s.stats().uniform_branches == 1);
    // Unwind: a path of level k walks to 300+k; a join of level k > 0 walks on to 300+k-1.
    std::size_t steps = 0;
    while (!s.converged() && steps < 4 * w) {
        const pc_type pc = s.pc();
        s.advance(pc >= 300 ? pc - 1 : 300 + pc % 100);
        ++steps;
    }
    CHECK(s.converged());
    CHECK(s.active() == mask::full());
    CHECK(s.pc() == 300);
    CHECK(s.stats().reconvergences == w - 1);
    CHECK(s.max_depth() == (reconverges_at_ssy<S>() ? w - 1 : 2 * w - 1));
}
