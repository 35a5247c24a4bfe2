#pragma once
/// \file
/// `pending_request_table`: the memory coalescing logic's pending request table (paper 001
/// Section 2.5, Fig. 4). An entry is written when a warp issues a memory instruction: per lane
/// the thread index, base and offset address and request size; the coalescer's request masks
/// (one per memory request to send); and a pending request count (PRC), incremented when a
/// request is sent and decremented when its reply returns. The warp's access is satisfied when
/// every request was sent and the PRC is back to zero; the entry is then freed.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/concepts.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace warpkit::mem {

/// Size of a pending request table.
struct prt_params {
    /// Entries (warp memory instructions in flight); default one per warp of a Fermi SM.
    std::uint32_t entries = 48;
    WARPKIT_FIELDS(prt_params, entries)

    void validate() const { check_range("entries", entries, 1u, 4096u); }
};

/// Counters of a pending request table (PRT reads and writes drive its SRAM power).
struct prt_stats {
    std::uint64_t entries_written = 0;    ///< warp accesses accepted
    std::uint64_t requests_generated = 0; ///< request masks produced by the coalescing logic
    std::uint64_t requests_sent = 0;      ///< PRC increments
    std::uint64_t replies = 0;            ///< PRC decrements
    std::uint64_t warps_satisfied = 0;    ///< entries completed and freed
    std::uint64_t rejected_full = 0;      ///< accesses refused because every entry was busy
    WARPKIT_FIELDS(prt_stats, entries_written, requests_generated, requests_sent, replies,
                   warps_satisfied, rejected_full)
};

/// What the table keeps about one lane of a pending access.
struct prt_lane {
    std::uint64_t base = 0;   ///< address of the request that carries the lane
    std::uint32_t offset = 0; ///< the lane's byte offset within it
    std::uint32_t size = 0;   ///< bytes the lane accesses
};

/// The pending request table of one load/store unit, coalescing with `Coalescer`.
template <std::size_t W = 32, class Coalescer = line_coalescer<128>>
requires coalescer<Coalescer, W>
class pending_request_table {
public:
    using params_type = prt_params;
    using stats_type = prt_stats;
    /// Index of an entry.
    using entry_id = std::uint32_t;

    explicit pending_request_table(const prt_params& p = {}, Coalescer c = {})
        : coalescer_(c), entries_((validate(p), p.entries)) {}

    [[nodiscard]] std::size_t capacity() const noexcept { return entries_.size(); }
    [[nodiscard]] std::size_t occupancy() const noexcept { return used_; }
    [[nodiscard]] bool full() const noexcept { return used_ == entries_.size(); }

    /// Writes an entry for warp `warp`'s access and generates its request masks; nullopt (and a
    /// rejected_full count) when every entry is busy. An access with no active lane gets no
    /// entry either: it is satisfied at once.
    [[nodiscard]] std::optional<entry_id> insert(std::uint32_t warp, const lane_addresses<W>& addr,
                                                 std::uint32_t access_bytes, lane_mask<W> active) {
        if (active.none()) return std::nullopt;
        if (full()) {
            ++stats_.rejected_full;
            return std::nullopt;
        }
        entry_id id = 0;
        while (entries_[id].valid)
            ++id;
        entry& e = entries_[id];
        coalescer_.coalesce(addr, access_bytes, active, e.requests);
        for (const auto& t : e.requests)
            for (const std::size_t lane : t.lanes)
                e.lanes[lane] =
                    prt_lane{t.addr, static_cast<std::uint32_t>(addr[lane] - t.addr), access_bytes};
        e.valid = true;
        e.warp = warp;
        e.active = active;
        e.sent = 0;
        e.prc = 0;
        ++used_;
        ++stats_.entries_written;
        stats_.requests_generated += e.requests.size();
        return id;
    }

    /// True when entry `id` holds a pending access.
    [[nodiscard]] bool valid(entry_id id) const noexcept {
        return id < entries_.size() && entries_[id].valid;
    }
    /// Warp that owns entry `id`.
    [[nodiscard]] std::uint32_t warp(entry_id id) const { return at(id).warp; }
    /// Active lanes of the access.
    [[nodiscard]] lane_mask<W> active(entry_id id) const { return at(id).active; }
    /// The lane's base, offset and size (lane must be active).
    [[nodiscard]] const prt_lane& lane(entry_id id, std::size_t l) const {
        WARPKIT_EXPECTS(l < W && at(id).active.test(l));
        return at(id).lanes[l];
    }
    /// All memory requests of the access (with their lane masks), in send order.
    [[nodiscard]] const transaction_list<W>& requests(entry_id id) const { return at(id).requests; }
    /// The pending request count.
    [[nodiscard]] std::uint32_t pending(entry_id id) const { return at(id).prc; }
    /// True while some request of the entry has not been sent.
    [[nodiscard]] bool has_unsent(entry_id id) const {
        return at(id).sent < at(id).requests.size();
    }
    /// Requests of the entry sent so far.
    [[nodiscard]] std::uint32_t sent(entry_id id) const { return at(id).sent; }

    /// Sends the next request of entry `id` (PRC + 1) and returns it.
    const transaction<W>& send(entry_id id) {
        entry& e = at(id);
        WARPKIT_EXPECTS(e.sent < e.requests.size());
        ++e.prc;
        ++stats_.requests_sent;
        return e.requests[e.sent++];
    }

    /// A reply for entry `id` arrived (PRC - 1). Returns true when the warp's access is
    /// satisfied (every request sent, PRC zero); the entry is then freed.
    bool reply(entry_id id) {
        entry& e = at(id);
        WARPKIT_EXPECTS(e.prc > 0);
        --e.prc;
        ++stats_.replies;
        if (e.prc != 0 || e.sent < e.requests.size()) return false;
        e.valid = false;
        --used_;
        ++stats_.warps_satisfied;
        return true;
    }

    [[nodiscard]] const prt_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    struct entry {
        bool valid = false;
        std::uint32_t warp = 0;
        lane_mask<W> active{};
        std::array<prt_lane, W> lanes{};
        transaction_list<W> requests{};
        std::uint32_t sent = 0;
        std::uint32_t prc = 0;
    };

    [[nodiscard]] const entry& at(entry_id id) const {
        WARPKIT_EXPECTS(valid(id));
        return entries_[id];
    }
    [[nodiscard]] entry& at(entry_id id) {
        WARPKIT_EXPECTS(valid(id));
        return entries_[id];
    }

    Coalescer coalescer_;
    std::vector<entry> entries_;
    std::size_t used_ = 0;
    prt_stats stats_{};
};

} // namespace warpkit::mem
