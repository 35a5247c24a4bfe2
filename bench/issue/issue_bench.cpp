// Throughput of the warp schedulers (one select + notify per issue cycle) and scoreboards.
#include <warpkit/core/rng.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/two_level.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

namespace wi = warpkit::issue;
using warpkit::isa::unit_class;

constexpr std::size_t snapshots = 64;  // distinct cycles replayed round-robin
constexpr std::size_t issue_width = 2; // Fermi's N (paper 003 Section 6)

// Views of `warps` warps over many cycles: ~60% ready, ~10% waiting on memory, a Fermi-like
// mix of unit classes (half INT, a quarter FP, the rest LDST/SFU/branch).
std::vector<std::vector<wi::warp_view>> make_cycles(std::size_t warps) {
    warpkit::rng r(42, warps);
    std::vector<std::vector<wi::warp_view>> cycles(snapshots);
    for (auto& c : cycles) {
        c.resize(warps);
        for (std::size_t w = 0; w < warps; ++w) {
            auto& v = c[w];
            v.id = static_cast<wi::warp_id>(w);
            v.age = w;
            const auto k = r.below(16);
            v.unit = k < 8    ? unit_class::int_alu
                     : k < 12 ? unit_class::fp
                     : k < 14 ? unit_class::ldst
                     : k < 15 ? unit_class::sfu
                              : unit_class::branch;
            v.long_latency = r.bernoulli(0.1);
            v.ready = !v.long_latency && r.bernoulli(0.65);
        }
    }
    return cycles;
}

template <class S>
void bm_select(benchmark::State& state) {
    const auto warps = static_cast<std::size_t>(state.range(0));
    const auto cycles = make_cycles(warps);
    S s{};
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& v = cycles[i++ % snapshots];
        const auto picked = s.select(std::span<const wi::warp_view>(v), issue_width);
        s.notify_issued(picked);
        benchmark::DoNotOptimize(picked.size());
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel("select+notify, width 2");
}

#define WARPKIT_SELECT_BENCH(...)                                                                  \
    BENCHMARK_TEMPLATE(bm_select, __VA_ARGS__)->Arg(8)->Arg(24)->Arg(48)
WARPKIT_SELECT_BENCH(wi::lrr);
WARPKIT_SELECT_BENCH(wi::rr);
WARPKIT_SELECT_BENCH(wi::gto);
WARPKIT_SELECT_BENCH(wi::two_level<wi::lrr>);
WARPKIT_SELECT_BENCH(wi::gates<wi::lrr>);
// A GTX480 SM: two schedulers, warp i on scheduler i mod 2.
WARPKIT_SELECT_BENCH(wi::scheduler_bank<wi::two_level<wi::lrr>>);
WARPKIT_SELECT_BENCH(wi::scheduler_bank<wi::gates<wi::lrr>>);

// One instruction's life: check its hazards, reserve its destination, release it.
void bm_scoreboard_check_reserve_release(benchmark::State& state) {
    wi::scoreboard sb;
    std::array<wi::operands, 16> ops{};
    for (unsigned k = 0; k < ops.size(); ++k)
        ops[k] = wi::operands{}.read(k).read(k + 16).write(k + 32).guard(k % 7);
    std::size_t i = 0;
    for (auto _ : state) {
        const std::size_t w = i % 48;
        const auto& o = ops[i % ops.size()];
        const auto h = sb.check(w, o);
        benchmark::DoNotOptimize(h);
        sb.reserve(w, o, (i & 7) == 0);
        sb.release(w, o);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_scoreboard_check_reserve_release);

// Only the hazard check of an issue stage scanning warps (48 warps, a few writes in flight).
void bm_scoreboard_check(benchmark::State& state) {
    wi::scoreboard sb;
    for (std::size_t w = 0; w < 48; ++w)
        sb.reserve(w, wi::operands{}.write(static_cast<unsigned>(w % 40)).write(50), w % 3 == 0);
    const auto o = wi::operands{}.read(3).read(17).write(9).guard(1);
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(sb.peek(i % 48, o));
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_scoreboard_check);

// A memory instruction on a four-SM cluster: reserve, then one ack per member.
void bm_cluster_scoreboard_memory(benchmark::State& state) {
    wi::cluster_scoreboard<4> sb;
    const auto ld = wi::operands{}.read(1).write(2);
    std::size_t i = 0;
    for (auto _ : state) {
        const std::size_t w = i % 48;
        sb.reserve(w, ld, wi::latency_kind::memory);
        for (std::size_t m = 0; m < 4; ++m)
            benchmark::DoNotOptimize(sb.ack(w, 2, (m + i) % 4));
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_cluster_scoreboard_memory);

} // namespace
