// Set-associative cache: replacement sequences by hand (LRU vs FIFO), write policies,
// allocation on miss or on fill, sectors; MSHR merge and full behaviour; the controller that
// ties cache, MSHRs and miss queue together.

#include <warpkit/core/concepts.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/mshr.hpp>

#include "../reset_law.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

using warpkit::mem::access_status;
using warpkit::mem::allocate_policy;
using warpkit::mem::cache;
using warpkit::mem::cache_outcome;
using warpkit::mem::cache_params;
using warpkit::mem::mem_request;
using warpkit::mem::mem_request_kind;
using warpkit::mem::mshr_outcome;
using warpkit::mem::mshr_params;
using warpkit::mem::mshr_table;
using warpkit::mem::replacement;
using warpkit::mem::write_policy;

namespace {

cache_params tiny(std::uint32_t sets, std::uint32_t ways, replacement r = replacement::lru) {
    cache_params p;
    p.sets = sets;
    p.ways = ways;
    p.repl = r;
    return p;
}

// Reads addr; on a miss the data returns at once. 'h' hit, 'm' miss.
char read_now(cache& c, std::uint64_t addr) {
    const auto r = c.access(addr, false);
    if (r.fetch_sectors != 0) static_cast<void>(c.fill(addr, r.fetch_sectors));
    return r.outcome == cache_outcome::hit ? 'h' : 'm';
}

std::string run(cache& c, const std::vector<std::uint64_t>& addrs) {
    std::string s;
    for (auto a : addrs)
        s += read_now(c, a);
    return s;
}

constexpr std::uint64_t A = 0x0000, B = 0x1000, C = 0x2000, D = 0x3000;

} // namespace

TEST_CASE("cache geometry: set = line mod sets; GTX480 presets") {
    cache c; // 32 sets x 128 B x 4 ways
    CHECK(c.params().capacity_bytes() == 16 * 1024);
    CHECK(c.line_of(0x12345) == 0x12300);
    CHECK(c.set_of(0x0) == 0);
    CHECK(c.set_of(0x80) == 1);
    CHECK(c.set_of(0x1000) == 0); // 32 lines later: same set
    CHECK(warpkit::mem::fermi_l2_slice().capacity_bytes() == 64 * 1024);
    CHECK(warpkit::mem::fermi_l2_slice().capacity_bytes() * 12 == 768 * 1024);
    const auto f = warpkit::mem::fused(warpkit::mem::fermi_l1d());
    CHECK(f.ways == 8);
    CHECK(f.sets == 32);
    CHECK(f.extra_latency == 1);
    CHECK(f.capacity_bytes() == 32 * 1024);
}

TEST_CASE("replacement by hand: LRU vs FIFO on one 2-way set") {
    // A B A C B A: LRU evicts B for C (A was just used), then A for B, then C for A.
    // FIFO evicts A for C (oldest) although it was just used, so B still hits.
    cache lru(tiny(1, 2, replacement::lru));
    cache fifo(tiny(1, 2, replacement::fifo));
    CHECK(run(lru, {A, B, A, C, B, A}) == "mmhmmm");
    CHECK(run(fifo, {A, B, A, C, B, A}) == "mmhmhm");
}

TEST_CASE("replacement by hand: 4 ways, a loop one line too long, and reuse") {
    // Cycling through 5 lines in a 4-way set misses every time under LRU and FIFO alike.
    cache lru(tiny(1, 4));
    cache fifo(tiny(1, 4, replacement::fifo));
    const std::uint64_t E = 0x4000;
    CHECK(run(lru, {A, B, C, D, E, A, B, C}) == "mmmmmmmm");
    CHECK(run(fifo, {A, B, C, D, E, A, B, C}) == "mmmmmmmm");
    // A hot line re-read between others survives LRU but not FIFO.
    cache lru2(tiny(1, 4));
    cache fifo2(tiny(1, 4, replacement::fifo));
    CHECK(run(lru2, {A, B, C, D, A, E, A, B}) == "mmmmhmhm");
    CHECK(run(fifo2, {A, B, C, D, A, E, A, B}) == "mmmmhmmm");
}

