#pragma once
/// \file
/// `network_stats`: the activity counters every network model keeps (flits and packets in
/// and out per node, router and link traversals, buffer reads and writes per router for the
/// power model) and latency / hop histograms.

#include <warpkit/core/histogram.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::noc {

/// Latency histogram: 2-cycle bins up to 64, then coarser bins up to 4096+.
using latency_histogram = histogram<48>;
/// Hop-count histogram: one bin per router count, 32+.
using hops_histogram = histogram<33>;

/// The bins of every latency histogram.
[[nodiscard]] inline latency_histogram latency_bins() {
    latency_histogram::bounds_type b{};
    for (std::size_t i = 0; i < 32; ++i)
        b[i] = 2 * i;
    constexpr std::array<std::uint64_t, 16> tail = {64,  80,  96,  128, 160,  192,  256,  320,
                                                    384, 512, 640, 768, 1024, 1536, 2048, 4096};
    for (std::size_t i = 0; i < tail.size(); ++i)
        b[32 + i] = tail[i];
    return latency_histogram{b};
}

/// Traffic in and out of one node.
struct node_stats {
    std::uint64_t packets_injected = 0;
    std::uint64_t packets_ejected = 0;
    std::uint64_t flits_injected = 0; ///< flits that left the node's interface
    std::uint64_t flits_ejected = 0;  ///< flits that reached the node's interface
    WARPKIT_FIELDS(node_stats, packets_injected, packets_ejected, flits_injected, flits_ejected)
};

/// Activity of one router (or one crossbar), what a power model multiplies by energies.
struct router_stats {
    std::uint64_t buffer_writes = 0;      ///< flits written into input buffers
    std::uint64_t buffer_reads = 0;       ///< flits read out of input buffers
    std::uint64_t switch_traversals = 0;  ///< flits through the crossbar
    std::uint64_t link_traversals = 0;    ///< flits sent on outgoing router-to-router links
    std::uint64_t vc_allocations = 0;     ///< output VCs granted to packets
    std::uint64_t switch_allocations = 0; ///< switch grants (one per flit)
    WARPKIT_FIELDS(router_stats, buffer_writes, buffer_reads, switch_traversals, link_traversals,
                   vc_allocations, switch_allocations)
};

/// Counters and histograms of a network (summed over its subnets).
struct network_stats {
    std::uint64_t cycles = 0;
    std::uint64_t packets_injected = 0; ///< packets whose head flit entered the network
    std::uint64_t packets_ejected = 0;  ///< packets whose tail flit reached the destination
    std::uint64_t flits_injected = 0;
    std::uint64_t flits_ejected = 0;
    std::uint64_t router_traversals = 0;  ///< flits through a router's (or crossbar's) switch
    std::uint64_t link_traversals = 0;    ///< flits over router-to-router channels
    std::uint64_t bypass_traversals = 0;  ///< flits through a disabled router's bypass path
    std::uint64_t buffer_writes = 0;      ///< flits written into router buffers
    std::uint64_t buffer_reads = 0;       ///< flits read out of router buffers
    std::uint64_t vc_allocations = 0;     ///< output VCs granted
    std::uint64_t switch_allocations = 0; ///< switch grants
    std::uint64_t speculative_grants = 0; ///< switch grants made in the same cycle as the VC grant
    std::uint64_t credits = 0;            ///< credits sent upstream
    std::uint64_t order_errors = 0;       ///< flits arriving out of order (always 0 when correct)
    latency_histogram packet_latency = latency_bins();  ///< creation to tail ejection
    latency_histogram network_latency = latency_bins(); ///< head injection to tail ejection
    hops_histogram hops{};                              ///< routers traversed per packet
    std::vector<node_stats> nodes;
    std::vector<router_stats> routers;
    WARPKIT_FIELDS(network_stats, cycles, packets_injected, packets_ejected, flits_injected,
                   flits_ejected, router_traversals, link_traversals, bypass_traversals,
                   buffer_writes, buffer_reads, vc_allocations, switch_allocations,
                   speculative_grants, credits, order_errors, packet_latency, network_latency, hops,
                   nodes, routers)
};

/// Flits ejected per node per cycle.
[[nodiscard]] inline double accepted_rate(const network_stats& s) noexcept {
    if (s.cycles == 0 || s.nodes.empty()) return 0.0;
    return static_cast<double>(s.flits_ejected) /
           (static_cast<double>(s.cycles) * static_cast<double>(s.nodes.size()));
}

// The endpoint accounting every network model does the same way (node: the node index).

/// `flits` flits entered the network at `node`.
inline void count_injected_flits(network_stats& s, std::size_t node, std::uint64_t flits = 1) {
    s.flits_injected += flits;
    s.nodes[node].flits_injected += flits;
}
/// A packet's head flit entered the network at `node`.
inline void count_injected_packet(network_stats& s, std::size_t node) {
    ++s.packets_injected;
    ++s.nodes[node].packets_injected;
}
/// `flits` flits left the network at `node`.
inline void count_ejected_flits(network_stats& s, std::size_t node, std::uint64_t flits = 1) {
    s.flits_ejected += flits;
    s.nodes[node].flits_ejected += flits;
}
/// Packet `pk` was delivered (its tail flit left the network) at `node`: its count, latencies
/// (`latency()`, `network_latency()`) and hops.
template <class Packet>
void count_delivered_packet(network_stats& s, std::size_t node, const Packet& pk) {
    ++s.packets_ejected;
    ++s.nodes[node].packets_ejected;
    s.packet_latency.add(pk.latency());
    s.network_latency.add(pk.network_latency());
    s.hops.add(pk.hops);
}

} // namespace warpkit::noc
