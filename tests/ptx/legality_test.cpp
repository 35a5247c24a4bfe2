// The parser's tables (ptx/parse/words.hpp, legality.hpp) and its modifier rules
// (modifier_rules.hpp): the tables agree with each other, and hand-picked combinations from the
// PTX ISA are accepted or refused with the expected message.
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/instructions.hpp>
#include <warpkit/ptx/parse/legality.hpp>
#include <warpkit/ptx/parse/modifier_rules.hpp>
#include <warpkit/ptx/parse/words.hpp>
#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>

using namespace warpkit;
using namespace warpkit::ptx;
using namespace warpkit::ptx::detail;

namespace {

// One instruction in a kernel with registers of every kind: %p, %rs (.b16), %r (.b32),
// %rd (.b64), %f (.f32), %fd (.f64), 8 of each. The instruction is on line 7.
std::string kernel_with(std::string_view instruction) {
    std::string s = ".version 9.0\n.target sm_75\n.address_size 64\n"
                    ".visible .entry k(.param .u64 k_p0)\n{\n"
                    ".reg .pred %p<8>; .reg .b16 %rs<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>; "
                    ".reg .f32 %f<8>; .reg .f64 %fd<8>;\n";
    s += instruction;
    s += "\nret;\n}\n";
    return s;
}

// The message parsing `instruction` fails with; empty when it parses.
std::string error_of(std::string_view instruction) {
    try {
        (void)parse_ptx(kernel_with(instruction), "legality.ptx");
    } catch (const parse_error& e) {
        return e.message();
    }
    return {};
}

// An instruction with only its opcode and type set, as the rules see it before operands.
instruction bare(op code, type t = type::none) {
    instruction in;
    in.opcode = code;
    in.t = t;
    return in;
}

} // namespace

TEST_CASE("ptx legality: every opcode word has exactly one legality row and back") {
    CHECK(opcode_words.entries.size() == opcode_legality_table.entries.size());
    for (const opcode_word& word : opcode_words.entries) {
        CAPTURE(word.text);
        const opcode_legality* row = opcode_legality_table.find(word.text);
        REQUIRE(row != nullptr);
        CHECK(row->text == word.text);
    }
    for (const opcode_legality& row : opcode_legality_table.entries) {
        CAPTURE(row.text);
        CHECK(opcode_words.find(row.text) != nullptr);
    }
}

TEST_CASE("ptx legality: every opcode has a mnemonic spelled as its name") {
    for (std::size_t i = 0; i < op_names.size(); ++i) {
        const auto code = static_cast<op>(i);
        CAPTURE(name(code));
        const opcode_word* word = opcode_words.find(name(code));
        // The matrix instructions have a grammar of their own (parse/matrix_instructions.hpp).
        if (is_matrix(code)) {
            CHECK(word == nullptr);
            continue;
        }
        REQUIRE(word != nullptr);
        CHECK(word->value == code);
    }
    // `barrier` is the other spelling of bar.
    REQUIRE(opcode_words.find("barrier") != nullptr);
    CHECK(opcode_words.find("barrier")->value == op::bar);
}

TEST_CASE("ptx legality: rows are consistent") {
    for (const opcode_legality& row : opcode_legality_table.entries) {
        CAPTURE(row.text);
        // A row takes type words exactly when it lists types, and a second type only after a
        // first one.
        CHECK(row.takes(modifier_class::type) == (row.types != 0));
        CHECK(row.takes(modifier_class::bad_type) == (row.types != 0));
        CHECK((row.second_types == 0 || row.types != 0));
        CHECK((row.types & type_bit(type::none)) == 0);
        CHECK_FALSE(row.takes(modifier_class::none));
    }
    // Each modifier word means something, and its second meaning differs from its first.
    for (const modifier_word& word : modifier_words.entries) {
        CAPTURE(word.text);
        CHECK(word.primary != modifier_class::none);
        CHECK(word.alternative != word.primary);
    }
    CHECK(modifier_fields_in_class_order());
}

