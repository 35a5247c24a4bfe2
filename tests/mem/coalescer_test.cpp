// Coalescers on the classic access patterns, with hand-computed transaction lists, and the
// laws every coalescer obeys on random accesses.

#include <warpkit/core/rng.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/coalescing_stats.hpp>
#include <warpkit/mem/concepts.hpp>
#include <warpkit/mem/inst_access.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

using warpkit::warp_mask;
using warpkit::mem::cc13_coalescer;
using warpkit::mem::fermi_coalescer;
using warpkit::mem::lane_addresses;
using warpkit::mem::line_coalescer;
using warpkit::mem::sector_coalescer;
using warpkit::mem::transaction_list;

static_assert(warpkit::mem::coalescer<cc13_coalescer>);
static_assert(warpkit::mem::coalescer<fermi_coalescer>);
static_assert(warpkit::mem::coalescer<sector_coalescer>);
static_assert(warpkit::mem::coalescer<line_coalescer<64>, 16>);

namespace {

constexpr std::uint64_t base = 0x1000;

struct expect {
    std::uint64_t addr;
    std::uint32_t size;
    std::uint32_t lanes;
};

lane_addresses<32> strided(std::uint64_t start, std::uint64_t stride) {
    lane_addresses<32> a{};
    for (std::size_t i = 0; i < 32; ++i)
        a[i] = start + stride * i;
    return a;
}

// Lanes lo..hi (inclusive) as a bit mask.
constexpr std::uint32_t lanes(unsigned lo, unsigned hi) {
    std::uint32_t m = 0;
    for (unsigned l = lo; l <= hi; ++l)
        m |= 1u << l;
    return m;
}

template <class C>
transaction_list<32> run(const lane_addresses<32>& a, std::uint32_t bytes,
                         warp_mask active = warp_mask::full()) {
    transaction_list<32> out;
    C{}.coalesce(a, bytes, active, out);
    return out;
}

void check_list(const transaction_list<32>& got, const std::vector<expect>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i].addr == want[i].addr);
        CHECK(got[i].size == want[i].size);
        CHECK(got[i].lanes.bits() == want[i].lanes);
    }
}

// Stride-k sectors: lanes [k*n, k*n + n) of each 32-byte sector.
std::vector<expect> sector_run(std::uint64_t start, unsigned sectors, unsigned lanes_each) {
    std::vector<expect> v;
    for (unsigned s = 0; s < sectors; ++s)
        v.push_back({start + 32u * s, 32, lanes(s * lanes_each, s * lanes_each + lanes_each - 1)});
    return v;
}

} // namespace

TEST_CASE("unit stride, 4-byte words") {
    const auto a = strided(base, 4);
    check_list(run<cc13_coalescer>(a, 4),
               {{0x1000, 64, lanes(0, 15)}, {0x1040, 64, lanes(16, 31)}});
    check_list(run<fermi_coalescer>(a, 4), {{0x1000, 128, lanes(0, 31)}});
    check_list(run<sector_coalescer>(a, 4), sector_run(0x1000, 4, 8));
    const auto f = run<fermi_coalescer>(a, 4);
    CHECK(f.requests() == 1);
    CHECK(f[0].sectors() == 0xFu);
    CHECK(f[0].bytes.count() == 128);
}

TEST_CASE("unit stride, 1- and 2-byte words use 32- and 64-byte segments on cc13") {
    // 1-byte: each half-warp reads 16 bytes of the same 32-byte segment.
    check_list(run<cc13_coalescer>(strided(base, 1), 1),
               {{0x1000, 32, lanes(0, 15)}, {0x1000, 32, lanes(16, 31)}});
    check_list(run<fermi_coalescer>(strided(base, 1), 1), {{0x1000, 128, lanes(0, 31)}});
    check_list(run<sector_coalescer>(strided(base, 1), 1), {{0x1000, 32, lanes(0, 31)}});
    // 2-byte: each half-warp uses one half of its 64-byte segment.
    check_list(run<cc13_coalescer>(strided(base, 2), 2),
               {{0x1000, 32, lanes(0, 15)}, {0x1020, 32, lanes(16, 31)}});
}

