#include <warpkit/core/error.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <doctest/doctest.h>

#include <cstdint>

using warpkit::issue::cluster_scoreboard;
using warpkit::issue::latency_kind;
using warpkit::issue::operands;
using warpkit::issue::scoreboard;

namespace {
// A scoreboard of 256 registers per warp (a SASS-sized register file): the same laws hold,
// checked on registers in its third word.
using wide_scoreboard = warpkit::issue::basic_scoreboard<256, 64>;
template <class Sb>
constexpr unsigned base = Sb::register_width > 64 ? 130 : 0;
// The scoreboard tracking one register fewer than its width (63 for the default one).
template <class Sb>
Sb make() {
    warpkit::issue::scoreboard_params p;
    p.registers = static_cast<std::uint32_t>(Sb::register_width - 1);
    return Sb(p);
}
} // namespace

TEST_CASE_TEMPLATE("scoreboard: RAW and WAW on sources, destinations and predicates", Sb,
                   scoreboard, wide_scoreboard) {
    using ops = typename Sb::operands_type;
    constexpr unsigned b = base<Sb>;
    Sb sb = make<Sb>();
    const auto add = ops{}.read(b + 1).read(b + 2).write(b + 3);    // r3 <- r1 + r2
    const auto use = ops{}.read(b + 3).write(b + 4);                // r4 <- f(r3)
    const auto over = ops{}.read(b + 5).write(b + 3);               // r3 <- f(r5)
    const auto setp = ops{}.read(b + 1).write_pred(0);              // p0 <- r1 < 0
    const auto guarded = ops{}.read(b + 6).write(b + 7).guard(0);   // @p0 r7 <- r6
    const auto unrelated = ops{}.read(b + 8).write(b + 9).guard(1); // @p1 r9 <- r8

    CHECK(sb.can_issue(0, add));
    sb.reserve(0, add);
    CHECK(sb.pending(0, b + 3));
    CHECK_FALSE(sb.pending(1, b + 3)); // per warp

    auto h = sb.check(0, use);
    CHECK(h.raw);
    CHECK_FALSE(h.waw);
    CHECK_FALSE(h.long_latency);
    h = sb.check(0, over);
    CHECK(h.waw);
    CHECK_FALSE(h.raw);
    CHECK(sb.can_issue(1, use)); // another warp's r3 is free
    CHECK(sb.can_issue(0, setp));

    sb.reserve(0, setp);
    CHECK(sb.pending_pred(0, 0));
    CHECK(sb.peek(0, guarded).raw); // guard predicate pending
    CHECK(sb.peek(0, setp).waw);    // predicate destination pending
    CHECK(sb.can_issue(0, unrelated));
    CHECK(sb.pending_count(0) == 2);

    sb.release(0, b + 3);
    CHECK(sb.can_issue(0, use));
    CHECK(sb.can_issue(0, over));
    sb.release(0, setp);
    CHECK(sb.can_issue(0, guarded));
    CHECK(sb.empty());

    const auto& st = sb.stats();
    CHECK(st.checks == 2);
    CHECK(st.raw_hazards == 1);
    CHECK(st.waw_hazards == 1);
    CHECK(st.reservations == 2);
    CHECK(st.releases == 2);
}

