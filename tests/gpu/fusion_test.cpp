// AMOEBA's SM fusion (paper 002 Sec. 4.2) and the first-CTA predictor inputs (Sec. 4.1).
#include <warpkit/core/error.hpp>
#include <warpkit/exec/unit_cluster.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gpu/fusion.hpp>
#include <warpkit/gpu/invariants.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/scalability_sampling.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/mem/line_coalescer.hpp>

#include "bundled_kernels.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

// Every bundled kernel, each run on both machines by the comparisons below.
const char* const all_bundled[] = {"vadd.s",   "reduce.s", "scan.s", "histogram.s",
                                   "matmul.s", "sfu.s",    "bfs.s"};

template <class Preset>
func::global_memory run_timed(const isa::program& p, gpu::run_stats* out = nullptr) {
    const func::isa_kernel k(p, static_cast<std::uint32_t>(Preset::warp_size));
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<Preset> g(Preset::params());
    const auto rs = g.run(k, mem);
    CHECK(rs.total.blocks_completed == k.blocks());
    if (out != nullptr) *out = rs;
    return mem;
}
} // namespace

TEST_CASE("fuse_sm_pairs: amoeba_48 becomes 24 SMs with both SMs' resources (paper 002 "
          "Sec. 4.2)") {
    const auto so = gpu::amoeba_48::params();
    const auto f = gpu::fuse_sm_pairs(so);
    CHECK(f.name == "amoeba_48_fused");
    CHECK(f.sms == 24);
    CHECK(f.registers == 2 * so.registers);
    CHECK(f.shared_bytes == 2 * so.shared_bytes);
    CHECK(f.sm.warp_slots == so.sm.warp_slots); // the same warps, twice as wide
    CHECK(f.sm.block_slots == 16);
    CHECK(f.schedulers == so.schedulers); // one scheduler for both warp pools
    CHECK(f.sm.issue_width == so.sm.issue_width);
    CHECK(f.sm.units.sp_lanes == 16);
    CHECK(f.sm.units.sfu_lanes == 8);
    CHECK(f.sm.units.ldst_lanes == 16);
    CHECK(f.sm.banks.banks == 64);
    CHECK(f.sm.bank_group_lanes == 64);
    // A 64-thread warp on 16 lanes takes as many cycles as a 32-thread warp on 8.
    CHECK(f.sm.units.timing.fp_mad.initiation_interval ==
          so.sm.units.timing.fp_mad.initiation_interval);
    CHECK(gpu::amoeba_48_fused::warp_size == 64);
    CHECK(gpu::preset_warp_size("amoeba_48_fused") == 64);
}

TEST_CASE("fuse_sm_pairs: the fused L1s keep their sets, double their ways and take one more "
          "cycle") {
    const auto so = gpu::amoeba_48::params().memory.l1;
    const auto f = gpu::fuse_sm_pairs(gpu::amoeba_48::params()).memory.l1;
    CHECK(f.data.cache.sets == so.data.cache.sets);
    CHECK(f.data.cache.line_bytes == so.data.cache.line_bytes);
    CHECK(f.data.cache.ways == 2 * so.data.cache.ways);
    // 16 KB + 16 KB: 32 sets x 8 ways x 128 B.
    CHECK(std::uint64_t{f.data.cache.sets} * f.data.cache.ways * f.data.cache.line_bytes ==
          32 * 1024);
    CHECK(f.data_latency == so.data_latency + 1);
    CHECK(f.constant.cache.ways == 2 * so.constant.cache.ways);
    CHECK(f.constant.cache.sets == so.constant.cache.sets);
    CHECK(f.constant_latency == so.constant_latency + 1);
    CHECK(f.data.mshr.entries == 128); // 64 MSHRs per core (Table 1), both cores'
    CHECK(f.data.mshr.max_merged == so.data.mshr.max_merged);
    CHECK(f.prt.entries == 2 * so.prt.entries);
}

