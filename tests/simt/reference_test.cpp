// The stacks against plain reference models: the textbook form of each scheme (entries in a
// std::vector, copied whole, every histogram sample binned by histogram::add), driven with the
// same long random sequences of branches (random, single-lane, all-but-one, empty and full
// taken masks; pcs from a small set, so paths often start at, and advance to, their
// reconvergence pc), advances, EXITs, keeps, issues and resets. After every step the stack
// must show the same pc, lanes, entries, depths and stats bit for bit: the stacks write new
// entries field by field and bin the divergence depth directly (record_divergence_depth), and
// neither may change anything observable.

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>
#include <warpkit/simt/stats.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

using warpkit::simt::no_pc;
using warpkit::simt::pc_type;
using warpkit::simt::stack_stats;

namespace {

// PDOM stack of Fung et al., as pdom_stack documents it.
template <std::size_t W>
class ref_pdom {
public:
    using mask_type = warpkit::lane_mask<W>;
    using entry = typename warpkit::simt::pdom_stack<W>::entry;

    explicit ref_pdom(pc_type start) : stats_(warpkit::simt::make_stack_stats(W)) {
        reset(start, mask_type::full());
    }
    void reset(pc_type start, mask_type lanes) {
        e_.clear();
        if (lanes.any()) push(entry{start, no_pc, lanes, false});
    }
    [[nodiscard]] pc_type pc() const { return e_.empty() ? no_pc : e_.back().pc; }
    [[nodiscard]] mask_type active() const { return e_.empty() ? mask_type{} : e_.back().mask; }
    [[nodiscard]] mask_type live() const { return e_.empty() ? mask_type{} : e_.front().mask; }
    [[nodiscard]] const std::vector<entry>& entries() const { return e_; }
    [[nodiscard]] std::size_t max_depth() const { return max_depth_; }
    [[nodiscard]] const stack_stats& stats() const { return stats_; }

    void advance(pc_type next_pc) {
        e_.back().pc = next_pc;
        settle();
    }
    void branch(mask_type taken, pc_type target, pc_type fallthrough, pc_type reconvergence) {
        const entry top = e_.back();
        taken &= top.mask;
        const mask_type not_taken = top.mask.minus(taken);
        if (taken.none() || not_taken.none() || target == fallthrough) {
            ++stats_.uniform_branches;
            e_.back().pc = taken.any() ? target : fallthrough;
            settle();
            return;
        }
        ++stats_.divergent_branches;
        e_.back().pc = reconvergence;
        e_.back().waiting = true;
        if (fallthrough != reconvergence) push(entry{fallthrough, reconvergence, not_taken, false});
        if (target != reconvergence) push(entry{target, reconvergence, taken, false});
        stats_.depth_at_divergence.add(e_.size());
    }
    void exit(mask_type lanes) {
        if (e_.empty()) return;
        lanes &= e_.back().mask;
        if (lanes.none()) return;
        stats_.exited_lanes += lanes.count();
        std::vector<entry> kept;
        for (entry e : e_) {
            e.mask = e.mask.minus(lanes);
            if (e.mask.any())
                kept.push_back(e);
            else if (e.waiting)
                ++stats_.reconvergences;
        }
        e_ = kept;
        uncover();
        settle();
    }
    void keep(mask_type lanes) {
        std::vector<entry> kept;
        for (entry e : e_) {
            e.mask &= lanes;
            if (e.mask.any()) kept.push_back(e);
        }
        e_ = kept;
        uncover();
        settle();
    }
    void record_issue() { warpkit::simt::record_active_lanes(stats_, active().count()); }

private:
    void push(const entry& e) {
        e_.push_back(e);
        max_depth_ = std::max(max_depth_, e_.size());
    }
    void uncover() {
        if (!e_.empty() && e_.back().waiting) {
            e_.back().waiting = false;
            ++stats_.reconvergences;
        }
    }
    void settle() {
        while (!e_.empty() && e_.back().pc == e_.back().rpc) {
            e_.pop_back();
            uncover();
        }
    }

    std::vector<entry> e_;
    std::size_t max_depth_ = 0;
    stack_stats stats_;
};

// SSY warp stack of paper 004, as ssy_stack documents it.
template <std::size_t W>
class ref_ssy {
public:
    using mask_type = warpkit::lane_mask<W>;
    using entry = typename warpkit::simt::ssy_stack<W>::entry;
    using path = warpkit::simt::detail::ssy_path;

