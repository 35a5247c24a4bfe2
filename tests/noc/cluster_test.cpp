// Paper 000's cluster network: packets against hand-assembled bit patterns, field-width
// errors, link timing at twice the core clock, and the 16 pJ of a 64-bit instruction.

#include <warpkit/core/error.hpp>
#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/cluster_packet.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <utility>

using namespace warpkit::noc;

TEST_CASE("InstPacket encoding against hand-assembled bits") {
    // warp 5 = 000101, fu 3 = 0011, op 42 = 101010, imm 0xBEEF:
    //   0001 0100 1110 1010 | 1011 1110 1110 1111 = 0x14EABEEF
    // r0..r4 = 1..5 = 00001 00010 00011 00100 00101, then 0000000:
    //   0000 1000 1000 0110 0100 0010 1000 0000 = 0x08864280
    inst_packet p;
    p.warp = 5;
    p.fu = 3;
    p.op = 42;
    p.imm = 0xBEEF;
    p.reg = {1, 2, 3, 4, 5};
    CHECK(encode(p) == 0x14EABEEF08864280ULL);
    CHECK(decode_inst(0x14EABEEF08864280ULL) == p);

    // One field at a time: its lowest bit lands where the layout says.
    const std::pair<inst_packet, std::uint64_t> one_field[] = {
        {{1, 0, 0, 0, {}}, 0x0400000000000000ULL},              // warp: bit 58
        {{0, 1, 0, 0, {}}, 0x0040000000000000ULL},              // fu: bit 54
        {{0, 0, 1, 0, {}}, 0x0001000000000000ULL},              // op: bit 48
        {{0, 0, 0, 1, {}}, 0x0000000100000000ULL},              // imm: bit 32
        {{0, 0, 0, 0, {1, 0, 0, 0, 0}}, 0x0000000008000000ULL}, // r0: bit 27
        {{0, 0, 0, 0, {0, 0, 0, 0, 1}}, 0x0000000000000080ULL}, // r4: bit 7
    };
    for (const auto& [q, bits] : one_field)
        CHECK(encode(q) == bits);
    // Every field full: all but the 7 spare bits.
    CHECK(encode(inst_packet{63, 15, 63, 0xFFFF, {31, 31, 31, 31, 31}}) == 0xFFFFFFFFFFFFFF80ULL);
}

TEST_CASE("MemPacket and CtrlPacket encodings against hand-assembled bits") {
    // type 2 = 10, slave 5 = 101, warp 33 = 100001, reg 17 = 10001:
    //   1010 1100 0011 0001 = 0xAC31
    const mem_packet m{2, 5, 33, 17};
    CHECK(encode(m) == 0xAC31);
    CHECK(decode_mem(0xAC31) == m);
    CHECK(encode(mem_packet{0, 0, 0, 1}) == 0x0001);
    CHECK(encode(mem_packet{1, 0, 0, 0}) == 0x4000);
    // Ungroup (type 1) for slave 6: 1 110.
    CHECK(encode(ctrl_packet{ctrl_ungroup, 6}) == 0xE);
    CHECK(encode(ctrl_packet{0, 3}) == 0x3);
    CHECK(decode_ctrl(0xE) == ctrl_packet{1, 6});
}

TEST_CASE("packet fields too wide and malformed words are errors naming the field") {
    const auto field_of = [](auto&& f) {
        try {
            f();
        } catch (const warpkit::config_error& e) {
            return e.field();
        }
        return std::string("(no error)");
    };
    CHECK(field_of([] { (void)encode(inst_packet{64, 0, 0, 0, {}}); }) == "inst.warp");
    CHECK(field_of([] { (void)encode(inst_packet{0, 16, 0, 0, {}}); }) == "inst.fu");
    CHECK(field_of([] { (void)encode(inst_packet{0, 0, 0, 0x10000, {}}); }) == "inst.imm");
    CHECK(field_of([] { (void)encode(inst_packet{0, 0, 0, 0, {0, 0, 0, 32, 0}}); }) == "inst.r3");
    CHECK(field_of([] { (void)encode(mem_packet{0, 8, 0, 0}); }) == "mem.slave");
    CHECK(field_of([] { (void)encode(ctrl_packet{2, 0}); }) == "ctrl.type");
    CHECK(field_of([] { (void)decode_inst(0x14EABEEF08864281ULL); }) == "inst.spare");
    CHECK(field_of([] { (void)decode_mem(0x10000); }) == "mem");
    CHECK(field_of([] { (void)decode_ctrl(0x10); }) == "ctrl");
}

