// The stages of gpu::sm, each driven alone through its ports (hand-computed cycles).

#include <warpkit/core/rng.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/gating/idle_detect_gating.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/gpu/stages/execute_stage.hpp>
#include <warpkit/gpu/stages/fetch_stage.hpp>
#include <warpkit/gpu/stages/issue_stage.hpp>
#include <warpkit/gpu/stages/ldst_stage.hpp>
#include <warpkit/gpu/stages/power_stage.hpp>
#include <warpkit/gpu/stages/sharing_slot.hpp>
#include <warpkit/gpu/stages/split_slot.hpp>
#include <warpkit/gpu/stages/writeback_stage.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/mem/line_coalescer.hpp>

#include "scripted_source.hpp"
#include "sm_policies.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <vector>

using namespace warpkit;
using gpu::stages::memory_result;
using gpu::stages::payload;
using gpu::stages::warp_context;
using test::alu;
using test::exit_inst;
using test::scripted_source;

namespace {

std::vector<warp_context> resident_warps(std::size_t n) {
    std::vector<warp_context> w(n);
    for (auto& c : w)
        c.resident = true;
    return w;
}

isa::static_inst global_load(isa::reg_id dst) {
    auto s = test::op(isa::unit_class::ldst, isa::latency_class::global_mem, dst, {});
    s.mop = isa::mem_op::load;
    s.space = isa::mem_space::global;
    s.access_bytes = 4;
    return s;
}

// A load of warp 0 with lane l at l * stride.
isa::dynamic_inst<32> load_at_stride(std::uint64_t stride) {
    isa::dynamic_inst<32> d;
    d.si = global_load(1);
    d.active = warp_mask::full();
    for (std::size_t l = 0; l < 32; ++l)
        d.addr[l] = 0x1000 + l * stride;
    return d;
}

using ldst_t = gpu::stages::ldst_stage<32, mem::line_coalescer<128>>;

// An LD/ST stage of SM 3 with default SM params (global latency 440, address generation 1
// cycle) on `memory`, and what it writes to.
struct ldst_rig {
    explicit ldst_rig(const gpu::memory_params& memory) : ldst(3, gpu::sm_params{}, memory) {}
    ldst_t ldst;
    gpu::sm_stats counts;
    gpu::stages::result_queue<> results;
    warp_context w;
    issue::operands writes = issue::operands{}.write(1);
    void load(std::uint64_t stride, std::uint64_t now) {
        ldst.issue(0, w, load_at_stride(stride), writes, now, counts, results);
    }
};

} // namespace

TEST_CASE("fetch stage alone: a fetch fills a 2-deep buffer after the fetch latency") {
    scripted_source src({{alu(1, {}), alu(2, {}), alu(3, {}), exit_inst()},
                         {alu(1, {}), exit_inst()}});
    auto warps = resident_warps(2);
    gpu::stages::fetch_stage fetch(2, 1);
    // Cycle 0: warp 0's fetch starts (width 1); cycle 1: it fills two instructions and warp
    // 1's fetch starts; cycle 2: warp 1's buffer holds its two; warp 0's is full.
    CHECK(fetch.tick(warps, src, 0, 1) == 1);
    CHECK(warps[0].fetching);
    CHECK(warps[0].ibuf.empty());
    CHECK(fetch.tick(warps, src, 1, 1) == 1);
    CHECK(warps[0].ibuf.size() == 2);
    CHECK(warps[1].fetching);
    CHECK(fetch.tick(warps, src, 2, 1) == 0);
    CHECK(warps[1].ibuf.size() == 2);
    CHECK(warps[1].ibuf.back().is_exit);
    // A buffer ending in EXIT is not fetched past; one with room and no control is.
    warps[0].ibuf.pop_front();
    fetch.wake(); // a change the stage did not make
    CHECK(fetch.tick(warps, src, 3, 2) == 1);
    CHECK(warps[0].fetching);
    CHECK(warps[0].fetch_ready == 4);
}

