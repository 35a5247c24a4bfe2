#pragma once
/// \file
/// `memory_port`: the LD/ST path of an SM on the memory hierarchy. A global, local, constant,
/// texture or atomic access takes an entry of the pending request table holding its coalesced
/// transactions; the access step sends one transaction per cycle to its cache (L1 data,
/// constant, texture; stores write the L1, which forwards them; atomics bypass the L1). Misses,
/// writes and atomics leave through the request port (the four sources in turn), replies come
/// back through the reply port (one handled per cycle); the data returns of an entry complete
/// its warp's access. With the ideal memory the parts exist at their smallest and stay unused.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/writeback_stage.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/pending_request_table.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::gpu::stages {

/// The hierarchy side of the LD/ST unit of SM `id`, coalescing with `Coalescer`; the
/// registers an access writes are an `Operands` (the SM scoreboard's issue::basic_operands).
template <std::size_t WarpSize, class Coalescer, class Operands = issue::operands>
class memory_port {
public:
    using cache_type = mem::cache_controller<std::uint32_t>;
    using result_type = basic_memory_result<Operands>;
    using results_type = result_queue<result_type>;

    /// The L1 side of `memory` (the smallest one, unused, with the ideal memory), whose
    /// pending request table coalesces with `coalescer`.
    memory_port(std::uint32_t id, const memory_params& memory, const Coalescer& coalescer = {})
        : id_(id), uses_hierarchy_(memory.model == memory_model::hierarchy),
          l1_(uses_hierarchy_ ? checked_l1_(memory) : minimal_l1_()), prt_(l1_.prt, coalescer),
          pending_(l1_.prt.entries), l1d_(l1_.data), const_(l1_.constant), tex_(l1_.texture),
          write_bytes_(l1_.data.miss_queue), atomics_(l1_.atomic_queue), replies_(l1_.reply_queue),
          flit_bytes_(std::max(1U, memory.noc.flit_bytes())),
          header_bytes_(memory.noc.header_bytes) {}

    /// True when the SM uses the memory hierarchy (its ports are live).
    [[nodiscard]] bool uses_hierarchy() const noexcept { return uses_hierarchy_; }

    // ---- request port -------------------------------------------------------------------

    /// True when a request waits to leave.
    [[nodiscard]] bool has_request() const noexcept { return pick_() != no_port_; }
    /// The request that leaves next, stamped `now` (has_request() must hold).
    [[nodiscard]] mem_message request(std::uint64_t now) const {
        const std::uint32_t k = pick_();
        WARPKIT_EXPECTS(k != no_port_);
        if (k == atomic_port_) {
            mem_message m = atomics_.front();
            m.sent = now;
            return m;
        }
        const auto& c = cache_of_(k);
        const mem::mem_request& r = c.miss_queue().front();
        mem_message m;
        m.addr = r.addr;
        m.sm = id_;
        m.sectors = r.sectors;
        m.sent = now;
        const mem::cache_params& cp = c.params().cache;
        const std::uint32_t line = cp.line_bytes;
        switch (r.kind) {
        case mem::mem_request_kind::read:
            m.kind = k == 0 ? mem_kind::read : (k == 1 ? mem_kind::const_read : mem_kind::tex_read);
            // A sectored cache fetches the sectors it misses, from the sector address on.
            m.reply_bytes = cp.sector_bytes == 0
                                ? line
                                : cp.sector_bytes * static_cast<std::uint32_t>(
                                                        std::popcount(r.sectors));
            break;
        case mem::mem_request_kind::write:
            m.kind = mem_kind::write;
            m.data_bytes = write_bytes_.front();
            break;
        case mem::mem_request_kind::writeback:
            m.kind = mem_kind::write;
            m.data_bytes = line;
            break;
        }
        return m;
    }
    /// Removes the request request() returned (it was sent); returns its network flits.
    std::uint64_t pop_request(std::uint64_t now) {
        const std::uint32_t k = pick_();
        WARPKIT_EXPECTS(k != no_port_);
        const std::uint64_t flits = flits_(wire_bytes(request(now), header_bytes_));
        if (k == atomic_port_) {
            atomics_.pop();
            ++ms_.atomics_sent;
        } else {
            auto& q = cache_of_(k).miss_queue();
            switch (q.front().kind) {
            case mem::mem_request_kind::read:
                ++(k == 0 ? ms_.reads_sent : (k == 1 ? ms_.const_reads_sent : ms_.tex_reads_sent));
                break;
            case mem::mem_request_kind::write:
                write_bytes_.pop();
                [[fallthrough]];
            case mem::mem_request_kind::writeback:
                ++ms_.writes_sent;
                ++writes_pending_;
                break;
            }
            q.pop();
        }
        next_port_ = (k + 1) % ports_;
        return flits;
    }

