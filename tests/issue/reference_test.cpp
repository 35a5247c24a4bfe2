// gto, lrr, two_level and GATES against simple reference implementations written here, over
// many random view sets: views in increasing id order (every id, or some), in any order, with
// a repeated or too large id now and then, ages with ties and ages past 2^48, widths 0 to 8.
// The schedulers take fast paths for some of these inputs (views in id order, ids below 64);
// the picks, the counters and the scheduling state must be those of the reference every cycle.
#include <warpkit/core/error.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/two_level.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace wi = warpkit::issue;
using warpkit::isa::unit_class;
using wi::issue_list;
using wi::warp_id;
using wi::warp_view;

// ---------------------------------------------------------------------------------------------
// Reference schedulers: the policies as the documentation states them, written plainly.
// ---------------------------------------------------------------------------------------------
namespace ref {

/// Refuses an id >= n or an id given twice (a caller error), as the schedulers do.
void check_ids(std::span<const warp_view> views, std::size_t n) {
    std::vector<bool> seen(n);
    for (const auto& v : views) {
        if (v.id >= n || seen[v.id]) throw warpkit::contract_error("bad id");
        seen[v.id] = true;
    }
}

/// Greedy then oldest: the last first-slot warp while it can issue, then the issuable warps
/// by (age, id).
template <std::size_t N>
struct gto {
    static constexpr std::size_t n = N;
    using stats_type = wi::gto_stats;
    bool has_greedy = false;
    warp_id greedy = 0;
    std::size_t width = 0;
    stats_type stats{};

    issue_list select(std::span<const warp_view> views, std::size_t w) {
        width = w;
        issue_list out;
        if (w == 0) return out;
        check_ids(views, N);
        std::vector<warp_view> rest;
        for (const auto& v : views) {
            if (!wi::issuable(v)) continue;
            if (has_greedy && v.id == greedy)
                out.push(v.id, v.unit);
            else
                rest.push_back(v);
        }
        std::sort(rest.begin(), rest.end(), [](const warp_view& a, const warp_view& b) {
            return a.age != b.age ? a.age < b.age : a.id < b.id;
        });
        for (const auto& v : rest)
            if (out.size() < w) out.push(v.id, v.unit);
        return out;
    }
    void notify_issued(const issue_list& done) {
        stats.issue.record(width, done);
        if (done.empty()) return;
        if (has_greedy && done[0].warp == greedy)
            ++stats.greedy_issues;
        else
            ++stats.switches;
        greedy = done[0].warp;
        has_greedy = true;
    }
};

/// Loose round robin: the issuable warps in id order from the one after the last issued.
template <std::size_t N>
struct lrr {
    static constexpr std::size_t n = N;
    using stats_type = wi::scheduler_stats;
    warp_id last = N - 1;
    std::size_t width = 0;
    stats_type stats{};

    issue_list select(std::span<const warp_view> views, std::size_t w) {
        width = w;
        check_ids(views, N);
        issue_list out;
        std::vector<const warp_view*> by_id(N);
        for (const auto& v : views)
            if (wi::issuable(v)) by_id[v.id] = &v;
        for (std::size_t k = 1; k <= N && out.size() < w; ++k)
            if (const warp_view* v = by_id[(last + k) % N]) out.push(v->id, v->unit);
        return out;
    }
    void notify_issued(const issue_list& done) {
        stats.record(width, done);
        if (!done.empty()) last = done[done.size() - 1].warp;
    }
};

/// Two-level: an active set of at most A warps in front of `Inner`; warps that wait (long
/// latency, barrier) move to the tail of a pending FIFO; the first pending warps that do not
/// wait fill the free places.
template <class Inner, std::size_t N>
struct two_level {
    std::uint32_t active_warps;
    Inner inner;
    std::vector<bool> active = std::vector<bool>(N);
    std::vector<warp_id> pending; // FIFO, head first
    std::uint64_t demotions = 0;
    std::uint64_t promotions = 0;

    explicit two_level(std::uint32_t a, Inner i = {}) : active_warps(a), inner(std::move(i)) {}

