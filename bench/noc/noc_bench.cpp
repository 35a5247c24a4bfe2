// Network-on-chip: simulated router-cycles per second of an 8x8 mesh (BookSim's 4-stage
// router and paper 002's 2-stage router, 2 VCs x 8 flits, uniform 1-flit packets) at low
// load, near saturation and saturated; the GTX480-like crossbar; the ideal network; one
// switch allocation; cluster packet encoding and a busy cluster link.
//
// One benchmark iteration is one network cycle including the traffic source (a Bernoulli
// trial per node, packets refused by a full source queue are dropped) and ejection.

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/allocator.hpp>
#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/cluster_packet.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>

#include "../../tests/noc/uniform_traffic.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>

namespace {

using namespace warpkit::noc;

template <class Net>
void cycle(Net& net, warpkit::rng& r, double p, std::uint64_t& delivered) {
    const auto n = static_cast<node_id>(net.nodes());
    for (node_id s = 0; s < n; ++s)
        if (r.bernoulli(p) && net.can_inject(s)) noc_traffic::inject_uniform(net, r, s);
    noc_traffic::tick_and_take(net, [&](const packet<>& pk) {
        benchmark::DoNotOptimize(pk);
        ++delivered;
    });
}

template <class Net>
void run(benchmark::State& state, Net& net, std::size_t routers) {
    const double p = static_cast<double>(state.range(0)) / 100.0;
    warpkit::rng r(1);
    std::uint64_t delivered = 0;
    for (int i = 0; i < 2000; ++i) // warm up to steady state
        cycle(net, r, p, delivered);
    delivered = 0;
    for (auto _ : state)
        cycle(net, r, p, delivered);
    const auto cycles = static_cast<double>(state.iterations());
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(routers));
    state.counters["router_cycles_per_s"] =
        benchmark::Counter(cycles * static_cast<double>(routers), benchmark::Counter::kIsRate);
    state.counters["accepted"] =
        static_cast<double>(delivered) / (cycles * static_cast<double>(net.nodes()));
}

void bm_mesh8x8_booksim(benchmark::State& state) {
    mesh<> m(booksim_mesh(8, 2, 8));
    run(state, m, 64);
}
// Offered load in percent of a flit per node per cycle: low, near saturation (0.30), saturated.
BENCHMARK(bm_mesh8x8_booksim)->ArgName("load%")->Arg(5)->Arg(28)->Arg(100);

void bm_mesh8x8_two_stage(benchmark::State& state) {
    mesh<> m(two_stage_router(booksim_mesh(8, 2, 8)));
    run(state, m, 64);
}
BENCHMARK(bm_mesh8x8_two_stage)->ArgName("load%")->Arg(5)->Arg(40)->Arg(100);

void bm_mesh_amoeba_48sm(benchmark::State& state) {
    mesh<> m(amoeba_48sm()); // 8x7, two subnets (only requests offered here)
    run(state, m, 56);
}
BENCHMARK(bm_mesh_amoeba_48sm)->ArgName("load%")->Arg(5)->Arg(30);

void bm_crossbar_gtx480(benchmark::State& state) {
    crossbar<> x(gtx480_crossbar());
    run(state, x, 1);
}
BENCHMARK(bm_crossbar_gtx480)->ArgName("load%")->Arg(5)->Arg(50);

void bm_ideal(benchmark::State& state) {
    ideal_network<> x;
    run(state, x, 1);
}
BENCHMARK(bm_ideal)->ArgName("load%")->Arg(5)->Arg(50);

void bm_islip_5x5(benchmark::State& state) {
    islip a(5, 5, 1);
    warpkit::rng r(3);
    std::array<std::array<std::uint64_t, 5>, 64> reqs{};
    for (auto& q : reqs)
        for (auto& x : q)
            x = r.below(32);
    std::size_t i = 0;
    for (auto _ : state) {
        std::array<std::int32_t, 5> m = {-1, -1, -1, -1, -1};
        a.allocate(reqs[i++ & 63], m);
        benchmark::DoNotOptimize(m);
    }
}
BENCHMARK(bm_islip_5x5);

void bm_inst_packet_roundtrip(benchmark::State& state) {
    inst_packet p{5, 3, 42, 0xBEEF, {1, 2, 3, 4, 5}};
    for (auto _ : state) {
        p.imm = (p.imm + 1) & 0xFFFF;
        benchmark::DoNotOptimize(decode_inst(encode(p)));
    }
}
BENCHMARK(bm_inst_packet_roundtrip);

void bm_cluster_link(benchmark::State& state) {
    // A master-to-slave link kept busy: one InstPacket sent and one received per link cycle.
    cluster_link l(master_to_slave_link());
    std::uint64_t w = 0;
    for (auto _ : state) {
        if (l.can_send()) l.send(cluster_packet_kind::inst, w++ & 0xFFFFFF80u);
        l.tick();
        if (l.can_receive()) benchmark::DoNotOptimize(l.receive());
    }
    state.counters["pJ"] = energy_pj(l.params(), l.stats());
}
BENCHMARK(bm_cluster_link);

} // namespace
