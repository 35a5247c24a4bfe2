// Router bypass (paper 002): a disabled router's node is served by a neighbour's router,
// flits pass the disabled router on its straight bypass path, and the network gets smaller.

#include "noc_test_util.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/mesh.hpp>

#include <doctest/doctest.h>

#include <cstdint>

using namespace warpkit::noc;

TEST_CASE("bypass: a 3-node line with the middle router off") {
    mesh_params p = booksim_mesh(3);
    p.rows = 1;
    p.bypass = {{1, 0}}; // node 1 served by router 0
    mesh<> m(p);
    const auto& t = m.topology();
    CHECK(t.enabled[1] == 0);
    CHECK(t.host[1] == 0);
    CHECK(t.local[1] == 5); // router 0: own node on port 4, node 1 on port 5
    CHECK(m.ports() == 6);
    CHECK(t.neighbor[0 * 4 + 0] == 2); // east of router 0 is router 2, through the bypass
    CHECK(t.bypassed[0 * 4 + 0] == 1);
    CHECK(m.route(0, 1) == 5);
    CHECK(m.route(2, 1) == 1); // west

    // 0 -> 2: routers 0 and 2, one channel two links long: 7 + 5 + 1.
    auto a = noc_test::one(m, 0, 2);
    CHECK(a.latency() == 13);
    CHECK(a.hops == 2);
    // The attached node injects and ejects at router 0 like its own node.
    CHECK(noc_test::one(m, 1, 2).latency() == 13);
    CHECK(noc_test::one(m, 2, 1).latency() == 13);
    auto b = noc_test::one(m, 1, 0);
    CHECK(b.latency() == 7);
    CHECK(b.hops == 1);
    CHECK(noc_test::one(m, 1, 1).latency() == 7);
    const auto s = m.stats();
    CHECK(s.routers[1].switch_traversals == 0); // the disabled router never switches
    CHECK(s.bypass_traversals == 3);            // the three packets that crossed it
}

TEST_CASE("bypass: extra delay on the bypass path") {
    mesh_params p = booksim_mesh(3);
    p.rows = 1;
    p.bypass = {{1, 2}}; // node 1 served by router 2 this time
    p.bypass_delay = 3;
    mesh<> m(p);
    CHECK(noc_test::one(m, 0, 2).latency() == 16);
    CHECK(noc_test::one(m, 0, 1).latency() == 16);
    CHECK(noc_test::one(m, 1, 2).latency() == 7);
}

TEST_CASE("bypass: fused columns on a 4x2 mesh") {
    // Column 1 off: node 1 on router 0, node 5 on router 4.
    mesh_params base = booksim_mesh(4);
    base.rows = 2;
    mesh<> m(bypass_columns(base, {1}));
    CHECK(m.topology().host[5] == 4);
    CHECK(m.topology().host[1] == 0);
    // Node 5 (router 4 at (0,1)) -> node 3 ((3,0)): east 4 -> 6 (two links) -> 7, then
    // south 7 -> 3: three channels, one of them two links long, four routers.
    const auto pk = noc_test::one(m, 5, 3);
    CHECK(pk.latency() == 7 + 15 + 1);
    CHECK(pk.hops == 4);
    // Node 4 takes the same path; without the bypass it crosses four links and five routers.
    CHECK(noc_test::one(m, 4, 3).latency() == 23);
    mesh<> plain(base);
    CHECK(noc_test::one(plain, 4, 3).latency() == 7 + 20);
    CHECK(noc_test::one(plain, 5, 3).latency() == 7 + 15);
    // Everything still arrives under load.
    mesh<> loaded(bypass_columns(base, {1}));
    noc_test::run_conserved(loaded, 9, 10000, 0.1, 4, false);
}

TEST_CASE("bypass: invalid configurations are rejected with the field named") {
    const auto bad = [](mesh_params p, const std::string& field) {
        CAPTURE(field);
        try {
            mesh<> m(p);
            FAIL("accepted");
        } catch (const warpkit::config_error& e) {
            CHECK(e.field() == field);
        }
    };
    mesh_params p = booksim_mesh(3);
    p.bypass = {{4, 8}}; // not adjacent
    bad(p, "bypass[0].host");
    p.bypass = {{4, 4}};
    bad(p, "bypass[0].host");
    p.bypass = {{9, 4}};
    bad(p, "bypass[0].node");
    p.bypass = {{4, 3}, {4, 5}}; // twice
    bad(p, "bypass[1].node");
    p.bypass = {{4, 3}, {3, 0}}; // host switched off itself
    bad(p, "bypass[0].host");
    // A single disabled router in a 2x2 mesh: the route from router 2 to router 1 would have
    // to turn at the disabled router 3.
    mesh_params q = booksim_mesh(2);
    q.bypass = {{3, 2}};
    bad(q, "bypass");
    // The whole column is fine.
    q.bypass = {{1, 0}, {3, 2}};
    CHECK_NOTHROW(mesh<>{q});
}