    // ---- reply port ---------------------------------------------------------------------

    /// True when the SM can take a reply this cycle.
    [[nodiscard]] bool can_receive() const noexcept {
        return uses_hierarchy_ && replies_.can_push();
    }
    /// A reply to one of the SM's requests (handled by receive_step, one per cycle).
    void receive(const mem_message& reply) {
        WARPKIT_EXPECTS(can_receive() && reply.reply && reply.sm == id_);
        replies_.push(reply);
    }
    /// Handles the oldest reply at `now`: a fill (it waits while its cache cannot take it),
    /// atomic data, or a write acknowledgement.
    template <class Release>
    void receive_step(std::uint64_t now, Release&& release) {
        if (replies_.empty()) return;
        const mem_message& m = replies_.front();
        switch (m.kind) {
        case mem_kind::read:
        case mem_kind::const_read:
        case mem_kind::tex_read: {
            auto& c = m.kind == mem_kind::read         ? l1d_
                      : m.kind == mem_kind::const_read ? const_
                                                       : tex_;
            const mem::mem_request r{m.addr, m.sectors, mem::mem_request_kind::read};
            if (!c.can_fill(r)) return;
            c.fill(r);
            ms_.fill_latency_sum += now - m.sent;
            break;
        }
        case mem_kind::atomic:
            data_return(m.tag, release);
            break;
        case mem_kind::write:
            WARPKIT_EXPECTS(writes_pending_ > 0);
            --writes_pending_;
            break;
        }
        ++ms_.replies_received;
        replies_.pop();
    }

    // ---- the LD/ST side -----------------------------------------------------------------

    /// A data return for PRT entry `id`: the last one completes the warp's access.
    template <class Release>
    void data_return(std::uint32_t id, Release&& release) {
        const std::uint32_t slot = prt_.warp(id);
        const Operands writes = pending_[id].writes;
        if (prt_.reply(id) && writes.dsts.any()) release(slot, writes, true);
    }
    /// Fills release the requests merged in their MSHR, one per cache per cycle.
    template <class Release>
    void drain_fills(Release&& release) {
        if (l1d_.has_ready()) data_return(l1d_.pop_ready(), release);
        if (const_.has_ready()) data_return(const_.pop_ready(), release);
        if (tex_.has_ready()) data_return(tex_.pop_ready(), release);
    }

    /// True when no access is in the access step (a new one may enter).
    [[nodiscard]] bool access_free() const noexcept { return current_ == no_entry_; }
    /// True when an access of `si` finds a PRT entry (shared accesses need none).
    [[nodiscard]] bool can_take(const isa::static_inst& si) const noexcept {
        return !uses_hierarchy_ || si.space == isa::mem_space::shared ||
               si.mop == isa::mem_op::none || !prt_.full();
    }

    /// Issues a global, local, constant, texture or atomic access of warp `s` writing
    /// `writes`: its PRT entry holds the coalesced transactions, which the access step takes
    /// from `now + agen` on (after address generation).
    void issue(std::uint32_t s, const isa::dynamic_inst<WarpSize>& d, const Operands& writes,
               std::uint64_t now, std::uint64_t agen, sm_stats& counts, results_type& results) {
        pending pe;
        pe.writes = writes;
        const std::uint64_t base = classify_(d.si, pe, counts);
        const mem::lane_addresses<WarpSize>* addr = &d.addr;
        if (base != 0) {
            addr_tmp_ = d.addr;
            d.active.for_each([&](std::size_t l) { addr_tmp_[l] += base; });
            addr = &addr_tmp_;
        }
        const std::uint32_t bytes = d.si.access_bytes == 0 ? 4u : d.si.access_bytes;
        const auto id = prt_.insert(s, *addr, bytes, d.active);
        if (!id) { // no active lane: nothing to fetch
            if (writes.dsts.any()) results.push(result_type{now + agen, s, writes});
            return;
        }
        if (pe.kind != access_kind::constant && pe.kind != access_kind::texture)
            counts.global_transactions += prt_.requests(*id).size();
        pending_[*id] = pe;
        current_ = *id;
        current_at_ = now + agen;
    }

