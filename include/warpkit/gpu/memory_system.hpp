#pragma once
/// \file
/// `memory_system`: the shared side of a GPU's memory hierarchy: a network on chip (ideal,
/// crossbar or mesh, chosen by params) with request and reply classes, and memory partitions,
/// each a DRAM channel (FR-FCFS or FCFS) behind its L2 slice(s). The network, the L2 slices
/// and the DRAM channels run on their own clocks (`clock_domains`); `cycle()` advances them
/// through one core cycle. The SMs are not reachable from here: the GPU moves requests from
/// each SM's port into `send` and replies from `take_reply` into the SM.
///
/// A request's way through a partition: the network delivers it to its slice (the slice
/// takes one per L2 cycle), it waits `l2_latency` L2 cycles, then looks up the L2 tags (one
/// request per L2 cycle, in arrival order; a request that cannot proceed blocks the ones
/// behind it). A hit replies at once; a miss takes an MSHR entry and sends a line fetch that
/// waits `dram_latency` DRAM cycles before joining the channel's scheduler queue; the data
/// fills the line and the merged requests reply one per L2 cycle. Writes allocate in the L2
/// (write-back, write-allocate) and are acknowledged; atomics read the line (fetching it if
/// absent), write it and reply with data. Dirty victims are written back to DRAM.
///
/// A sectored slice (`partition.l2.cache.sector_bytes`) keeps, fetches and writes back each
/// sector alone: DRAM moves the sectors a request concerns, not the line. A read of several
/// sectors (the whole-line fill of an unsectored L1, constant or texture cache) stays at the
/// head of the slice's queue for one tag lookup per sector per L2 cycle; its reply leaves once
/// the last of its sectors has its data.

#include <warpkit/core/clock_domains.hpp>
#include <warpkit/core/delay_line.hpp>
#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/dram_channel.hpp>
#include <warpkit/mem/dram_scheduler.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>
#include <warpkit/noc/packet.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace warpkit::gpu {

/// The DRAM command scheduler named by a dram_policy (chosen at run time).
struct runtime_dram_scheduler {
    static constexpr std::string_view kind = "runtime";
    dram_policy policy = dram_policy::fr_fcfs;
    [[nodiscard]] std::size_t pick(std::span<const mem::dram_candidate> c) const noexcept {
        return policy == dram_policy::fcfs ? mem::fcfs{}.pick(c) : mem::fr_fcfs{}.pick(c);
    }
};

/// Network, L2 slices and DRAM channels of a GPU with `sms` SMs.
class memory_system {
public:
    using params_type = memory_params;
    using stats_type = memory_stats;
    using packet_type = noc::packet<mem_message>;
    using network_type = std::variant<noc::ideal_network<mem_message>, noc::crossbar<mem_message>,
                                      noc::mesh<mem_message>>;

    /// A memory system for `sms` SMs whose core clock runs at `core_mhz`. Throws config_error
    /// when the network cannot hold the SMs and slices or the placement is wrong.
    memory_system(const memory_params& p, std::uint32_t sms, std::uint32_t core_mhz)
        : p_(checked(p)), sms_(sms) {
        WARPKIT_EXPECTS(sms >= 1);
        place_nodes_();
        build_network_();
        core_ = clocks_.add_mhz("core", core_mhz);
        icnt_ = clocks_.add_mhz("interconnect", p_.clocks.interconnect_mhz);
        l2_ = clocks_.add_mhz("l2", p_.clocks.l2_mhz);
        dram_ = clocks_.add_mhz("dram", p_.clocks.dram_mhz);
        const std::uint32_t n = p_.slices();
        slices_.reserve(n);
        for (std::uint32_t s = 0; s < n; ++s)
            slices_.emplace_back(p_.partition, slice_node_[s]);
        parts_.reserve(p_.partition.partitions());
        for (std::uint32_t c = 0; c < p_.partition.partitions(); ++c)
            parts_.emplace_back(p_.partition);
        line_shift_ = static_cast<unsigned>(std::countr_zero(p_.partition.l2.cache.line_bytes));
        line_mask_ = std::uint64_t{p_.partition.l2.cache.line_bytes} - 1;
    }

