// Laws every simt_stack obeys, run over both models and several warp sizes on random
// structured kernels (if/else, if, do-while loops with break and continue, predicated EXIT)
// and on random unstructured ones. The reference is a scalar run of each lane on its own:
// under SIMT every lane must execute exactly its own sequence of pcs.

#include "program.hpp"

#include <warpkit/core/rng.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/simt/ipdom.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;
using namespace simt_test;

namespace {

std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

enum class cond_kind { loop, lane, uniform, rare };

// A random kernel plus the meaning of each of its conditions.
struct kernel {
    program code;
    std::vector<cond_kind> conds;
    std::uint64_t seed = 0;
    bool escapes = false;    // a break/continue nested in an if inside its loop
    bool structured = false; // built from if/else/loop statements
    bool jumps_only = false; // no break/continue at all (structured labels are the ipdoms)
    std::vector<pc_type> structured_reconv; // per pc of each conditional branch

    [[nodiscard]] bool pred(int cond, std::size_t lane, pc_type pc, std::size_t visit) const {
        const auto c = static_cast<std::size_t>(cond);
        const std::uint64_t h = mix(seed ^ mix(c * 1000003u + lane * 7919u + pc * 131u + visit));
        switch (conds.at(c)) {
        case cond_kind::loop:
            return visit < mix(seed ^ mix(c * 31u + lane)) % 4;
        case cond_kind::lane:
            return (h & 1u) != 0;
        case cond_kind::uniform:
            return (mix(seed ^ mix(c * 1000003u + pc * 131u + visit)) & 1u) != 0;
        case cond_kind::rare:
            return h % 7 == 0;
        }
        return false;
    }
    /// pred() as the predicate step() and scalar_trace() take.
    [[nodiscard]] predicate as_predicate() const {
        return
            [this](int c, std::size_t l, pc_type pc, std::size_t v) { return pred(c, l, pc, v); };
    }
};

// Builds structured kernels; each conditional branch is preceded by its SSY.
class generator {
public:
    explicit generator(warpkit::rng& r) : r_(r) {}

    // With `nested_jumps` false, break and continue appear only at the top level of a loop body.
    kernel make(std::uint64_t seed, bool nested_jumps) {
        nested_jumps_ = nested_jumps;
        k_ = kernel{};
        k_.seed = seed;
        k_.structured = true;
        k_.jumps_only = true;
        block(0, nullptr, false);
        emit(exit_all());
        k_.structured_reconv.resize(k_.code.size(), no_pc);
        for (std::size_t pc = 0; pc < k_.code.size(); ++pc)
            if (k_.code[pc].k == kind::bra && k_.code[pc].cond >= 0)
                k_.structured_reconv[pc] = k_.code[pc].reconv;
        return k_;
    }

private:
    struct loop_ctx {
        std::vector<pc_type> breaks;    // pcs of the SSY of each break (branch at +1)
        std::vector<pc_type> continues; // same for continues
    };

    pc_type emit(instr in) {
        k_.code.push_back(in);
        return static_cast<pc_type>(k_.code.size() - 1);
    }
    [[nodiscard]] pc_type here() const { return static_cast<pc_type>(k_.code.size()); }
    int new_cond(cond_kind c) {
        k_.conds.push_back(c);
        return static_cast<int>(k_.conds.size() - 1);
    }
    cond_kind branch_kind() { return r_.below(4) == 0 ? cond_kind::uniform : cond_kind::lane; }
    void set_branch(pc_type ssy_pc, pc_type target, pc_type reconv) {
        k_.code[ssy_pc].target = reconv;
        k_.code[ssy_pc + 1].target = target;
        k_.code[ssy_pc + 1].reconv = reconv;
    }

    void block(int depth, loop_ctx* loop, bool in_if) {
        const std::uint64_t n = 1 + r_.below(3);
        for (std::uint64_t i = 0; i < n; ++i)
            statement(depth, loop, in_if);
    }

