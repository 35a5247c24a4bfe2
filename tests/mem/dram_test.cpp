// DRAM channel timing on hand-built request sequences (GTX480 GDDR5: tRCD 12, tRP 12, tRAS 28,
// tRC 40, tRRD 6, tCCD 2, CL 12, WL 4, burst 8 = 2 cycles), FR-FCFS reordering against FCFS,
// operation counters, address mapping; then each GDDR5 constraint on its own (bank groups and
// tCCDL, multi-burst requests, tFAW, all-bank and per-bank refresh, write batching, bit
// layouts and XOR bank hashing) and the lost data-bus cycles by cause.

#include <warpkit/core/rng.hpp>
#include <warpkit/mem/dram_channel.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <vector>

using warpkit::mem::address_map;
using warpkit::mem::dram_channel;
using warpkit::mem::dram_params;
using warpkit::mem::dram_request;
using warpkit::mem::dram_response;
using warpkit::mem::fcfs;
using warpkit::mem::fr_fcfs;

namespace {

// One channel with the basic constraints alone (no refresh, bank groups, four-activate
// window or write batching): the address is (row * 16 + bank) * 2048 + column.
dram_params one_channel() {
    dram_params p;
    p.map.channels = 1;
    p.map.bank_groups = 1;
    p.timing.tFAW = 0;
    p.refresh = warpkit::mem::refresh_mode::none;
    p.write_queue = 0;
    return p;
}
constexpr std::uint64_t at(std::uint32_t bank, std::uint64_t row, std::uint32_t col = 0) {
    return (row * 16 + bank) * 2048 + col;
}

// Ticks until cycle `until`, collecting responses by id.
template <class S>
void run_until(dram_channel<S>& ch, std::uint64_t until,
               std::map<std::uint64_t, dram_response>& out) {
    while (ch.now() < until) {
        static_cast<void>(ch.tick());
        while (ch.has_response()) {
            const auto r = ch.pop_response();
            out[r.id] = r;
        }
    }
}

} // namespace

TEST_CASE("row hit, miss and conflict latencies: CL vs tRCD + CL vs tRP + tRCD + CL") {
    dram_channel<> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    const std::uint64_t burst = 2;
    REQUIRE(ch.push({at(0, 5), false, 1})); // bank closed: ACT 0, RD 12, data until 26
    run_until(ch, 100, got);
    REQUIRE(ch.push({at(0, 5, 64), false, 2})); // row open: RD 100, data until 114
    run_until(ch, 200, got);
    REQUIRE(ch.push({at(0, 6), false, 3})); // other row: PRE 200, ACT 212, RD 224, until 238
    run_until(ch, 300, got);
    REQUIRE(got.size() == 3);
    CHECK(got[1].done == 26);
    CHECK(got[1].latency() == 12 + 12 + burst);
    CHECK(got[2].latency() == 12 + burst);
    CHECK(got[3].latency() == 12 + 12 + 12 + burst);
    CHECK(got[3].latency() - got[2].latency() == 12 + 12); // tRP + tRCD
    const auto& s = ch.stats();
    CHECK(s.activates == 2);
    CHECK(s.precharges == 1);
    CHECK(s.reads == 3);
    CHECK(s.writes == 0);
    CHECK(s.row_hits == 1);
    CHECK(s.row_misses == 1);
    CHECK(s.row_conflicts == 1);
    CHECK(warpkit::mem::row_buffer_hit_rate(s) == doctest::Approx(1.0 / 3.0));
    CHECK(warpkit::mem::mean_read_latency(s) == doctest::Approx((26.0 + 14.0 + 38.0) / 3.0));
    CHECK(s.data_cycles == 3 * burst);
    CHECK(ch.row_open(0));
    CHECK(ch.open_row(0) == 6);
    CHECK_FALSE(ch.row_open(1));
}