TEST_CASE("lines of different sets do not evict each other") {
    cache c(tiny(2, 1)); // direct-mapped, 2 sets
    CHECK(run(c, {0x000, 0x080, 0x000, 0x080, 0x100, 0x080, 0x000}) == "mmhhmhm");
}

TEST_CASE("write-back with write-allocate: dirty lines write back when evicted") {
    auto p = tiny(1, 2);
    p.write = write_policy::write_back;
    p.write_allocate = true;
    cache c(p);
    auto w = c.access(A, true);
    CHECK(w.outcome == cache_outcome::miss);
    CHECK_FALSE(w.forward_write);
    CHECK(w.fetch_sectors == 0);
    CHECK(read_now(c, A) == 'h');
    CHECK(read_now(c, B) == 'm');
    w = c.access(B, true);
    CHECK(w.outcome == cache_outcome::hit);
    CHECK_FALSE(w.forward_write);
    // C evicts A (LRU: A read at t2, B written at t4), and A is dirty.
    const auto r = c.access(C, false);
    CHECK(r.writeback);
    CHECK(r.writeback_addr == A);
    CHECK(r.writeback_sectors == 1u);
    static_cast<void>(c.fill(C));
    // Then D evicts B, dirty too; then A again evicts C, clean.
    CHECK(c.access(D, false).writeback_addr == B);
    static_cast<void>(c.fill(D));
    CHECK_FALSE(c.access(A, false).writeback);
    const auto& s = c.stats();
    CHECK(s.write_misses == 1);
    CHECK(s.write_hits == 1);
    CHECK(s.read_hits == 1);
    CHECK(s.read_misses == 4);
    CHECK(s.writebacks == 2);
    CHECK(s.evictions == 3);
    CHECK(s.writes_forwarded == 0);
    std::size_t flushed = 0;
    CHECK(c.flush([&](std::uint64_t, std::uint32_t) { ++flushed; }) == 0); // D clean, A pending
}

TEST_CASE("write-back without write-allocate forwards write misses") {
    auto p = tiny(1, 2);
    p.write = write_policy::write_back;
    cache c(p);
    const auto w = c.access(A, true);
    CHECK(w.outcome == cache_outcome::miss);
    CHECK(w.forward_write);
    CHECK_FALSE(c.probe(A));
}

TEST_CASE("write-through keeps lines clean and forwards every write") {
    auto p = tiny(1, 1);
    p.write = write_policy::write_through;
    cache c(p);
    auto w = c.access(A, true); // miss, no allocate
    CHECK(w.forward_write);
    CHECK_FALSE(c.probe(A));
    CHECK(read_now(c, A) == 'm');
    w = c.access(A, true);
    CHECK(w.outcome == cache_outcome::hit);
    CHECK(w.forward_write);
    CHECK(c.probe(A));
    CHECK_FALSE(c.access(B, false).writeback); // clean victim
    p.write_allocate = true;
    cache d(p);
    CHECK(d.access(A, true).forward_write);
    CHECK(d.probe(A)); // allocated, valid, clean
    CHECK(d.stats().writes_forwarded == 1);
}

TEST_CASE("write-evict invalidates the written line") {
    cache c(tiny(1, 2)); // the L1 default policy
    CHECK(read_now(c, A) == 'm');
    CHECK(c.probe(A));
    const auto w = c.access(A, true);
    CHECK(w.outcome == cache_outcome::hit);
    CHECK(w.forward_write);
    CHECK_FALSE(c.probe(A));
    CHECK(read_now(c, A) == 'm');
    CHECK(c.access(B, true).forward_write); // a write miss allocates nothing
    CHECK_FALSE(c.probe(B));
    CHECK(c.stats().write_hits == 1);
    CHECK(c.stats().write_misses == 1);
}

TEST_CASE("allocate on miss: the line is reserved until its fill") {
    cache c(tiny(1, 1));
    auto r = c.access(A, false);
    CHECK(r.outcome == cache_outcome::miss);
    CHECK(r.fetch_sectors == 1u);
    CHECK(c.access(A, false).outcome == cache_outcome::hit_reserved);
    // The only way waits for A's data: B cannot take it.
    CHECK(c.peek(B, false) == cache_outcome::reservation_fail);
    CHECK(c.access(B, false).outcome == cache_outcome::reservation_fail);
    static_cast<void>(c.fill(A));
    CHECK(c.access(A, false).outcome == cache_outcome::hit);
    CHECK(c.access(B, false).outcome == cache_outcome::miss);
    const auto& s = c.stats();
    CHECK(s.read_misses == 2);
    CHECK(s.read_hits_reserved == 1);
    CHECK(s.reservation_fails == 1);
    CHECK(s.read_hits == 1);
}