    void statement(int depth, loop_ctx* loop, bool in_if) {
        const std::uint64_t choice = depth >= 4 ? r_.below(2) : r_.below(8);
        switch (choice) {
        case 0:
            emit(alu());
            return;
        case 1:
            if (r_.below(3) == 0) {
                emit(exit_if(new_cond(cond_kind::rare)));
                return;
            }
            if (loop != nullptr && (nested_jumps_ || !in_if)) {
                const bool brk = r_.below(2) == 0;
                const pc_type s = emit(ssy(no_pc));
                emit(bra(new_cond(cond_kind::rare), no_pc, no_pc));
                (brk ? loop->breaks : loop->continues).push_back(s);
                k_.jumps_only = false;
                if (in_if) k_.escapes = true;
                return;
            }
            emit(alu());
            return;
        case 2:
        case 3: { // if / else
            const pc_type s = emit(ssy(no_pc));
            emit(bra(new_cond(branch_kind()), no_pc, no_pc));
            block(depth + 1, loop, true);
            const pc_type j = emit(jmp(no_pc));
            const pc_type else_pc = here();
            block(depth + 1, loop, true);
            const pc_type end = here();
            set_branch(s, else_pc, end);
            k_.code[j].target = end;
            k_.code[j].reconv = end;
            return;
        }
        case 4:
        case 5: { // if without else: the taken lanes skip the body
            const pc_type s = emit(ssy(no_pc));
            emit(bra(new_cond(branch_kind()), no_pc, no_pc));
            block(depth + 1, loop, true);
            const pc_type end = here();
            set_branch(s, end, end);
            return;
        }
        default: { // do-while loop
            loop_ctx inner;
            const pc_type top = here();
            block(depth + 1, &inner, false);
            const pc_type latch = emit(ssy(no_pc));
            emit(bra(new_cond(cond_kind::loop), no_pc, no_pc));
            const pc_type exit = here();
            set_branch(latch, top, exit);
            for (const pc_type b : inner.breaks)
                set_branch(b, exit, exit);
            for (const pc_type c : inner.continues)
                set_branch(c, latch, latch);
            return;
        }
        }
    }

