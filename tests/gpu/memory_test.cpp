// The memory hierarchy behind the SMs: latencies derived by hand from the parameters, miss
// counts of streams, L2 reuse, write-evict, constant cache and atomics, conservation of
// requests and replies on every preset, and repeatability.

#include <warpkit/core/concepts.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/memory_system.hpp>

#include "bundled_kernels.hpp"
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>

#include "../reset_law.hpp"
#include "memory_rig.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

using namespace warpkit;
using test::exit_step;
using test::load;
using test::memory_rig;
using test::step;
using test::use;

namespace {

// Issue-to-issue distance of a load and the instruction that uses it (steps i and i + 1).
std::int64_t gap(const memory_rig& r, std::size_t i, std::size_t warp = 0) {
    const auto& t = r.sm(0).source().issued_at(warp);
    REQUIRE(t.size() > i + 1);
    return static_cast<std::int64_t>(t[i + 1]) - static_cast<std::int64_t>(t[i]);
}

// GTX480 address map: channel 0, bank 0, row 0 holds bytes 0..255 (lines 0 and 128, which
// the channel's two slices share); the same bank's next row starts 16 banks x 2048 bytes of
// channel space later, i.e. at global byte 32768 / 256 x 6 x 256.
constexpr std::uint64_t line_a = 0;             // channel 0, bank 0, row 0, slice 0
constexpr std::uint64_t line_c = 128;           // same row, slice 1
constexpr std::uint64_t line_b = 128 * 6 * 256; // channel 0, bank 0, row 1, slice 0

} // namespace

TEST_CASE("memory params: a bad value names the field, its value and the allowed range") {
    auto p = gpu::gtx480_memory();
    p.l1.data_latency = 0;
    CHECK_THROWS_WITH_AS(validate(p),
                         "invalid parameter 'l1.data_latency' = 0 (allowed: [1, 100000])",
                         config_error);
    p = gpu::gtx480_memory();
    p.partition.l2.cache.sector_bytes = 32; // a sectored L2 answers sectored and whole-line L1s
    CHECK_NOTHROW(validate(p));
    p.l1.data.cache.sector_bytes = 64; // the sector coalescer's transactions are 32 bytes
    CHECK_THROWS_WITH_AS(validate(p), doctest::Contains("'l1.data.cache.sector_bytes' = 64"),
                         config_error);
    p.l1.data.cache.sector_bytes = 32;
    CHECK_NOTHROW(validate(p));
    p.l1.transactions_per_cycle = 0;
    CHECK_THROWS_WITH_AS(validate(p),
                         "invalid parameter 'l1.transactions_per_cycle' = 0 (allowed: [1, 32])",
                         config_error);
    // A sectored L1 looks up one sector per transaction: line coalescing is refused.
    p.l1.transactions_per_cycle = 1;
    CHECK_THROWS_WITH_AS(memory_rig(p, {{{exit_step()}}}),
                         doctest::Contains("'sm.coalescer' = line"), config_error);
    CHECK_NOTHROW(
        memory_rig(p, {{{exit_step()}}}, 700, test::rig_sm_params(mem::coalescer_kind::sector)));
    p = gpu::gtx480_memory();
    p.partition.l2.cache.line_bytes = 64; // smaller than the L1 line it must answer
    CHECK_THROWS_AS(validate(p), config_error);
    auto g = gpu::fermi_gtx480::params();
    CHECK_NOTHROW(apply_override(g, "memory.model=ideal"));
    CHECK(g.memory.model == gpu::memory_model::ideal);
    CHECK_THROWS_AS(apply_override(g, "memory.model=perfect"), config_error);
    // 60 SMs and 12 slices fit a FIFO crossbar (up to 4096 nodes), not one of virtual output
    // queues (up to 64); a mesh too small for the nodes, and two slices on one mesh node, are
    // refused.
    CHECK_NOTHROW(gpu::memory_system(gpu::gtx480_memory(), 60, 700));
    auto voq = gpu::gtx480_memory();
    voq.noc.crossbar.voq = true;
    CHECK_THROWS_WITH_AS(gpu::memory_system(voq, 60, 700),
                         doctest::Contains("'noc.crossbar.nodes' = 72"), config_error);
    CHECK_THROWS_WITH_AS(gpu::memory_system(gpu::amoeba_memory(), 49, 700),
                         doctest::Contains("'noc.mesh'"), config_error);
    auto twice = gpu::amoeba_memory();
    twice.noc.slice_nodes[1] = twice.noc.slice_nodes[0];
    CHECK_THROWS_WITH_AS(gpu::memory_system(twice, 48, 700), doctest::Contains("'noc.slice_nodes'"),
                         config_error);
}

TEST_CASE("addresses spread over channels and slices; each slice numbers its lines densely") {
    for (const auto& mp : {gpu::gtx480_memory(), gpu::amoeba_memory()}) {
        const gpu::memory_system m(mp, 8, 700);
        const std::uint32_t per = mp.partition.slices;
        const std::uint32_t channels = mp.partition.partitions();
        std::vector<std::uint64_t> next(m.slices(), 0);
        rng r(7);
        for (std::uint64_t line = 0; line < 4096; ++line) {
            const std::uint64_t a = line * 128;
            const std::uint32_t s = m.slice_of(a);
            REQUIRE(s < m.slices());
            // 256-byte chunks go round the channels; within a channel the slices alternate.
            CHECK(s / per == (a / 256) % channels);
            // Consecutive lines of a slice are consecutive lines for its cache (every set used).
            CHECK(m.slice_address(a) == next[s] * 128);
            ++next[s];
            const std::uint64_t b = a + r.below(128);
            CHECK(m.slice_of(b) == s);
            CHECK(m.global_address(s, m.slice_address(b)) == b);
        }
    }
}

