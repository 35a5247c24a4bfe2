// The preparation passes of ptx::kernel (ptx/passes/), each run alone on a small input whose
// result is worked out by hand in the comments.
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/passes/inline_calls.hpp>
#include <warpkit/ptx/passes/layout.hpp>
#include <warpkit/ptx/passes/operands.hpp>
#include <warpkit/ptx/passes/reconvergence.hpp>
#include <warpkit/ptx/passes/registers.hpp>
#include <warpkit/ptx/passes/static_info.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace warpkit;
using ptx::no_index;
using ptx::op;
using ptx::space;

namespace {

ptx::module parse(const std::string& body) {
    return ptx::parse_ptx(".version 9.0\n.target sm_75\n.address_size 64\n" + body, "test.ptx");
}

// Passes 1 to 3 on entry "k": the prepared code and the flat registers.
struct prepared {
    ptx::module m;
    std::vector<ptx::register_decl> registers;
    std::vector<ptx::prepared_inst> code;

    explicit prepared(const std::string& body) : m(parse(body)) {
        const ptx::function& f = *m.find("k");
        auto flat = ptx::passes::inline_calls(m, f);
        const auto layout =
            ptx::passes::lay_out_variables(m, flat.code, flat.variables, ptx::global_variable_base);
        registers = std::move(flat.registers);
        code = ptx::passes::prepare_operands(m, f, std::move(flat.code), layout);
    }
};

// The variable a `.param` memory operand of the flat code names.
std::uint32_t slot_of(const ptx::instruction& in) {
    const std::size_t k = in.opcode == op::st ? 0 : 1;
    REQUIRE(in.operands[k].k == ptx::operand::kind::memory);
    REQUIRE(in.operands[k].symbol_of == ptx::symbol_kind::function_var);
    return in.operands[k].index;
}

// Checks each place's state space and offset against `expected`.
void check_places(const std::vector<ptx::address_ref>& places,
                  const std::vector<std::pair<space, std::uint64_t>>& expected) {
    REQUIRE(places.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(places[i].sp == expected[i].first);
        CHECK(places[i].offset == expected[i].second);
    }
}

} // namespace

// --- pass 1: inline_calls ------------------------------------------------------------------

