// Immediate post-dominators on hand-drawn control-flow graphs, and against the definition
// (every path to the exit passes through the block) on random graphs.

#include "program.hpp"

#include <warpkit/core/rng.hpp>
#include <warpkit/simt/ipdom.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;
using warpkit::simt::post_dominator_tree;
using graph = std::vector<std::vector<std::size_t>>;

namespace {

std::vector<std::size_t> ipdoms(const post_dominator_tree& t) {
    std::vector<std::size_t> out;
    for (std::size_t b = 0; b < t.size(); ++b)
        out.push_back(t.ipdom(b));
    return out;
}

constexpr std::size_t none = post_dominator_tree::none;

} // namespace

TEST_CASE("ipdom: if/else joins at the merge block") {
    // 0 -> {1, 2}; 1 -> 3; 2 -> 3; 3 exits.
    const post_dominator_tree t(graph{{1, 2}, {3}, {3}, {}});
    const std::size_t x = t.virtual_exit();
    CHECK(x == 4);
    CHECK(ipdoms(t) == std::vector<std::size_t>{3, 3, 3, x});
    CHECK(t.post_dominators(0) == std::vector<std::size_t>{0, 3, x});
    CHECK(t.post_dominates(3, 1));
    CHECK_FALSE(t.post_dominates(1, 0));
    CHECK(t.post_dominates(x, 2));
    CHECK(t.post_dominates(2, 2));
}

TEST_CASE("ipdom: if without else") {
    // 0 -> {1, 2}; 1 -> 2; 2 exits.
    const post_dominator_tree t(graph{{1, 2}, {2}, {}});
    CHECK(ipdoms(t) == std::vector<std::size_t>{2, 2, t.virtual_exit()});
}

TEST_CASE("ipdom: nested if") {
    // 0 -> {1, 5}; 1 -> {2, 3}; 2 -> 4; 3 -> 4; 4 -> 6; 5 -> 6; 6 exits.
    const post_dominator_tree t(graph{{1, 5}, {2, 3}, {4}, {4}, {6}, {6}, {}});
    CHECK(ipdoms(t) == std::vector<std::size_t>{6, 4, 4, 4, 6, 6, t.virtual_exit()});
    CHECK(t.post_dominators(2) == std::vector<std::size_t>{2, 4, 6, 7});
}

TEST_CASE("ipdom: loop with break") {
    // 0 -> 1; 1 (break test) -> {4, 2}; 2 -> 3; 3 (latch) -> {1, 4}; 4 -> 5; 5 exits.
    const post_dominator_tree t(graph{{1}, {4, 2}, {3}, {1, 4}, {5}, {}});
    CHECK(ipdoms(t) == std::vector<std::size_t>{1, 4, 3, 4, 5, t.virtual_exit()});
}

TEST_CASE("ipdom: break inside an if inside a loop reconverges only at the loop exit") {
    // 0 -> 1; 1 (if) -> {2, 4}; 2 (break test) -> {5, 3}; 3 -> 4; 4 (latch) -> {1, 5}; 5 exits.
    const post_dominator_tree t(graph{{1}, {2, 4}, {5, 3}, {4}, {1, 5}, {}});
    CHECK(ipdoms(t) == std::vector<std::size_t>{1, 5, 5, 4, 5, t.virtual_exit()});
    CHECK_FALSE(t.post_dominates(4, 1)); // the break skips the end of the if
}

TEST_CASE("ipdom: loop with continue") {
    // 0 -> 1; 1 (continue test) -> {3, 2}; 2 -> 3; 3 (latch) -> {1, 4}; 4 exits.
    const post_dominator_tree t(graph{{1}, {3, 2}, {3}, {1, 4}, {}});
    CHECK(ipdoms(t) == std::vector<std::size_t>{1, 3, 3, 4, t.virtual_exit()});
}

TEST_CASE("ipdom: early return reconverges only at the virtual exit") {
    // 0 -> {1, 2}; 1 returns; 2 -> 3; 3 returns.
    const post_dominator_tree t(graph{{1, 2}, {}, {3}, {}});
    const std::size_t x = t.virtual_exit();
    CHECK(ipdoms(t) == std::vector<std::size_t>{x, x, 3, x});
    CHECK(t.reconvergence_pcs({0, 5, 9, 12}) == std::vector<pc_type>{no_pc, no_pc, 12, no_pc});
}

