#pragma once
/// \file
/// `cache`: the tag and state array of a set-associative cache (sets x ways of `line_bytes`
/// lines, optionally split into 32-byte sectors) with LRU or FIFO replacement, write-back,
/// write-through or write-evict, write-allocate or not, and allocation of a read miss's line
/// when the miss is sent (`on_miss`, the line then waits "reserved" for its fill) or when the
/// data returns (`on_fill`). It decides; the caller moves data (see mshr_table and
/// cache_controller). Defaults: the GTX480 L1D, 32 sets x 128 B x 4 ways.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace warpkit::mem {

/// Which line of a full set makes room.
enum class replacement : std::uint8_t { lru, fifo };
/// What a write does.
enum class write_policy : std::uint8_t {
    write_back,    ///< update the line, mark it dirty, write it below when evicted
    write_through, ///< update the line (if present) and forward the write below
    write_evict    ///< invalidate the line (if present) and forward the write below
};
/// When a read miss takes a line of its set.
enum class allocate_policy : std::uint8_t { on_miss, on_fill };

} // namespace warpkit::mem

template <>
struct warpkit::enum_names<warpkit::mem::replacement> {
    static constexpr std::array<std::string_view, 2> names = {"lru", "fifo"};
};
template <>
struct warpkit::enum_names<warpkit::mem::write_policy> {
    static constexpr std::array<std::string_view, 3> names = {"write_back", "write_through",
                                                              "write_evict"};
};
template <>
struct warpkit::enum_names<warpkit::mem::allocate_policy> {
    static constexpr std::array<std::string_view, 2> names = {"on_miss", "on_fill"};
};

namespace warpkit::mem {

/// Geometry and policies of a cache. Defaults: GTX480 L1D (16 KB, 32 x 128 B x 4, LRU,
/// write-evict without write-allocate for global data, lines reserved on miss).
struct cache_params {
    std::uint32_t sets = 32;
    std::uint32_t line_bytes = 128;
    std::uint32_t ways = 4;
    replacement repl = replacement::lru;
    write_policy write = write_policy::write_evict;
    bool write_allocate = false;
    allocate_policy allocate = allocate_policy::on_miss;
    /// 0: whole lines; otherwise sectors of this many bytes, each valid and dirty alone.
    std::uint32_t sector_bytes = 0;
    /// Cycles added to every access (paper 002: one for an L1 fused from two SMs' L1s).
    std::uint32_t extra_latency = 0;
    WARPKIT_FIELDS(cache_params, sets, line_bytes, ways, repl, write, write_allocate, allocate,
                   sector_bytes, extra_latency)

