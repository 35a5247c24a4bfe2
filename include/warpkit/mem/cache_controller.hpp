#pragma once
/// \file
/// `cache_controller<T>`: a cache with its MSHR table and miss queue, the way an L1 or an L2
/// slice sits in a GPU. Reads that hit return at once; a read miss takes an MSHR entry and
/// queues one fetch below, later misses to the same line (sector, in a sectored cache) merge
/// into the entry; writes follow the cache's write policy and queue what goes below. When an
/// access cannot proceed (no way free, MSHRs full, miss queue full) nothing changes and the
/// caller retries. Replies from below go to `fill`; the requests they satisfy come out of
/// `pop_ready` in arrival order.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/mshr.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::mem {

/// Kind of a request sent below a cache.
enum class mem_request_kind : std::uint8_t { read, write, writeback };

/// A request a cache sends to the level below (and gets back, for reads, as a reply).
struct mem_request {
    std::uint64_t addr = 0;    ///< line address (sector address for sectored reads)
    std::uint32_t sectors = 0; ///< sectors of the line concerned
    mem_request_kind kind = mem_request_kind::read;
    friend constexpr bool operator==(const mem_request&, const mem_request&) noexcept = default;
};

/// A cache, its MSHRs and its miss queue.
struct cache_controller_params {
    cache_params cache{};
    mshr_params mshr{};
    std::uint32_t miss_queue = 8; ///< requests waiting to go below
    WARPKIT_FIELDS(cache_controller_params, cache, mshr, miss_queue)

    void validate() const { check_range("miss_queue", miss_queue, 2u, 65536u); }
};

/// What happened to an access.
enum class access_status : std::uint8_t {
    hit,               ///< data available now (reads) or write absorbed / forwarded
    miss,              ///< a fetch was queued; the request comes back through pop_ready
    merged,            ///< joined an outstanding fetch; comes back through pop_ready
    stall_reservation, ///< no way free in the set: retry
    stall_mshr,        ///< no MSHR entry or merge slot: retry
    stall_queue        ///< miss queue full: retry
};

} // namespace warpkit::mem

template <>
struct warpkit::enum_names<warpkit::mem::access_status> {
    static constexpr std::array<std::string_view, 6> names = {
        "hit", "miss", "merged", "stall_reservation", "stall_mshr", "stall_queue"};
};

namespace warpkit::mem {

/// Cache + MSHR table + miss queue; T is the caller's request tag returned by pop_ready.
template <class T = std::uint64_t>
class cache_controller {
public:
    using params_type = cache_controller_params;

    /// Counters: the cache's, the MSHRs' and the stalls seen by callers.
    struct stats_type {
        cache_stats cache{};
        mshr_stats mshr{};
        std::uint64_t stall_reservation = 0;
        std::uint64_t stall_mshr = 0;
        std::uint64_t stall_queue = 0;
        WARPKIT_FIELDS(stats_type, cache, mshr, stall_reservation, stall_mshr, stall_queue)
    };

    explicit cache_controller(const cache_controller_params& p = {})
        : p_((validate(p), p)), cache_(p.cache), mshr_(p.mshr), queue_(p.miss_queue) {}

    [[nodiscard]] const cache_controller_params& params() const noexcept { return p_; }
    [[nodiscard]] const mem::cache& tags() const noexcept { return cache_; }
    [[nodiscard]] const mshr_table<T>& mshrs() const noexcept { return mshr_; }

    /// Reads `bytes` at `addr` (within one line; one sector in a sectored cache) for `req`.
    access_status read(std::uint64_t addr, std::uint32_t bytes, const T& req) {
        const std::uint32_t sectors = cache_.sectors_of(addr, bytes);
        WARPKIT_EXPECTS(p_.cache.sector_bytes == 0 || std::popcount(sectors) == 1);
        const cache_outcome o = cache_.peek(addr, false, sectors);
        if (o == cache_outcome::hit) {
            static_cast<void>(cache_.access(addr, false, sectors));
            return access_status::hit;
        }
        const std::uint64_t key = mshr_key(addr, sectors);
        const mshr_outcome m = mshr_.peek(key);
        if (m == mshr_outcome::full_entries || m == mshr_outcome::full_merges)
            return stall_mshr(key, req);
        if (m == mshr_outcome::merged) {
            static_cast<void>(cache_.access(addr, false, sectors));
            static_cast<void>(mshr_.add(key, req));
            return access_status::merged;
        }
        if (o == cache_outcome::reservation_fail) {
            static_cast<void>(cache_.access(addr, false, sectors)); // counts the failure
            ++stats_.stall_reservation;
            return access_status::stall_reservation;
        }
        const std::size_t need = 1u + (cache_.would_write_back(addr, false) ? 1u : 0u);
        if (queue_.space() < need) {
            ++stats_.stall_queue;
            return access_status::stall_queue;
        }
        const cache_result r = cache_.access(addr, false, sectors);
        static_cast<void>(mshr_.add(key, req));
        push_writeback(r);
        queue_.push(mem_request{p_.cache.sector_bytes == 0 ? r.line_addr : key, r.fetch_sectors,
                                mem_request_kind::read});
        return access_status::miss;
    }

