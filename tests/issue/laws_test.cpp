// Laws every warp scheduler obeys, checked on random and adversarial views.
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/selectable.hpp>
#include <warpkit/issue/two_level.hpp>

#include "../reset_law.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace wi = warpkit::issue;
using warpkit::isa::unit_class;

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

unit_class any_class(warpkit::rng& r) {
    constexpr unit_class classes[] = {unit_class::int_alu, unit_class::fp,     unit_class::sfu,
                                      unit_class::ldst,    unit_class::branch, unit_class::ctrl};
    return classes[r.below(6)];
}
unit_class int_or_fp(warpkit::rng& r) {
    return r.bernoulli(0.5) ? unit_class::int_alu : unit_class::fp;
}

/// Maximum switching time given to GATES in the laws: at least ceil(warps / width) for every
/// case below, so that one FP (or INT) phase is long enough for lrr to sweep all warps.
constexpr std::uint32_t gates_threshold = 32;

/// How each scheduler is built for the laws, which instruction mix the no-starvation law
/// feeds it, and how long a warp may wait there when every warp is always ready (0: the
/// scheduler starves warps by design).
template <class S>
struct law_traits {
    static S make() { return S{}; }
    static unit_class next_class(warpkit::rng& r) { return any_class(r); }
    static std::size_t ready_window(std::size_t warps, std::size_t width) {
        return ceil_div(warps, width);
    }
    /// The GTO pattern: one greedy warp keeps the first slot, the others go oldest first.
    static constexpr bool greedy = false;
};
template <std::size_t N>
struct law_traits<wi::basic_gto<N>> {
    static wi::basic_gto<N> make() { return {}; }
    static unit_class next_class(warpkit::rng& r) { return any_class(r); }
    static std::size_t ready_window(std::size_t, std::size_t) { return 0; }
    static constexpr bool greedy = true;
};
// The active set (32 warps) holds every warp of these cases, so the inner policy decides.
template <class Inner>
struct law_traits<wi::two_level<Inner>> {
    static wi::two_level<Inner> make() { return {}; }
    static unit_class next_class(warpkit::rng& r) { return any_class(r); }
    static std::size_t ready_window(std::size_t warps, std::size_t width) {
        return law_traits<Inner>::ready_window(warps, width);
    }
    static constexpr bool greedy = law_traits<Inner>::greedy;
};
// GATES serves LDST/SFU/branch only when fewer than `width` INT (FP) warps are ready and, by
// design (paper 003 Section 4), the lowest type only when the highest runs dry: with an
// endless supply of ready warps only a maximum switching time T bounds the wait, and only
// between INT and FP. So the law feeds it INT/FP only: a waiting FP warp sees at most T
// cycles of INT priority, then an FP phase of at least T >= ceil(warps / width) cycles in
// which lrr's sweep over the FP warps reaches it.
template <>
struct law_traits<wi::gates_priority<>> {
    static wi::gates_priority<> make() {
        wi::gates_priority<>::params_type p;
        p.max_switch_cycles = gates_threshold;
        return wi::gates_priority<>(p);
    }
    static unit_class next_class(warpkit::rng& r) { return int_or_fp(r); }
    static std::size_t ready_window(std::size_t warps, std::size_t width) {
        return gates_threshold + ceil_div(warps, width) + 1;
    }
    static constexpr bool greedy = false;
};
template <class Inner>
struct law_traits<wi::gates<Inner>> {
    static wi::gates<Inner> make() {
        typename wi::gates<Inner>::params_type p;
        p.inner.max_switch_cycles = gates_threshold;
        return wi::gates<Inner>(p);
    }
    static unit_class next_class(warpkit::rng& r) { return int_or_fp(r); }
    static std::size_t ready_window(std::size_t warps, std::size_t width) {
        // Over gto, the greedy warp keeps its type's first slot: starves by design.
        return law_traits<Inner>::greedy
                   ? 0
                   : law_traits<wi::gates_priority<>>::ready_window(warps, width);
    }
    static constexpr bool greedy = false;
};
// A bank of n: scheduler k owns ceil(warps / n) warps and width / n slots every cycle, or
// (width < n) one slot every n cycles.
template <class S>
struct law_traits<wi::scheduler_bank<S>> {
    static constexpr std::size_t n = 2;
    static wi::scheduler_bank<S> make() {
        typename wi::scheduler_bank<S>::params_type p;
        p.schedulers = n;
        p.scheduler = law_traits<S>::make().params();
        return wi::scheduler_bank<S>(p);
    }
    static unit_class next_class(warpkit::rng& r) { return law_traits<S>::next_class(r); }
    static std::size_t ready_window(std::size_t warps, std::size_t width) {
        const std::size_t inner =
            law_traits<S>::ready_window(ceil_div(warps, n), std::max<std::size_t>(1, width / n));
        return width >= n ? inner : n * inner;
    }
    static constexpr bool greedy = false;
};

