#pragma once
/// \file
/// Counters of the memory hierarchy, what the power model multiplies by energies (paper 001:
/// L1 and L2 read / write hits and misses, DRAM precharges, activates, reads and writes,
/// network flits): per SM (L1 data and constant caches, MSHRs, pending request table, the
/// requests it sent), per L2 slice, per DRAM channel, and per network traffic class.

#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/dram_channel.hpp>
#include <warpkit/mem/pending_request_table.hpp>

#include <cstdint>
#include <vector>

namespace warpkit::gpu {

/// Counters of a cache with its MSHRs (the same for every tag type of cache_controller).
using cache_controller_stats = mem::cache_controller<std::uint32_t>::stats_type;

/// The counters of any cache_controller<T> as cache_controller_stats.
template <class Stats>
[[nodiscard]] cache_controller_stats to_cache_controller_stats(const Stats& s) {
    cache_controller_stats out;
    out.cache = s.cache;
    out.mshr = s.mshr;
    out.stall_reservation = s.stall_reservation;
    out.stall_mshr = s.stall_mshr;
    out.stall_queue = s.stall_queue;
    return out;
}

/// The memory side of one SM.
struct sm_memory_stats {
    cache_controller_stats l1d{};       ///< L1 data cache (DC_RH / DC_RM / DC_WH / DC_WM)
    cache_controller_stats constant{};  ///< constant cache
    mem::prt_stats prt{};               ///< pending request table
    std::uint64_t reads_sent = 0;       ///< L1 line fills requested
    std::uint64_t const_reads_sent = 0; ///< constant-cache line fills requested
    std::uint64_t writes_sent = 0;
    std::uint64_t atomics_sent = 0;
    std::uint64_t replies_received = 0;
    std::uint64_t access_stalls = 0;    ///< cycles the access stage waited (no way, MSHR, queue)
    std::uint64_t fill_latency_sum = 0; ///< core cycles from sending a read to its fill
    cache_controller_stats texture{};   ///< texture cache
    std::uint64_t tex_reads_sent = 0;   ///< texture-cache line fills requested
    WARPKIT_FIELDS(sm_memory_stats, l1d, constant, prt, reads_sent, const_reads_sent, writes_sent,
                   atomics_sent, replies_received, access_stalls, fill_latency_sum, texture,
                   tex_reads_sent)
};

/// One L2 slice.
struct l2_slice_stats {
    cache_controller_stats cache{};
    std::uint64_t requests = 0; ///< taken from the network
    std::uint64_t reads = 0;    ///< line reads (data and constant)
    std::uint64_t writes = 0;
    std::uint64_t atomics = 0;
    std::uint64_t replies = 0;       ///< put on the network
    std::uint64_t dram_reads = 0;    ///< line fetches sent to the channel
    std::uint64_t dram_writes = 0;   ///< dirty lines written back to the channel
    std::uint64_t access_stalls = 0; ///< cycles the head request waited (no way, MSHR, queue)
    std::uint64_t reply_stalls = 0;  ///< cycles a reply waited for the network
    WARPKIT_FIELDS(l2_slice_stats, cache, requests, reads, writes, atomics, replies, dram_reads,
                   dram_writes, access_stalls, reply_stalls)
};

/// Traffic of one class (requests or replies) through the network.
struct noc_class_stats {
    std::uint64_t packets_injected = 0;
    std::uint64_t packets_ejected = 0;
    std::uint64_t flits_injected = 0;
    std::uint64_t flits_ejected = 0;
    std::uint64_t latency_sum = 0; ///< interconnect cycles from injection to ejection, summed
    WARPKIT_FIELDS(noc_class_stats, packets_injected, packets_ejected, flits_injected,
                   flits_ejected, latency_sum)
};

/// Mean packet latency in interconnect cycles; 0 before any packet.
[[nodiscard]] constexpr double mean_packet_latency(const noc_class_stats& s) noexcept {
    return s.packets_ejected == 0
               ? 0.0
               : static_cast<double>(s.latency_sum) / static_cast<double>(s.packets_ejected);
}

/// The network: traffic per class (request / reply subnet) and router activity of both.
struct noc_stats {
    noc_class_stats request{};
    noc_class_stats reply{};
    std::uint64_t router_traversals = 0;
    std::uint64_t link_traversals = 0;
    std::uint64_t buffer_writes = 0;
    std::uint64_t buffer_reads = 0;
    WARPKIT_FIELDS(noc_stats, request, reply, router_traversals, link_traversals, buffer_writes,
                   buffer_reads)
};

/// The memory hierarchy of one run (empty with the ideal memory model).
struct memory_stats {
    std::vector<sm_memory_stats> sms;
    std::vector<l2_slice_stats> slices;
    std::vector<mem::dram_stats> channels;
    noc_stats noc{};
    std::uint64_t interconnect_cycles = 0;
    std::uint64_t l2_cycles = 0;
    std::uint64_t dram_cycles = 0;
    WARPKIT_FIELDS(memory_stats, sms, slices, channels, noc, interconnect_cycles, l2_cycles,
                   dram_cycles)
};

} // namespace warpkit::gpu
