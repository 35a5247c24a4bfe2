#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/special_register.hpp>
#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/cluster_packet.hpp>
#include <warpkit/reconfig/block_dependence.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rc = warpkit::reconfig;
using rc::sharing_state;
using rc::ungroup_cause;

namespace {

std::uint64_t causes(const rc::front_end_sharing& c, ungroup_cause k) {
    return c.stats().ungroup_causes[static_cast<std::size_t>(k)];
}

// Ticks `c` from cycle `from` up to and including `to` with the given drain state.
void run(rc::front_end_sharing& c, std::uint64_t from, std::uint64_t to, bool drained = false) {
    for (std::uint64_t t = from; t <= to; ++t)
        c.tick(t, drained, true);
}

} // namespace

TEST_CASE("front-end sharing params: paper 000 defaults, errors name the field") {
    const rc::front_end_sharing_params p;
    CHECK(p.link_clock_multiplier == 2); // 1.4 GHz NoC, 700 MHz cores
    CHECK(p.down_width_bits == 64);
    CHECK(p.up_width_bits == 16);
    CHECK(p.sm_pitch_mm == 5.0);
    CHECK(p.wire_fj_per_bit_mm == 50.0);
    CHECK(p.inst_packet_bits == 64);
    CHECK(p.mem_packet_bits == 16);
    CHECK(p.ctrl_packet_bits == 4);
    // The packet sizes are the bit-exact packets of the cluster network.
    CHECK(p.inst_packet_bits == warpkit::noc::packet_bits(warpkit::noc::cluster_packet_kind::inst));
    CHECK(p.mem_packet_bits == warpkit::noc::packet_bits(warpkit::noc::cluster_packet_kind::mem));
    CHECK(p.ctrl_packet_bits == warpkit::noc::packet_bits(warpkit::noc::cluster_packet_kind::ctrl));
    CHECK_NOTHROW(warpkit::validate(p));

    auto bad = p;
    bad.link_clock_multiplier = 0;
    try {
        warpkit::validate(bad);
        FAIL("expected config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(std::string(e.what()).find("link_clock_multiplier") != std::string::npos);
    }
    bad = p;
    bad.sm_pitch_mm = -1;
    CHECK_THROWS_AS(warpkit::validate(bad), warpkit::config_error);
    CHECK_THROWS_AS(rc::front_end_sharing(p, 5, 48), warpkit::config_error);
    CHECK_THROWS_AS(rc::front_end_sharing(p, 0, 48), warpkit::config_error);
    CHECK_THROWS_AS(rc::front_end_sharing(p, 2, 65), warpkit::config_error);
    auto q = p;
    CHECK_NOTHROW(warpkit::apply_override(q, "hint=ungroup"));
    CHECK(q.hint == rc::hint_policy::ungroup);
}

TEST_CASE("cluster geometry: wire lengths, the communicate stage, link energy (Section II.E)") {
    const rc::front_end_sharing_params p;
    SUBCASE("two SMs: one pitch, one core cycle each way") {
        const rc::front_end_sharing c(p, 2, 48);
        CHECK(c.hops(0) == 0);
        CHECK(c.hops(1) == 1);
        CHECK(c.down_cycles(1) == 1); // one 1.4 GHz link cycle, rounded up to a core cycle
        CHECK(c.up_cycles(1) == 1);
        CHECK(c.communicate_cycles() == 1);
        CHECK(c.down_words_per_cycle() == 2); // "enough bandwidth to transfer two instructions"
        CHECK(c.words(false) == 1);
        CHECK(c.words(true) == 2); // a branch's InstPacket and its mask packet
    }
    SUBCASE("four SMs in a 2 x 2 block: 5, 5 and 10 mm; still a one-cycle stage") {
        const rc::front_end_sharing c(p, 4, 48);
        CHECK(c.hops(1) == 1);
        CHECK(c.hops(2) == 1);
        CHECK(c.hops(3) == 2);
        CHECK(c.down_cycles(3) == 1); // two link cycles = one core cycle
        CHECK(c.communicate_cycles() == 1);
    }
    SUBCASE("four SMs in a row: the farthest slave is 15 mm, three link cycles, two core") {
        auto row = p;
        row.grid_columns = 4;
        const rc::front_end_sharing c(row, 4, 48);
        CHECK(c.hops(3) == 3);
        CHECK(c.down_cycles(3) == 2);
        CHECK(c.communicate_cycles() == 2);
    }
    SUBCASE("a 64-bit InstPacket over 5 mm costs 50 x 64 x 5 fJ = 16 pJ") {
        rc::front_end_sharing c(p, 2, 48);
        c.launch();
        c.on_issue(false);
        CHECK(rc::link_energy_pj(p, c.stats()) == doctest::Approx(16.0));
        // The noc part's link prices the same bits the same way.
        CHECK(warpkit::noc::link_energy_pj(warpkit::noc::master_to_slave_link(), 64) ==
              doctest::Approx(16.0));
    }
}

TEST_CASE("state machine: grouped until a slave's mask differs, ramp-down, then independent") {
    rc::front_end_sharing_params p;
    p.wakeup_cycles = 3;
    rc::front_end_sharing c(p, 2, 48);
    CHECK(c.independent()); // before any kernel
    c.launch();
    CHECK(c.grouped());
    run(c, 0, 9);
    CHECK(c.stats().grouped_cycles == 10);

    // Cycle 10: the master's warp 5 branches; every lane stays active and goes to pc 20.
    const rc::branch_outcome same{0xffffffff, 20};
    CHECK_FALSE(c.on_master_branch(5, same, false, 10));
    CHECK(c.branch_pending(5, 10));
    CHECK_FALSE(c.branch_pending(4, 10));
    // Cycle 11: the slave executes it (one communicate cycle later) and agrees.
    run(c, 10, 11);
    CHECK_FALSE(c.on_slave_branch(1, 5, same, 11));
    CHECK(c.stats().compares == 1);
    // No ungroup can arrive after cycle 12 (one cycle back): the warp is free from then on.
    CHECK(c.branch_pending(5, 11));
    CHECK_FALSE(c.branch_pending(5, 12));
    CHECK(c.grouped());

    // Cycle 20: warp 7 branches; on the slave lanes 0..15 go elsewhere.
    CHECK_FALSE(c.on_master_branch(7, {0xffffffff, 30}, false, 20));
    run(c, 12, 21);
    CHECK(c.on_slave_branch(1, 7, {0x0000ffff, 30}, 21));
    CHECK(c.stats().ctrl_packets == 1);
    CHECK(c.stats().ungroups == 1);
    CHECK(causes(c, ungroup_cause::mask_mismatch) == 1);
    CHECK(c.grouped()); // the CtrlPacket is on its way
    run(c, 22, 22);     // it arrives in cycle 22: the ramp-down starts
    CHECK(c.ramping_down());
    CHECK(c.cause() == ungroup_cause::mask_mismatch);
    // Drained at once, but the slave front-end needs its 3 wakeup cycles: 22, 23, 24.
    run(c, 23, 24, true);
    CHECK(c.ramping_down());
    run(c, 25, 25, true);
    CHECK(c.independent());
    CHECK(c.stats().ramp_down_cycles == 3);
    CHECK(c.stats().grouped_cycles == 22);
    // Independent until the kernel ends: branches are neither broadcast nor compared.
    CHECK_FALSE(c.on_master_branch(1, same, false, 26));
    CHECK_FALSE(c.on_slave_branch(1, 1, {1, 2}, 27));
    run(c, 26, 29, true);
    CHECK(c.independent());
    CHECK(c.stats().independent_cycles == 5);
    CHECK(c.stats().mask_packets == 0); // on_issue was never called
    CHECK(rc::sharing_fraction(c.stats()) == doctest::Approx(22.0 / 30.0));

    // The next kernel regroups.
    c.launch();
    CHECK(c.grouped());
    CHECK_FALSE(c.branch_pending(7, 0));
    CHECK(c.stats().kernels == 2);
}

TEST_CASE("ramp-down lasts until the master's scoreboard drains") {
    rc::front_end_sharing c({}, 4, 48);
    c.launch();
    c.ungroup(ungroup_cause::uneven_dispatch, 0);
    CHECK(c.stats().ctrl_packets == 0); // decided at the master: no packet
    run(c, 0, 99, false);
    CHECK(c.ramping_down());
    run(c, 100, 100, true);
    CHECK(c.independent());
    CHECK(c.stats().ramp_down_cycles == 100);
    CHECK(causes(c, ungroup_cause::uneven_dispatch) == 1);
}

TEST_CASE("equal masks, different targets: the compiler hint decides how it is caught") {
    const rc::branch_outcome master{0xffffffff, 40};
    const rc::branch_outcome slave{0xffffffff, 12}; // a uniform branch the other way
    SUBCASE("a flagged branch is resolved at the branch: slaves compare the target") {
        rc::front_end_sharing c({}, 2, 48);
        c.launch();
        CHECK_FALSE(c.on_master_branch(0, master, true, 5));
        CHECK(c.on_slave_branch(1, 0, slave, 6));
        CHECK(causes(c, ungroup_cause::hinted_target) == 1);
        CHECK(c.stats().hinted_branches == 1);
    }
    SUBCASE("an unflagged one is a missed hint: counted apart") {
        rc::front_end_sharing c({}, 2, 48);
        c.launch();
        CHECK_FALSE(c.on_master_branch(0, master, false, 5));
        CHECK(c.on_slave_branch(1, 0, slave, 6));
        CHECK(causes(c, ungroup_cause::unhinted_target) == 1);
    }
    SUBCASE("hint_policy::ungroup ungroups pre-emptively at the flagged branch") {
        rc::front_end_sharing_params p;
        p.hint = rc::hint_policy::ungroup;
        rc::front_end_sharing c(p, 2, 48);
        c.launch();
        CHECK_FALSE(c.on_master_branch(0, master, false, 5)); // unflagged: compared as usual
        CHECK(c.on_master_branch(1, master, true, 5));
        CHECK(causes(c, ungroup_cause::hint) == 1);
        run(c, 6, 6);
        CHECK(c.ramping_down());
    }
}

TEST_CASE("several ungroup requests: the first to arrive starts the ramp-down, counted once") {
    rc::front_end_sharing_params p;
    p.grid_columns = 4; // slave 3 is three pitches away: its CtrlPacket takes two cycles
    rc::front_end_sharing c(p, 4, 48);
    c.launch();
    CHECK_FALSE(c.on_master_branch(2, {0xff, 9}, false, 0));
    CHECK(c.on_slave_branch(3, 2, {0x0f, 9}, 2)); // arrives in cycle 4
    CHECK(c.on_slave_branch(1, 2, {0xf0, 9}, 2)); // one pitch: arrives in cycle 3
    CHECK_FALSE(c.on_slave_branch(2, 2, {0xff, 9}, 2));
    CHECK(c.stats().ungroups == 1);
    CHECK(c.stats().ctrl_packets == 2);
    run(c, 0, 2);
    CHECK(c.grouped());
    run(c, 3, 3);
    CHECK(c.ramping_down());
}

TEST_CASE("packets and bits of a 4-SM cluster, hand-computed") {
    const rc::front_end_sharing_params p;
    rc::front_end_sharing c(p, 4, 48);
    c.launch();
    // 10 instructions, 2 of them branches; 5 memory acks from slave 3 and 2 from slave 1.
    for (int i = 0; i < 10; ++i)
        c.on_issue(i == 3 || i == 7);
    std::vector<std::uint64_t> arrive;
    for (int i = 0; i < 5; ++i)
        arrive.push_back(c.send_ack(3, 100));
    (void)c.send_ack(1, 100);
    (void)c.send_ack(1, 100);
    const auto& s = c.stats();
    CHECK(s.instructions == 10);
    CHECK(s.inst_packets == 30); // one per slave
    CHECK(s.mask_packets == 6);
    CHECK(s.mem_packets == 7);
    CHECK(s.ctrl_packets == 0);
    CHECK(s.down_bits == 30 * 64 + 6 * 32);
    CHECK(s.up_bits == 7 * 16);
    // Pitches: slaves 1 and 2 one each, slave 3 two.
    const std::uint64_t per_slave_down = 10 * 64 + 2 * 32;
    CHECK(s.bit_hops == per_slave_down * (1 + 1 + 2) + 5 * 16 * 2 + 2 * 16 * 1);
    CHECK(rc::link_energy_pj(p, s) ==
          doctest::Approx(static_cast<double>(s.bit_hops) * 5.0 * 50.0 / 1000.0));
    // The 16-bit link carries two MemPackets per core cycle; slave 3's two pitches take two
    // link cycles: sent in link cycles 200..204, the last one lands after link cycle 205.
    CHECK(arrive == std::vector<std::uint64_t>{101, 102, 102, 103, 103});
    // The stats add up like any other stats struct.
    rc::front_end_sharing_stats sum;
    warpkit::accumulate(sum, s);
    warpkit::accumulate(sum, s);
    CHECK(sum.inst_packets == 60);
    CHECK(sum.ungroup_causes.size() == rc::ungroup_cause_count);
}

TEST_CASE("one-member clusters and disabled sharing never group") {
    rc::front_end_sharing alone({}, 1, 48);
    alone.launch();
    CHECK(alone.independent());
    rc::front_end_sharing_params off;
    off.enabled = false;
    rc::front_end_sharing c(off, 2, 48);
    c.launch();
    CHECK(c.independent());
    CHECK_FALSE(c.on_master_branch(0, {1, 2}, true, 0));
    CHECK_FALSE(c.branch_pending(0, 0));
    run(c, 0, 4, true);
    CHECK(c.stats().independent_cycles == 5);
    CHECK(c.stats().grouped_cycles == 0);
}

namespace {

std::vector<bool> flags(const std::string& body) {
    const auto prog = warpkit::isa::assemble(".kernel k\n.grid 2\n.block 32\n" + body);
    const warpkit::func::isa_kernel k(prog);
    std::vector<warpkit::isa::static_inst> code;
    for (std::size_t pc = 0; pc < k.size(); ++pc)
        code.push_back(k.static_at(pc));
    const auto varies = [&](std::size_t pc) {
        using warpkit::isa::special_register;
        const auto& in = k.at(pc);
        if (in.op != warpkit::isa::opcode::lds) return false;
        const auto r = static_cast<special_register>(in.src1);
        return r == special_register::ctaid_x || r == special_register::smid ||
               r == special_register::clock;
    };
    return rc::block_dependent_branches(code, varies);
}

} // namespace

TEST_CASE("compiler hint: branches that depend on the block index, not on the thread index") {
    // pc:      0               1                 2               3                4
    const auto f = flags("LDS r1, %tid.x\nLDS r2, %ctaid.x\nSLT r3, r1, r2\nBEQ r1, 5\nBEQ r3, 5\n"
                         "EXIT\n");
    CHECK(f == std::vector<bool>{false, false, false, false, true, false});
    // A load through a block-dependent address feeds a branch.
    const auto g = flags("LDS r2, %ctaid.x\nLDG r3, r2\nBNE r3, 3\nEXIT\n");
    CHECK(g == std::vector<bool>{false, false, true, false});
    // A load from a thread-only address is the same on every SM ...
    const auto h = flags("LDS r1, %tid.x\nLDG r3, r1\nBNE r3, 3\nEXIT\n");
    CHECK(h == std::vector<bool>{false, false, false, false});
    // ... unless the kernel stores block-dependent values there (the store comes later in
    // the code: the analysis is flow-insensitive).
    const auto i =
        flags("LDS r1, %tid.x\nLD r3, r1\nBNE r3, 5\nLDS r2, %ctaid.x\nST r1, r2\nEXIT\n");
    CHECK(i[2]);
    // Atomics make their memory and their old value block-dependent.
    const auto j = flags("LDS r1, %tid.x\nATOMS r3, r1, r1\nBNE r3, 3\nEXIT\n");
    CHECK(j[2]);
}