    /// The access step at `now`: up to l1.transactions_per_cycle transactions of the current
    /// access meet their cache, in order. One that cannot proceed (no way free, MSHRs full,
    /// miss queue full) retries the next cycle and holds the LD/ST unit. L1 hits return their
    /// data through `results`.
    void access_step(std::uint64_t now, results_type& results) {
        if (current_ == no_entry_ || now < current_at_) return;
        const std::uint32_t id = current_;
        for (std::uint32_t k = 0; k < l1_.transactions_per_cycle; ++k) {
            const auto& t = prt_.requests(id)[prt_.sent(id)];
            const bool last = prt_.sent(id) + 1 == prt_.requests(id).size();
            if (!access_one_(id, t, now, results)) {
                ++ms_.access_stalls;
                return;
            }
            if (last) {
                current_ = no_entry_;
                return;
            }
        }
    }

    /// True when nothing of the hierarchy side is in flight.
    [[nodiscard]] bool idle() const noexcept {
        return current_ == no_entry_ && prt_.occupancy() == 0 && writes_pending_ == 0 &&
               replies_.empty() && atomics_.empty() && l1d_.miss_queue().empty() &&
               const_.miss_queue().empty() && tex_.miss_queue().empty() &&
               l1d_.mshrs().occupancy() == 0 && const_.mshrs().occupancy() == 0 &&
               tex_.mshrs().occupancy() == 0;
    }

    /// Counters of the memory side (zero with the ideal memory).
    [[nodiscard]] sm_memory_stats stats() const {
        sm_memory_stats m = ms_;
        if (uses_hierarchy_) {
            m.l1d = l1d_.stats();
            m.constant = const_.stats();
            m.texture = tex_.stats();
            m.prt = prt_.stats();
        }
        return m;
    }
    /// Restarts the counters of the port, its caches and its PRT.
    void reset_stats() {
        reset_counters(ms_);
        prt_.reset_stats();
        l1d_.reset_stats();
        const_.reset_stats();
        tex_.reset_stats();
    }
    [[nodiscard]] const cache_type& l1d() const noexcept { return l1d_; }
    [[nodiscard]] const cache_type& constant_cache() const noexcept { return const_; }
    [[nodiscard]] const cache_type& texture_cache() const noexcept { return tex_; }

private:
    static constexpr std::uint32_t no_entry_ = ~std::uint32_t{0};
    // What a pending-request-table entry is.
    enum class access_kind : std::uint8_t { load, constant, texture, store, atomic };
    struct pending {
        Operands writes{};
        access_kind kind = access_kind::load;
    };
    // Request sources: 0 L1 data, 1 constant, 2 atomics, 3 texture.
    static constexpr std::uint32_t ports_ = 4;
    static constexpr std::uint32_t atomic_port_ = 2;
    static constexpr std::uint32_t no_port_ = ports_;
    using transaction = mem::transaction<WarpSize>;

    // The SM's part of the memory params (the network and partitions are the GPU's).
    static const l1_params& checked_l1_(const memory_params& m) {
        try {
            validate(m.l1);
        } catch (const config_error& e) {
            throw e.with_prefix("l1");
        }
        return m.l1;
    }
    // The smallest L1 side, for SMs on the ideal memory (the parts exist but stay unused).
    static l1_params minimal_l1_() {
        l1_params l;
        l.data.cache.sets = 1;
        l.data.cache.ways = 1;
        l.data.mshr = mem::mshr_params{1, 1};
        l.data.miss_queue = 2;
        l.constant = l.data;
        l.texture = l.data;
        l.prt.entries = 1;
        l.reply_queue = 1;
        l.atomic_queue = 1;
        return l;
    }

    // The kind of an access and the base of its address space; counts the access.
    static std::uint64_t classify_(const isa::static_inst& si, pending& pe, sm_stats& counts) {
        switch (si.space) {
        case isa::mem_space::constant:
        case isa::mem_space::param:
            pe.kind = access_kind::constant;
            ++counts.const_accesses;
            return constant_space_base;
        case isa::mem_space::texture: // texels are global memory, through the texture cache
            pe.kind = access_kind::texture;
            ++counts.tex_accesses;
            return 0;
        default:
            pe.kind = si.mop == isa::mem_op::store    ? access_kind::store
                      : si.mop == isa::mem_op::atomic ? access_kind::atomic
                                                      : access_kind::load;
            ++counts.global_accesses;
            return si.space == isa::mem_space::local ? local_space_base : 0;
        }
    }

