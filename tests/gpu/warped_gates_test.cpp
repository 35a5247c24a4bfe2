// The synthetic instruction source, the SM's power-gating wiring, and the directions of the
// Warped Gates evaluation (paper 003 Section 7) on a small deterministic workload.
#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/func/synthetic_source.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/coordinated_blackout.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gating/selectable.hpp>
#include <warpkit/gpu.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/two_level.hpp>

#include "bundled_kernels.hpp"
#include "scripted_source.hpp"
#include "sm_policies.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

using namespace warpkit;

static_assert(func::instruction_source<func::synthetic_source<32>, 32>);

namespace {

std::vector<isa::static_inst> stream(const func::synthetic_params& p, std::uint64_t seed,
                                     std::uint64_t warp) {
    std::vector<isa::static_inst> out;
    rng r = rng(seed).fork(warp);
    func::synthetic_stream(p, r, out);
    return out;
}

bool same(const isa::static_inst& a, const isa::static_inst& b) {
    return a.opcode == b.opcode && a.unit == b.unit && a.latency == b.latency &&
           a.num_dst == b.num_dst && a.num_src == b.num_src && a.dst == b.dst && a.src == b.src &&
           a.space == b.space && a.mop == b.mop && a.is_barrier == b.is_barrier &&
           a.is_exit == b.is_exit;
}

} // namespace

TEST_CASE("synthetic params: validation names the field, mixes are known by name") {
    func::synthetic_params p;
    CHECK_NOTHROW(validate(p));
    p.fp_fraction += 0.1; // the four fractions no longer add up to 1
    CHECK_THROWS_AS(validate(p), config_error);
    try {
        validate(p);
    } catch (const config_error& e) {
        CHECK(e.field() == "int_fraction");
    }
    func::synthetic_params q;
    q.dep_distance_max = 60; // beyond the rotating destination registers
    CHECK_THROWS_AS(validate(q), config_error);
    q = {};
    q.lane_stride = 6;
    CHECK_THROWS_AS(validate(q), config_error);
    for (auto name : func::synthetic_mix_names())
        CHECK_NOTHROW(validate(func::synthetic_mix(name)));
    CHECK_THROWS_AS((void)func::synthetic_mix("hotspot"), config_error);
    CHECK(func::synthetic_mix("few-warps").max_blocks_per_sm *
              func::synthetic_mix("few-warps").warps_per_block <
          10);
    // Overrides reach the reflected fields.
    auto m = func::synthetic_mix("balanced");
    apply_override(m, "barrier_interval=16");
    CHECK(m.barrier_interval == 16);
}

TEST_CASE("synthetic stream: deterministic for a seed, different for another") {
    const auto p = func::synthetic_mix("balanced");
    const auto a = stream(p, 7, 3);
    const auto b = stream(p, 7, 3);
    const auto c = stream(p, 8, 3);
    const auto d = stream(p, 7, 4);
    REQUIRE(a.size() == func::synthetic_stream_length(p));
    REQUIRE(a.size() == b.size());
    bool all_same = true;
    for (std::size_t i = 0; i < a.size(); ++i)
        all_same = all_same && same(a[i], b[i]);
    CHECK(all_same);
    std::size_t differ_seed = 0;
    std::size_t differ_warp = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        differ_seed += same(a[i], c[i]) ? 0 : 1;
        differ_warp += same(a[i], d[i]) ? 0 : 1;
    }
    CHECK(differ_seed > a.size() / 2);
    CHECK(differ_warp > a.size() / 2);
    CHECK(a.back().is_exit);
}

