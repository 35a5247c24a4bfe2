// The mesh under random and saturating load: every flit injected is ejected exactly once and
// in order; XY routing never deadlocks; credits are conserved on every channel and all come
// home when the network drains.

#include "noc_test_util.hpp"

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/mesh.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

using namespace warpkit::noc;

namespace {

/// Credits of every channel add up: for each output VC, the credits held upstream, the
/// flits on the link, the flits in the downstream buffer and the credits on their way back
/// make exactly one buffer. Returns the number of violations.
template <class M>
std::uint64_t credit_violations(const M& m) {
    const auto& t = m.topology();
    const std::uint32_t B = m.params().vc_buf_size;
    const std::uint32_t V = m.params().num_vcs;
    std::uint64_t bad = 0;
    for (std::size_t s = 0; s < m.subnets(); ++s) {
        for (std::uint32_t r = 0; r < t.routers; ++r) {
            if (t.enabled[r] == 0) continue;
            for (std::uint32_t o = 0; o < m.ports(); ++o) {
                if (!m.output_connected(r, o)) continue;
                for (std::uint32_t v = 0; v < V; ++v) {
                    const std::uint32_t held = m.output_credits(s, r, o, v);
                    std::uint32_t down = 0;
                    if (o < 4) {
                        const auto q = static_cast<std::uint32_t>(t.neighbor[r * 4 + o]);
                        down =
                            m.channel_flits(s, q, o ^ 1u, v) + m.input_occupancy(s, q, o ^ 1u, v);
                    } else {
                        const auto n = static_cast<node_id>(t.port_node[r * m.ports() + o]);
                        down = m.sink_channel_flits(s, n, v) + m.sink_occupancy(s, n, v);
                    }
                    const std::uint32_t back = m.channel_credits(s, r, o, v);
                    if (held > B || held + down + back != B) ++bad;
                }
            }
        }
        for (node_id n = 0; n < t.nodes; ++n)
            for (std::uint32_t v = 0; v < V; ++v) {
                const std::uint32_t held = m.source_credits(s, n, v);
                const std::uint32_t down = m.channel_flits(s, t.host[n], t.local[n], v) +
                                           m.input_occupancy(s, t.host[n], t.local[n], v);
                const std::uint32_t back = m.source_channel_credits(s, n, v);
                if (held > B || held + down + back != B) ++bad;
            }
    }
    return bad;
}

/// Every credit home, every VC idle and free.
template <class M>
bool all_home(const M& m) {
    const auto& t = m.topology();
    const std::uint32_t B = m.params().vc_buf_size;
    for (std::size_t s = 0; s < m.subnets(); ++s) {
        for (std::uint32_t r = 0; r < t.routers; ++r) {
            if (t.enabled[r] == 0) continue;
            for (std::uint32_t o = 0; o < m.ports(); ++o)
                for (std::uint32_t v = 0; v < m.params().num_vcs; ++v) {
                    if (!m.input_vc_idle(s, r, o, v) || m.input_occupancy(s, r, o, v) != 0)
                        return false;
                    if (!m.output_connected(r, o)) continue;
                    if (m.output_credits(s, r, o, v) != B || !m.output_vc_free(s, r, o, v))
                        return false;
                }
        }
        for (node_id n = 0; n < t.nodes; ++n)
            for (std::uint32_t v = 0; v < m.params().num_vcs; ++v)
                if (m.source_credits(s, n, v) != B) return false;
    }
    return true;
}

using config = noc_test::load_config<mesh_params>;

std::vector<config> configs() {
    std::vector<config> c;
    {
        mesh_params p = booksim_mesh(4, 2, 4);
        c.push_back({"4x4 BookSim router, 2 VCs x 4, shared classes", p, 0.12, 6, true});
    }
    {
        mesh_params p = two_stage_router(booksim_mesh(4, 3, 2));
        p.subnets = 2;
        c.push_back(
            {"4x4 2-stage, 3 VCs x 2 (packets longer than buffers), 2 subnets", p, 0.1, 5, true});
    }
    {
        mesh_params p = booksim_mesh(6, 4, 3);
        p.rows = 3;
        p.split_vcs = true;
        p.credit_delay = 2;
        p.link_latency = 2;
        c.push_back({"6x3 split VCs, credit delay 2, 2-cycle links", p, 0.08, 4, true});
    }
    {
        mesh_params p = bypass_columns(booksim_mesh(6, 2, 4), {1, 4});
        p.bypass_delay = 1;
        c.push_back({"6x6 with two bypassed columns", p, 0.05, 3, false});
    }
    {
        mesh_params p = amoeba_48sm();
        p.eject_queue_packets = 2;
        c.push_back({"AMOEBA 8x7 defaults, tiny ejection queues", p, 0.06, 4, true});
    }
    return c;
}

} // namespace

TEST_CASE("mesh conserves packets and flits under random load") {
    for (const auto& c : configs()) {
        CAPTURE(c.name);
        mesh<> m(c.p);
        const auto d =
            noc_test::run_conserved(m, 42, 30000, c.p_packet, c.max_flits, c.both_classes);
        CHECK(d.injected_packets > 10000);
        for (int i = 0; i < 50; ++i) // the last credits on their way back
            m.tick();
        CHECK(all_home(m));
    }
}

TEST_CASE("mesh with the round-robin allocator conserves packets too") {
    mesh_params p = booksim_mesh(4, 2, 4);
    mesh<std::uint64_t, round_robin> m(p);
    noc_test::run_conserved(m, 3, 20000, 0.15, 4, true);
}

