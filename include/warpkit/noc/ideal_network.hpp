#pragma once
/// \file
/// `ideal_network`: a "perfect NoC" (paper 002, Figure 3b): every packet reaches its
/// destination a fixed number of cycles after injection (0 by default), with unbounded
/// bandwidth and no contention.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/detail/ring.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::noc {

/// Shape of an ideal network. Defaults: the 56 nodes of paper 002's machine (48 SMs and 8
/// memory controllers) and zero latency.
struct ideal_params {
    std::uint32_t nodes = 56;
    std::uint32_t latency = 0; ///< cycles from injection to ejection
    WARPKIT_FIELDS(ideal_params, nodes, latency)

    void validate() const {
        check_range("nodes", nodes, 1u, 1u << 20);
        check_range("latency", latency, 0u, 1u << 20);
    }
};

/// Delivers each packet `latency` cycles after its injection whatever the load. Queues grow
/// as needed (they stop allocating once the largest backlog has been seen).
template <class Payload = std::uint64_t>
class ideal_network {
public:
    using packet_type = packet<Payload>;
    using params_type = ideal_params;
    using stats_type = network_stats;

    explicit ideal_network(const ideal_params& p = {}) : p_(validated(p)), eject_(p_.nodes) {
        s_.nodes.resize(p_.nodes);
    }

    [[nodiscard]] const ideal_params& params() const noexcept { return p_; }
    [[nodiscard]] const network_stats& stats() const noexcept { return s_; }
    /// Restarts the counters from zero (packets in flight stay and count when they arrive).
    void reset_stats() { reset_counters(s_); }
    [[nodiscard]] std::size_t nodes() const noexcept { return p_.nodes; }
    /// The cycle the next tick() simulates.
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }

    /// True for every node and class: the ideal network has unbounded bandwidth.
    [[nodiscard]] bool can_inject(node_id src,
                                  traffic_class c = traffic_class::request) const noexcept {
        return src < p_.nodes && static_cast<std::size_t>(c) < traffic_class_count;
    }
    /// Sends `pk` (src, dst < nodes(), flits >= 1); returns its id.
    std::uint64_t inject(packet_type pk) {
        WARPKIT_EXPECTS(can_inject(pk.src, pk.cls) && pk.dst < p_.nodes && pk.flits >= 1);
        if (pk.created == no_time) pk.created = now_;
        pk.id = next_id_++;
        pk.injected = now_;
        pk.hops = 0;
        count_injected_packet(s_, pk.src);
        count_injected_flits(s_, pk.src, pk.flits);
        const std::uint64_t id = pk.id;
        in_flight_.push_back(std::move(pk));
        return id;
    }
    /// Delivers the packets due in this cycle, then advances to the next cycle.
    bool tick() {
        const bool busy = !in_flight_.empty();
        while (!in_flight_.empty() && in_flight_.front().injected + p_.latency <= now_) {
            packet_type pk = in_flight_.take_front();
            pk.ejected = now_;
            count_ejected_flits(s_, pk.dst, pk.flits);
            count_delivered_packet(s_, pk.dst, pk);
            eject_[pk.dst].push_back(std::move(pk));
        }
        ++now_;
        ++s_.cycles;
        return busy;
    }
    [[nodiscard]] bool can_eject(node_id dst) const noexcept {
        return dst < p_.nodes && !eject_[dst].empty();
    }
    /// The oldest delivered packet for `dst` (can_eject(dst) must hold).
    [[nodiscard]] packet_type eject(node_id dst) {
        WARPKIT_EXPECTS(can_eject(dst));
        return eject_[dst].take_front();
    }
    /// True when no packet is in flight or waiting to be ejected.
    [[nodiscard]] bool idle() const noexcept {
        if (!in_flight_.empty()) return false;
        for (const auto& q : eject_)
            if (!q.empty()) return false;
        return true;
    }

private:
    ideal_params p_;
    detail::ring<packet_type> in_flight_{64};
    std::vector<detail::ring<packet_type>> eject_;
    network_stats s_;
    std::uint64_t now_ = 0;
    std::uint64_t next_id_ = 0;
};

} // namespace warpkit::noc