TEST_CASE("synthetic stream: the mix, loads and stores match the params") {
    for (auto name : func::synthetic_mix_names()) {
        CAPTURE(name);
        auto p = func::synthetic_mix(name);
        p.insts_per_warp = 2000;
        std::array<double, isa::unit_class_count> n{};
        double loads = 0;
        double stores = 0;
        double global_ops = 0;
        double total = 0;
        for (std::uint64_t w = 0; w < 60; ++w)
            for (const auto& s : stream(p, 11, w)) {
                if (s.is_exit || s.is_barrier) continue;
                ++n[isa::index(s.unit)];
                ++total;
                loads += s.mop == isa::mem_op::load ? 1 : 0;
                stores += s.mop == isa::mem_op::store ? 1 : 0;
                global_ops += s.space == isa::mem_space::global ? 1 : 0;
            }
        CHECK(total == 60.0 * 2000);
        // 120000 draws with runs (type_repeat 0.5): a standard error below 0.3 points.
        CHECK(std::abs(n[isa::index(isa::unit_class::int_alu)] / total - p.int_fraction) < 0.015);
        CHECK(std::abs(n[isa::index(isa::unit_class::fp)] / total - p.fp_fraction) < 0.015);
        CHECK(std::abs(n[isa::index(isa::unit_class::sfu)] / total - p.sfu_fraction) < 0.01);
        CHECK(std::abs(n[isa::index(isa::unit_class::ldst)] / total - p.ldst_fraction) < 0.015);
        const double mem = loads + stores;
        CHECK(mem == n[isa::index(isa::unit_class::ldst)]);
        CHECK(std::abs(stores / mem - p.store_fraction) < 0.02);
        CHECK(std::abs(global_ops / mem - p.long_latency_fraction) < 0.02);
    }
}

TEST_CASE("synthetic stream: every source reads a live-in or a value still held") {
    auto p = func::synthetic_mix("memory-bound");
    p.insts_per_warp = 3000;
    p.dependence = 0.9;
    p.dep_distance_max = 40;
    p.dep_distance_mean = 6;
    const auto code = stream(p, 5, 0);
    // last[r] = index of the latest writer of register r so far
    std::array<long, 64> last{};
    last.fill(-1);
    std::size_t dependent = 0;
    std::size_t reads = 0;
    for (std::size_t i = 0; i < code.size(); ++i) {
        const auto& s = code[i];
        for (std::size_t k = 0; k < s.num_src; ++k) {
            const auto r = s.src[k];
            ++reads;
            if (r < func::synthetic_params::live_in_registers) continue;
            ++dependent;
            REQUIRE(last[r] >= 0);
            CHECK(static_cast<long>(i) - last[r] <= static_cast<long>(p.dep_distance_max));
        }
        for (std::size_t k = 0; k < s.num_dst; ++k) {
            CHECK(s.dst[k] >= func::synthetic_params::live_in_registers);
            CHECK(s.dst[k] < 63); // within the scoreboard's registers
            last[s.dst[k]] = static_cast<long>(i);
        }
        CHECK(s.num_dst == (s.mop == isa::mem_op::store || s.is_exit ? 0 : 1));
    }
    // Producers without a result (stores) send some dependent reads to live-ins.
    CHECK(static_cast<double>(dependent) / static_cast<double>(reads) > 0.6);
}

TEST_CASE("synthetic stream: barriers at fixed places, loop bodies load first and store last") {
    func::synthetic_params p;
    p.insts_per_warp = 100;
    p.barrier_interval = 30;
    p.iteration_length = 10;
    for (std::uint64_t w = 0; w < 4; ++w) {
        const auto code = stream(p, 3, w);
        REQUIRE(code.size() == 100 + 3 + 1);
        std::vector<std::size_t> bars;
        std::vector<isa::static_inst> body;
        for (std::size_t i = 0; i < code.size(); ++i) {
            if (code[i].is_barrier)
                bars.push_back(i);
            else if (!code[i].is_exit)
                body.push_back(code[i]);
        }
        CHECK(bars == std::vector<std::size_t>{30, 61, 92}); // after 30, 60 and 90 instructions
        for (std::size_t b = 0; b < body.size(); b += 10) {
            int phase = 0; // 0 loads, 1 arithmetic, 2 stores
            for (std::size_t i = b; i < b + 10; ++i) {
                const int rank = body[i].mop == isa::mem_op::load
                                     ? 0
                                     : (body[i].mop == isa::mem_op::store ? 2 : 1);
                CHECK(rank >= phase);
                phase = rank;
            }
        }
    }
}

