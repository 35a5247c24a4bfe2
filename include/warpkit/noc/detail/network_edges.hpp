#pragma once
/// \file
/// `network_edges`: what the crossbar and the mesh share at their edges. Packets wait in
/// per-node, per-class source queues until the network takes them, and come out of per-node,
/// per-class ejection queues, classes taken in turn; each subnet keeps its own packet pool and
/// counters, and the network's counters are the subnets' summed.

#include <warpkit/core/error.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/detail/node_mask.hpp>
#include <warpkit/noc/detail/packet_pool.hpp>
#include <warpkit/noc/detail/queue_bank.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace warpkit::noc::detail {

/// The edge state of one subnet, kept alike by the crossbar and the mesh (their subnets derive
/// from it): the packets in flight, one source per node and class (`Source`: the network's
/// own, with at least `pkt`, `none` when it sends nothing, and `seq`, its next flit), the
/// class each node's interface tries first, the source and ejection queues, the ejection
/// slots reserved by packets on their way out, and the counters.
template <class Packet, class Source>
struct subnet_edges {
    packet_pool<Packet> packets; ///< packets anywhere in this subnet
    std::vector<Source> src;
    std::vector<std::uint32_t> src_rr;
    queue_bank<std::uint32_t> injq;
    queue_bank<std::uint32_t> ejq;
    std::vector<std::uint32_t> reserved;
    /// Nodes whose interface has a packet queued or under way (set by inject, cleared by
    /// offer_sources once the node has neither): the nodes a cycle must offer.
    node_mask sending;
    network_stats s;

    /// Sizes the edges for `nodes` nodes with `classes` classes each and `routers` routers.
    void resize_edges(std::size_t nodes, std::size_t classes, std::size_t routers,
                      std::size_t inject_queue_packets, std::size_t eject_queue_packets) {
        src.assign(nodes * classes, Source{});
        src_rr.assign(nodes, 0);
        injq = queue_bank<std::uint32_t>(nodes * classes, inject_queue_packets);
        ejq = queue_bank<std::uint32_t>(nodes * classes, eject_queue_packets);
        reserved.assign(nodes * classes, 0);
        sending.resize(nodes);
        s.nodes.assign(nodes, node_stats{});
        s.routers.assign(routers, router_stats{});
    }
};

/// CRTP base of a buffered network `Derived` carrying packet<Payload>. Derived befriends it and
/// provides `nets_` (a vector of subnets, each with `packets`, a packet_pool; `injq` and `ejq`,
/// queue_banks of packet slots indexed by qi(node, class); and `s`, its network_stats),
/// `nodes()`, `fits(flits)` (its own packet size limit), `step(subnet&)` (one cycle of one
/// subnet; true when it held a packet) and `after_tick()` (checks at the end of a cycle).
template <class Derived, class Payload>
class network_edges {
public:
    using packet_type = packet<Payload>;
    using stats_type = network_stats;

    [[nodiscard]] std::size_t subnets() const noexcept { return self().nets_.size(); }
    /// The cycle the next tick() simulates.
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }

    /// Counters summed over the subnets (cycles since construction or the last reset).
    [[nodiscard]] network_stats stats() const {
        const auto& nets = self().nets_;
        network_stats s = nets[0].s;
        for (std::size_t i = 1; i < nets.size(); ++i)
            accumulate(s, nets[i].s);
        s.cycles = now_ - stats_since_;
        return s;
    }
    /// Counters of one subnet (0: requests, 1: replies when there are two).
    [[nodiscard]] const network_stats& subnet_stats(std::size_t subnet) const {
        WARPKIT_EXPECTS(subnet < subnets());
        return self().nets_[subnet].s;
    }
    /// Restarts the counters from zero (packets in flight stay and count when they arrive).
    void reset_stats() {
        for (auto& n : self().nets_)
            reset_counters(n.s);
        stats_since_ = now_;
    }
    /// The subnet carrying class `c`.
    [[nodiscard]] std::size_t subnet_of(traffic_class c) const noexcept {
        return subnets() == 1 ? 0 : static_cast<std::size_t>(c);
    }

    /// True when `src`'s source queue for class `c` has room.
    [[nodiscard]] bool can_inject(node_id src,
                                  traffic_class c = traffic_class::request) const noexcept {
        if (src >= self().nodes() || static_cast<std::size_t>(c) >= classes) return false;
        return !self().nets_[subnet_of(c)].injq.full(qi(src, c));
    }
    /// Queues `pk` at its source (can_inject(pk.src, pk.cls), dst < nodes(), at least one
    /// flit and no more than the network takes); returns its id.
    std::uint64_t inject(packet_type pk) {
        WARPKIT_EXPECTS(can_inject(pk.src, pk.cls) && pk.dst < self().nodes() && pk.flits >= 1 &&
                        self().fits(pk.flits));
        auto& n = self().nets_[subnet_of(pk.cls)];
        if (pk.created == no_time) pk.created = now_;
        pk.id = next_id_++;
        pk.injected = no_time;
        pk.ejected = no_time;
        pk.hops = 0;
        const std::uint32_t slot = n.packets.put(std::move(pk));
        const auto& q = n.packets[slot];
        n.injq.push(qi(q.src, q.cls), slot);
        n.sending.set(q.src);
        return q.id;
    }

    /// Simulates one cycle; false when no subnet had anything to do (no packet, and in a
    /// credit-based network no credit on its way).
    bool tick() {
        bool busy = false;
        for (auto& n : self().nets_) {
            busy = self().step(n) || busy;
            ++n.s.cycles;
        }
        ++now_;
        self().after_tick();
        return busy;
    }

    /// True when a delivered packet of any class waits at `dst`.
    [[nodiscard]] bool can_eject(node_id dst) const noexcept {
        return can_eject(dst, traffic_class::request) || can_eject(dst, traffic_class::reply);
    }
    /// True when a delivered packet of class `c` waits at `dst`.
    [[nodiscard]] bool can_eject(node_id dst, traffic_class c) const noexcept {
        return dst < self().nodes() && !self().nets_[subnet_of(c)].ejq.empty(qi(dst, c));
    }
    /// The oldest delivered packet at `dst`, classes taken in turn (can_eject(dst) must hold).
    [[nodiscard]] packet_type eject(node_id dst) {
        WARPKIT_EXPECTS(can_eject(dst));
        auto c = static_cast<traffic_class>(eject_rr_[dst]);
        if (!can_eject(dst, c)) c = static_cast<traffic_class>(1 - eject_rr_[dst]);
        eject_rr_[dst] = static_cast<std::uint8_t>(1 - static_cast<unsigned>(c));
        return eject(dst, c);
    }
    /// The oldest delivered packet of class `c` at `dst`.
    [[nodiscard]] packet_type eject(node_id dst, traffic_class c) {
        WARPKIT_EXPECTS(can_eject(dst, c));
        auto& n = self().nets_[subnet_of(c)];
        const std::uint32_t slot = n.ejq.front(qi(dst, c));
        n.ejq.pop(qi(dst, c));
        return n.packets.take(slot);
    }
    /// True when no packet is queued, in flight or waiting to be ejected.
    [[nodiscard]] bool idle() const noexcept {
        for (const auto& n : self().nets_)
            if (n.packets.used() != 0) return false;
        return true;
    }