TEST_CASE("ptx passes: inlining a guarded call of a function that calls another") {
    const ptx::module m = parse(R"(
.func (.param .b32 ret) inc(.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    add.s32 %r2, %r1, 1;
    st.param.b32 [ret], %r2;
    ret;
}
.func (.param .b32 ret) twice_inc(.param .b32 a)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a];
    call.uni (%r2), inc, (%r1);
    add.s32 %r3, %r2, %r2;
    st.param.b32 [ret], %r3;
    ret;
}
.visible .entry k(.param .u32 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [x];
    setp.gt.s32 %p1, %r1, 0;
    @%p1 call.uni (%r2), twice_inc, (%r1);
    ret;
}
)");
    const auto flat = ptx::passes::inline_calls(m, *m.find("k"));
    // Registers: k's %p0 %p1 %r0..%r3 (0..5), twice_inc's %r0..%r3 (6..9), inc's %r0..%r2
    // (10..12).
    REQUIRE(flat.registers.size() == 13);
    CHECK(flat.registers[3].name == "%r1");
    CHECK(flat.registers[7].name == "%r1");
    CHECK(flat.registers[11].name == "%r1");
    // Variables: the slots of twice_inc's argument and result, then inc's.
    REQUIRE(flat.variables.size() == 4);
    for (std::size_t v = 0; v < 4; ++v) {
        CHECK(flat.variables[v].name == "%arg" + std::to_string(v));
        CHECK(flat.variables[v].sp == space::param);
    }
    // pc  instruction                        from
    //  0  ld.param.u32 %r1(3), [x]           k
    //  1  setp.gt.s32 %p1(1), %r1(3), 0      k
    //  2  @!%p1 bra 15                       the guard of the call
    //  3  st.param.b32 [%arg0], %r1(3)       twice_inc's argument
    //  4  ld.param.b32 %r1(7), [%arg0]       twice_inc
    //  5  st.param.b32 [%arg2], %r1(7)       inc's argument
    //  6  ld.param.b32 %r1(11), [%arg2]      inc
    //  7  add.s32 %r2(12), %r1(11), 1        inc
    //  8  st.param.b32 [%arg3], %r2(12)      inc
    //  9  bra 10                             inc's ret
    // 10  ld.param.b32 %r2(8), [%arg3]       inc's result
    // 11  add.s32 %r3(9), %r2(8), %r2(8)     twice_inc
    // 12  st.param.b32 [%arg1], %r3(9)       twice_inc
    // 13  bra 14                             twice_inc's ret
    // 14  ld.param.b32 %r2(4), [%arg1]       twice_inc's result
    // 15  exit                               k's ret
    const std::vector<op> opcodes{op::ld, op::setp, op::bra, op::st,  op::ld, op::st,
                                  op::ld, op::add,  op::st,  op::bra, op::ld, op::add,
                                  op::st, op::bra,  op::ld,  op::exit};
    REQUIRE(flat.code.size() == opcodes.size());
    for (std::size_t pc = 0; pc < opcodes.size(); ++pc) {
        CAPTURE(pc);
        CHECK(flat.code[pc].opcode == opcodes[pc]);
    }
    CHECK(flat.code[0].operands[1].symbol_of == ptx::symbol_kind::param); // k's own parameter
    CHECK(flat.code[2].guard == 1);
    CHECK(flat.code[2].guard_negated);
    const std::vector<std::pair<std::size_t, std::uint32_t>> branches{{2, 15}, {9, 10}, {13, 14}};
    for (const auto& [pc, target] : branches) {
        CAPTURE(pc);
        CHECK(flat.code[pc].operands[0].k == ptx::operand::kind::label);
        CHECK(flat.code[pc].operands[0].index == target);
    }
    const std::vector<std::pair<std::size_t, std::uint32_t>> slots{
        {3, 0}, {4, 0}, {5, 2}, {6, 2}, {8, 3}, {10, 3}, {12, 1}, {14, 1}};
    for (const auto& [pc, slot] : slots) {
        CAPTURE(pc);
        CHECK(slot_of(flat.code[pc]) == slot);
    }
    // The value each move carries: {pc, register}.
    const std::vector<std::pair<std::size_t, std::uint32_t>> moved{
        {3, 3}, {4, 7}, {5, 7}, {6, 11}, {8, 12}, {10, 8}, {12, 9}, {14, 4}};
    for (const auto& [pc, reg] : moved) {
        CAPTURE(pc);
        CHECK(flat.code[pc].operands[flat.code[pc].opcode == op::st ? 1 : 0].reg == reg);
    }
    CHECK(flat.code[7].operands[0].reg == 12);
    CHECK(flat.code[7].operands[1].reg == 11);
    CHECK(flat.code[11].operands[1].reg == 8);
}

TEST_CASE("ptx passes: inlining refuses a recursive call") {
    const ptx::module m = parse(R"(
.func (.param .b32 ret) self(.param .b32 a)
{
    .reg .b32 %r<2>;
    ld.param.b32 %r1, [a];
    call.uni (%r1), self, (%r1);
    st.param.b32 [ret], %r1;
    ret;
}
.visible .entry k()
{
    .reg .b32 %r<2>;
    call.uni (%r1), self, (%r1);
    ret;
}
)");
    CHECK_THROWS_WITH_AS((void)ptx::passes::inline_calls(m, *m.find("k")),
                         doctest::Contains("recursive call of `self`"), parse_error);
}

// --- pass 2: lay_out_variables -------------------------------------------------------------

