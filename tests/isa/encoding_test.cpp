#include <warpkit/core/rng.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/opcode.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

using namespace warpkit::isa;

namespace {
// Fills a Table 4.1 representation string: 'd' dest bits, '1' '2' '3' source bits, 'i' / 'l'
// immediate or label bits, 'x' don't-care (zero), '0' / '1' literal opcode bits elsewhere.
// Field letters are filled from the most significant bit of each field.
std::uint32_t from_table(std::string rep, const instruction& in) {
    std::string bits;
    for (char c : rep)
        if (c != '-') bits += c;
    REQUIRE(bits.size() == 32);
    // Count field widths first so values can be placed MSB-first.
    auto width = [&](char f, std::size_t from) {
        std::size_t n = 0;
        for (std::size_t k = from; k < bits.size() && bits[k] == f; ++k)
            ++n;
        return n;
    };
    std::uint32_t w = 0;
    for (std::size_t k = 0; k < 32;) {
        const char c = bits[k];
        const bool opcode_bits = k < 6 || k >= 26; // literal 0/1 only in opcode and func
        if ((c == '0' || c == '1') && opcode_bits) {
            w = (w << 1) | static_cast<std::uint32_t>(c - '0');
            ++k;
            continue;
        }
        if (c == 'x') {
            w <<= 1;
            ++k;
            continue;
        }
        const std::size_t n = width(c, k);
        std::uint32_t v = 0;
        if (c == 'd') v = in.dest;
        if (c == '1') v = in.src1;
        if (c == '2') v = in.src2;
        if (c == '3') v = in.src3;
        if (c == 'i' || c == 'l') v = in.imm;
        for (std::size_t b = 0; b < n; ++b)
            w = (w << 1) | ((v >> (n - 1 - b)) & 1U);
        k += n;
    }
    return w;
}
} // namespace

TEST_CASE("Table 4.1 encodings, bit for bit") {
    // The paper's representations; immediates / labels written out to the full 16 bits
    // that the table abbreviates.
    const std::pair<opcode, const char*> table[] = {
        {opcode::nop, "000000-xxxxx-xxxxx-xxxxx-xxxxx-000000"},
        {opcode::mad, "000000-ddddd-11111-22222-33333-000001"},
        {opcode::mul, "000000-ddddd-xxxxx-22222-33333-000010"},
        {opcode::add, "000000-ddddd-11111-22222-xxxxx-000011"},
        {opcode::sub, "000000-ddddd-11111-22222-xxxxx-000100"},
        {opcode::slt, "000000-ddddd-11111-22222-xxxxx-000101"},
        {opcode::sgt, "000000-ddddd-11111-22222-xxxxx-000110"},
        {opcode::shr, "000000-ddddd-11111-22222-xxxxx-000111"},
        {opcode::shl, "000000-ddddd-11111-22222-xxxxx-001000"},
        {opcode::not_, "000000-ddddd-xxxxx-22222-xxxxx-001001"},
        {opcode::and_, "000000-ddddd-11111-22222-xxxxx-001010"},
        {opcode::or_, "000000-ddddd-11111-22222-xxxxx-001011"},
        {opcode::xor_, "000000-ddddd-11111-22222-xxxxx-001100"},
        {opcode::mv, "000001-ddddd-11111-xxxxx-xxxxx-xxxxxx"},
        {opcode::mvi, "000010-ddddd-xxxxx-iiii-iiii-iiii-iiii"},
        {opcode::ld, "000011-ddddd-11111-xxxxx-xxxxx-xxxxxx"},
        {opcode::ldc, "000100-ddddd-11111-xxxxx-xxxxx-xxxxxx"},
        {opcode::lds, "000101-ddddd-11111-xxxxx-xxxxx-xxxxxx"},
        {opcode::beq, "000110-xxxxx-11111-llll-llll-llll-llll"},
        {opcode::bne, "000111-xxxxx-11111-llll-llll-llll-llll"},
        {opcode::st, "001000-xxxxx-11111-22222-xxxxx-xxxxxx"},
        {opcode::ssy, "111101-xxxxx-xxxxx-llll-llll-llll-llll"},
        {opcode::bar, "111110-xxxxx-xxxxx-xxxxx-xxxxx-xxxxxx"},
        {opcode::exit, "111111-xxxxx-xxxxx-xxxxx-xxxxx-xxxxxx"},
    };
    CHECK(std::size(table) == 24);
    warpkit::rng r(2024);
    for (const auto& row : table) {
        const opcode op = row.first;
        const char* rep = row.second;
        CAPTURE(mnemonic(op));
        CHECK_FALSE(info(op).extension);
        for (int trial = 0; trial < 50; ++trial) {
            instruction in;
            in.op = op;
            // Only the fields the opcode uses carry values; the rest stay zero.
            if (in.uses(operand::dest)) in.dest = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src1) || in.uses(operand::sreg))
                in.src1 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src2)) in.src2 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::src3)) in.src3 = static_cast<std::uint8_t>(r.below(32));
            if (in.uses(operand::imm) || in.uses(operand::target))
                in.imm = static_cast<std::uint32_t>(r.below(65536));
            const std::uint32_t w = encode(in);
            CHECK(w == from_table(rep, in));
            const auto back = decode(w);
            REQUIRE(back.has_value());
            CHECK(*back == in);
        }
    }
    // A few words written out by hand.
    CHECK(encode({opcode::add, 1, 2, 3, 0, 0}) == 0b000000'00001'00010'00011'00000'000011U);
    CHECK(encode({opcode::mvi, 4, 0, 0, 0, 0x10}) == 0x08800010U);
    CHECK(encode({opcode::exit, 0, 0, 0, 0, 0}) == 0xFC000000U);
    CHECK(encode({opcode::ssy, 0, 0, 0, 0, 7}) == 0xF4000007U);
}

