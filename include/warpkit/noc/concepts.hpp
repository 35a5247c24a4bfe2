#pragma once
/// \file
/// The contracts of the network-on-chip area: networks and allocators.

#include <warpkit/noc/packet.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

namespace warpkit::noc {

// A cycle of a network: the caller injects packets made in cycle t (inject before tick),
// calls tick() once, then ejects; a packet ejected after the tick of cycle t carries
// ejected == t. A network never drops, duplicates, reorders the flits of a packet or alters
// a packet's src, dst, flits, cls or payload.
/// Moves packets between nodes: inject only when can_inject, eject only when can_eject.
template <class N>
concept network = requires(N& n, const N& cn, node_id node, typename N::packet_type p) {
    typename N::packet_type;
    { cn.nodes() } -> std::convertible_to<std::size_t>;
    { cn.now() } -> std::convertible_to<std::uint64_t>;
    { cn.can_inject(node) } -> std::convertible_to<bool>;
    n.inject(p);
    n.tick();
    { cn.can_eject(node) } -> std::convertible_to<bool>;
    { n.eject(node) } -> std::same_as<typename N::packet_type>;
    { cn.idle() } -> std::convertible_to<bool>;
};

/// Matches inputs to outputs from request masks: at most one output per input and one input
/// per output, only requested pairs; inputs already matched and outputs passed as taken stay out.
template <class A>
concept allocator = std::constructible_from<A, std::size_t, std::size_t, std::uint32_t> &&
    requires(A& a, std::span<const std::uint64_t> req, std::span<std::int32_t> match) {
    a.allocate(req, match);
    a.allocate(req, match, std::uint64_t{0});
};

} // namespace warpkit::noc
