#pragma once
/// \file
/// `crossbar`: every node to every node through one switch (the GTX480's interconnect
/// between SMs and L2 slices), with input buffers (one FIFO per input, or virtual output
/// queues), output buffers, round-robin or iSLIP arbitration, packets holding their
/// input-output connection from head to tail, and request / reply subnets.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/noc/allocator.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/detail/network_edges.hpp>
#include <warpkit/noc/detail/packet_pool.hpp>
#include <warpkit/noc/detail/queue_bank.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/noc/packet.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace warpkit::noc {

/// Shape and timing of a crossbar. Defaults: GTX480-like, as GPGPU-Sim models it: 27 nodes
/// (15 SMs and 12 L2 slices), separate request and reply networks, 32-byte flits (paper 000:
/// the GPU interconnect is 32 bytes wide), 8-flit input and output buffers, one FIFO per input.
/// Up to 4096 nodes with FIFO inputs (a V100's 80 SMs and 64 L2 slices take 144); virtual
/// output queues, whose inputs request several outputs at once, up to 64.
struct crossbar_params {
    std::uint32_t nodes = 27;
    std::uint32_t subnets = 2; ///< 2: requests and replies on separate crossbars
    /// Virtual output queues (one queue per output at every input) instead of one FIFO.
    bool voq = false;
    std::uint32_t input_buffer_flits = 8;  ///< per input (shared by its VOQs)
    std::uint32_t output_buffer_flits = 8; ///< per output
    /// Cycles from winning the switch to reaching the output buffer. The default gives the
    /// 6-cycle zero-load latency of one BookSim router with routing 0, VC and switch
    /// allocation 1 and one-cycle channels.
    std::uint32_t latency = 5;
    std::uint32_t alloc_iters = 1;
    std::uint32_t inject_queue_packets = 16; ///< per node and class
    std::uint32_t eject_queue_packets = 64;  ///< per node and class
    std::uint32_t flit_bits = 256;
    WARPKIT_FIELDS(crossbar_params, nodes, subnets, voq, input_buffer_flits, output_buffer_flits,
                   latency, alloc_iters, inject_queue_packets, eject_queue_packets, flit_bits)

    void validate() const {
        check_range("nodes", nodes, 1u, 4096u);
        check(!voq || nodes <= 64, "nodes", nodes, "<= 64 with voq");
        check_range("subnets", subnets, 1u, 2u);
        check_range("input_buffer_flits", input_buffer_flits, 1u, 4096u);
        check_range("output_buffer_flits", output_buffer_flits, 1u, 4096u);
        check_range("latency", latency, 1u, 1024u);
        check_range("alloc_iters", alloc_iters, 1u, 8u);
        check_range("inject_queue_packets", inject_queue_packets, 1u, 1u << 20);
        check_range("eject_queue_packets", eject_queue_packets, 1u, 1u << 20);
        check_range("flit_bits", flit_bits, 1u, 4096u);
    }
};

/// The GTX480-like crossbar (the defaults).
[[nodiscard]] inline crossbar_params gtx480_crossbar() {
    return {};
}

// A cycle: outputs hand one flit each to their node (a head flit only when the node's
// ejection queue has room), connected input-output pairs move the next flit of their packet,
// free inputs and outputs are matched by `Alloc` over the head flits waiting (each output with
// room for a flit), then every node interface writes one flit into its input buffer, which
// competes from the next cycle. Zero-load latency: 1 + latency + (flits - 1). With FIFO inputs
// each input requests one output, where islip and round_robin come to the same match in one
// round: every free output takes the first requesting input at or after its pointer, which
// then moves one past that input; the crossbar computes that match itself, at any size.

/// Crossbar network carrying packet<Payload>; `Alloc` is islip or round_robin.
template <class Payload = std::uint64_t, allocator Alloc = islip>
class crossbar : public detail::network_edges<crossbar<Payload, Alloc>, Payload> {
    using edges = detail::network_edges<crossbar, Payload>;
    friend edges;

public:
    using packet_type = packet<Payload>;
    using params_type = crossbar_params;

