#include <warpkit/gpu/sm.hpp>

#include "scripted_source.hpp"
#include "sm_policies.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <vector>

using namespace warpkit;
using test::alu;
using test::exit_inst;
using test::scripted_source;

namespace {
using test_policies = test::sm_policies<>;

// The same SM with a scoreboard of 256 registers per warp (a SASS-sized register file).
struct wide_policies : test_policies {
    static constexpr std::size_t scoreboard_registers = 256;
};

struct run_result {
    scripted_source source;
    gpu::sm_stats stats;
};

template <class Policies = test_policies>
run_result run_full(std::vector<std::vector<isa::static_inst>> code, gpu::sm_params p = {},
                    std::uint64_t stride = 4) {
    using sm_t = gpu::sm<Policies, scripted_source>;
    issue::scheduler_bank_params<issue::no_params> bank;
    bank.schedulers = 1;
    p.issue_width = 2;
    const auto warps = static_cast<std::uint32_t>(code.size());
    scripted_source src(std::move(code));
    src.stride_bytes = stride;
    sm_t sm(0, p, bank, std::move(src));
    sm.start_block(0, warps);
    int done = 0;
    for (int c = 0; c < 1000 && !sm.idle(); ++c)
        sm.tick([&](std::uint32_t) { ++done; });
    CHECK(done == 1);
    CHECK(sm.idle());
    return {sm.source(), sm.stats()};
}

scripted_source run(std::vector<std::vector<isa::static_inst>> code, gpu::sm_params p = {}) {
    return run_full(std::move(code), p).source;
}
} // namespace

TEST_CASE("SM timing, hand-computed: fetch fills a 2-deep buffer one cycle after it starts") {
    // Cycle 0: fetch starts; 1: buffer filled with i0, i1; 2: i0 issues and a fetch starts;
    // 3: i1 issues, the fetch completes with i2, i3; 4: i2; 5: i3 and EXIT follow.
    const auto src = run({{alu(1, {}), alu(2, {}), alu(3, {}), alu(4, {}), exit_inst()}});
    CHECK(src.issued_at(0) == std::vector<std::uint64_t>{2, 3, 4, 5, 6});
}

TEST_CASE("SM timing, hand-computed: a dependent instruction waits the producer's latency") {
    // i1 reads r1 written by i0 (INT add latency 4): i0 issues at 2, its result is written
    // back at 6, when i1 issues. i2 is independent of both but in-order behind i1.
    const auto src = run({{alu(1, {}), alu(2, {1}), alu(3, {}), exit_inst()}});
    CHECK(src.issued_at(0) == std::vector<std::uint64_t>{2, 6, 7, 8});
}

TEST_CASE("SM timing: a 256-register scoreboard tracks registers past 63 without aliasing") {
    using wide_sm = gpu::sm<wide_policies, scripted_source>;
    static_assert(wide_sm::tracked_registers == 255);
    static_assert(!wide_sm::sharing_type::enabled); // sharing's acks carry one 64-bit word
    static_assert(gpu::sm<test_policies, scripted_source>::tracked_registers == 63);
    // The hand-computed dependence above, on registers 200 and 201: same cycles.
    const auto dep = run_full<wide_policies>(
        {{alu(200, {}), alu(201, {200}), alu(3, {}), exit_inst()}});
    CHECK(dep.source.issued_at(0) == std::vector<std::uint64_t>{2, 6, 7, 8});
    CHECK(dep.stats.stalls.scoreboard > 0);
    // r127 and r63 share bit 63 of a word but are different registers: no false dependence.
    const auto apart =
        run_full<wide_policies>({{alu(127, {}), alu(2, {63}), alu(3, {}), exit_inst()}});
    CHECK(apart.source.issued_at(0) == std::vector<std::uint64_t>{2, 3, 4, 5});
    // The default scoreboard tracks 63: a write of r200 is a caller error there.
    CHECK_THROWS_AS(run_full({{alu(200, {}), exit_inst()}}), contract_error);
}

TEST_CASE("SM timing, hand-computed: two warps issue in the same cycle at width 2") {
    // Fetch serves one warp per cycle: warp 0 fills at 1, warp 1 at 2.
    const auto src = run({{alu(1, {}), exit_inst()}, {alu(1, {}), exit_inst()}});
    CHECK(src.issued_at(0) == std::vector<std::uint64_t>{2, 3});
    CHECK(src.issued_at(1) == std::vector<std::uint64_t>{3, 4});
}