TEST_CASE("every opcode has a distinct encoding; extensions use free opcodes") {
    std::set<std::pair<int, int>> seen;
    std::set<int> table41_primaries;
    for (const auto& i : all_opcodes())
        if (!i.extension) table41_primaries.insert(i.primary);
    for (const auto& i : all_opcodes()) {
        CAPTURE(i.mnemonic);
        CHECK(seen.insert({i.primary, i.func}).second);
        if (i.func < 0) {
            // Opcodes without a function code own their primary opcode alone.
            int users = 0;
            for (const auto& j : all_opcodes())
                users += j.primary == i.primary ? 1 : 0;
            CHECK(users == 1);
        }
        if (i.extension && i.primary != 0) CHECK(table41_primaries.count(i.primary) == 0);
        CHECK(find_mnemonic(i.mnemonic) == i.op);
        CHECK(i.operand_count <= 4);
    }
    CHECK(find_mnemonic("add") == opcode::add);
    CHECK_FALSE(find_mnemonic("ADDX").has_value());
}

TEST_CASE("decode ignores don't-care bits and rejects undefined encodings") {
    // MV with garbage in the don't-care low bits still decodes as MV r3, r4.
    const std::uint32_t mv = encode({opcode::mv, 3, 4, 0, 0, 0});
    const auto d = decode(mv | 0x7FFU);
    REQUIRE(d.has_value());
    CHECK(d->op == opcode::mv);
    CHECK(d->dest == 3);
    CHECK(d->src1 == 4);
    CHECK(d->src2 == 0);
    CHECK(encode(*d) == mv);
    CHECK_FALSE(decode(0x00000000U | 63U).has_value()); // opcode 0, func 63: undefined
    CHECK_FALSE(decode(30U << 26).has_value());         // primary 30: free
}

TEST_CASE("unit and latency classes") {
    CHECK(unit_of(opcode::add) == warpkit::isa::unit_class::int_alu);
    CHECK(unit_of(opcode::fmad) == warpkit::isa::unit_class::fp);
    CHECK(unit_of(opcode::sin) == warpkit::isa::unit_class::sfu);
    CHECK(unit_of(opcode::ld) == warpkit::isa::unit_class::ldst);
    CHECK(unit_of(opcode::stg) == warpkit::isa::unit_class::ldst);
    CHECK(unit_of(opcode::beq) == warpkit::isa::unit_class::branch);
    CHECK(unit_of(opcode::bar) == warpkit::isa::unit_class::ctrl);
    CHECK(info(opcode::mad).latency == latency_class::int_mad);
    CHECK(info(opcode::mul).latency == latency_class::int_mul);
    CHECK(info(opcode::fmad).latency == latency_class::fp_mad);
    CHECK(info(opcode::st).writes_dest == false);
    CHECK(info(opcode::atomg).writes_dest == true);
}

TEST_CASE("encoding params: widths validated, wider fields move the layout") {
    encoding_params p;
    CHECK_NOTHROW(warpkit::validate(p));
    p.dest_width = 6;
    CHECK_THROWS_AS(warpkit::validate(p), warpkit::config_error); // 6+6+15+6 > 32
    encoding_params q;
    q.imm_width = 12; // narrower immediates are fine
    CHECK_NOTHROW(warpkit::validate(q));
    instruction in{opcode::mvi, 2, 0, 0, 0, 0xFFF};
    CHECK(decode(encode(in, q), q) == in);
    in.imm = 0x1000;
    CHECK_THROWS_AS((void)encode(in, q), warpkit::config_error);
}