    [[nodiscard]] const memory_params& params() const noexcept { return p_; }
    [[nodiscard]] std::uint32_t sms() const noexcept { return sms_; }
    [[nodiscard]] std::uint32_t slices() const noexcept {
        return static_cast<std::uint32_t>(slices_.size());
    }
    /// Network node of SM `sm` and of L2 slice `slice`.
    [[nodiscard]] noc::node_id sm_node(std::uint32_t sm) const { return sm_node_.at(sm); }
    [[nodiscard]] noc::node_id slice_node(std::uint32_t slice) const {
        return slice_node_.at(slice);
    }
    /// The L2 slice holding `addr`: the slices of a channel take turns at its lines.
    [[nodiscard]] std::uint32_t slice_of(std::uint64_t addr) const noexcept {
        const auto& m = p_.partition.dram.map;
        const std::uint64_t chunk = addr / m.interleave_bytes;
        const std::uint64_t within = (channel_local_(addr) >> line_shift_) % p_.partition.slices;
        return static_cast<std::uint32_t>(chunk % m.channels * p_.partition.slices + within);
    }
    /// `addr` as its slice sees it: the slice's lines numbered consecutively, so that the
    /// slice's sets are all used (global line numbers of one slice share their low bits).
    [[nodiscard]] std::uint64_t slice_address(std::uint64_t addr) const noexcept {
        const std::uint64_t local = channel_local_(addr);
        const std::uint64_t line = local >> line_shift_;
        return (line / p_.partition.slices) << line_shift_ | (local & line_mask_);
    }
    /// The global address of byte `saddr` of slice `slice` (inverse of slice_address).
    [[nodiscard]] std::uint64_t global_address(std::uint32_t slice,
                                               std::uint64_t saddr) const noexcept {
        const auto& m = p_.partition.dram.map;
        const std::uint64_t per = p_.partition.slices;
        const std::uint64_t local =
            ((saddr >> line_shift_) * per + slice % per) << line_shift_ | (saddr & line_mask_);
        const std::uint64_t channel = slice / per;
        return (local / m.interleave_bytes * m.channels + channel) * m.interleave_bytes +
               local % m.interleave_bytes;
    }

    /// True when SM `sm` can send a request this cycle.
    [[nodiscard]] bool can_send(std::uint32_t sm) const {
        return std::visit(
            [&](const auto& n) { return n.can_inject(sm_node_[sm], noc::traffic_class::request); },
            net_);
    }
    /// Sends request `m` from SM `m.sm` to the slice of `m.addr` (can_send(m.sm) must hold).
    void send(const mem_message& m) {
        WARPKIT_EXPECTS(m.sm < sms_ && !m.reply && can_send(m.sm));
        packet_type pk;
        pk.src = sm_node_[m.sm];
        pk.dst = slice_node_[slice_of(m.addr)];
        pk.flits = p_.noc.flits(wire_bytes(m, p_.noc.header_bytes));
        pk.cls = noc::traffic_class::request;
        pk.payload = m;
        count_in_(noc_.request, pk.flits);
        std::visit([&](auto& n) { static_cast<void>(n.inject(pk)); }, net_);
    }
    /// True when a reply for SM `sm` has arrived.
    [[nodiscard]] bool has_reply(std::uint32_t sm) const {
        return std::visit([&](const auto& n) { return n.can_eject(sm_node_[sm]); }, net_);
    }
    /// The oldest reply that arrived for SM `sm`.
    [[nodiscard]] mem_message take_reply(std::uint32_t sm) {
        WARPKIT_EXPECTS(has_reply(sm));
        const packet_type pk = std::visit([&](auto& n) { return n.eject(sm_node_[sm]); }, net_);
        count_out_(noc_.reply, pk);
        return pk.payload;
    }

