// The BookSim-style measurement: exact figures on the ideal network, zero-load figures on a
// mesh, stable below saturation and unstable above; traffic patterns.

#include <warpkit/core/error.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>
#include <warpkit/noc/sweep.hpp>
#include <warpkit/noc/traffic.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <set>

using namespace warpkit::noc;

TEST_CASE("traffic patterns") {
    warpkit::rng r(1);
    traffic_params tp;
    tp.k = 4;
    tp.pattern = traffic_pattern::transpose;
    traffic t(tp);
    CHECK(t.destination(1, r) == 4); // (1,0) -> (0,1)
    CHECK(t.destination(6, r) == 9); // (2,1) -> (1,2)
    CHECK(t.destination(5, r) == 5); // diagonal sends to itself
    CHECK(t.destination(15, r) == 15);
    tp.pattern = traffic_pattern::bit_complement;
    CHECK(traffic(tp).destination(1, r) == 14);
    tp.pattern = traffic_pattern::hotspot;
    tp.hotspots = {3, 12};
    traffic h(tp);
    std::set<node_id> seen;
    for (int i = 0; i < 200; ++i)
        seen.insert(h.destination(0, r));
    CHECK(seen == std::set<node_id>{3, 12});
    // Uniform draws every node, the source included.
    tp.pattern = traffic_pattern::uniform;
    traffic u(tp);
    seen.clear();
    for (int i = 0; i < 2000; ++i)
        seen.insert(u.destination(7, r));
    CHECK(seen.size() == 16);
    tp.n = 1;
    tp.pattern = traffic_pattern::transpose;
    CHECK_THROWS_AS(traffic{tp}, warpkit::config_error);
}

TEST_CASE("sweep on the ideal network: latency exact, everything accepted") {
    ideal_params ip;
    ip.nodes = 16;
    ip.latency = 3;
    ideal_network<> net(ip);
    traffic_params tp;
    tp.k = 4;
    warpkit::rng r(5);
    const auto res = run_rate(net, traffic(tp), 0.3, sweep_params{}, r);
    CHECK(res.status == run_status::ok);
    CHECK(res.avg_packet_latency == 3.0);
    CHECK(res.avg_network_latency == 3.0);
    CHECK(res.accepted_rate == doctest::Approx(0.3).epsilon(0.05));
    CHECK(res.packets > 10000);
}

TEST_CASE("sweep's cycle observer hears of every cycle and changes nothing") {
    ideal_params ip;
    ip.nodes = 16;
    ip.latency = 3;
    traffic_params tp;
    tp.k = 4;
    ideal_network<> plain_net(ip);
    warpkit::rng plain_rng(5);
    const auto plain = run_rate(plain_net, traffic(tp), 0.3, sweep_params{}, plain_rng);
    ideal_network<> net(ip);
    warpkit::rng r(5);
    std::uint64_t calls = 0;
    std::uint64_t last = 0;
    const auto res = run_rate(net, traffic(tp), 0.3, sweep_params{}, r, [&](std::uint64_t cycles) {
        ++calls;
        last = cycles;
    });
    CHECK(calls == res.cycles);
    CHECK(last == res.cycles);
    CHECK(res.cycles == plain.cycles);
    CHECK(res.packets == plain.packets);
    CHECK(res.avg_packet_latency == plain.avg_packet_latency);
    CHECK(res.accepted_rate == plain.accepted_rate);
}

TEST_CASE("sweep on a zero-latency ideal network converges (latency 0 every period)") {
    ideal_params ip;
    ip.nodes = 16;
    ideal_network<> net(ip);
    traffic_params tp;
    tp.k = 4;
    tp.pattern = traffic_pattern::transpose;
    warpkit::rng r(6);
    const auto res = run_rate(net, traffic(tp), 0.3, sweep_params{}, r);
    CHECK(res.status == run_status::ok);
    CHECK(res.avg_packet_latency == 0.0);
    CHECK(res.hops_avg == 0.0);
}

TEST_CASE("sweep on a 4x4 mesh: zero-load figures at low load, unstable past saturation") {
    traffic_params tp;
    tp.k = 4;
    tp.pattern = traffic_pattern::transpose;
    sweep_params sp;
    {
        mesh<> m(booksim_mesh(4));
        warpkit::rng r(8);
        const auto res = run_rate(m, traffic(tp), 0.02, sp, r);
        CHECK(res.status == run_status::ok);
        // Transpose on 4x4: links 2|x - y| average 2.5 over the 16 nodes (diagonal 0), so
        // 3.5 routers and 7 + 5 x 2.5 = 19.5 cycles with no contention.
        CHECK(res.hops_avg == doctest::Approx(3.5).epsilon(0.05));
        CHECK(res.avg_packet_latency == doctest::Approx(19.5).epsilon(0.05));
        CHECK(res.avg_packet_latency >= res.avg_network_latency);
        CHECK(res.accepted_rate == doctest::Approx(0.02).epsilon(0.15));
    }
    {
        mesh<> m(booksim_mesh(4));
        warpkit::rng r(8);
        tp.pattern = traffic_pattern::uniform;
        const auto res = run_rate(m, traffic(tp), 0.9, sp, r);
        CHECK(res.status == run_status::unstable);
        CHECK_FALSE(res.reason.empty());
    }
    {
        // Multi-flit packets at moderate load converge.
        mesh<> m(booksim_mesh(4));
        warpkit::rng r(8);
        sp.packet_size = 4;
        const auto res = run_rate(m, traffic(tp), 0.1, sp, r);
        CHECK(res.status == run_status::ok);
        CHECK(res.avg_packet_latency > 7 + 3); // at least the 1x1 zero-load of 4 flits
    }
}

TEST_CASE("sweep rejects bad settings") {
    ideal_network<> net;
    traffic_params tp;
    tp.k = 4;
    warpkit::rng r(1);
    CHECK_THROWS_AS((void)run_rate(net, traffic(tp), 0.1, sweep_params{}, r),
                    warpkit::config_error); // 56 nodes vs 16
    ideal_params ip;
    ip.nodes = 16;
    ideal_network<> n16(ip);
    CHECK_THROWS_AS((void)run_rate(n16, traffic(tp), 1.5, sweep_params{}, r),
                    warpkit::config_error);
    sweep_params sp;
    sp.sample_cycles = 0;
    CHECK_THROWS_AS((void)run_rate(n16, traffic(tp), 0.1, sp, r), warpkit::config_error);
}