TEST_CASE("fetch stage alone: a cancelled fetch fills nothing; a search that found nothing "
          "waits for a completion or wake()") {
    scripted_source src({{alu(1, {}), alu(2, {}), exit_inst()}, {alu(1, {}), exit_inst()}});
    auto warps = resident_warps(2);
    gpu::stages::fetch_stage fetch(2, 2);
    std::vector<std::uint32_t> filled;
    const auto note = [&](std::uint32_t s) { filled.push_back(s); };
    // Cycle 0: warp 0's fetch starts (width 1, latency 2) and is cancelled (a taken branch
    // flushed it); cycle 1: warp 1's starts; cycle 2: warp 0's cancelled fetch is due and
    // fills nothing, and warp 0 starts another.
    CHECK(fetch.tick(warps, src, 0, 1, note) == 1);
    warps[0].fetching = false;
    fetch.wake();
    CHECK(fetch.tick(warps, src, 1, 1, note) == 1);
    CHECK(warps[1].fetch_ready == 3);
    CHECK(fetch.tick(warps, src, 2, 1, note) == 1);
    CHECK(filled.empty());
    CHECK(warps[0].ibuf.empty());
    CHECK(warps[0].fetch_ready == 4);
    // Cycles 3 and 4: the two fetches fill their buffers, in the order they started.
    CHECK(fetch.tick(warps, src, 3, 1, note) == 0);
    CHECK(fetch.tick(warps, src, 4, 1, note) == 0);
    CHECK(filled == std::vector<std::uint32_t>{1, 0});
    CHECK(warps[0].ibuf.size() == 2);
    CHECK(warps[1].ibuf.size() == 2);
    // Both buffers are full: the search finds nothing and waits; an issue elsewhere (wake)
    // lets it look again and fetch for the warp whose buffer has room.
    CHECK(fetch.tick(warps, src, 5, 1, note) == 0);
    warps[0].ibuf.pop_front();
    fetch.wake();
    CHECK(fetch.tick(warps, src, 6, 1, note) == 1);
    CHECK(warps[0].fetching);
}

TEST_CASE("law: fetch stage: waking only the warp that issued starts the fetches that "
          "searching every warp would") {
    // Two stages over copies of the same warps and programs: one is told wake() after every
    // issue (each tick then searches every warp), the other wake(s) of the warp that issued.
    // Random warp counts, buffer depths, latencies and widths; each cycle up to two random
    // warps issue their front instruction.
    rng r(5);
    std::uint64_t started = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const auto n = static_cast<std::uint32_t>(1 + r() % 48);
        std::vector<std::vector<isa::static_inst>> code(n);
        for (auto& c : code) {
            const std::size_t len = 1 + r() % 24;
            for (std::size_t k = 0; k + 1 < len; ++k)
                c.push_back(alu(static_cast<isa::reg_id>(1 + k % 8), {}));
            c.push_back(exit_inst());
        }
        scripted_source src_all(code);
        scripted_source src_one(code);
        auto all = resident_warps(n);
        auto one = resident_warps(n);
        const auto depth = static_cast<std::uint32_t>(1 + r() % 3);
        const auto latency = static_cast<std::uint32_t>(r() % 4);
        const auto width = static_cast<std::uint32_t>(1 + r() % 3);
        gpu::stages::fetch_stage fetch_all(depth, latency);
        gpu::stages::fetch_stage fetch_one(depth, latency);
        for (std::uint64_t now = 0; now < 300; ++now) {
            const std::uint32_t a = fetch_all.tick(all, src_all, now, width);
            REQUIRE(fetch_one.tick(one, src_one, now, width) == a);
            REQUIRE(fetch_one.next() == fetch_all.next());
            started += a;
            for (std::uint32_t s = 0; s < n; ++s) {
                REQUIRE(one[s].fetching == all[s].fetching);
                REQUIRE(one[s].ibuf.size() == all[s].ibuf.size());
            }
            for (int i = 0; i < 2; ++i) {
                const auto s = static_cast<std::uint32_t>(r() % n);
                if (!all[s].resident || all[s].ibuf.empty()) continue;
                (void)src_all.execute(s, {});
                (void)src_one.execute(s, {});
                for (auto* w : {&all[s], &one[s]}) {
                    w->ibuf.pop_front();
                    if (src_all.finished(s)) {
                        w->resident = false;
                        w->ibuf.clear();
                    }
                }
                fetch_all.wake();
                fetch_one.wake(s);
            }
        }
    }
    CHECK(started > 2000);
}