TEST_CASE("ptx legality: the table answers for hand-picked opcodes") {
    const opcode_legality& add = *opcode_legality_table.find("add");
    CHECK(add.takes(modifier_class::cc));
    CHECK(add.takes(modifier_class::rnd));
    CHECK_FALSE(add.takes(modifier_class::aop));
    CHECK(add.allows(type::f16, 0));
    CHECK_FALSE(add.allows(type::pred, 0));
    CHECK(add.type_count() == 1);

    const opcode_legality& cvt = *opcode_legality_table.find("cvt");
    CHECK(cvt.type_count() == 2);
    CHECK(cvt.allows(type::u8, 1));
    CHECK_FALSE(cvt.allows(type::b32, 0));

    const opcode_legality& bar = *opcode_legality_table.find("bar");
    const opcode_legality& barrier = *opcode_legality_table.find("barrier");
    CHECK(bar.takes(modifier_class::warp));
    CHECK_FALSE(bar.takes(modifier_class::aligned));
    CHECK(barrier.takes(modifier_class::aligned));
    CHECK_FALSE(barrier.takes(modifier_class::warp));
    CHECK(bar.type_count() == 0);

    const opcode_legality& exit = *opcode_legality_table.find("exit");
    CHECK(exit.modifiers == 0);
    CHECK(exit.types == 0);
}

TEST_CASE("ptx legality: a word with two meanings takes the one the opcode accepts") {
    const opcode_legality& setp = *opcode_legality_table.find("setp");
    const opcode_legality& mul = *opcode_legality_table.find("mul");
    const opcode_legality& bra = *opcode_legality_table.find("bra");
    const opcode_legality& vote = *opcode_legality_table.find("vote");
    const opcode_legality& atom = *opcode_legality_table.find("atom");
    const opcode_legality& ld = *opcode_legality_table.find("ld");
    CHECK(resolve_modifier("lo", setp).cls == modifier_class::cmp);
    CHECK(resolve_modifier("lo", mul).cls == modifier_class::mulmode);
    CHECK(resolve_modifier("uni", bra).cls == modifier_class::uni);
    CHECK(resolve_modifier("uni", vote).cls == modifier_class::vote);
    CHECK(resolve_modifier("uni", vote).value == static_cast<std::uint8_t>(vote_mode::uni));
    CHECK(resolve_modifier("and", setp).cls == modifier_class::boolop);
    CHECK(resolve_modifier("and", atom).cls == modifier_class::aop);
    CHECK(resolve_modifier("L2::128B", ld).cls == modifier_class::cache);
    CHECK(resolve_modifier("L2::128B", atom).cls == modifier_class::none);
    CHECK(resolve_modifier("wide", setp).cls == modifier_class::none);
    CHECK(resolve_modifier("nonsense", ld).cls == modifier_class::none);
}

TEST_CASE("ptx legality: combinations the PTX ISA allows parse") {
    const std::string_view legal[] = {
        "add.cc.s32 %r1, %r2, %r3;",
        "addc.cc.u32 %r1, %r2, %r3;",
        "add.sat.s32 %r1, %r2, %r3;",
        "add.rn.ftz.sat.f32 %f1, %f2, %f3;",
        "mul.lo.s32 %r1, %r2, %r3;",
        "mul.wide.u32 %rd1, %r2, %r3;",
        "mad.hi.sat.s32 %r1, %r2, %r3, %r4;",
        "mad.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;",
        "mad24.hi.sat.s32 %r1, %r2, %r3, %r4;",
        "fma.rz.f64 %fd1, %fd2, %fd3, %fd4;",
        "div.full.f32 %f1, %f2, %f3;",
        "div.rn.f64 %fd1, %fd2, %fd3;",
        "rcp.approx.ftz.f64 %fd1, %fd2;",
        "sqrt.rn.f32 %f1, %f2;",
        "ex2.approx.ftz.f32 %f1, %f2;",
        "setp.lo.u32 %p1, %r1, %r2;",
        "setp.gtu.and.f32 %p1|%p2, %f1, %f2, %p3;",
        "cvt.rzi.s32.f32 %r1, %f1;",
        "cvt.rn.f16.f32 %rs1, %f1;",
        "cvt.sat.u8.s32 %rs1, %r1;",
        "cvt.f64.f32 %fd1, %f1;",
        "ld.acquire.gpu.global.u32 %r1, [%rd1];",
        "ld.global.nc.L1::no_allocate.f32 %f1, [%rd1];",
        "st.release.sys.global.u32 [%rd1], %r1;",
        "ld.volatile.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];",
        "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
        "atom.acq_rel.gpu.shared.add.f32 %f1, [%rd1], %f2;",
        "red.release.gpu.global.add.u64 [%rd1], %rd2;",
        "prefetch.global.L2 [%rd1];",
        "shf.l.wrap.b32 %r1, %r2, %r3, %r4;",
        "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;",
        "vote.sync.ballot.b32 %r1, %p1, %r2;",
        "vote.sync.uni.pred %p1, %p2, %r2;",
        "bar.sync 0;",
        "bar.cta.sync 0;",
        "bar.warp.sync %r1;",
        "barrier.sync.aligned 0;",
        "membar.gl;",
        "membar.sys;",
        "fence.acq_rel.gpu;",
        "bfind.shiftamt.u32 %r1, %r2;",
        "testp.normal.f64 %p1, %fd1;",
    };
    for (const std::string_view instruction : legal) {
        CAPTURE(instruction);
        CHECK(error_of(instruction).empty());
    }
}