TEST_CASE("synthetic source: unit-stride addresses, warps of a block share barriers") {
    func::synthetic_params p;
    p.insts_per_warp = 200;
    p.warps_per_block = 2;
    p.blocks = 2;
    p.barrier_interval = 50;
    p.lane_stride = 4;
    func::synthetic_source<32> src(p, rng(9), 4, 2);
    const std::array<std::uint32_t, 2> slots0 = {0, 1};
    const std::array<std::uint32_t, 2> slots1 = {2, 3};
    CHECK(src.start_block(0, 0, slots0) == 2);
    CHECK(src.start_block(1, 1, slots1) == 2);
    std::vector<std::uint64_t> first_global(4, 0);
    // Run warp 0 to its first barrier: it waits; the block is not complete until warp 1 comes.
    std::size_t n = 0;
    while (!src.at_barrier(0)) {
        const auto d = src.execute(0, {});
        ++n;
        if (d.si.mop != isa::mem_op::none) {
            for (std::size_t l = 1; l < 32; ++l)
                CHECK(d.addr[l] - d.addr[l - 1] == 4);
            CHECK(d.addr[0] % 4 == 0);
        }
    }
    CHECK(n == 51);
    CHECK(src.peek(0, 0) != nullptr); // the next instruction is known, not issuable
    CHECK_FALSE(src.barrier_complete(0));
    while (!src.at_barrier(1))
        (void)src.execute(1, {});
    CHECK(src.barrier_complete(0));
    CHECK_FALSE(src.barrier_complete(1));
    src.release_barrier(0);
    CHECK_FALSE(src.at_barrier(0));
    CHECK_FALSE(src.at_barrier(1));
    // Global addresses of two warps never overlap (each has its own 128-byte slice).
    func::synthetic_source<32> g(p, rng(9), 4, 2);
    (void)g.start_block(0, 0, slots0);
    std::array<std::uint64_t, 2> lo{};
    for (std::uint32_t w = 0; w < 2; ++w)
        for (;;) {
            const auto d = g.execute(w, {});
            if (d.si.space == isa::mem_space::global) {
                lo[w] = d.addr[0] & 0xffffffffULL;
                break;
            }
            if (g.at_barrier(w)) g.release_barrier(0);
        }
    CHECK(lo[0] == 0);
    CHECK(lo[1] == 128);
}