    // Transaction `t` of PRT entry `id` meets its cache; false when it must retry.
    bool access_one_(std::uint32_t id, const transaction& t, std::uint64_t now,
                     results_type& results) {
        switch (pending_[id].kind) {
        case access_kind::load:
        case access_kind::constant:
        case access_kind::texture:
            return read_(id, t, now, results);
        case access_kind::store:
            return write_(id, t);
        case access_kind::atomic:
            return atomic_(id, t);
        }
        return false;
    }

    [[nodiscard]] static bool stalled_(mem::access_status st) noexcept {
        return st == mem::access_status::stall_reservation ||
               st == mem::access_status::stall_mshr || st == mem::access_status::stall_queue;
    }
    // A load, constant or texture transaction reads its cache; a hit returns after the
    // cache's latency.
    bool read_(std::uint32_t id, const transaction& t, std::uint64_t now, results_type& results) {
        const access_kind kind = pending_[id].kind;
        auto& c =
            kind == access_kind::load ? l1d_ : (kind == access_kind::constant ? const_ : tex_);
        const auto st = c.read(t.addr, t.size, id);
        if (stalled_(st)) return false;
        static_cast<void>(prt_.send(id));
        if (st == mem::access_status::hit) {
            const std::uint64_t lat = kind == access_kind::load       ? l1_.data_latency
                                      : kind == access_kind::constant ? l1_.constant_latency
                                                                      : l1_.texture_latency;
            results.push(result_type{now + lat, prt_.warp(id), Operands{}, id});
        }
        return true;
    }
    // A store writes the L1 and retires once the L1 took it.
    bool write_(std::uint32_t id, const transaction& t) {
        auto& q = l1d_.miss_queue();
        const std::size_t before = q.size();
        const auto st = l1d_.write(t.addr, t.size);
        if (stalled_(st)) return false;
        // Writes leave in miss-queue order: their data sizes queue alongside.
        if (q.size() > before && q.back().kind == mem::mem_request_kind::write)
            write_bytes_.push(t.bytes.count());
        static_cast<void>(prt_.send(id));
        static_cast<void>(prt_.reply(id));
        return true;
    }
    // An atomic waits for the request port.
    bool atomic_(std::uint32_t id, const transaction& t) {
        if (!atomics_.can_push()) return false;
        mem_message m;
        m.addr = t.addr;
        m.sm = id_;
        m.tag = id;
        m.data_bytes = t.bytes.count();
        m.reply_bytes = t.bytes.count();
        m.kind = mem_kind::atomic;
        atomics_.push(m);
        static_cast<void>(prt_.send(id));
        return true;
    }

    // The port the next request leaves from: the sources in turn.
    [[nodiscard]] std::uint32_t pick_() const noexcept {
        if (!uses_hierarchy_) return no_port_;
        for (std::uint32_t k = 0; k < ports_; ++k) {
            const std::uint32_t j = (next_port_ + k) % ports_;
            const bool any =
                j == atomic_port_ ? !atomics_.empty() : !cache_of_(j).miss_queue().empty();
            if (any) return j;
        }
        return no_port_;
    }
    // The cache behind request source k (0, 1 or 3).
    [[nodiscard]] const cache_type& cache_of_(std::uint32_t k) const noexcept {
        return k == 0 ? l1d_ : (k == 1 ? const_ : tex_);
    }
    [[nodiscard]] cache_type& cache_of_(std::uint32_t k) noexcept {
        return k == 0 ? l1d_ : (k == 1 ? const_ : tex_);
    }
    [[nodiscard]] std::uint64_t flits_(std::uint32_t bytes) const noexcept {
        return bytes == 0 ? 1 : (bytes + flit_bytes_ - 1) / flit_bytes_;
    }

    std::uint32_t id_;
    bool uses_hierarchy_;
    l1_params l1_;
    mem::pending_request_table<WarpSize, Coalescer> prt_;
    std::vector<pending> pending_; // per PRT entry
    cache_type l1d_;
    cache_type const_;
    cache_type tex_;
    fifo<std::uint32_t> write_bytes_; // data bytes of the writes in l1d_'s miss queue
    fifo<mem_message> atomics_;       // atomics waiting for the request port
    fifo<mem_message> replies_;       // replies taken from the reply port
    std::uint32_t flit_bytes_;        // of the network (request_flits)
    std::uint32_t header_bytes_;      // of every request
    mem::lane_addresses<WarpSize> addr_tmp_{};
    std::uint32_t current_ = no_entry_; // PRT entry in the access step
    std::uint64_t current_at_ = 0;      // first cycle it may meet its cache
    std::uint64_t writes_pending_ = 0;
    std::uint32_t next_port_ = 0;
    sm_memory_stats ms_{};
};

} // namespace warpkit::gpu::stages