TEST_CASE("isolated accesses: L1 hit, L2 hit and DRAM latencies derived from the params") {
    // One warp, every domain at the core clock, an ideal network of latency N. Pieces:
    //  agen      1   the LD/ST unit's address generation, then the L1 tag lookup;
    //  network   N   each way (a request sent after the SM's tick of cycle t is delivered
    //                to its slice in t + N);
    //  L2        R   l2_latency, then the tag lookup; a hit's reply waits 1 cycle in the
    //                slice's reply queue and enters the network 1 cycle after it is put
    //                there (a packet injected after the network's tick of cycle t starts in
    //                t + 1); the GPU hands it to the SM 1 cycle after the network
    //                delivers it, and the load's data is written back in that cycle;
    //  DRAM      D + commands: dram_latency, then ACT, tRCD, RD, tCL, the burst.
    const auto t = mem::dram_timing{};
    for (const auto& nrd :
         {std::array<std::uint32_t, 3>{3, 120, 100}, std::array<std::uint32_t, 3>{0, 40, 30},
          std::array<std::uint32_t, 3>{7, 1, 0}}) {
        const std::uint32_t n = nrd[0];
        const std::uint32_t r = nrd[1];
        const std::uint32_t d = nrd[2];
        CAPTURE(n);
        CAPTURE(r);
        CAPTURE(d);
        auto mp = gpu::gtx480_memory();
        mp.noc.model = gpu::network_model::ideal;
        mp.noc.ideal.latency = n;
        mp.partition.l2_latency = r;
        mp.partition.dram_latency = d;
        mp.clocks.dram_mhz = 700;
        // load A (row closed), load A again (L1 hit), store A (evicts it from the L1,
        // allocates it in the L2), load A (L2 hit), a line of A's row in the other slice
        // (row hit), then a line of the next row of A's bank (row conflict).
        memory_rig rig(mp, {{{load(1, line_a), use(2, 1), load(3, line_a), use(4, 3),
                              test::store(line_a), load(5, line_a), use(6, 5), load(7, line_c),
                              use(8, 7), load(9, line_b), use(10, 9), exit_step()}}});
        rig.run();
        const std::int64_t agen = 1;
        const std::int64_t l1 = agen + mp.l1.data_latency;
        const std::int64_t l2 = agen + n + r + 1 + 1 + n + 1;
        // A 128-byte line is two 64-byte bursts on the 64-bit channel, one column command
        // each, the second tCCDL after the first (both in the line's bank group).
        const std::int64_t bursts =
            mp.partition.l2.cache.line_bytes / mp.partition.dram.burst_bytes();
        REQUIRE(bursts == 2);
        const std::int64_t burst =
            (bursts - 1) * std::max(t.tCCDL, t.burst_cycles()) + t.burst_cycles();
        CHECK(gap(rig, 2) == l1);
        CHECK(gap(rig, 5) == l2);
        CHECK(gap(rig, 0) == l2 + d + t.tRCD + t.tCL + burst);
        CHECK(gap(rig, 7) == l2 + d + t.tCL + burst);
        CHECK(gap(rig, 9) == l2 + d + t.tRP + t.tRCD + t.tCL + burst);
        const auto ch = rig.memory().stats().channels[0];
        CHECK(ch.row_misses == 1);
        CHECK(ch.row_hits == 1);
        CHECK(ch.row_conflicts == 1);
        CHECK(ch.activates == 2);
        CHECK(ch.precharges == 1);
    }
}

TEST_CASE("GTX480 defaults: L1 hit < L2 hit < DRAM row miss, each part as the params say") {
    // SM 1 brings line A into the L2 while SM 0 fetches another line from another channel;
    // then SM 0 loads A: an L1 miss that hits in the L2 with nothing else in flight.
    const auto mp = gpu::gtx480_memory();
    const std::uint64_t other = 256; // channel 1
    memory_rig rig(mp, {{{load(1, other), use(2, 1), load(3, line_a), use(4, 3), load(5, line_a),
                          use(6, 5), exit_step()}},
                        {{load(1, line_a), use(2, 1), exit_step()}}});
    rig.run();
    const std::int64_t dram_miss = gap(rig, 0);
    const std::int64_t l2_hit = gap(rig, 2);
    const std::int64_t l1_hit = gap(rig, 4);
    CHECK(l1_hit == 1 + mp.l1.data_latency);
    // The crossbar delivers a packet of F flits 1 + latency + (F - 1) cycles after its
    // injection: a request (8 header bytes) is 1 flit of 32 bytes, a line reply 5.
    const std::int64_t xbar = mp.noc.crossbar.latency;
    const std::int64_t req = 1 + xbar;
    const std::int64_t rep = 1 + xbar + (mp.noc.flits(8 + 128) - 1);
    CHECK(mp.noc.flits(8 + 128) == 5);
    CHECK(l2_hit == 1 + req + mp.partition.l2_latency + 1 + 1 + rep + 1);
    // DRAM: dram_latency + tRCD + the line's two column commands tCCDL apart + tCL + burst
    // command cycles at 924 MHz, in 700 MHz core cycles, within the rounding of two
    // clock-domain crossings.
    const auto& t = mp.partition.dram.timing;
    const double line_data = std::max(t.tCCDL, t.burst_cycles()) + t.burst_cycles();
    const double dram_ns =
        (mp.partition.dram_latency + t.tRCD + t.tCL + line_data) * 1000.0 / 924.0;
    const double dram_core = dram_ns * 700.0 / 1000.0;
    CHECK(static_cast<double>(dram_miss - l2_hit) >= dram_core - 2.0);
    CHECK(static_cast<double>(dram_miss - l2_hit) <= dram_core + 2.0);
    CHECK(l1_hit < l2_hit);
    CHECK(l2_hit < dram_miss);
}

