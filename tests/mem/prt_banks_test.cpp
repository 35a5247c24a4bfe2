// Pending request table (paper 001 Fig. 4) and shared-memory banks with broadcast and the
// replay of unserved lanes (paper 004 Section 4.3.2).

#include <warpkit/core/json.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/pending_request_table.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>

using warpkit::warp_mask;
using warpkit::mem::bank_params;
using warpkit::mem::lane_addresses;
using warpkit::mem::pending_request_table;
using warpkit::mem::shared_memory_banks;

namespace {

lane_addresses<32> strided_lanes(std::uint64_t start, std::uint64_t stride) {
    lane_addresses<32> a{};
    for (std::size_t i = 0; i < 32; ++i)
        a[i] = start + stride * i;
    return a;
}

} // namespace

TEST_CASE("PRT entry: per-lane base, offset and size; one request per line") {
    pending_request_table<> prt;
    const auto id = prt.insert(7, strided_lanes(0x1004, 4), 4, warp_mask::full());
    REQUIRE(id.has_value());
    CHECK(prt.occupancy() == 1);
    CHECK(prt.warp(*id) == 7);
    // 0x1004 .. 0x1083: lanes 0-30 in line 0x1000, lane 31 in line 0x1080.
    REQUIRE(prt.requests(*id).size() == 2);
    CHECK(prt.requests(*id)[0].lanes == warp_mask::first_n(31));
    CHECK(prt.lane(*id, 5).base == 0x1000);
    CHECK(prt.lane(*id, 5).offset == 24);
    CHECK(prt.lane(*id, 5).size == 4);
    CHECK(prt.lane(*id, 31).base == 0x1080);
    CHECK(prt.lane(*id, 31).offset == 0);
}

TEST_CASE("PRT pending request count: +1 per send, -1 per reply, satisfied at zero") {
    pending_request_table<> prt;
    const auto id = prt.insert(0, strided_lanes(0, 128), 4, warp_mask::full()); // 32 lines
    REQUIRE(id.has_value());
    REQUIRE(prt.requests(*id).size() == 32);
    std::set<std::uint64_t> sent;
    while (prt.has_unsent(*id))
        sent.insert(prt.send(*id).addr);
    CHECK(sent.size() == 32);
    CHECK(prt.pending(*id) == 32);
    for (int i = 0; i < 31; ++i)
        CHECK_FALSE(prt.reply(*id));
    CHECK(prt.pending(*id) == 1);
    CHECK(prt.reply(*id));
    CHECK_FALSE(prt.valid(*id));
    CHECK(prt.occupancy() == 0);
    const auto& s = prt.stats();
    CHECK(s.entries_written == 1);
    CHECK(s.requests_generated == 32);
    CHECK(s.requests_sent == 32);
    CHECK(s.replies == 32);
    CHECK(s.warps_satisfied == 1);
}

TEST_CASE("PRT: a count back at zero with requests unsent does not satisfy the warp") {
    pending_request_table<> prt;
    const auto id = prt.insert(3, strided_lanes(0, 8), 4, warp_mask::full()); // 2 lines
    REQUIRE(id.has_value());
    static_cast<void>(prt.send(*id));
    CHECK_FALSE(prt.reply(*id));
    CHECK(prt.pending(*id) == 0);
    CHECK(prt.valid(*id));
    static_cast<void>(prt.send(*id));
    CHECK(prt.reply(*id));
    CHECK_THROWS_AS(static_cast<void>(prt.pending(*id)), warpkit::contract_error);
}