TEST_CASE("allocate on fill: nothing is reserved, the way is taken when data returns") {
    auto p = tiny(1, 1);
    p.allocate = allocate_policy::on_fill;
    p.write = write_policy::write_back;
    p.write_allocate = true;
    cache c(p);
    CHECK(c.access(A, false).outcome == cache_outcome::miss);
    CHECK_FALSE(c.probe(A));
    CHECK(c.access(A, false).outcome == cache_outcome::miss); // the MSHR would merge it
    CHECK(c.access(B, true).outcome == cache_outcome::miss);  // B allocated, dirty
    CHECK(c.fill_would_write_back(A));
    const auto f = c.fill(A);
    CHECK(f.writeback);
    CHECK(f.writeback_addr == B);
    CHECK(c.probe(A));
    CHECK_FALSE(c.probe(B));
}

TEST_CASE("sectored lines: sectors miss, wait and fill on their own") {
    auto p = tiny(1, 2);
    p.sector_bytes = 32;
    cache c(p);
    CHECK(c.sectors_of(A + 40, 8) == 0x2u);
    CHECK(c.sectors_of(A + 28, 8) == 0x3u);
    auto r = c.access(A, false, 0x1);
    CHECK(r.outcome == cache_outcome::miss);
    CHECK(r.fetch_sectors == 0x1u);
    r = c.access(A, false, 0x2);
    CHECK(r.outcome == cache_outcome::sector_miss);
    CHECK(r.fetch_sectors == 0x2u);
    CHECK(c.access(A, false, 0x1).outcome == cache_outcome::hit_reserved);
    static_cast<void>(c.fill(A, 0x1));
    CHECK(c.access(A, false, 0x1).outcome == cache_outcome::hit);
    CHECK(c.access(A, false, 0x2).outcome == cache_outcome::hit_reserved);
    CHECK(c.access(A, false, 0x3).outcome == cache_outcome::hit_reserved);
    static_cast<void>(c.fill(A, 0x2));
    CHECK(c.access(A, false, 0x3).outcome == cache_outcome::hit);
    CHECK(c.access(A, false, 0xC).outcome == cache_outcome::sector_miss);
    CHECK(c.stats().sector_misses == 2);
}