    void validate() const {
        check(sets >= 1 && sets <= (1u << 20) && std::has_single_bit(sets), "sets", sets,
              "a power of two in [1, 1048576]");
        check(line_bytes >= 4 && line_bytes <= 4096 && std::has_single_bit(line_bytes),
              "line_bytes", line_bytes, "a power of two in [4, 4096]");
        check_range("ways", ways, 1u, 64u);
        check(sector_bytes == 0 || (std::has_single_bit(sector_bytes) &&
                                    sector_bytes <= line_bytes && line_bytes / sector_bytes <= 32),
              "sector_bytes", sector_bytes,
              "0 or a power of two <= line_bytes with at most 32 sectors per line");
        check_range("extra_latency", extra_latency, 0u, 1000u);
    }
    /// Bytes of data the cache holds.
    [[nodiscard]] constexpr std::uint64_t capacity_bytes() const noexcept {
        return std::uint64_t{sets} * ways * line_bytes;
    }
    /// Sectors per line (1 when not sectored).
    [[nodiscard]] constexpr std::uint32_t sectors_per_line() const noexcept {
        return sector_bytes == 0 ? 1u : line_bytes / sector_bytes;
    }
};

/// GTX480 L1 data cache: 16 KB, 32 sets x 128 B x 4 ways.
[[nodiscard]] constexpr cache_params fermi_l1d() noexcept {
    return {};
}
/// One of the GTX480's 12 L2 slices: 64 KB, 64 sets x 128 B x 8 ways, write-back and
/// write-allocate.
[[nodiscard]] constexpr cache_params fermi_l2_slice() noexcept {
    cache_params p;
    p.sets = 64;
    p.ways = 8;
    p.write = write_policy::write_back;
    p.write_allocate = true;
    return p;
}
/// The L1 of two fused SMs (paper 002 Section 4): twice the associativity, one more cycle.
[[nodiscard]] constexpr cache_params fused(cache_params p) noexcept {
    p.ways *= 2;
    p.extra_latency += 1;
    return p;
}

/// Counters of one cache (DC_RH / DC_RM / DC_WH / DC_WM of the power model, L2 likewise).
struct cache_stats {
    std::uint64_t read_hits = 0;
    std::uint64_t read_misses = 0;        ///< line or sector misses that fetch
    std::uint64_t read_hits_reserved = 0; ///< tag hits on data still on its way (no fetch)
    std::uint64_t write_hits = 0;
    std::uint64_t write_misses = 0;
    std::uint64_t sector_misses = 0;     ///< misses of a present line (part of the misses)
    std::uint64_t reservation_fails = 0; ///< accesses refused: every way awaits a fill
    std::uint64_t evictions = 0;         ///< valid lines replaced
    std::uint64_t writebacks = 0;        ///< dirty lines written below
    std::uint64_t writes_forwarded = 0;  ///< write-through / write-evict / no-allocate writes
    std::uint64_t fills = 0;
    WARPKIT_FIELDS(cache_stats, read_hits, read_misses, read_hits_reserved, write_hits,
                   write_misses, sector_misses, reservation_fails, evictions, writebacks,
                   writes_forwarded, fills)
};

/// Misses over reads; 0 without reads.
[[nodiscard]] constexpr double read_miss_rate(const cache_stats& s) noexcept {
    const std::uint64_t r = s.read_hits + s.read_misses + s.read_hits_reserved;
    return r == 0 ? 0.0 : static_cast<double>(s.read_misses) / static_cast<double>(r);
}

/// How an access went.
enum class cache_outcome : std::uint8_t {
    hit,             ///< data present (a write hit too)
    hit_reserved,    ///< line present, the data is on its way: merge with the pending miss
    miss,            ///< fetch `fetch_sectors` of the line (or, for a write, forward it)
    sector_miss,     ///< line present, some sectors absent: fetch them
    reservation_fail ///< no way can take the line now; nothing changed, retry later
};

/// What the caller must do after an access or a fill.
struct cache_result {
    cache_outcome outcome = cache_outcome::hit;
    std::uint64_t line_addr = 0;     ///< address of the accessed line
    std::uint32_t fetch_sectors = 0; ///< sectors to read from below (0: none)
    bool forward_write = false;      ///< send the write below
    bool writeback = false;          ///< a dirty victim must be written below
    std::uint64_t writeback_addr = 0;
    std::uint32_t writeback_sectors = 0; ///< its dirty sectors
};

/// Tag and state array of a set-associative cache.
class cache {
public:
    using params_type = cache_params;
    using stats_type = cache_stats;

    explicit cache(const cache_params& p = {})
        : p_((validate(p), p)), line_shift_(static_cast<unsigned>(std::countr_zero(p.line_bytes))),
          sector_shift_(p.sector_bytes == 0
                            ? line_shift_
                            : static_cast<unsigned>(std::countr_zero(p.sector_bytes))),
          all_sectors_(p.sectors_per_line() == 32 ? ~0u : (1u << p.sectors_per_line()) - 1u),
          lines_(std::size_t{p.sets} * p.ways) {}

    [[nodiscard]] const cache_params& params() const noexcept { return p_; }
    /// Address of the line holding `addr`.
    [[nodiscard]] constexpr std::uint64_t line_of(std::uint64_t addr) const noexcept {
        return addr >> line_shift_ << line_shift_;
    }
    /// Set of `addr`: line number mod sets.
    [[nodiscard]] constexpr std::uint32_t set_of(std::uint64_t addr) const noexcept {
        return static_cast<std::uint32_t>((addr >> line_shift_) & (p_.sets - 1u));
    }
    /// Sectors of the line covered by bytes [addr, addr + bytes) (bytes >= 1, within the line).
    [[nodiscard]] constexpr std::uint32_t sectors_of(std::uint64_t addr,
                                                     std::uint32_t bytes) const noexcept {
        const std::uint64_t off = addr - line_of(addr);
        const auto first = static_cast<std::uint32_t>(off >> sector_shift_);
        const auto last = static_cast<std::uint32_t>((off + bytes - 1) >> sector_shift_);
        const std::uint32_t upto = last >= 31 ? ~0u : (2u << last) - 1u;
        return upto & ~((1u << first) - 1u) & all_sectors_;
    }
    /// Every sector of a line.
    [[nodiscard]] constexpr std::uint32_t all_sectors() const noexcept { return all_sectors_; }

    /// True when the line of `addr` is present with every sector of `sectors` valid.
    [[nodiscard]] bool probe(std::uint64_t addr, std::uint32_t sectors = ~0u) const noexcept {
        const line* l = find(addr);
        const std::uint32_t want = sectors & all_sectors_;
        return l != nullptr && (l->valid & want) == want;
    }
    /// What `access` would answer, without changing anything (no stats either).
    [[nodiscard]] cache_outcome peek(std::uint64_t addr, bool is_write,
                                     std::uint32_t sectors = ~0u) const noexcept {
        return classify(addr, is_write, sectors & all_sectors_);
    }

