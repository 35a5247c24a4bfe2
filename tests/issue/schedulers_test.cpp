// Behaviour of each scheduler on hand-built views, worked out cycle by cycle.
#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/registry.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/two_level.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace {

using warpkit::isa::unit_class;
using warpkit::issue::issue_list;
using warpkit::issue::warp_view;

constexpr unit_class I = unit_class::int_alu;
constexpr unit_class F = unit_class::fp;
constexpr unit_class M = unit_class::ldst;
constexpr unit_class S = unit_class::sfu;

/// n warps, all ready, INT, age = id.
std::vector<warp_view> ready_warps(std::size_t n, unit_class u = I) {
    std::vector<warp_view> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i].id = static_cast<warpkit::issue::warp_id>(i);
        v[i].age = i;
        v[i].ready = true;
        v[i].unit = u;
    }
    return v;
}

std::vector<int> ids(const issue_list& l) {
    std::vector<int> o;
    for (const auto& s : l)
        o.push_back(s.warp);
    return o;
}

/// select + notify everything selected; returns the ids.
template <class Sch>
std::vector<int> step(Sch& s, const std::vector<warp_view>& v, std::size_t width = 1) {
    const auto l = s.select(std::span<const warp_view>(v), width);
    s.notify_issued(l);
    return ids(l);
}

} // namespace

TEST_CASE("lrr starts after the last issued warp and skips warps that cannot issue") {
    warpkit::issue::lrr s;
    auto v = ready_warps(5);
    CHECK(step(s, v) == std::vector<int>{0});
    CHECK(step(s, v) == std::vector<int>{1});
    v[2].ready = false;
    v[3].at_barrier = true;
    CHECK(step(s, v) == std::vector<int>{4}); // 2 and 3 skipped
    CHECK(step(s, v, 2) == std::vector<int>{0, 1});
    v[2].ready = true;
    CHECK(step(s, v, 3) == std::vector<int>{2, 4, 0});
    // Selected but not issued: the rotation point does not move.
    const auto l = s.select(std::span<const warp_view>(v), 1);
    CHECK(ids(l) == std::vector<int>{1});
    s.notify_issued(issue_list{});
    CHECK(step(s, v) == std::vector<int>{1});
    CHECK(s.stats().cycles == 7);
    CHECK(s.stats().empty_cycles == 1);
    CHECK(s.stats().issued[warpkit::isa::index(I)] == 9);
}

TEST_CASE("rr is strict: a warp that cannot issue loses its turn and the slot stays empty") {
    warpkit::issue::rr s;
    auto v = ready_warps(4);
    CHECK(step(s, v) == std::vector<int>{0});
    v[1].ready = false;
    CHECK(step(s, v).empty()); // warp 1's turn: lost (lrr would have issued warp 2)
    CHECK(step(s, v) == std::vector<int>{2});
    v[3].finished = true; // finished warps take no turn
    CHECK(step(s, v) == std::vector<int>{0});
    v[1].ready = true;
    CHECK(step(s, v, 2) == std::vector<int>{1, 2});
    CHECK(step(s, v, 2) == std::vector<int>{0, 1});
    CHECK(s.stats().lost_turns == 1);
    CHECK(s.stats().issue.idle_slots == 1);

    warpkit::issue::lrr loose;
    auto w = ready_warps(4);
    CHECK(step(loose, w) == std::vector<int>{0});
    w[1].ready = false;
    CHECK(step(loose, w) == std::vector<int>{2});
}

TEST_CASE("gto keeps the greedy warp while it can issue, then falls back to the oldest") {
    warpkit::issue::gto s;
    auto v = ready_warps(5);
    // Ages are not ids: warp 3 is the oldest, then 1, 4, 0, 2.
    const std::uint64_t ages[] = {30, 10, 40, 5, 20};
    for (std::size_t i = 0; i < 5; ++i)
        v[i].age = ages[i];
    CHECK(step(s, v) == std::vector<int>{3}); // oldest
    CHECK(step(s, v) == std::vector<int>{3}); // greedy
    CHECK(step(s, v) == std::vector<int>{3});
    v[3].ready = false;
    CHECK(step(s, v) == std::vector<int>{1}); // greedy stalls: oldest ready
    v[3].ready = true;
    CHECK(step(s, v) == std::vector<int>{1}); // 1 is now greedy, although 3 is older
    // Two slots: greedy first, then oldest of the rest.
    CHECK(step(s, v, 2) == std::vector<int>{1, 3});
    v[1].finished = true;
    CHECK(step(s, v, 2) == std::vector<int>{3, 4});
    v[4].age = 1; // equal ages break ties by id
    v[0].age = 1;
    CHECK(step(s, v, 3) == std::vector<int>{3, 0, 4});
    CHECK(s.greedy() == 3);
    CHECK(s.stats().greedy_issues == 5);
    CHECK(s.stats().switches == 3);
}