    explicit ref_ssy(pc_type start) : stats_(warpkit::simt::make_stack_stats(W)) {
        reset(start, mask_type::full());
    }
    void reset(pc_type start, mask_type lanes) {
        e_.clear();
        active_ = live_ = lanes;
        pc_ = lanes.any() ? start : no_pc;
        sync_ = no_pc;
    }
    [[nodiscard]] pc_type pc() const { return pc_; }
    [[nodiscard]] mask_type active() const { return active_; }
    [[nodiscard]] mask_type live() const { return live_; }
    [[nodiscard]] pc_type sync_point() const { return sync_; }
    [[nodiscard]] const std::vector<entry>& entries() const { return e_; }
    [[nodiscard]] std::size_t max_depth() const { return max_depth_; }
    [[nodiscard]] const stack_stats& stats() const { return stats_; }

    void ssy(pc_type convergence) { sync_ = convergence; }
    void advance(pc_type next_pc) {
        pc_ = next_pc;
        settle();
    }
    void branch(mask_type taken, pc_type target, pc_type fallthrough) {
        taken &= active_;
        const mask_type not_taken = active_.minus(taken);
        if (taken.none() || not_taken.none() || target == fallthrough) {
            ++stats_.uniform_branches;
            pc_ = taken.any() ? target : fallthrough;
            settle();
            return;
        }
        ++stats_.divergent_branches;
        e_.push_back(entry{sync_, fallthrough, not_taken, path::taken});
        max_depth_ = std::max(max_depth_, e_.size());
        stats_.depth_at_divergence.add(e_.size());
        active_ = taken;
        pc_ = target;
        settle();
    }
    void exit(mask_type lanes) {
        lanes &= active_;
        if (lanes.none()) return;
        stats_.exited_lanes += lanes.count();
        active_ = active_.minus(lanes);
        live_ = live_.minus(lanes);
        settle();
    }
    void keep(mask_type lanes) {
        active_ &= lanes;
        live_ &= lanes;
        std::vector<entry> kept;
        for (entry e : e_) {
            e.mask &= lanes;
            if (e.mask.any()) kept.push_back(e);
        }
        e_ = kept;
        settle();
    }
    void record_issue() { warpkit::simt::record_active_lanes(stats_, active_.count()); }

private:
    void settle() {
        while (!e_.empty() && (pc_ == e_.back().sync_pc || active_.none())) {
            entry& e = e_.back();
            if (e.state == path::taken) {
                std::swap(active_, e.mask);
                pc_ = e.other_pc;
                e.state = path::not_taken;
            } else {
                active_ |= e.mask;
                pc_ = e.sync_pc;
                e_.pop_back();
                ++stats_.reconvergences;
            }
        }
        if (active_.none()) pc_ = no_pc;
    }