TEST_CASE("SM timing: a unit's initiation interval spaces independent instructions") {
    // Integer multiplies have initiation interval 2 on one SP; with two SPs (GTX480) two
    // multiplies can start back to back, a third waits for the first SP again.
    auto mul = [](isa::reg_id d) {
        auto s = alu(d, {});
        s.latency = isa::latency_class::int_mul;
        return s;
    };
    gpu::sm_params one_sp;
    one_sp.units.sp_count = 1;
    one_sp.ibuffer_depth = 4;
    const auto a = run({{mul(1), mul(2), mul(3), exit_inst()}}, one_sp);
    // Buffer filled at 1 with all four; issues at 2, 4, 6 (interval 2), EXIT at 7.
    CHECK(a.issued_at(0) == std::vector<std::uint64_t>{2, 4, 6, 7});
    gpu::sm_params two_sp;
    two_sp.ibuffer_depth = 4;
    const auto b = run({{mul(1), mul(2), mul(3), exit_inst()}}, two_sp);
    CHECK(b.issued_at(0) == std::vector<std::uint64_t>{2, 3, 4, 5});
}

namespace {
// Runs `code` (one block) on an SM of `schedulers` schedulers issuing one warp each a cycle.
scripted_source run_banked(std::vector<std::vector<isa::static_inst>> code, gpu::sm_params p,
                           std::uint32_t schedulers) {
    issue::scheduler_bank_params<issue::no_params> bank;
    bank.schedulers = schedulers;
    p.issue_width = schedulers;
    const auto warps = static_cast<std::uint32_t>(code.size());
    gpu::sm<test_policies, scripted_source> sm(0, p, bank, scripted_source(std::move(code)));
    sm.start_block(0, warps);
    for (int c = 0; c < 1000 && !sm.idle(); ++c)
        sm.tick([](std::uint32_t) {});
    CHECK(sm.idle());
    return sm.source();
}
} // namespace

TEST_CASE("sub-cores: a warp issues to its own sub-core's SPs, SFU and LD/ST cluster only") {
    auto mul = [](isa::reg_id d) {
        auto s = alu(d, {});
        s.latency = isa::latency_class::int_mul;
        return s;
    };
    auto sfu = [](isa::reg_id d) {
        return test::op(isa::unit_class::sfu, isa::latency_class::sfu, d, {});
    };
    // Four SPs and four schedulers. As one core, a warp's three independent multiplies
    // (interval 2 on an SP) take SP0, SP1, SP2 in consecutive cycles; on four sub-cores
    // warp 0 has SP0 alone: 2, 4, 6, as on a one-SP SM.
    gpu::sm_params whole;
    whole.units.sp_count = 4;
    whole.ibuffer_depth = 4;
    auto subs = whole;
    subs.units.sub_cores = 4;
    const std::vector<std::vector<isa::static_inst>> muls{{mul(1), mul(2), mul(3), exit_inst()}};
    CHECK(run_banked(muls, whole, 4).issued_at(0) == std::vector<std::uint64_t>{2, 3, 4, 5});
    CHECK(run_banked(muls, subs, 4).issued_at(0) == std::vector<std::uint64_t>{2, 4, 6, 7});
    // Warps 0 and 1 (schedulers and sub-cores 0 and 1) each start an SFU instruction; the
    // 4-lane SFU takes a warp in 8 passes. One shared SFU makes warp 1 wait for warp 0's
    // passes (fetched at 2, it issues at 2 + 8); sub-core 1's own SFU takes it at once.
    const std::vector<std::vector<isa::static_inst>> two{{sfu(1), exit_inst()},
                                                         {sfu(1), exit_inst()}};
    CHECK(run_banked(two, whole, 4).issued_at(1) == std::vector<std::uint64_t>{10, 11});
    CHECK(run_banked(two, subs, 4).issued_at(1) == std::vector<std::uint64_t>{3, 4});
    // Warps 0 and 4 share sub-core 0 (scheduler 0): the second waits for the SFU as on one core.
    std::vector<std::vector<isa::static_inst>> five(5, {exit_inst()});
    five[0] = {sfu(1), exit_inst()};
    five[4] = {sfu(1), exit_inst()};
    CHECK(run_banked(five, subs, 4).issued_at(4).front() == 10);
    // Refused: sub-cores that do not divide the SPs or the schedulers, or with a split SM.
    auto bad = whole;
    bad.units.sub_cores = 3;
    CHECK_THROWS_WITH_AS(run_banked(muls, bad, 4), doctest::Contains("'units.sub_cores' = 3"),
                         config_error);
    CHECK_THROWS_WITH_AS(run_banked(muls, subs, 2), doctest::Contains("'units.sub_cores' = 4"),
                         config_error);
}