    [[nodiscard]] bool is_pending(warp_id w) const {
        return std::find(pending.begin(), pending.end(), w) != pending.end();
    }
    [[nodiscard]] std::size_t active_count() const {
        return static_cast<std::size_t>(std::count(active.begin(), active.end(), true));
    }

    issue_list select(std::span<const warp_view> views, std::size_t w) {
        if (views.size() > N) throw warpkit::contract_error("too many views");
        check_ids(views, N);
        std::vector<bool> alive(N);
        std::vector<bool> waits(N);
        for (const auto& v : views) {
            if (v.finished) continue;
            alive[v.id] = true;
            waits[v.id] = v.long_latency || v.at_barrier;
            if (!active[v.id] && !is_pending(v.id)) {
                pending.push_back(v.id);
            } else if (active[v.id] && waits[v.id]) {
                active[v.id] = false;
                pending.push_back(v.id);
                ++demotions;
            }
        }
        for (std::size_t i = 0; i < N; ++i)
            if (!alive[i]) active[i] = false;
        std::erase_if(pending, [&](warp_id p) { return !alive[p]; });
        std::vector<warp_id> still;
        for (const warp_id p : pending) {
            if (active_count() < active_warps && !waits[p]) {
                active[p] = true;
                ++promotions;
            } else {
                still.push_back(p);
            }
        }
        pending = still;
        std::vector<warp_view> offered;
        for (const auto& v : views)
            if (active[v.id]) offered.push_back(v);
        return inner.select(offered, w);
    }
    void notify_issued(const issue_list& done) { inner.notify_issued(done); }
};

/// GATES' issue arbiter: counts each class's live (ACTV) and issuable (RDY) warps, switches
/// the highest of INT/FP (its subset empty and the other's not; its units blocked and the
/// other's not; or held for max_switch cycles), then fills the slots class by class in the
/// order highest, LDST, SFU, DP, TENSOR, BRANCH, CTRL, lowest, `Inner` picking within a class.
template <class Inner>
struct gates_priority {
    std::uint32_t max_switch = 0;
    unit_class high = unit_class::int_alu;
    wi::unit_set blocked{};
    Inner inner;
    std::uint64_t cycles_at_high = 0;
    std::size_t width = 0;
    std::array<std::uint32_t, 8> actv{};
    std::array<std::uint32_t, 8> rdy{};
    wi::gates_priority_stats stats{};

    static unit_class other(unit_class u) {
        return u == unit_class::int_alu ? unit_class::fp : unit_class::int_alu;
    }
    issue_list select(std::span<const warp_view> views, std::size_t w) {
        if (views.size() > Inner::n) throw warpkit::contract_error("too many views");
        width = w;
        actv = {};
        rdy = {};
        for (const auto& v : views) {
            const bool live = v.valid && !v.at_barrier && !v.finished;
            actv[warpkit::isa::index(v.unit)] += live;
            rdy[warpkit::isa::index(v.unit)] += live && v.ready;
        }
        const unit_class low = other(high);
        if (actv[warpkit::isa::index(low)] > 0) {
            bool to_low = true;
            if (actv[warpkit::isa::index(high)] == 0)
                ++stats.switches_on_empty;
            else if (blocked.test(high) && !blocked.test(low))
                ++stats.switches_on_blocked;
            else if (max_switch != 0 && cycles_at_high >= max_switch && !blocked.test(low))
                ++stats.switches_on_threshold;
            else
                to_low = false;
            if (to_low) {
                high = low;
                cycles_at_high = 0;
            }
        }
        const std::array<unit_class, 8> order = {high,
                                                 unit_class::ldst,
                                                 unit_class::sfu,
                                                 unit_class::dp,
                                                 unit_class::tensor,
                                                 unit_class::branch,
                                                 unit_class::ctrl,
                                                 other(high)};
        issue_list out;
        for (const unit_class u : order) {
            if (out.size() >= w) break;
            if (blocked.test(u) || rdy[warpkit::isa::index(u)] == 0) continue;
            std::vector<warp_view> subset;
            for (const auto& v : views)
                if (v.unit == u && wi::issuable(v)) subset.push_back(v);
            out.append(inner.select(subset, w - out.size()));
        }
        return out;
    }
    void notify_issued(const issue_list& done) {
        stats.issue.record(width, done);
        inner.notify_issued(done);
        ++cycles_at_high;
        ++(high == unit_class::int_alu ? stats.int_high_cycles : stats.fp_high_cycles);
        bool i = false;
        bool f = false;
        for (const auto& s : done) {
            i = i || s.unit == unit_class::int_alu;
            f = f || s.unit == unit_class::fp;
        }
        if (i && f) ++stats.mixed_int_fp_cycles;
    }
};

} // namespace ref