TEST_CASE("PRT: full table rejects, freed entries are reused, empty masks need no entry") {
    pending_request_table<> prt(warpkit::mem::prt_params{2});
    const auto a = strided_lanes(0, 4);
    const auto e0 = prt.insert(0, a, 4, warp_mask::full());
    const auto e1 = prt.insert(1, a, 4, warp_mask::full());
    REQUIRE((e0 && e1));
    CHECK(prt.full());
    CHECK_FALSE(prt.insert(2, a, 4, warp_mask::full()).has_value());
    CHECK(prt.stats().rejected_full == 1);
    static_cast<void>(prt.send(*e0));
    CHECK(prt.reply(*e0));
    const auto e2 = prt.insert(2, a, 4, warp_mask::full());
    REQUIRE(e2.has_value());
    CHECK(*e2 == *e0);
    CHECK(prt.warp(*e2) == 2);
    CHECK_FALSE(prt.insert(4, a, 4, warp_mask{}).has_value());
    CHECK(prt.stats().rejected_full == 1); // the empty mask is not a rejection
    CHECK_THROWS_AS(pending_request_table<>(warpkit::mem::prt_params{0}), warpkit::config_error);
}

TEST_CASE("PRT request masks match the base-address comparison of paper 001") {
    warpkit::rng r(11);
    pending_request_table<> prt(warpkit::mem::prt_params{1});
    for (int iter = 0; iter < 500; ++iter) {
        lane_addresses<32> a{};
        for (auto& x : a)
            x = r.below(2048) * 4;
        const warp_mask active{static_cast<std::uint32_t>(r())};
        const auto id = prt.insert(0, a, 4, active);
        if (active.none()) continue;
        REQUIRE(id.has_value());
        // Reference: repeatedly take the first unmasked lane's base, clear all equal bases.
        std::map<std::uint64_t, std::uint32_t> by_base;
        std::uint32_t rest = active.bits();
        std::size_t n = 0;
        while (rest != 0) {
            const auto first = static_cast<std::size_t>(__builtin_ctz(rest));
            const std::uint64_t b = a[first] / 128;
            std::uint32_t mask = 0;
            for (std::size_t l = 0; l < 32; ++l)
                if (((rest >> l) & 1u) && a[l] / 128 == b) mask |= 1u << l;
            rest &= ~mask;
            CHECK(prt.requests(*id)[n].lanes.bits() == mask);
            ++n;
        }
        CHECK(prt.requests(*id).size() == n);
        while (prt.has_unsent(*id))
            static_cast<void>(prt.send(*id));
        for (std::size_t i = 0; i + 1 < n; ++i)
            CHECK_FALSE(prt.reply(*id));
        CHECK(prt.reply(*id));
    }
}