TEST_CASE("ptx legality: combinations the PTX ISA forbids are refused by name") {
    struct row {
        std::string_view instruction;
        std::string_view message;
    };
    const row rows[] = {
        {"exit.u32;", "'exit' takes no type: 'exit.u32'"},
        {"bar.aligned.sync 0;", "unsupported modifier '.aligned' in 'bar.aligned.sync'"},
        {"barrier.warp.sync %r1;", "unsupported modifier '.warp' in 'barrier.warp.sync'"},
        {"add.lo.s32 %r1, %r2, %r3;", "unsupported modifier '.lo' in 'add.lo.s32'"},
        {"ld.global.b128 %r1, [%rd1];", "unsupported type '.b128' in 'ld.global.b128'"},
        {"popc.u32 %r1, %r2;", "type '.u32' is not allowed in 'popc.u32'"},
        {"cvt.rn.f32.b32 %f1, %r1;", "type '.b32' is not allowed in 'cvt.rn.f32.b32'"},
        {"mov.u32.u32 %r1, %r2;", "too many types in 'mov.u32.u32'"},
        {"cvt.rn.f32 %f1, %f2;", "'cvt.rn.f32' needs two types"},
        {"ld.global.shared.u32 %r1, [%rd1];",
         "conflicting modifier '.shared' in 'ld.global.shared.u32'"},
        {"membar.gl.sys;", "conflicting modifier '.sys' in 'membar.gl.sys'"},
        {"mad.lo.sat.s32 %r1, %r2, %r3, %r4;", "'mad.lo.sat.s32': .sat applies only to mad.hi.s32"},
        {"mad.f32 %f1, %f2, %f3, %f4;", "'mad.f32': float mad needs a rounding mode"},
        {"mul.wide.s64 %rd1, %rd2, %rd3;", "'mul.wide.s64': .wide needs a 16- or 32-bit type"},
        {"mul24.wide.s32 %rd1, %r2, %r3;", "'mul24.wide.s32': needs .lo or .hi"},
        {"add.cc.sat.s32 %r1, %r2, %r3;", "'add.cc.sat.s32': .cc and .sat cannot be combined"},
        {"add.rz.f16 %rs1, %rs2, %rs3;", "'add.rz.f16': .f16 arithmetic rounds only with .rn"},
        {"cvt.rn.s32.f32 %r1, %f1;",
         "'cvt.rn.s32.f32': a float-to-integer conversion needs .rni, .rzi, .rmi or .rpi"},
        {"cvt.rn.f64.f32 %fd1, %f1;",
         "'cvt.rn.f64.f32': a widening float conversion takes no rounding"},
        {"cvt.sat.s32.s16 %r1, %rs1;",
         "'cvt.sat.s32.s16': .sat needs a conversion that can overflow"},
        {"ld.release.gpu.global.u32 %r1, [%rd1];",
         "'ld.release.gpu.global.u32': a load can be .weak, .volatile, .relaxed or .acquire"},
        {"st.gpu.global.u32 [%rd1], %r1;",
         "'st.gpu.global.u32': a scope needs .relaxed, .acquire or .release"},
        {"ld.global.nc.acquire.gpu.u32 %r1, [%rd1];",
         "'ld.global.nc.acquire.gpu.u32': .nc cannot take a memory order"},
        {"st.const.u32 [%rd1], %r1;", "'st.const.u32': cannot store to .const"},
        {"red.global.exch.b32 [%rd1], %r1;",
         "'red.global.exch.b32': red has no .exch or .cas (use atom)"},
        {"atom.global.inc.s32 %r1, [%rd1], %r2;", "'atom.global.inc.s32': .inc and .dec take .u32"},
        {"atom.local.add.u32 %r1, [%rd1], %r2;",
         "'atom.local.add.u32': atomics apply to .global, .shared or generic addresses"},
        {"rcp.approx.f64 %fd1, %fd2;",
         "'rcp.approx.f64': .approx on .f64 exists only as rcp.approx.ftz.f64"},
        {"sin.f32 %f1, %f2;", "'sin.f32': needs .approx"},
        {"setp.lt.b32 %p1, %r1, %r2;", "'setp.lt.b32': bit types compare only with .eq and .ne"},
        {"setp.lo.s32 %p1, %r1, %r2;",
         "'setp.lo.s32': .lo/.ls/.hi/.hs apply only to unsigned and bit types"},
        {"shf.l.b32 %r1, %r2, %r3, %r4;", "'shf.l.b32': shf needs .wrap or .clamp"},
        {"vote.ballot.b32 %r1, %p1, %r2;",
         "'vote.ballot.b32': vote without .sync is not supported (use vote.sync)"},
        {"bar.sync.gpu 0;", "'bar.sync.gpu': only the .cta scope applies"},
        {"bar.sync.arrive 0, 32;", "'bar.sync.arrive': needs exactly one of .sync or .arrive"},
        {"bar.warp.arrive %r1;", "'bar.warp.arrive': bar.warp has only .sync"},
        {"membar;", "'membar': membar needs .cta, .gl or .sys"},
        {"fence.relaxed.gpu;", "'fence.relaxed.gpu': fence needs .sc or .acq_rel"},
        {"prefetch.global [%rd1];", "'prefetch.global': prefetch needs .L1 or .L2"},
        {"abs.ftz.s32 %r1, %r2;", "'abs.ftz.s32': .ftz applies only to .f32 and .f16"},
        {"copysign.ftz.f32 %f1, %f2, %f3;", "unsupported modifier '.ftz' in 'copysign.ftz.f32'"},
    };
    for (const row& r : rows) {
        CAPTURE(r.instruction);
        CHECK(error_of(r.instruction) == r.message);
    }
}