TEST_CASE("fetch stage alone: a second fetch in a cycle is looked for past the first one's "
          "warp") {
    // The k-th warp looked at is next + k with next moved past each fetch started: with
    // width 2 from warp 0, warp 0 starts, then warp 2 (not 1) is looked at.
    scripted_source src({{alu(1, {}), exit_inst()},
                         {alu(1, {}), exit_inst()},
                         {alu(1, {}), exit_inst()},
                         {alu(1, {}), exit_inst()}});
    auto warps = resident_warps(4);
    gpu::stages::fetch_stage fetch(2, 1);
    CHECK(fetch.tick(warps, src, 0, 2) == 2);
    CHECK(warps[0].fetching);
    CHECK_FALSE(warps[1].fetching);
    CHECK(warps[2].fetching);
    CHECK(fetch.next() == 3);
}

TEST_CASE("writeback stage alone: registers are released when their results arrive") {
    exec::execution_units<payload> units(exec::units_params{});
    issue::scoreboard sb(issue::scoreboard_params{4});
    gpu::stages::writeback_stage<> wb;
    const auto r1 = issue::operands{}.write(1);
    const auto r2 = issue::operands{}.write(2);
    sb.reserve(0, r1);
    sb.reserve(1, r2, true);
    // An INT add (latency 4) issued in cycle 0 leaves its pipeline for writeback in cycle 4;
    // a memory result scheduled for cycle 7 arrives then.
    REQUIRE(units.issue(exec::op_class::int_add, payload{0, r1}, warp_mask::full()));
    wb.results().push(memory_result{7, 1, r2});
    std::vector<std::uint64_t> released_fixed;
    std::vector<std::uint64_t> released_memory;
    for (std::uint64_t now = 0; now < 10; ++now) {
        wb.tick(
            {&units}, now,
            [&](std::uint32_t slot, const issue::operands& w, bool memory) {
                sb.release(slot, w);
                (memory ? released_memory : released_fixed).push_back(now);
            },
            [](std::uint32_t) { FAIL("no PRT entry here"); });
        if (now == 3) CHECK(sb.pending_count(0) == 1);
        units.tick();
    }
    CHECK(released_fixed == std::vector<std::uint64_t>{4});
    CHECK(released_memory == std::vector<std::uint64_t>{7});
    CHECK(sb.pending_count(0) == 0);
    CHECK(sb.pending_count(1) == 0);
    CHECK(wb.idle());
}

TEST_CASE("LD/ST stage alone, ideal memory: a coalesced access takes one pass, a divergent "
          "one a pass per transaction") {
    ldst_rig rig(gpu::ideal_memory());
    auto& [ldst, counts, results, w, writes] = rig;
    // Stride 4: 32 lanes x 4 bytes in one 128-byte line: free again next cycle, data at
    // 10 + 1 + 440.
    rig.load(4, 10);
    CHECK(counts.global_transactions == 1);
    CHECK(counts.global_lane_accesses == 32);
    CHECK_FALSE(ldst.free(10));
    CHECK(ldst.free(11));
    REQUIRE(results.size() == 1);
    CHECK(results.pop().at == 451);
    // Stride 128: a line per lane, 32 transactions serialised: free at 20 + 32, data at
    // 20 + 1 + 440 + 31.
    rig.load(128, 20);
    CHECK(counts.global_transactions == 33);
    CHECK_FALSE(ldst.free(51));
    CHECK(ldst.free(52));
    CHECK(results.pop().at == 492);
}