TEST_CASE("tRRD between activates, tCCD between reads") {
    dram_channel<> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), false, 1});
    ch.push({at(1, 0), false, 2});
    ch.push({at(1, 0, 128), false, 3});
    ch.push({at(0, 0, 128), false, 4});
    run_until(ch, 100, got);
    // ACT b0 at 0, ACT b1 at 6 (tRRD); RD 1 at 12, then the row hits 4 at 14 (tCCD), 2 at 18
    // (tRCD of bank 1), 3 at 20.
    CHECK(got[1].done == 12 + 14);
    CHECK(got[4].done == 14 + 14);
    CHECK(got[2].done == 18 + 14);
    CHECK(got[3].done == 20 + 14);
}

TEST_CASE("a dual command bus issues a row and a column command in one cycle") {
    // Bank 0's row 0 is open. At 100 a row hit in bank 0 and a closed bank 1 arrive together:
    // FR-FCFS reads bank 0 at 100; one shared bus activates bank 1 at 101 (read at 113, data
    // until 127), HBM's separate row bus at 100 (read at 112, data until 126).
    for (const bool dual : {false, true}) {
        CAPTURE(dual);
        auto p = one_channel();
        p.dual_command_bus = dual;
        dram_channel<> ch(p);
        std::map<std::uint64_t, dram_response> got;
        REQUIRE(ch.push({at(0, 0), false, 1}));
        run_until(ch, 100, got);
        REQUIRE(ch.push({at(0, 0, 64), false, 2}));
        REQUIRE(ch.push({at(1, 0), false, 3}));
        run_until(ch, 200, got);
        REQUIRE(got.size() == 3);
        CHECK(got[2].done == 100 + 12 + 2);
        CHECK(got[3].done == (dual ? 100 : 101) + 12 + 12 + 2);
        CHECK(ch.stats().activates == 2);
        CHECK(ch.stats().reads == 3);
    }
    // Two activates never share a cycle, nor two reads: the second of each waits for tRRD and
    // tCCD whatever the buses.
    auto p = one_channel();
    p.dual_command_bus = true;
    dram_channel<> ch(p);
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), false, 1});
    ch.push({at(1, 0), false, 2});
    run_until(ch, 100, got);
    CHECK(got[1].done == 12 + 14);
    CHECK(got[2].done == 6 + 12 + 14);
}

TEST_CASE("V100 HBM2: figures of the QV100 configuration, 870 GB/s, valid") {
    const auto h = warpkit::mem::hbm2_qv100();
    CHECK_NOTHROW(warpkit::validate(h));
    CHECK(h.burst_bytes() == 32);
    CHECK(h.timing.burst_cycles() == 1);
    // 32 channels x 32 bytes a cycle x 850 MHz.
    CHECK(static_cast<double>(h.map.channels * h.burst_bytes() / h.timing.burst_cycles()) * 850e6 ==
          doctest::Approx(870.4e9));
    // 16 banks of 2 KB rows: the layout's 4 bank and 11 column bits.
    const warpkit::mem::address_decoder d(h.map);
    CHECK(d.decode(0).bank == 0);
    CHECK(d.decode(std::uint64_t{256} * 32 * 8).channel == 0);
    // Local bit 8 is a bank bit (the B between column bits): the next 256 bytes of channel 0
    // (global byte 32 x 256) are bank 1 of row 0.
    CHECK(d.decode(std::uint64_t{256} * 32).bank == 1);
    CHECK(d.decode(std::uint64_t{256} * 32).row == 0);
    // Random traffic on one HBM2 channel: every request completes once.
    auto one = h;
    one.map.channels = 1;
    dram_channel<> ch(one);
    warpkit::rng r(7);
    std::map<std::uint64_t, dram_response> got;
    std::uint64_t id = 0;
    for (int i = 0; i < 2000; ++i) {
        if (r.below(2) == 0) {
            const bool w = r.below(4) == 0;
            if (ch.can_accept(w) && ch.push({r.below(1 << 24) & ~std::uint64_t{31}, w, id}))
                ++id;
        }
        static_cast<void>(ch.tick());
        while (ch.has_response()) {
            const auto resp = ch.pop_response();
            CHECK(got.count(resp.id) == 0);
            got[resp.id] = resp;
        }
    }
    run_until(ch, ch.now() + 20000, got);
    CHECK(got.size() == id);
}