    /// True when `access(addr, is_write, ...)` would take a way whose dirty line must be
    /// written back (so a caller can reserve room for the write-back first).
    [[nodiscard]] bool would_write_back(std::uint64_t addr, bool is_write) const noexcept {
        if (find(addr) != nullptr || !needs_way(is_write)) return false;
        const line* v = victim(addr);
        return v != nullptr && v->present && v->dirty != 0;
    }
    /// True when a fill of the line of `addr` would write back a dirty victim (on_fill only).
    [[nodiscard]] bool fill_would_write_back(std::uint64_t addr) const noexcept {
        if (p_.allocate != allocate_policy::on_fill || find(addr) != nullptr) return false;
        const line* v = victim(addr);
        return v != nullptr && v->present && v->dirty != 0;
    }
    /// True when a write forwards data below (write-through, write-evict, or a write-back
    /// miss without write-allocate).
    [[nodiscard]] bool write_forwards(std::uint64_t addr,
                                      std::uint32_t sectors = ~0u) const noexcept {
        if (p_.write != write_policy::write_back) return true;
        return !p_.write_allocate &&
               classify(addr, true, sectors & all_sectors_) == cache_outcome::miss;
    }

    /// Reads (is_write false) or writes the `sectors` of the line holding `addr`.
    cache_result access(std::uint64_t addr, bool is_write, std::uint32_t sectors = ~0u) {
        sectors &= all_sectors_;
        ++clock_;
        cache_result r;
        r.line_addr = line_of(addr);
        r.outcome = classify(addr, is_write, sectors);
        line* l = find(addr);
        if (r.outcome == cache_outcome::reservation_fail) {
            ++stats_.reservation_fails;
            return r;
        }
        return is_write ? do_write(r, l, sectors) : do_read(r, l, sectors);
    }

    /// Data of `sectors` of the line holding `addr` arrived from below. With on_fill
    /// allocation the line takes a way now (which may write back a dirty victim); a fill of a
    /// line no longer reserved (on_miss) is dropped.
    cache_result fill(std::uint64_t addr, std::uint32_t sectors = ~0u) {
        sectors &= all_sectors_;
        ++clock_;
        ++stats_.fills;
        cache_result r;
        r.line_addr = line_of(addr);
        line* l = find(addr);
        if (l == nullptr) {
            if (p_.allocate == allocate_policy::on_miss) return r;
            l = victim(addr);
            WARPKIT_EXPECTS(l != nullptr); // on_fill never reserves a way
            evict(*l, r);
            place(*l, addr);
        }
        l->valid |= sectors;
        l->pending &= ~sectors;
        return r;
    }

    /// Drops every line (dirty data is lost: call flush first to write it back).
    void invalidate_all() noexcept {
        for (auto& l : lines_)
            l = line{};
    }
    /// Calls f(line_addr, dirty_sectors) for every dirty line and cleans it; returns how many.
    template <class F>
    std::size_t flush(F&& f) {
        std::size_t n = 0;
        for (auto& l : lines_)
            if (l.present && l.dirty != 0) {
                f(l.tag, l.dirty);
                l.dirty = 0;
                ++n;
                ++stats_.writebacks;
            }
        return n;
    }

    [[nodiscard]] const cache_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    struct line {
        bool present = false;      // tag allocated (valid data or reserved for a fill)
        std::uint64_t tag = 0;     // line address
        std::uint32_t valid = 0;   // sectors holding data
        std::uint32_t pending = 0; // sectors being fetched (on_miss reservation)
        std::uint32_t dirty = 0;
        std::uint64_t stamp = 0; // last use (LRU) or allocation (FIFO)
    };

    [[nodiscard]] std::size_t set_base(std::uint64_t addr) const noexcept {
        return std::size_t{set_of(addr)} * p_.ways;
    }
    [[nodiscard]] const line* find(std::uint64_t addr) const noexcept {
        const std::uint64_t tag = line_of(addr);
        const std::size_t b = set_base(addr);
        for (std::size_t w = 0; w < p_.ways; ++w)
            if (lines_[b + w].present && lines_[b + w].tag == tag) return &lines_[b + w];
        return nullptr;
    }
    [[nodiscard]] line* find(std::uint64_t addr) noexcept {
        return const_cast<line*>(static_cast<const cache*>(this)->find(addr));
    }
    // An empty way, else the least recently used (LRU) or oldest (FIFO) line not awaiting a
    // fill; nullptr when every way awaits one.
    [[nodiscard]] const line* victim(std::uint64_t addr) const noexcept {
        const std::size_t b = set_base(addr);
        const line* best = nullptr;
        for (std::size_t w = 0; w < p_.ways; ++w) {
            const line& l = lines_[b + w];
            if (!l.present) return &l;
            if (l.pending != 0) continue;
            if (best == nullptr || l.stamp < best->stamp) best = &l;
        }
        return best;
    }
    [[nodiscard]] line* victim(std::uint64_t addr) noexcept {
        return const_cast<line*>(static_cast<const cache*>(this)->victim(addr));
    }