TEST_CASE("LD/ST stage alone, hierarchy: the requests a coalesced and a divergent load send") {
    ldst_rig rig(gpu::gtx480_memory());
    auto& [ldst, counts, results, w, writes] = rig;
    // Coalesced: one PRT entry of one transaction; after address generation (cycle 1) it
    // misses the L1 and one line read of 0x1000 leaves the request port.
    rig.load(4, 0);
    CHECK(counts.global_transactions == 1);
    CHECK_FALSE(ldst.free(0));
    ldst.port().access_step(0, results);
    CHECK_FALSE(ldst.port().has_request());
    ldst.port().access_step(1, results);
    CHECK(ldst.free(2));
    REQUIRE(ldst.port().has_request());
    const auto m = ldst.port().request(1);
    CHECK(m.kind == gpu::mem_kind::read);
    CHECK(m.addr == 0x1000);
    CHECK(m.sm == 3);
    CHECK(m.reply_bytes == 128);
    (void)ldst.port().pop_request(1);
    CHECK_FALSE(ldst.port().has_request());
    // Divergent (a line per lane, from 0x1000 on: the first line is pending, a hit on its
    // MSHR): 32 transactions, one per cycle from cycle 11; the stage is busy until the last
    // has met the L1, and the 31 new lines leave in lane order.
    rig.load(128, 10);
    CHECK(counts.global_transactions == 33);
    std::vector<std::uint64_t> sent;
    for (std::uint64_t now = 10; now < 60; ++now) {
        ldst.port().access_step(now, results);
        if (ldst.port().has_request()) {
            sent.push_back(ldst.port().request(now).addr);
            (void)ldst.port().pop_request(now);
        }
    }
    REQUIRE(sent.size() == 31);
    for (std::size_t i = 0; i < sent.size(); ++i)
        CHECK(sent[i] == 0x1000 + (i + 1) * 128);
    CHECK(ldst.free(60));
}

namespace {
// An issue port over hand-set hazards: warp s has a scoreboard hazard while hazard[s].
struct fake_port {
    std::vector<bool> hazard_on;
    std::vector<std::uint32_t> executed;
    [[nodiscard]] bool at_barrier(std::uint32_t) const { return false; }
    [[nodiscard]] issue::hazard hazard(std::uint32_t s, const isa::static_inst&) const {
        issue::hazard h;
        h.raw = hazard_on[s];
        return h;
    }
    [[nodiscard]] bool ldst_free(std::uint32_t, std::uint32_t) const { return true; }
    [[nodiscard]] bool unit_free(std::uint32_t, const isa::static_inst&, std::uint32_t) const {
        return true;
    }
    void replay(std::uint32_t) {}
    void execute(std::uint32_t s, const isa::static_inst&) { executed.push_back(s); }
};
} // namespace

TEST_CASE("issue stage alone: picks the ready warps and counts a stall by its cause") {
    static_assert(gpu::stages::issue_port<fake_port>);
    issue::scheduler_bank_params<issue::no_params> bp;
    bp.schedulers = 1;
    issue::scheduler_bank<issue::lrr> bank(bp);
    auto warps = resident_warps(3);
    for (auto& w : warps)
        w.ibuf.push_back(alu(1, {}));
    warps[2].ibuf.clear(); // nothing fetched yet
    gpu::stages::issue_stage<issue::scheduler_bank<issue::lrr>> stage(3, 2);
    gpu::stages::no_front_end_sharing sharing;
    gpu::stages::type_demand demand;
    demand.on = {true, true};
    gpu::stall_stats stalls;
    fake_port port{{false, true, false}, {}};
    // Warp 0 issues, warp 1 waits on a register, warp 2 on fetch: one of two slots used,
    // the stall is the scoreboard's (the most advanced obstacle).
    CHECK(stage.tick(0, bank, warps, sharing, port, demand, stalls) == 1);
    CHECK(port.executed == std::vector<std::uint32_t>{0});
    CHECK(stalls.scoreboard == 1);
    CHECK(stalls.fetch == 0);
    CHECK(demand.ready_ops[0] == 1);
    // Both warps with an instruction ready: both slots used, no stall counted.
    port.hazard_on = {false, false, false};
    port.executed.clear();
    CHECK(stage.tick(0, bank, warps, sharing, port, demand, stalls) == 2);
    CHECK(port.executed.size() == 2);
    CHECK(stalls.scoreboard == 1);
}

