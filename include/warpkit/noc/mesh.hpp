#pragma once
/// \file
/// `mesh`: a 2-D mesh (k x k or rectangular) of input-queued virtual-channel routers with
/// a choice of minimal routing (XY, YX, west-first, odd-even, O1TURN), wormhole switching,
/// credit-based flow control, iSLIP-style separable VC and switch allocators, a router pipeline
/// whose stage delays are parameters (routing, VC allocation, switch allocation, switch traversal,
/// link), speculative allocation for 2-stage routers, request/reply subnets, source and ejection
/// queues, and router bypass (paper 002). Timing follows BookSim 2: with its default router a
/// packet of F flits crossing L links has a zero-load latency of 7 + 5 L + (F - 1) cycles.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/allocator.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/detail/network_edges.hpp>
#include <warpkit/noc/detail/packet_pool.hpp>
#include <warpkit/noc/detail/queue_bank.hpp>
#include <warpkit/noc/mesh_params.hpp>
#include <warpkit/noc/mesh_routing.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::noc {

// Timing (cycle t is the cycle a tick() simulates): a flit that arrives at a router in cycle
// T is written into its input VC buffer in T; a head flit is routed in [T, T + routing), then
// requests VC allocation; after winning a VC in cycle A it requests the switch from
// A + vc_alloc (from A itself when speculative); a flit winning the switch in cycle X
// leaves the buffer (its credit arrives upstream in X + sw_alloc + credit + link), traverses
// the switch and the link and arrives downstream in X + sw_alloc + st + link. A node's
// interface sends the flit of a packet made in cycle t in t (if it has a credit); it reaches
// the router in t + 1 + link. A tail flit reaching a node in cycle e ejects its packet in e.

/// Mesh network carrying packet<Payload>; `Alloc` (islip or round_robin) allocates VCs and
/// the switch of every router.
template <class Payload = std::uint64_t, allocator Alloc = islip>
class mesh : public detail::network_edges<mesh<Payload, Alloc>, Payload> {
    using edges = detail::network_edges<mesh, Payload>;
    friend edges;

public:
    using packet_type = packet<Payload>;
    using params_type = mesh_params;

    explicit mesh(const mesh_params& p = {})
        : p_(validated(p)), t_(build_mesh_topology(p_.cols, p_.rows, p_.bypass, p_.routing)) {
        build();
    }

    [[nodiscard]] const mesh_params& params() const noexcept { return p_; }
    [[nodiscard]] const mesh_topology& topology() const noexcept { return t_; }
    [[nodiscard]] std::size_t nodes() const noexcept { return t_.nodes; }

    // ---- inspection (tests, debugging, power models) ------------------------------------
    /// Ports per router (4 directions, then local ports).
    [[nodiscard]] std::uint32_t ports() const noexcept { return ports_; }
    /// Output port router `r` uses for packets to `dst`: the dimension-order route (YX for
    /// `yx`, else XY: o1turn's XY packets, and the adaptive policies' choice on ties).
    [[nodiscard]] std::uint32_t route(std::uint32_t r, node_id dst) const {
        WARPKIT_EXPECTS(r < t_.routers && dst < t_.nodes && t_.enabled[r] != 0);
        return t_.route[std::size_t{r} * t_.nodes + dst];
    }
    /// True when output `o` of router `r` leads somewhere.
    [[nodiscard]] bool output_connected(std::uint32_t r, std::uint32_t o) const {
        WARPKIT_EXPECTS(r < t_.routers && o < ports_);
        return t_.enabled[r] != 0 && down_[std::size_t{r} * ports_ + o] != none;
    }
    /// Credits router `r` holds for VC `vc` of the buffer behind its output `o`.
    [[nodiscard]] std::uint32_t output_credits(std::size_t subnet, std::uint32_t r, std::uint32_t o,
                                               std::uint32_t vc) const {
        return nets_.at(subnet).ovc_credits[ovc(r, o, vc)];
    }
    /// True when output VC `vc` of port `o` of router `r` is not held by a packet.
    [[nodiscard]] bool output_vc_free(std::size_t subnet, std::uint32_t r, std::uint32_t o,
                                      std::uint32_t vc) const {
        return (nets_.at(subnet).ovc_free[std::size_t{r} * ports_ + o] >> vc & 1u) != 0;
    }
    /// Flits in input VC `vc` of port `p` of router `r`.
    [[nodiscard]] std::uint32_t input_occupancy(std::size_t subnet, std::uint32_t r,
                                                std::uint32_t p, std::uint32_t vc) const {
        return nets_.at(subnet).buf.size(ovc(r, p, vc));
    }
    /// True when input VC `vc` of port `p` of router `r` holds no packet.
    [[nodiscard]] bool input_vc_idle(std::size_t subnet, std::uint32_t r, std::uint32_t p,
                                     std::uint32_t vc) const {
        return nets_.at(subnet).ivc[ovc(r, p, vc)].state == idle_state;
    }
    /// The output port the packet in input VC `vc` of port `p` of router `r` was routed to
    /// (ports() when the VC is idle): the turns adaptive packets take, one router at a time.
    [[nodiscard]] std::uint32_t input_vc_route(std::size_t subnet, std::uint32_t r, std::uint32_t p,
                                               std::uint32_t vc) const {
        const ivc_state& st = nets_.at(subnet).ivc[ovc(r, p, vc)];
        return st.state == idle_state ? ports_ : st.out_port;
    }
    /// Flits of VC `vc` on the channel into input port `p` of router `r`.
    [[nodiscard]] std::uint32_t channel_flits(std::size_t subnet, std::uint32_t r, std::uint32_t p,
                                              std::uint32_t vc) const {
        return count_vc(nets_.at(subnet).chan, std::size_t{r} * ports_ + p, vc);
    }
    /// Credits of VC `vc` on their way back to output port `o` of router `r`.
    [[nodiscard]] std::uint32_t channel_credits(std::size_t subnet, std::uint32_t r,
                                                std::uint32_t o, std::uint32_t vc) const {
        return count_vc(nets_.at(subnet).cred, std::size_t{r} * ports_ + o, vc);
    }
    /// Credits node `n`'s interface holds for VC `vc` of its router's input buffer.
    [[nodiscard]] std::uint32_t source_credits(std::size_t subnet, node_id n,
                                               std::uint32_t vc) const {
        return nets_.at(subnet).src_credits[std::size_t{n} * vcs_ + vc];
    }
    /// Credits of VC `vc` on their way back to node `n`'s interface.
    [[nodiscard]] std::uint32_t source_channel_credits(std::size_t subnet, node_id n,
                                                       std::uint32_t vc) const {
        return count_vc(nets_.at(subnet).cred, router_ports_ + n, vc);
    }
    /// Flits of VC `vc` on the channel into node `n`'s interface.
    [[nodiscard]] std::uint32_t sink_channel_flits(std::size_t subnet, node_id n,
                                                   std::uint32_t vc) const {
        return count_vc(nets_.at(subnet).chan, router_ports_ + n, vc);
    }
    /// Flits of VC `vc` waiting in node `n`'s ejection buffer.
    [[nodiscard]] std::uint32_t sink_occupancy(std::size_t subnet, node_id n,
                                               std::uint32_t vc) const {
        return nets_.at(subnet).sink.size(std::size_t{n} * vcs_ + vc);
    }