TEST_CASE("write-to-read and read-to-write turnarounds") {
    dram_channel<> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), false, 1});
    run_until(ch, 100, got);
    ch.push({at(0, 0, 32), true, 2});  // WR 100, data 104..106
    ch.push({at(0, 0, 64), false, 3}); // RD >= 106 + tWTR 5 = 111, data until 125
    run_until(ch, 200, got);
    CHECK(got[2].is_write);
    CHECK(got[2].done == 106);
    CHECK(got[3].done == 125);
    ch.push({at(0, 0, 96), false, 4}); // RD 200, data until 214
    ch.push({at(0, 0, 128), true, 5}); // WR >= 200 + CL 12 + 2 + tRTRS 1 - WL 4 = 211
    run_until(ch, 300, got);
    CHECK(got[4].done == 214);
    CHECK(got[5].done == 211 + 4 + 2);
    CHECK(ch.stats().writes == 2);
    CHECK(ch.stats().reads == 3);
}

TEST_CASE("tRAS and tRC hold a conflicting request back") {
    dram_channel<> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), false, 1});
    ch.push({at(0, 1), false, 2});
    run_until(ch, 200, got);
    // ACT 0, RD 12; PRE not before tRAS = 28, ACT at 40 (tRP and tRC), RD 52, until 66.
    CHECK(got[1].done == 26);
    CHECK(got[2].done == 66);
    CHECK(got[2].latency() == 66);
}

TEST_CASE("write recovery before precharge") {
    dram_channel<> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), true, 1}); // ACT 0, WR 12, data until 18
    ch.push({at(0, 1), false, 2});
    run_until(ch, 200, got);
    // PRE >= max(tRAS 28, 18 + tWR 12 = 30) = 30, ACT 42, RD 54, until 68.
    CHECK(got[1].done == 18);
    CHECK(got[2].done == 68);
}

TEST_CASE("FR-FCFS serves a younger row hit first; FCFS keeps arrival order") {
    std::map<std::uint64_t, dram_response> fr;
    std::map<std::uint64_t, dram_response> in_order;
    dram_channel<fr_fcfs> a(one_channel());
    dram_channel<fcfs> b(one_channel());
    a.push({at(0, 1), false, 0});
    b.push({at(0, 1), false, 0});
    run_until(a, 100, fr);
    run_until(b, 100, in_order);
    a.push({at(0, 2), false, 1}); // older, conflicts with the open row 1
    a.push({at(0, 1, 64), false, 2});
    b.push({at(0, 2), false, 1});
    b.push({at(0, 1, 64), false, 2});
    run_until(a, 300, fr);
    run_until(b, 300, in_order);
    // FR-FCFS: RD 2 at 100 (until 114); PRE 102, ACT 114, RD 1 at 126 (until 140).
    CHECK(fr[2].done == 114);
    CHECK(fr[1].done == 140);
    // FCFS: PRE 100, ACT 112, RD 1 at 124 (until 138); then 2 conflicts: PRE at 140 (tRAS),
    // ACT 152, RD 164 (until 178).
    CHECK(in_order[1].done == 138);
    CHECK(in_order[2].done == 178);
    CHECK(a.stats().row_hits == 1);
    CHECK(a.stats().row_conflicts == 1);
    CHECK(b.stats().row_hits == 0);
    CHECK(b.stats().row_conflicts == 2);
    CHECK(a.stats().precharges == 1);
    CHECK(b.stats().precharges == 2);
}

TEST_CASE("queue limit and idle ticks") {
    dram_params p = one_channel();
    p.queue = 4;
    dram_channel<> ch(p);
    CHECK_FALSE(ch.tick()); // idle
    for (std::uint64_t i = 0; i < 4; ++i)
        CHECK(ch.push({at(0, 0, static_cast<std::uint32_t>(32 * i)), false, i}));
    CHECK_FALSE(ch.can_accept());
    CHECK_FALSE(ch.push({0, false, 9}));
    CHECK(ch.stats().rejected == 1);
    CHECK(ch.tick());
    p.queue = 0;
    CHECK_THROWS_AS(dram_channel<>{p}, warpkit::config_error);
    p = {};
    p.timing.burst_length = 6;
    CHECK_THROWS_AS(dram_channel<>{p}, warpkit::config_error);
}