    explicit crossbar(const crossbar_params& p = {}) : p_(validated(p)) { build(); }

    [[nodiscard]] const crossbar_params& params() const noexcept { return p_; }
    [[nodiscard]] std::size_t nodes() const noexcept { return nodes_; }

    /// Flits in input `i`'s buffer (all its queues).
    [[nodiscard]] std::uint32_t input_occupancy(std::size_t sub, node_id i) const {
        return nets_.at(sub).in_count[i];
    }
    /// Flits in (or on their way to) output `o`'s buffer.
    [[nodiscard]] std::uint32_t output_occupancy(std::size_t sub, node_id o) const {
        return nets_.at(sub).out.size(o);
    }

private:
    using edges::none;
    using edges::now_;
    using edges::qi;
    static constexpr std::size_t C = edges::classes;

    // Hooks of the edges: the largest packet taken, and checks at the end of a cycle.
    [[nodiscard]] bool fits(std::uint32_t flits) const noexcept {
        return !p_.voq || flits <= p_.input_buffer_flits;
    }
    void after_tick() {}


    struct flit {
        std::uint32_t pkt = 0;
        std::uint32_t seq = 0;
        std::uint32_t dst = 0;
        std::uint8_t flags = 0;
    };
    using timed_flit = typename edges::template timed<flit>;
    using source_state = typename edges::source_state;
    struct fabric : detail::subnet_edges<packet_type, source_state> {
        detail::queue_bank<flit> in;              ///< per input (FIFO) or input x output (VOQ)
        std::vector<std::uint32_t> in_count;      ///< flits per input
        detail::queue_bank<timed_flit> out;       ///< per output, flits in the switch included
        std::vector<std::int32_t> in_lock;        ///< output an input is connected to, or -1
        std::vector<std::int32_t> out_lock;       ///< input an output is connected to, or -1
        // The nodes a cycle visits, in ascending order as a scan of all would.
        detail::node_mask outputs_held; ///< outputs with flits in (or on their way to) the buffer
        detail::node_mask inputs_held;  ///< inputs with flits in their buffer (in_count > 0)
        detail::node_mask out_locked;   ///< outputs connected to an input (out_lock >= 0)
        detail::node_mask in_locked;    ///< inputs connected to an output (in_lock >= 0)
        std::optional<Alloc> alloc;        ///< VOQ inputs: the allocator
        std::vector<std::uint32_t> gptr;   ///< FIFO inputs: each output's first input to try
        fabric(std::uint32_t nodes, std::uint32_t iters, bool voq) : gptr(voq ? 0 : nodes, 0) {
            if (voq) alloc.emplace(nodes, nodes, iters);
        }
    };

    [[nodiscard]] std::size_t inq(node_id i, node_id o) const noexcept {
        return p_.voq ? std::size_t{i} * nodes_ + o : i;
    }

    void build() {
        nodes_ = p_.nodes;
        for (std::uint32_t k = 0; k < p_.subnets; ++k) {
            fabric& n = nets_.emplace_back(nodes_, p_.alloc_iters, p_.voq);
            n.in = detail::queue_bank<flit>(p_.voq ? std::size_t{nodes_} * nodes_ : nodes_,
                                            p_.input_buffer_flits);
            n.in_count.assign(nodes_, 0);
            n.out = detail::queue_bank<timed_flit>(nodes_, p_.output_buffer_flits);
            n.in_lock.assign(nodes_, -1);
            n.out_lock.assign(nodes_, -1);
            n.outputs_held.resize(nodes_);
            n.inputs_held.resize(nodes_);
            n.out_locked.resize(nodes_);
            n.in_locked.resize(nodes_);
            n.resize_edges(nodes_, C, 1, p_.inject_queue_packets, p_.eject_queue_packets);
        }
        this->size_edges(nodes_);
        req_.assign(nodes_, 0);
        match_.assign(nodes_, -1);
        out_taken_.resize(nodes_);
        in_busy_.resize(nodes_);
        requested_.resize(nodes_);
        won_.resize(nodes_);
        first_.assign(nodes_, unset_);
        after_.assign(nodes_, unset_);
    }

