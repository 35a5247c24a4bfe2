#pragma once
// A tiny instruction set for driving SIMT stacks in tests: plain instructions, SSY, branches
// and EXIT, a step function that executes one instruction of a warp through any simt_stack,
// and a scalar reference that runs each lane on its own.

#include <warpkit/simt/concepts.hpp>
#include <warpkit/simt/selectable_stack.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace simt_test {

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;

enum class kind : std::uint8_t { alu, ssy, bra, exit };

// bra: lanes whose predicate holds go to `target`, the others to pc+1; `reconv` is the
// reconvergence pc a PDOM stack is given. An unconditional bra (cond < 0) is a jump.
// exit: lanes whose predicate holds exit (all lanes when cond < 0); the others go on at pc+1.
// ssy: sets the convergence point `target`.
struct instr {
    kind k = kind::alu;
    pc_type target = no_pc;
    pc_type reconv = no_pc;
    int cond = -1;
};

inline instr alu() {
    return {kind::alu, no_pc, no_pc, -1};
}
inline instr ssy(pc_type t) {
    return {kind::ssy, t, no_pc, -1};
}
inline instr bra(int cond, pc_type t, pc_type r) {
    return {kind::bra, t, r, cond};
}
inline instr jmp(pc_type t) {
    return {kind::bra, t, t, -1};
}
inline instr exit_all() {
    return {kind::exit, no_pc, no_pc, -1};
}
inline instr exit_if(int cond) {
    return {kind::exit, no_pc, no_pc, cond};
}

using program = std::vector<instr>;

// A selectable_stack of kind K that starts like the static stacks: `S s(pc, lanes)`.
template <std::size_t W, warpkit::simt::stack_kind K>
class selected : public warpkit::simt::selectable_stack<W> {
public:
    using mask_type = typename warpkit::simt::selectable_stack<W>::mask_type;
    selected() : warpkit::simt::selectable_stack<W>(K) {}
    explicit selected(pc_type start, mask_type lanes = mask_type::full()) : selected() {
        this->reset(start, lanes);
    }
};
template <std::size_t W>
using selected_pdom = selected<W, warpkit::simt::stack_kind::pdom>;
template <std::size_t W>
using selected_ssy = selected<W, warpkit::simt::stack_kind::ssy>;

// True when stacks of type S reconverge at SSY sync points (an ssy_stack, a selected_ssy).
template <warpkit::simt::simt_stack S>
bool reconverges_at_ssy() {
    return warpkit::simt::uses_sync_points(S{});
}

// Whether `lane` satisfies condition `cond` at `pc` on its `visit`-th execution of that pc
// (0-based). Must be a pure function so that the SIMT and the scalar runs agree.
using predicate = std::function<bool(int cond, std::size_t lane, pc_type pc, std::size_t visit)>;

// Per-lane visit counts, shared by the SIMT run (one per lane) and the scalar reference.
struct visits {
    std::map<std::pair<std::size_t, pc_type>, std::size_t> n;
    std::size_t next(std::size_t lane, pc_type pc) { return n[{lane, pc}]++; }
};

// Executes the instruction at s.pc() for the active lanes. Returns the lanes it was issued to.
template <warpkit::simt::simt_stack S>
typename S::mask_type step(S& s, const program& p, const predicate& pred, visits& v) {
    using mask = typename S::mask_type;
    const pc_type pc = s.pc();
    const instr in = p.at(pc);
    const mask active = s.active();
    s.record_issue();
    mask hit{};
    for (std::size_t lane : active)
        if (in.cond < 0 ? in.k != kind::alu : pred(in.cond, lane, pc, v.next(lane, pc)))
            hit.set(lane);
    switch (in.k) {
    case kind::alu:
        s.advance(pc + 1);
        break;
    case kind::ssy:
        if constexpr (warpkit::simt::sync_point_stack<S>) s.ssy(in.target);
        s.advance(pc + 1);
        break;
    case kind::bra:
        if constexpr (warpkit::simt::sync_point_stack<S>) {
            if (warpkit::simt::uses_sync_points(s)) {
                s.branch(hit, in.target, pc + 1);
                break;
            }
        }
        s.branch(hit, in.target, pc + 1, in.reconv);
        break;
    case kind::exit:
        s.exit(hit);
        if (hit != active) s.advance(pc + 1); // the lanes that did not exit go on
        break;
    }
    return active;
}