TEST_CASE("streaming 32 KB twice through one SM: one L1 miss per line each pass, the second "
          "pass hits in the L2") {
    // 256 lines (twice the 16 KB L1); with LRU the second pass finds none of them in the L1
    // but all of them in the 768 KB L2.
    std::vector<step> w;
    const std::uint64_t base = 0x100000;
    for (int pass = 0; pass < 2; ++pass)
        for (std::uint64_t i = 0; i < 256; ++i) {
            w.push_back(load(1, base + 128 * i));
            w.push_back(use(2, 1));
        }
    w.push_back(exit_step());
    memory_rig rig(gpu::gtx480_memory(), {{w}});
    rig.run();
    const auto l1 = rig.sm(0).memory_stats().l1d;
    CHECK(l1.cache.read_misses == 512);
    CHECK(l1.cache.read_hits == 0);
    CHECK(l1.mshr.allocations == 512);
    CHECK(l1.mshr.fills == 512);
    CHECK(l1.mshr.released == 512);
    const auto m = rig.memory().stats();
    std::uint64_t l2_hits = 0;
    std::uint64_t l2_misses = 0;
    std::uint64_t dram_reads = 0;
    for (const auto& s : m.slices) {
        l2_hits += s.cache.cache.read_hits;
        l2_misses += s.cache.cache.read_misses;
    }
    for (const auto& c : m.channels)
        dram_reads += c.read_requests;
    CHECK(l2_misses == 256);
    CHECK(l2_hits == 256);
    CHECK(dram_reads == 256);
}

TEST_CASE("MSHRs merge loads of a line in flight; the constant cache serves repeats") {
    // Four warps load the same line at once: one fetch, three merges, four data returns.
    std::vector<std::vector<step>> warps(4, {load(1, line_a), use(2, 1), exit_step()});
    memory_rig rig(gpu::gtx480_memory(), {warps});
    rig.run();
    const auto l1 = rig.sm(0).memory_stats().l1d;
    CHECK(l1.mshr.allocations == 1);
    CHECK(l1.mshr.merges == 3);
    CHECK(l1.mshr.released == 4);
    CHECK(rig.sm(0).memory_stats().reads_sent == 1);

    std::vector<step> c;
    for (int i = 0; i < 10; ++i) {
        c.push_back(test::load_const(1, 64));
        c.push_back(use(2, 1));
    }
    c.push_back(exit_step());
    memory_rig rc(gpu::gtx480_memory(), {{c}});
    rc.run();
    const auto ms = rc.sm(0).memory_stats();
    CHECK(ms.constant.cache.read_misses == 1);
    CHECK(ms.constant.cache.read_hits == 9);
    CHECK(ms.const_reads_sent == 1);
    CHECK(ms.l1d.cache.read_misses == 0);
    // Constant lines live apart from global lines in the L2.
    const auto& mem = rc.memory();
    CHECK(mem.stats().slices[mem.slice_of(gpu::constant_space_base + 64)].reads == 1);
}

TEST_CASE("stores write-evict the L1 and are acknowledged; atomics bypass the L1") {
    memory_rig rig(gpu::gtx480_memory(),
                   {{{load(1, line_a), use(2, 1), test::store(line_a), load(3, line_a), use(4, 3),
                      test::atomic(5, line_a), use(6, 5), exit_step()}}});
    rig.run();
    const auto ms = rig.sm(0).memory_stats();
    CHECK(ms.l1d.cache.write_hits == 1);
    CHECK(ms.l1d.cache.read_misses == 2); // the store evicted the line
    CHECK(ms.writes_sent == 1);
    CHECK(ms.atomics_sent == 1);
    CHECK(ms.replies_received == ms.reads_sent + ms.writes_sent + ms.atomics_sent);
    const auto s = rig.memory().stats().slices[rig.memory().slice_of(line_a)];
    CHECK(s.writes == 1);
    CHECK(s.atomics == 1);
    CHECK(s.cache.cache.read_misses == 1); // only the first load went to DRAM
    CHECK(s.cache.cache.read_hits == 2);   // the reload and the atomic's read
}

