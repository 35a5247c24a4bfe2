// AMOEBA's SM fusion (paper 002 Sec. 4.2) and the first-CTA predictor inputs (Sec. 4.1).
#include <warpkit/core/error.hpp>
#include <warpkit/exec/unit_cluster.hpp>
#include <warpkit/gpu/functional.hpp>
#include <warpkit/gpu/fusion.hpp>
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
template <class Preset>
gpu::global_memory run_timed(const isa::program& p, gpu::run_stats* out = nullptr) {
    const gpu::isa_kernel k(p, static_cast<std::uint32_t>(Preset::warp_size));
    gpu::global_memory mem;
    gpu::load_data(k, mem);
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
    for (const char* name :
         {"vadd.s", "reduce.s", "scan.s", "histogram.s", "matmul.s", "sfu.s", "bfs.s"}) {
        CAPTURE(name);
        const auto p = test::bundled_kernel(name);
        gpu::run_stats so_stats;
        gpu::run_stats f_stats;
        const auto so = run_timed<gpu::amoeba_48>(p, &so_stats);
        const auto f = run_timed<gpu::amoeba_48_fused>(p, &f_stats);
        gpu::global_memory ref;
        const gpu::isa_kernel k(p);
        gpu::load_data(k, ref);
        (void)gpu::run_functional<32, simt::pdom_stack<32>>(k, ref);
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
    const gpu::isa_kernel k(test::bundled_kernel("vadd.s"));
    gpu::global_memory mem;
    gpu::load_data(k, mem);
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
    const gpu::isa_kernel k(p);
    gpu::global_memory mem;
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