    /// The credit law, on every VC of every channel (router outputs and node interfaces):
    /// the credits the sender holds, the flits on the channel, the flits in the receiver's
    /// buffer and the credits on their way back make exactly one buffer, and the sender
    /// never holds more than a buffer. Returns how many VCs break it (0 in every cycle).
    [[nodiscard]] std::uint64_t credit_violations() const {
        std::uint64_t bad = 0;
        const auto law = [&](std::uint32_t held, std::uint32_t down, std::uint32_t back) {
            if (held > vc_buffer_flits_ || held + down + back != vc_buffer_flits_) ++bad;
        };
        for (const auto& n : nets_) {
            for (std::size_t out = 0; out < router_ports_; ++out) {
                const std::uint32_t to = down_[out];
                if (to == none || t_.enabled[out / ports_] == 0) continue;
                for (std::uint32_t v = 0; v < vcs_; ++v) {
                    const std::uint32_t kept = to < router_ports_
                                                   ? n.buf.size(std::size_t{to} * vcs_ + v)
                                                   : n.sink.size((to - router_ports_) * vcs_ + v);
                    law(n.ovc_credits[out * vcs_ + v], count_vc(n.chan, to, v) + kept,
                        count_vc(n.cred, out, v));
                }
            }
            for (node_id i = 0; i < nodes_; ++i) {
                const std::size_t to = std::size_t{t_.host[i]} * ports_ + t_.local[i];
                for (std::uint32_t v = 0; v < vcs_; ++v)
                    law(n.src_credits[std::size_t{i} * vcs_ + v],
                        count_vc(n.chan, to, v) + n.buf.size(to * vcs_ + v),
                        count_vc(n.cred, router_ports_ + i, v));
            }
        }
        return bad;
    }

private:
    using edges::none;
    using edges::now_;
    using edges::qi;
    static constexpr std::size_t C = edges::classes;

    // Hooks of the edges: the largest packet taken, and checks at the end of a cycle.
    [[nodiscard]] bool fits(std::uint32_t flits) const noexcept { return flits <= 65535; }
    void after_tick() {
        if (!p_.check_credits) return;
        const std::uint64_t bad = credit_violations();
        if (bad != 0)
            throw sim_error("mesh: credit law broken on " + std::to_string(bad) +
                            " virtual channels after cycle " + std::to_string(now_ - 1));
    }

    static constexpr std::uint8_t idle_state = 0;
    static constexpr std::uint8_t vc_alloc_state = 1;
    static constexpr std::uint8_t active_state = 2;

    struct flit {
        std::uint32_t pkt = 0;
        std::uint16_t seq = 0;
        std::uint8_t vc = 0;
        std::uint8_t flags = 0;
    };
    // On a channel, flits and credits carry the low 32 bits of the cycle they arrive in
    // (arrived() compares them): everything on a channel is due within the channel's depth
    // and leaves it in its due cycle, so the difference from now_ is small.
    struct timed_flit {
        std::uint32_t due = 0;
        flit f;
    };
    struct timed_credit {
        std::uint32_t due = 0;
        std::uint32_t vc = 0;
    };
    /// A channel time for cycle `t`.
    [[nodiscard]] static std::uint32_t due_at(std::uint64_t t) noexcept {
        return static_cast<std::uint32_t>(t);
    }
    /// True when something due in `due` (a channel time) has arrived by now_.
    [[nodiscard]] bool arrived(std::uint32_t due) const noexcept {
        return static_cast<std::int32_t>(due - due_at(now_)) <= 0;
    }
    struct ivc_state {
        std::uint8_t state = idle_state;
        std::uint8_t out_port = 0;
        std::uint8_t out_vc = 0;
        std::uint8_t vcs = 0; ///< the packet's VC set (class_mask_ index)
    };
    struct source_state : edges::source_state {
        std::int32_t vc = -1; ///< the VC the packet holds, -1 until it has one
    };
    struct fabric : detail::subnet_edges<packet_type, source_state> {
        std::uint64_t credits = 0;             ///< credits on their way back
        detail::queue_bank<timed_flit> chan;   ///< into router inputs, then node sinks
        detail::queue_bank<timed_credit> cred; ///< into router outputs, then node sources
        detail::queue_bank<flit> buf;          ///< router input VCs
        std::vector<ivc_state> ivc;
        std::vector<std::uint32_t> ovc_credits;
        std::vector<std::uint32_t> ovc_free; ///< per router output: mask of free VCs
        std::vector<std::uint32_t> router_flits;
        // Arrivals by cycle, per router: word (t % wheel_slots_) * routers_ + r has bit p
        // set when a flit (a credit) on the channel into port p of router r is due in cycle
        // t; router_step drains just these channels (in port order, as a scan of all would).
        // Every delay is below wheel_slots_, so a slot is cleared (in its cycle) before it is
        // used for a later one.
        std::vector<std::uint64_t> flits_due;
        std::vector<std::uint64_t> credits_due;
        // The same for node interfaces: word (t % wheel_slots_) * node_words_ + i / 64 has
        // bit i % 64 set when a flit (a credit) reaches node i in cycle t.
        std::vector<std::uint64_t> sink_flits_due;
        std::vector<std::uint64_t> source_credits_due;
        // Per router, ivc_words_ words each, bit k for input VC k (port k / vcs_, VC
        // k % vcs_) of the router, kept equal to what they summarize so that the allocators
        // visit only the VCs with something to do, in ascending order as a scan would:
        /// ivc[].state == vc_alloc_state, and the packet's routing delay is over
        std::vector<std::uint64_t> waiting_vc;
        /// ivc[].state == active_state, and the VC allocation delay is over
        std::vector<std::uint64_t> active_vc;
        std::vector<std::uint64_t> buffered_vc; ///< !buf.empty()
        // The VCs that join waiting_vc (active_vc) in cycle t: words
        // ((t % stage_slots_) * routers_ + r) * ivc_words_ on for router r. Every stage delay
        // is below stage_slots_, and router_step moves a slot's bits in the slot's cycle (a
        // pending bit belongs to a packet in flight, so step() never skips that cycle). A tail
        // sent speculatively, before its VC joined active_vc, takes it back out (traverse).
        std::vector<std::uint64_t> routed_soon;
        std::vector<std::uint64_t> allocated_soon;
        std::vector<Alloc> va; ///< per router output
        std::vector<Alloc> sa; ///< per router
        /// Per router input: the VC to serve first (may be vcs_, which first_from takes as 0).
        std::vector<std::uint32_t> vc_ptr;
        detail::queue_bank<flit> sink;       ///< node ejection buffers, per VC
        std::vector<std::uint32_t> sink_vcs; ///< per node: mask of its non-empty sink buffers
        std::vector<std::uint32_t> sink_rr;  ///< per node: the VC the interface drains first
        std::vector<std::uint32_t> src_credits;
        std::vector<std::uint8_t> src_busy;
        std::vector<std::uint32_t> src_last_vc;
    };