    warpkit::rng& r_;
    kernel k_;
    bool nested_jumps_ = false;
};

// A random unstructured kernel: branches anywhere (backward ones bounded by a trip count),
// SSY points and reconvergence pcs anywhere, predicated EXITs.
kernel random_unstructured(warpkit::rng& r, std::uint64_t seed) {
    kernel k;
    k.seed = seed;
    const auto n = static_cast<pc_type>(8 + r.below(24));
    const auto any_pc = [&] { return static_cast<pc_type>(r.below(n)); };
    k.code.push_back(ssy(any_pc()));
    for (pc_type pc = 1; pc + 1 < n; ++pc) {
        switch (r.below(6)) {
        case 0:
            k.code.push_back(ssy(any_pc()));
            break;
        case 1:
        case 2: {
            const pc_type t = any_pc();
            const pc_type rc = r.below(5) == 0 ? no_pc : any_pc();
            if (t <= pc) {
                k.conds.push_back(cond_kind::loop);
            } else {
                k.conds.push_back(r.below(4) == 0 ? cond_kind::uniform : cond_kind::lane);
                if (r.below(6) == 0) { // an unconditional forward jump
                    k.code.push_back({kind::bra, t, rc, -1});
                    break;
                }
            }
            k.code.push_back(bra(static_cast<int>(k.conds.size() - 1), t, rc));
            break;
        }
        case 3:
            k.conds.push_back(cond_kind::rare);
            k.code.push_back(exit_if(static_cast<int>(k.conds.size() - 1)));
            break;
        default:
            k.code.push_back(alu());
        }
    }
    k.code.push_back(exit_all());
    return k;
}

// Replaces every conditional branch's reconvergence pc (and the target of its SSY) by the pc
// of the immediate post-dominator of its block.
void use_ipdoms(kernel& k) {
    const block_graph g = make_block_graph(k.code);
    const warpkit::simt::post_dominator_tree t(g.successors);
    const std::vector<pc_type> rpc = t.reconvergence_pcs(g.block_pc);
    for (std::size_t pc = 0; pc < k.code.size(); ++pc) {
        instr& in = k.code[pc];
        if (in.k != kind::bra) continue;
        in.reconv = rpc[g.block_of[pc]];
        if (in.cond >= 0) {
            REQUIRE(k.code.at(pc - 1).k == kind::ssy);
            k.code[pc - 1].target = in.reconv;
        }
    }
}

// What one run exercised, so the tests can tell they are not vacuous.
struct coverage {
    std::uint64_t divergent = 0;
    std::uint64_t exits_in_divergence = 0;
    std::size_t max_depth = 0;
    std::uint64_t converged_at_end = 0;
    coverage& operator+=(const coverage& o) {
        divergent += o.divergent;
        exits_in_divergence += o.exits_in_divergence;
        max_depth = o.max_depth > max_depth ? o.max_depth : max_depth;
        converged_at_end += o.converged_at_end;
        return *this;
    }
};

// The reference: each lane of `start` run on its own (its scalar trace), and the traces'
// total length.
struct reference {
    std::vector<std::vector<pc_type>> traces;
    std::size_t total = 0;
};

template <class Mask>
reference scalar_reference(const kernel& k, const predicate& pred, std::size_t warp_size,
                           Mask start) {
    reference r;
    r.traces.resize(warp_size);
    visits v;
    for (const std::size_t lane : start) {
        r.traces[lane] = scalar_trace(k.code, pred, lane, v);
        r.total += r.traces[lane].size();
    }
    return r;
}

template <class S>
coverage check_laws(const kernel& k, typename S::mask_type start) {
    coverage cov;
    using mask = typename S::mask_type;
    const predicate pred = k.as_predicate();
    const reference ref = scalar_reference(k, pred, S::warp_size, start);
    const auto& expected = ref.traces;
    const std::size_t total = ref.total;

    S s(0, start);
    visits v;
    std::vector<std::vector<pc_type>> got(S::warp_size);
    mask exited{};
    std::size_t steps = 0;
    const auto final_pc = static_cast<pc_type>(k.code.size() - 1);
    while (!s.finished() && steps <= total) {
        const pc_type pc = s.pc();
        const mask active = s.active();
        const mask live = s.live();
        const std::size_t depth = s.depth();
        const auto before = s.stats();
        REQUIRE(pc < k.code.size());
        const instr in = k.code[pc];
        if (pc == final_pc && !k.escapes && k.structured) {
            // Structured code reconverges before its single final EXIT.
            CHECK(s.converged());
            CHECK(active == live);
            ++cov.converged_at_end;
        }
        if (in.k == kind::exit && !s.converged()) ++cov.exits_in_divergence;
        for (const std::size_t lane : active)
            got[lane].push_back(pc);

        step(s, k.code, pred, v);
        ++steps;

        // A lane has exited once it has executed its whole scalar trace.
        for (const std::size_t lane : active)
            if (got[lane].size() == expected[lane].size()) exited.set(lane);
        // Lanes are neither created nor lost: live = start minus the lanes that exited.
        CHECK(s.live() == start.minus(exited));
        CHECK(live.contains(s.live()));
        CHECK(s.live().contains(s.active()));
        CHECK(s.finished() == s.live().none());
        CHECK(s.finished() == s.active().none());
        CHECK(s.depth() <= S::capacity);
        CHECK(s.max_depth() >= s.depth());
        if (s.converged()) CHECK(s.active() == s.live());
        const auto& st = s.stats();
        CHECK(st.reconvergences <= st.divergent_branches);
        if (in.k == kind::bra) {
            CHECK(st.uniform_branches + st.divergent_branches ==
                  before.uniform_branches + before.divergent_branches + 1);
            if (st.uniform_branches > before.uniform_branches)
                CHECK(s.depth() <= depth); // a uniform branch never pushes
            else
                CHECK(s.depth() > depth);
        } else {
            CHECK(st.divergent_branches == before.divergent_branches);
        }
    }
    REQUIRE(s.finished());
    CHECK(steps <= total);
    for (std::size_t lane = 0; lane < S::warp_size; ++lane) {
        CAPTURE(lane);
        CHECK(got[lane] == expected[lane]);
    }
    const auto& st = s.stats();
    CHECK(st.reconvergences == st.divergent_branches); // every divergence was closed
    CHECK(st.exited_lanes == start.count());
    CHECK(st.lane_utilisation.samples() == steps);
    CHECK(st.lane_utilisation.sum() == total);
    CHECK(st.lane_utilisation.underflow() == 0);
    CHECK(st.depth_at_divergence.samples() == st.divergent_branches);
    cov.divergent = st.divergent_branches;
    cov.max_depth = s.max_depth();
    return cov;
}

template <class S>
typename S::mask_type random_start(warpkit::rng& r) {
    using mask = typename S::mask_type;
    if (r.below(2) == 0) return mask::full();
    mask m{static_cast<typename mask::word_type>(r())};
    return m.any() ? m : mask::single(0);
}

} // namespace