    std::vector<entry> e_;
    std::size_t max_depth_ = 0;
    pc_type pc_ = no_pc;
    pc_type sync_ = no_pc;
    mask_type active_{};
    mask_type live_{};
    stack_stats stats_;
};

template <std::size_t W>
typename warpkit::lane_mask<W>::word_type random_word(warpkit::rng& r) {
    return static_cast<typename warpkit::lane_mask<W>::word_type>(r());
}

// A taken (or EXIT, or keep) mask: random bits, one lane, all lanes but one, none, all, or
// the `active` lanes but their lowest (the taken path keeps all but one lane, so divergences
// nest as deep as the warp allows).
template <std::size_t W>
warpkit::lane_mask<W> random_mask(warpkit::rng& r, warpkit::lane_mask<W> active) {
    using mask = warpkit::lane_mask<W>;
    switch (r.below(7)) {
    case 0:
        return mask{};
    case 1:
        return mask::full();
    case 2:
        return mask::single(static_cast<std::size_t>(r.below(W)));
    case 3:
        return ~mask::single(static_cast<std::size_t>(r.below(W)));
    case 4:
        return active.none() ? active : active.minus(mask::single(active.first()));
    default:
        return mask{random_word<W>(r)};
    }
}

// A pc from 0..pcs-1: from a small set, targets, fall-throughs and reconvergence pcs often
// coincide; from a large one, paths rarely meet and divergences nest deep.
pc_type random_pc(warpkit::rng& r, std::uint64_t pcs) {
    return static_cast<pc_type>(r.below(pcs));
}

// The reconvergence pc (PDOM) or SSY pc of a random entry of `ref`, or a random pc if none.
template <class R>
pc_type some_reconvergence_pc(const R& ref, warpkit::rng& r, std::uint64_t pcs) {
    const auto& e = ref.entries();
    if (e.empty()) return random_pc(r, pcs);
    const auto& pick = e[static_cast<std::size_t>(r.below(e.size()))];
    if constexpr (requires { pick.rpc; })
        return pick.rpc == no_pc ? random_pc(r, pcs) : pick.rpc;
    else
        return pick.sync_pc;
}

void check_same_stats(const stack_stats& a, const stack_stats& b) {
    CHECK(a.divergent_branches == b.divergent_branches);
    CHECK(a.uniform_branches == b.uniform_branches);
    CHECK(a.reconvergences == b.reconvergences);
    CHECK(a.exited_lanes == b.exited_lanes);
    CHECK(a.depth_at_divergence == b.depth_at_divergence);
    CHECK(a.lane_utilisation == b.lane_utilisation);
}

template <class S, class R>
void check_same(const S& s, const R& ref) {
    REQUIRE(s.pc() == ref.pc());
    REQUIRE(s.active() == ref.active());
    REQUIRE(s.live() == ref.live());
    REQUIRE(s.depth() == ref.entries().size());
    REQUIRE(s.max_depth() == ref.max_depth());
    REQUIRE(std::vector<typename S::entry>(s.entries().begin(), s.entries().end()) ==
            ref.entries());
    check_same_stats(s.stats(), ref.stats());
}

// Runs `steps` random operations on a stack S and its reference R side by side; returns the
// stack's stats. One warp in three is deep: its pcs come from a large set, its branches mostly
// split off one lane and its paths seldom jump to a reconvergence pc, so its divergences nest
// as deep as the warp allows.
template <class S, class R, bool Ssy>
stack_stats run_against_reference(std::uint64_t seed, std::size_t steps) {
    constexpr std::size_t w = S::warp_size;
    warpkit::rng r(seed);
    S s(0);
    R ref(0);
    std::size_t deepest = 0;
    bool deep = false;
    std::uint64_t pcs = 8;
    for (std::size_t step = 0; step < steps; ++step) {
        if (s.active().none() || r.below(200) == 0) { // a new warp (stats kept)
            const auto lanes =
                r.below(4) == 0 ? random_mask<w>(r, s.active()) : S::mask_type::full();
            const pc_type start = random_pc(r, pcs);
            deep = r.below(3) == 0;
            pcs = deep ? 1000 : 8;
            s.reset(start, lanes);
            ref.reset(start, lanes);
            check_same(s, ref);
            continue;
        }
        const std::uint64_t op = r.below(16);
        if (op < 7) { // branch (room for its entries checked: random pcs can nest deeper)
            if (s.depth() + 2 > S::capacity) continue;
            const auto active = s.active();
            const auto taken = deep && r.below(4) != 0
                                   ? active.minus(S::mask_type::single(active.first()))
                                   : random_mask<w>(r, active);
            const pc_type target = random_pc(r, pcs);
            const pc_type fallthrough = random_pc(r, pcs);
            // An unknown reconvergence pc now and then (PDOM only: an SSY branch needs one).
            const pc_type reconvergence = !Ssy && r.below(16) == 0 ? no_pc : random_pc(r, pcs);
            if constexpr (Ssy) {
                if (r.below(2) == 0) {
                    s.branch(taken, target, fallthrough, reconvergence);
                    ref.ssy(reconvergence);
                    ref.branch(taken, target, fallthrough);
                } else {
                    s.ssy(reconvergence);
                    ref.ssy(reconvergence);
                    s.branch(taken, target, fallthrough);
                    ref.branch(taken, target, fallthrough);
                }
                REQUIRE(s.sync_point() == ref.sync_point());
            } else {
                s.branch(taken, target, fallthrough, reconvergence);
                ref.branch(taken, target, fallthrough, reconvergence);
            }
        } else if (op < 12) {
            const pc_type next = r.below(deep ? 64 : 4) == 0 ? some_reconvergence_pc(ref, r, pcs)
                                                             : random_pc(r, pcs);
            s.advance(next);
            ref.advance(next);
        } else if (op < 14) {
            // Mostly a single lane or none, so warps live long enough to nest deeply.
            const auto lanes =
                r.below(2) == 0 ? random_mask<w>(r, s.active()) : S::mask_type::single(r.below(w));
            s.exit(lanes);
            ref.exit(lanes);
        } else if (op < 15) {
            const auto lanes =
                r.below(4) == 0 ? random_mask<w>(r, s.active()) : ~S::mask_type::single(r.below(w));
            s.keep(lanes);
            ref.keep(lanes);
        } else {
            s.record_issue();
            ref.record_issue();
        }
        check_same(s, ref);
        deepest = std::max(deepest, s.depth());
    }
    CHECK(s.stats().divergent_branches > steps / 20);
    CHECK(s.stats().uniform_branches > steps / 20);
    CHECK(deepest > 2);
    return s.stats();
}

} // namespace

