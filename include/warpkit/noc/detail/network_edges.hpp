#pragma once
/// \file
/// `network_edges`: what the crossbar and the mesh share at their edges. Packets wait in
/// per-node, per-class source queues until the network takes them, and come out of per-node,
/// per-class ejection queues, classes taken in turn; each subnet keeps its own packet pool and
/// counters, and the network's counters are the subnets' summed.

#include <warpkit/core/error.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace warpkit::noc::detail {

/// CRTP base of a buffered network `Derived` carrying packet<Payload>. Derived befriends it and
/// provides `nets_` (a vector of subnets, each with `packets`, a packet_pool; `injq` and `ejq`,
/// queue_banks of packet slots indexed by qi(node, class); and `s`, its network_stats),
/// `nodes()`, `fits(flits)` (its own packet size limit), `step(subnet&)` (one cycle of one
/// subnet; true when it held a packet) and `after_tick()` (checks at the end of a cycle).
template <class Derived, class Payload>
class network_edges {
public:
    using packet_type = packet<Payload>;

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
    /// Index of node `n`'s queue for class `c` in injq and ejq.
    [[nodiscard]] static std::size_t qi(node_id n, traffic_class c) noexcept {
        return std::size_t{n} * classes + static_cast<std::size_t>(c);
    }
    /// Sizes the per-node state of the edges (call once the node count is known).
    void size_edges(std::size_t nodes) { eject_rr_.assign(nodes, 0); }

    std::uint64_t now_ = 0;
    std::uint64_t next_id_ = 0;

private:
    [[nodiscard]] Derived& self() noexcept { return static_cast<Derived&>(*this); }
    [[nodiscard]] const Derived& self() const noexcept {
        return static_cast<const Derived&>(*this);
    }

    std::vector<std::uint8_t> eject_rr_; ///< class to try first at each node's ejection
    std::uint64_t stats_since_ = 0;      ///< now_ at the last reset_stats()
};

} // namespace warpkit::noc::detail