TEST_CASE("generic field tables round-trip every kind") {
    const std::array<std::uint64_t, 9> inst = {63, 0, 21, 0x1234, 0, 31, 7, 8, 9};
    const auto w = encode_fields(cluster_packet_kind::inst, inst);
    CHECK(decode_fields(cluster_packet_kind::inst, w) == inst);
    CHECK(layout(cluster_packet_kind::mem).size() == 4);
    CHECK(packet_bits(cluster_packet_kind::ctrl) == 4);
    std::uint32_t total = 0;
    for (const auto& f : layout(cluster_packet_kind::inst))
        total += f.bits;
    CHECK(total == 57); // 32 + 25, 7 spare
    CHECK(to_hex(0xAC31, 4) == "ac31");
}

TEST_CASE("cluster link energy: 64 bits over 5 mm at 50 fJ/bit/mm cost 16 pJ") {
    const auto p = master_to_slave_link();
    CHECK(link_energy_pj(p, 64) == doctest::Approx(16.0));
    cluster_link l(p);
    l.send(cluster_packet_kind::inst, 0x14EABEEF08864280ULL);
    l.tick();
    CHECK(energy_pj(l.params(), l.stats()) == doctest::Approx(16.0));
    CHECK(l.stats().inst_packets == 1);
}

TEST_CASE("cluster link timing at twice the core clock") {
    SUBCASE("master to slave: two instructions per core cycle") {
        cluster_link l(master_to_slave_link());
        CHECK(l.params().width_bits == 64);
        l.send(cluster_packet_kind::inst, 1);
        l.send(cluster_packet_kind::inst, 2);
        CHECK_FALSE(l.can_receive());
        l.tick(); // link cycle 0: the first crosses
        REQUIRE(l.can_receive());
        CHECK(l.receive() == link_word{1, 64});
        l.tick(); // link cycle 1: the second; both within one core cycle
        REQUIRE(l.can_receive());
        CHECK(l.receive() == link_word{2, 64});
        CHECK(l.core_cycles(64) == 1);
        CHECK(l.stats().busy_cycles == 2);
    }
    SUBCASE("slave to master: 16 bits wide") {
        cluster_link l(slave_to_master_link());
        l.send(cluster_packet_kind::mem, 0xAC31);
        l.tick();
        REQUIRE(l.can_receive());
        CHECK(l.receive() == link_word{0xAC31, 16});
        // A 64-bit word needs four link cycles (two core cycles) on the narrow link.
        l.send_bits(0xFFFFFFFF, 64);
        for (int i = 0; i < 3; ++i) {
            l.tick();
            CHECK_FALSE(l.can_receive());
        }
        l.tick();
        CHECK(l.can_receive());
        CHECK(l.core_cycles(64) == 2);
        CHECK(l.stats().other_packets == 1);
        CHECK(l.stats().bits == 80);
    }
    SUBCASE("longer wires add latency") {
        cluster_link_params p = master_to_slave_link();
        p.latency = 3;
        cluster_link l(p);
        l.send(cluster_packet_kind::ctrl, 0xE);
        l.tick();
        l.tick();
        CHECK_FALSE(l.can_receive());
        l.tick();
        CHECK(l.can_receive());
    }
    SUBCASE("bad params") {
        cluster_link_params p;
        p.width_bits = 0;
        CHECK_THROWS_AS(cluster_link{p}, warpkit::config_error);
    }
}