TEST_CASE("gto picks what sorting the issuable warps by (age, id) after the greedy one picks") {
    // A reference built the slow way, over random views: ids in any order, many equal ages,
    // any mix of flags, widths 0 to max_issue_width.
    warpkit::rng r(11);
    warpkit::issue::basic_gto<128> s;
    std::size_t picked = 0;
    for (int round = 0; round < 3000; ++round) {
        std::vector<std::uint16_t> order(128);
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = static_cast<std::uint16_t>(i);
        for (std::size_t i = order.size() - 1; i > 0; --i)
            std::swap(order[i], order[r.below(i + 1)]);
        std::vector<warp_view> v(r.below(129));
        for (std::size_t i = 0; i < v.size(); ++i) {
            v[i].id = order[i];
            v[i].age = r.below(6);
            v[i].valid = r.bernoulli(0.9);
            v[i].ready = r.bernoulli(0.6);
            v[i].at_barrier = r.bernoulli(0.05);
            v[i].finished = r.bernoulli(0.05);
        }
        const std::size_t width = r.below(warpkit::issue::max_issue_width + 1);
        std::vector<int> want;
        std::vector<warp_view> rest;
        for (const auto& w : v) {
            if (!warpkit::issue::issuable(w)) continue;
            if (s.has_greedy() && w.id == s.greedy() && width > 0)
                want.insert(want.begin(), w.id);
            else
                rest.push_back(w);
        }
        std::sort(rest.begin(), rest.end(), [](const warp_view& a, const warp_view& b) {
            return a.age != b.age ? a.age < b.age : a.id < b.id;
        });
        for (const auto& w : rest)
            want.push_back(w.id);
        want.resize(std::min(want.size(), width));
        const auto got = step(s, v, width);
        REQUIRE(got == want);
        picked += got.size();
    }
    CHECK(picked > 3000); // the rounds picked something
    // A repeated id is refused.
    auto v = ready_warps(3);
    v[2].id = 0;
    CHECK_THROWS_AS((void)s.select(v, 2), warpkit::contract_error);
}

TEST_CASE("two_level demotes warps that wait on long latency and promotes in FIFO order") {
    warpkit::issue::two_level<>::params_type p;
    p.active_warps = 2;
    warpkit::issue::two_level<> s(p);
    auto v = ready_warps(4);

    // Cycle 1: warps enter in order; 0 and 1 fit in the active set, 2 and 3 pend.
    CHECK(step(s, v, 4) == std::vector<int>{0, 1}); // pending warps are never offered
    CHECK(s.active_set().word(0) == 0b0011);
    CHECK(std::vector<int>(s.pending().begin(), s.pending().end()) == std::vector<int>{2, 3});

    // Cycle 2: warp 0 waits on a load: demoted to the tail, warp 2 promoted (and picked:
    // lrr continues after warp 1).
    v[0].long_latency = true;
    v[0].ready = false;
    CHECK(step(s, v) == std::vector<int>{2});
    CHECK(s.active_set().word(0) == 0b0110);
    CHECK(std::vector<int>(s.pending().begin(), s.pending().end()) == std::vector<int>{3, 0});

    // Cycle 3: warp 1 too: 3 promoted; pending FIFO 0, 1.
    v[1].long_latency = true;
    v[1].ready = false;
    CHECK(step(s, v, 2) == std::vector<int>{3, 2});
    CHECK(s.active_set().word(0) == 0b1100);
    CHECK(std::vector<int>(s.pending().begin(), s.pending().end()) == std::vector<int>{0, 1});

    // Cycle 4: warp 1's load returns first, but the active set is full: nothing moves.
    v[1].long_latency = false;
    v[1].ready = true;
    CHECK(step(s, v, 2) == std::vector<int>{3, 2});
    // Cycle 5: warp 2 finishes: warp 0 still waits, so warp 1 (next in FIFO) is promoted.
    v[2].finished = true;
    CHECK(step(s, v, 2) == std::vector<int>{3, 1});
    CHECK(s.active_set().word(0) == 0b1010);
    CHECK(std::vector<int>(s.pending().begin(), s.pending().end()) == std::vector<int>{0});

    // Cycle 6: warp 3 reaches a barrier (demoted), warp 0's load is back (promoted).
    v[3].at_barrier = true;
    v[0].long_latency = false;
    v[0].ready = true;
    CHECK(step(s, v, 2) == std::vector<int>{0, 1});
    CHECK(s.active_set().word(0) == 0b0011);
    CHECK(std::vector<int>(s.pending().begin(), s.pending().end()) == std::vector<int>{3});
    CHECK(s.stats().demotions == 3);
    CHECK(s.stats().promotions == 2 + 3 + 1);
}