// ---------------------------------------------------------------------------------------------
// Random inputs
// ---------------------------------------------------------------------------------------------

/// How the views of a cycle list their warps.
enum class listing { every_id, some_ids, any_order, bad_id };

listing any_listing(warpkit::rng& r) {
    const auto k = r.below(20);
    return k < 8    ? listing::every_id
           : k < 15 ? listing::some_ids
           : k < 19 ? listing::any_order
                    : listing::bad_id;
}

/// Flag probabilities of a run: some runs have most warps ready, some few.
struct mix {
    double valid, ready, long_latency, at_barrier, finished;
};

mix any_mix(warpkit::rng& r) {
    return {0.7 + 0.3 * r.uniform(), r.uniform(), 0.3 * r.uniform(), 0.15 * r.uniform(),
            0.15 * r.uniform()};
}

unit_class any_unit(warpkit::rng& r) {
    // Mostly INT and FP (GATES' two ends), every class now and then.
    const auto k = r.below(16);
    return k < 6    ? unit_class::int_alu
           : k < 11 ? unit_class::fp
                    : static_cast<unit_class>(r.below(8));
}

std::uint64_t any_age(warpkit::rng& r) {
    switch (r.below(6)) {
    case 0:
        return r.below(4); // many ties
    case 1:
        return (std::uint64_t{1} << 48) + r.below(4); // above 2^48
    case 2:
        return r(); // anything, ~0 included now and then
    case 3:
        return ~std::uint64_t{0} - r.below(3);
    default:
        return r.below(1000);
    }
}

/// The views of one cycle over warp ids below `warps` (<= max warps of the scheduler).
std::vector<warp_view> any_views(warpkit::rng& r, std::size_t warps, listing how, const mix& m) {
    std::vector<warp_view> v;
    const double offered = how == listing::every_id ? 1.0 : r.uniform();
    for (std::size_t w = 0; w < warps; ++w) {
        if (!r.bernoulli(offered)) continue;
        warp_view x;
        x.id = static_cast<warp_id>(w);
        x.age = any_age(r);
        x.unit = any_unit(r);
        x.valid = r.bernoulli(m.valid);
        x.ready = r.bernoulli(m.ready);
        x.long_latency = r.bernoulli(m.long_latency);
        x.at_barrier = r.bernoulli(m.at_barrier);
        x.finished = r.bernoulli(m.finished);
        v.push_back(x);
    }
    // A bad id goes into views in id order (left in place or sorted again) or in any order.
    const auto order = how == listing::bad_id ? r.below(3) : 0;
    if (how == listing::any_order || order == 1)
        for (std::size_t i = v.size(); i > 1; --i)
            std::swap(v[i - 1], v[r.below(i)]);
    if (how == listing::bad_id && !v.empty()) {
        if (r.bernoulli(0.5) && v.size() > 1)
            v[r.below(v.size())].id = v[r.below(v.size())].id; // maybe a repeated id
        else { // too large (or not, at times), by a little or in high bits only
            warp_view& x = v[r.below(v.size())];
            const std::size_t big[] = {warps + r.below(3), x.id + 64U, x.id ^ 0x1000U,
                                       x.id ^ 0x8000U, 0xffffU};
            x.id = static_cast<warp_id>(big[r.below(5)]);
        }
        if (order == 2)
            std::sort(v.begin(), v.end(),
                      [](const warp_view& a, const warp_view& b) { return a.id < b.id; });
    }
    return v;
}