    bool step(fabric& n) {
        if (n.packets.used() == 0) return false;
        n.outputs_held.visit([&](std::size_t o) { sink_step(n, static_cast<node_id>(o)); });
        switch_step(n);
        n.sending.visit([&](std::size_t i) { source_step(n, static_cast<node_id>(i)); });
        return true;
    }

    void sink_step(fabric& n, node_id o) {
        if (n.out.empty(o) || n.out.front(o).due > now_) return;
        const flit f = n.out.front(o).f;
        auto& pk = n.packets[f.pkt];
        const std::size_t e = qi(o, pk.cls);
        if (edges::is_head(f)) {
            if (n.ejq.size(e) + n.reserved[e] >= n.ejq.capacity()) return;
            ++n.reserved[e];
        }
        n.out.pop(o);
        if (n.out.empty(o)) n.outputs_held.reset(o);
        ++n.s.buffer_reads;
        ++n.s.routers[0].buffer_reads;
        if (f.seq != n.packets.expect(f.pkt)) ++n.s.order_errors;
        n.packets.expect(f.pkt) = f.seq + 1;
        count_ejected_flits(n.s, o);
        if (edges::is_tail(f)) {
            --n.reserved[e];
            pk.ejected = now_;
            pk.hops = 1;
            n.ejq.push(e, f.pkt);
            count_delivered_packet(n.s, o, pk);
        }
    }

    void move(fabric& n, node_id i, node_id o) {
        const std::size_t q = inq(i, o);
        const flit f = n.in.front(q);
        n.in.pop(q);
        if (--n.in_count[i] == 0) n.inputs_held.reset(i);
        n.out.push(o, timed_flit{now_ + p_.latency, f});
        n.outputs_held.set(o);
        auto& rs = n.s.routers[0];
        ++n.s.buffer_reads;
        ++rs.buffer_reads;
        ++n.s.buffer_writes; // into the output buffer
        ++rs.buffer_writes;
        ++n.s.router_traversals;
        ++rs.switch_traversals;
        ++n.s.switch_allocations;
        ++rs.switch_allocations;
        if (edges::is_tail(f)) {
            n.in_lock[i] = -1;
            n.out_lock[o] = -1;
            n.in_locked.reset(i);
            n.out_locked.reset(o);
        } else {
            n.in_lock[i] = static_cast<std::int32_t>(o);
            n.out_lock[o] = static_cast<std::int32_t>(i);
            n.in_locked.set(i);
            n.out_locked.set(o);
        }
    }

    void switch_step(fabric& n) {
        // Connections first: the next flit of a packet already under way. The inputs and
        // outputs connected at the start of the cycle are not free in it.
        out_taken_.copy_from(n.out_locked);
        in_busy_.copy_from(n.in_locked);
        out_taken_.visit([&](std::size_t o) {
            const auto in = static_cast<node_id>(n.out_lock[o]);
            const std::size_t q = inq(in, static_cast<node_id>(o));
            if (!n.in.empty(q) && !n.out.full(o)) move(n, in, static_cast<node_id>(o));
        });
        if (p_.voq)
            voq_switch_(n);
        else
            fifo_switch_(n);
    }

