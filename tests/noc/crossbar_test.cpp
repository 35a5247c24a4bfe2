// The crossbar: zero-load latency by hand, head-of-line blocking of FIFO inputs (the classic
// 2 - sqrt(2) saturation throughput), iSLIP with virtual output queues, packet integrity.

#include "noc_test_util.hpp"
#include "uniform_traffic.hpp"

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/crossbar.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

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

TEST_CASE("crossbar params are validated") {
    crossbar_params p;
    p.nodes = 65;
    CHECK_THROWS_AS(crossbar<>{p}, warpkit::config_error);
    p = {};
    p.latency = 0;
    CHECK_THROWS_AS(crossbar<>{p}, warpkit::config_error);
}