TEST_CASE("issue stage alone: tracking picks and stalls as describing every warp does") {
    issue::scheduler_bank_params<issue::no_params> bp;
    bp.schedulers = 1;
    using bank_t = issue::scheduler_bank<issue::lrr>;
    static_assert(bank_t::scheduler_type::issuable_only());
    bank_t plain_bank(bp);
    bank_t tracked_bank(bp);
    auto warps = resident_warps(4);
    for (auto& w : warps) {
        w.ibuf.push_back(alu(1, {}));
        w.ibuf.push_back(alu(2, {}));
    }
    warps[3].ibuf.clear();
    gpu::stages::issue_stage<bank_t> plain(4, 2);
    gpu::stages::issue_stage<bank_t> tracked(4, 2);
    tracked.track(true);
    CHECK(tracked.tracking());
    gpu::stages::no_front_end_sharing sharing;
    gpu::stages::type_demand demand_a;
    gpu::stages::type_demand demand_b;
    demand_a.on = demand_b.on = {true, true};
    gpu::stall_stats stalls_a;
    gpu::stall_stats stalls_b;
    fake_port a{{true, true, false, false}, {}};
    fake_port b = a;
    // Each cycle the hazards change as writebacks would; the tracked stage is told which
    // warps changed (touch), the plain one looks at all of them.
    const std::vector<std::vector<bool>> hazards = {
        {true, true, false, false}, {true, true, true, false}, {false, true, true, false},
        {false, false, true, false}, {true, false, false, false}, {false, false, false, false}};
    for (std::size_t cycle = 0; cycle < hazards.size(); ++cycle) {
        for (std::uint32_t s = 0; s < 4; ++s)
            if (a.hazard_on[s] != hazards[cycle][s]) tracked.touch(s);
        a.hazard_on = b.hazard_on = hazards[cycle];
        if (cycle == 3) { // warp 3's fetch fills its buffer
            warps[3].ibuf.push_back(alu(3, {}));
            tracked.touch(3);
        }
        a.executed.clear();
        b.executed.clear();
        const auto na = plain.tick(0, plain_bank, warps, sharing, a, demand_a, stalls_a);
        const auto nb = tracked.tick(0, tracked_bank, warps, sharing, b, demand_b, stalls_b);
        CHECK(na == nb);
        CHECK(a.executed == b.executed);
        for (const auto s : a.executed) { // the issued instruction leaves the buffer
            warps[s].ibuf.pop_front();
            if (warps[s].ibuf.empty()) warps[s].ibuf.push_back(alu(4, {}));
            tracked.touch(s);
        }
    }
    CHECK(stalls_a.scoreboard == stalls_b.scoreboard);
    CHECK(stalls_a.fetch == stalls_b.fetch);
    CHECK(stalls_a.unit == stalls_b.unit);
    CHECK(stalls_a.scoreboard + stalls_a.fetch > 0);
    CHECK(demand_a.ready_ops == demand_b.ready_ops);
}

TEST_CASE("execute stage alone: an issued add reserves its register and occupies its SP") {
    gpu::sm_params p;
    gpu::stages::execute_stage exec(p.units);
    ldst_t ldst(0, p, gpu::ideal_memory());
    issue::scoreboard sb(issue::scoreboard_params{2});
    gpu::stages::no_front_end_sharing sharing;
    gpu::stages::result_queue<> results;
    gpu::sm_stats counts;
    scripted_source src({{alu(1, {}), exit_inst()}});
    auto warps = resident_warps(1);
    warps[0].ibuf.push_back(alu(1, {}));
    warps[0].ibuf.push_back(exit_inst());
    const gpu::stages::execute_context<scripted_source, gpu::stages::no_front_end_sharing, ldst_t>
        ctx{src, sharing, sb, ldst, results, counts, func::exec_site{0, 5}};
    const auto add = alu(1, {});
    CHECK(exec.unit_free(add, 0, ldst, 5));
    exec.execute(0, add, warps[0], 1, ctx);
    CHECK(src.issued_at(0) == std::vector<std::uint64_t>{5});
    CHECK(counts.warp_instructions == 1);
    CHECK(counts.thread_instructions == 32);
    CHECK(warps[0].ibuf.size() == 1);
    CHECK(sb.pending_count(0) == 1);
    CHECK_FALSE(exec.idle());
    // EXIT flushes the buffer (already empty after it) and ends the warp's instructions.
    exec.execute(0, exit_inst(), warps[0], 1, ctx);
    CHECK(warps[0].ibuf.empty());
    CHECK(src.finished(0));
}

