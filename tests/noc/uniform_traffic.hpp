#pragma once
// Uniform random traffic of one-flit packets for any network, shared by the NoC tests and
// benchmarks: inject a packet to a random node, and end a cycle taking every delivered packet.
// No test framework here, so the benchmarks include it too.

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/packet.hpp>

namespace noc_traffic {

/// Injects a one-flit request from `src` to a random node (can_inject(src) must hold).
template <class Net>
void inject_uniform(Net& net, warpkit::rng& r, warpkit::noc::node_id src) {
    typename Net::packet_type pk;
    pk.src = src;
    pk.dst = static_cast<warpkit::noc::node_id>(r.below(net.nodes()));
    net.inject(pk);
}

/// Ticks `net`, then hands every packet delivered at any node to `take`, node by node.
template <class Net, class Take>
void tick_and_take(Net& net, Take&& take) {
    net.tick();
    const auto n = static_cast<warpkit::noc::node_id>(net.nodes());
    for (warpkit::noc::node_id d = 0; d < n; ++d)
        while (net.can_eject(d))
            take(net.eject(d));
}

} // namespace noc_traffic