TEST_CASE("ptx passes: variable layout gives each variable its aligned offset") {
    const ptx::module m = parse(R"(
.const .align 1 .b8 c1[3] = {1, 2, 3};
.const .align 4 .b32 c2 = 7;
.global .align 4 .b32 g1;
.global .align 8 .b64 g2;
.shared .align 4 .b8 unused[100];
.shared .align 8 .b8 s1[12];
.extern .shared .align 32 .b8 dyn[];
.visible .entry k()
{
    .reg .b64 %rd<3>;
    .shared .align 16 .b8 s2[20];
    .local .align 8 .b8 l1[9];
    .local .align 4 .b8 l2[4];
    mov.u64 %rd1, s1;
    mov.u64 %rd2, dyn;
    ret;
}
)");
    const ptx::function& f = *m.find("k");
    const auto flat = ptx::passes::inline_calls(m, f);
    // Two call `.param` slots as inlining would add them (4 bytes at 4, 0 bytes).
    auto variables = flat.variables;
    ptx::variable slot;
    slot.sp = space::param;
    slot.align = 4;
    slot.bytes = 4;
    variables.push_back(slot);
    slot.bytes = 0;
    variables.push_back(slot);
    const std::uint64_t base = ptx::global_variable_base;
    const auto layout = ptx::passes::lay_out_variables(m, flat.code, variables, base);

    // Constant bank: c1 at 0 (3 bytes), c2 at 4.
    CHECK(layout.constant_bank == std::vector<std::uint8_t>{1, 2, 3, 0, 7, 0, 0, 0});
    // Globals at 16-byte alignment at least: g1 at base, g2 at base + 16.
    REQUIRE(layout.globals.size() == 2);
    CHECK(layout.globals[0].address == base);
    CHECK(layout.globals[1].address == base + 16);
    // Shared: `unused` is not named, so not placed; s1 at 0 (12 bytes), the kernel's s2 at
    // 16 (20 bytes): 36 static bytes; dynamic shared memory at 36 rounded up to dyn's 32.
    const std::vector<std::pair<space, std::uint64_t>> module_places{
        {space::constant, 0},       {space::constant, 4}, {space::global, base},
        {space::global, base + 16}, {space::shared, 0},   {space::shared, 0},
        {space::shared, 64}};
    check_places(layout.module_places, module_places);
    CHECK(layout.static_shared_bytes == 36);
    CHECK(layout.dynamic_shared_offset == 64);
    CHECK(layout.uses_dynamic_shared);
    // Local: l1 at 0 (9 bytes), l2 at 12 (4), then the slots in .local: at 16 (4 bytes) and
    // at 20 (1 byte: a slot takes one at least): 21 bytes per thread.
    const std::vector<std::pair<space, std::uint64_t>> function_places{{space::shared, 16},
                                                                       {space::local, 0},
                                                                       {space::local, 12},
                                                                       {space::local, 16},
                                                                       {space::local, 20}};
    check_places(layout.function_places, function_places);
    CHECK(layout.call_slots == std::vector<char>{0, 0, 0, 1, 1});
    CHECK(layout.local_bytes == 21);
}

TEST_CASE("ptx passes: variable layout refuses more local memory than a thread has") {
    const ptx::module m = parse(R"(
.visible .entry k()
{
    .local .align 8 .b8 big[524289];
    ret;
}
)");
    const auto flat = ptx::passes::inline_calls(m, *m.find("k"));
    CHECK_THROWS_AS((void)ptx::passes::lay_out_variables(m, flat.code, flat.variables,
                                                         ptx::global_variable_base),
                    config_error);
}

// --- pass 3: prepare_operands --------------------------------------------------------------

TEST_CASE("ptx passes: operands resolve to registers, immediates and addresses") {
    const prepared p(R"(
.visible .entry k(.param .u64 ptr, .param .f64 d)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    .reg .f64 %fd<2>;
    .shared .align 8 .b8 a[5];
    .shared .align 4 .b8 buf[8];
    ld.param.f64 %fd1, [d];
    add.f64 %fd1, %fd1, 0f3F800000;
    mov.u32 %r1, %tid.y;
    st.shared.u32 [buf+4], %r1;
    mov.u64 %rd1, buf;
    setp.lt.s32 %p1, %r1, 3;
    @%p1 bra $L_end;
    mov.u32 %r2, 1;
$L_end:
    ret;
}
)");
    // Registers: %p0 %p1 (0, 1), %r0..%r2 (2..4), %rd0 %rd1 (5, 6), %fd0 %fd1 (7, 8).
    REQUIRE(p.code.size() == 9); // ret is the last instruction: no exit added
    using K = ptx::value_ref::kind;
    // ld.param.f64 %fd1, [d]: d is at offset 8 of the parameter buffer.
    CHECK(p.code[0].num_dst == 1);
    CHECK(p.code[0].dst[0] == 8);
    CHECK(p.code[0].has_addr);
    CHECK(p.code[0].addr.sp == space::param);
    CHECK(p.code[0].addr.reg == no_index);
    CHECK(p.code[0].addr.offset == 8);
    // add.f64: the f32 literal 1.0 read as the bits of the double 1.0.
    REQUIRE(p.code[1].num_src == 2);
    CHECK(p.code[1].src[0].k == K::reg);
    CHECK(p.code[1].src[0].reg == 8);
    CHECK(p.code[1].src[1].k == K::imm);
    CHECK(p.code[1].src[1].bits == 0x3FF0000000000000ULL);
    // mov.u32 %r1, %tid.y
    CHECK(p.code[2].src[0].k == K::sreg);
    CHECK(p.code[2].src[0].special == ptx::sreg::tid);
    CHECK(p.code[2].src[0].dim == 1);
    // st.shared.u32 [buf+4], %r1: a at 0 (5 bytes), buf at 8, + 4.
    CHECK(p.code[3].num_dst == 0);
    CHECK(p.code[3].addr.sp == space::shared);
    CHECK(p.code[3].addr.offset == 12);
    CHECK(p.code[3].num_src == 1);
    CHECK(p.code[3].src[0].reg == 3);
    // mov.u64 %rd1, buf: the variable's address as an immediate.
    CHECK(p.code[4].src[0].k == K::imm);
    CHECK(p.code[4].src[0].bits == 8);
    // @%p1 bra $L_end: the target pc.
    CHECK(p.code[6].target == 8);
    CHECK(p.code[6].in.guard == 1);
    CHECK(p.code[8].in.opcode == op::exit);
}