namespace {

/// Counters of one run of a synthetic workload on one SM.
struct gates_run_result {
    std::uint64_t cycles = 0;
    gpu::sm_stats sm{};
    std::uint64_t generated = 0;
    std::uint64_t executed = 0;
    std::uint64_t total = 0;
    std::vector<gating::stats> gates;
    std::vector<std::uint32_t> idle_detect; // per controller at the end
    std::array<gating::stats, 2> type{};    // INT, FP summed
    std::array<std::uint64_t, 2> energy{};  // INT, FP static energy
    std::array<gpu::type_adaptation_stats, 2> adaptation{};
};

gpu::sm_params study_sm() {
    gpu::sm_params p;
    p.fetch_width = 2;
    return p;
}

template <class Scheduler, class Gating>
gates_run_result run(const func::synthetic_params& w, std::uint64_t seed,
                     const gpu::sm_params& sp = study_sm()) {
    using pol = test::sm_policies<Scheduler, Gating>;
    using source_t = func::synthetic_source<32>;
    using sm_t = gpu::sm<pol, source_t>;
    typename sm_t::scheduler_bank_type::params_type bank;
    bank.schedulers = 1;
    sm_t sm(0, sp, bank, source_t(w, rng(seed), sp.warp_slots, sp.block_slots));
    const std::uint32_t limit = w.max_blocks_per_sm == 0 ? sp.block_slots : w.max_blocks_per_sm;
    std::uint32_t next = 0;
    std::uint32_t resident = 0;
    std::uint32_t done = 0;
    for (std::uint64_t c = 0; c < 5000000; ++c) {
        while (next < w.blocks && resident < limit && sm.has_free_block_slot(w.warps_per_block)) {
            sm.start_block(next++, w.warps_per_block);
            ++resident;
        }
        sm.tick([&](std::uint32_t) {
            --resident;
            ++done;
        });
        if (next == w.blocks && sm.idle()) break;
    }
    REQUIRE(sm.idle());
    CHECK(done == w.blocks);
    sm.finish();
    gates_run_result r;
    r.sm = sm.stats();
    r.cycles = r.sm.cycles;
    r.generated = sm.source().generated();
    r.executed = sm.source().executed();
    r.total = sm.source().total_instructions();
    const std::size_t sps = sp.units.sp_count;
    for (std::size_t c = 0; c < sm.gates().size(); ++c) {
        const auto& g = sm.gates()[c];
        r.gates.push_back(g.stats());
        r.idle_detect.push_back(g.idle_detect());
        accumulate(r.type[c / sps], g.stats());
        r.energy[c / sps] += gating::static_energy(g.stats(), g.params());
    }
    r.adaptation[0] = sm.adaptation(isa::unit_class::int_alu);
    r.adaptation[1] = sm.adaptation(isa::unit_class::fp);
    return r;
}

using two_level = issue::two_level<>;
using gates = issue::gates<>;
using warped_gates_policy = gating::adaptive_idle_detect<gating::coordinated_blackout>;

// A small compute-bound workload (many warps with decoded instructions, the regime where
// GATES can reorder, paper 003 Section 7.2): 12 blocks of 8 warps x 400 instructions.
func::synthetic_params small_workload() {
    auto p = func::synthetic_mix("fp-heavy");
    p.blocks = 12;
    p.insts_per_warp = 400;
    return p;
}

double savings(const gates_run_result& r, std::size_t t, std::uint64_t baseline_cycles) {
    return 1.0 - static_cast<double>(r.energy[t]) / (2.0 * static_cast<double>(baseline_cycles));
}

double beyond(const gating::stats& s) {
    const auto& ip = s.idle_periods;
    const auto n = ip.below_idle_detect + ip.up_to_break_even + ip.beyond_break_even;
    return n == 0 ? 0.0 : static_cast<double>(ip.beyond_break_even) / static_cast<double>(n);
}

} // namespace

// Every technique of the study, as a type for TEST_CASE_TEMPLATE.
template <class S, class G>
struct technique {
    using scheduler = S;
    using gating_policy = G;
};
using no_pg_t = technique<two_level, gating::no_gating>;
using convpg_t = technique<two_level, gating::conventional>;
using gates_t = technique<gates, gating::conventional>;
using naive_t = technique<gates, gating::naive_blackout>;
using coordinated_t = technique<gates, gating::coordinated_blackout>;
using warped_gates_t = technique<gates, warped_gates_policy>;
#define WG_TECHNIQUES no_pg_t, convpg_t, gates_t, naive_t, coordinated_t, warped_gates_t