TEST_CASE_TEMPLATE("scoreboard: long-latency destinations mark the warp as waiting on long "
                   "latency",
                   Sb, scoreboard, wide_scoreboard) {
    using ops = typename Sb::operands_type;
    constexpr unsigned b = base<Sb>;
    Sb sb = make<Sb>();
    const auto load = ops{}.read(b + 1).write(b + 2); // r2 <- [r1]
    const auto alu = ops{}.read(b + 1).write(b + 3);  // r3 <- r1 + 1
    const auto use_load = ops{}.read(b + 2).write(b + 4);
    const auto use_alu = ops{}.read(b + 3).write(b + 5);
    const auto use_both = ops{}.read(b + 2).read(b + 3).write(b + 6);
    sb.reserve(4, load, true);
    sb.reserve(4, alu);
    CHECK(sb.has_long_latency(4));
    CHECK(sb.waits_on_long_latency(4, use_load));
    CHECK_FALSE(sb.waits_on_long_latency(4, use_alu)); // blocked, but by a short-latency write
    CHECK(sb.peek(4, use_alu).raw);
    CHECK(sb.waits_on_long_latency(4, use_both));
    CHECK(sb.waits_on_long_latency(4, ops{}.write(b + 2))); // WAW on the load's register
    sb.release(4, b + 2);
    CHECK_FALSE(sb.has_long_latency(4));
    CHECK_FALSE(sb.waits_on_long_latency(4, use_both));
    CHECK(sb.peek(4, use_both).raw);
    // A register that comes back reserved by a short-latency write is no longer long-latency.
    sb.reserve(4, ops{}.write(b + 2));
    CHECK_FALSE(sb.waits_on_long_latency(4, use_load));
    CHECK(sb.stats().long_latency_reservations == 1);
}

TEST_CASE("scoreboard: a warp's version changes with every change to its writes in flight") {
    scoreboard sb(warpkit::issue::scoreboard_params{.warps = 2});
    const auto v0 = sb.version(0);
    const auto other = sb.version(1);
    const auto w = operands{}.write(5).write_pred(1);
    CHECK(sb.peek(0, operands{}.read(5)).raw == false);
    sb.reserve(0, w, true);
    const auto v1 = sb.version(0);
    CHECK(v1 != v0);
    CHECK(sb.peek(0, operands{}.read(5)).raw);
    sb.release(0, 5);
    const auto v2 = sb.version(0);
    CHECK(v2 != v1);
    sb.release_pred(0, 1);
    const auto v3 = sb.version(0);
    CHECK(v3 != v2);
    sb.reserve(0, operands{}.write(7));
    const auto v4 = sb.version(0);
    sb.clear(0);
    CHECK(sb.version(0) != v4);
    CHECK_FALSE(sb.pending(0, 7));
    CHECK(sb.version(1) == other); // warp 1 was never touched
}

TEST_CASE("scoreboard: contract and params errors") {
    scoreboard sb;
    const auto w3 = operands{}.write(3);
    CHECK_THROWS_AS(sb.release(0, 3), warpkit::contract_error); // not pending
    sb.reserve(0, w3);
    CHECK_THROWS_AS(sb.reserve(0, w3), warpkit::contract_error); // WAW reserve
    // Out-of-range warp. (Read through a volatile: with a literal index g++ 12 -O2 reports a
    // spurious -Warray-bounds on the access the failed check never reaches.)
    volatile std::size_t bad_warp = 48;
    CHECK_THROWS_AS(sb.reserve(bad_warp, w3), warpkit::contract_error);
    CHECK_THROWS_AS(sb.reserve(1, operands{}.write(63)), warpkit::contract_error); // r63 >= 63
    CHECK_THROWS_AS(sb.reserve(1, operands{}.write_pred(7)), warpkit::contract_error);
    CHECK_THROWS_AS((void)operands{}.read(64), warpkit::contract_error);
    sb.clear(0);
    CHECK(sb.empty());

    warpkit::issue::scoreboard_params p;
    p.registers = 65;
    try {
        scoreboard bad(p);
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "registers");
        CHECK(e.allowed() == "[1, 64]");
    }
    p.registers = 64;
    p.warps = 0;
    CHECK_THROWS_AS(scoreboard{p}, warpkit::config_error);
    // A wider scoreboard takes more registers, up to its width.
    p.warps = 48;
    p.registers = 255;
    const wide_scoreboard wide(p);
    CHECK(wide.params().registers == 255);
    p.registers = 257;
    try {
        wide_scoreboard bad(p);
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "registers");
        CHECK(e.allowed() == "[1, 256]");
    }
}