TEST_CASE("ipdom: infinite loops and irreducible graphs") {
    // 0 -> {1, 2}; 1 -> 1 (never exits); 2 exits.
    const post_dominator_tree inf(graph{{1, 2}, {1}, {}});
    CHECK(inf.ipdom(1) == none);
    CHECK_FALSE(inf.reaches_exit(1));
    CHECK(inf.ipdom(0) == 2);
    CHECK(inf.post_dominators(1) == std::vector<std::size_t>{1});
    CHECK_FALSE(inf.post_dominates(inf.virtual_exit(), 1));
    CHECK(inf.reconvergence_pcs({0, 1, 2})[1] == no_pc);
    // Two entries into a cycle: 0 -> {1, 2}; 1 -> {2, 3}; 2 -> {1, 3}; 3 exits.
    const post_dominator_tree irr(graph{{1, 2}, {2, 3}, {1, 3}, {}});
    CHECK(ipdoms(irr) == std::vector<std::size_t>{3, 3, 3, irr.virtual_exit()});
}

TEST_CASE("ipdom: bad successor indices are configuration errors") {
    CHECK_THROWS_AS(post_dominator_tree(graph{{1}, {5}}), warpkit::config_error);
    const post_dominator_tree t(graph{{}});
    CHECK_THROWS_AS((void)t.reconvergence_pcs({0, 1}), warpkit::config_error);
    CHECK(post_dominator_tree(graph{}).size() == 0);
}

TEST_CASE("ipdom: the reconvergence pcs of the hand-written kernels") {
    using namespace simt_test;
    const auto rpc_of_branches = [](const program& p) {
        const block_graph g = make_block_graph(p);
        const post_dominator_tree t(g.successors);
        const std::vector<pc_type> rpc = t.reconvergence_pcs(g.block_pc);
        std::vector<pc_type> out;
        for (std::size_t pc = 0; pc < p.size(); ++pc)
            if (p[pc].k == kind::bra && p[pc].cond >= 0) out.push_back(rpc[g.block_of[pc]]);
        return out;
    };
    CHECK(rpc_of_branches(nested_if_else()) == std::vector<pc_type>{11, 10});
    CHECK(rpc_of_branches(divergent_loop()) == std::vector<pc_type>{4});
    CHECK(rpc_of_branches(exit_in_then()) == std::vector<pc_type>{5});
}

TEST_CASE("ipdom: agrees with the path definition on random graphs") {
    warpkit::rng r(99);
    for (int iter = 0; iter < 400; ++iter) {
        CAPTURE(iter);
        const std::size_t n = 1 + r.below(10);
        graph g(n);
        for (auto& succ : g) {
            const std::uint64_t k = r.below(4); // 0: exit block; 3: two successors, often
            for (std::uint64_t j = 0; j < (k == 3 ? 2 : k); ++j)
                succ.push_back(r.below(n));
        }
        const post_dominator_tree t(g);
        const std::size_t x = n;
        // Can `from` reach the virtual exit without passing through `avoid`?
        const auto reaches = [&](std::size_t from, std::size_t avoid) {
            if (from == avoid) return false;
            std::vector<bool> seen(n, false);
            std::vector<std::size_t> todo{from};
            seen[from] = true;
            while (!todo.empty()) {
                const std::size_t v = todo.back();
                todo.pop_back();
                if (g[v].empty()) return avoid != x;
                for (const std::size_t w : g[v])
                    if (w != avoid && !seen[w]) {
                        seen[w] = true;
                        todo.push_back(w);
                    }
            }
            return false;
        };
        for (std::size_t b = 0; b < n; ++b) {
            CAPTURE(b);
            const bool exits = reaches(b, n + 1);
            CHECK(t.reaches_exit(b) == exits);
            if (!exits) {
                CHECK(t.ipdom(b) == none);
                continue;
            }
            // Strict post-dominators by definition; the immediate one is post-dominated by
            // all the others.
            std::vector<std::size_t> strict;
            for (std::size_t a = 0; a <= n; ++a) {
                const bool pd = a == b || !reaches(b, a);
                CHECK(t.post_dominates(a, b) == pd);
                if (pd && a != b) strict.push_back(a);
            }
            std::size_t imm = none;
            for (const std::size_t d : strict) {
                bool all = true;
                for (const std::size_t o : strict)
                    if (o != d && !(o == x || (d != x && !reaches(d, o)))) all = false;
                if (all) imm = d;
            }
            CHECK(t.ipdom(b) == imm);
        }
    }
}