TEST_CASE("two_level with gto inside keeps greed within the active set") {
    warpkit::issue::two_level<warpkit::issue::gto>::params_type p;
    p.active_warps = 3;
    warpkit::issue::two_level<warpkit::issue::gto> s(p);
    auto v = ready_warps(6);
    v[4].age = 0; // oldest overall, but pending
    v[0].age = 7;
    CHECK(step(s, v) == std::vector<int>{1}); // oldest among active {0, 1, 2}
    CHECK(step(s, v) == std::vector<int>{1});
    v[1].long_latency = true;
    v[1].ready = false;
    CHECK(step(s, v) == std::vector<int>{2}); // 3 was promoted, but 2 is older
    CHECK(s.is_active(3));
    CHECK(s.is_pending(1));
}

TEST_CASE("GATES fills issue slots in the order INT/FP, LDST, SFU, FP/INT") {
    warpkit::issue::gates_priority<> g;
    // 1 INT, 1 LDST, 1 SFU, 2 FP ready.
    std::vector<warp_view> v = ready_warps(5);
    v[0].unit = F;
    v[1].unit = S;
    v[2].unit = I;
    v[3].unit = F;
    v[4].unit = M;
    auto l = g.select(std::span<const warp_view>(v), 2);
    CHECK(ids(l) == std::vector<int>{2, 4}); // INT, then LDST
    l = g.select(std::span<const warp_view>(v), 4);
    CHECK(ids(l) == std::vector<int>{2, 4, 1, 0}); // INT, LDST, SFU, FP
    CHECK(g.rdy(I) == 1);
    CHECK(g.rdy(F) == 2);
    CHECK(g.rdy(M) == 1);
    CHECK(g.rdy(S) == 1);
    // Only one INT and some FP: the one cycle that mixes INT and FP.
    v[1].ready = false;
    v[4].ready = false;
    l = g.select(std::span<const warp_view>(v), 2);
    CHECK(ids(l) == std::vector<int>{2, 0});
    g.notify_issued(l);
    CHECK(g.stats().mixed_int_fp_cycles == 1);
    // Two INT ready: both slots INT even though FP is ready too.
    v[0].unit = I;
    l = g.select(std::span<const warp_view>(v), 2);
    CHECK(l.size() == 2);
    CHECK(l[0].unit == I);
    CHECK(l[1].unit == I);
}

TEST_CASE("GATES counts active subsets and switches priority when the highest empties") {
    warpkit::issue::gates_priority<> g;
    CHECK(g.high_priority() == I);
    CHECK(g.priority_order()[0] == I);
    CHECK(g.priority_order()[7] == F);
    auto v = ready_warps(6);
    v[0].unit = F;
    v[1].unit = F;
    v[2].unit = F;
    v[3].unit = I;
    v[3].ready = false; // INT in the active subset, waiting on a short dependence
    v[4].unit = M;
    v[5].unit = I;
    v[5].finished = true; // not counted
    auto l = g.select(std::span<const warp_view>(v), 1);
    CHECK(g.int_actv() == 1);
    CHECK(g.fp_actv() == 3);
    CHECK(g.actv(M) == 1);
    CHECK(g.rdy(I) == 0);
    // INT subset is not empty: INT stays highest; LDST fills the slot before FP.
    CHECK(g.high_priority() == I);
    CHECK(ids(l) == std::vector<int>{4});
    g.notify_issued(l);
    // The INT instruction leaves (say the warp moved on to an FP one): switch to FP.
    v[3].unit = F;
    v[3].ready = true;
    l = g.select(std::span<const warp_view>(v), 2);
    CHECK(g.high_priority() == F);
    CHECK(g.int_actv() == 0);
    CHECK(g.fp_actv() == 4);
    CHECK(l[0].unit == F);
    CHECK(l[1].unit == F);
    // A repeated select with the same views does not switch again.
    CHECK(g.select(std::span<const warp_view>(v), 2) == l);
    g.notify_issued(l);
    CHECK(g.stats().switches_on_empty == 1);
    // And back: FP subset empty, INT not.
    for (auto& w : v)
        w.unit = I;
    l = g.select(std::span<const warp_view>(v), 1);
    CHECK(g.high_priority() == I);
    CHECK(g.stats().switches_on_empty == 2);
}