TEST_CASE("cluster scoreboard: memory entries clear only when every member acked") {
    cluster_scoreboard<4> sb; // master + three slaves (four-SM cluster)
    const auto load = operands{}.read(1).write(2);
    const auto use = operands{}.read(2).write(3);
    sb.reserve(5, load, latency_kind::memory);
    CHECK(sb.awaiting_acks(5, 2));
    CHECK(sb.acks(5, 2) == 0);
    CHECK(sb.waits_on_long_latency(5, use));

    CHECK_FALSE(sb.ack(5, 2, 2)); // slave 2 first: members report in any order
    CHECK(sb.acks(5, 2) == 0b0100);
    CHECK_FALSE(sb.ack(5, 2, 0)); // master
    CHECK_FALSE(sb.ack(5, 2, 3));
    CHECK(sb.acks(5, 2) == 0b1101);
    CHECK(sb.pending(5, 2));
    CHECK_FALSE(sb.can_issue(5, use));
    CHECK_THROWS_AS(sb.ack(5, 2, 3), warpkit::contract_error);  // one ack per member
    CHECK_THROWS_AS(sb.ack(5, 2, 4), warpkit::contract_error);  // no member 4
    CHECK_THROWS_AS(sb.release(5, 2), warpkit::contract_error); // memory: acks only
    CHECK(sb.ack(5, 2, 1));                                     // the last one clears the entry
    CHECK_FALSE(sb.pending(5, 2));
    CHECK_FALSE(sb.awaiting_acks(5, 2));
    CHECK(sb.acks(5, 2) == 0);
    CHECK(sb.can_issue(5, use));

    // A load writing a predicate and a register: each entry has its own ack bits.
    const auto ld2 = operands{}.write(4).write_pred(1);
    sb.reserve(0, ld2, latency_kind::memory);
    for (std::size_t m = 0; m < 4; ++m)
        CHECK(sb.ack(0, 4, m) == (m == 3));
    CHECK(sb.pending_pred(0, 1));
    for (std::size_t m = 0; m < 4; ++m)
        CHECK(sb.ack_pred(0, 1, m) == (m == 3));
    CHECK(sb.empty());

    const auto& st = sb.stats();
    CHECK(st.memory_entries == 3);
    CHECK(st.acks == 12);
    CHECK(st.cleared_by_acks == 3);
    CHECK(st.base.releases == 3);
}

TEST_CASE("cluster scoreboard: non-memory entries track the master only") {
    cluster_scoreboard<2> sb; // two-SM cluster
    const auto add = operands{}.read(1).write(2);
    sb.reserve(3, add, latency_kind::fixed);
    CHECK(sb.pending(3, 2));
    CHECK_FALSE(sb.awaiting_acks(3, 2));
    CHECK_THROWS_AS(sb.ack(3, 2, 1), warpkit::contract_error); // no acks for fixed latency
    sb.release(3, 2); // the master's own writeback clears it
    CHECK(sb.empty());
    CHECK(sb.stats().fixed_entries == 1);
    CHECK(sb.stats().acks == 0);
    // After a memory entry is cleared, the register can hold a fixed-latency entry again.
    sb.reserve(3, add, latency_kind::memory);
    CHECK(sb.ack(3, 2, 1) == false);
    CHECK(sb.ack(3, 2, 0) == true);
    sb.reserve(3, add, latency_kind::fixed);
    sb.release(3, 2);
    CHECK(sb.empty());
}

TEST_CASE("cluster scoreboard: ack-bit storage for the power model") {
    // 48 warps x (63 registers + 7 predicates) = 3360 pending bits; one ack bit per member.
    const cluster_scoreboard<4> four;
    CHECK(four.storage_bits().base == 3360);
    CHECK(four.storage_bits().added == 4 * 3360);
    const cluster_scoreboard<2> two;
    CHECK(two.storage_bits().added == 2 * 3360);
    CHECK(cluster_scoreboard<2>::ack_bits_per_entry == 2);
    CHECK(cluster_scoreboard<3>::all_acked == 0b111);
    warpkit::issue::scoreboard_params p;
    p.warps = 24;
    p.registers = 32;
    p.predicates = 0;
    CHECK(cluster_scoreboard<4>(p).storage_bits().base == 24 * 32);
}