/// What issued of the picks: all of them mostly, a prefix or nothing sometimes.
issue_list issued_of(warpkit::rng& r, const issue_list& picked) {
    issue_list done;
    const std::size_t n = r.bernoulli(0.8) ? picked.size() : r.below(picked.size() + 1);
    for (std::size_t i = 0; i < n; ++i)
        done.push(picked[i]);
    return done;
}

/// Runs `cycles` random cycles through `real` and `model`, checking each cycle with
/// `same(real, model)`; both refuse the same bad inputs (and are rebuilt by `fresh` after).
template <class Real, class Model, class Fresh, class Same, class Between>
void run(warpkit::rng& r, std::size_t warps, int cycles, Fresh fresh, Same same, Between between) {
    auto pair = fresh();
    auto& real = pair.first;
    auto& model = pair.second;
    const mix m = any_mix(r);
    const listing base = any_listing(r);
    std::size_t picked = 0;
    for (int c = 0; c < cycles; ++c) {
        const listing how = r.bernoulli(0.8) ? base : any_listing(r);
        const auto views = any_views(r, warps, how, m);
        const std::size_t width = r.below(wi::max_issue_width + 1);
        between(r, real, model);
        bool real_threw = false;
        bool model_threw = false;
        issue_list a;
        issue_list b;
        try {
            a = real.select(std::span<const warp_view>(views), width);
        } catch (const warpkit::contract_error&) {
            real_threw = true;
        }
        try {
            b = model.select(std::span<const warp_view>(views), width);
        } catch (const warpkit::contract_error&) {
            model_threw = true;
        }
        REQUIRE(real_threw == model_threw);
        if (real_threw) { // the state after a refused call is not specified: start again
            pair = fresh();
            continue;
        }
        REQUIRE(a == b);
        picked += a.size();
        const issue_list done = issued_of(r, a);
        real.notify_issued(done);
        model.notify_issued(done);
        same(real, model);
    }
    CHECK(picked > 0);
}

template <class Real, class Model>
void no_inputs(warpkit::rng&, Real&, Model&) {}

} // namespace

TEST_CASE_TEMPLATE("gto picks and counts as the reference: greedy warp, then oldest by (age, id)",
                   G, wi::basic_gto<64>, wi::basic_gto<128>, wi::basic_gto<40>) {
    constexpr std::size_t n = G::max_warps;
    using model_t = ref::gto<n>;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        warpkit::rng r(seed, n);
        const std::size_t warps = 1 + r.below(n); // fewer views than warps too
        run<G, model_t>(
            r, warps, 200, [] { return std::pair<G, model_t>{}; },
            [](const G& a, const model_t& b) {
                REQUIRE(warpkit::stats_to_csv(a.stats()) == warpkit::stats_to_csv(b.stats));
                REQUIRE(a.has_greedy() == b.has_greedy);
                if (a.has_greedy()) REQUIRE(a.greedy() == b.greedy);
            },
            no_inputs<G, model_t>);
    }
}

TEST_CASE_TEMPLATE("lrr picks and counts as the reference", L, wi::basic_lrr<64>,
                   wi::basic_lrr<128>) {
    constexpr std::size_t n = L::max_warps;
    using model_t = ref::lrr<n>;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        warpkit::rng r(seed, n + 1);
        run<L, model_t>(
            r, 1 + r.below(n), 200, [] { return std::pair<L, model_t>{}; },
            [](const L& a, const model_t& b) {
                REQUIRE(warpkit::stats_to_csv(a.stats()) == warpkit::stats_to_csv(b.stats));
                REQUIRE(a.last_issued() == b.last);
            },
            no_inputs<L, model_t>);
    }
}