TEST_CASE("address map: channel interleave, then banks, then rows") {
    const address_map m; // 6 channels x 16 banks, 256-B interleave, 2-KB rows
    using loc = address_map::location;
    CHECK(m.decode(0) == loc{0, 0, 0, 0});
    CHECK(m.decode(256) == loc{1, 0, 0, 0});
    CHECK(m.decode(7 * 256 + 5) == loc{1, 0, 0, 261});
    CHECK(m.decode(6 * 256) == loc{0, 0, 0, 256});
    CHECK(m.decode(6 * 256 * 8) == loc{0, 1, 0, 0});
    CHECK(m.decode(6ull * 2048 * 16) == loc{0, 0, 1, 0});
    address_map bad;
    bad.row_bytes = 128;
    CHECK_THROWS_AS(warpkit::validate(bad), warpkit::config_error);
}

TEST_CASE_TEMPLATE("random traffic: every request completes once; counters agree", S, fr_fcfs,
                   fcfs) {
    warpkit::rng r(31);
    dram_channel<S> ch(one_channel());
    std::map<std::uint64_t, dram_response> got;
    std::uint64_t sent = 0;
    std::uint64_t writes = 0;
    while (sent < 2000 || ch.busy()) {
        const bool w = r.bernoulli(0.3);
        if (sent < 2000 && ch.can_accept(w) && r.bernoulli(0.4)) {
            writes += w ? 1 : 0;
            // Four banks, four rows each: plenty of hits, misses and conflicts.
            REQUIRE(ch.push({at(static_cast<std::uint32_t>(r.below(4)), r.below(4),
                                static_cast<std::uint32_t>(r.below(64) * 32)),
                             w, sent++}));
        }
        static_cast<void>(ch.tick());
        while (ch.has_response()) {
            const auto resp = ch.pop_response();
            CHECK(got.count(resp.id) == 0);
            CHECK(resp.latency() >= (resp.is_write ? 4u + 2u : 12u + 2u));
            got[resp.id] = resp;
        }
    }
    CHECK(got.size() == 2000);
    const auto& s = ch.stats();
    CHECK(s.reads + s.writes == 2000);
    CHECK(s.writes == writes);
    CHECK(s.row_hits + s.row_misses + s.row_conflicts == 2000);
    CHECK(s.activates >= s.row_misses + s.row_conflicts);
    CHECK(s.precharges >= s.row_conflicts);
    CHECK(s.activates <= s.precharges + 4); // every bank but its first activate closed a row
}

TEST_CASE("unpopped responses hold column commands back until popped") {
    dram_params p = one_channel();
    p.queue = 4; // room for 4 + CL 12 + burst 2 + 1 = 19 responses
    dram_channel<> ch(p);
    std::uint64_t sent = 0;
    for (int cycle = 0; cycle < 1000; ++cycle) {
        while (ch.can_accept())
            ch.push({at(0, 0, static_cast<std::uint32_t>(32 * (sent % 64))), false, sent++});
        static_cast<void>(ch.tick());
    }
    CHECK(ch.stats().reads == 19);
    std::uint64_t popped = 0;
    while (ch.has_response()) {
        CHECK(ch.pop_response().id == popped);
        ++popped;
    }
    CHECK(popped == 19);
    static_cast<void>(ch.tick());
    CHECK(ch.stats().reads == 20);
}