    /// Advances the network, L2 and DRAM clocks through one core cycle: every edge from this
    /// core edge up to (not including) the next. At an instant shared by several domains the
    /// network ticks first, then the L2 slices, then the DRAM channels.
    void cycle() {
        if (!started_) {
            pending_ = clocks_.next(); // t = 0: every domain
            started_ = true;
        }
        run_(pending_);
        for (;;) {
            const auto e = clocks_.next();
            if (e.has(core_)) {
                pending_ = e;
                return;
            }
            run_(e);
        }
    }

    /// True when no request or reply is anywhere in the network, the slices or the channels.
    [[nodiscard]] bool idle() const {
        if (!std::visit([](const auto& n) { return n.idle(); }, net_)) return false;
        for (const auto& s : slices_)
            if (!s.rop.empty() || !s.replies.empty() || !s.fills.empty() ||
                s.cache.mshrs().occupancy() != 0 || !s.cache.miss_queue().empty())
                return false;
        for (const auto& c : parts_)
            if (!c.to_dram.empty() || c.dram.busy() || c.held) return false;
        return true;
    }

    /// Counters of the network, the slices and the channels (`sms` left empty: the SMs keep
    /// their own).
    [[nodiscard]] memory_stats stats() const {
        memory_stats m;
        m.slices.reserve(slices_.size());
        for (const auto& s : slices_) {
            l2_slice_stats st = s.s;
            st.cache = to_cache_controller_stats(s.cache.stats());
            m.slices.push_back(st);
        }
        m.channels.reserve(parts_.size());
        for (const auto& c : parts_)
            m.channels.push_back(c.dram.stats());
        m.noc = noc_;
        std::visit(
            [&](const auto& n) {
                const auto& ns = n.stats();
                m.noc.router_traversals = ns.router_traversals;
                m.noc.link_traversals = ns.link_traversals;
                m.noc.buffer_writes = ns.buffer_writes;
                m.noc.buffer_reads = ns.buffer_reads;
            },
            net_);
        if (started_) {
            m.interconnect_cycles = clocks_.cycles(icnt_).value() - since_.interconnect_cycles;
            m.l2_cycles = clocks_.cycles(l2_).value() - since_.l2_cycles;
            m.dram_cycles = clocks_.cycles(dram_).value() - since_.dram_cycles;
        }
        return m;
    }
    /// Restarts every counter (network, slices, caches, channels, clock cycles) from zero;
    /// requests in flight stay and count where they go next.
    void reset_stats() {
        for (auto& sl : slices_) {
            reset_counters(sl.s);
            sl.cache.reset_stats();
        }
        for (auto& c : parts_)
            c.dram.reset_stats();
        reset_counters(noc_);
        std::visit([](auto& n) { n.reset_stats(); }, net_);
        if (started_) {
            since_.interconnect_cycles = clocks_.cycles(icnt_).value();
            since_.l2_cycles = clocks_.cycles(l2_).value();
            since_.dram_cycles = clocks_.cycles(dram_).value();
        }
    }
    /// The network (for inspection).
    [[nodiscard]] const network_type& network() const noexcept { return net_; }

private:
    // What a slice's MSHRs keep for a read: the request, and the split read it is one sector
    // of (`join` - 1 in slice_state::joins; 0: none).
    struct l2_tag {
        mem_message m;
        std::uint32_t join = 0;
    };
    // A read of several sectors of a sectored slice: the request and its sectors without data.
    struct join_entry {
        mem_message m;
        std::uint32_t left = 0;
    };
    // One L2 slice: the requests waiting for their tag lookup, the cache with its MSHRs and
    // miss queue, replies waiting for the network, DRAM data waiting to fill, and the split
    // reads (the head request's sectors still to look up; the reads waiting for sectors).
    struct slice_state {
        delay_line<mem_message> rop;
        mem::cache_controller<l2_tag> cache;
        fifo<mem_message> replies;
        fifo<mem::mem_request> fills;
        noc::node_id node;
        l2_slice_stats s{};
        std::uint32_t head_left = 0; // sectors of the head request not looked up yet
        std::uint32_t head_join = 0; // its join (index + 1; 0: not split yet)
        std::vector<join_entry> joins;
        std::vector<std::uint32_t> free_joins;
        slice_state(const partition_params& p, noc::node_id n)
            : rop(p.l2_latency), cache(p.l2), replies(p.reply_queue), fills(p.return_queue),
              node(n) {}
    };
    // One partition: the controller's pipeline in front of the channel, the channel, and a
    // response its slice had no room for.
    struct partition_state {
        delay_line<mem::dram_request> to_dram;
        mem::dram_channel<runtime_dram_scheduler> dram;
        std::optional<mem::dram_response> held;
        std::uint32_t rr = 0; // slice served next
        explicit partition_state(const partition_params& p)
            : to_dram(p.dram_latency), dram(p.dram, runtime_dram_scheduler{p.scheduler}) {}
    };