TEST_CASE("GATES never issues a blocked class and hands priority over when INT is blocked") {
    warpkit::issue::gates_priority<> g;
    auto v = ready_warps(4);
    v[2].unit = F;
    v[3].unit = F;
    g.set_blocked({I});
    auto l = g.select(std::span<const warp_view>(v), 2);
    CHECK(g.high_priority() == F); // coordinated Blackout: both INT clusters gated
    CHECK(ids(l) == std::vector<int>{2, 3});
    g.notify_issued(l);
    CHECK(g.stats().switches_on_blocked == 1);
    // FP blocked as well: nothing can issue; no flapping between the two.
    g.set_blocked({I, F});
    l = g.select(std::span<const warp_view>(v), 2);
    CHECK(l.empty());
    CHECK(g.high_priority() == F);
    g.notify_issued(l);
    // INT unblocked, FP still blocked: INT instructions issue from the low end.
    g.set_blocked({F});
    l = g.select(std::span<const warp_view>(v), 2);
    CHECK(g.high_priority() == I); // FP highest but blocked, INT waiting: switch
    CHECK(ids(l) == std::vector<int>{0, 1});
    CHECK(g.stats().switches_on_blocked == 2);
}

TEST_CASE("GATES without a switching threshold starves FP while INT keeps coming; with one it "
          "alternates") {
    // Two INT warps and two FP warps, always ready, one slot.
    auto v = ready_warps(4);
    v[2].unit = F;
    v[3].unit = F;
    {
        warpkit::issue::gates_priority<> g;
        for (int c = 0; c < 100; ++c)
            CHECK(step(g, v).front() < 2);
        CHECK(g.stats().issue.issued[warpkit::isa::index(F)] == 0);
    }
    warpkit::issue::gates_priority<>::params_type p;
    p.max_switch_cycles = 5;
    warpkit::issue::gates_priority<> g(p);
    std::vector<int> got;
    for (int c = 0; c < 20; ++c)
        got.push_back(step(g, v).front());
    CHECK(got == std::vector<int>{0, 1, 0, 1, 0, 2, 3, 2, 3, 2, 0, 1, 0, 1, 0, 2, 3, 2, 3, 2});
    CHECK(g.stats().switches_on_threshold == 3);
}

TEST_CASE("gates demoted warps leave the active subsets (INT_ACTV counts active warps only)") {
    warpkit::issue::gates<>::params_type p;
    p.active_warps = 2;
    warpkit::issue::gates<> g(p);
    auto v = ready_warps(4);
    v[1].unit = F;
    v[3].unit = F;
    auto l = g.select(std::span<const warp_view>(v), 1);
    CHECK(g.int_actv() == 1); // active: 0 (INT), 1 (FP)
    CHECK(g.fp_actv() == 1);
    CHECK(ids(l) == std::vector<int>{0});
    g.notify_issued(l);
    v[0].long_latency = true;
    v[0].ready = false;
    l = g.select(std::span<const warp_view>(v), 1); // 0 demoted, 2 (INT) promoted
    CHECK(g.int_actv() == 1);
    CHECK(g.fp_actv() == 1);
    CHECK(ids(l) == std::vector<int>{2});
    g.notify_issued(l);
    g.set_blocked({I});
    l = g.select(std::span<const warp_view>(v), 1);
    CHECK(g.high_priority() == F);
    CHECK(ids(l) == std::vector<int>{1});
}