namespace {

// Every thread reads one word per iteration from its block's slice of a vector: K words in
// a pass (K a power of two), `passes` passes over the same data.
std::string stream_kernel(std::uint32_t blocks, std::uint32_t k, std::uint32_t passes) {
    return ".kernel stream\n.grid " + std::to_string(blocks) + "\n.block 256\n.param 0x100000 " +
           std::to_string(k) + " " + std::to_string(k * passes) +
           "\n"
           "    LDS r1, %tid.x\n"
           "    LDS r2, %ctaid.x\n"
           "    LDS r3, %ntid.x\n"
           "    LDS r4, %param0\n"
           "    LDS r5, %param1\n"
           "    LDS r15, %param2\n"
           "    MVI r6, 0\n"
           "    MVI r7, 2\n"
           "    MVI r8, 1\n"
           "    MVI r9, 0\n"
           "    SUB r16, r5, r8\n"
           "    MAD r10, r2, r5, r6\n"
           "loop:\n"
           "    AND r17, r6, r16\n"
           "    ADD r11, r10, r17\n"
           "    MAD r12, r11, r3, r1\n"
           "    SHL r12, r12, r7\n"
           "    ADD r12, r12, r4\n"
           "    LDG r13, r12\n"
           "    ADD r9, r9, r13\n"
           "    ADD r6, r6, r8\n"
           "    SLT r14, r6, r15\n"
           "    BNE r14, loop\n"
           "    EXIT\n";
}

struct totals {
    std::uint64_t l1_read_misses = 0;
    std::uint64_t l1_read_hits = 0;
    std::uint64_t l2_read_hits = 0;
    std::uint64_t l2_read_misses = 0;
    std::uint64_t dram_reads = 0;
};
totals add_up(const gpu::memory_stats& m) {
    totals t;
    for (const auto& s : m.sms) {
        t.l1_read_misses += s.l1d.cache.read_misses;
        t.l1_read_hits += s.l1d.cache.read_hits;
    }
    for (const auto& s : m.slices) {
        t.l2_read_hits += s.cache.cache.read_hits;
        t.l2_read_misses += s.cache.cache.read_misses;
    }
    for (const auto& c : m.channels)
        t.dram_reads += c.read_requests;
    return t;
}

// Nothing lost, nothing made up, nothing left behind.
void check_conservation(const gpu::memory_stats& m) {
    std::uint64_t sent = 0;
    std::uint64_t replies = 0;
    for (const auto& s : m.sms) {
        sent += s.reads_sent + s.const_reads_sent + s.writes_sent + s.atomics_sent;
        replies += s.replies_received;
        for (const auto* c : {&s.l1d, &s.constant}) {
            CHECK(c->mshr.fills == c->mshr.allocations);
            CHECK(c->mshr.released == c->mshr.allocations + c->mshr.merges);
        }
        CHECK(s.reads_sent == s.l1d.mshr.allocations);
        CHECK(s.prt.entries_written == s.prt.warps_satisfied);
        CHECK(s.prt.requests_sent == s.prt.replies);
    }
    CHECK(sent == replies);
    CHECK(m.noc.request.packets_injected == sent);
    CHECK(m.noc.request.packets_ejected == sent);
    CHECK(m.noc.reply.packets_injected == replies);
    CHECK(m.noc.reply.packets_ejected == replies);
    CHECK(m.noc.request.flits_injected == m.noc.request.flits_ejected);
    CHECK(m.noc.reply.flits_injected == m.noc.reply.flits_ejected);
    std::uint64_t at_slices = 0;
    std::uint64_t from_slices = 0;
    std::uint64_t to_dram_reads = 0;
    std::uint64_t to_dram_writes = 0;
    for (const auto& s : m.slices) {
        at_slices += s.requests;
        from_slices += s.replies;
        CHECK(s.requests == s.reads + s.writes + s.atomics);
        CHECK(s.cache.mshr.fills == s.cache.mshr.allocations);
        CHECK(s.cache.mshr.released == s.cache.mshr.allocations + s.cache.mshr.merges);
        CHECK(s.dram_reads == s.cache.mshr.allocations);
        to_dram_reads += s.dram_reads;
        to_dram_writes += s.dram_writes;
    }
    CHECK(at_slices == sent);
    CHECK(from_slices == replies);
    std::uint64_t dram_reads = 0;
    std::uint64_t dram_writes = 0;
    for (const auto& c : m.channels) {
        dram_reads += c.read_requests;
        dram_writes += c.write_requests;
    }
    CHECK(dram_reads == to_dram_reads);
    CHECK(dram_writes == to_dram_writes);
}

// The counters of a rig's memory side with its SMs' own.
gpu::memory_stats rig_stats(const memory_rig& r) {
    auto m = r.memory().stats();
    for (std::size_t i = 0; i < r.sms(); ++i)
        m.sms.push_back(r.sm(i).memory_stats());
    return m;
}

template <class P>
gpu::run_stats run_kernel(const func::isa_kernel& k, gpu::gpu_params p, func::global_memory& mem) {
    gpu::gpu<P> g(p);
    return g.run(k, mem);
}

// The bundled kernels leave device memory as on the GTX480 when run with the 32-thread params
// `p`, after as many warp instructions, with nothing lost in the memory (gpu<fermi_gtx480>
// runs `p`: the 32-thread presets share their parts).
void check_same_as_gtx480(const gpu::gpu_params& p) {
    for (const char* name : {"vadd.s", "matmul.s", "histogram.s", "bfs.s", "reduce.s"}) {
        CAPTURE(name);
        func::isa_kernel k(test::bundled_kernel(name));
        func::global_memory m1;
        func::load_data(k, m1);
        const auto a = run_kernel<gpu::fermi_gtx480>(k, gpu::fermi_gtx480::params(), m1);
        func::global_memory m2;
        func::load_data(k, m2);
        const auto b = run_kernel<gpu::fermi_gtx480>(k, p, m2);
        CHECK(m1 == m2);
        CHECK(a.total.warp_instructions == b.total.warp_instructions);
        CHECK(b.memory.sms.size() == p.sms);
        check_conservation(b.memory);
    }
}

} // namespace