TEST_CASE("power stage alone: an idle INT cluster gates after idle-detect cycles") {
    gating::params gp; // idle-detect 5
    gpu::stages::power_stage<gating::conventional> power(1, gp);
    exec::units_params up;
    up.sp_count = 1;
    exec::execution_units<payload> units(up);
    const auto none_active = [](isa::unit_class) { return std::uint32_t{0}; };
    std::uint64_t gated_at = 0;
    for (std::uint64_t c = 0; c < 20 && gated_at == 0; ++c) {
        (void)power.power(units);
        if (!power.demand().on[0]) gated_at = c;
        power.gate(units, 1, none_active);
        units.tick();
    }
    // Cycles 0..4 idle and on: the controller gates at the end of cycle 4, so from cycle 5
    // the type is off but may wake (conventional gating has no blackout).
    CHECK(gated_at == gp.idle_detect);
    CHECK(power.demand().wakeable[0]);
    CHECK(power.gates().size() == 2);
    // A demand for the gated type (an unplaced pick) wakes it.
    (void)power.power(units);
    power.demand().note_unplaced(isa::unit_class::int_alu);
    power.gate(units, 1, none_active);
    CHECK(power.gates()[0].state() == gating::power_state::waking);
}

namespace {
using default_policies = test::sm_policies<>;
// The same SM without the front-end sharing and split slots.
struct lone_policies : default_policies {
    static constexpr bool front_end_sharing = false;
    static constexpr bool dynamic_split = false;
};
} // namespace

TEST_CASE("policy slots: front-end sharing and the split compile away when left out") {
    using lone_sm = gpu::sm<lone_policies, scripted_source>;
    using default_sm = gpu::sm<default_policies, scripted_source>;
    static_assert(std::is_empty_v<gpu::stages::no_front_end_sharing>);
    static_assert(std::is_empty_v<gpu::stages::no_split<issue::scheduler_bank<issue::lrr>>>);
    static_assert(!lone_sm::sharing_type::enabled);
    static_assert(default_sm::sharing_type::enabled);
    // The scripted source cannot cut warps: no split either way.
    static_assert(!default_sm::split_type::available);
    static_assert(sizeof(lone_sm) < sizeof(default_sm));
    // A lone SM runs as the default one does.
    issue::scheduler_bank_params<issue::no_params> bank;
    bank.schedulers = 1;
    const std::vector<std::vector<isa::static_inst>> code = {
        {alu(1, {}), alu(2, {1}), exit_inst()}, {alu(1, {}), exit_inst()}};
    lone_sm a(0, gpu::sm_params{}, bank, scripted_source(code));
    default_sm b(0, gpu::sm_params{}, bank, scripted_source(code));
    a.start_block(0, 2);
    b.start_block(0, 2);
    for (int c = 0; c < 100; ++c) {
        a.tick([](std::uint32_t) {});
        b.tick([](std::uint32_t) {});
    }
    CHECK(a.idle());
    CHECK(a.source().issued_at(0) == b.source().issued_at(0));
    CHECK(a.source().issued_at(1) == b.source().issued_at(1));
    CHECK(a.stats().stalls.scoreboard == b.stats().stalls.scoreboard);
    // Asking a non-splitting SM to split names the reason.
    gpu::sm_params split;
    split.warp_slots = 32;
    split.split.mode = reconfig::split_mode::direct;
    CHECK_THROWS_AS(lone_sm(0, split, bank, scripted_source(code)), config_error);
}