TEST_CASE_TEMPLATE("SM on a synthetic workload: nothing lost, nothing created; state and energy "
                   "identities",
                   T, WG_TECHNIQUES) {
    auto w = small_workload();
    w.barrier_interval = 64; // barriers exercise the source's block bookkeeping too
    const auto r = run<typename T::scheduler, typename T::gating_policy>(w, 3);
    // Every generated instruction issued exactly once.
    CHECK(r.total ==
          std::uint64_t{w.blocks} * w.warps_per_block * func::synthetic_stream_length(w));
    CHECK(r.generated == r.total);
    CHECK(r.executed == r.total);
    CHECK(r.sm.warp_instructions == r.total);
    CHECK(r.sm.blocks_completed == w.blocks);
    std::uint64_t by_unit = 0;
    for (auto n : r.sm.issued_by_unit)
        by_unit += n;
    CHECK(by_unit == r.total);
    for (const auto& g : r.gates) {
        // The controller saw every SM cycle, each in exactly one state.
        CHECK(g.cycles == r.cycles);
        CHECK(g.on_cycles + g.uncompensated_cycles + g.compensated_cycles + g.waking_cycles ==
              r.cycles);
        // Each episode ends in a wakeup, except one still gated at the end.
        CHECK(g.gating_events >= g.wakeups);
        CHECK(g.gating_events - g.wakeups <= 1);
        CHECK(g.negative_events <= g.wakeups);
        CHECK(g.critical_wakeups <= g.wakeups);
        CHECK(g.blackout_stall_cycles <= g.stall_cycles);
        const auto& ip = g.idle_periods;
        CHECK(ip.below_idle_detect + ip.up_to_break_even + ip.beyond_break_even ==
              ip.lengths.samples());
    }
    for (std::size_t t = 0; t < 2; ++t) {
        // Energy identity: static energy + net savings = the never-gated energy of the cycles.
        const auto& s = r.type[t];
        const auto e = static_cast<std::int64_t>(r.energy[t]);
        const std::int64_t net = static_cast<std::int64_t>(s.gated_cycles()) -
                                 14 * static_cast<std::int64_t>(s.gating_events);
        CHECK(e + net == static_cast<std::int64_t>(2 * r.cycles));
    }
}

TEST_CASE("GATES lengthens the INT and FP idle periods of two-level scheduling (Fig. 3a/b)") {
    // A compute-bound workload: many warps with decoded instructions, so that GATES has
    // instructions of the other type to issue while it holds one back.
    const auto w = small_workload();
    const auto conv = run<two_level, gating::conventional>(w, 1);
    const auto gat = run<gates, gating::conventional>(w, 1);
    for (std::size_t t = 0; t < 2; ++t) {
        CAPTURE(t);
        // Longer on average, and more of them beyond idle-detect + break-even.
        CHECK(gat.type[t].idle_periods.lengths.mean() > conv.type[t].idle_periods.lengths.mean());
        CHECK(beyond(gat.type[t]) > beyond(conv.type[t]));
    }
    // The same holds without gating (the scheduler alone shapes the idle periods).
    const auto none_tl = run<two_level, gating::no_gating>(w, 1);
    const auto none_gates = run<gates, gating::no_gating>(w, 1);
    for (std::size_t t = 0; t < 2; ++t) {
        CAPTURE(t);
        CHECK(none_gates.type[t].idle_periods.lengths.mean() >
              none_tl.type[t].idle_periods.lengths.mean());
    }
}

TEST_CASE("Blackout removes negative events; Warped Gates saves more than ConvPG (Figs. 8-10)") {
    auto w = func::synthetic_mix("balanced");
    w.blocks = 12;
    w.insts_per_warp = 400;
    const auto none = run<two_level, gating::no_gating>(w, 1);
    const auto conv = run<two_level, gating::conventional>(w, 1);
    const auto naive = run<gates, gating::naive_blackout>(w, 1);
    const auto coord = run<gates, gating::coordinated_blackout>(w, 1);
    const auto wg = run<gates, warped_gates_policy>(w, 1);

    // Never gating: no events, no saving.
    CHECK(none.type[0].gating_events + none.type[1].gating_events == 0);
    CHECK(savings(none, 0, none.cycles) == doctest::Approx(0.0));

    // Blackout never wakes a unit before break-even (Section 5), and it does gate; conventional
    // gating does wake units early on this workload (so the zero says something).
    for (const auto* r : {&naive, &coord, &wg})
        for (std::size_t t = 0; t < 2; ++t) {
            CHECK(r->type[t].negative_events == 0);
            CHECK(r->type[t].gating_events > 0);
        }
    CHECK(conv.type[0].negative_events > 0);
    CHECK(conv.type[1].negative_events > 0);

    // Warped Gates saves more static energy than ConvPG for INT and FP (Fig. 9), wakes units
    // less often (Fig. 8c) and costs little performance (Fig. 10: under a few percent).
    for (std::size_t t = 0; t < 2; ++t) {
        CAPTURE(t);
        CHECK(savings(wg, t, none.cycles) > savings(conv, t, none.cycles));
        CHECK(wg.type[t].wakeups < conv.type[t].wakeups);
    }
    CHECK(static_cast<double>(wg.cycles) / static_cast<double>(none.cycles) < 1.03);

    // On the compute-bound workload too, with a larger (still small) performance cost.
    const auto cw = small_workload();
    const auto cnone = run<two_level, gating::no_gating>(cw, 1);
    const auto cconv = run<two_level, gating::conventional>(cw, 1);
    const auto cwg = run<gates, warped_gates_policy>(cw, 1);
    for (std::size_t t = 0; t < 2; ++t)
        CHECK(savings(cwg, t, cnone.cycles) > savings(cconv, t, cnone.cycles));
    CHECK(static_cast<double>(cwg.cycles) / static_cast<double>(cnone.cycles) < 1.06);
}