TEST_CASE("stride 2 (4-byte words, 8-byte pitch)") {
    const auto a = strided(base, 8);
    check_list(run<cc13_coalescer>(a, 4),
               {{0x1000, 128, lanes(0, 15)}, {0x1080, 128, lanes(16, 31)}});
    check_list(run<fermi_coalescer>(a, 4),
               {{0x1000, 128, lanes(0, 15)}, {0x1080, 128, lanes(16, 31)}});
    check_list(run<sector_coalescer>(a, 4), sector_run(0x1000, 8, 4));
    // Every other word: sectors all touched, half of the bytes.
    const auto f = run<fermi_coalescer>(a, 4);
    CHECK(f[0].bytes.count() == 64);
    CHECK(f[0].sectors() == 0xFu);
}

TEST_CASE("stride 4 (16-byte pitch)") {
    const auto a = strided(base, 16);
    const std::vector<expect> four_lines = {{0x1000, 128, lanes(0, 7)},
                                            {0x1080, 128, lanes(8, 15)},
                                            {0x1100, 128, lanes(16, 23)},
                                            {0x1180, 128, lanes(24, 31)}};
    check_list(run<cc13_coalescer>(a, 4), four_lines);
    check_list(run<fermi_coalescer>(a, 4), four_lines);
    check_list(run<sector_coalescer>(a, 4), sector_run(0x1000, 16, 2));
}

TEST_CASE("stride 32 (128-byte pitch): one transaction per lane") {
    const auto a = strided(base, 128);
    std::vector<expect> cc13;
    std::vector<expect> line;
    for (unsigned l = 0; l < 32; ++l) {
        cc13.push_back({base + 128u * l, 32, 1u << l}); // 4 bytes shrink to a 32-byte segment
        line.push_back({base + 128u * l, 128, 1u << l});
    }
    check_list(run<cc13_coalescer>(a, 4), cc13);
    check_list(run<fermi_coalescer>(a, 4), line);
    check_list(run<sector_coalescer>(a, 4), cc13);
}

TEST_CASE("unit stride misaligned by 4 bytes") {
    const auto a = strided(base + 4, 4); // bytes 0x1004 .. 0x1083
    // Half 0 (0x1004..0x1043) spans both halves of segment 0x1000; half 1: lanes 16-30 use
    // 0x1044..0x107f (upper 64 B, both of its 32-B halves), lane 31 alone at 0x1080.
    check_list(run<cc13_coalescer>(a, 4),
               {{0x1000, 128, lanes(0, 15)}, {0x1040, 64, lanes(16, 30)}, {0x1080, 32, 1u << 31}});
    check_list(run<fermi_coalescer>(a, 4), {{0x1000, 128, lanes(0, 30)}, {0x1080, 128, 1u << 31}});
    check_list(run<sector_coalescer>(a, 4), {{0x1000, 32, lanes(0, 6)},
                                             {0x1020, 32, lanes(7, 14)},
                                             {0x1040, 32, lanes(15, 22)},
                                             {0x1060, 32, lanes(23, 30)},
                                             {0x1080, 32, 1u << 31}});
    const auto f = run<fermi_coalescer>(a, 4);
    CHECK(f[0].bytes.count() == 124);
    CHECK_FALSE(f[0].bytes.test(3));
    CHECK(f[0].bytes.test(4));
    CHECK(f[1].bytes.count() == 4);
    CHECK(f[1].sectors() == 0x1u);
}

TEST_CASE("all lanes read one word") {
    lane_addresses<32> a{};
    a.fill(0x1234);
    // Offset 0x34 of segment 0x1200: 128 -> lower 64 -> upper 32 of it, once per half-warp.
    check_list(run<cc13_coalescer>(a, 4),
               {{0x1220, 32, lanes(0, 15)}, {0x1220, 32, lanes(16, 31)}});
    check_list(run<fermi_coalescer>(a, 4), {{0x1200, 128, lanes(0, 31)}});
    check_list(run<sector_coalescer>(a, 4), {{0x1220, 32, lanes(0, 31)}});
    const auto f = run<fermi_coalescer>(a, 4);
    CHECK(f[0].bytes.count() == 4);
    CHECK(f[0].sectors() == 0x2u);
}