TEST_CASE("sectored L1 and L2: scattered words fetch and move 32-byte sectors, not lines") {
    // 32 lanes, each a word of a line of its own (stride 128): 32 transactions, 32 L1 misses,
    // 32 L2 misses and 32 DRAM reads either way. Whole lines move 128 bytes each: two 64-byte
    // bursts of the 64-bit GDDR5 channel and a 5-flit reply (8 + 128 bytes over 32-byte
    // flits); sectors move 32 bytes: one burst and a 2-flit reply.
    const std::vector<step> w{{load(1, 0).si, 0x10000, 128}, use(2, 1), exit_step()};
    const auto lines = gpu::gtx480_memory();
    auto sectors = lines;
    sectors.l1.data.cache.sector_bytes = 32;
    sectors.partition.l2.cache.sector_bytes = 32;
    memory_rig a(lines, {{w}});
    a.run();
    memory_rig b(sectors, {{w}}, 700, test::rig_sm_params(mem::coalescer_kind::sector));
    b.run();
    const std::uint64_t burst = lines.partition.dram.timing.burst_cycles();
    for (const auto& [rig, bursts, flits] :
         {std::tuple{&a, std::uint64_t{2}, std::uint64_t{5}}, std::tuple{&b, std::uint64_t{1}, std::uint64_t{2}}}) {
        const auto m = rig_stats(*rig);
        check_conservation(m);
        const auto t = add_up(m);
        CHECK(t.l1_read_misses == 32);
        CHECK(t.l2_read_misses == 32);
        CHECK(t.dram_reads == 32);
        std::uint64_t data = 0;
        for (const auto& c : m.channels)
            data += c.data_cycles;
        CHECK(data == 32 * bursts * burst);
        CHECK(m.noc.reply.flits_injected == 32 * flits);
    }
}

TEST_CASE("a sectored L1 misses each sector of a line alone and reads as many sectors a cycle as "
          "l1.transactions_per_cycle says") {
    // One contiguous 128-byte load: four sector transactions. The first is the line's miss,
    // the other three sector misses; each fetches its own 32 bytes. The second load of the
    // line hits four times: its last sector's data is back agen + (4 / per cycle - 1) +
    // data_latency cycles after issue.
    for (const std::uint32_t per : {1u, 2u, 4u}) {
        CAPTURE(per);
        auto mp = gpu::gtx480_memory();
        mp.l1.data.cache.sector_bytes = 32;
        mp.partition.l2.cache.sector_bytes = 32;
        mp.l1.transactions_per_cycle = per;
        memory_rig r(mp, {{{load(1, line_a), use(2, 1), load(3, line_a), use(4, 3), exit_step()}}},
                     700, test::rig_sm_params(mem::coalescer_kind::sector));
        r.run();
        const auto ms = r.sm(0).memory_stats();
        CHECK(ms.l1d.cache.read_misses == 4);
        CHECK(ms.l1d.cache.sector_misses == 3);
        CHECK(ms.l1d.cache.read_hits == 4);
        CHECK(ms.reads_sent == 4);
        CHECK(gap(r, 2) == 1 + (4 / per - 1) + mp.l1.data_latency);
        const auto m = rig_stats(r);
        check_conservation(m);
        CHECK(add_up(m).dram_reads == 4);
    }
}

TEST_CASE("a sectored L2 looks a whole-line fill up sector by sector and answers it once") {
    // SM 0's constant cache (whole 128-byte lines) fetches a line from a sectored L2: one
    // request, four sector lookups and misses, four 32-byte DRAM reads, one 128-byte reply.
    // SM 1 asks for the same line after a global load of its own (a line of another
    // channel, four sectors too): four sector hits, one reply, no DRAM read.
    auto mp = gpu::gtx480_memory();
    mp.partition.l2.cache.sector_bytes = 32;
    const std::uint64_t word = 64;
    const std::uint64_t other = 256; // channel 1
    memory_rig r(mp, {{{test::load_const(1, word), use(2, 1), exit_step()}},
                      {{load(1, other), use(2, 1), test::load_const(3, word), use(4, 3),
                        exit_step()}}});
    r.run();
    const auto m = rig_stats(r);
    check_conservation(m);
    const std::uint32_t slice = r.memory().slice_of(gpu::constant_space_base + word);
    const auto& sl = m.slices[slice];
    CHECK(sl.reads == 2);
    CHECK(sl.cache.cache.read_misses == 4);
    CHECK(sl.cache.cache.sector_misses == 3);
    CHECK(sl.cache.cache.read_hits == 4);
    CHECK(sl.dram_reads == 4);
    CHECK(m.channels[slice / mp.partition.slices].read_requests == 4);
    CHECK(m.sms[0].const_reads_sent == 1);
    CHECK(m.sms[1].const_reads_sent == 1);
    CHECK(m.sms[0].replies_received == 1);
    CHECK(m.sms[1].replies_received == 2);
    CHECK(add_up(m).dram_reads == 8);
}