// The pcs lane `lane` executes when it runs alone (at most `limit` instructions).
inline std::vector<pc_type> scalar_trace(const program& p, const predicate& pred, std::size_t lane,
                                         visits& v, std::size_t limit = 100000) {
    std::vector<pc_type> trace;
    pc_type pc = 0;
    while (trace.size() < limit) {
        trace.push_back(pc);
        const instr in = p.at(pc);
        const bool hit =
            in.cond < 0 ? in.k != kind::alu : pred(in.cond, lane, pc, v.next(lane, pc));
        if (in.k == kind::exit && hit) break;
        pc = in.k == kind::bra && hit ? in.target : pc + 1;
    }
    return trace;
}

} // namespace simt_test

namespace simt_test {

// One expected step: the pc and lanes about to issue and the depth of each kind of stack.
struct row {
    pc_type pc;
    std::uint64_t mask;
    std::size_t pdom_depth;
    std::size_t ssy_depth;
};

// Nested if/else on 8 lanes. c1: lanes 0-3 take the outer branch; c2: lanes 0-1 the inner one.
//   0 SSY 11
//   1 BRA c1 -> 5 (reconverge 11)     outer: then = 5..10 (lanes 0-3), else = 2..4 (lanes 4-7)
//   2 ALU
//   3 ALU
//   4 JMP 11
//   5 SSY 10
//   6 BRA c2 -> 9 (reconverge 10)     inner: then = 9 (lanes 0-1), else = 7..8 (lanes 2-3)
//   7 ALU
//   8 JMP 10
//   9 ALU
//  10 ALU                             inner join
//  11 ALU                             outer join
//  12 EXIT
inline program nested_if_else() {
    return {ssy(11), bra(1, 5, 11), alu(), alu(), jmp(11), ssy(10),   bra(2, 9, 10),
            alu(),   jmp(10),       alu(), alu(), alu(),   exit_all()};
}
inline bool nested_if_else_pred(int cond, std::size_t lane, pc_type, std::size_t) {
    return cond == 1 ? lane < 4 : lane < 2;
}
// Hand-computed: taken paths first; PDOM pushes 2 entries per divergence over a bottom entry,
// SSY one entry per divergence.
inline const std::vector<row>& nested_if_else_rows() {
    static const std::vector<row> rows = {
        {0, 0xFF, 1, 0}, {1, 0xFF, 1, 0},  {5, 0x0F, 3, 1},  {6, 0x0F, 3, 1}, {9, 0x03, 5, 2},
        {7, 0x0C, 4, 2}, {8, 0x0C, 4, 2},  {10, 0x0F, 3, 1}, {2, 0xF0, 2, 1}, {3, 0xF0, 2, 1},
        {4, 0xF0, 2, 1}, {11, 0xFF, 1, 0}, {12, 0xFF, 1, 0},
    };
    return rows;
}

// A do-while loop whose exit is divergent on two iterations (8 lanes). Lane l runs the body
// 1 + trip[l] times, trip = {0,0,1,1,2,2,2,2}.
//   0 ALU
//   1 ALU                         loop body
//   2 SSY 4
//   3 BRA again -> 1 (reconverge 4)
//   4 ALU                         after the loop
//   5 EXIT
inline program divergent_loop() {
    return {alu(), alu(), ssy(4), bra(0, 1, 4), alu(), exit_all()};
}
inline bool divergent_loop_pred(int, std::size_t lane, pc_type, std::size_t visit) {
    constexpr std::size_t trip[8] = {0, 0, 1, 1, 2, 2, 2, 2};
    return visit < trip[lane];
}
inline const std::vector<row>& divergent_loop_rows() {
    static const std::vector<row> rows = {
        {0, 0xFF, 1, 0}, {1, 0xFF, 1, 0}, {2, 0xFF, 1, 0}, {3, 0xFF, 1, 0},
        {1, 0xFC, 2, 1}, {2, 0xFC, 2, 1}, {3, 0xFC, 2, 1}, // lanes 0-1 wait at 4
        {1, 0xF0, 3, 2}, {2, 0xF0, 3, 2}, {3, 0xF0, 3, 2}, // lanes 2-3 wait at 4
        {4, 0xFF, 1, 0}, {5, 0xFF, 1, 0},                  // nobody loops: all pop at 4
    };
    return rows;
}

// EXIT inside the taken path of an if/else (8 lanes): lanes 0-3 take the branch, and of them
// the lanes in `exiting` exit at pc 4.
//   0 SSY 5
//   1 BRA c1 -> 4 (reconverge 5)
//   2 ALU                         else (lanes 4-7)
//   3 JMP 5
//   4 EXIT if c2                  then (lanes 0-3)
//   5 ALU                         join
//   6 EXIT
inline program exit_in_then() {
    return {ssy(5), bra(1, 4, 5), alu(), jmp(5), exit_if(2), alu(), exit_all()};
}

// EXIT of the whole not-taken path while the taken lanes wait at the join (8 lanes).
//   0 SSY 4
//   1 BRA c1 -> 3 (reconverge 4)  lanes 0-3 taken
//   2 EXIT                        else path (lanes 4-7) exits
//   3 ALU                         then path
//   4 ALU                         join
//   5 EXIT
inline program exit_in_else() {
    return {ssy(4), bra(1, 3, 4), exit_all(), alu(), alu(), exit_all()};
}

} // namespace simt_test