TEST_CASE("Warped Gates: one idle-detect register and one critical-wakeup count per type") {
    auto w = small_workload();
    const auto wg = run<gates, warped_gates_policy>(w, 2);
    REQUIRE(wg.idle_detect.size() == 4);
    // Both clusters of a type read the same register, within the paper's bounds [5, 10].
    CHECK(wg.idle_detect[0] == wg.idle_detect[1]);
    CHECK(wg.idle_detect[2] == wg.idle_detect[3]);
    for (auto v : wg.idle_detect) {
        CHECK(v >= 5);
        CHECK(v <= 10);
    }
    for (std::size_t t = 0; t < 2; ++t) {
        const auto& a = wg.adaptation[t];
        // The type's counter saw every critical wakeup of its clusters.
        CHECK(a.critical_wakeups == wg.type[t].critical_wakeups);
        CHECK(a.epochs == wg.cycles / 1000);
        // The register ends where its increments and decrements took it from 5.
        CHECK(5 + a.idle_detect_increments - a.idle_detect_decrements == wg.idle_detect[2 * t]);
    }
    // On this workload the critical wakeups exceed 5 per epoch at times: the register moved.
    CHECK(wg.adaptation[0].idle_detect_increments + wg.adaptation[1].idle_detect_increments > 0);
    // Non-adaptive policies keep the fixed threshold and count nothing.
    const auto coord = run<gates, gating::coordinated_blackout>(w, 2);
    for (auto v : coord.idle_detect)
        CHECK(v == 5);
    CHECK(coord.adaptation[0].epochs == 0);
}

namespace {

using scripted = test::scripted_source;
using test::op;

isa::static_inst add(isa::reg_id d, std::vector<isa::reg_id> s) {
    return op(isa::unit_class::int_alu, isa::latency_class::int_alu, d, std::move(s));
}
isa::static_inst rcp(isa::reg_id d, std::vector<isa::reg_id> s) {
    return op(isa::unit_class::sfu, isa::latency_class::sfu, d, std::move(s));
}
isa::static_inst exit_op() {
    return test::exit_inst();
}

template <class Gating>
struct hand_result {
    std::vector<std::uint64_t> issued;
    std::vector<gating::stats> gates;
};

template <class Gating>
hand_result<Gating> hand_run(std::vector<isa::static_inst> code) {
    using sm_t = gpu::sm<test::sm_policies<issue::lrr, Gating>, scripted>;
    issue::scheduler_bank_params<issue::no_params> bank;
    bank.schedulers = 1;
    gpu::sm_params p;
    sm_t sm(0, p, bank, scripted({std::move(code)}));
    sm.start_block(0, 1);
    for (int c = 0; c < 1000 && !sm.idle(); ++c)
        sm.tick([](std::uint32_t) {});
    REQUIRE(sm.idle());
    sm.finish();
    hand_result<Gating> r;
    r.issued = sm.source().issued_at(0);
    for (const auto& g : sm.gates())
        r.gates.push_back(g.stats());
    return r;
}

} // namespace