    [[nodiscard]] std::size_t ovc(std::uint32_t r, std::uint32_t port, std::uint32_t vc) const {
        WARPKIT_EXPECTS(r < t_.routers && port < ports_ && vc < vcs_);
        return (std::size_t{r} * ports_ + port) * vcs_ + vc;
    }
    template <class Bank>
    [[nodiscard]] static std::uint32_t count_vc(const Bank& b, std::size_t q, std::uint32_t vc) {
        std::uint32_t k = 0;
        for (std::uint32_t i = 0; i < b.size(q); ++i) {
            const auto& e = b.at(q, i);
            if constexpr (requires { e.f; })
                k += e.f.vc == vc ? 1u : 0u;
            else
                k += e.vc == vc ? 1u : 0u;
        }
        return k;
    }

    void build() {
        ports_ = t_.ports;
        vcs_ = p_.num_vcs;
        vc_buffer_flits_ = p_.vc_buf_size;
        routers_ = t_.routers;
        nodes_ = t_.nodes;
        router_ports_ = std::size_t{routers_} * ports_;
        switch_traversal_ = p_.st_prepare_delay + p_.st_final_delay;
        const std::uint32_t all = vcs_ == 32 ? ~0u : (1u << vcs_) - 1;
        class_mask_ = detail::routing_vc_masks(p_.routing, vcs_, p_.split_vcs);
        // Channels: where each router output leads and who feeds each router input.
        down_.assign(router_ports_, none);
        down_lat_.assign(router_ports_, 0);
        down_bypassed_.assign(router_ports_, 0);
        up_.assign(router_ports_, none);
        up_lat_.assign(router_ports_, 0);
        std::uint32_t max_lat = p_.link_latency;
        for (std::uint32_t r = 0; r < routers_; ++r) {
            if (t_.enabled[r] == 0) continue;
            for (std::uint32_t o = 0; o < ports_; ++o) {
                const std::size_t i = std::size_t{r} * ports_ + o;
                if (o < detail::dirs) {
                    const std::int32_t q = t_.neighbor[std::size_t{r} * detail::dirs + o];
                    if (q < 0) continue;
                    const std::uint32_t b = t_.bypassed[std::size_t{r} * detail::dirs + o];
                    const std::uint32_t lat = p_.link_latency * (1 + b) + p_.bypass_delay * b;
                    max_lat = lat > max_lat ? lat : max_lat;
                    down_[i] = static_cast<std::uint32_t>(q) * ports_ + (o ^ 1u);
                    down_lat_[i] = lat;
                    down_bypassed_[i] = b;
                    up_[i] = static_cast<std::uint32_t>(q) * ports_ + (o ^ 1u);
                    up_lat_[i] = lat;
                } else {
                    const std::int32_t n = t_.port_node[i];
                    if (n < 0) continue;
                    down_[i] =
                        static_cast<std::uint32_t>(router_ports_) + static_cast<std::uint32_t>(n);
                    down_lat_[i] = p_.link_latency;
                    up_[i] =
                        static_cast<std::uint32_t>(router_ports_) + static_cast<std::uint32_t>(n);
                    up_lat_[i] = p_.link_latency;
                }
            }
        }
        const std::size_t depth =
            std::size_t{p_.sw_alloc_delay} + switch_traversal_ + p_.credit_delay + max_lat + 3;
        const std::size_t ivcs = router_ports_ * vcs_;
        const std::size_t pv = std::size_t{ports_} * vcs_;
        ivc_words_ = (pv + 63) / 64;
        wheel_slots_ = std::bit_ceil(depth);
        node_words_ = (std::size_t{nodes_} + 63) / 64;
        adaptive_ = p_.routing == mesh_routing::west_first || p_.routing == mesh_routing::odd_even;
        // A packet waits routing_delay (+ 1 behind another) cycles for VC allocation, then
        // vc_alloc_delay for the switch.
        stage_slots_ = std::bit_ceil(std::max<std::size_t>(std::size_t{p_.routing_delay} + 2,
                                                           std::size_t{p_.vc_alloc_delay} + 1));
        end_router_.resize(router_ports_);
        end_port_.resize(router_ports_);
        for (std::size_t e = 0; e < router_ports_; ++e) {
            end_router_[e] = static_cast<std::uint32_t>(e / ports_);
            end_port_[e] = static_cast<std::uint32_t>(e % ports_);
        }
        nets_.resize(p_.subnets);
        for (auto& n : nets_) {
            n.chan = detail::queue_bank<timed_flit>(router_ports_ + nodes_, depth);
            n.cred = detail::queue_bank<timed_credit>(router_ports_ + nodes_, depth);
            n.buf = detail::queue_bank<flit>(ivcs, vc_buffer_flits_);
            n.ivc.assign(ivcs, ivc_state{});
            n.ovc_credits.assign(ivcs, vc_buffer_flits_);
            n.ovc_free.assign(router_ports_, all);
            n.router_flits.assign(routers_, 0);
            n.flits_due.assign(wheel_slots_ * routers_, 0);
            n.credits_due.assign(wheel_slots_ * routers_, 0);
            n.sink_flits_due.assign(wheel_slots_ * node_words_, 0);
            n.source_credits_due.assign(wheel_slots_ * node_words_, 0);
            n.sink_vcs.assign(nodes_, 0);
            n.waiting_vc.assign(std::size_t{routers_} * ivc_words_, 0);
            n.active_vc.assign(std::size_t{routers_} * ivc_words_, 0);
            n.buffered_vc.assign(std::size_t{routers_} * ivc_words_, 0);
            n.routed_soon.assign(stage_slots_ * routers_ * ivc_words_, 0);
            n.allocated_soon.assign(stage_slots_ * routers_ * ivc_words_, 0);
            n.va.clear();
            n.va.reserve(router_ports_);
            for (std::size_t i = 0; i < router_ports_; ++i)
                n.va.emplace_back(std::size_t{ports_} * vcs_, std::size_t{vcs_}, p_.alloc_iters);
            n.sa.clear();
            n.sa.reserve(routers_);
            for (std::size_t i = 0; i < routers_; ++i)
                n.sa.emplace_back(std::size_t{ports_}, std::size_t{ports_}, p_.alloc_iters);
            n.vc_ptr.assign(router_ports_, 0);
            n.sink = detail::queue_bank<flit>(std::size_t{nodes_} * vcs_, vc_buffer_flits_);
            n.sink_rr.assign(nodes_, 0);
            n.src_credits.assign(std::size_t{nodes_} * vcs_, vc_buffer_flits_);
            n.src_busy.assign(std::size_t{nodes_} * vcs_, 0);
            n.src_last_vc.assign(std::size_t{nodes_} * C, vcs_ - 1);
            n.resize_edges(nodes_, C, routers_, p_.inject_queue_packets, p_.eject_queue_packets);
        }
        this->size_edges(nodes_);
        va_req_.assign(std::size_t{ports_} * pv, 0);
        va_match_.assign(pv, -1);
        va_in_.assign(std::size_t{ports_} * pv, 0);
        va_count_.assign(ports_, 0);
        sa_req_.assign(ports_, 0);
        spec_req_.assign(ports_, 0);
        sa_match_.assign(ports_, -1);
        sa_in_.assign(ports_, 0);
        ivc_port_.resize(pv);
        ivc_vc_.resize(pv);
        for (std::size_t k = 0; k < pv; ++k) {
            ivc_port_[k] = static_cast<std::uint8_t>(k / vcs_);
            ivc_vc_[k] = static_cast<std::uint8_t>(k % vcs_);
        }
        sa_vc_.assign(std::size_t{ports_} * ports_, 0);
        spec_vc_.assign(std::size_t{ports_} * ports_, 0);
    }