TEST_CASE("a line of two bursts: one column command each, tCCDL apart within a bank group") {
    dram_params p = one_channel();
    p.map.bank_groups = 4; // banks 0, 4, 8, 12 form group 0; bank 1 is in group 1
    dram_channel<> ch(p);
    std::map<std::uint64_t, dram_response> got;
    CHECK(p.burst_bytes() == 64);
    REQUIRE(ch.push({at(0, 0), false, 1, 128})); // ACT 0, RD 12, RD 15 (tCCDL 3), until 29
    run_until(ch, 100, got);
    CHECK(got[1].done == 15 + 12 + 2);
    CHECK(ch.stats().reads == 2);
    CHECK(ch.stats().read_requests == 1);
    CHECK(ch.stats().data_cycles == 4);
    // Rows open in banks 0, 1 (another group) and 4 (bank 0's group).
    ch.push({at(1, 0), false, 2});
    ch.push({at(4, 0), false, 3});
    run_until(ch, 200, got);
    ch.push({at(0, 0, 64), false, 4});
    ch.push({at(1, 0, 64), false, 5}); // another group: tCCD 2 after 4
    run_until(ch, 300, got);
    CHECK(got[5].done - got[4].done == 2);
    ch.push({at(0, 0, 192), false, 6});
    ch.push({at(4, 0, 64), false, 7}); // the same group: tCCDL 3 after 6
    run_until(ch, 400, got);
    CHECK(got[7].done - got[6].done == 3);
    // A partial burst is a whole one: 65 bytes take two.
    const auto reads = ch.stats().reads;
    ch.push({at(0, 0, 256), false, 8, 65});
    run_until(ch, 500, got);
    CHECK(ch.stats().reads - reads == 2);
}

TEST_CASE("a row streamed in one bank group loses a data-bus cycle per burst to tCCDL") {
    dram_params p = one_channel();
    p.map.bank_groups = 4;
    dram_channel<> ch(p);
    std::map<std::uint64_t, dram_response> got;
    for (std::uint32_t i = 0; i < 8; ++i)
        REQUIRE(ch.push({at(0, 0, 128 * i), false, i, 128}));
    run_until(ch, 200, got);
    REQUIRE(got.size() == 8);
    const auto& s = ch.stats();
    // ACT 0; 16 reads every 3 cycles from 12: data from 24, two cycles of every three.
    CHECK(got[7].done == 12 + 15 * 3 + 12 + 2);
    CHECK(s.lost_row == 12);            // the activation: tRCD before the first read's CL
    CHECK(s.lost_bank_group == 16 - 1); // one idle cycle between consecutive bursts
    CHECK(s.lost_turnaround == 0);
    CHECK(s.lost_refresh == 0);
    CHECK(s.lost_other == 0);
}

TEST_CASE("tFAW: a fifth activate waits for the four-activate window") {
    // Five rows in five banks at once, activates tRRD 2 apart: completion times by bank.
    const auto activate_five = [](std::uint32_t faw) {
        dram_params p = one_channel();
        p.timing.tRRD = 2;
        p.timing.tFAW = faw;
        dram_channel<> ch(p);
        std::map<std::uint64_t, dram_response> got;
        for (std::uint32_t b = 0; b < 5; ++b)
            ch.push({at(b, 0), false, b});
        run_until(ch, 200, got);
        return got;
    };
    // ACTs at 0, 2, 4, 6 (tRRD), the fifth at 22 (tFAW after the first): RD 34, until 48.
    auto windowed = activate_five(22);
    CHECK(windowed[3].done == 6 + 12 + 12 + 2);
    CHECK(windowed[4].done == 22 + 12 + 12 + 2);
    // No window: tRRD alone, the fifth ACT at 8.
    CHECK(activate_five(0)[4].done == 8 + 12 + 12 + 2);
}

TEST_CASE("all-bank refresh: open rows close, the channel waits tRFC, the loss is refresh's") {
    dram_params p = one_channel();
    p.refresh = warpkit::mem::refresh_mode::all_bank;
    p.timing.tREFI = 300;
    p.timing.tRFC = 61;
    dram_channel<> ch(p);
    std::map<std::uint64_t, dram_response> got;
    ch.push({at(0, 0), false, 1}); // ACT 0, RD 12, until 26
    run_until(ch, 305, got);
    // Due at 300: PRE bank 0 at 300, REF at 312 (tRP), until 373; the row is closed.
    CHECK_FALSE(ch.row_open(0));
    CHECK(ch.stats().refreshes == 0);
    CHECK(ch.stats().precharges == 1);
    ch.push({at(0, 0, 64), false, 2}); // a row hit before the refresh: ACT 373, RD 385
    run_until(ch, 500, got);
    CHECK(got[2].done == 373 + 12 + 12 + 2);
    CHECK(ch.stats().row_misses == 2);
    // Its data could have come at 305 + CL = 317; the refresh window (due 300, end 373, plus
    // tRCD and CL) covers all 80 cycles to 397.
    CHECK(ch.stats().refreshes == 1);
    CHECK(ch.stats().lost_refresh == 80);
    CHECK(ch.stats().lost_row == 12); // the first request's activation
    // Refreshes go on while the channel is idle, one every tREFI.
    run_until(ch, 3000, got);
    CHECK(ch.stats().refreshes == 9);
}

