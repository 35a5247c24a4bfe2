// SIMT reconvergence stacks: cost of a uniform branch, of a divergent branch plus the
// reconvergence of both paths, of a random mix, of recording an issue; and the one-off cost of
// the immediate-post-dominator analysis of a kernel's control-flow graph.

#include <warpkit/core/rng.hpp>
#include <warpkit/simt/ipdom.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using warpkit::warp_mask;
using warpkit::simt::pc_type;
using warpkit::simt::pdom_stack;
using warpkit::simt::ssy_stack;

// Branch with every active lane taken: no push, the pc moves to the target.
template <class S>
void bm_uniform_branch(benchmark::State& state) {
    S s(0);
    pc_type target = 1;
    for (auto _ : state) {
        s.branch(warp_mask::full(), target, target + 1, 500);
        target = target == 1 ? 2 : 1;
        benchmark::DoNotOptimize(s.pc());
    }
    state.SetItemsProcessed(state.iterations());
}

// One divergent branch (16 of 32 lanes taken), then the taken and the not-taken path each
// reach the reconvergence pc: push, two pops (PDOM) or swap and merge (SSY).
template <class S>
void bm_divergent_branch(benchmark::State& state) {
    S s(300);
    const warp_mask half{0x0000FFFFu};
    for (auto _ : state) {
        s.branch(half, 100, 200, 300);
        s.advance(300);
        s.advance(300);
        benchmark::DoNotOptimize(s.active());
    }
    state.SetItemsProcessed(state.iterations());
}

// The same with the SSY instruction issued before each branch, as paper 004's code does.
void bm_ssy_divergent_branch_with_ssy(benchmark::State& state) {
    ssy_stack<32> s(300);
    const warp_mask half{0x0000FFFFu};
    for (auto _ : state) {
        s.ssy(300);
        s.branch(half, 100, 200);
        s.advance(300);
        s.advance(300);
        benchmark::DoNotOptimize(s.active());
    }
    state.SetItemsProcessed(state.iterations());
}

// Random taken masks (a quarter of the branches uniform), so the branch predictor cannot
// learn which case comes next; each path walks to the reconvergence pc.
template <class S>
void bm_random_branch(benchmark::State& state) {
    std::array<warp_mask, 1024> masks{};
    warpkit::rng r(7);
    for (auto& m : masks) {
        const std::uint64_t k = r.below(8);
        m = k == 0   ? warp_mask{}
            : k == 1 ? warp_mask::full()
                     : warp_mask{static_cast<std::uint32_t>(r())};
    }
    S s(300);
    std::size_t i = 0;
    for (auto _ : state) {
        s.branch(masks[i++ & 1023], 100, 200, 300);
        while (s.pc() != 300)
            s.advance(300);
        benchmark::DoNotOptimize(s.active());
    }
    state.SetItemsProcessed(state.iterations());
}

template <class S>
void bm_record_issue(benchmark::State& state) {
    S s(0, warp_mask{0x00FF00FFu});
    for (auto _ : state)
        s.record_issue();
    benchmark::DoNotOptimize(s.stats().lane_utilisation.samples());
    state.SetItemsProcessed(state.iterations());
}

// Post-dominator tree of a random reducible-looking CFG with range(0) blocks.
void bm_ipdom(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    std::vector<std::vector<std::size_t>> g(n);
    warpkit::rng r(11);
    for (std::size_t b = 0; b + 1 < n; ++b) {
        g[b].push_back(b + 1);
        if (r.below(3) == 0) g[b].push_back(r.below(n)); // branch forward or back
    }
    for (auto _ : state) {
        const warpkit::simt::post_dominator_tree t(g);
        benchmark::DoNotOptimize(t.ipdom(0));
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

} // namespace

BENCHMARK(bm_uniform_branch<pdom_stack<32>>)->Name("pdom/uniform_branch");
BENCHMARK(bm_uniform_branch<ssy_stack<32>>)->Name("ssy/uniform_branch");
BENCHMARK(bm_divergent_branch<pdom_stack<32>>)->Name("pdom/divergent_branch_and_reconverge");
BENCHMARK(bm_divergent_branch<ssy_stack<32>>)->Name("ssy/divergent_branch_and_reconverge");
BENCHMARK(bm_ssy_divergent_branch_with_ssy)->Name("ssy/ssy_divergent_branch_and_reconverge");
BENCHMARK(bm_random_branch<pdom_stack<32>>)->Name("pdom/random_branch_and_reconverge");
BENCHMARK(bm_random_branch<ssy_stack<32>>)->Name("ssy/random_branch_and_reconverge");
BENCHMARK(bm_record_issue<pdom_stack<32>>)->Name("pdom/record_issue");
BENCHMARK(bm_record_issue<ssy_stack<32>>)->Name("ssy/record_issue");
BENCHMARK(bm_ipdom)->Name("ipdom/cfg_blocks")->Arg(16)->Arg(64)->Arg(256);