    bool step(fabric& n) {
        if (n.packets.used() == 0 && n.credits == 0) return false;
        const std::size_t row = (now_ & (wheel_slots_ - 1)) * node_words_;
        for (node_id i = 0; i < nodes_; ++i) {
            const std::size_t w = row + i / 64;
            const std::uint64_t bit = std::uint64_t{1} << (i % 64);
            sink_step(n, i, (n.sink_flits_due[w] & bit) != 0);
            source_step(n, i, (n.source_credits_due[w] & bit) != 0);
        }
        for (std::size_t w = row; w < row + node_words_; ++w) {
            n.sink_flits_due[w] = 0;
            n.source_credits_due[w] = 0;
        }
        for (std::uint32_t r = 0; r < routers_; ++r)
            if (t_.enabled[r] != 0) router_step(n, r);
        return true;
    }

    // Channel endpoints below router_ports_ belong to routers; the rest to node interfaces.
    void send_flit(fabric& n, std::size_t to, const timed_flit& f) {
        n.chan.push(to, f);
        if (to < router_ports_)
            mark_due(n.flits_due, to, f.due);
        else
            mark_node_due(n.sink_flits_due, to - router_ports_, f.due);
    }
    void send_credit(fabric& n, std::size_t to, const timed_credit& c) {
        n.cred.push(to, c);
        ++n.credits;
        if (to < router_ports_)
            mark_due(n.credits_due, to, c.due);
        else
            mark_node_due(n.source_credits_due, to - router_ports_, c.due);
    }
    /// Notes in `wheel` (fabric::sink_flits_due or source_credits_due) that something
    /// reaches node `i` in cycle `due`.
    void mark_node_due(std::vector<std::uint64_t>& wheel, std::size_t i, std::uint32_t due) {
        wheel[(due & (wheel_slots_ - 1)) * node_words_ + i / 64] |= std::uint64_t{1} << (i % 64);
    }
    /// Notes in `wheel` (fabric::flits_due or credits_due) that something reaches router
    /// input (output) `to` in cycle `due`.
    void mark_due(std::vector<std::uint64_t>& wheel, std::size_t to, std::uint32_t due) {
        wheel[(due & (wheel_slots_ - 1)) * routers_ + end_router_[to]] |= std::uint64_t{1}
                                                                          << end_port_[to];
    }