TEST_CASE("SM gating, hand-computed: a wakeup delays the instruction by the wakeup delay") {
    // ADD at 2 keeps INT cluster 0 busy in cycles 2..5; RCP (SFU, latency 8) issues at 3 and
    // its result is written back at 11, when the dependent ADD becomes ready. Cluster 0 is
    // idle in 6..10 and gates at the end of cycle 10 (idle-detect 5); cluster 1, never used,
    // gated at the end of cycle 4, so at cycle 11 it has 6 gated cycles behind it.
    const std::vector<isa::static_inst> code = {add(1, {}), rcp(2, {}), add(3, {2}), exit_op()};
    const auto none = hand_run<gating::no_gating>(code);
    CHECK(none.issued == std::vector<std::uint64_t>{2, 3, 11, 12});

    // Conventional: the pick at 11 wakes cluster 0 (lowest index) in its first gated cycle:
    // waking 11, 12, 13, on at 14. A negative event (woken before break-even).
    const auto conv = hand_run<gating::conventional>(code);
    CHECK(conv.issued == std::vector<std::uint64_t>{2, 3, 14, 15});
    CHECK(conv.gates[0].wakeups == 1);
    CHECK(conv.gates[0].negative_events == 1);
    CHECK(conv.gates[0].stall_cycles == 3); // the pick at 11 and the waits at 12, 13
    CHECK(conv.gates[1].wakeups == 0);

    // Naive Blackout: both INT clusters are in blackout at 11. Cluster 1 reaches break-even
    // first: its 15th gated cycle is 19, when the waiting ADD is picked (a critical wakeup);
    // waking 19, 20, 21, on at 22.
    const auto naive = hand_run<gating::naive_blackout>(code);
    CHECK(naive.issued == std::vector<std::uint64_t>{2, 3, 22, 23});
    CHECK(naive.gates[1].wakeups == 1);
    CHECK(naive.gates[1].critical_wakeups == 1);
    CHECK(naive.gates[1].negative_events == 0);
    CHECK(naive.gates[0].wakeups == 0);
    CHECK(naive.gates[0].negative_events == 0);
}

namespace {

// Everything a gated run counts, as text: the SM counters, every controller's counters and
// idle-detect threshold, and the per-type adaptation.
std::string gating_record(const gates_run_result& r) {
    std::string out = std::to_string(r.cycles) + " " + stats_to_json(r.sm).dump();
    for (std::size_t c = 0; c < r.gates.size(); ++c)
        out += "\n" + stats_to_json(r.gates[c]).dump() + " " + std::to_string(r.idle_detect[c]);
    for (const auto& a : r.adaptation)
        out += "\n" + stats_to_json(a).dump();
    return out;
}

// A GTX480 whose gating policy is fixed at compile time to `Gating`: the reference a preset
// run with that policy chosen by params (sm.gating.policy) must match.
template <class Gating>
struct fermi_with_static_gating : gpu::fermi_gtx480 {
    using gating_policy = Gating;
};

// The whole run_stats of `program` on GPU type G with params `params`, then every SM's
// controllers and adaptation counters.
template <class G>
std::string preset_gating_record(const isa::program& program, const gpu::gpu_params& params) {
    func::isa_kernel k(program);
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<G> g(params);
    std::string controllers;
    const auto rs = g.run(k, mem, [&](const auto& sm) {
        for (const auto& c : sm.gates())
            controllers +=
                "\n" + stats_to_json(c.stats()).dump() + " " + std::to_string(c.idle_detect()) +
                " " +
                std::string(
                    enum_names<gating::power_state>::names[static_cast<std::size_t>(c.state())]);
        for (const auto u : {isa::unit_class::int_alu, isa::unit_class::fp})
            controllers += "\n" + stats_to_json(sm.adaptation(u)).dump() + " " +
                           std::to_string(sm.idle_detect(u));
    });
    return stats_to_json(rs).dump() + controllers;
}

// Kind K chosen by params, on one SM (synthetic workload) and on the fermi_gtx480 preset
// (bundled kernels, GATES scheduling), against the static policy type of K. Returns the
// preset records (for telling the kinds apart).
template <gating::policy_kind K>
std::vector<std::string> check_gating_same_as_static() {
    using static_policy = gating::policy_of_kind<K>;
    CAPTURE(enum_names<gating::policy_kind>::names[static_cast<std::size_t>(K)]);
    auto sp = study_sm();
    sp.gating.policy = K;
    const auto w = small_workload();
    CHECK(gating_record(run<gates, gating::selectable>(w, 2, sp)) ==
          gating_record(run<gates, static_policy>(w, 2, sp)));

    auto chosen = gpu::fermi_gtx480::params();
    chosen.scheduler.kind = issue::scheduler_kind::gates_lrr;
    chosen.sm.gating.policy = K;
    auto fixed_params = chosen;
    fixed_params.sm.gating.policy = gating::policy_kind::no_gating; // the type decides
    std::vector<std::string> records;
    for (const std::string name : {"matmul.s", "histogram.s", "bfs.s"}) {
        CAPTURE(name);
        const auto program = test::bundled_kernel(name);
        records.push_back(preset_gating_record<gpu::fermi_gtx480>(program, chosen));
        CHECK(records.back() ==
              preset_gating_record<fermi_with_static_gating<static_policy>>(program, fixed_params));
    }
    // The static type reports its kind.
    const gpu::gpu<fermi_with_static_gating<static_policy>> g(fixed_params);
    CHECK(g.params().sm.gating.policy == K);
    return records;
}

} // namespace