    // Free inputs and outputs, FIFO inputs: each head flit requests its output; every free
    // output with room takes the first requesting input at or after its pointer.
    void fifo_switch_(fabric& n) {
        bool any = false;
        n.inputs_held.visit([&](std::size_t in) {
            const auto i = static_cast<node_id>(in);
            if (in_busy_.test(i)) return;
            const node_id o = n.in.front(i).dst;
            if (out_taken_.test(o) || n.out.full(o)) return;
            if (first_[o] == unset_) first_[o] = i;
            if (after_[o] == unset_ && i >= n.gptr[o]) after_[o] = i;
            requested_.set(o);
            any = true;
        });
        if (!any) return;
        requested_.visit([&](std::size_t o) {
            const node_id win = after_[o] != unset_ ? after_[o] : first_[o];
            match_[win] = static_cast<std::int32_t>(o);
            won_.set(win);
            n.gptr[o] = win + 1 == nodes_ ? 0 : win + 1;
            first_[o] = unset_;
            after_[o] = unset_;
        });
        requested_.clear();
        won_.visit([&](std::size_t i) {
            move(n, static_cast<node_id>(i), static_cast<node_id>(match_[i]));
            match_[i] = -1;
        });
        won_.clear();
    }

    // Free inputs and outputs, VOQ inputs (nodes <= 64): every queue's head flit requests its
    // output; `Alloc` matches.
    void voq_switch_(fabric& n) {
        std::uint64_t taken = 0;
        bool any = false;
        for (node_id i = 0; i < nodes_; ++i) {
            taken |= std::uint64_t{out_taken_.test(i)} << i;
            req_[i] = 0;
            const bool connected = in_busy_.test(i);
            match_[i] = connected ? 0 : -1;
            if (connected || n.in_count[i] == 0) continue;
            for (node_id o = 0; o < nodes_; ++o)
                if (!n.in.empty(inq(i, o)) && !n.out.full(o)) req_[i] |= std::uint64_t{1} << o;
            any = any || req_[i] != 0;
        }
        if (any) {
            n.alloc->allocate(req_, match_, taken);
            for (node_id i = 0; i < nodes_; ++i)
                if (!in_busy_.test(i) && match_[i] >= 0)
                    move(n, i, static_cast<node_id>(match_[i]));
        }
        std::fill(match_.begin(), match_.end(), -1);
    }

    void source_step(fabric& n, node_id node) {
        if (n.in_count[node] == p_.input_buffer_flits) return;
        this->offer_sources(n, node, [&](std::size_t, source_state& st) {
            auto& pk = n.packets[st.pkt];
            const std::size_t q = inq(node, pk.dst);
            if (n.in.full(q)) return false;
            // With VOQs a connected input may wait for the rest of its packet while other
            // queues fill the buffer: a packet enters only when all of it fits.
            if (p_.voq && st.seq == 0 && n.in_count[node] + pk.flits > p_.input_buffer_flits)
                return false;
            flit f;
            f.pkt = st.pkt;
            f.seq = st.seq;
            f.dst = pk.dst;
            f.flags = edges::flit_flags(st.seq, pk.flits);
            n.in.push(q, f);
            ++n.in_count[node];
            n.inputs_held.set(node);
            ++n.s.buffer_writes;
            ++n.s.routers[0].buffer_writes;
            this->count_sent(n.s, node, pk, st.seq);
            if (++st.seq == pk.flits) st.pkt = none;
            return true;
        });
    }

    crossbar_params p_;
    std::uint32_t nodes_ = 0;
    std::vector<fabric> nets_;
    static constexpr node_id unset_ = ~node_id{0};
    std::vector<std::uint64_t> req_;    // VOQ: outputs each input requests
    std::vector<std::int32_t> match_;   // output each input won (-1: none)
    detail::node_mask out_taken_;       // outputs connected at the start of the cycle
    detail::node_mask in_busy_;         // inputs connected at the start of the cycle
    detail::node_mask requested_;       // FIFO: outputs some free input requests
    detail::node_mask won_;             // FIFO: inputs an output granted
    std::vector<node_id> first_;          // FIFO: each output's first requesting input
    std::vector<node_id> after_;          // ... and its first at or after its pointer
};

} // namespace warpkit::noc