    // ---- input VC masks (fabric::waiting_vc, active_vc, buffered_vc) ---------------------
    // Input VC k of router r is bit k % 64 of word r * ivc_words_ + k / 64.
    void set_vc(std::vector<std::uint64_t>& mask, std::uint32_t r, std::size_t k) const noexcept {
        mask[std::size_t{r} * ivc_words_ + k / 64] |= std::uint64_t{1} << (k % 64);
    }
    void clear_vc(std::vector<std::uint64_t>& mask, std::uint32_t r, std::size_t k) const noexcept {
        mask[std::size_t{r} * ivc_words_ + k / 64] &= ~(std::uint64_t{1} << (k % 64));
    }
    /// Puts input VC k of router r into `mask` (waiting_vc, active_vc) from cycle `ready`:
    /// now when it has come, else through `soon` (routed_soon, allocated_soon).
    void enter_stage(std::vector<std::uint64_t>& mask, std::vector<std::uint64_t>& soon,
                     std::uint32_t r, std::size_t k, std::uint64_t ready) const noexcept {
        if (ready <= now_) {
            set_vc(mask, r, k);
            return;
        }
        const std::size_t row = ((ready & (stage_slots_ - 1)) * routers_ + r) * ivc_words_;
        soon[row + k / 64] |= std::uint64_t{1} << (k % 64);
    }
    /// Takes input VC k of router r back out of `soon` for cycle `ready`.
    void leave_stage(std::vector<std::uint64_t>& soon, std::uint32_t r, std::size_t k,
                     std::uint64_t ready) const noexcept {
        const std::size_t row = ((ready & (stage_slots_ - 1)) * routers_ + r) * ivc_words_;
        soon[row + k / 64] &= ~(std::uint64_t{1} << (k % 64));
    }
    /// Moves this cycle's slot of `soon` for router r into `mask`.
    void stage_due(std::vector<std::uint64_t>& mask, std::vector<std::uint64_t>& soon,
                   std::uint32_t r) const noexcept {
        const std::size_t row = ((now_ & (stage_slots_ - 1)) * routers_ + r) * ivc_words_;
        for (std::size_t w = 0; w < ivc_words_; ++w) {
            mask[std::size_t{r} * ivc_words_ + w] |= soon[row + w];
            soon[row + w] = 0;
        }
    }
    /// Calls f(k) for every input VC k of router `r` set in both `a` and `b`, ascending.
    template <class F>
    void for_each_vc(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                     std::uint32_t r, F&& f) const {
        const std::size_t w0 = std::size_t{r} * ivc_words_;
        for (std::size_t w = 0; w < ivc_words_; ++w)
            for (std::uint64_t m = a[w0 + w] & b[w0 + w]; m != 0; m &= m - 1)
                f(w * 64 + static_cast<std::size_t>(std::countr_zero(m)));
    }

    // ---- node interfaces ----------------------------------------------------------------
    void sink_step(fabric& n, node_id node, bool flits_due) {
        const std::size_t ci = router_ports_ + node;
        while (flits_due && !n.chan.empty(ci) && arrived(n.chan.front(ci).due)) {
            const flit f = n.chan.front(ci).f;
            n.chan.pop(ci);
            n.sink.push(std::size_t{node} * vcs_ + f.vc, f);
            n.sink_vcs[node] |= 1u << f.vc;
        }
        // The interface moves one flit per cycle from its ejection buffers to the packet
        // queues, VCs in turn (the channel's width): a VC whose head packet finds its class's
        // queue full waits without blocking the others, and at most one credit per cycle goes
        // back, as many as the credit channel carries. The non-empty VCs, from sink_rr on:
        const std::uint32_t held = n.sink_vcs[node];
        if (held == 0) return;
        const std::uint32_t from = n.sink_rr[node];
        const std::uint32_t at_or_after = held & (~0u << from);
        const std::size_t back = std::size_t{t_.host[node]} * ports_ + t_.local[node];
        for (std::uint32_t pass = 0; pass < 2; ++pass) {
            for (std::uint32_t m = pass == 0 ? at_or_after : held & ~at_or_after; m != 0;
                 m &= m - 1) {
                const auto v = static_cast<std::uint32_t>(std::countr_zero(m));
                const std::size_t q = std::size_t{node} * vcs_ + v;
                const flit f = n.sink.front(q);
                auto& pk = n.packets[f.pkt];
                const std::size_t e = qi(node, pk.cls);
                if (edges::is_head(f)) {
                    if (n.ejq.size(e) + n.reserved[e] >= n.ejq.capacity()) continue;
                    ++n.reserved[e];
                }
                if (f.seq != n.packets.expect(f.pkt)) ++n.s.order_errors;
                n.packets.expect(f.pkt) = f.seq + 1u;
                n.sink.pop(q);
                if (n.sink.empty(q)) n.sink_vcs[node] &= ~(1u << v);
                count_ejected_flits(n.s, node);
                send_credit(n, back, timed_credit{due_at(now_ + 1 + p_.link_latency), v});
                ++n.s.credits;
                if (edges::is_tail(f)) {
                    --n.reserved[e];
                    pk.ejected = now_;
                    n.ejq.push(e, f.pkt);
                    count_delivered_packet(n.s, node, pk);
                }
                n.sink_rr[node] = v + 1 == vcs_ ? 0 : v + 1;
                return;
            }
        }
    }