/// Views of up to `warps` warps (ids 0 .. warps-1) in random order: each offered with
/// probability 0.9, with a random unit class, age and state.
std::vector<wi::warp_view> random_views(warpkit::rng& r, std::size_t warps) {
    std::vector<wi::warp_view> v;
    for (std::size_t w = 0; w < warps; ++w) {
        if (r.bernoulli(0.1)) continue; // not offered this cycle
        wi::warp_view x;
        x.id = static_cast<wi::warp_id>(w);
        x.unit = any_class(r);
        x.age = r.below(1000);
        x.valid = r.bernoulli(0.9);
        x.ready = r.bernoulli(0.6);
        x.long_latency = r.bernoulli(0.15);
        x.at_barrier = r.bernoulli(0.1);
        x.finished = r.bernoulli(0.1);
        v.push_back(x);
    }
    for (std::size_t i = v.size(); i > 1; --i) // any order of views
        std::swap(v[i - 1], v[r.below(i)]);
    return v;
}

template <class S>
concept blockable = requires(S& s, wi::unit_set u) {
    s.set_blocked(u);
};

/// Instructions issued according to the stats (every "issued[k]" counter, however nested).
template <class S>
std::uint64_t issued_by_stats(const S& s) {
    std::uint64_t n = 0;
    warpkit::for_each_leaf(s.stats(), [&](const std::string& path, const auto& leaf) {
        if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(leaf)>>) {
            if (path.find("issued[") != std::string::npos) n += leaf;
        }
    });
    return n;
}

} // namespace

#define WARPKIT_ALL_SCHEDULERS                                                                     \
    wi::lrr, wi::rr, wi::gto, wi::two_level<wi::lrr>, wi::two_level<wi::gto>,                      \
        wi::two_level<wi::rr>, wi::gates_priority<>, wi::gates<>, wi::gates<wi::gto>,              \
        wi::scheduler_bank<wi::lrr>, wi::scheduler_bank<wi::gates<>>, wi::basic_lrr<128>,          \
        wi::basic_gto<128>, wi::two_level<wi::basic_rr<128>>, wi::gates<wi::basic_lrr<128>>

namespace {
// A 64-warp scheduler and the same policy over 128 warps.
template <class Narrow, class Wide>
struct narrow_and_wide {
    using narrow = Narrow;
    using wide = Wide;
};
} // namespace