TEST_CASE("PRT with compute capability 1.3 requests") {
    pending_request_table<32, warpkit::mem::cc13_coalescer> prt;
    const auto id = prt.insert(0, strided_lanes(0x1000, 4), 4, warp_mask::full());
    REQUIRE(id.has_value());
    REQUIRE(prt.requests(*id).size() == 2);
    CHECK(prt.lane(*id, 20).base == 0x1040);
    CHECK(prt.lane(*id, 20).offset == 16);
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("banks: bank = (addr / 4) mod 32") {
    shared_memory_banks b;
    CHECK(b.bank_of(0) == 0);
    CHECK(b.bank_of(4) == 1);
    CHECK(b.bank_of(127) == 31);
    CHECK(b.bank_of(128) == 0);
    CHECK(b.bank_of(0x1234) == (0x1234 / 4) % 32);
}

TEST_CASE("banks: classic strides and broadcast") {
    shared_memory_banks b;
    const auto full = warp_mask::full();
    SUBCASE("unit stride is conflict free") {
        const auto r = b.analyse(strided_lanes(0, 4), 4, full);
        CHECK(r.passes == 1);
        CHECK(r.first_served == full);
    }
    SUBCASE("odd stride 3 is conflict free") {
        CHECK(b.analyse(strided_lanes(0, 12), 4, full).passes == 1);
    }
    SUBCASE("stride 2: two-way conflict, first pass serves lanes 0-15") {
        const auto r = b.analyse(strided_lanes(0, 8), 4, full);
        CHECK(r.passes == 2);
        CHECK(r.conflict_degree() == 1);
        CHECK(r.first_served.bits() == 0x0000FFFFu);
    }
    SUBCASE("stride 32: every lane in bank 0") {
        const auto r = b.analyse(strided_lanes(0, 128), 4, full);
        CHECK(r.passes == 32);
        CHECK(r.first_served == warp_mask::single(0));
    }
    SUBCASE("one word for all lanes is a broadcast") {
        lane_addresses<32> a{};
        a.fill(0x44);
        CHECK(b.analyse(a, 4, full).passes == 1);
    }
    SUBCASE("two words of one bank, each wanted by half the warp") {
        lane_addresses<32> a{};
        for (std::size_t i = 0; i < 32; ++i)
            a[i] = i < 16 ? 0 : 128;
        const auto r = b.analyse(a, 4, full);
        CHECK(r.passes == 2);
        CHECK(r.first_served.bits() == 0x0000FFFFu);
    }
    SUBCASE("8-byte words, unit stride: 64 words over 32 banks") {
        const auto r = b.analyse(strided_lanes(0, 8), 8, full);
        CHECK(r.passes == 2);
        CHECK(r.first_served.bits() == 0x0000FFFFu);
    }
    SUBCASE("bytes of one word are a broadcast too") {
        CHECK(b.analyse(strided_lanes(0, 1), 1, full).passes == 1);
    }
}

TEST_CASE("banks: paper 004 replay of the unserved lanes, one bank per SP (8)") {
    shared_memory_banks b(bank_params{8, 4});
    const auto a = strided_lanes(0, 4);
    warp_mask pending = warp_mask::full();
    const std::uint32_t expect[] = {0x000000FFu, 0x0000FF00u, 0x00FF0000u, 0xFF000000u};
    for (const std::uint32_t e : expect) {
        const auto p = b.serve(a, 4, pending);
        CHECK(p.served.bits() == e);
        CHECK(p.words == 8);
        pending = pending.minus(p.served);
    }
    CHECK(pending.none());
    // Lanes already served are not replayed: serving only the remainder leaves the others out.
    const auto p = b.serve(a, 4, warp_mask{0xF0F0F0F0u});
    CHECK(p.served.bits() == 0x000000F0u);
}

TEST_CASE("banks: passes equal the most distinct words any bank must deliver") {
    warpkit::rng r(5);
    shared_memory_banks b;
    for (int iter = 0; iter < 2000; ++iter) {
        lane_addresses<32> a{};
        const std::uint64_t span = 1u + r.below(512);
        for (auto& x : a)
            x = r.below(span) * 4;
        const warp_mask active{static_cast<std::uint32_t>(r())};
        std::map<std::uint32_t, std::set<std::uint64_t>> words;
        for (const std::size_t l : active)
            words[static_cast<std::uint32_t>((a[l] / 4) % 32)].insert(a[l] / 4);
        std::size_t most = 0;
        for (const auto& [bank, w] : words)
            most = std::max(most, w.size());
        CHECK(b.analyse(a, 4, active).passes == most);
    }
}

TEST_CASE("banks: stats and validation") {
    shared_memory_banks b;
    static_cast<void>(b.access(strided_lanes(0, 4), 4, warp_mask::full()));
    static_cast<void>(b.access(strided_lanes(0, 8), 4, warp_mask::full()));
    static_cast<void>(b.access(strided_lanes(0, 4), 4, warp_mask{}));
    const auto& s = b.stats();
    CHECK(s.accesses == 3);
    CHECK(s.passes == 3);
    CHECK(s.conflicts == 1);
    CHECK(s.words == 64);
    CHECK(s.lane_accesses == 64);
    CHECK(s.degree.count(0) == 2);
    CHECK(s.degree.count(1) == 1);
    CHECK(warpkit::stats_to_json(s)["conflicts"] == 1);
    CHECK_THROWS_AS(shared_memory_banks(bank_params{0, 4}), warpkit::config_error);
    CHECK_THROWS_AS(shared_memory_banks(bank_params{2, 4}), warpkit::config_error);
    CHECK_THROWS_AS(shared_memory_banks(bank_params{32, 2}), warpkit::config_error);
    CHECK_NOTHROW(shared_memory_banks(bank_params{2, 8}));
}