TEST_CASE("fuse_sm_pairs: fused SM j sits at scale-out SM 2j's node and one router of each "
          "pair is bypassed") {
    const auto so = gpu::amoeba_48::params();
    const auto f = gpu::fuse_sm_pairs(so);
    const auto before = gpu::sm_nodes_of(so.memory, so.sms);
    const auto& mesh = f.memory.noc.mesh;
    REQUIRE(f.memory.noc.sm_nodes.size() == 24);
    std::set<std::uint32_t> bypassed;
    for (const auto& b : mesh.bypass) {
        CHECK(b.host + 1 == b.node); // served by the west neighbour
        CHECK(b.node % mesh.cols % 2 == 1);
        bypassed.insert(b.node);
    }
    CHECK(bypassed.size() == 4 * 7); // the odd columns: half the 56 routers
    for (std::uint32_t j = 0; j < 24; ++j) {
        CHECK(f.memory.noc.sm_nodes[j] == before[2 * j]);
        CHECK(before[2 * j + 1] == before[2 * j] + 1); // neighbours in one row
    }
    // Hand check of the first rows: controllers at (2,0), (5,0), (0,2) and (7,2).
    const std::vector<std::uint32_t> first{0, 3, 6, 8, 10, 12, 14, 17, 19, 21};
    CHECK(std::equal(first.begin(), first.end(), f.memory.noc.sm_nodes.begin()));
    // The slices keep their nodes; nothing collides.
    const auto pl = gpu::place_nodes(f.memory, f.sms);
    CHECK(pl.slices == so.memory.noc.slice_nodes);
    std::set<std::uint32_t> all(pl.sms.begin(), pl.sms.end());
    all.insert(pl.slices.begin(), pl.slices.end());
    CHECK(all.size() == 24 + 8);
}

TEST_CASE("fuse_sm_pairs: what cannot fuse is a config error naming the field") {
    auto p = gpu::amoeba_48::params();
    p.sms = 47;
    p.memory = gpu::ideal_memory();
    CHECK_THROWS_WITH_AS((void)gpu::fuse_sm_pairs(p), doctest::Contains("sms"), config_error);
    p = gpu::amoeba_48::params();
    p.sm.units.sp_lanes = 32;
    CHECK_THROWS_WITH_AS((void)gpu::fuse_sm_pairs(p), doctest::Contains("sp_lanes"), config_error);
    p = gpu::fermi_gtx480::params();
    p.sms = 16;
    p.cluster_size = 2;
    CHECK_THROWS_WITH_AS((void)gpu::fuse_sm_pairs(p), doctest::Contains("cluster_size"),
                         config_error);
}

TEST_CASE("place_nodes: explicit SM nodes, slices on the nodes left") {
    gpu::memory_params m;
    m.noc.model = gpu::network_model::crossbar;
    m.noc.sm_nodes = {3, 1};
    const auto pl = gpu::place_nodes(m, 2);
    CHECK(pl.sms == std::vector<std::uint32_t>{3, 1});
    REQUIRE(pl.slices.size() == m.slices());
    CHECK(pl.slices[0] == 0);
    CHECK(pl.slices[1] == 2);
    CHECK(pl.slices[2] == 4);
    m.noc.sm_nodes = {1, 1};
    CHECK_THROWS_WITH_AS((void)gpu::place_nodes(m, 2), doctest::Contains("noc.sm_nodes"),
                         config_error);
    m.noc.sm_nodes = {1};
    CHECK_THROWS_WITH_AS((void)gpu::place_nodes(m, 2), doctest::Contains("one node per SM"),
                         config_error);
}

TEST_CASE("a fused warp of 64 threads coalesces both halves' accesses together") {
    // 2-byte accesses: 32 threads cover 64 bytes, 64 threads one 128-byte line.
    mem::line_coalescer<128> c;
    mem::lane_addresses<64> a{};
    for (std::size_t l = 0; l < 64; ++l)
        a[l] = 0x1000 + 2 * l;
    mem::transaction_list<64> fused;
    c.coalesce(a, 2, lane_mask<64>::full(), fused);
    CHECK(fused.size() == 1);
    mem::lane_addresses<32> lo{};
    mem::lane_addresses<32> hi{};
    for (std::size_t l = 0; l < 32; ++l) {
        lo[l] = a[l];
        hi[l] = a[l + 32];
    }
    mem::transaction_list<32> t0;
    mem::transaction_list<32> t1;
    c.coalesce(lo, 2, lane_mask<32>::full(), t0);
    c.coalesce(hi, 2, lane_mask<32>::full(), t1);
    CHECK(t0.size() + t1.size() == 2); // two scale-out SMs: two transactions for one line
}