TEST_CASE_TEMPLATE("law: a scheduler of 128 warps picks among ids 64..127 as the 64-warp one "
                   "does among 0..63",
                   P, narrow_and_wide<wi::lrr, wi::basic_lrr<128>>,
                   narrow_and_wide<wi::rr, wi::basic_rr<128>>,
                   narrow_and_wide<wi::gto, wi::basic_gto<128>>,
                   narrow_and_wide<wi::two_level<wi::lrr>, wi::two_level<wi::basic_lrr<128>>>,
                   narrow_and_wide<wi::gates<>, wi::gates<wi::basic_lrr<128>>>) {
    using narrow_t = typename P::narrow;
    using wide_t = typename P::wide;
    static_assert(wi::max_warps_of<narrow_t>() == 64 && wi::max_warps_of<wide_t>() == 128);
    constexpr wi::warp_id shift = 64;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        auto narrow = law_traits<narrow_t>::make();
        auto wide = law_traits<wide_t>::make();
        warpkit::rng r(seed);
        const std::size_t warps = 1 + r.below(64);
        for (int cycle = 0; cycle < 300; ++cycle) {
            const std::vector<wi::warp_view> v = random_views(r, warps);
            std::vector<wi::warp_view> shifted = v;
            for (auto& x : shifted)
                x.id = static_cast<wi::warp_id>(x.id + shift);
            const std::size_t width = 1 + r.below(4);
            const auto a = narrow.select(std::span<const wi::warp_view>(v), width);
            const auto b = wide.select(std::span<const wi::warp_view>(shifted), width);
            REQUIRE(a.size() == b.size());
            wi::issue_list done_a, done_b;
            for (std::size_t i = 0; i < a.size(); ++i) {
                const auto& pa = *(a.begin() + static_cast<std::ptrdiff_t>(i));
                const auto& pb = *(b.begin() + static_cast<std::ptrdiff_t>(i));
                CHECK(pb.warp == pa.warp + shift);
                CHECK(pb.unit == pa.unit);
                if (r.bernoulli(0.8)) {
                    done_a.push(pa);
                    done_b.push(pb);
                }
            }
            narrow.notify_issued(done_a);
            wide.notify_issued(done_b);
        }
    }
    // Ids past the count are a caller error.
    auto wide = law_traits<wide_t>::make();
    wi::warp_view beyond;
    beyond.id = 128;
    beyond.ready = true;
    CHECK_THROWS_AS((void)wide.select(std::span<const wi::warp_view>(&beyond, 1), 1),
                    warpkit::contract_error);
}

TEST_CASE_TEMPLATE("law: picks are distinct issuable warps, at most width, repeatable", S,
                   WARPKIT_ALL_SCHEDULERS) {
    static_assert(wi::warp_scheduler<S>);
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        S s = law_traits<S>::make();
        warpkit::rng r(seed);
        const std::size_t warps = 1 + r.below(48);
        std::uint64_t notified = 0;
        for (int cycle = 0; cycle < 400; ++cycle) {
            const std::vector<wi::warp_view> v = random_views(r, warps);
            wi::unit_set blocked;
            if constexpr (blockable<S>) {
                for (std::size_t u = 0; u < warpkit::isa::unit_class_count; ++u)
                    blocked.set(static_cast<unit_class>(u), r.bernoulli(0.2));
                s.set_blocked(blocked);
            }
            const std::size_t width = r.below(5);
            const auto picked = s.select(std::span<const wi::warp_view>(v), width);
            REQUIRE(picked.size() <= width);
            std::uint64_t seen = 0;
            for (const auto& p : picked) {
                const auto it = std::find_if(
                    v.begin(), v.end(), [&](const wi::warp_view& x) { return x.id == p.warp; });
                REQUIRE(it != v.end());
                CHECK(wi::issuable(*it)); // ready, decoded, not at a barrier, not finished
                CHECK(p.unit == it->unit);
                CHECK_FALSE(blocked.test(p.unit));
                CHECK((seen >> p.warp & 1U) == 0); // never the same warp twice
                seen |= std::uint64_t{1} << p.warp;
            }
            CHECK(s.select(std::span<const wi::warp_view>(v), width) == picked);
            // The SM may issue only some of the picks (a later structural hazard).
            wi::issue_list done;
            for (const auto& p : picked)
                if (r.bernoulli(0.8)) done.push(p);
            s.notify_issued(done);
            notified += done.size();
        }
        CHECK(issued_by_stats(s) == notified); // nothing lost, nothing created
    }
}