namespace simt_test {

// The basic-block graph of a program: a block ends after a branch or an unconditional EXIT
// and before a branch target. A predicated EXIT does not end a block: the lanes that stay go
// on to the next instruction, and only they matter for reconvergence.
struct block_graph {
    std::vector<std::vector<std::size_t>> successors;
    std::vector<pc_type> block_pc;     // first pc of each block
    std::vector<std::size_t> block_of; // block of each pc
};

inline block_graph make_block_graph(const program& p) {
    const std::size_t n = p.size();
    std::vector<bool> leader(n, false);
    if (n > 0) leader[0] = true;
    for (std::size_t pc = 0; pc < n; ++pc) {
        const instr& in = p[pc];
        const bool ends = in.k == kind::bra || (in.k == kind::exit && in.cond < 0);
        if (in.k == kind::bra) leader.at(in.target) = true;
        if (ends && pc + 1 < n) leader[pc + 1] = true;
    }
    block_graph g;
    g.block_of.assign(n, 0);
    for (std::size_t pc = 0; pc < n; ++pc) {
        if (leader[pc]) g.block_pc.push_back(static_cast<pc_type>(pc));
        g.block_of[pc] = g.block_pc.size() - 1;
    }
    g.successors.resize(g.block_pc.size());
    for (std::size_t b = 0; b < g.block_pc.size(); ++b) {
        const std::size_t last = b + 1 < g.block_pc.size() ? g.block_pc[b + 1] - 1 : n - 1;
        const instr& in = p[last];
        if (in.k == kind::exit && in.cond < 0) continue;
        if (in.k == kind::bra) g.successors[b].push_back(g.block_of.at(in.target));
        if ((in.k != kind::bra || in.cond >= 0) && last + 1 < n &&
            (g.successors[b].empty() || g.successors[b][0] != g.block_of[last + 1]))
            g.successors[b].push_back(g.block_of[last + 1]);
    }
    return g;
}

} // namespace simt_test
