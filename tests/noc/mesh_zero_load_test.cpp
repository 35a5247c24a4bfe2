// Zero-load latency of single packets in small meshes, computed by hand from the router
// pipeline. BookSim's default router (routing, VC allocation, switch allocation, switch
// traversal one cycle each, one-cycle links): the interface sends in cycle t, the injection
// link takes t + 1, the first router holds the flit in t + 2 .. t + 5 (RC VA SA ST), each
// link one cycle, each further router four, the ejection link one, so a packet crossing L
// router-to-router links arrives in t + 7 + 5 L; every body flit follows one cycle later.
// The 2-stage router (lookahead routing, VA and SA together, then ST): 5 + 3 L + (F - 1).

#include "noc_test_util.hpp"

#include <warpkit/noc/mesh.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>

using namespace warpkit::noc;

TEST_CASE("mesh zero-load latency, BookSim's 4-stage router") {
    SUBCASE("1x1: a node sends to itself through its router") {
        mesh_params p = booksim_mesh(1);
        mesh<> m(p);
        const auto pk = noc_test::one(m, 0, 0, 1);
        CHECK(pk.latency() == 7);
        CHECK(pk.network_latency() == 7);
        CHECK(pk.hops == 1);
        CHECK(noc_test::one(m, 0, 0, 5).latency() == 11);
    }
    SUBCASE("2x2") {
        mesh<> m(booksim_mesh(2));
        CHECK(noc_test::one(m, 0, 1, 1).latency() == 12); // 1 link
        CHECK(noc_test::one(m, 0, 3, 1).latency() == 17); // 2 links
        CHECK(noc_test::one(m, 3, 0, 1).latency() == 17);
        CHECK(noc_test::one(m, 0, 3, 4).latency() == 20); // 3 body flits
        CHECK(noc_test::one(m, 2, 2, 1).latency() == 7);
    }
    SUBCASE("4x4") {
        mesh<> m(booksim_mesh(4));
        const auto far = noc_test::one(m, 0, 15, 1); // (0,0) -> (3,3): 6 links
        CHECK(far.latency() == 37);
        CHECK(far.hops == 7);
        CHECK(noc_test::one(m, 5, 6, 1).latency() == 12);
        CHECK(noc_test::one(m, 5, 13, 1).latency() == 17); // (1,1) -> (1,3)
        CHECK(noc_test::one(m, 12, 3, 1).latency() == 37);
        CHECK(noc_test::one(m, 0, 15, 4).latency() == 40);
        CHECK(noc_test::one(m, 0, 15, 8).latency() == 44);
        CHECK(noc_test::one(m, 6, 9, 2).latency() == 18); // (2,1) -> (1,2): 2 links, 1 body flit
    }
    SUBCASE("rectangular 5x3") {
        mesh_params p = booksim_mesh(5);
        p.rows = 3;
        mesh<> m(p);
        CHECK(noc_test::one(m, 0, 14, 1).latency() == 37); // (0,0) -> (4,2): 6 links
        CHECK(noc_test::one(m, 14, 0, 1).latency() == 37);
        CHECK(noc_test::one(m, 4, 10, 3).latency() == 39); // (4,0) -> (0,2): 6 links, 2 body flits
        CHECK(noc_test::one(m, 7, 7, 1).hops == 1);
    }
    SUBCASE("a line (rows = 1)") {
        mesh_params p = booksim_mesh(6);
        p.rows = 1;
        mesh<> m(p);
        CHECK(noc_test::one(m, 0, 5, 1).latency() == 32);
        CHECK(noc_test::one(m, 5, 2, 2).latency() == 23);
    }
}

TEST_CASE("mesh zero-load latency, 2-stage router (paper 002)") {
    mesh_params p = two_stage_router(booksim_mesh(4));
    mesh<> m(p);
    CHECK(noc_test::one(m, 0, 0, 1).latency() == 5);
    CHECK(noc_test::one(m, 0, 1, 1).latency() == 8);
    CHECK(noc_test::one(m, 0, 15, 1).latency() == 23);
    CHECK(noc_test::one(m, 0, 15, 4).latency() == 26);
    CHECK(noc_test::one(m, 9, 6, 1).latency() == 11);
    CHECK(noc_test::one(m, 0, 15, 1).hops == 7);
    // Every head flit won the switch in the cycle it won its VC.
    CHECK(m.stats().speculative_grants == m.stats().vc_allocations);
}

TEST_CASE("mesh zero-load latency with other pipeline delays") {
    // routing 2, VA 1, SA 1, ST 1 + 1, links 2: the interface sends in t, the link takes
    // t + 1 and t + 2, each router holds a flit 6 cycles (RC RC VA SA ST ST), each link 2:
    // 3 + 8 L + 8 = 11 + 8 L.
    mesh_params p = booksim_mesh(3);
    p.routing_delay = 2;
    p.st_prepare_delay = 1;
    p.link_latency = 2;
    mesh<> m(p);
    CHECK(noc_test::one(m, 0, 0, 1).latency() == 11);
    CHECK(noc_test::one(m, 0, 1, 1).latency() == 19);
    CHECK(noc_test::one(m, 0, 8, 1).latency() == 43);
    CHECK(noc_test::one(m, 0, 8, 3).latency() == 45);
    // A credit delay slows nothing at zero load.
    p.credit_delay = 3;
    mesh<> m2(p);
    CHECK(noc_test::one(m2, 0, 8, 1).latency() == 43);
}

TEST_CASE("mesh zero-load latency on the reply subnet equals the request subnet's") {
    mesh_params p = booksim_mesh(3);
    p.subnets = 2;
    mesh<> m(p);
    CHECK(noc_test::one(m, 0, 8, 1, traffic_class::request).latency() == 27);
    CHECK(noc_test::one(m, 0, 8, 1, traffic_class::reply).latency() == 27);
    CHECK(m.subnet_stats(0).packets_ejected == 1);
    CHECK(m.subnet_stats(1).packets_ejected == 1);
}

TEST_CASE("mesh source queueing counts in packet latency, not in network latency") {
    mesh<> m(booksim_mesh(2));
    // Two 3-flit packets from one node in the same cycle: the second waits for the first's
    // three flits to leave the interface (t .. t + 2), then sends its own from t + 3.
    packet<> a;
    a.src = 0;
    a.dst = 1;
    a.flits = 3;
    packet<> b = a;
    m.inject(a);
    m.inject(b);
    std::optional<packet<>> first;
    std::optional<packet<>> second;
    for (int i = 0; i < 100 && !second; ++i) {
        m.tick();
        while (m.can_eject(1))
            (first ? second : first) = m.eject(1);
    }
    REQUIRE(second);
    CHECK(first->latency() == 14); // 12 + 2 body flits
    CHECK(second->latency() == 17);
    CHECK(second->network_latency() == 14);
    CHECK(second->injected - second->created == 3);
}