TEST_CASE("ptx passes: operand preparation ends the code and refuses parameter writes") {
    const prepared open_end(R"(
.visible .entry k()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 1;
}
)");
    REQUIRE(open_end.code.size() == 2);
    CHECK(open_end.code[1].in.opcode == op::exit);
    CHECK(open_end.code[1].in.pos == open_end.code[0].in.pos);
    // st.param.u64 [ptr], %rd1 (the parser refuses it; made here from the ld).
    const ptx::module m = parse(R"(
.visible .entry k(.param .u64 ptr)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [ptr];
    ret;
}
)");
    const ptx::function& f = *m.find("k");
    auto flat = ptx::passes::inline_calls(m, f);
    std::swap(flat.code[0].operands[0], flat.code[0].operands[1]);
    flat.code[0].opcode = op::st;
    const auto layout =
        ptx::passes::lay_out_variables(m, flat.code, flat.variables, ptx::global_variable_base);
    CHECK_THROWS_WITH_AS((void)ptx::passes::prepare_operands(m, f, flat.code, layout),
                         doctest::Contains("kernel parameters are read-only"), parse_error);
}

// --- pass 4: reconvergence_points ----------------------------------------------------------

namespace {

// A hand-built prepared instruction: an opcode, a branch target, a guard.
ptx::prepared_inst inst(op o, std::uint32_t target = no_index, std::uint32_t guard = no_index) {
    ptx::prepared_inst p;
    p.in.opcode = o;
    p.in.guard = guard;
    p.target = target;
    return p;
}

} // namespace

TEST_CASE("ptx passes: reconvergence points are the immediate post-dominators") {
    const auto none = simt::no_pc;
    const std::uint32_t p1 = 0;
    SUBCASE("if / else") {
        // Blocks: B0 = {0, 1}, B1 = {2, 3}, B2 = {4}, B3 = {5, 6}. B0 -> B1, B2; B1 -> B3;
        // B2 -> B3. B3 post-dominates B0 and B1: both branches reconverge at pc 5.
        const std::vector<ptx::prepared_inst> code{
            inst(op::setp), inst(op::bra, 4, p1), inst(op::add), inst(op::bra, 5),
            inst(op::sub),  inst(op::mov),        inst(op::exit)};
        CHECK(ptx::passes::reconvergence_points(code) ==
              std::vector<simt::pc_type>{none, 5, none, 5, none, none, none});
    }
    SUBCASE("loop") {
        // Blocks: B0 = {0}, B1 = {1, 2, 3}, B2 = {4, 5}. B1 -> B1, B2: the loop's branch
        // reconverges at its exit, pc 4.
        const std::vector<ptx::prepared_inst> code{inst(op::mov),  inst(op::add),
                                                   inst(op::setp), inst(op::bra, 1, p1),
                                                   inst(op::mov),  inst(op::exit)};
        CHECK(ptx::passes::reconvergence_points(code) ==
              std::vector<simt::pc_type>{none, none, none, 4, none, none});
    }
    SUBCASE("paths that meet only at exit") {
        // B0 = {0} -> B1 = {1}, B2 = {2}; both exit: the immediate post-dominator of B0 is
        // the virtual exit.
        const std::vector<ptx::prepared_inst> code{inst(op::bra, 2, p1), inst(op::exit),
                                                   inst(op::exit)};
        CHECK(ptx::passes::reconvergence_points(code) ==
              std::vector<simt::pc_type>{none, none, none});
    }
}

