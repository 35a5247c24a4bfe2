#pragma once
/// \file
/// `mshr_table<T>`: miss status holding registers. One entry per line being fetched; later
/// misses to the same line merge into it up to `max_merged` requests (the entry's first one
/// included). When the line's data returns, the entry's requests come out one by one, in the
/// order they arrived, and the entry is freed after its last. Defaults: GTX480, 64 entries x 8
/// merged requests (paper 002 Table 1: 64 MSHRs per core). Paper 002's MSHR rate is
/// merges / (allocations + merges).

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::mem {

/// Size of an MSHR table.
struct mshr_params {
    std::uint32_t entries = 64;
    std::uint32_t max_merged = 8; ///< requests one entry holds, the first miss included
    WARPKIT_FIELDS(mshr_params, entries, max_merged)

    void validate() const {
        check_range("entries", entries, 1u, 65536u);
        check_range("max_merged", max_merged, 1u, 1024u);
    }
};

/// Counters of an MSHR table.
struct mshr_stats {
    std::uint64_t allocations = 0;  ///< new entries (each a fetch below)
    std::uint64_t merges = 0;       ///< requests added to an existing entry
    std::uint64_t full_entries = 0; ///< refused: no free entry
    std::uint64_t full_merges = 0;  ///< refused: the line's entry holds max_merged requests
    std::uint64_t fills = 0;        ///< lines returned
    std::uint64_t released = 0;     ///< requests handed back after their fill
    WARPKIT_FIELDS(mshr_stats, allocations, merges, full_entries, full_merges, fills, released)
};

/// Merges / (allocations + merges): how much the MSHRs save (paper 002's MSHR rate).
[[nodiscard]] constexpr double mshr_rate(const mshr_stats& s) noexcept {
    const std::uint64_t n = s.allocations + s.merges;
    return n == 0 ? 0.0 : static_cast<double>(s.merges) / static_cast<double>(n);
}

/// What `add` did.
enum class mshr_outcome : std::uint8_t {
    allocated,    ///< new entry: the caller sends the fetch
    merged,       ///< joined the line's entry: no fetch
    full_entries, ///< refused, nothing changed
    full_merges   ///< refused, nothing changed
};

/// MSHR table holding requests of type T (the caller's tag: a warp and register, an id...).
template <class T = std::uint64_t>
class mshr_table {
public:
    using params_type = mshr_params;
    using stats_type = mshr_stats;

    explicit mshr_table(const mshr_params& p = {})
        : p_((validate(p), p)), entries_(p.entries), slots_(std::size_t{p.entries} * p.max_merged),
          ready_(p.entries), valid_((std::size_t{p.entries} + 63) / 64, 0) {}

    [[nodiscard]] const mshr_params& params() const noexcept { return p_; }
    [[nodiscard]] std::size_t occupancy() const noexcept { return used_; }
    [[nodiscard]] bool full() const noexcept { return used_ == entries_.size(); }
    /// True when a fetch of line `line_addr` is outstanding (or returned, not yet drained).
    [[nodiscard]] bool probe(std::uint64_t line_addr) const noexcept {
        return find(line_addr) != npos;
    }
    /// What `add(line_addr, ...)` would do, without doing it.
    [[nodiscard]] mshr_outcome peek(std::uint64_t line_addr) const noexcept {
        return outcome_(find(line_addr));
    }
    /// Records a miss of `req` on line `line_addr`. A line whose data already returned takes
    /// no more merges (its requests are draining): such a miss is refused as full_merges.
    mshr_outcome add(std::uint64_t line_addr, const T& req) {
        const std::size_t found = find(line_addr);
        const mshr_outcome o = outcome_(found);
        switch (o) {
        case mshr_outcome::full_entries:
            ++stats_.full_entries;
            return o;
        case mshr_outcome::full_merges:
            ++stats_.full_merges;
            return o;
        case mshr_outcome::merged: {
            entry& e = entries_[found];
            slots_[slot(e, e.count++)] = req;
            ++stats_.merges;
            return o;
        }
        case mshr_outcome::allocated:
            break;
        }
        // The first free entry (one exists: not full).
        std::size_t w = 0;
        while (valid_[w] == ~std::uint64_t{0})
            ++w;
        const std::size_t i = 64 * w + static_cast<std::size_t>(std::countr_one(valid_[w]));
        valid_[w] |= std::uint64_t{1} << (i % 64);
        entry& e = entries_[i];
        e = entry{true, false, line_addr, 1, 0, static_cast<std::uint32_t>(i)};
        slots_[slot(e, 0)] = req;
        ++used_;
        ++stats_.allocations;
        return o;
    }
    /// The data of line `line_addr` returned: its requests become ready. Returns false when no
    /// entry waits for that line.
    bool fill(std::uint64_t line_addr) {
        const std::size_t i = find(line_addr);
        if (i == npos || entries_[i].filled) return false;
        entries_[i].filled = true;
        ready_.push(static_cast<std::uint32_t>(i));
        ++stats_.fills;
        return true;
    }
    /// True when a request of a filled line waits to be handed back.
    [[nodiscard]] bool has_ready() const noexcept { return !ready_.empty(); }
    /// Line of the next ready request.
    [[nodiscard]] std::uint64_t ready_line() const {
        WARPKIT_EXPECTS(has_ready());
        return entries_[ready_.front()].line;
    }
    /// Hands back the next ready request; frees its entry after the last one.
    T pop_ready() {
        WARPKIT_EXPECTS(has_ready());
        entry& e = entries_[ready_.front()];
        T out = slots_[slot(e, e.next++)];
        ++stats_.released;
        if (e.next == e.count) {
            e.valid = false;
            valid_[e.index / 64] &= ~(std::uint64_t{1} << (e.index % 64));
            --used_;
            ready_.pop();
        }
        return out;
    }

    [[nodiscard]] const mshr_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    static constexpr std::size_t npos = ~std::size_t{0};
    struct entry {
        bool valid = false;
        bool filled = false;
        std::uint64_t line = 0;
        std::uint32_t count = 0; // requests held
        std::uint32_t next = 0;  // next one to hand back
        std::uint32_t index = 0; // own position: its slots start at index * max_merged
    };

    // The entry of line_addr (a line has at most one), visiting the valid entries alone.
    [[nodiscard]] std::size_t find(std::uint64_t line_addr) const noexcept {
        for (std::size_t w = 0; w < valid_.size(); ++w)
            for (std::uint64_t b = valid_[w]; b != 0; b &= b - 1) {
                const std::size_t i = 64 * w + static_cast<std::size_t>(std::countr_zero(b));
                if (entries_[i].line == line_addr) return i;
            }
        return npos;
    }
    // What add() does given find()'s answer `e`.
    [[nodiscard]] mshr_outcome outcome_(std::size_t e) const noexcept {
        if (e != npos)
            return entries_[e].count < p_.max_merged && !entries_[e].filled
                       ? mshr_outcome::merged
                       : mshr_outcome::full_merges;
        return full() ? mshr_outcome::full_entries : mshr_outcome::allocated;
    }
    [[nodiscard]] std::size_t slot(const entry& e, std::uint32_t k) const noexcept {
        return std::size_t{e.index} * p_.max_merged + k;
    }

    mshr_params p_;
    std::vector<entry> entries_;
    std::vector<T> slots_;
    fifo<std::uint32_t> ready_;
    std::vector<std::uint64_t> valid_; // bit i: entries_[i].valid
    std::size_t used_ = 0;
    mshr_stats stats_{};
};

} // namespace warpkit::mem