    void source_step(fabric& n, node_id node, bool credits_due) {
        const std::size_t ci = router_ports_ + node;
        while (credits_due && !n.cred.empty(ci) && arrived(n.cred.front(ci).due)) {
            ++n.src_credits[std::size_t{node} * vcs_ + n.cred.front(ci).vc];
            n.cred.pop(ci);
            --n.credits;
        }
        this->offer_sources(n, node, [&](std::size_t e, source_state& st) {
            const std::size_t cv = std::size_t{node} * vcs_;
            auto& pk = n.packets[st.pkt];
            if (st.vc < 0) {
                // A VC not held by another of this node's packets, with room, round-robin.
                const std::uint32_t last = n.src_last_vc[e];
                const std::uint32_t mask = class_mask_[vc_set(pk)];
                for (std::uint32_t j = 1; j <= vcs_; ++j) {
                    const std::uint32_t v = (last + j) % vcs_;
                    if ((mask >> v & 1u) == 0) continue;
                    if (n.src_busy[cv + v] != 0 || n.src_credits[cv + v] == 0) continue;
                    st.vc = static_cast<std::int32_t>(v);
                    break;
                }
                if (st.vc < 0) return false;
            }
            const auto v = static_cast<std::uint32_t>(st.vc);
            if (n.src_credits[cv + v] == 0) return false;
            flit f;
            f.pkt = st.pkt;
            f.seq = static_cast<std::uint16_t>(st.seq);
            f.vc = static_cast<std::uint8_t>(v);
            f.flags = edges::flit_flags(st.seq, pk.flits);
            send_flit(n, std::size_t{t_.host[node]} * ports_ + t_.local[node],
                      timed_flit{due_at(now_ + 1 + p_.link_latency), f});
            --n.src_credits[cv + v];
            if (st.seq == 0) n.src_busy[cv + v] = 1;
            this->count_sent(n.s, node, pk, st.seq);
            if (++st.seq == pk.flits) {
                n.src_busy[cv + v] = 0;
                n.src_last_vc[e] = v;
                st.pkt = none;
                st.vc = -1;
            }
            return true;
        });
    }

    // ---- routers ------------------------------------------------------------------------
    void start_packet(fabric& n, std::uint32_t r, std::size_t i, const flit& f,
                      std::uint64_t ready) {
        const auto& pk = n.packets[f.pkt];
        ivc_state& st = n.ivc[i];
        st.vcs = vc_set(pk);
        st.out_port = route_packet(n, r, pk, st.vcs);
        st.state = vc_alloc_state;
        enter_stage(n.waiting_vc, n.routed_soon, r, i - std::size_t{r} * ports_ * vcs_, ready);
    }

    /// The VCs a packet may use: its class's, halved by o1turn between XY and YX packets.
    [[nodiscard]] std::uint8_t vc_set(const packet_type& pk) const noexcept {
        const auto c = static_cast<std::uint32_t>(pk.cls) * 2u;
        const bool yx = p_.routing == mesh_routing::o1turn && detail::o1turn_yx(pk.id);
        return static_cast<std::uint8_t>(yx ? c + 1 : c);
    }

    /// The output port of a packet's head at router `r` (mesh_routing.hpp): deterministic
    /// policies read the tables; adaptive ones take the allowed minimal direction whose next
    /// input buffer has the most credits for the packet's VCs.
    [[nodiscard]] std::uint8_t route_packet(const fabric& n, std::uint32_t r, const packet_type& pk,
                                            std::uint8_t vcs) const {
        const std::size_t at = std::size_t{r} * nodes_ + pk.dst;
        if (p_.routing == mesh_routing::xy || p_.routing == mesh_routing::yx) return t_.route[at];
        if (p_.routing == mesh_routing::o1turn)
            return (vcs & 1u) != 0 ? t_.route_yx[at] : t_.route[at];
        const std::uint32_t h = t_.host[pk.dst];
        if (h == r) return t_.local[pk.dst];
        const std::uint32_t allowed =
            detail::allowed_dirs(p_.routing, r, t_.host[pk.src], h, t_.cols);
        std::array<std::uint32_t, detail::dirs> free{};
        for (std::uint32_t m = allowed; m != 0; m &= m - 1) {
            const auto d = static_cast<std::uint32_t>(std::countr_zero(m));
            const std::size_t o = (std::size_t{r} * ports_ + d) * vcs_;
            for (std::uint32_t v = class_mask_[vcs]; v != 0; v &= v - 1)
                free[d] += n.ovc_credits[o + static_cast<std::uint32_t>(std::countr_zero(v))];
        }
        return static_cast<std::uint8_t>(detail::pick_dir(allowed, free, t_.route[at]));
    }

    void router_step(fabric& n, std::uint32_t r) {
        stage_due(n.waiting_vc, n.routed_soon, r);
        stage_due(n.active_vc, n.allocated_soon, r);
        const std::size_t slot = (now_ & (wheel_slots_ - 1)) * routers_ + r;
        const std::uint64_t flits_in = n.flits_due[slot];
        const std::uint64_t credits_in = n.credits_due[slot];
        if (n.router_flits[r] == 0 && (flits_in | credits_in) == 0) return;
        n.flits_due[slot] = 0;
        n.credits_due[slot] = 0;
        // Credits returned on a port matter to the flits of the same cycle only through
        // adaptive routes (route_packet reads ovc_credits): those take both in port order, as
        // a scan of all ports would; the other policies take all flits, then all credits.
        if (adaptive_) {
            for (std::uint64_t m = flits_in | credits_in; m != 0; m &= m - 1) {
                const auto p = static_cast<std::uint32_t>(std::countr_zero(m));
                if ((flits_in >> p & 1u) != 0) receive_flits(n, r, p);
                if ((credits_in >> p & 1u) != 0) receive_credits(n, r, p);
            }
        } else {
            for (std::uint64_t m = flits_in; m != 0; m &= m - 1)
                receive_flits(n, r, static_cast<std::uint32_t>(std::countr_zero(m)));
            for (std::uint64_t m = credits_in; m != 0; m &= m - 1)
                receive_credits(n, r, static_cast<std::uint32_t>(std::countr_zero(m)));
        }
        if (n.router_flits[r] == 0) return;
        allocate_vcs(n, r);
        allocate_switch(n, r);
    }

    /// Writes the flits due on the channel into port p of router r into their VC buffers.
    void receive_flits(fabric& n, std::uint32_t r, std::uint32_t p) {
        const std::size_t ci = std::size_t{r} * ports_ + p;
        while (!n.chan.empty(ci) && arrived(n.chan.front(ci).due)) {
            const flit f = n.chan.front(ci).f;
            n.chan.pop(ci);
            const std::size_t k = std::size_t{p} * vcs_ + f.vc;
            const std::size_t i = ci * vcs_ + f.vc;
            n.buf.push(i, f);
            set_vc(n.buffered_vc, r, k);
            ++n.router_flits[r];
            ++n.s.buffer_writes;
            ++n.s.routers[r].buffer_writes;
            if (edges::is_head(f) && n.ivc[i].state == idle_state)
                start_packet(n, r, i, f, now_ + p_.routing_delay);
        }
    }
    /// Takes the credits due on the channel back into output p of router r.
    void receive_credits(fabric& n, std::uint32_t r, std::uint32_t p) {
        const std::size_t ci = std::size_t{r} * ports_ + p;
        while (!n.cred.empty(ci) && arrived(n.cred.front(ci).due)) {
            ++n.ovc_credits[ci * vcs_ + n.cred.front(ci).vc];
            n.cred.pop(ci);
            --n.credits;
        }
    }

