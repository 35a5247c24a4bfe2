// The crossbar: zero-load latency by hand, head-of-line blocking of FIFO inputs (the classic
// 2 - sqrt(2) saturation throughput), iSLIP with virtual output queues, packet integrity.

#include "noc_test_util.hpp"
#include "uniform_traffic.hpp"

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/crossbar.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace warpkit::noc;

namespace {

/// Saturation throughput (flits per node per cycle) with every input always backlogged.
template <class X>
double saturation(X& x, std::uint64_t cycles) {
    warpkit::rng r(23);
    const auto n = static_cast<node_id>(x.nodes());
    std::uint64_t flits = 0;
    for (std::uint64_t c = 0; c < cycles; ++c) {
        for (node_id s = 0; s < n; ++s)
            while (x.can_inject(s))
                noc_traffic::inject_uniform(x, r, s);
        noc_traffic::tick_and_take(x, [&](const packet<>& pk) {
            if (c > cycles / 10) flits += pk.flits;
        });
    }
    return static_cast<double>(flits) /
           (static_cast<double>(cycles - cycles / 10 - 1) * static_cast<double>(n));
}

} // namespace

TEST_CASE("crossbar zero-load latency: 1 + latency + body flits") {
    crossbar<> x; // GTX480-like: latency 5
    CHECK(x.nodes() == 27);
    CHECK(noc_test::one(x, 0, 26, 1).latency() == 6);
    CHECK(noc_test::one(x, 3, 3, 1).latency() == 6);
    CHECK(noc_test::one(x, 0, 26, 4).latency() == 9);
    CHECK(noc_test::one(x, 0, 26, 1).hops == 1);
    crossbar_params p;
    p.latency = 1;
    p.voq = true;
    crossbar<> y(p);
    CHECK(noc_test::one(y, 5, 9, 1).latency() == 2);
    CHECK(noc_test::one(y, 5, 9, 3).latency() == 4);
}

TEST_CASE("crossbar with FIFO inputs saturates near 2 - sqrt(2) (head-of-line blocking)") {
    // Karol, Hluchyj and Morgan: uniform traffic through FIFO input queues saturates at
    // 2 - sqrt(2) = 0.586 of the link rate for large N (0.6 and above for small N).
    crossbar_params p;
    p.nodes = 32;
    p.subnets = 1;
    p.latency = 1;
    crossbar<std::uint64_t, round_robin> x(p);
    const double thr = saturation(x, 20000);
    CHECK(thr == doctest::Approx(2.0 - std::sqrt(2.0)).epsilon(0.05));
}

TEST_CASE("crossbar with virtual output queues and iSLIP approaches full throughput") {
    crossbar_params p;
    p.nodes = 32;
    p.subnets = 1;
    p.latency = 1;
    p.voq = true;
    p.input_buffer_flits = 256;
    crossbar<std::uint64_t, islip> x(p);
    const double thr = saturation(x, 20000);
    CHECK(thr > 0.9);
    // FIFO inputs with the same allocator stay head-of-line blocked.
    p.voq = false;
    crossbar<std::uint64_t, islip> y(p);
    CHECK(saturation(y, 20000) < 0.65);
}

TEST_CASE("crossbar keeps packets whole and conserves them under load") {
    for (const bool voq : {false, true}) {
        CAPTURE(voq);
        crossbar_params p;
        p.nodes = 16;
        p.voq = voq;
        p.output_buffer_flits = 3;
        p.eject_queue_packets = 2;
        crossbar<> x(p);
        noc_test::run_conserved(x, 31, 20000, 0.12, 6, true);
        const auto s = x.stats();
        CHECK(s.router_traversals == s.flits_ejected);
        CHECK(s.routers.size() == 1);
        CHECK(s.link_traversals == 0);
    }
}

TEST_CASE("a FIFO crossbar of 144 nodes (a V100's 80 SMs and 64 L2 slices): zero-load "
          "latency, round-robin outputs, head-of-line blocking, nothing lost") {
    crossbar_params p;
    p.nodes = 144;
    crossbar<> x(p);
    CHECK(noc_test::one(x, 0, 143, 1).latency() == 6);
    CHECK(noc_test::one(x, 120, 7, 4).latency() == 9);
    // Inputs 70 and 130 each send two 1-flit packets to output 100 at once. Output 100's
    // pointer starts at input 0: input 70 wins, the pointer passes it, input 130 wins, then
    // 70 and 130 again: the packets leave 70, 130, 70, 130.
    for (int i = 0; i < 64; ++i)
        x.tick();
    REQUIRE(x.idle());
    for (const node_id src : {70u, 130u, 70u, 130u}) {
        packet<> pk;
        pk.src = src;
        pk.dst = 100;
        pk.flits = 1;
        REQUIRE(x.can_inject(src, traffic_class::request));
        static_cast<void>(x.inject(pk));
    }
    std::vector<node_id> order;
    for (int c = 0; c < 100 && order.size() < 4; ++c) {
        x.tick();
        while (x.can_eject(100))
            order.push_back(x.eject(100).src);
    }
    CHECK(order == std::vector<node_id>{70, 130, 70, 130});
    // Uniform traffic saturates FIFO inputs at 2 - sqrt(2) of the link rate for large N
    // (Karol, Hluchyj and Morgan), at any size.
    p.subnets = 1;
    p.latency = 1;
    crossbar<std::uint64_t, round_robin> y(p);
    CHECK(saturation(y, 4000) == doctest::Approx(2.0 - std::sqrt(2.0)).epsilon(0.05));
    p = {};
    p.nodes = 144;
    p.output_buffer_flits = 3;
    crossbar<> z(p);
    noc_test::run_conserved(z, 17, 4000, 0.1, 6, true);
}

TEST_CASE("crossbar params are validated") {
    crossbar_params p;
    p.nodes = 65;
    CHECK_NOTHROW(crossbar<>{p}); // FIFO inputs: any size up to 4096
    p.voq = true;
    CHECK_THROWS_WITH_AS(crossbar<>{p}, "invalid parameter 'nodes' = 65 (allowed: <= 64 with voq)",
                         warpkit::config_error);
    p = {};
    p.nodes = 4097;
    CHECK_THROWS_AS(crossbar<>{p}, warpkit::config_error);
    p = {};
    p.latency = 0;
    CHECK_THROWS_AS(crossbar<>{p}, warpkit::config_error);
}