TEST_CASE_TEMPLATE("law: a scheduler whose issuable_only() holds picks the same from its issuable "
                   "views alone",
                   S, WARPKIT_ALL_SCHEDULERS) {
    // scheduler_bank and the SM's issue stage leave the other views out for such a scheduler.
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        S full = law_traits<S>::make();
        if constexpr (requires { full.issuable_only(); }) {
            if (!full.issuable_only()) continue;
            S cut = law_traits<S>::make();
            warpkit::rng r(seed);
            const std::size_t warps = 1 + r.below(48);
            for (int cycle = 0; cycle < 300; ++cycle) {
                const std::vector<wi::warp_view> v = random_views(r, warps);
                std::vector<wi::warp_view> issuable;
                for (const auto& x : v)
                    if (wi::issuable(x)) issuable.push_back(x);
                // In another order too: the pick must not depend on where a view stands.
                std::reverse(issuable.begin(), issuable.end());
                const std::size_t width = r.below(5);
                const auto a = full.select(std::span<const wi::warp_view>(v), width);
                const auto b = cut.select(std::span<const wi::warp_view>(issuable), width);
                REQUIRE(a == b);
                full.notify_issued(a);
                cut.notify_issued(b);
            }
            CHECK(issued_by_stats(full) == issued_by_stats(cut));
        }
    }
}

TEST_CASE_TEMPLATE("law: no starvation when every warp is always ready", S,
                   WARPKIT_ALL_SCHEDULERS) {
    for (const std::size_t warps : {7U, 24U}) {
        for (const std::size_t width : {1U, 2U, 3U}) {
            const std::size_t window = law_traits<S>::ready_window(warps, width);
            S s = law_traits<S>::make();
            warpkit::rng r(warps * 10 + width);
            std::vector<wi::warp_view> v(warps);
            for (std::size_t w = 0; w < warps; ++w) {
                v[w].id = static_cast<wi::warp_id>(w);
                v[w].age = w;
                v[w].ready = true;
                v[w].unit = law_traits<S>::next_class(r);
            }
            std::vector<std::size_t> last(warps, 0);
            std::size_t worst = 0;
            std::vector<int> first_slot;
            bool oldest_fill = true;
            for (std::size_t c = 1; c <= 600; ++c) {
                const auto picked = s.select(std::span<const wi::warp_view>(v), width);
                CHECK(picked.size() == std::min(width, warps)); // never an idle slot either
                for (std::size_t i = 0; i < picked.size(); ++i) {
                    const auto w = picked[i].warp;
                    worst = std::max(worst, c - last[w]);
                    last[w] = c;
                    v[w].unit = law_traits<S>::next_class(r); // the next instruction
                    if (i == 0) first_slot.push_back(w);
                    // Non-greedy picks of GTO are the oldest others: ids 0, 1, ... skipping
                    // the greedy warp.
                    if (i > 0) {
                        std::size_t expect = i - 1;
                        if (expect >= static_cast<std::size_t>(picked[0].warp)) ++expect;
                        oldest_fill = oldest_fill && w == expect;
                    }
                }
                s.notify_issued(picked);
            }
            for (std::size_t w = 0; w < warps; ++w)
                worst = std::max(worst, 601 - last[w]);
            CAPTURE(warps);
            CAPTURE(width);
            CAPTURE(worst);
            if (law_traits<S>::greedy) {
                // GTO starves by design; it is fair by age instead: the first warp keeps the
                // first slot, the others are filled oldest first.
                CHECK(std::all_of(first_slot.begin(), first_slot.end(),
                                  [&](int w) { return w == first_slot.front(); }));
                CHECK(oldest_fill);
            }
            if (window != 0) CHECK(worst <= window);
        }
    }
}