TEST_CASE_TEMPLATE("pdom_stack moves and counts as the reference PDOM model", S,
                   warpkit::simt::pdom_stack<8>, warpkit::simt::pdom_stack<32>,
                   warpkit::simt::pdom_stack<64>) {
    std::uint64_t deepest_bin = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed)
        deepest_bin += run_against_reference<S, ref_pdom<S::warp_size>, false>(seed, 4000)
                           .depth_at_divergence.count(16);
    // The runs reach the open-ended last depth bin (16+) where the warp is wide enough for it.
    if (S::warp_size >= 16) CHECK(deepest_bin > 0);
}

TEST_CASE_TEMPLATE("ssy_stack moves and counts as the reference SSY model", S,
                   warpkit::simt::ssy_stack<8>, warpkit::simt::ssy_stack<32>,
                   warpkit::simt::ssy_stack<64>) {
    std::uint64_t deepest_bin = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed)
        deepest_bin += run_against_reference<S, ref_ssy<S::warp_size>, true>(seed, 4000)
                           .depth_at_divergence.count(16);
    if (S::warp_size >= 32) CHECK(deepest_bin > 0);
}

TEST_CASE("record_divergence_depth bins as histogram::add does") {
    warpkit::rng r(3);
    stack_stats fast;
    stack_stats slow;
    for (std::size_t depth = 0; depth < 300; ++depth) {
        warpkit::simt::record_divergence_depth(fast, depth);
        slow.depth_at_divergence.add(depth);
    }
    for (int i = 0; i < 10000; ++i) {
        const auto depth = static_cast<std::size_t>(r.below(r.below(2) == 0 ? 20 : 200));
        warpkit::simt::record_divergence_depth(fast, depth);
        slow.depth_at_divergence.add(depth);
    }
    check_same_stats(fast, slow);
    CHECK(fast.depth_at_divergence.count(16) > 0);
    CHECK(fast.depth_at_divergence.underflow() == 0);
}

TEST_CASE("histogram::add_to_bin is add without the search, and checks the bin") {
    warpkit::rng r(5);
    std::array<std::uint64_t, 5> lo{3, 4, 10, 11, 40};
    warpkit::histogram<5> fast(lo);
    warpkit::histogram<5> slow(lo);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t v = 3 + r.below(60);
        const std::uint64_t n = r.below(4);
        fast.add_to_bin(fast.bin_of(v), v, n);
        slow.add(v, n);
    }
    CHECK(fast == slow);
    CHECK_THROWS_AS(fast.add_to_bin(1, 10), warpkit::contract_error); // 10 is in bin 2
    CHECK_THROWS_AS(fast.add_to_bin(2, 9), warpkit::contract_error);  // 9 is in bin 1
    CHECK_THROWS_AS(fast.add_to_bin(5, 50), warpkit::contract_error); // no bin 5
    CHECK_THROWS_AS(fast.add_to_bin(0, 2), warpkit::contract_error);  // underflow
    fast.add_to_bin(4, 1000);                                         // the last bin is open
    CHECK(fast.count(4) == slow.count(4) + 1);
}
