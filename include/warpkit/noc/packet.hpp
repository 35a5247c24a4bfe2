#pragma once
/// \file
/// `packet<Payload>`: what a network carries from one node to another (source, destination,
/// size in flits, request or reply class, an opaque payload, and the times the network
/// stamps on it), and `traffic_class`.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

namespace warpkit::noc {

/// A network endpoint (an SM, a memory partition, ...), numbered from 0.
using node_id = std::uint32_t;

/// Message class. Requests and replies may travel on separate subnets (paper 002) so that a
/// reply never waits behind a request (protocol deadlock).
enum class traffic_class : std::uint8_t { request, reply };
/// Number of traffic classes.
inline constexpr std::size_t traffic_class_count = 2;

/// A time not yet stamped.
inline constexpr std::uint64_t no_time = std::numeric_limits<std::uint64_t>::max();

/// One packet. The sender fills src, dst, flits, cls, payload and optionally created (the
/// cycle the message came to exist; left as no_time, the network stamps the injection
/// cycle). The network fills id, injected, ejected and hops.
template <class Payload = std::uint64_t>
struct packet {
    node_id src = 0;
    node_id dst = 0;
    std::uint32_t flits = 1; ///< size in flits (head and tail are the same flit when 1)
    traffic_class cls = traffic_class::request;
    Payload payload{};
    std::uint64_t created = no_time;  ///< cycle the packet was made (source queueing counts)
    std::uint64_t id = 0;             ///< unique per network, in injection order
    std::uint64_t injected = no_time; ///< cycle the head flit entered the network
    std::uint64_t ejected = no_time;  ///< cycle the tail flit reached the destination
    std::uint32_t hops = 0;           ///< routers traversed (BookSim's hops: links + 1)

    /// Creation to tail ejection (BookSim's packet latency).
    [[nodiscard]] constexpr std::uint64_t latency() const noexcept { return ejected - created; }
    /// Head injection to tail ejection (BookSim's network latency).
    [[nodiscard]] constexpr std::uint64_t network_latency() const noexcept {
        return ejected - injected;
    }
};

} // namespace warpkit::noc

template <>
struct warpkit::enum_names<warpkit::noc::traffic_class> {
    static constexpr std::array<std::string_view, 2> names = {"request", "reply"};
};