TEST_CASE("per-bank refresh: one bank at a time, the others go on") {
    dram_params p = one_channel();
    p.refresh = warpkit::mem::refresh_mode::per_bank;
    p.timing.tREFI = 1600; // a bank every 100 cycles
    p.timing.tRFCpb = 31;
    dram_channel<> ch(p);
    std::map<std::uint64_t, dram_response> got;
    run_until(ch, 100, got);
    ch.push({at(0, 0), false, 1}); // bank 0 refreshes at 100 until 131: ACT 131, RD 143
    ch.push({at(1, 0), false, 2}); // bank 1: ACT 101, RD 113
    run_until(ch, 200, got);
    CHECK(got[2].done == 101 + 12 + 12 + 2);
    CHECK(got[1].done == 131 + 12 + 12 + 2);
    CHECK(ch.stats().refreshes == 1);
    run_until(ch, 1700, got);
    CHECK(ch.stats().refreshes == 16); // banks 0..15 once each by 1600
}

TEST_CASE("write batching: writes wait for the high watermark or an empty read queue") {
    dram_params p = one_channel();
    p.write_queue = 8;
    p.write_high = 4;
    p.write_low = 2;
    const auto order = [&](const std::vector<std::pair<std::uint32_t, bool>>& reqs) {
        dram_channel<> ch(p);
        std::map<std::uint64_t, dram_response> got;
        // Row 0 of banks 0 (reads) and 1 (writes) open first.
        ch.push({at(0, 0), false, 100});
        ch.push({at(1, 0), true, 101});
        run_until(ch, 100, got);
        std::uint64_t id = 0;
        for (const auto& [column, write] : reqs)
            REQUIRE(ch.push({at(write ? 1 : 0, 0, column), write, id++}));
        run_until(ch, 1000, got);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> by_done;
        for (std::uint64_t i = 0; i < id; ++i)
            by_done.emplace_back(got.at(i).done, i);
        std::sort(by_done.begin(), by_done.end());
        std::vector<std::uint64_t> ids;
        for (const auto& d : by_done)
            ids.push_back(d.second);
        return ids;
    };
    // Three writes (below the watermark) and three reads: the reads first.
    CHECK(order({{0, true}, {64, true}, {128, true}, {0, false}, {64, false}, {128, false}}) ==
          std::vector<std::uint64_t>{3, 4, 5, 0, 1, 2});
    // Four writes reach the watermark: two go (down to write_low), the reads, the last two.
    CHECK(order({{0, true}, {64, true}, {128, true}, {192, true}, {0, false}, {64, false}}) ==
          std::vector<std::uint64_t>{0, 1, 4, 5, 2, 3});
    dram_params shared = p;
    shared.write_queue = 0; // writes compete request by request: arrival order on open rows
    p = shared;
    CHECK(order({{0, true}, {64, true}, {128, true}, {0, false}, {64, false}, {128, false}}) ==
          std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("address layouts: bit strings, the arithmetic default, XOR bank hashing") {
    using loc = address_map::location;
    address_map m;
    m.channels = 1;
    address_map bits = m;
    bits.layout = "RRRR.BBBB.CCCCCCCCCCC"; // the arithmetic mapping spelled out
    warpkit::validate(bits);
    warpkit::rng r(5);
    for (int i = 0; i < 1000; ++i) {
        const std::uint64_t a = r.below(std::uint64_t{1} << 34);
        CHECK(bits.decode(a) == m.decode(a));
    }
    // A bank bit between column bits: 128-byte pieces alternate banks 0 and 1.
    address_map split = m;
    split.layout = "RRRRRRRR.BBBCCCCB.CCCCCCC";
    warpkit::validate(split);
    CHECK(split.decode(0) == loc{0, 0, 0, 0});
    CHECK(split.decode(128) == loc{0, 1, 0, 0});
    CHECK(split.decode(256) == loc{0, 0, 0, 128});
    CHECK(split.decode(std::uint64_t{1} << 12) == loc{0, 2, 0, 0});
    CHECK(split.decode(std::uint64_t{1} << 15) == loc{0, 0, 1, 0});
    CHECK(split.decode(std::uint64_t{1} << 30) == loc{0, 0, std::uint64_t{1} << 15, 0});
    // XOR hashing: bank ^= the row's low four bits.
    address_map hashed = m;
    hashed.xor_bank = true;
    CHECK(hashed.decode(at(3, 5)) == loc{0, 3 ^ 5, 5, 0});
    CHECK(hashed.decode(at(3, 16 + 5)) == loc{0, 3 ^ 5, 16 + 5, 0});
    // Bad layouts name what is wrong.
    address_map bad = m;
    bad.layout = "RRRR.BBBX.CCCCCCCCCCC";
    CHECK_THROWS_WITH_AS(warpkit::validate(bad), doctest::Contains("character 9 is 'X'"),
                         warpkit::config_error);
    bad.layout = "RRRR.BBB.CCCCCCCCCCC";
    CHECK_THROWS_WITH_AS(warpkit::validate(bad), doctest::Contains("4 B bits"),
                         warpkit::config_error);
    bad.layout = "RRRR.BBBB.CCCCCCCCCC";
    CHECK_THROWS_WITH_AS(warpkit::validate(bad), doctest::Contains("11 C bits"),
                         warpkit::config_error);
}

TEST_CASE("GDDR5 params are checked: groups, watermarks, refresh interval") {
    dram_params p;
    warpkit::validate(p);
    p.map.bank_groups = 3;
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error);
    p = {};
    p.write_low = p.write_high;
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error);
    p = {};
    p.timing.tREFI = 150; // under 2 x (tRFC 61 + tRC 40)
    CHECK_THROWS_WITH_AS(warpkit::validate(p), doctest::Contains("timing.tREFI"),
                         warpkit::config_error);
    p.refresh = warpkit::mem::refresh_mode::none;
    warpkit::validate(p);
}