    static const memory_params& checked(const memory_params& p) {
        validate(p);
        if (p.model != memory_model::hierarchy)
            throw config_error("model", "ideal",
                               "hierarchy (an ideal memory has no memory system)");
        check(p.partition.l2.cache.line_bytes <= p.partition.dram.map.interleave_bytes,
              "partition.dram.map.interleave_bytes", p.partition.dram.map.interleave_bytes,
              ">= the L2 line (a line lives in one channel)");
        return p;
    }

    // Byte address within its channel.
    [[nodiscard]] std::uint64_t channel_local_(std::uint64_t addr) const noexcept {
        const auto& m = p_.partition.dram.map;
        return addr / m.interleave_bytes / m.channels * m.interleave_bytes +
               addr % m.interleave_bytes;
    }

    void place_nodes_() {
        auto pl = place_nodes(p_, sms_);
        slice_node_ = std::move(pl.slices);
        sm_node_ = std::move(pl.sms);
        nodes_ = pl.nodes;
    }

    void build_network_() {
        switch (p_.noc.model) {
        case network_model::ideal: {
            auto q = p_.noc.ideal;
            q.nodes = nodes_;
            net_.emplace<noc::ideal_network<mem_message>>(q);
            break;
        }
        case network_model::crossbar: {
            auto q = p_.noc.crossbar;
            q.nodes = nodes_;
            net_.emplace<noc::crossbar<mem_message>>(q);
            break;
        }
        case network_model::mesh:
            net_.emplace<noc::mesh<mem_message>>(p_.noc.mesh);
            break;
        }
    }

    static void count_in_(noc_class_stats& s, std::uint32_t flits) noexcept {
        ++s.packets_injected;
        s.flits_injected += flits;
    }
    static void count_out_(noc_class_stats& s, const packet_type& pk) noexcept {
        ++s.packets_ejected;
        s.flits_ejected += pk.flits;
        s.latency_sum += pk.latency();
    }

    void run_(const clock_domains::edge& e) {
        if (e.has(icnt_) || e.has(l2_))
            std::visit(
                [&](auto& n) {
                    if (e.has(icnt_)) static_cast<void>(n.tick());
                    if (e.has(l2_))
                        for (auto& s : slices_)
                            l2_cycle_(n, s);
                },
                net_);
        if (e.has(dram_))
            for (std::uint32_t c = 0; c < parts_.size(); ++c)
                dram_cycle_(c);
    }