TEST_CASE("ptx legality: the rules only read; normalisation is its own step") {
    // bar.cta.sync: the rules accept the .cta scope and leave it; drop_barrier_scope drops it.
    instruction bar = bare(op::bar);
    bar.sc = scope::cta;
    const instruction& checked = bar;
    CHECK(modifier_rule_violation(checked, class_bit(modifier_class::sync)).empty());
    CHECK(bar.sc == scope::cta);
    drop_barrier_scope(bar);
    CHECK(bar.sc == scope::none);
    CHECK(modifier_rule_violation(bar, 0) == "needs exactly one of .sync or .arrive");

    // ld without a state space is generic, and the rules see the generic space.
    instruction ld = bare(op::ld, type::u32);
    ld.nc = true;
    default_to_generic_space(ld, *opcode_legality_table.find("ld"));
    CHECK(ld.sp == space::generic);
    CHECK(modifier_rule_violation(ld, 0) == ".nc applies only to ld.global");
    // cvta keeps no space: it must name one.
    instruction cvta = bare(op::cvta, type::u64);
    default_to_generic_space(cvta, *opcode_legality_table.find("cvta"));
    CHECK(cvta.sp == space::none);
    CHECK(modifier_rule_violation(cvta, 0) == "cvta needs a state space");

    // The first rule broken is the one reported.
    instruction mad = bare(op::mad, type::f64);
    mad.mode = mul_mode::lo; // broken first
    mad.sat = true;          // broken too
    CHECK(modifier_rule_violation(mad, 0) == ".lo/.hi/.wide apply only to integers");
}