protected:
    static constexpr std::size_t classes = traffic_class_count;
    /// No packet (an empty source slot, a free channel).
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    /// Flit flags: the first and the last flit of a packet.
    static constexpr std::uint8_t head_flag = 1;
    static constexpr std::uint8_t tail_flag = 2;
    /// A flit on a wire or in a pipeline, usable from cycle `due` on.
    template <class Flit>
    struct timed {
        std::uint64_t due = 0;
        Flit f;
    };
    /// Whether flit `f` is the first of its packet.
    template <class Flit>
    [[nodiscard]] static bool is_head(const Flit& f) noexcept {
        return (f.flags & head_flag) != 0;
    }
    /// Whether flit `f` is the last of its packet.
    template <class Flit>
    [[nodiscard]] static bool is_tail(const Flit& f) noexcept {
        return (f.flags & tail_flag) != 0;
    }
    /// A node interface's source for one class: the packet it sends (`none`: it sends
    /// nothing) and the packet's next flit.
    struct source_state {
        std::uint32_t pkt = none;
        std::uint32_t seq = 0;
    };
    /// Index of node `n`'s queue for class `c` in injq and ejq.
    [[nodiscard]] static std::size_t qi(node_id n, traffic_class c) noexcept {
        return std::size_t{n} * classes + static_cast<std::size_t>(c);
    }
    /// Sizes the per-node state of the edges (call once the node count is known).
    void size_edges(std::size_t nodes) { eject_rr_.assign(nodes, 0); }
    /// The flags of flit `seq` of a packet of `flits` flits.
    [[nodiscard]] static std::uint8_t flit_flags(std::uint32_t seq, std::uint32_t flits) noexcept {
        return static_cast<std::uint8_t>((seq == 0 ? head_flag : 0) |
                                         (seq + 1 == flits ? tail_flag : 0));
    }
    /// Counts flit `seq` of `pk` leaving `node`'s interface, and with its first flit the packet.
    void count_sent(network_stats& s, node_id node, packet_type& pk, std::uint32_t seq) const {
        count_injected_flits(s, node);
        if (seq == 0) {
            pk.injected = now_;
            count_injected_packet(s, node);
        }
    }
    /// Offers `node`'s sources to the network, classes in turn from the one after the last that
    /// sent: a source with no packet takes the next one from its queue, then
    /// `send(queue_index, source)` moves at most one flit of it and says whether it did. The
    /// first source that sends ends the turn and the next turn starts after its class. A node
    /// left with no packet queued or under way leaves `n.sending`.
    template <class Subnet, class Send>
    void offer_sources(Subnet& n, node_id node, Send&& send) {
        offer_sources_(n, node, send);
        bool left = false;
        for (std::size_t c = 0; c < classes; ++c) {
            const std::size_t e = std::size_t{node} * classes + c;
            left = left || n.src[e].pkt != none || !n.injq.empty(e);
        }
        if (!left) n.sending.reset(node);
    }

    std::uint64_t now_ = 0;
    std::uint64_t next_id_ = 0;

private:
    template <class Subnet, class Send>
    void offer_sources_(Subnet& n, node_id node, Send& send) {
        for (std::size_t k = 0; k < classes; ++k) {
            std::size_t c = n.src_rr[node] + k;
            if (c >= classes) c -= classes;
            const std::size_t e = std::size_t{node} * classes + c;
            auto& st = n.src[e];
            if (st.pkt == none) {
                if (n.injq.empty(e)) continue;
                st = {};
                st.pkt = n.injq.front(e);
                n.injq.pop(e);
            }
            if (!send(e, st)) continue;
            n.src_rr[node] = static_cast<std::uint32_t>(c + 1 == classes ? 0 : c + 1);
            return;
        }
    }

    [[nodiscard]] Derived& self() noexcept { return static_cast<Derived&>(*this); }
    [[nodiscard]] const Derived& self() const noexcept {
        return static_cast<const Derived&>(*this);
    }

    std::vector<std::uint8_t> eject_rr_; ///< class to try first at each node's ejection
    std::uint64_t stats_since_ = 0;      ///< now_ at the last reset_stats()
};

} // namespace warpkit::noc::detail