namespace {

/// The sets of a two_level scheduler equal those of the reference.
template <class T, class M>
void same_sets(const T& a, const M& b) {
    const std::vector<warp_id> pending(a.pending().begin(), a.pending().end());
    REQUIRE(pending == b.pending);
    REQUIRE(a.active_count() == b.active_count());
    for (std::size_t w = 0; w < b.active.size(); ++w)
        REQUIRE(a.is_active(static_cast<warp_id>(w)) == b.active[w]);
    REQUIRE(a.stats().demotions == b.demotions);
    REQUIRE(a.stats().promotions == b.promotions);
}

} // namespace

TEST_CASE_TEMPLATE("two_level over lrr, gto and rr picks, counts and moves warps as the reference",
                   I, wi::basic_lrr<64>, wi::basic_lrr<32>, wi::basic_gto<64>, wi::basic_rr<64>,
                   wi::basic_lrr<128>) {
    constexpr std::size_t n = I::max_warps;
    // The reference's inner policy: the reference lrr and gto; rr itself (unchanged).
    using inner_model =
        std::conditional_t<std::is_same_v<I, wi::basic_lrr<n>>, ref::lrr<n>,
                           std::conditional_t<std::is_same_v<I, wi::basic_gto<n>>, ref::gto<n>, I>>;
    using real_t = wi::two_level<I>;
    using model_t = ref::two_level<inner_model, n>;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        warpkit::rng r(seed, n + 2);
        typename real_t::params_type p;
        p.active_warps = static_cast<std::uint32_t>(1 + r.below(n));
        run<real_t, model_t>(
            r, 1 + r.below(n), 200,
            [&] {
                return std::pair<real_t, model_t>{real_t(p), model_t(p.active_warps)};
            },
            [](const real_t& a, const model_t& b) {
                same_sets(a, b);
                const auto& inner_stats = [&]() -> const auto& {
                    if constexpr (requires { b.inner.stats(); })
                        return b.inner.stats();
                    else
                        return b.inner.stats;
                }
                ();
                REQUIRE(warpkit::stats_to_csv(a.stats().inner) ==
                        warpkit::stats_to_csv(inner_stats));
            },
            no_inputs<real_t, model_t>);
    }
}

namespace {

/// gates_priority's state and counters equal the reference's.
template <class G, class M>
void same_gates(const G& a, const M& b) {
    REQUIRE(a.high_priority() == b.high);
    REQUIRE(a.cycles_at_priority() == b.cycles_at_high);
    for (std::size_t u = 0; u < warpkit::isa::unit_class_count; ++u) {
        REQUIRE(a.actv(static_cast<unit_class>(u)) == b.actv[u]);
        REQUIRE(a.rdy(static_cast<unit_class>(u)) == b.rdy[u]);
    }
    REQUIRE(warpkit::stats_to_csv(a.stats()) == warpkit::stats_to_csv(b.stats));
    REQUIRE(warpkit::stats_to_csv(a.inner().stats()) == warpkit::stats_to_csv(b.inner.stats));
}

/// Blocks some unit classes now and then (coordinated Blackout), the same for both.
template <class G, class M>
void any_blocked(warpkit::rng& r, G& gates_of_real, M& gates_of_model) {
    if (!r.bernoulli(0.1)) return;
    wi::unit_set blocked;
    for (std::size_t u = 0; u < warpkit::isa::unit_class_count; ++u)
        if (r.bernoulli(u < 2 ? 0.3 : 0.1)) blocked.set(static_cast<unit_class>(u));
    gates_of_real.set_blocked(blocked);
    gates_of_model.blocked = blocked;
}

} // namespace