TEST_CASE_TEMPLATE("laws on random structured kernels", S, warpkit::simt::pdom_stack<8>,
                   warpkit::simt::ssy_stack<8>, warpkit::simt::pdom_stack<32>,
                   warpkit::simt::ssy_stack<32>, warpkit::simt::pdom_stack<64>,
                   warpkit::simt::ssy_stack<64>, selected_pdom<32>, selected_ssy<32>) {
    warpkit::rng r(2024, 1);
    generator gen(r);
    std::size_t escaping = 0;
    coverage cov;
    for (std::uint64_t i = 0; i < 150; ++i) {
        CAPTURE(i);
        kernel k = gen.make(i, i % 2 == 1);
        const std::vector<pc_type> structured = k.structured_reconv;
        use_ipdoms(k);
        if (k.jumps_only) {
            // Without break/continue the structured join of each branch is its ipdom.
            for (std::size_t pc = 0; pc < k.code.size(); ++pc)
                if (structured[pc] != no_pc) CHECK(k.code[pc].reconv == structured[pc]);
        }
        escaping += k.escapes ? 1 : 0;
        cov += check_laws<S>(k, random_start<S>(r));
    }
    // The kernels do exercise what the laws are about.
    CHECK(escaping > 0);
    CHECK(cov.converged_at_end >= 75);
    CHECK(cov.divergent > 1000);
    CHECK(cov.exits_in_divergence > 100);
    CHECK(cov.max_depth >= 6);
}

TEST_CASE_TEMPLATE("laws on random unstructured kernels", S, warpkit::simt::pdom_stack<8>,
                   warpkit::simt::ssy_stack<8>, warpkit::simt::pdom_stack<32>,
                   warpkit::simt::ssy_stack<32>, selected_pdom<32>, selected_ssy<32>) {
    warpkit::rng r(77, 2);
    coverage cov;
    for (std::uint64_t i = 0; i < 300; ++i) {
        CAPTURE(i);
        const kernel k = random_unstructured(r, i);
        cov += check_laws<S>(k, random_start<S>(r));
    }
    CHECK(cov.divergent > 500);
    CHECK(cov.exits_in_divergence > 100);
    CHECK(cov.max_depth >= 6);
}

namespace {

// A warp cut in two at step `cut_at` (AMOEBA's split): keep(m) on the warp, keep(live - m)
// on a copy, both run to completion in turn. Every lane still executes exactly its scalar
// trace, in whichever part it ended up. Returns whether the cut found the warp divergent.
template <class S>
bool check_cut(const kernel& k, typename S::mask_type start, std::size_t cut_at,
               typename S::mask_type m) {
    using mask = typename S::mask_type;
    const predicate pred = k.as_predicate();
    const reference ref = scalar_reference(k, pred, S::warp_size, start);
    const auto& expected = ref.traces;
    const std::size_t total = ref.total;
    std::vector<std::vector<pc_type>> got(S::warp_size);
    visits v;
    S a(0, start);
    std::size_t steps = 0;
    const auto run = [&](S& s, std::size_t until) {
        while (!s.finished() && steps < until) {
            for (const std::size_t lane : s.active())
                got[lane].push_back(s.pc());
            step(s, k.code, pred, v);
            ++steps;
        }
    };
    run(a, cut_at);
    const bool divergent = !a.converged();
    const mask live = a.live();
    S b = a;
    a.keep(m);
    b.keep(live.minus(m));
    CHECK(a.live() == (live & m));
    CHECK(b.live() == live.minus(m));
    CHECK(a.live().contains(a.active()));
    CHECK(b.live().contains(b.active()));
    CHECK(a.finished() == a.live().none());
    CHECK(b.finished() == b.live().none());
    run(a, total + 1);
    run(b, total + 1);
    REQUIRE(a.finished());
    REQUIRE(b.finished());
    for (std::size_t lane = 0; lane < S::warp_size; ++lane) {
        CAPTURE(lane);
        CHECK(got[lane] == expected[lane]);
    }
    return divergent;
}

} // namespace