TEST_CASE("a cluster executes a 64-thread warp in twice the lane passes") {
    exec::unit_cluster<int> c(exec::cluster_params{isa::unit_class::fp, 16, {}});
    c.issue(exec::op_class::fp_add, 0, lane_mask<64>::full());
    CHECK(c.stats().lane_slots == 64); // 16 lanes x 4 passes
    CHECK(c.stats().thread_ops == 64);
    CHECK(c.stats().active_threads.count(32) == 1); // the last bin: 32 or more
    CHECK(c.stats().lane_ops[0] == 4);              // threads 0, 16, 32, 48
}

TEST_CASE("every bundled kernel computes the same on the fused GPU as on the scale-out GPU "
          "and functionally") {
    for (const char* name : all_bundled) {
        CAPTURE(name);
        const auto p = test::bundled_kernel(name);
        gpu::run_stats so_stats;
        gpu::run_stats f_stats;
        const auto so = run_timed<gpu::amoeba_48>(p, &so_stats);
        const auto f = run_timed<gpu::amoeba_48_fused>(p, &f_stats);
        func::global_memory ref;
        const func::isa_kernel k(p);
        func::load_data(k, ref);
        (void)func::run_functional<32, simt::pdom_stack<32>>(k, ref);
        CHECK(so == ref);
        CHECK(f == ref);
        // The same thread work in half the warp instructions.
        CHECK(f_stats.total.thread_instructions == so_stats.total.thread_instructions);
        CHECK(f_stats.total.warp_instructions < so_stats.total.warp_instructions);
        CHECK(f_stats.per_sm.size() == 24);
    }
}

TEST_CASE("first-CTA metrics of vadd.s on amoeba_48 are the hand-counted ones") {
    // vadd.s: 4 blocks of 64 threads (2 warps), n = 256 so every thread is in range; each warp
    // executes the 21 instructions once: 2 global loads, 1 store, 32 lanes x 4 bytes = one
    // 128-byte line per access.
    const func::isa_kernel k(test::bundled_kernel("vadd.s"));
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<gpu::amoeba_48> g(gpu::amoeba_48::params());
    gpu::first_cta_sampler sampler;
    std::uint32_t blocks_seen = 0;
    std::uint64_t flits = 0;
    const gpu::gpu<gpu::amoeba_48>::block_hook hook = [&](std::uint32_t b, const auto& sm,
                                                          std::uint64_t c) {
        ++blocks_seen;
        if (b == 0) flits = sm.stats().request_flits;
        sampler(b, sm, c);
    };
    const auto rs = g.run(k, mem, {}, {}, hook);
    CHECK(blocks_seen == 4);
    REQUIRE(sampler.metrics().has_value());
    const auto& m = *sampler.metrics();
    CHECK(m.concurrent_cta == doctest::Approx(1.0)); // one block per SM
    CHECK(m.control_divergent == 0.0);
    CHECK(m.coalescing == doctest::Approx(1.0 / 32));
    CHECK(m.l1d_miss == 1.0); // every line is read once
    CHECK(m.l1i_miss == 0.0);
    CHECK(m.l1c_miss == 0.0);
    CHECK(m.mshr == 0.0);
    CHECK(m.load_rate == doctest::Approx(2.0 / 21));
    CHECK(m.store_rate == doctest::Approx(1.0 / 21));
    // Per warp: 2 reads of one 16-byte flit (the 8-byte header) and one write of 8 + 128 bytes
    // (9 flits of 128 bits). A block completes when its warps have exited, which may be
    // before its last write has left the SM: the window sees the flits sent so far.
    for (std::size_t s = 0; s < 4; ++s)
        CHECK(rs.per_sm[s].request_flits == 2 * (2 + 9));
    CHECK(flits >= 2 * 2 + 9);
    CHECK(flits <= 2 * (2 + 9));
    CHECK(m.noc ==
          doctest::Approx(static_cast<double>(flits) / static_cast<double>(sampler.cycle() + 1)));
    m.validate();
}