    /// Runs allocator `a` over the inputs listed in `inputs` (ascending; every other input
    /// requests nothing), through its allocate_among when it has one.
    static void allocate_listed(Alloc& a, std::span<const std::uint32_t> inputs,
                                std::span<const std::uint64_t> req, std::span<std::int32_t> match,
                                std::uint64_t taken = 0) {
        if constexpr (requires { a.allocate_among(inputs, req, match, taken); })
            a.allocate_among(inputs, req, match, taken);
        else
            a.allocate(req, match, taken);
    }

    // Scratch invariant between calls: va_req_ all 0, va_match_ and sa_match_ all -1, sa_req_,
    // spec_req_, sa_vc_ and spec_vc_ all 0, spec_ports_ 0. Each allocation puts back only the
    // entries it set (an allocator matches only inputs that request).
    void allocate_vcs(fabric& n, std::uint32_t r) {
        const std::size_t base = std::size_t{r} * ports_;
        const std::size_t pv = std::size_t{ports_} * vcs_;
        std::uint64_t outputs = 0;
        // Every input VC waiting for a VC, ascending: va_in_ lists each output's requesters
        // in ascending order.
        for_each_vc(n.waiting_vc, n.waiting_vc, r, [&](std::size_t k) {
            const ivc_state& st = n.ivc[base * vcs_ + k];
            const std::uint32_t want = class_mask_[st.vcs] & n.ovc_free[base + st.out_port];
            if (want == 0) return;
            const std::uint32_t o = st.out_port;
            va_req_[o * pv + k] = want;
            if ((outputs >> o & 1u) == 0) va_count_[o] = 0;
            va_in_[o * pv + va_count_[o]++] = static_cast<std::uint32_t>(k);
            outputs |= std::uint64_t{1} << o;
        });
        for (; outputs != 0; outputs &= outputs - 1) {
            const auto o = static_cast<std::uint32_t>(std::countr_zero(outputs));
            const std::span<std::uint64_t> req(va_req_.data() + o * pv, pv);
            const std::span<const std::uint32_t> in(va_in_.data() + o * pv, va_count_[o]);
            allocate_listed(n.va[base + o], in, req, va_match_);
            for (const std::uint32_t k : in) {
                req[k] = 0;
                if (va_match_[k] < 0) continue;
                const auto w = static_cast<std::uint32_t>(va_match_[k]);
                va_match_[k] = -1;
                ivc_state& st = n.ivc[base * vcs_ + k];
                n.ovc_free[base + o] &= ~(1u << w);
                st.out_vc = static_cast<std::uint8_t>(w);
                st.state = active_state;
                clear_vc(n.waiting_vc, r, k);
                enter_stage(n.active_vc, n.allocated_soon, r, k, now_ + p_.vc_alloc_delay);
                ++n.s.vc_allocations;
                ++n.s.routers[r].vc_allocations;
                if (p_.speculative && n.ovc_credits[(base + o) * vcs_ + w] > 0) {
                    const std::uint32_t p = ivc_port_[k];
                    spec_req_[p] |= std::uint64_t{1} << o;
                    spec_vc_[std::size_t{p} * ports_ + o] |= 1u << ivc_vc_[k];
                    spec_ports_ |= std::uint64_t{1} << p;
                }
            }
        }
    }

    /// Lists the set bits of `ports` in ascending order in sa_in_.
    [[nodiscard]] std::span<const std::uint32_t> list_ports(std::uint64_t ports) {
        std::size_t c = 0;
        for (; ports != 0; ports &= ports - 1)
            sa_in_[c++] = static_cast<std::uint32_t>(std::countr_zero(ports));
        return {sa_in_.data(), c};
    }

    void allocate_switch(fabric& n, std::uint32_t r) {
        const std::size_t base = std::size_t{r} * ports_;
        std::uint64_t req_ports = 0; // inputs with a (non-speculative) request
        // Active input VCs holding a flit, ascending (port, then VC).
        for_each_vc(n.active_vc, n.buffered_vc, r, [&](std::size_t k) {
            const ivc_state& st = n.ivc[base * vcs_ + k];
            if (n.ovc_credits[(base + st.out_port) * vcs_ + st.out_vc] == 0) return;
            const std::uint32_t p = ivc_port_[k];
            sa_req_[p] |= std::uint64_t{1} << st.out_port;
            sa_vc_[std::size_t{p} * ports_ + st.out_port] |= 1u << ivc_vc_[k];
            req_ports |= std::uint64_t{1} << p;
        });
        std::uint64_t first_pass = 0;
        if (req_ports != 0) {
            allocate_listed(n.sa[r], list_ports(req_ports), sa_req_, sa_match_);
            for (std::uint64_t m = req_ports; m != 0; m &= m - 1) {
                const auto p = static_cast<std::uint32_t>(std::countr_zero(m));
                if (sa_match_[p] >= 0) first_pass |= std::uint64_t{1} << p;
            }
        }
        if (spec_ports_ != 0) {
            std::uint64_t taken = 0;
            for (std::uint64_t m = first_pass; m != 0; m &= m - 1)
                taken |= std::uint64_t{1}
                         << sa_match_[static_cast<std::size_t>(std::countr_zero(m))];
            allocate_listed(n.sa[r], list_ports(spec_ports_), spec_req_, sa_match_, taken);
        }
        for (std::uint64_t m = req_ports | spec_ports_; m != 0; m &= m - 1) {
            const auto p = static_cast<std::uint32_t>(std::countr_zero(m));
            if (sa_match_[p] >= 0) {
                const auto o = static_cast<std::uint32_t>(sa_match_[p]);
                sa_match_[p] = -1;
                const bool spec = (first_pass >> p & 1u) == 0;
                const std::uint32_t mask = spec ? spec_vc_[std::size_t{p} * ports_ + o]
                                                : sa_vc_[std::size_t{p} * ports_ + o];
                const std::uint32_t v = detail::first_from(mask, n.vc_ptr[base + p]);
                n.vc_ptr[base + p] = v + 1; // no wrap (a branch): first_from wraps itself
                if (spec) ++n.s.speculative_grants;
                traverse(n, r, p, v);
            }
            // sa_vc_[p][o] (spec_vc_[p][o]) is nonzero only for the outputs o in sa_req_[p]
            // (spec_req_[p]).
            for (std::uint64_t o = sa_req_[p]; o != 0; o &= o - 1)
                sa_vc_[std::size_t{p} * ports_ + static_cast<std::size_t>(std::countr_zero(o))] = 0;
            for (std::uint64_t o = spec_req_[p]; o != 0; o &= o - 1)
                spec_vc_[std::size_t{p} * ports_ + static_cast<std::size_t>(std::countr_zero(o))] =
                    0;
            sa_req_[p] = 0;
            spec_req_[p] = 0;
        }
        spec_ports_ = 0;
    }