TEST_CASE("8-byte words: two half-warp requests") {
    const auto a = strided(base, 8);
    check_list(run<cc13_coalescer>(a, 8),
               {{0x1000, 128, lanes(0, 15)}, {0x1080, 128, lanes(16, 31)}});
    const auto f = run<fermi_coalescer>(a, 8);
    check_list(f, {{0x1000, 128, lanes(0, 15)}, {0x1080, 128, lanes(16, 31)}});
    CHECK(f.requests() == 2);
    CHECK(f[0].request == 0);
    CHECK(f[1].request == 1);
    const auto s = run<sector_coalescer>(a, 8);
    check_list(s, sector_run(0x1000, 8, 4));
    CHECK(s.requests() == 2);
    CHECK(s[3].request == 0);
    CHECK(s[4].request == 1);
    // All lanes on one 8-byte word: still one transaction per half-warp request.
    lane_addresses<32> same{};
    same.fill(0x2008);
    const auto g = run<fermi_coalescer>(same, 8);
    check_list(g, {{0x2000, 128, lanes(0, 15)}, {0x2000, 128, lanes(16, 31)}});
}

TEST_CASE("16-byte words: four quarter-warp requests") {
    const auto a = strided(base, 16);
    const std::vector<expect> four = {{0x1000, 128, lanes(0, 7)},
                                      {0x1080, 128, lanes(8, 15)},
                                      {0x1100, 128, lanes(16, 23)},
                                      {0x1180, 128, lanes(24, 31)}};
    const auto c = run<cc13_coalescer>(a, 16);
    check_list(c, four);
    CHECK(c.requests() == 2); // cc13 works on half-warps whatever the word size
    const auto f = run<fermi_coalescer>(a, 16);
    check_list(f, four);
    CHECK(f.requests() == 4);
    for (std::uint32_t i = 0; i < 4; ++i)
        CHECK(f[i].request == i);
    const auto s = run<sector_coalescer>(a, 16);
    check_list(s, sector_run(0x1000, 16, 2));
    CHECK(s.requests() == 4);
}

TEST_CASE("partial masks") {
    const auto a = strided(base, 4);
    SUBCASE("even lanes") {
        const warp_mask even{0x55555555u};
        check_list(run<cc13_coalescer>(a, 4, even),
                   {{0x1000, 64, 0x5555u}, {0x1040, 64, 0x55550000u}});
        const auto f = run<fermi_coalescer>(a, 4, even);
        check_list(f, {{0x1000, 128, 0x55555555u}});
        CHECK(f[0].bytes.count() == 64);
        CHECK_FALSE(f[0].bytes.test(4));
    }
    SUBCASE("first eight lanes") {
        const auto m = warp_mask::first_n(8);
        const auto c = run<cc13_coalescer>(a, 4, m);
        check_list(c, {{0x1000, 32, lanes(0, 7)}});
        CHECK(c.requests() == 1);
        check_list(run<fermi_coalescer>(a, 4, m), {{0x1000, 128, lanes(0, 7)}});
        check_list(run<sector_coalescer>(a, 4, m), {{0x1000, 32, lanes(0, 7)}});
    }
    SUBCASE("upper half-warp of 8-byte words") {
        const auto b = strided(base, 8);
        const warp_mask upper{0xFFFF0000u};
        const auto f = run<fermi_coalescer>(b, 8, upper);
        check_list(f, {{0x1080, 128, lanes(16, 31)}});
        CHECK(f.requests() == 1);
        CHECK(f[0].request == 1);
    }
    SUBCASE("no active lane") {
        const auto f = run<fermi_coalescer>(a, 4, warp_mask{});
        CHECK(f.empty());
        CHECK(f.requests() == 0);
        CHECK(run<cc13_coalescer>(a, 4, warp_mask{}).empty());
        CHECK(run<sector_coalescer>(a, 4, warp_mask{}).empty());
    }
}