// --- pass 5: allocate_registers ------------------------------------------------------------

namespace {

// A hand-built instruction writing `dst` (no_index: none) and reading `sources`.
ptx::prepared_inst writes(std::uint32_t dst, std::vector<std::uint32_t> sources) {
    ptx::prepared_inst p = inst(op::add);
    if (dst != no_index) p.dst[p.num_dst++] = dst;
    for (const auto r : sources) {
        p.src[p.num_src].k = ptx::value_ref::kind::reg;
        p.src[p.num_src++].reg = r;
    }
    return p;
}

// r0..r3 of 32 bits, r4 of 64 bits, the carry flag r5:
//   0  r0 = 1
//   1  r1 = r0 + 1
//   2  r2 = r0 + r1
//   3  r3 = r2 * 2
//   4  r4 = wide r3
//   5  st [r4], r1
//   6  exit
// Live after each pc: {r0}, {r0, r1}, {r1, r2}, {r1, r3}, {r1, r4}, {}, {}.
struct straight_line {
    std::vector<ptx::register_decl> registers{{"r0", ptx::type::b32}, {"r1", ptx::type::b32},
                                              {"r2", ptx::type::b32}, {"r3", ptx::type::b32},
                                              {"r4", ptx::type::b64}, {"%cc", ptx::type::pred}};
    std::vector<ptx::prepared_inst> code;
    straight_line() {
        code = {writes(0, {}),  writes(1, {0}),        writes(2, {0, 1}), writes(3, {2}),
                writes(4, {3}), writes(no_index, {1}), inst(op::exit)};
        code[5].in.opcode = op::st;
        code[5].has_addr = true;
        code[5].addr = {space::global, 4, 0};
    }
};

} // namespace

TEST_CASE("ptx passes: liveness of a straight line") {
    const straight_line s;
    const auto live = ptx::passes::compute_liveness(s.code, s.registers.size(), 5);
    const std::vector<std::vector<std::uint32_t>> live_out{{0},    {0, 1}, {1, 2}, {1, 3},
                                                           {1, 4}, {},     {}};
    for (std::size_t pc = 0; pc < s.code.size(); ++pc) {
        CAPTURE(pc);
        ptx::passes::register_set expected(1, 0);
        for (const auto r : live_out[pc])
            expected[0] |= std::uint64_t{1} << r;
        CHECK(live.live_out[pc] == expected);
    }
    CHECK(live.uses[5] == std::vector<std::uint32_t>{1, 4}); // the value, then the address
}

TEST_CASE("ptx passes: register allocation separates values live at once") {
    const straight_line s;
    const auto a = ptx::passes::allocate_registers(s.code, s.registers, 5, 63);
    // Interference r0-r1, r1-r2, r1-r3, r1-r4; greedy in order r0..r4: r1 gets 1, all others 0.
    CHECK(a.timing_ids == std::vector<isa::reg_id>{0, 1, 0, 0, 0, 0});
    CHECK(a.colours == 2);
    CHECK(a.folded == 0);
    const std::vector<std::pair<std::uint32_t, std::uint32_t>> live_together{
        {0, 1}, {1, 2}, {1, 3}, {1, 4}};
    for (const auto& [x, y] : live_together) {
        CAPTURE(x);
        CAPTURE(y);
        CHECK(a.timing_ids[x] != a.timing_ids[y]);
    }
    // Most live at once: r1 and the 64-bit r4, 1 + 2.
    CHECK(a.max_live == 3);
    // 32-bit rows: r0, r2, r3 in row 0, r1 in row 1; the 64-bit r4 in its own row 0.
    CHECK(a.storage_rows == std::array<std::uint32_t, 2>{2, 1});
    CHECK(a.storage[1].row == 1);
    CHECK(a.storage[4].row == 0);
    CHECK(a.storage[4].wide);
    // One timing id: r1's colour 1 folds onto id 0.
    const auto one = ptx::passes::allocate_registers(s.code, s.registers, 5, 1);
    CHECK(one.folded == 1);
    CHECK(one.timing_ids == std::vector<isa::reg_id>{0, 0, 0, 0, 0, 0});
}

