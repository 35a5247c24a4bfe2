// Shared helpers of the noc tests: a random-traffic driver that records every packet it
// injects and checks what comes out.
#pragma once

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/packet.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace noc_test {

using warpkit::noc::node_id;
using warpkit::noc::traffic_class;

/// What a packet looked like when it was handed to the network.
struct sent {
    node_id src = 0;
    node_id dst = 0;
    std::uint32_t flits = 0;
    traffic_class cls = traffic_class::request;
    std::uint64_t payload = 0;
    std::uint64_t created = 0;
};

/// Random traffic into any network; checks every ejected packet against what was sent.
struct driver {
    std::unordered_map<std::uint64_t, sent> pending; ///< by payload
    std::vector<std::deque<sent>> queues;            ///< per node and class, not yet accepted
    std::uint64_t next_payload = 1;
    std::uint64_t injected_packets = 0;
    std::uint64_t injected_flits = 0;
    std::uint64_t ejected_packets = 0;
    std::uint64_t ejected_flits = 0;
    std::uint64_t problems = 0; ///< mismatches, duplicates, wrong destinations
    std::uint64_t last_eject = 0;
    std::string first_problem;

    explicit driver(std::size_t nodes) : queues(2 * nodes) {}

    void problem(const std::string& what) {
        if (problems++ == 0) first_problem = what;
    }

    /// One cycle: maybe make packets, inject what fits, tick, eject and check everything.
    template <class Net>
    void cycle(Net& net, warpkit::rng& r, double p_packet, std::uint32_t max_flits,
               bool both_classes) {
        const auto n = static_cast<node_id>(net.nodes());
        const std::uint64_t now = net.now();
        for (node_id s = 0; s < n; ++s) {
            if (p_packet <= 0.0 || !r.bernoulli(p_packet)) continue;
            sent x;
            x.src = s;
            x.dst = static_cast<node_id>(r.below(n));
            x.flits = static_cast<std::uint32_t>(r.between(1, max_flits));
            x.cls =
                both_classes && r.bernoulli(0.5) ? traffic_class::reply : traffic_class::request;
            x.payload = next_payload++;
            x.created = now;
            queues[2 * s + static_cast<std::size_t>(x.cls)].push_back(x);
        }
        for (node_id s = 0; s < n; ++s)
            for (std::size_t c = 0; c < 2; ++c) {
                auto& q = queues[2 * s + c];
                if (q.empty() || !net.can_inject(s, q.front().cls)) continue;
                const sent& x = q.front();
                typename Net::packet_type pk;
                pk.src = x.src;
                pk.dst = x.dst;
                pk.flits = x.flits;
                pk.cls = x.cls;
                pk.payload = x.payload;
                pk.created = x.created;
                net.inject(pk);
                ++injected_packets;
                injected_flits += x.flits;
                pending.emplace(x.payload, x);
                q.pop_front();
            }
        net.tick();
        for (node_id d = 0; d < n; ++d)
            while (net.can_eject(d)) {
                const auto pk = net.eject(d);
                ++ejected_packets;
                ejected_flits += pk.flits;
                last_eject = net.now();
                const auto it = pending.find(pk.payload);
                if (it == pending.end()) {
                    problem("packet " + std::to_string(pk.payload) + " ejected twice or unknown");
                    continue;
                }
                const sent& x = it->second;
                if (pk.src != x.src || pk.dst != x.dst || pk.dst != d || pk.flits != x.flits ||
                    pk.cls != x.cls || pk.created != x.created)
                    problem("packet " + std::to_string(pk.payload) + " altered or misdelivered");
                if (!(pk.created <= pk.injected && pk.injected <= pk.ejected &&
                      pk.ejected + 1 == net.now()))
                    problem("packet " + std::to_string(pk.payload) + " has inconsistent times");
                pending.erase(it);
            }
    }

    [[nodiscard]] bool queues_empty() const {
        for (const auto& q : queues)
            if (!q.empty()) return false;
        return true;
    }

    /// Runs `cycles` of traffic, then drains (no new packets) for at most `drain` cycles.
    template <class Net>
    void run(Net& net, warpkit::rng& r, std::uint64_t cycles, double p_packet,
             std::uint32_t max_flits, bool both_classes, std::uint64_t drain = 200000) {
        for (std::uint64_t c = 0; c < cycles; ++c)
            cycle(net, r, p_packet, max_flits, both_classes);
        for (std::uint64_t c = 0; c < drain && (!pending.empty() || !queues_empty()); ++c)
            cycle(net, r, 0.0, max_flits, both_classes);
    }

    /// Everything sent came out exactly once, unaltered.
    template <class Net>
    void check_conserved(const Net& net) const {
        CHECK(problems == 0);
        if (problems != 0) MESSAGE(first_problem);
        CHECK(pending.empty());
        CHECK(queues_empty());
        CHECK(injected_packets == ejected_packets);
        CHECK(injected_flits == ejected_flits);
        CHECK(net.idle());
        const auto s = net.stats();
        CHECK(s.packets_injected == injected_packets);
        CHECK(s.packets_ejected == injected_packets);
        CHECK(s.flits_injected == injected_flits);
        CHECK(s.flits_ejected == injected_flits);
        CHECK(s.order_errors == 0);
        std::uint64_t in = 0;
        std::uint64_t out = 0;
        for (const auto& ns : s.nodes) {
            in += ns.flits_injected;
            out += ns.flits_ejected;
        }
        CHECK(in == injected_flits);
        CHECK(out == injected_flits);
        CHECK(s.packet_latency.samples() == injected_packets);
    }
};

/// Runs `cycles` of random traffic (see driver::run) into `net` from a generator seeded with
/// `seed`, drains it and checks that everything came out; returns the driver's counters.
template <class Net>
driver run_conserved(Net& net, std::uint64_t seed, std::uint64_t cycles, double p_packet,
                     std::uint32_t max_flits, bool both_classes) {
    driver d(net.nodes());
    warpkit::rng r(seed);
    d.run(net, r, cycles, p_packet, max_flits, both_classes);
    d.check_conserved(net);
    return d;
}

/// A named network configuration under random load: packets per node and cycle, the
/// largest packet, and whether both traffic classes are offered.
template <class Params>
struct load_config {
    std::string name;
    Params p;
    double p_packet;
    std::uint32_t max_flits;
    bool both_classes;
};

/// Sends one packet of `flits` flits of class `c` from `src` to `dst` into a network left to
/// settle first (the credits of earlier packets home) and returns it once ejected.
template <class Net>
warpkit::noc::packet<> one(Net& net, node_id src, node_id dst, std::uint32_t flits = 1,
                           traffic_class c = traffic_class::request) {
    for (int i = 0; i < 64; ++i)
        net.tick();
    REQUIRE(net.idle());
    warpkit::noc::packet<> pk;
    pk.src = src;
    pk.dst = dst;
    pk.flits = flits;
    pk.cls = c;
    (void)net.inject(pk);
    for (int i = 0; i < 1000; ++i) {
        net.tick();
        if (net.can_eject(dst)) return net.eject(dst);
    }
    FAIL("packet never arrived");
    return {};
}

/// Every node offers more 5-flit packets than the network carries for `windows` windows of
/// 500 cycles, then the sources stop and the network drains: returns the windows in which
/// no packet arrived (0 when nothing deadlocks) and checks the network was saturated (over
/// 1000 packets waiting) and delivered everything.
template <class Net>
std::uint64_t saturate_and_drain(Net& net, driver& d, warpkit::rng& r, int windows,
                                 bool both_classes) {
    std::uint64_t stalled_windows = 0;
    std::uint64_t before = 0;
    for (int w = 0; w < windows; ++w) {
        for (int i = 0; i < 500; ++i)
            d.cycle(net, r, 0.5, 5, both_classes);
        if (d.ejected_packets == before) ++stalled_windows;
        before = d.ejected_packets;
    }
    std::size_t waiting = 0;
    for (const auto& q : d.queues)
        waiting += q.size();
    CHECK(waiting > 1000);   // saturated: far more offered than delivered
    for (auto& q : d.queues) // stop offering
        q.clear();
    for (int i = 0; i < 200000 && !d.pending.empty(); ++i)
        d.cycle(net, r, 0.0, 5, both_classes);
    CHECK(d.pending.empty());
    CHECK(d.problems == 0);
    return stalled_windows;
}

} // namespace noc_test