    // Whether the access needs a new way and can get one.
    [[nodiscard]] bool needs_way(bool is_write) const noexcept {
        if (is_write) return p_.write_allocate && p_.write != write_policy::write_evict;
        return p_.allocate == allocate_policy::on_miss;
    }

    [[nodiscard]] cache_outcome classify(std::uint64_t addr, bool is_write,
                                         std::uint32_t sectors) const noexcept {
        const line* l = find(addr);
        if (l == nullptr)
            return needs_way(is_write) && victim(addr) == nullptr ? cache_outcome::reservation_fail
                                                                  : cache_outcome::miss;
        if ((l->valid & sectors) == sectors) return cache_outcome::hit;
        if (((l->valid | l->pending) & sectors) == sectors) return cache_outcome::hit_reserved;
        return cache_outcome::sector_miss;
    }

    void evict(line& l, cache_result& r) noexcept {
        if (!l.present) return;
        ++stats_.evictions;
        if (l.dirty != 0) {
            r.writeback = true;
            r.writeback_addr = l.tag;
            r.writeback_sectors = l.dirty;
            ++stats_.writebacks;
        }
    }
    void place(line& l, std::uint64_t addr) noexcept {
        l = line{};
        l.present = true;
        l.tag = line_of(addr);
        l.stamp = clock_;
    }
    void touch(line& l) noexcept {
        if (p_.repl == replacement::lru) l.stamp = clock_;
    }
    // Takes a way for the line of `addr` (the outcome was checked: one is available).
    line& allocate(std::uint64_t addr, cache_result& r) noexcept {
        line* v = victim(addr);
        evict(*v, r);
        place(*v, addr);
        return *v;
    }

    cache_result& do_read(cache_result& r, line* l, std::uint32_t sectors) {
        switch (r.outcome) {
        case cache_outcome::hit:
            ++stats_.read_hits;
            touch(*l);
            return r;
        case cache_outcome::hit_reserved:
            ++stats_.read_hits_reserved;
            touch(*l);
            return r;
        case cache_outcome::sector_miss:
            ++stats_.read_misses;
            ++stats_.sector_misses;
            r.fetch_sectors = sectors & ~(l->valid | l->pending);
            if (p_.allocate == allocate_policy::on_miss) l->pending |= r.fetch_sectors;
            touch(*l);
            return r;
        default:
            break;
        }
        ++stats_.read_misses;
        // Non-sectored lines are fetched whole; sectored caches fetch what was asked for.
        r.fetch_sectors = p_.sector_bytes == 0 ? all_sectors_ : sectors;
        if (p_.allocate == allocate_policy::on_miss)
            allocate(r.line_addr, r).pending = r.fetch_sectors;
        return r;
    }

    cache_result& do_write(cache_result& r, line* l, std::uint32_t sectors) {
        const bool present = l != nullptr;
        const bool hit =
            r.outcome == cache_outcome::hit || r.outcome == cache_outcome::hit_reserved;
        if (hit)
            ++stats_.write_hits;
        else
            ++stats_.write_misses;
        switch (p_.write) {
        case write_policy::write_back:
            if (present) {
                // Write-validate: written sectors hold the new data, no fetch needed.
                l->valid |= sectors & ~l->pending;
                l->dirty |= sectors;
                touch(*l);
            } else if (p_.write_allocate) {
                line& n = allocate(r.line_addr, r);
                n.valid = sectors;
                n.dirty = sectors;
            } else {
                r.forward_write = true;
            }
            break;
        case write_policy::write_through:
            r.forward_write = true;
            if (present) {
                l->valid |= sectors & ~l->pending;
                touch(*l);
            } else if (p_.write_allocate) {
                allocate(r.line_addr, r).valid = sectors;
            }
            break;
        case write_policy::write_evict:
            r.forward_write = true;
            // A line awaiting its fill stays reserved; only its stale sectors go.
            if (present) {
                l->valid &= ~sectors;
                if (l->valid == 0 && l->pending == 0) *l = line{};
            }
            break;
        }
        if (r.forward_write) ++stats_.writes_forwarded;
        return r;
    }

    cache_params p_;
    unsigned line_shift_;
    unsigned sector_shift_;
    std::uint32_t all_sectors_;
    std::vector<line> lines_;
    std::uint64_t clock_ = 0;
    cache_stats stats_{};
};

} // namespace warpkit::mem