TEST_CASE_TEMPLATE("every request gets one reply and every MSHR entry is freed, on every preset", P,
                   gpu::fermi_gtx480, gpu::tesla_seed004, gpu::amoeba_48) {
    for (const char* name :
         {"vadd.s", "reduce.s", "histogram.s", "matmul.s", "scan.s", "sfu.s", "bfs.s"}) {
        CAPTURE(name);
        func::isa_kernel k(test::bundled_kernel(name));
        func::global_memory mem;
        func::load_data(k, mem);
        const auto rs = run_kernel<P>(k, P::params(), mem);
        if (P::params().memory.model == gpu::memory_model::ideal) {
            CHECK(rs.memory.sms.empty());
            CHECK(rs.memory.slices.empty());
            continue;
        }
        CHECK(rs.memory.sms.size() == P::params().sms);
        CHECK(rs.memory.slices.size() == P::params().memory.slices());
        CHECK(rs.memory.channels.size() == P::params().memory.partition.partitions());
        check_conservation(rs.memory);
        // Every coalesced transaction met its cache once (or went out as an atomic).
        for (const auto& s : rs.memory.sms) {
            const auto& d = s.l1d.cache;
            const auto& c = s.constant.cache;
            CHECK(s.prt.requests_generated == d.read_hits + d.read_misses + d.read_hits_reserved +
                                                  d.write_hits + d.write_misses + c.read_hits +
                                                  c.read_misses + c.read_hits_reserved +
                                                  s.atomics_sent);
        }
    }
}

TEST_CASE("fermi_gtx480 with sectored L1 and L2 computes what the whole-line one computes, "
          "nothing lost") {
    // The sector coalescer, 32-byte sectors in the L1 and the L2, four sectors a cycle.
    auto sect = gpu::fermi_gtx480::params();
    for (const char* o : {"sm.coalescer=sector", "memory.l1.data.cache.sector_bytes=32",
                          "memory.partition.l2.cache.sector_bytes=32",
                          "memory.l1.transactions_per_cycle=4"})
        apply_override(sect, o);
    check_same_as_gtx480(sect);
    // A sectored L1 behind the line coalescer is refused before anything runs.
    auto bad = gpu::fermi_gtx480::params();
    apply_override(bad, "memory.l1.data.cache.sector_bytes=32");
    func::isa_kernel k(test::bundled_kernel("vadd.s"));
    func::global_memory mem;
    CHECK_THROWS_WITH_AS(run_kernel<gpu::fermi_gtx480>(k, bad, mem),
                         doctest::Contains("'sm.coalescer' = line"), config_error);
}

TEST_CASE("volta_qv100, turing_rtx2060, ampere_rtx3070: their configurations' figures; kernels "
          "compute what the GTX480 computes through sectored caches, nothing lost") {
    struct figures {
        gpu::gpu_params p;
        std::uint32_t slices;
        std::uint64_t l2_bytes;
        std::uint64_t l1_bytes;
        std::uint64_t dram_mb_per_s; // channels x bytes per burst / burst cycles x MHz
        std::uint32_t nodes;
    };
    // V100: 6 MB of L2, 870 GB/s of HBM2; RTX 2060: 3 MB, 336 GB/s of GDDR6; RTX 3070: 4 MB,
    // 448 GB/s. The L1 figure is the whole L1 / shared array (128, 96 and 128 KB).
    for (const auto& f :
         {figures{gpu::volta_qv100::params(), 64, 6u << 20, 128u << 10, 32 * 32 * 850, 144},
          figures{gpu::turing_rtx2060::params(), 24, 3u << 20, 96u << 10, 12 * 32 / 4 * 3500, 54},
          figures{gpu::ampere_rtx3070::params(), 32, 4u << 20, 128u << 10, 16 * 32 / 4 * 3500,
                  78}}) {
        const auto& v = f.p;
        CAPTURE(v.name);
        CHECK_NOTHROW(validate(v));
        const auto& m = v.memory;
        CHECK(m.slices() == f.slices);
        CHECK(std::uint64_t{m.slices()} * m.partition.l2.cache.capacity_bytes() == f.l2_bytes);
        CHECK(m.l1.data.cache.capacity_bytes() == f.l1_bytes);
        CHECK(std::uint64_t{m.partition.partitions()} * m.partition.dram.burst_bytes() /
                  m.partition.dram.timing.burst_cycles() * m.clocks.dram_mhz ==
              f.dram_mb_per_s);
        CHECK(v.sm.units.sub_cores == 4);
        const gpu::memory_system ms(m, v.sms, v.core_mhz);
        CHECK(std::get<noc::crossbar<gpu::mem_message>>(ms.network()).nodes() == f.nodes);
        check_same_as_gtx480(v);
        // A stream of whole lines: each line is four sector misses in the L1 (one of the
        // line, three of its other sectors) and in the L2, and four 32-byte DRAM reads.
        func::isa_kernel k(isa::assemble(stream_kernel(v.sms, 32, 1), "stream.s"));
        func::global_memory mem;
        const auto rs = run_kernel<gpu::fermi_gtx480>(k, v, mem);
        const auto t = add_up(rs.memory);
        const std::uint64_t lines = std::uint64_t{v.sms} * 256;
        CHECK(t.l1_read_misses == 4 * lines);
        CHECK(t.l2_read_misses == 4 * lines);
        CHECK(t.dram_reads == 4 * lines);
        std::uint64_t sector_misses = 0;
        for (const auto& s : rs.memory.sms)
            sector_misses += s.l1d.cache.sector_misses;
        CHECK(sector_misses == 3 * lines);
        check_conservation(rs.memory);
    }
}