TEST_CASE_TEMPLATE("GATES picks, counts and switches priority as the reference", I,
                   wi::basic_lrr<64>, wi::basic_lrr<32>, wi::basic_gto<64>, wi::basic_lrr<128>) {
    constexpr std::size_t n = I::max_warps;
    using inner_model =
        std::conditional_t<std::is_same_v<I, wi::basic_lrr<n>>, ref::lrr<n>, ref::gto<n>>;
    using gates_model = ref::gates_priority<inner_model>;
    using real_t = wi::gates<I>;
    using model_t = ref::two_level<gates_model, n>;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        warpkit::rng r(seed, n + 3);
        typename real_t::params_type p;
        p.active_warps = static_cast<std::uint32_t>(1 + r.below(n));
        p.inner.max_switch_cycles =
            r.bernoulli(0.5) ? 0 : static_cast<std::uint32_t>(1 + r.below(8));
        p.inner.initial = r.bernoulli(0.5) ? unit_class::int_alu : unit_class::fp;
        const auto fresh = [&] {
            gates_model g;
            g.max_switch = p.inner.max_switch_cycles;
            g.high = p.inner.initial;
            return std::pair<real_t, model_t>{real_t(p), model_t(p.active_warps, g)};
        };
        run<real_t, model_t>(
            r, 1 + r.below(n), 200, fresh,
            [](const real_t& a, const model_t& b) {
                same_sets(a, b);
                same_gates(a.inner(), b.inner);
            },
            [](warpkit::rng& rr, real_t& a, model_t& b) { any_blocked(rr, a.inner(), b.inner); });
    }
}

TEST_CASE_TEMPLATE("gates_priority alone picks, counts and switches as the reference", I,
                   wi::basic_lrr<64>, wi::basic_gto<64>) {
    constexpr std::size_t n = I::max_warps;
    using inner_model =
        std::conditional_t<std::is_same_v<I, wi::basic_lrr<n>>, ref::lrr<n>, ref::gto<n>>;
    using real_t = wi::gates_priority<I>;
    using model_t = ref::gates_priority<inner_model>;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        warpkit::rng r(seed, n + 4);
        typename real_t::params_type p;
        p.max_switch_cycles = r.bernoulli(0.5) ? 0 : static_cast<std::uint32_t>(1 + r.below(8));
        run<real_t, model_t>(
            r, 1 + r.below(n), 200,
            [&] {
                model_t g;
                g.max_switch = p.max_switch_cycles;
                return std::pair<real_t, model_t>{real_t(p), g};
            },
            [](const real_t& a, const model_t& b) { same_gates(a, b); },
            [](warpkit::rng& rr, real_t& a, model_t& b) { any_blocked(rr, a, b); });
    }
}

TEST_CASE("view_planes reads each view's flags and unit class into per-id masks") {
    warpkit::rng r(7);
    for (int round = 0; round < 2000; ++round) {
        const std::size_t warps = 1 + r.below(64);
        const listing how = r.bernoulli(0.5) ? listing::every_id : listing::some_ids;
        const auto views = any_views(r, warps, how, any_mix(r));
        wi::detail::view_planes p;
        REQUIRE(p.load(views, 64));
        std::vector<const warp_view*> by_id(64);
        for (const auto& v : views)
            by_id[v.id] = &v;
        for (std::size_t w = 0; w < 64; ++w) {
            const auto bit = [&](std::uint64_t m) { return ((m >> w) & 1U) != 0; };
            if (const warp_view* v = by_id[w]) {
                REQUIRE(bit(p.valid) == v->valid);
                REQUIRE(bit(p.ready) == v->ready);
                REQUIRE(bit(p.long_latency) == v->long_latency);
                REQUIRE(bit(p.at_barrier) == v->at_barrier);
                REQUIRE(bit(p.finished) == v->finished);
                REQUIRE(p.unit_of(w) == v->unit);
                REQUIRE(bit(p.issuable()) == wi::issuable(*v));
                REQUIRE(bit(p.of_class(v->unit)));
            } else {
                REQUIRE(bit(p.finished)); // an id no view has reads as finished, only that
                REQUIRE_FALSE(bit(p.valid | p.ready | p.long_latency | p.at_barrier));
            }
        }
        // Ids out of order, repeated or too large: refused (the caller takes its other path).
        if (views.size() > 1) {
            auto swapped = views;
            std::swap(swapped.front(), swapped.back());
            CHECK_FALSE(p.load(swapped, 64));
            auto repeated = views;
            repeated[1].id = repeated[0].id;
            CHECK_FALSE(p.load(repeated, 64));
        }
        if (!views.empty()) // the last id not below the count
            CHECK_FALSE(p.load(views, views.back().id));
    }
}