TEST_CASE_TEMPLATE("law: every warp issues in a bounded window when warps stall after issue", S,
                   WARPKIT_ALL_SCHEDULERS) {
    // A warp that issued is not ready for the next ceil(warps / width) - 1 cycles (a dependent
    // next instruction): even GTO, which cannot stay greedy, then reaches every warp, since
    // its non-greedy picks go oldest first. One unit type, so GATES never switches.
    for (const std::size_t warps : {7U, 24U}) {
        for (const std::size_t width : {1U, 2U}) {
            const std::size_t stall = ceil_div(warps, width) - 1;
            S s = law_traits<S>::make();
            std::vector<wi::warp_view> v(warps);
            std::vector<std::size_t> ready_at(warps, 0);
            std::vector<std::size_t> last(warps, 0);
            for (std::size_t w = 0; w < warps; ++w) {
                v[w].id = static_cast<wi::warp_id>(w);
                v[w].age = w;
            }
            std::size_t worst = 0;
            for (std::size_t c = 1; c <= 400; ++c) {
                for (std::size_t w = 0; w < warps; ++w)
                    v[w].ready = ready_at[w] <= c;
                const auto picked = s.select(std::span<const wi::warp_view>(v), width);
                for (const auto& p : picked) {
                    worst = std::max(worst, c - last[p.warp]);
                    last[p.warp] = c;
                    ready_at[p.warp] = c + stall + 1;
                }
                s.notify_issued(picked);
            }
            CAPTURE(warps);
            CAPTURE(width);
            CHECK(worst <= 2 * ceil_div(warps, width));
        }
    }
}

TEST_CASE_TEMPLATE("law: reset_stats restarts the counters, the scheduling state stays", S,
                   WARPKIT_ALL_SCHEDULERS) {
    static_assert(warpkit::observable_component<S>);
    struct twin {
        S component = law_traits<S>::make();
        warpkit::rng r{17};
    };
    // Random views every cycle, as in the first law; both twins draw the same ones.
    const auto step = [](twin& t, std::size_t) {
        std::vector<wi::warp_view> v;
        for (std::size_t w = 0; w < 40; ++w) {
            wi::warp_view x;
            x.id = static_cast<wi::warp_id>(w);
            x.unit = any_class(t.r);
            x.age = t.r.below(1000);
            x.ready = t.r.bernoulli(0.5);
            x.long_latency = t.r.bernoulli(0.2);
            v.push_back(x);
        }
        if constexpr (blockable<S>) {
            wi::unit_set blocked;
            blocked.set(unit_class::fp, t.r.bernoulli(0.3));
            t.component.set_blocked(blocked);
        }
        const auto picked = t.component.select(std::span<const wi::warp_view>(v), 2);
        wi::issue_list done;
        for (const auto& p : picked)
            if (t.r.bernoulli(0.8)) done.push(p);
        t.component.notify_issued(done);
    };
    reset_law::check([] { return twin{}; }, step, 300, 500);
}

TEST_CASE_TEMPLATE("law: reset_stats restarts a scoreboard's counters, reservations stay", B,
                   wi::scoreboard, wi::cluster_scoreboard<2>, wi::cluster_scoreboard<4>) {
    static_assert(warpkit::observable_component<B>);
    struct twin {
        B component{};
        warpkit::rng r{5};
    };
    // Check, reserve and release random operands of random warps.
    const auto step = [](twin& t, std::size_t) {
        const std::size_t w = t.r.below(8);
        const auto a = static_cast<unsigned>(t.r.below(16));
        const auto b = static_cast<unsigned>(t.r.below(16));
        const auto ops = wi::operands{}.read(a).write(b);
        const bool slow = t.r.bernoulli(0.3);
        const auto r = static_cast<unsigned>(t.r.below(16));
        if constexpr (std::is_same_v<B, wi::scoreboard>) {
            if (!t.component.check(w, ops).any()) t.component.reserve(w, ops, slow);
            if (t.r.bernoulli(0.4) && t.component.pending(w, r)) t.component.release(w, r);
        } else {
            if (!t.component.check(w, ops).any())
                t.component.reserve(w, ops,
                                    slow ? wi::latency_kind::memory : wi::latency_kind::fixed);
            // Memory entries clear by acks from every member, fixed ones by a release.
            const auto m = static_cast<std::size_t>(t.r.below(B::members));
            if (t.component.awaiting_acks(w, r)) {
                if ((t.component.acks(w, r) >> m & 1U) == 0) (void)t.component.ack(w, r, m);
            } else if (t.r.bernoulli(0.4) && t.component.pending(w, r))
                t.component.release(w, r);
        }
    };
    reset_law::check([] { return twin{}; }, step, 200, 300);
}