    template <class Net>
    void l2_cycle_(Net& net, slice_state& s) {
        if (s.rop.empty() && s.replies.empty() && s.fills.empty() && !s.cache.has_ready() &&
            !net.can_eject(s.node)) {
            s.rop.tick();
            return;
        }
        // The oldest reply goes out on the reply class.
        if (!s.replies.empty()) {
            if (net.can_inject(s.node, noc::traffic_class::reply)) {
                const mem_message& m = s.replies.front();
                packet_type pk;
                pk.src = s.node;
                pk.dst = sm_node_[m.sm];
                pk.flits = p_.noc.flits(wire_bytes(m, p_.noc.header_bytes));
                pk.cls = noc::traffic_class::reply;
                pk.payload = m;
                count_in_(noc_.reply, pk.flits);
                static_cast<void>(net.inject(pk));
                s.replies.pop();
                ++s.s.replies;
            } else {
                ++s.s.reply_stalls;
            }
        }
        // DRAM data fills its line; the requests it satisfies reply one per cycle.
        if (!s.fills.empty() && s.cache.can_fill(s.fills.front())) {
            s.cache.fill(s.fills.front());
            s.fills.pop();
        }
        if (s.cache.has_ready() && s.replies.can_push()) finish_(s, s.cache.pop_ready());
        // Tag lookup of the oldest request that has waited its latency.
        if (s.rop.ready()) {
            if (access_(s, s.rop.front()))
                s.rop.pop();
            else
                ++s.s.access_stalls;
        }
        if (net.can_eject(s.node) && s.rop.can_push()) {
            const packet_type pk = net.eject(s.node);
            count_out_(noc_.request, pk);
            ++s.s.requests;
            s.rop.push(pk.payload);
        }
        s.rop.tick();
    }

    // Looks request `m` up; false when it must wait (no reply room, no way, MSHR or queue) or,
    // for a split read, while sectors of it are still to be looked up.
    bool access_(slice_state& s, const mem_message& m) {
        if (!s.replies.can_push()) return false;
        const std::uint64_t a = slice_address(m.addr);
        if (m.kind == mem_kind::write) {
            const auto st = s.cache.write(a, m.data_bytes == 0 ? 1 : m.data_bytes);
            if (stalled_(st)) return false;
            ++s.s.writes;
            s.replies.push(reply_to_(m));
            return true;
        }
        // A read covers the bytes its reply carries (within one line); an atomic its word.
        const std::uint32_t bytes =
            m.kind == mem_kind::atomic || m.reply_bytes == 0 ? 1 : m.reply_bytes;
        if (p_.partition.l2.cache.sector_bytes != 0 &&
            std::popcount(s.cache.tags().sectors_of(a, bytes)) > 1)
            return split_read_(s, m, a, bytes);
        const auto st = s.cache.read(a, bytes, l2_tag{m, 0});
        if (stalled_(st)) return false;
        ++(m.kind == mem_kind::atomic ? s.s.atomics : s.s.reads);
        if (st == mem::access_status::hit) finish_(s, l2_tag{m, 0});
        return true;
    }

    // One tag lookup of a read of several sectors at slice address `a`: the lowest sector not
    // looked up yet. True once every sector has been.
    bool split_read_(slice_state& s, const mem_message& m, std::uint64_t a, std::uint32_t bytes) {
        const mem::cache& tags = s.cache.tags();
        if (s.head_join == 0) {
            s.head_left = tags.sectors_of(a, bytes);
            if (s.free_joins.empty()) {
                s.free_joins.push_back(static_cast<std::uint32_t>(s.joins.size()));
                s.joins.emplace_back();
            }
            const std::uint32_t j = s.free_joins.back();
            s.free_joins.pop_back();
            s.joins[j] = join_entry{m, static_cast<std::uint32_t>(std::popcount(s.head_left))};
            s.head_join = j + 1;
            ++s.s.reads;
        }
        const std::uint32_t sb = p_.partition.l2.cache.sector_bytes;
        const auto k = static_cast<std::uint32_t>(std::countr_zero(s.head_left));
        const std::uint64_t sector = tags.line_of(a) + std::uint64_t{k} * sb;
        const l2_tag part{m, s.head_join};
        const auto st = s.cache.read(sector, sb, part);
        if (stalled_(st)) return false;
        s.head_left &= s.head_left - 1;
        if (st == mem::access_status::hit) finish_(s, part);
        if (s.head_left != 0) return false;
        s.head_join = 0;
        return true;
    }