    /// Writes `bytes` at `addr` (within one line). Writes need no reply.
    access_status write(std::uint64_t addr, std::uint32_t bytes) {
        const std::uint32_t sectors = cache_.sectors_of(addr, bytes);
        const cache_outcome o = cache_.peek(addr, true, sectors);
        if (o == cache_outcome::reservation_fail) {
            static_cast<void>(cache_.access(addr, true, sectors));
            ++stats_.stall_reservation;
            return access_status::stall_reservation;
        }
        const std::size_t need = (cache_.write_forwards(addr, sectors) ? 1u : 0u) +
                                 (cache_.would_write_back(addr, true) ? 1u : 0u);
        if (queue_.space() < need) {
            ++stats_.stall_queue;
            return access_status::stall_queue;
        }
        const cache_result r = cache_.access(addr, true, sectors);
        push_writeback(r);
        if (r.forward_write)
            queue_.push(mem_request{r.line_addr, sectors, mem_request_kind::write});
        return o == cache_outcome::hit || o == cache_outcome::hit_reserved ? access_status::hit
                                                                           : access_status::miss;
    }

    /// Requests waiting to go below (pop them as the level below accepts them).
    [[nodiscard]] fifo<mem_request>& miss_queue() noexcept { return queue_; }
    [[nodiscard]] const fifo<mem_request>& miss_queue() const noexcept { return queue_; }

    /// True when `fill` of `reply` can proceed (room for a victim's write-back, if any).
    [[nodiscard]] bool can_fill(const mem_request& reply) const noexcept {
        return !cache_.fill_would_write_back(reply.addr) || queue_.can_push();
    }
    /// The data of a read sent below returned: fill the line, release the merged requests.
    void fill(const mem_request& reply) {
        WARPKIT_EXPECTS(reply.kind == mem_request_kind::read && can_fill(reply));
        push_writeback(cache_.fill(reply.addr, reply.sectors));
        const bool found = mshr_.fill(reply.addr);
        WARPKIT_EXPECTS(found);
    }
    /// True when a request satisfied by a fill waits to be handed back.
    [[nodiscard]] bool has_ready() const noexcept { return mshr_.has_ready(); }
    /// Hands back the next satisfied request.
    T pop_ready() { return mshr_.pop_ready(); }

    [[nodiscard]] stats_type stats() const {
        stats_type s = stats_;
        s.cache = cache_.stats();
        s.mshr = mshr_.stats();
        return s;
    }
    /// Restarts the counters (the cache's and MSHRs' included) from zero; contents stay.
    void reset_stats() noexcept {
        reset_counters(stats_);
        cache_.reset_stats();
        mshr_.reset_stats();
    }

private:
    // Non-sectored caches track misses per line, sectored ones per sector.
    [[nodiscard]] std::uint64_t mshr_key(std::uint64_t addr, std::uint32_t sectors) const noexcept {
        const std::uint64_t line = cache_.line_of(addr);
        if (p_.cache.sector_bytes == 0) return line;
        return line + std::uint64_t{p_.cache.sector_bytes} *
                          static_cast<std::uint64_t>(std::countr_zero(sectors));
    }
    access_status stall_mshr(std::uint64_t key, const T& req) {
        static_cast<void>(mshr_.add(key, req)); // refused: lets the table count it
        ++stats_.stall_mshr;
        return access_status::stall_mshr;
    }
    void push_writeback(const cache_result& r) {
        if (r.writeback)
            queue_.push(
                mem_request{r.writeback_addr, r.writeback_sectors, mem_request_kind::writeback});
    }

    cache_controller_params p_;
    mem::cache cache_;
    mshr_table<T> mshr_;
    fifo<mem_request> queue_;
    stats_type stats_{};
};

} // namespace warpkit::mem