TEST_CASE("cache params: validation and overrides") {
    auto p = cache_params{};
    p.sets = 3;
    CHECK_THROWS_AS(cache{p}, warpkit::config_error);
    p = {};
    p.sector_bytes = 24;
    CHECK_THROWS_AS(cache{p}, warpkit::config_error);
    p = {};
    p.ways = 0;
    CHECK_THROWS_AS(cache{p}, warpkit::config_error);
    p = {};
    warpkit::apply_override(p, "repl=fifo");
    warpkit::apply_override(p, "write=write_back");
    CHECK(p.repl == replacement::fifo);
    CHECK(p.write == write_policy::write_back);
    CHECK_THROWS_AS(warpkit::apply_override(p, "allocate=sometimes"), warpkit::config_error);
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("MSHR: merges up to the limit, then refuses") {
    mshr_table<int> m(mshr_params{4, 3});
    CHECK(m.add(0x100, 1) == mshr_outcome::allocated);
    CHECK(m.add(0x100, 2) == mshr_outcome::merged);
    CHECK(m.add(0x100, 3) == mshr_outcome::merged);
    CHECK(m.add(0x100, 4) == mshr_outcome::full_merges);
    CHECK(m.occupancy() == 1);
    CHECK(m.add(0x200, 5) == mshr_outcome::allocated);
    CHECK(m.add(0x300, 6) == mshr_outcome::allocated);
    CHECK(m.add(0x400, 7) == mshr_outcome::allocated);
    CHECK(m.full());
    CHECK(m.add(0x500, 8) == mshr_outcome::full_entries);
    CHECK(m.add(0x400, 9) == mshr_outcome::merged); // a full table still merges
    const auto& s = m.stats();
    CHECK(s.allocations == 4);
    CHECK(s.merges == 3);
    CHECK(s.full_merges == 1);
    CHECK(s.full_entries == 1);
    CHECK(warpkit::mem::mshr_rate(s) == doctest::Approx(3.0 / 7.0));
}

TEST_CASE("MSHR: a fill releases the line's requests in arrival order, then frees it") {
    mshr_table<int> m(mshr_params{2, 8});
    static_cast<void>(m.add(0x100, 1));
    static_cast<void>(m.add(0x200, 2));
    static_cast<void>(m.add(0x100, 3));
    CHECK_FALSE(m.has_ready());
    CHECK_FALSE(m.fill(0x300));
    CHECK(m.fill(0x200));
    CHECK(m.fill(0x100));
    CHECK_FALSE(m.fill(0x100)); // already filled
    // Filled and draining: no more merges.
    CHECK(m.add(0x100, 4) == mshr_outcome::full_merges);
    std::vector<int> got;
    while (m.has_ready())
        got.push_back(m.pop_ready());
    CHECK(got == std::vector<int>{2, 1, 3});
    CHECK(m.occupancy() == 0);
    CHECK_FALSE(m.probe(0x100));
    CHECK(m.add(0x100, 5) == mshr_outcome::allocated);
    CHECK(m.stats().released == 3);
    CHECK_THROWS_AS((mshr_table<int>(mshr_params{0, 8})), warpkit::config_error);
}

TEST_CASE("GTX480 MSHRs: 64 entries x 8 merges") {
    mshr_table<> m;
    for (std::uint64_t i = 0; i < 64; ++i)
        for (std::uint64_t k = 0; k < 8; ++k)
            CHECK(m.add(i * 128, i * 8 + k) ==
                  (k == 0 ? mshr_outcome::allocated : mshr_outcome::merged));
    CHECK(m.add(64 * 128, 0) == mshr_outcome::full_entries);
    CHECK(m.add(5 * 128, 0) == mshr_outcome::full_merges);
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("controller: miss, merge, fill, replies in order") {
    warpkit::mem::cache_controller<int> l1;
    CHECK(l1.read(0x1004, 4, 1) == access_status::miss);
    CHECK(l1.read(0x1040, 4, 2) == access_status::merged);
    CHECK(l1.read(0x2000, 4, 3) == access_status::miss);
    REQUIRE(l1.miss_queue().size() == 2);
    CHECK(l1.miss_queue()[0] == mem_request{0x1000, 1, mem_request_kind::read});
    CHECK(l1.miss_queue()[1] == mem_request{0x2000, 1, mem_request_kind::read});
    const auto first = l1.miss_queue().take();
    CHECK_FALSE(l1.has_ready());
    l1.fill(first);
    CHECK(l1.pop_ready() == 1);
    CHECK(l1.pop_ready() == 2);
    CHECK_FALSE(l1.has_ready());
    CHECK(l1.read(0x1010, 4, 4) == access_status::hit);
    const auto s = l1.stats();
    CHECK(s.cache.read_misses == 2);
    CHECK(s.cache.read_hits_reserved == 1);
    CHECK(s.cache.read_hits == 1);
    CHECK(s.mshr.allocations == 2);
    CHECK(s.mshr.merges == 1);
    CHECK(warpkit::stats_to_json(s)["mshr"]["merges"] == 1);
}

TEST_CASE("controller: MSHR and miss-queue limits stall without changing state") {
    warpkit::mem::cache_controller_params p;
    p.mshr = {2, 2};
    p.miss_queue = 2;
    warpkit::mem::cache_controller<int> c(p);
    CHECK(c.read(0x0000, 4, 1) == access_status::miss);
    CHECK(c.read(0x0004, 4, 2) == access_status::merged);
    CHECK(c.read(0x0008, 4, 3) == access_status::stall_mshr); // merge limit 2
    CHECK(c.read(0x1000, 4, 4) == access_status::miss);
    CHECK(c.read(0x2000, 4, 5) == access_status::stall_mshr); // both entries busy
    CHECK(c.miss_queue().size() == 2);
    CHECK(c.write(0x3000, 4) == access_status::stall_queue); // write-evict forwards: no room
    c.miss_queue().pop();
    CHECK(c.write(0x3000, 4) == access_status::miss);
    CHECK(c.miss_queue().back() == mem_request{0x3000, 1, mem_request_kind::write});
    const auto s = c.stats();
    CHECK(s.stall_mshr == 2);
    CHECK(s.stall_queue == 1);
    CHECK(s.mshr.full_merges == 1);
    CHECK(s.mshr.full_entries == 1);
    CHECK(s.cache.read_misses == 2);
    CHECK(s.cache.write_misses == 1);
}

TEST_CASE("controller: a write-back L2 slice queues dirty victims") {
    warpkit::mem::cache_controller_params p;
    p.cache = warpkit::mem::fermi_l2_slice();
    p.cache.sets = 1;
    p.cache.ways = 1;
    warpkit::mem::cache_controller<int> l2(p);
    CHECK(l2.write(0x0, 128) == access_status::miss); // allocated dirty, nothing below
    CHECK(l2.miss_queue().empty());
    CHECK(l2.read(0x0, 4, 1) == access_status::hit);
    CHECK(l2.read(0x80, 4, 2) == access_status::miss);
    REQUIRE(l2.miss_queue().size() == 2);
    CHECK(l2.miss_queue()[0] == mem_request{0x0, 1, mem_request_kind::writeback});
    CHECK(l2.miss_queue()[1] == mem_request{0x80, 1, mem_request_kind::read});
}

TEST_CASE("controller: sectored cache tracks misses per sector") {
    warpkit::mem::cache_controller_params p;
    p.cache.sector_bytes = 32;
    warpkit::mem::cache_controller<int> c(p);
    CHECK(c.read(0x1000, 4, 1) == access_status::miss);
    CHECK(c.read(0x1020, 4, 2) == access_status::miss);
    CHECK(c.read(0x1024, 4, 3) == access_status::merged);
    REQUIRE(c.miss_queue().size() == 2);
    CHECK(c.miss_queue()[0] == mem_request{0x1000, 0x1, mem_request_kind::read});
    CHECK(c.miss_queue()[1] == mem_request{0x1020, 0x2, mem_request_kind::read});
    c.fill(c.miss_queue()[1]);
    CHECK(c.pop_ready() == 2);
    CHECK(c.pop_ready() == 3);
    CHECK_FALSE(c.has_ready());
    CHECK(c.read(0x1030, 4, 4) == access_status::hit);
    CHECK(c.read(0x1010, 4, 5) == access_status::merged);
    CHECK_THROWS_AS(static_cast<void>(c.read(0x101c, 8, 6)), warpkit::contract_error);
}

TEST_CASE("law: reset_stats restarts a cache controller's counters, contents and misses stay") {
    static_assert(warpkit::observable_component<warpkit::mem::cache_controller<>>);
    static_assert(warpkit::observable_component<warpkit::mem::cache>);
    static_assert(warpkit::observable_component<warpkit::mem::mshr_table<>>);
    // Random reads and writes over 64 KB (four times the GTX480 L1); reads sent below come
    // back in order after a random delay.
    struct twin {
        warpkit::mem::cache_controller_params p{}; // named, as in the gating laws test
        warpkit::mem::cache_controller<> component{p};
        warpkit::rng r{23};
        std::deque<warpkit::mem::mem_request> below{};
    };
    const auto step = [](twin& t, std::size_t i) {
        auto& c = t.component;
        const std::uint64_t addr = 128 * t.r.below(512) + 4 * t.r.below(32);
        if (t.r.bernoulli(0.7))
            (void)c.read(addr, 4, i);
        else
            (void)c.write(addr, 4);
        if (!c.miss_queue().empty()) {
            if (c.miss_queue().front().kind == warpkit::mem::mem_request_kind::read)
                t.below.push_back(c.miss_queue().front());
            c.miss_queue().pop();
        }
        if (!t.below.empty() && t.r.bernoulli(0.4) && c.can_fill(t.below.front())) {
            c.fill(t.below.front());
            t.below.pop_front();
        }
        while (c.has_ready())
            (void)c.pop_ready();
    };
    reset_law::check([] { return twin{}; }, step, 2000, 3000);
}