TEST_CASE_TEMPLATE("a warp cut in two by keep() runs every lane's own path", S,
                   warpkit::simt::pdom_stack<8>, warpkit::simt::ssy_stack<8>,
                   warpkit::simt::pdom_stack<64>, warpkit::simt::ssy_stack<64>, selected_pdom<8>,
                   selected_ssy<64>) {
    using mask = typename S::mask_type;
    warpkit::rng r(4242, 3);
    generator gen(r);
    std::size_t divergent_cuts = 0;
    for (std::uint64_t i = 0; i < 300; ++i) {
        CAPTURE(i);
        kernel k = i % 3 == 2 ? random_unstructured(r, i) : gen.make(i, i % 2 == 1);
        if (i % 3 != 2) use_ipdoms(k);
        const auto start = random_start<S>(r);
        const mask m{static_cast<typename mask::word_type>(r())};
        divergent_cuts += check_cut<S>(k, start, r.below(40), m) ? 1 : 0;
    }
    CHECK(divergent_cuts > 50); // the cuts do land inside divergent regions
}

namespace {

// Runs kernel `k` from `start` on a static stack A and a selectable stack B of A's kind side
// by side; every step must leave them in the same state with the same counters.
template <class A, class B>
std::size_t check_lockstep(const kernel& k, typename A::mask_type start) {
    const predicate pred = k.as_predicate();
    A a(0, start);
    B b(0, start);
    visits va;
    visits vb;
    std::size_t steps = 0;
    while (!a.finished() && steps < 20000) {
        REQUIRE(b.pc() == a.pc());
        REQUIRE(b.active() == a.active());
        CHECK(b.live() == a.live());
        CHECK(b.depth() == a.depth());
        CHECK(b.converged() == a.converged());
        CHECK(warpkit::func::reconvergence_boundary(b) == warpkit::func::reconvergence_boundary(a));
        step(a, k.code, pred, va);
        step(b, k.code, pred, vb);
        ++steps;
    }
    CHECK(b.finished());
    CHECK(b.max_depth() == a.max_depth());
    CHECK(b.stats().divergent_branches == a.stats().divergent_branches);
    CHECK(b.stats().uniform_branches == a.stats().uniform_branches);
    CHECK(b.stats().reconvergences == a.stats().reconvergences);
    CHECK(b.stats().exited_lanes == a.stats().exited_lanes);
    CHECK(b.stats().lane_utilisation.sum() == a.stats().lane_utilisation.sum());
    CHECK(b.stats().depth_at_divergence.sum() == a.stats().depth_at_divergence.sum());
    return a.stats().divergent_branches;
}

} // namespace

TEST_CASE("a selectable stack of kind K moves exactly as the static stack K") {
    warpkit::rng r(9001, 4);
    generator gen(r);
    std::size_t divergent = 0;
    for (std::uint64_t i = 0; i < 200; ++i) {
        CAPTURE(i);
        kernel k = i % 2 == 1 ? random_unstructured(r, i) : gen.make(i, i % 4 == 0);
        if (i % 2 == 0) use_ipdoms(k);
        const auto start = random_start<warpkit::simt::pdom_stack<32>>(r);
        divergent += check_lockstep<warpkit::simt::pdom_stack<32>, selected_pdom<32>>(k, start);
        divergent += check_lockstep<warpkit::simt::ssy_stack<32>, selected_ssy<32>>(k, start);
    }
    CHECK(divergent > 1000);
    // The kind is what reset() keeps, and a copy keeps it too.
    selected_ssy<32> s(0);
    s.reset(5, selected_ssy<32>::mask_type::single(3));
    const auto copy = s;
    CHECK(copy.kind() == warpkit::simt::stack_kind::ssy);
    CHECK(warpkit::simt::uses_sync_points(copy));
    CHECK_FALSE(warpkit::simt::uses_sync_points(selected_pdom<32>(0)));
    // A PDOM stack has no SSY register: SSY sets nothing there.
    selected_pdom<32> p(0);
    p.ssy(7);
    CHECK(p.sync_point() == warpkit::simt::no_pc);
}