TEST_CASE("a unified L1 / shared array splits per kernel: shared memory for the blocks an SM "
          "holds, the L1 data cache the rest") {
    // Volta's 128 KB array (16 sets x 64 ways of 128 bytes), shared 0, 8, 16, 32, 64 or 96 KB.
    const auto v = gpu::qv100_memory().l1;
    const auto split = [](const gpu::l1_params& l1, std::uint64_t need) {
        const auto s = gpu::unified_split_for(l1, need);
        return std::tuple{s.shared_bytes, s.l1_ways, s.l1_bytes};
    };
    CHECK(split(v, 0) == std::tuple{0u, 64u, std::uint64_t{128} << 10});
    CHECK(split(v, 8192) == std::tuple{8192u, 60u, std::uint64_t{120} << 10});
    CHECK(split(v, 8193) == std::tuple{16384u, 56u, std::uint64_t{112} << 10});
    CHECK(split(v, 96 << 10) == std::tuple{98304u, 16u, std::uint64_t{32} << 10});
    CHECK(split(v, 1 << 20) == std::tuple{98304u, 16u, std::uint64_t{32} << 10}); // the most
    // Turing's 96 KB array (16 sets x 48 ways), shared 32 or 64 KB: never less than 32 KB.
    const auto t = gpu::rtx2060_memory().l1;
    CHECK(split(t, 0) == std::tuple{32768u, 32u, std::uint64_t{64} << 10});
    CHECK(split(t, 40000) == std::tuple{65536u, 16u, std::uint64_t{32} << 10});
    // GA10x's 128 KB with 100 KB shared: 28 KB of L1 (14 of 64 ways).
    CHECK(split(gpu::rtx3070_memory().l1, 70000) ==
          std::tuple{102400u, 14u, std::uint64_t{28} << 10});

    // Launches on one Volta SM of blocks of one warp (one register per thread: only the 32
    // block slots and shared memory limit them). S bytes per block: 32 blocks need 32 x S
    // (8 KB at 256, 32 KB at 1 KB, 96 KB at 3 KB); at 4 KB only 24 blocks fit the 96 KB.
    auto p = gpu::volta_qv100::params();
    p.sms = 1;
    struct launch_case {
        std::uint32_t shared;
        std::uint32_t carveout;
        std::uint64_t l1_kb;
    };
    for (const auto& c :
         {launch_case{0, 0, 128}, launch_case{256, 8192, 120}, launch_case{1024, 32768, 96},
          launch_case{3072, 98304, 32}, launch_case{4096, 98304, 32}}) {
        CAPTURE(c.shared);
        const std::string text =
            ".kernel k\n.grid 48\n.block 32\n" +
            (c.shared > 0 ? ".shared " + std::to_string(c.shared) + "\n" : std::string{}) +
            "    EXIT\n";
        func::isa_kernel k(isa::assemble(text, "k.s"));
        func::global_memory mem;
        const auto rs = run_kernel<gpu::fermi_gtx480>(k, p, mem);
        CHECK(rs.l1_split.shared_bytes == c.carveout);
        CHECK(rs.l1_split.l1_bytes == c.l1_kb << 10);
        CHECK(rs.total.blocks_completed == 48);
    }
    // The GTX480 keeps its fixed 16 KB L1 and 48 KB of shared memory: no split.
    func::isa_kernel k(isa::assemble(".kernel k\n.grid 1\n.block 32\n    EXIT\n", "k.s"));
    func::global_memory mem;
    const auto fermi = run_kernel<gpu::fermi_gtx480>(k, gpu::fermi_gtx480::params(), mem);
    CHECK(fermi.l1_split.l1_bytes == 0);

    // Bad splits name the field.
    const auto bad = [](const char* set, const char* field) {
        auto q = gpu::volta_qv100::params();
        CAPTURE(set);
        apply_override(q, set);
        CHECK_THROWS_WITH_AS(validate(q), doctest::Contains(field), config_error);
    };
    bad("memory.l1.shared_options_kb=32,16", "'memory.l1.shared_options_kb' = 32,16");
    bad("memory.l1.shared_options_kb=0,128", "below unified_bytes (128 KB)");
    bad("memory.l1.shared_options_kb=8,x", "sizes in KB");
    bad("memory.l1.shared_options_kb=", "at least one shared-memory capacity");
    bad("memory.l1.unified_bytes=65536", "'memory.l1.unified_bytes' = 65536");
    auto f = gpu::fermi_gtx480::params();
    apply_override(f, "memory.l1.shared_options_kb=16,48");
    CHECK_THROWS_WITH_AS(validate(f), doctest::Contains("without a unified array"), config_error);
}