TEST_CASE("control divergence counts the launched threads a warp instruction leaves idle") {
    // 48 threads in one block: warp 0 full, warp 1 launched with 16 threads. Threads with an odd
    // id run 2 more instructions than the others inside the branch.
    const auto p = isa::assemble(R"(
.kernel div
.grid 1
.block 48
    LDS r1, %tid.x
    MVI r2, 1
    AND r3, r1, r2
    SSY join
    BEQ r3, join
    ADD r4, r1, r1
    ADD r4, r4, r1
join:
    EXIT
)",
                                 "div.s");
    const func::isa_kernel k(p);
    func::global_memory mem;
    gpu::gpu<gpu::amoeba_48> g(gpu::amoeba_48::params());
    gpu::first_cta_sampler sampler;
    const gpu::gpu<gpu::amoeba_48>::block_hook hook = [&](std::uint32_t b, const auto& sm,
                                                          std::uint64_t c) { sampler(b, sm, c); };
    const auto rs = g.run(k, mem, {}, {}, hook);
    REQUIRE(sampler.metrics().has_value());
    // Per warp: 5 instructions with every launched thread, 2 with half of them, EXIT with all
    // (the SSY join reunites them): threads idle = 2 x launched / 2 of 8 x launched.
    CHECK(sampler.metrics()->control_divergent == doctest::Approx(1.0 / 8));
    const auto& t = rs.total;
    CHECK(t.warp_threads == 8 * (32 + 16));
    CHECK(t.thread_instructions == 7 * (32 + 16));
}

// ---- AMOEBA's dynamic split (paper 002 Sec. 4.3) ------------------------------------------

namespace {

// Odd threads run a 300-iteration loop, even ones skip it: every 64-thread warp diverges at
// once and stays divergent for the whole loop. out[i] = i + (odd ? 0 + 1 + ... + 299 : 0).
const char* const diverge_kernel = R"(
.kernel diverge
.grid 24
.block 256
.param 0x0
    LDS r1, %tid.x
    LDS r2, %ctaid.x
    LDS r3, %ntid.x
    MAD r4, r2, r3, r1
    MVI r5, 1
    AND r6, r1, r5
    MVI r7, 0
    MVI r8, 0
    MVI r9, 300
    SSY done
    BEQ r6, done
loop:
    ADD r7, r7, r8
    ADD r8, r8, r5
    SLT r10, r8, r9
    BNE r10, loop
done:
    ADD r7, r7, r4
    MVI r11, 2
    SHL r12, r4, r11
    LDS r13, %param0
    ADD r13, r13, r12
    STG r13, r7
    EXIT
)";

gpu::gpu_params with_split(reconfig::split_mode m, double threshold = 0.25) {
    auto p = gpu::amoeba_48_fused::params();
    p.sm.split.mode = m;
    p.sm.split.threshold = threshold;
    return p;
}

struct split_run {
    func::global_memory mem;
    gpu::run_stats rs;
};

split_run run_split(const isa::program& prog, const gpu::gpu_params& p) {
    const func::isa_kernel k(prog, 64);
    split_run r;
    func::load_data(k, r.mem);
    gpu::gpu<gpu::amoeba_48_fused> g(p);
    r.rs = g.run(k, r.mem, [](const auto& sm) { gpu::require(gpu::check_sm(sm), "check_sm"); });
    gpu::require(gpu::check_run(r.rs, {k.blocks(), p.sms}), "check_run");
    return r;
}

} // namespace