TEST_CASE("DP and tensor units: FP64 and matrix instructions leave the FP pipeline free") {
    using U = isa::unit_class;
    using L = isa::latency_class;
    const auto fma = [](isa::reg_id d) { return test::op(U::fp, L::fp_mad, d, {}); };
    // One SP: an FP64 FMA (interval 8 on the GTX480's timing) then two independent FP32 FMAs
    // (interval 1). Without a DP unit the FP64 FMA holds the FP pipeline: the FP32 FMAs wait
    // for its interval (2, 10, 11); with one they follow at once (2, 3, 4). The same for a
    // matrix instruction (its default timing is the FP64 FMA's) with and without a tensor unit.
    gpu::sm_params p;
    p.units.sp_count = 1;
    p.ibuffer_depth = 4;
    for (const auto& kind : {std::pair{U::dp, L::dp_fma}, {U::tensor, L::tensor}}) {
        const U unit = kind.first;
        const L latency = kind.second;
        CAPTURE(isa::short_name(unit));
        const std::vector<std::vector<isa::static_inst>> code{
            {test::op(unit, latency, 1, {}), fma(2), fma(3), exit_inst()}};
        const auto shared = run_full(code, p);
        CHECK(shared.source.issued_at(0) == std::vector<std::uint64_t>{2, 10, 11, 12});
        CHECK(shared.stats.issued_by_unit[isa::index(U::fp)] == 3);
        CHECK(shared.stats.issued_by_unit[isa::index(unit)] == 0);
        auto own = p;
        (unit == U::dp ? own.units.dp_lanes : own.units.tensor_lanes) = 16;
        const auto separate = run_full(code, own);
        CHECK(separate.source.issued_at(0) == std::vector<std::uint64_t>{2, 3, 4, 5});
        CHECK(separate.stats.issued_by_unit[isa::index(U::fp)] == 2);
        CHECK(separate.stats.issued_by_unit[isa::index(unit)] == 1);
        // A dependent FP32 FMA waits the unit's latency (8: issued 2, written back at 10).
        const std::vector<std::vector<isa::static_inst>> chain{
            {test::op(unit, latency, 1, {}), test::op(U::fp, L::fp_mad, 2, {1}), exit_inst()}};
        CHECK(run_full(chain, own).source.issued_at(0) == std::vector<std::uint64_t>{2, 10, 11});
    }
}

TEST_CASE("shared-memory bank conflicts: held LD/ST unit (Fermi) or replay through the warp "
          "(paper 004)") {
    isa::static_inst ld = alu(1, {});
    ld.unit = isa::unit_class::ldst;
    ld.latency = isa::latency_class::shared_mem;
    ld.space = isa::mem_space::shared;
    ld.mop = isa::mem_op::load;
    ld.access_bytes = 4;
    const auto use = alu(2, {1});
    // 8 banks met by rows of 8 lanes at stride 8 bytes: lanes l and l + 4 of a row share a
    // bank with different words, so each of the 4 rows takes 2 passes: 4 extra passes.
    gpu::sm_params p;
    p.banks.banks = 8;
    p.bank_group_lanes = 8;
    p.ibuffer_depth = 4;
    for (bool replay : {false, true}) {
        CAPTURE(replay);
        p.shared_replay = replay;
        const auto r = run_full({{ld, use, exit_inst()}}, p, 8);
        // The load issues at 2. Either way its data is back after the 4 extra passes:
        // 2 + 4 passes + 1 (address generation) + 38 (shared latency) = 45.
        CHECK(r.source.issued_at(0) == std::vector<std::uint64_t>{2, 45, 46});
        CHECK(r.stats.shared_bank_passes == 8);
        CHECK(r.stats.shared_replays == (replay ? 4U : 0U));
        CHECK(r.stats.warp_instructions == 3);
    }
    // Unit stride: no conflicts, no replay, data at 2 + 1 + 38.
    p.shared_replay = true;
    const auto r = run_full({{ld, use, exit_inst()}}, p, 4);
    CHECK(r.source.issued_at(0) == std::vector<std::uint64_t>{2, 41, 42});
    CHECK(r.stats.shared_replays == 0);
}