TEST_CASE("GTX480 channel under mixed traffic: nothing lost, the bus accounted for") {
    // The preset's channel: bank groups, tFAW, refresh, write batching, 128-byte lines.
    dram_params p;
    p.map.channels = 1;
    dram_channel<> ch(p);
    warpkit::rng r(77);
    std::map<std::uint64_t, dram_response> got;
    std::uint64_t sent = 0;
    std::uint64_t writes = 0;
    while (sent < 3000 || ch.busy()) {
        const bool w = r.bernoulli(0.3);
        if (sent < 3000 && ch.can_accept(w)) {
            writes += w ? 1 : 0;
            REQUIRE(ch.push({at(static_cast<std::uint32_t>(r.below(16)), r.below(8),
                                static_cast<std::uint32_t>(r.below(16) * 128)),
                             w, sent++, 128}));
        }
        static_cast<void>(ch.tick());
        while (ch.has_response()) {
            const auto resp = ch.pop_response();
            CHECK(got.count(resp.id) == 0);
            got[resp.id] = resp;
        }
    }
    CHECK(got.size() == 3000);
    const auto& s = ch.stats();
    CHECK(s.read_requests + s.write_requests == 3000);
    CHECK(s.write_requests == writes);
    CHECK(s.reads + s.writes == 2 * 3000);
    CHECK(s.data_cycles == 2 * 2 * 3000);
    CHECK(s.refreshes == s.cycles / p.timing.tREFI);
    CHECK(s.lost_refresh > 0);
    CHECK(s.lost_turnaround > 0);
    CHECK(s.lost_row > 0);
    CHECK(s.data_cycles + s.lost_refresh + s.lost_turnaround + s.lost_bank_group + s.lost_row +
              s.lost_other <=
          s.cycles);
}