TEST_CASE("split: every bundled kernel computes the same with direct split and warp "
          "regrouping, with the same thread work, nothing lost") {
    for (const char* name : all_bundled) {
        CAPTURE(name);
        const auto p = test::bundled_kernel(name);
        // Threshold 0: any divergent warp splits its SM at the next check.
        const auto fused = run_split(p, with_split(reconfig::split_mode::off));
        CHECK(fused.rs.total.split.splits == 0);
        for (auto m : {reconfig::split_mode::direct, reconfig::split_mode::regroup}) {
            CAPTURE(static_cast<int>(m));
            auto params = with_split(m, 0.0);
            params.sm.split.check_interval = 8;
            const auto r = run_split(p, params);
            CHECK(r.mem == fused.mem);
            CHECK(r.rs.total.thread_instructions == fused.rs.total.thread_instructions);
            const auto& sp = r.rs.total.split;
            CHECK(sp.refuses <= sp.splits);
            CHECK(sp.splits <= sp.refuses + r.rs.per_sm.size()); // at most one open per SM
            CHECK(r.rs.total.warps_finished == fused.rs.total.warps_finished + sp.warps_cut);
        }
    }
}

TEST_CASE("split: a kernel that diverges everywhere splits every SM; a high threshold none") {
    const auto p = isa::assemble(diverge_kernel, "diverge.s");
    const auto fused = run_split(p, with_split(reconfig::split_mode::off));
    // The reference: out[i] = i + (i odd ? 299 * 300 / 2 : 0).
    const auto out = fused.mem.read(0, 24 * 256);
    for (std::uint32_t i = 0; i < 24 * 256; ++i)
        REQUIRE(out[i] == i + (i % 2 == 1 ? 299U * 300U / 2U : 0U));
    for (auto m : {reconfig::split_mode::direct, reconfig::split_mode::regroup}) {
        CAPTURE(static_cast<int>(m));
        const auto r = run_split(p, with_split(m));
        CHECK(r.mem == fused.mem);
        for (std::size_t i = 0; i < r.rs.per_sm.size(); ++i) {
            CAPTURE(i);
            const auto& sp = r.rs.per_sm[i].split;
            // One block of four warps per SM, all divergent within cycles of each other.
            CHECK(sp.refuses == sp.splits);
            if (m == reconfig::split_mode::direct) {
                // Every warp binned at the one split and cut: 8 parts on SM1.
                CHECK(sp.splits == 1);
                CHECK(sp.warps_cut == 4);
                CHECK(sp.warps_moved == 8);
                CHECK(sp.fast_warps_moved == 0);
            } else {
                // Regrouping may hand a stalling SM1 a warp that has not diverged yet; it is
                // not cut (and may split the SM again after the re-fuse).
                CHECK(sp.splits >= 1);
                CHECK(sp.warps_cut >= 3);
                CHECK(sp.warps_moved == sp.warps_cut);
                CHECK(sp.warps_cut + sp.fast_warps_moved >= 4);
            }
            CHECK(sp.split_cycles > 0);
        }
        // Direct split keeps odd and even threads together in each half: every part is
        // still divergent. Regrouping by groups of 8 threads cannot separate them either.
        CHECK(r.rs.total.warp_instructions > fused.rs.total.warp_instructions);
    }
}