TEST_CASE("a gating policy chosen by params gates exactly as its static policy type") {
    using k = gating::policy_kind;
    const std::vector<std::vector<std::string>> records = {
        check_gating_same_as_static<k::no_gating>(),
        check_gating_same_as_static<k::conventional>(),
        check_gating_same_as_static<k::naive_blackout>(),
        check_gating_same_as_static<k::coordinated_blackout>(),
        check_gating_same_as_static<k::adaptive>(),
        check_gating_same_as_static<k::adaptive_coordinated_blackout>()};
    // The kinds differ from each other on some kernel, so the checks above tell them apart.
    for (std::size_t a = 0; a < records.size(); ++a)
        for (std::size_t b = a + 1; b < records.size(); ++b) {
            CAPTURE(a);
            CAPTURE(b);
            CHECK(records[a] != records[b]);
        }
    // The presets do not gate unless asked to.
    CHECK(gpu::fermi_gtx480::params().sm.gating.policy == k::no_gating);
    CHECK(gpu::amoeba_48_fused::params().sm.gating.policy == k::no_gating);
}

TEST_CASE("a preset's gating policy changes its cycles and wakeups") {
    const auto program = test::bundled_kernel("matmul.s");
    const auto cycles_and_wakeups = [&](gating::policy_kind kind) {
        auto p = gpu::fermi_gtx480::params();
        p.sm.gating.policy = kind;
        func::isa_kernel k(program);
        func::global_memory mem;
        func::load_data(k, mem);
        gpu::gpu<gpu::fermi_gtx480> g(p);
        std::uint64_t wakeups = 0;
        const auto rs = g.run(k, mem, [&](const auto& sm) {
            for (const auto& c : sm.gates())
                wakeups += c.stats().wakeups;
        });
        return std::pair{rs.cycles, wakeups};
    };
    const auto none = cycles_and_wakeups(gating::policy_kind::no_gating);
    const auto conv = cycles_and_wakeups(gating::policy_kind::conventional);
    const auto naive = cycles_and_wakeups(gating::policy_kind::naive_blackout);
    CHECK(none.second == 0);
    CHECK(conv.second > 0);
    CHECK(conv.first > none.first);
    CHECK(naive.second < conv.second); // Blackout waits out break-even instead of waking
}