TEST_CASE_TEMPLATE("a stream larger than the L1 misses once per line per SM; a second pass over "
                   "data that fits in the L2 hits there",
                   P, gpu::fermi_gtx480, gpu::amoeba_48) {
    const auto p = P::params();
    // One block per SM, 8 warps x 32 loads of 128 bytes: 32 KB per SM, twice the L1.
    func::isa_kernel k(isa::assemble(stream_kernel(p.sms, 32, 1), "stream.s"));
    func::global_memory mem;
    auto rs = run_kernel<P>(k, p, mem);
    const std::uint64_t lines = std::uint64_t{p.sms} * 256;
    for (std::size_t i = 0; i < p.sms; ++i) {
        CAPTURE(i);
        CHECK(rs.memory.sms[i].l1d.cache.read_misses == 256 * rs.per_sm[i].blocks_completed);
    }
    auto t = add_up(rs.memory);
    CHECK(t.l1_read_misses == lines);
    CHECK(t.l1_read_hits == 0);
    CHECK(t.l2_read_misses == lines);
    CHECK(t.dram_reads == lines);
    check_conservation(rs.memory);

    // Two passes: 480 KB (fermi) / 1.5 MB (amoeba) of data; the second pass misses the L1
    // again, and hits in the L2 where the data fits (fermi: 768 KB of L2).
    func::isa_kernel k2(isa::assemble(stream_kernel(p.sms, 32, 2), "stream2.s"));
    rs = run_kernel<P>(k2, p, mem);
    t = add_up(rs.memory);
    CHECK(t.l1_read_misses == 2 * lines);
    CHECK(t.l2_read_misses + t.l2_read_hits == 2 * lines);
    if (std::uint64_t{p.memory.slices()} * p.memory.partition.l2.cache.capacity_bytes() >=
        lines * 128)
        CHECK(t.l2_read_hits == lines);
    check_conservation(rs.memory);
}

TEST_CASE("the ideal memory model keeps the fixed latencies; both models compute the same "
          "results") {
    auto ideal = gpu::fermi_gtx480::params();
    ideal.memory.model = gpu::memory_model::ideal;
    for (const char* name : {"vadd.s", "matmul.s", "histogram.s"}) {
        CAPTURE(name);
        func::isa_kernel k(test::bundled_kernel(name));
        func::global_memory m1;
        func::load_data(k, m1);
        const auto a = run_kernel<gpu::fermi_gtx480>(k, ideal, m1);
        func::global_memory m2;
        func::load_data(k, m2);
        const auto b = run_kernel<gpu::fermi_gtx480>(k, gpu::fermi_gtx480::params(), m2);
        CHECK(m1 == m2);
        CHECK(a.total.warp_instructions == b.total.warp_instructions);
        CHECK(a.memory.sms.empty());
        CHECK(!b.memory.sms.empty());
    }
    // One warp, one load and its use: the fixed global latency plus address generation.
    const auto p = isa::assemble(".block 32\nMVI r1, 256\nLDG r2, r1\nADD r3, r2, r2\nEXIT\n");
    func::isa_kernel k(p);
    func::global_memory mem;
    const auto rs = run_kernel<gpu::fermi_gtx480>(k, ideal, mem);
    const auto hier = run_kernel<gpu::fermi_gtx480>(k, gpu::fermi_gtx480::params(), mem);
    CHECK(rs.total.stalls.scoreboard >= ideal.sm.global_latency);
    CHECK(hier.cycles < rs.cycles); // an isolated miss of the GTX480 hierarchy is quicker
}

TEST_CASE_TEMPLATE("same kernel, same preset: identical memory statistics", P, gpu::fermi_gtx480,
                   gpu::amoeba_48) {
    func::isa_kernel k(isa::assemble(stream_kernel(P::params().sms, 8, 2), "stream.s"));
    std::string first;
    for (int i = 0; i < 2; ++i) {
        func::global_memory mem;
        const std::string j = stats_to_json(run_kernel<P>(k, P::params(), mem)).dump();
        CHECK(j.find("\"l1d\"") != std::string::npos);
        CHECK(j.find("\"row_hits\"") != std::string::npos);
        if (i == 0)
            first = j;
        else
            CHECK(j == first);
    }
}

TEST_CASE("law: reset_stats of the SMs and the memory system restarts every counter, requests "
          "in flight stay") {
    static_assert(observable_component<memory_rig::sm_type>);
    static_assert(observable_component<gpu::memory_system>);
    // Two SMs of four warps each: loads over a region larger than the L1, their uses, and
    // stores, so that the reset falls amid misses, fills, writes and DRAM traffic.
    std::vector<std::vector<std::vector<step>>> prog(2);
    for (std::uint64_t sm = 0; sm < 2; ++sm)
        for (std::uint64_t w = 0; w < 4; ++w) {
            std::vector<step> code;
            for (std::uint64_t i = 0; i < 150; ++i) {
                const std::uint64_t line = (sm * 7919 + w * 131 + i * 37) % 600;
                code.push_back(load(1, 0x200000 + 128 * line));
                code.push_back(use(2, 1));
                if (i % 5 == 0) code.push_back(test::store(0x400000 + 128 * (line % 50)));
            }
            code.push_back(exit_step());
            prog[sm].push_back(code);
        }
    const auto mp = gpu::gtx480_memory();
    const auto make = [&] { return memory_rig(mp, prog); };
    const auto step_rig = [](memory_rig& r, std::size_t) { (void)r.step(); };
    const auto reset = [](memory_rig& r) { r.reset_stats(); };
    const std::size_t warm = 3000;
    const std::size_t more = 4000;
    memory_rig whole = make();
    const std::uint64_t cycles = whole.run();
    CHECK(cycles > warm + more); // the reset falls in mid-run and the rig is busy after it
    for (std::size_t sm = 0; sm < 2; ++sm) {
        CAPTURE(sm);
        reset_law::check(
            make, step_rig, [sm](const memory_rig& r) { return r.sm(sm).stats(); }, reset, warm,
            more);
        reset_law::check(
            make, step_rig, [sm](const memory_rig& r) { return r.sm(sm).memory_stats(); }, reset,
            warm, more);
    }
    reset_law::check(
        make, step_rig, [](const memory_rig& r) { return r.memory().stats(); }, reset, warm, more);
}