namespace {

// Leaf path -> value of a stats struct, to compare two of them field by field.
template <class Stats>
std::vector<std::pair<std::string, std::uint64_t>> leaves(const Stats& s) {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    warpkit::for_each_leaf(s, [&](const std::string& path, const auto& leaf) {
        if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(leaf)>>)
            out.emplace_back(path, static_cast<std::uint64_t>(leaf));
    });
    return out;
}

// Drives issue::selectable of `kind` and the static scheduler S with the same random views:
// the same picks every cycle, and selectable's issue counters are S's.
template <class S>
void check_selectable_is(wi::scheduler_kind kind) {
    wi::scheduler_choice choice;
    choice.kind = kind;
    wi::selectable chosen(choice);
    S fixed;
    CHECK(chosen.kind_name() == S::kind);
    warpkit::rng r(31, static_cast<std::uint64_t>(kind));
    for (int cycle = 0; cycle < 500; ++cycle) {
        const std::vector<wi::warp_view> v = random_views(r, 40);
        if constexpr (blockable<S>) {
            wi::unit_set blocked;
            blocked.set(unit_class::fp, r.bernoulli(0.3));
            fixed.set_blocked(blocked);
            chosen.set_blocked(blocked);
        }
        const std::size_t width = 1 + r.below(3);
        const auto picked = fixed.select(std::span<const wi::warp_view>(v), width);
        REQUIRE(chosen.select(std::span<const wi::warp_view>(v), width) == picked);
        wi::issue_list done;
        for (const auto& p : picked)
            if (r.bernoulli(0.8)) done.push(p);
        fixed.notify_issued(done);
        chosen.notify_issued(done);
    }
    const auto issue = chosen.stats().issue;
    CHECK(leaves(issue) == leaves(wi::detail::issue_counters(fixed.stats())));
    CHECK(issued_by_stats(chosen) > 0);
}

} // namespace

TEST_CASE("law: issue::selectable of kind K picks and counts as the static scheduler K") {
    check_selectable_is<wi::lrr>(wi::scheduler_kind::loose_round_robin);
    check_selectable_is<wi::rr>(wi::scheduler_kind::round_robin);
    check_selectable_is<wi::gto>(wi::scheduler_kind::greedy_then_oldest);
    check_selectable_is<wi::two_level<wi::lrr>>(wi::scheduler_kind::two_level_lrr);
    check_selectable_is<wi::gates<wi::lrr>>(wi::scheduler_kind::gates_lrr);
}

TEST_CASE_TEMPLATE("law: a cycle with no views (issue::idle_cycle) is select of no views then "
                   "notify_issued of nothing",
                   S, WARPKIT_ALL_SCHEDULERS, wi::scheduler_bank<wi::gto>, wi::selectable,
                   wi::scheduler_bank<wi::selectable>) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        // `fast` counts the empty cycles by idle_cycle, `plain` by select and notify; the
        // cycles with views between them must still pick alike.
        S fast = law_traits<S>::make();
        S plain = law_traits<S>::make();
        warpkit::rng r(seed);
        const std::size_t warps = 1 + r.below(48);
        std::uint64_t empty = 0;
        for (int cycle = 0; cycle < 600; ++cycle) {
            const std::size_t width = r.below(5);
            if (r.bernoulli(0.4)) {
                wi::idle_cycle(fast, width);
                (void)plain.select(std::span<const wi::warp_view>{}, width);
                plain.notify_issued(wi::issue_list{});
                ++empty;
                continue;
            }
            const std::vector<wi::warp_view> v = random_views(r, warps);
            const auto picked = fast.select(std::span<const wi::warp_view>(v), width);
            REQUIRE(plain.select(std::span<const wi::warp_view>(v), width) == picked);
            fast.notify_issued(picked);
            plain.notify_issued(picked);
        }
        CHECK(empty > 100);
        CHECK(warpkit::stats_to_csv(fast.stats()) == warpkit::stats_to_csv(plain.stats()));
    }
}