TEST_CASE("split: the threshold is a ratio of divergent warps to all warps, strictly above") {
    // Only the first warp of each block (threads 0..63) diverges: 1 of 4 warps. After the
    // reconvergence every thread runs a uniform 300-iteration loop, so the other warps stay
    // resident while the first one is divergent.
    std::string src = diverge_kernel;
    const std::string from = "    AND r6, r1, r5\n";
    const std::string to = "    AND r6, r1, r5\n    MVI r14, 64\n    SLT r15, r1, r14\n"
                           "    AND r6, r6, r15\n";
    src.replace(src.find(from), from.size(), to);
    const std::string join = "done:\n";
    const std::string uniform = "done:\n    MVI r16, 0\nagain:\n    ADD r16, r16, r5\n"
                                "    SLT r17, r16, r9\n    BNE r17, again\n";
    src.replace(src.find(join), join.size(), uniform);
    const auto p = isa::assemble(src, "diverge1.s");
    const auto fused = run_split(p, with_split(reconfig::split_mode::off));
    const auto out = fused.mem.read(0, 24 * 256);
    for (std::uint32_t i = 0; i < 24 * 256; ++i)
        REQUIRE(out[i] == i + (i % 2 == 1 && i % 256 < 64 ? 299U * 300U / 2U : 0U));
    for (auto m : {reconfig::split_mode::direct, reconfig::split_mode::regroup}) {
        CAPTURE(static_cast<int>(m));
        const auto at = run_split(p, with_split(m, 0.25)); // 1/4 is not above 0.25
        CHECK(at.rs.total.split.splits == 0);
        CHECK(at.rs.cycles == fused.rs.cycles);
        CHECK(at.mem == fused.mem);
        const auto below = run_split(p, with_split(m, 0.2));
        CHECK(below.mem == fused.mem);
        CHECK(below.rs.total.split.splits == 24);
        CHECK(below.rs.total.split.warps_cut == 24);
        CHECK(below.rs.total.split.refuses == 24);
    }
}

TEST_CASE("split: regrouping by thread groups separates the two paths into convergent warps") {
    // Groups of 8 threads alternate between the long loop and the short path (tid & 8).
    std::string src = diverge_kernel;
    const std::string from = "    MVI r5, 1\n    AND r6, r1, r5\n";
    const std::string to = "    MVI r5, 1\n    MVI r14, 8\n    AND r6, r1, r14\n";
    src.replace(src.find(from), from.size(), to);
    const auto p = isa::assemble(src, "diverge8.s");
    const auto fused = run_split(p, with_split(reconfig::split_mode::off));
    const auto out = fused.mem.read(0, 24 * 256);
    for (std::uint32_t i = 0; i < 24 * 256; ++i)
        REQUIRE(out[i] == i + ((i & 8U) != 0 ? 299U * 300U / 2U : 0U));
    const auto direct = run_split(p, with_split(reconfig::split_mode::direct));
    const auto regroup = run_split(p, with_split(reconfig::split_mode::regroup));
    CHECK(direct.mem == fused.mem);
    CHECK(regroup.mem == fused.mem);
    CHECK(regroup.rs.total.split.warps_cut == 24 * 4);
    // Regrouped parts run convergent: the loop lanes fill their warp. Direct split's halves
    // still carry both paths, so its loop instructions run half-empty.
    const auto util = [](const gpu::run_stats& r) {
        return static_cast<double>(r.total.thread_instructions) /
               static_cast<double>(r.total.warp_threads);
    };
    CHECK(util(regroup.rs) > util(direct.rs));
}

TEST_CASE("split: the SM answers what it cannot do with a named config_error") {
    auto p = with_split(reconfig::split_mode::direct);
    p.sm.warp_slots = 48;
    CHECK_THROWS_WITH_AS(gpu::gpu<gpu::amoeba_48_fused>{p}, doctest::Contains("warp_slots"),
                         config_error);
    auto c = gpu::amoeba_48::params();
    c.cluster_size = 2;
    c.sm.split.mode = reconfig::split_mode::regroup;
    CHECK_THROWS_WITH_AS(gpu::gpu<gpu::amoeba_48>{c}, doctest::Contains("sm.split.mode"),
                         config_error);
    auto g = with_split(reconfig::split_mode::direct);
    g.sm.split.group_lanes = 64;
    CHECK_THROWS_WITH_AS(gpu::gpu<gpu::amoeba_48_fused>{g}, doctest::Contains("group_lanes"),
                         config_error);
    // A split SM's second half is not gated: a split refuses a gating policy.
    auto gated = with_split(reconfig::split_mode::direct);
    gated.sm.gating.policy = gating::policy_kind::conventional;
    const func::isa_kernel k(test::bundled_kernel("vadd.s"), 64);
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<gpu::amoeba_48_fused> gpu_gated(gated);
    CHECK_THROWS_WITH_AS(static_cast<void>(gpu_gated.run(k, mem)),
                         doctest::Contains("power-gating"), config_error);
}