TEST_CASE("scheduler_bank: warp i belongs to scheduler i mod n") {
    warpkit::issue::scheduler_bank<warpkit::issue::lrr> b; // GTX480: two schedulers
    CHECK(b.size() == 2);
    CHECK(b.owner(5) == 1);
    auto v = ready_warps(6);
    CHECK(step(b, v, 2) == std::vector<int>{0, 1});
    CHECK(step(b, v, 2) == std::vector<int>{2, 3});
    // Odd warps stall: the even scheduler keeps its own rotation, the odd one issues nothing.
    v[1].ready = v[3].ready = v[5].ready = false;
    CHECK(step(b, v, 2) == std::vector<int>{4});
    CHECK(step(b, v, 2) == std::vector<int>{0});
    v[1].ready = v[3].ready = v[5].ready = true;
    CHECK(step(b, v, 2) == std::vector<int>{2, 5});
    // Width 3 over two schedulers: one slot each plus an extra one that rotates every cycle;
    // in this sixth cycle it is scheduler 1's.
    CHECK(step(b, v, 3) == std::vector<int>{4, 1, 3});
    CHECK(step(b, v, 3) == std::vector<int>{0, 2, 5});
    CHECK(b.stats().scheduler[0].issued[warpkit::isa::index(I)] == 8);
    CHECK(b.stats().scheduler[1].issued[warpkit::isa::index(I)] == 6);
    CHECK(b.total_stats().cycles == 14);
    CHECK(b.total_stats().idle_slots == 2);

    warpkit::issue::scheduler_bank<warpkit::issue::lrr>::params_type p;
    p.schedulers = 3;
    warpkit::issue::scheduler_bank<warpkit::issue::lrr> b3(p);
    CHECK(step(b3, v, 3) == std::vector<int>{0, 1, 2});
}

TEST_CASE("params are validated with the field, the value and the range") {
    warpkit::issue::two_level<>::params_type p;
    p.active_warps = 0;
    CHECK_THROWS_AS(warpkit::issue::two_level<>{p}, warpkit::config_error);
    p.active_warps = 65;
    try {
        warpkit::issue::two_level<> s(p);
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "active_warps");
        CHECK(e.value() == "65");
        CHECK(e.allowed() == "[1, 64]");
    }
    warpkit::issue::gates<>::params_type g;
    g.inner.initial = unit_class::sfu;
    try {
        warpkit::issue::gates<> s(g);
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "inner.initial");
    }
    g.inner.initial = unit_class::fp;
    CHECK(warpkit::issue::gates<>(g).high_priority() == F);
    warpkit::issue::scheduler_bank<warpkit::issue::gto>::params_type b;
    b.schedulers = 0;
    CHECK_THROWS_AS(warpkit::issue::scheduler_bank<warpkit::issue::gto>{b}, warpkit::config_error);
}

TEST_CASE("registry builds every scheduler by name with overrides") {
    const auto reg = warpkit::issue::builtin_schedulers();
    CHECK(reg.names() == std::vector<std::string>{"lrr", "rr", "gto", "two_level", "gates"});
    auto v = ready_warps(4);
    for (const auto& n : reg.names()) {
        auto s = reg.make(n);
        CHECK(s.name() == n);
        const auto l = s.select(std::span<const warp_view>(v), 1);
        CHECK(l.size() == 1);
        s.notify_issued(l);
        CHECK(s.stats_json().dump().find("\"cycles\":1") != std::string::npos);
        CHECK(s.set_blocked({}) == (n == "gates"));
        CHECK(s.actv(I).has_value() == (n == "gates"));
    }
    auto g = reg.make("gates", nullptr, {"active_warps=10", "inner.max_switch_cycles=100"});
    CHECK(g.params_json()["active_warps"] == 10);
    CHECK(g.params_json()["inner"]["max_switch_cycles"] == 100);
    CHECK(g.target<warpkit::issue::gates<>>() != nullptr);
    CHECK(g.target<warpkit::issue::lrr>() == nullptr);
    auto copy = g;
    CHECK(copy.params_json() == g.params_json());
    // Two schedulers per SM: a bank, with the overrides applied to each scheduler.
    auto bank = reg.make("gates", nullptr, {"active_warps=6"}, 2);
    CHECK(bank.params_json()["schedulers"] == 2);
    CHECK(bank.params_json()["scheduler"]["active_warps"] == 6);
    CHECK(bank.set_blocked({F}));
    const auto l = bank.select(std::span<const warp_view>(v), 2);
    CHECK(ids(l) == std::vector<int>{0, 1});
    CHECK(bank.actv(I) == 4u); // INT_ACTV of the SM: both schedulers' active subsets
    CHECK_FALSE(bank.high_priority().has_value());
    CHECK_THROWS_AS((void)reg.make("lrr", nullptr, {}, 0), warpkit::config_error);
    CHECK_THROWS_AS((void)reg.make("fifo"), warpkit::config_error);
    CHECK_THROWS_AS((void)reg.make("gates", nullptr, {"active_warps=0"}), warpkit::config_error);
    CHECK_THROWS_AS((void)reg.make("lrr", nullptr, {"width=2"}), warpkit::config_error);
}