TEST_CASE("a scattered access, by hand") {
    lane_addresses<32> a{};
    a.fill(0);
    a[0] = 0x5004;
    a[3] = 0x9000;
    a[5] = 0x507c;
    a[9] = 0x9044;
    a[20] = 0x5008;
    a[31] = 0x90f0;
    warp_mask m;
    for (unsigned l : {0u, 3u, 5u, 9u, 20u, 31u})
        m.set(l);
    // Half 0: 0x5000 seg (lanes 0, 5: offsets 4, 0x7c -> both halves, 128), 0x9000 seg (lanes
    // 3, 9: offsets 0, 0x44 -> 128). Half 1: lane 20 alone -> 32 at 0x5000; lane 31 at 0x90f0
    // -> segment 0x9080, offset 0x70 -> upper 64 -> upper 32 = 0x90e0.
    check_list(run<cc13_coalescer>(a, 4, m), {{0x5000, 128, (1u << 0) | (1u << 5)},
                                              {0x9000, 128, (1u << 3) | (1u << 9)},
                                              {0x5000, 32, 1u << 20},
                                              {0x90e0, 32, 1u << 31}});
    check_list(run<fermi_coalescer>(a, 4, m), {{0x5000, 128, (1u << 0) | (1u << 5) | (1u << 20)},
                                               {0x9000, 128, (1u << 3) | (1u << 9)},
                                               {0x9080, 128, 1u << 31}});
    check_list(run<sector_coalescer>(a, 4, m), {{0x5000, 32, (1u << 0) | (1u << 20)},
                                                {0x9000, 32, 1u << 3},
                                                {0x5060, 32, 1u << 5},
                                                {0x9040, 32, 1u << 9},
                                                {0x90e0, 32, 1u << 31}});
}

TEST_CASE("64-byte lines and 16-lane warps") {
    lane_addresses<16> a{};
    for (std::size_t i = 0; i < 16; ++i)
        a[i] = base + 4 * i;
    transaction_list<16> out;
    line_coalescer<64>{}.coalesce(a, 4u, warpkit::lane_mask<16>::full(), out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].size == 64);
    // 8-byte words overflow a 64-byte line per 8 lanes: two requests.
    for (std::size_t i = 0; i < 16; ++i)
        a[i] = base + 8 * i;
    line_coalescer<64>{}.coalesce(a, 8u, warpkit::lane_mask<16>::full(), out);
    REQUIRE(out.size() == 2);
    CHECK(out.requests() == 2);
    CHECK(out[1].addr == base + 64);
}

TEST_CASE("preconditions: access size and alignment") {
    const auto a = strided(base, 4);
    transaction_list<32> out;
    CHECK_THROWS_AS(fermi_coalescer{}.coalesce(a, 3u, warp_mask::full(), out),
                    warpkit::contract_error);
    const auto odd = strided(base + 2, 4);
    CHECK_THROWS_AS(cc13_coalescer{}.coalesce(odd, 4u, warp_mask::full(), out),
                    warpkit::contract_error);
    // An inactive lane's address is never looked at.
    auto b = a;
    b[7] = 0x3;
    CHECK_NOTHROW(
        sector_coalescer{}.coalesce(b, 4u, warp_mask::full().minus(warp_mask::single(7)), out));
}

TEST_CASE("coalescing a dynamic_inst and counting") {
    warpkit::isa::dynamic_inst<32> inst;
    inst.si.mop = warpkit::isa::mem_op::load;
    inst.si.space = warpkit::isa::mem_space::global;
    inst.si.access_bytes = 4;
    inst.active = warp_mask::full();
    inst.addr = strided(base, 8);
    CHECK(warpkit::mem::needs_coalescing(inst));
    transaction_list<32> out;
    warpkit::mem::coalesce_inst(fermi_coalescer{}, inst, out);
    CHECK(out.size() == 2);
    warpkit::mem::coalescing_stats st;
    st.record(out, inst.active.count(), inst.si.access_bytes);
    warpkit::mem::coalesce_inst(fermi_coalescer{}, inst, out);
    inst.addr = strided(base, 4);
    warpkit::mem::coalesce_inst(fermi_coalescer{}, inst, out);
    st.record(out, inst.active.count(), inst.si.access_bytes);
    CHECK(st.warp_accesses == 2);
    CHECK(st.transactions == 3);
    CHECK(st.bytes_requested == 256);
    CHECK(st.bytes_moved == 384);
    CHECK(warpkit::mem::coalescing_rate(st) == doctest::Approx(1.5));
    CHECK(warpkit::mem::transfer_efficiency(st) == doctest::Approx(256.0 / 384.0));
    inst.si.space = warpkit::isa::mem_space::shared;
    CHECK_FALSE(warpkit::mem::needs_coalescing(inst));
}