    // The data of `t` is in the slice: an atomic writes the line, then the request replies
    // (a split read once its last sector is in).
    void finish_(slice_state& s, const l2_tag& t) {
        const mem_message& m = t.m;
        if (t.join != 0) {
            join_entry& j = s.joins[t.join - 1];
            if (--j.left != 0) return;
            s.replies.push(reply_to_(j.m));
            s.free_joins.push_back(t.join - 1);
            return;
        }
        if (m.kind == mem_kind::atomic)
            static_cast<void>(
                s.cache.write(slice_address(m.addr), m.data_bytes == 0 ? 1 : m.data_bytes));
        s.replies.push(reply_to_(m));
    }

    [[nodiscard]] static mem_message reply_to_(const mem_message& m) noexcept {
        mem_message r = m;
        r.reply = true;
        r.data_bytes = m.reply_bytes;
        return r;
    }
    [[nodiscard]] static bool stalled_(mem::access_status st) noexcept {
        return st == mem::access_status::stall_reservation ||
               st == mem::access_status::stall_mshr || st == mem::access_status::stall_queue;
    }

    void dram_cycle_(std::uint32_t c) {
        partition_state& pa = parts_[c];
        const std::uint32_t per = p_.partition.slices;
        // One request per cycle from the partition's slices, in turn.
        if (pa.to_dram.can_push())
            for (std::uint32_t k = 0; k < per; ++k) {
                const std::uint32_t j = (pa.rr + k) % per;
                const std::uint32_t si = c * per + j;
                slice_state& s = slices_[si];
                auto& q = s.cache.miss_queue();
                if (q.empty()) continue;
                const mem::mem_request r = q.take();
                const bool write = r.kind != mem::mem_request_kind::read;
                ++(write ? s.s.dram_writes : s.s.dram_reads);
                // An unsectored L2 line moves whole, a sectored one the sectors concerned: the
                // bytes set how many bursts the channel spends.
                pa.to_dram.push(mem::dram_request{global_address(si, r.addr), write, r.sectors,
                                                  dram_bytes_(r.sectors)});
                pa.rr = (j + 1) % per;
                break;
            }
        if (pa.to_dram.ready() && pa.dram.can_accept(pa.to_dram.front().is_write))
            static_cast<void>(pa.dram.push(pa.to_dram.take()));
        static_cast<void>(pa.dram.tick());
        if (!pa.held && pa.dram.has_response()) {
            const mem::dram_response r = pa.dram.pop_response();
            if (!r.is_write) pa.held = r; // written lines need no answer
        }
        if (pa.held) {
            slice_state& s = slices_[slice_of(pa.held->addr)];
            if (s.fills.can_push()) {
                s.fills.push(mem::mem_request{slice_address(pa.held->addr),
                                              static_cast<std::uint32_t>(pa.held->id),
                                              mem::mem_request_kind::read});
                pa.held.reset();
            }
        }
        pa.to_dram.tick();
    }

    // Bytes a DRAM access of `sectors` of an L2 line moves.
    [[nodiscard]] std::uint32_t dram_bytes_(std::uint32_t sectors) const noexcept {
        const mem::cache_params& c = p_.partition.l2.cache;
        return c.sector_bytes == 0 ? c.line_bytes
                                   : c.sector_bytes * static_cast<std::uint32_t>(std::popcount(sectors));
    }

    memory_params p_;
    std::uint32_t sms_;
    std::uint32_t nodes_ = 0;
    std::vector<noc::node_id> sm_node_;
    std::vector<noc::node_id> slice_node_;
    network_type net_;
    clock_domains clocks_;
    clock_domains::id core_ = 0;
    clock_domains::id icnt_ = 0;
    clock_domains::id l2_ = 0;
    clock_domains::id dram_ = 0;
    clock_domains::edge pending_{};
    bool started_ = false;
    std::vector<slice_state> slices_;
    std::vector<partition_state> parts_;
    unsigned line_shift_ = 7;
    std::uint64_t line_mask_ = 127;
    noc_stats noc_{};
    struct domain_cycles {
        std::uint64_t interconnect_cycles = 0;
        std::uint64_t l2_cycles = 0;
        std::uint64_t dram_cycles = 0;
    };
    domain_cycles since_{}; ///< each domain's cycles at the last reset_stats()
};

} // namespace warpkit::gpu