TEST_CASE("mesh credits are conserved on every channel and never exceed the buffer") {
    for (const auto& c : configs()) {
        CAPTURE(c.name);
        mesh<> m(c.p);
        noc_test::driver d(m.nodes());
        warpkit::rng r(7);
        std::uint64_t bad = 0;
        for (int i = 0; i < 4000; ++i) {
            d.cycle(m, r, 2 * c.p_packet, c.max_flits, c.both_classes);
            bad += credit_violations(m);
        }
        CHECK(bad == 0);
        CHECK_FALSE(all_home(m)); // loaded: some credits are out
        for (int i = 0; i < 100000 && !(d.pending.empty() && d.queues_empty()); ++i) {
            d.cycle(m, r, 0.0, c.max_flits, c.both_classes);
            bad += credit_violations(m);
        }
        for (int i = 0; i < 50; ++i) // credits still on their way back
            m.tick();
        CHECK(bad == 0);
        CHECK(m.idle());
        CHECK(all_home(m));
    }
}

TEST_CASE("XY routing does not deadlock under saturation") {
    // One VC of two flits, 5-flit packets, every node offering more than the network can
    // carry: wormhole packets span several routers and block each other, yet packets keep
    // arriving in every window and the network drains once the sources stop.
    for (const bool two_subnets : {false, true}) {
        CAPTURE(two_subnets);
        mesh_params p = booksim_mesh(8, 1, 2);
        p.subnets = two_subnets ? 2 : 1;
        mesh<> m(p);
        noc_test::driver d(m.nodes());
        warpkit::rng r(11);
        CHECK(noc_test::saturate_and_drain(m, d, r, 40, two_subnets) == 0);
        CHECK(m.idle());
        CHECK(m.stats().order_errors == 0);
    }
}

TEST_CASE("mesh stats: traversals and buffer activity add up") {
    mesh_params p = booksim_mesh(4, 2, 4);
    mesh<> m(p);
    const auto d = noc_test::run_conserved(m, 5, 5000, 0.05, 3, false);
    const auto s = m.stats();
    // Every flit is written into and read out of one buffer per router it crosses, and
    // crosses one link fewer than routers.
    CHECK(s.buffer_writes == s.buffer_reads);
    CHECK(s.router_traversals == s.buffer_reads);
    CHECK(s.switch_allocations == s.router_traversals);
    CHECK(s.hops.samples() == d.injected_packets);
    // One output VC per packet per router crossed.
    CHECK(s.vc_allocations == s.hops.sum());
    CHECK(s.router_traversals - s.link_traversals == s.flits_ejected);
    std::uint64_t per_router = 0;
    for (const auto& rs : s.routers)
        per_router += rs.switch_traversals;
    CHECK(per_router == s.router_traversals);
}

TEST_CASE("a node that stops ejecting and resumes returns credits no faster than the channel") {
    // Every node sends 7-flit packets of both classes to node 0, which takes nothing for a
    // while: its ejection buffers fill (every VC, whole packets), its packet queues are one
    // packet deep. When it resumes, the interface drains one flit per cycle, so the credits
    // going back never outnumber what the credit channel holds, and the credit law holds in
    // every cycle. (Draining a whole buffered packet in one cycle overflowed the channel.)
    for (const std::uint32_t subnets : {1u, 2u}) {
        CAPTURE(subnets);
        mesh_params p = amoeba_48sm();
        p.cols = 4;
        p.rows = 4;
        p.subnets = subnets;
        p.split_vcs = subnets == 1;
        p.num_vcs = 4;
        p.eject_queue_packets = 1;
        p.check_credits = subnets == 2; // the mesh checks itself too (a sim_error if broken)
        mesh<> m(p);
        std::uint64_t sent = 0;
        std::uint64_t got = 0;
        std::uint64_t bad = 0;
        std::uint64_t most_credits_back = 0;
        for (std::uint32_t t = 0; t < 6000; ++t) {
            for (node_id s = 1; s < m.nodes() && t < 1500; ++s)
                for (const auto c : {traffic_class::request, traffic_class::reply})
                    if (m.can_inject(s, c)) {
                        packet<> pk;
                        pk.src = s;
                        pk.dst = 0;
                        pk.flits = 7;
                        pk.cls = c;
                        (void)m.inject(pk);
                        ++sent;
                    }
            REQUIRE_NOTHROW(m.tick());
            bad += credit_violations(m);
            REQUIRE(m.credit_violations() == credit_violations(m));
            for (std::size_t sn = 0; sn < m.subnets(); ++sn) {
                std::uint64_t back = 0;
                for (std::uint32_t v = 0; v < p.num_vcs; ++v)
                    back += m.channel_credits(sn, m.topology().host[0], m.topology().local[0], v);
                most_credits_back = std::max(most_credits_back, back);
            }
            // Node 0 is deaf for 800 cycles, then takes a packet every third cycle.
            if (t >= 800 && t % 3 == 0 && m.can_eject(0)) {
                (void)m.eject(0);
                ++got;
            }
        }
        for (int i = 0; i < 100000 && got < sent; ++i) {
            m.tick();
            bad += credit_violations(m);
            while (m.can_eject(0)) {
                (void)m.eject(0);
                ++got;
            }
        }
        CHECK(bad == 0);
        CHECK(got == sent);
        CHECK(sent > 100);
        CHECK(m.idle());
        CHECK(m.stats().order_errors == 0);
        // One credit per cycle at most, each on the channel for 1 + link_latency cycles.
        CHECK(most_credits_back <= 1 + p.link_latency);
    }
}