TEST_CASE("ptx passes: a guarded write keeps the old value live") {
    // 0  r0 = 1;  1  r1 = 2;  2  @r2 r0 = r1;  3  st [r0]: r0 from pc 0 survives the guarded
    // write in lanes whose guard is false, so r0 and r1 are live at once (three colours:
    // r0 and r2 are live together too).
    std::vector<ptx::register_decl> registers{{"r0", ptx::type::b64},
                                              {"r1", ptx::type::b64},
                                              {"r2", ptx::type::pred},
                                              {"%cc", ptx::type::pred}};
    std::vector<ptx::prepared_inst> code{writes(0, {}),  writes(1, {}),        writes(2, {}),
                                         writes(0, {1}), writes(no_index, {}), inst(op::exit)};
    code[3].in.guard = 2;
    code[4].in.opcode = op::st;
    code[4].has_addr = true;
    code[4].addr = {space::global, 0, 0};
    const auto a = ptx::passes::allocate_registers(code, registers, 3, 63);
    CHECK(a.timing_ids[0] != a.timing_ids[1]);
    CHECK(a.timing_ids[0] != a.timing_ids[2]);
    CHECK(a.timing_ids[1] != a.timing_ids[2]);
    CHECK(a.max_live == 4); // two 64-bit registers; predicates take none
}

// --- pass 6: static_infos ------------------------------------------------------------------

TEST_CASE("ptx passes: static information of call-slot moves and memory accesses") {
    const straight_line s;
    auto code = s.code;
    code[5].in.t = ptx::type::u32;
    code[5].in.vec = 2;
    code[0].in.opcode = op::ld; // a call `.param` slot load: a register move
    code[0].call_param = true;
    const std::vector<isa::reg_id> ids{0, 1, 0, 0, 0, 0};
    const auto infos = ptx::passes::static_infos(code, ids, 5);
    REQUIRE(infos.size() == code.size());
    CHECK(infos[0].unit == isa::unit_class::int_alu);
    CHECK(infos[0].mop == isa::mem_op::none);
    // st.global.v2.u32 [r4], r1: 8 bytes stored, sources r1 (id 1) and r4 (id 0).
    CHECK(infos[5].unit == isa::unit_class::ldst);
    CHECK(infos[5].latency == isa::latency_class::global_mem);
    CHECK(infos[5].mop == isa::mem_op::store);
    CHECK(infos[5].space == isa::mem_space::global);
    CHECK(infos[5].access_bytes == 8);
    CHECK(infos[5].num_src == 2);
    CHECK(infos[5].num_dst == 0);
    // r2 = r0 + r1: reads ids 0 and 1, writes id 0.
    CHECK(infos[2].num_src == 2);
    CHECK(infos[2].num_dst == 1);
    CHECK(infos[6].is_exit);
}

// --- the passes in order -------------------------------------------------------------------

namespace {
const std::string loop = R"(
.visible .entry k(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
$L_top:
    add.s32 %r2, %r2, %r1;
    add.s32 %r1, %r1, -1;
    setp.gt.s32 %p1, %r1, 0;
    @%p1 bra $L_top;
    ret;
}
)";
} // namespace

TEST_CASE("ptx passes: the kernel is the passes run in order") {
    const prepared p(loop);
    const ptx::kernel k(p.m, "k");
    REQUIRE(k.size() == p.code.size());
    const auto rpc = ptx::passes::reconvergence_points(p.code);
    auto registers = p.registers;
    registers.push_back({"%cc", ptx::type::pred});
    const auto carry = static_cast<std::uint32_t>(registers.size() - 1);
    CHECK(k.carry_register() == carry);
    const auto a = ptx::passes::allocate_registers(p.code, registers, carry, 63);
    for (std::size_t pc = 0; pc < k.size(); ++pc) {
        CAPTURE(pc);
        CHECK(k.at(pc).in == p.code[pc].in);
        CHECK(k.reconvergence(pc) == rpc[pc]);
    }
    CHECK(k.reconvergence(5) == 6); // the loop's branch reconverges at the ret
    for (std::uint32_t r = 0; r < registers.size(); ++r)
        CHECK(k.timing_id(r) == a.timing_ids[r]);
    CHECK(k.max_live_registers() == a.max_live);
}