// ---------------------------------------------------------------------------------------------
// Laws over every coalescer
// ---------------------------------------------------------------------------------------------

namespace {

// A random access of one of several shapes: scattered, strided from a random base, clustered.
lane_addresses<32> random_access(warpkit::rng& r, std::uint32_t bytes) {
    lane_addresses<32> a{};
    const auto shape = r.below(3);
    const std::uint64_t start = r.below(1u << 16) * bytes;
    const std::uint64_t stride = (1 + r.below(40)) * bytes;
    for (std::size_t i = 0; i < 32; ++i) {
        switch (shape) {
        case 0:
            a[i] = r.below(1u << 14) * bytes;
            break;
        case 1:
            a[i] = start + stride * i;
            break;
        default:
            a[i] = start + r.below(64) * bytes;
            break;
        }
    }
    return a;
}

} // namespace

TEST_CASE_TEMPLATE("coalescer laws", C, cc13_coalescer, line_coalescer<32>, line_coalescer<64>,
                   line_coalescer<128>, sector_coalescer) {
    warpkit::rng r(2024, 6);
    const std::uint32_t sizes[] = {1, 2, 4, 8, 16};
    transaction_list<32> out;
    for (int iter = 0; iter < 3000; ++iter) {
        const std::uint32_t bytes = sizes[r.below(5)];
        const auto a = random_access(r, bytes);
        const warp_mask active{static_cast<std::uint32_t>(r.bernoulli(0.3) ? 0xFFFFFFFFu : r())};
        C{}.coalesce(a, bytes, active, out);
        CAPTURE(iter);
        CAPTURE(bytes);
        std::set<std::uint32_t> request_ids;
        warp_mask seen;
        for (const auto& t : out) {
            request_ids.insert(t.request);
            CHECK(t.lanes.any());
            CHECK(active.contains(t.lanes)); // no inactive lane
            CHECK((seen & t.lanes).none());  // each lane in exactly one transaction
            seen |= t.lanes;
            CHECK((t.size == 32 || t.size == 64 || t.size == 128));
            CHECK(t.addr % t.size == 0);
            // The byte mask is exactly the lanes' bytes: nothing outside what they access.
            warpkit::mem::byte_mask want;
            for (const std::size_t l : t.lanes) {
                REQUIRE(a[l] >= t.addr);
                REQUIRE(a[l] + bytes <= t.addr + t.size);
                want.set_range(static_cast<std::uint32_t>(a[l] - t.addr), bytes);
            }
            CHECK(want == t.bytes);
        }
        CHECK(seen == active);
        CHECK(out.requests() == request_ids.size());
        // Transactions of one request never overlap (each segment is fetched once per request).
        for (std::size_t i = 0; i < out.size(); ++i)
            for (std::size_t j = i + 1; j < out.size(); ++j)
                if (out[i].request == out[j].request)
                    CHECK((out[i].addr + out[i].size <= out[j].addr ||
                           out[j].addr + out[j].size <= out[i].addr));
    }
}

TEST_CASE("line coalescer: transactions = distinct (request, line) pairs of active lanes") {
    warpkit::rng r(77);
    transaction_list<32> out;
    for (int iter = 0; iter < 1000; ++iter) {
        const std::uint32_t bytes = 4u << r.below(3); // 4, 8, 16
        const auto a = random_access(r, bytes);
        const warp_mask active{static_cast<std::uint32_t>(r())};
        fermi_coalescer{}.coalesce(a, bytes, active, out);
        const std::size_t per = 128 / bytes;
        std::set<std::pair<std::size_t, std::uint64_t>> pairs;
        for (const std::size_t l : active)
            pairs.insert({l / per, a[l] / 128});
        CHECK(out.size() == pairs.size());
    }
}