    void traverse(fabric& n, std::uint32_t r, std::uint32_t p, std::uint32_t v) {
        const std::size_t in = std::size_t{r} * ports_ + p;
        const std::size_t i = in * vcs_ + v;
        ivc_state& st = n.ivc[i];
        const std::size_t k = std::size_t{p} * vcs_ + v;
        flit f = n.buf.front(i);
        n.buf.pop(i);
        // Without a branch: the bit goes when the buffer is empty.
        n.buffered_vc[std::size_t{r} * ivc_words_ + k / 64] &=
            ~(std::uint64_t{n.buf.empty(i)} << (k % 64));
        --n.router_flits[r];
        const std::size_t out = std::size_t{r} * ports_ + st.out_port;
        --n.ovc_credits[out * vcs_ + st.out_vc];
        f.vc = st.out_vc;
        const std::uint64_t leave = now_ + p_.sw_alloc_delay;
        send_flit(n, down_[out], timed_flit{due_at(leave + switch_traversal_ + down_lat_[out]), f});
        send_credit(n, up_[in], timed_credit{due_at(leave + p_.credit_delay + up_lat_[in]), v});
        auto& rs = n.s.routers[r];
        ++n.s.buffer_reads;
        ++rs.buffer_reads;
        ++n.s.switch_allocations;
        ++rs.switch_allocations;
        ++n.s.router_traversals;
        ++rs.switch_traversals;
        ++n.s.credits;
        if (st.out_port < detail::dirs) {
            ++n.s.link_traversals;
            ++rs.link_traversals;
            n.s.bypass_traversals += down_bypassed_[out];
        }
        if (edges::is_head(f)) ++n.packets[f.pkt].hops;
        if (edges::is_tail(f)) {
            n.ovc_free[out] |= 1u << st.out_vc;
            clear_vc(n.active_vc, r, k);
            // A speculative grant sends the flit in the cycle its VC was granted, before the
            // VC joins active_vc: it must not join it any more.
            if (p_.speculative) leave_stage(n.allocated_soon, r, k, now_ + p_.vc_alloc_delay);
            if (n.buf.empty(i)) {
                st.state = idle_state;
            } else {
                // The next packet in this VC starts routing the cycle after the tail left.
                start_packet(n, r, i, n.buf.front(i), now_ + 1 + p_.routing_delay);
            }
        }
    }

    mesh_params p_;
    mesh_topology t_;
    std::vector<fabric> nets_;
    std::uint32_t ports_ = 0;           ///< per router: 4 directions, then local ports
    std::uint32_t vcs_ = 0;             ///< virtual channels per port
    std::uint32_t vc_buffer_flits_ = 0; ///< flits per input VC buffer
    std::uint32_t routers_ = 0;
    std::uint32_t nodes_ = 0;
    std::size_t router_ports_ = 0;       ///< routers_ x ports_: node queues are indexed after
    std::uint32_t switch_traversal_ = 0; ///< cycles through the switch (prepare + final)
    std::array<std::uint32_t, 2 * C> class_mask_{}; ///< VCs per vc_set()
    std::vector<std::uint32_t> down_;
    std::vector<std::uint32_t> down_lat_;
    std::vector<std::uint32_t> down_bypassed_;
    std::vector<std::uint32_t> up_;
    std::vector<std::uint32_t> up_lat_;
    // Allocation scratch, reused by every router.
    std::vector<std::uint64_t> va_req_;
    std::vector<std::int32_t> va_match_;
    std::vector<std::uint32_t> va_in_;    ///< per output: its requesting input VCs, ascending
    std::vector<std::uint32_t> va_count_; ///< per output: entries of va_in_ in use
    std::vector<std::uint64_t> sa_req_;
    std::vector<std::uint64_t> spec_req_;
    std::vector<std::int32_t> sa_match_;
    std::vector<std::uint32_t> sa_in_; ///< requesting inputs handed to the switch allocator
    std::vector<std::uint32_t> sa_vc_;
    std::vector<std::uint32_t> spec_vc_;
    std::uint64_t spec_ports_ = 0;          ///< inputs with a speculative request (spec_req_ != 0)
    std::size_t ivc_words_ = 0;             ///< 64-bit words per router in the input VC masks
    std::size_t wheel_slots_ = 0;           ///< cycles in fabric::flits_due (a power of two)
    std::size_t node_words_ = 0;            ///< words per cycle in fabric::sink_flits_due
    std::size_t stage_slots_ = 0;           ///< cycles in fabric::routed_soon (a power of two)
    bool adaptive_ = false;                 ///< west_first or odd_even routing
    std::vector<std::uint32_t> end_router_; ///< per router channel endpoint: its router
    std::vector<std::uint32_t> end_port_;   ///< per router channel endpoint: its port
    std::vector<std::uint8_t> ivc_port_;    ///< per router input VC k: its port (k / vcs_)
    std::vector<std::uint8_t> ivc_vc_;      ///< per router input VC k: its VC (k % vcs_)
};

} // namespace warpkit::noc
