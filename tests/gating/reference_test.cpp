// The controller against a reference: the plain controller and idle-detect tuner this library
// had before the per-cycle tick was made fast (one state variable per count, a branch per
// case, a binary search per idle period), kept here as they were. Both are driven side by side
// over long random demand patterns, for every policy and for parameter sets that reach every
// corner (break-even 1, wakeup in one cycle, idle periods past the histogram's last bin,
// epochs of a few cycles); every event, state, accessor and counter must agree at every cycle,
// across reset_stats() and finish() calls in mid-run and an idle-detect register changed from
// outside.
#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gating.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace gating = warpkit::gating;
using gating::adaptation;
using gating::decision;
using gating::event;
using gating::power_state;

namespace {

// ---------------------------------------------------------------------------------------------
// The reference: idle_detect_tuner, adaptive_idle_detect and controller as they were.
// ---------------------------------------------------------------------------------------------

class reference_tuner {
public:
    explicit reference_tuner(const gating::params& p) : a_(p.adaptive), value_(p.idle_detect) {
        warpkit::validate(p);
        warpkit::check(p.idle_detect >= a_.min_idle_detect && p.idle_detect <= a_.max_idle_detect,
                       "idle_detect", p.idle_detect,
                       "[" + std::to_string(a_.min_idle_detect) + ", " +
                           std::to_string(a_.max_idle_detect) +
                           "] (adaptive.min_idle_detect .. adaptive.max_idle_detect)");
    }
    [[nodiscard]] std::uint32_t value() const noexcept { return value_; }
    [[nodiscard]] std::uint32_t critical_in_epoch() const noexcept { return critical_; }
    [[nodiscard]] std::uint32_t quiet_epochs() const noexcept { return quiet_; }
    [[nodiscard]] std::uint32_t cycle_in_epoch() const noexcept { return cycle_; }
    void record_critical() noexcept {
        if (critical_ != std::numeric_limits<std::uint32_t>::max()) ++critical_;
    }
    adaptation end_cycle() noexcept {
        if (++cycle_ < a_.epoch) return adaptation::none;
        cycle_ = 0;
        const bool over = critical_ > a_.critical_threshold;
        critical_ = 0;
        const std::uint32_t old = value_;
        if (over) {
            quiet_ = 0;
            value_ = std::min(a_.max_idle_detect, value_ + a_.step);
        } else if (++quiet_ >= a_.decrement_epochs) {
            quiet_ = 0;
            value_ = value_ - std::min(a_.step, value_ - a_.min_idle_detect);
        }
        return value_ > old ? adaptation::raised
                            : (value_ < old ? adaptation::lowered : adaptation::kept);
    }

private:
    gating::adaptive_params a_;
    std::uint32_t value_;
    std::uint32_t critical_ = 0;
    std::uint32_t quiet_ = 0;
    std::uint32_t cycle_ = 0;
};

template <gating::policy Base>
class reference_adaptive {
public:
    static constexpr bool blackout = Base::blackout;
    explicit reference_adaptive(const gating::params& p) : base_(p), tuner_(p) {}
    [[nodiscard]] static std::string name() { return "reference_adaptive<" + Base::name() + ">"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return tuner_.value(); }
    [[nodiscard]] decision decide(const gating::gate_view& v) const noexcept {
        return base_.decide(v);
    }
    adaptation end_cycle(bool critical) noexcept {
        static_cast<void>(base_.end_cycle(critical));
        if (critical) tuner_.record_critical();
        return tuner_.end_cycle();
    }
    [[nodiscard]] const reference_tuner& tuner() const noexcept { return tuner_; }

private:
    Base base_;
    reference_tuner tuner_;
};

template <gating::policy Policy>
class reference_controller {
public:
    explicit reference_controller(const gating::params& p)
        : p_(warpkit::validated(p)), policy_(p_) {}

    [[nodiscard]] power_state state() const noexcept { return state_; }
    [[nodiscard]] bool can_issue() const noexcept { return state_ == power_state::on; }
    [[nodiscard]] bool blocked() const noexcept { return state_ != power_state::on; }
    [[nodiscard]] bool gated() const noexcept {
        return state_ == power_state::uncompensated || state_ == power_state::compensated;
    }
    [[nodiscard]] bool in_blackout() const noexcept {
        return Policy::blackout && state_ == power_state::uncompensated;
    }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return policy_.idle_detect(); }
    [[nodiscard]] std::uint32_t idle_count() const noexcept { return idle_; }
    [[nodiscard]] std::uint32_t episode_gated_cycles() const noexcept { return gated_; }

    event tick(const gating::cycle_input& in) {
        ++s_.cycles;
        bool critical = false;
        event ev = event::none;
        switch (state_) {
        case power_state::on:
            ev = tick_on(in);
            break;
        case power_state::uncompensated:
        case power_state::compensated:
            WARPKIT_EXPECTS(!in.busy);
            ev = tick_gated(in, critical);
            break;
        case power_state::waking:
            WARPKIT_EXPECTS(!in.busy);
            ++s_.waking_cycles;
            if (in.demand) ++s_.stall_cycles;
            if (--waking_left_ == 0) {
                state_ = power_state::on;
                idle_ = 0;
                ev = event::powered_on;
            }
            break;
        }
        switch (policy_.end_cycle(critical)) {
        case adaptation::none:
            break;
        case adaptation::kept:
            ++s_.epochs;
            break;
        case adaptation::raised:
            ++s_.epochs;
            ++s_.idle_detect_increments;
            break;
        case adaptation::lowered:
            ++s_.epochs;
            ++s_.idle_detect_decrements;
            break;
        }
        return ev;
    }

    void finish() noexcept { close_period(); }
    [[nodiscard]] const gating::stats& stats() const noexcept { return s_; }
    void reset_stats() noexcept { warpkit::reset_counters(s_); }
    [[nodiscard]] const Policy& policy() const noexcept { return policy_; }
    [[nodiscard]] Policy& policy() noexcept { return policy_; }

private:
    event tick_on(const gating::cycle_input& in) noexcept {
        ++s_.on_cycles;
        if (in.busy || in.demand) {
            close_period();
            idle_ = 0;
            return event::none;
        }
        if (idle_ != std::numeric_limits<std::uint32_t>::max()) ++idle_;
        ++period_;
        switch (policy_.decide(
            gating::gate_view{idle_, policy_.idle_detect(), in.type_active, in.sibling_gated})) {
        case decision::stay_on:
            return event::none;
        case decision::hold:
            ++s_.held_cycles;
            return event::none;
        case decision::gate_early:
            ++s_.early_gating_events;
            break;
        case decision::gate:
            break;
        }
        ++s_.gating_events;
        state_ = power_state::uncompensated;
        gated_ = 0;
        idle_ = 0;
        return event::gated;
    }

    event tick_gated(const gating::cycle_input& in, bool& critical) noexcept {
        const std::uint32_t k = gated_ + 1;
        if (in.demand) {
            ++s_.stall_cycles;
            if (!Policy::blackout || state_ == power_state::compensated) {
                ++s_.wakeups;
                ++s_.waking_cycles;
                if (gated_ < p_.break_even) ++s_.negative_events;
                if (k == p_.break_even + 1) {
                    critical = true;
                    ++s_.critical_wakeups;
                }
                close_period();
                gated_ = 0;
                waking_left_ = p_.wakeup_delay - 1;
                state_ = waking_left_ == 0 ? power_state::on : power_state::waking;
                idle_ = 0;
                return event::wake_started;
            }
            ++s_.blackout_stall_cycles;
        }
        ++period_;
        gated_ = k;
        if (state_ == power_state::uncompensated) {
            ++s_.uncompensated_cycles;
            if (k >= p_.break_even) {
                state_ = power_state::compensated;
                return event::broke_even;
            }
        } else {
            ++s_.compensated_cycles;
        }
        return event::none;
    }

    void close_period() noexcept {
        if (period_ == 0) return;
        auto& ip = s_.idle_periods;
        ip.lengths.add(period_);
        const std::uint64_t id = policy_.idle_detect();
        if (period_ < id)
            ++ip.below_idle_detect;
        else if (period_ <= id + p_.break_even)
            ++ip.up_to_break_even;
        else
            ++ip.beyond_break_even;
        period_ = 0;
    }

    gating::params p_;
    Policy policy_;
    gating::stats s_{};
    power_state state_ = power_state::on;
    std::uint32_t idle_ = 0;
    std::uint32_t gated_ = 0;
    std::uint32_t waking_left_ = 0;
    std::uint64_t period_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Policies under test and their references.
// ---------------------------------------------------------------------------------------------

// A policy whose idle-detect register its owner loads from outside between cycles (as an SM's
// shared register is): the controller must read the threshold afresh at every decision.
template <gating::policy Base>
class loaded_register {
public:
    static constexpr bool blackout = Base::blackout;
    explicit loaded_register(const gating::params& p) : base_(p), value_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "loaded_register<" + Base::name() + ">"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return value_; }
    [[nodiscard]] decision decide(const gating::gate_view& v) const noexcept {
        return base_.decide(v);
    }
    adaptation end_cycle(bool critical) noexcept { return base_.end_cycle(critical); }
    void load(std::uint32_t value) noexcept { value_ = value; }

private:
    Base base_;
    std::uint32_t value_;
};

template <class P>
struct reference_of {
    using type = P;
};
template <class Base>
struct reference_of<gating::adaptive_idle_detect<Base>> {
    using type = reference_adaptive<Base>;
};

template <class P>
inline constexpr bool is_adaptive = false;
template <class Base>
inline constexpr bool is_adaptive<gating::adaptive_idle_detect<Base>> = true;

template <class P>
inline constexpr bool is_loaded = false;
template <class Base>
inline constexpr bool is_loaded<loaded_register<Base>> = true;

// Parameter sets: the defaults, and ones that push each count to its edge. Each is valid for
// the adaptive tuner too (min_idle_detect <= idle_detect <= max_idle_detect).
std::vector<gating::params> reference_parameter_sets() {
    std::vector<gating::params> v;
    v.emplace_back(); // Warped Gates: 5 / 14 / 3, epochs of 1000
    gating::params a; // everything 1: gating, break-even and wakeup in one cycle
    a.idle_detect = 1;
    a.break_even = 1;
    a.wakeup_delay = 1;
    a.adaptive = {.epoch = 7,
                  .critical_threshold = 0,
                  .decrement_epochs = 1,
                  .min_idle_detect = 1,
                  .max_idle_detect = 4,
                  .step = 1};
    v.push_back(a);
    gating::params b; // short epochs that move the threshold often, by steps of 2
    b.idle_detect = 3;
    b.break_even = 7;
    b.wakeup_delay = 4;
    b.adaptive = {.epoch = 23,
                  .critical_threshold = 0,
                  .decrement_epochs = 2,
                  .min_idle_detect = 2,
                  .max_idle_detect = 9,
                  .step = 2};
    v.push_back(b);
    gating::params c; // long break-even: idle periods past the histogram's 64+ bin
    c.idle_detect = 12;
    c.break_even = 70;
    c.wakeup_delay = 2;
    c.adaptive = {.epoch = 101,
                  .critical_threshold = 1,
                  .decrement_epochs = 3,
                  .min_idle_detect = 4,
                  .max_idle_detect = 40,
                  .step = 3};
    v.push_back(c);
    return v;
}

// Demand for one block: bursts, quiet stretches and, now and then, a long silence (long gated
// episodes); the owner issues most demands when the block is on, and the pipeline is now and
// then busy with earlier work without a demand.
class workload {
public:
    explicit workload(std::uint64_t seed) : r_(seed) {}

    gating::cycle_input next(bool on) {
        if (r_.bernoulli(burst_ ? 0.08 : 0.04)) burst_ = !burst_;
        if (r_.bernoulli(silent_ ? 0.01 : 0.002)) silent_ = !silent_;
        if (!silent_) {
            if (burst_)
                queue_ += r_.below(3);
            else if (r_.bernoulli(0.05))
                ++queue_;
        }
        if (r_.bernoulli(0.02)) sibling_ = !sibling_;
        const bool demand = queue_ > 0;
        const bool issue = demand && on && r_.bernoulli(0.9);
        if (issue) --queue_;
        const bool busy = on && (issue || r_.bernoulli(0.05));
        return {demand, busy, static_cast<std::uint32_t>(r_.below(4)), sibling_};
    }
    warpkit::rng& rng() noexcept { return r_; }

private:
    warpkit::rng r_;
    bool burst_ = false;
    bool silent_ = false;
    bool sibling_ = false;
    std::uint64_t queue_ = 0;
};

// Drives a controller<P> and a reference_controller<reference_of<P>> with the same inputs for
// `cycles` cycles and checks that they agree at every cycle. Returns the counters the fast
// controller accumulated over the run (across its resets).
template <class P>
gating::stats compare(const gating::params& p, std::uint64_t seed, std::uint64_t cycles) {
    using R = typename reference_of<P>::type;
    gating::controller<P> fast(p);
    reference_controller<R> ref(p);
    workload w(seed);
    warpkit::rng& r = w.rng();
    gating::stats total{};
    const auto same_stats = [&] {
        return warpkit::stats_to_csv(fast.stats()) == warpkit::stats_to_csv(ref.stats());
    };
    for (std::uint64_t t = 0; t < cycles; ++t) {
        const gating::cycle_input in = w.next(fast.can_issue());
        const bool same_before = fast.state() == ref.state();
        const event fe = fast.tick(in);
        const event re = ref.tick(in);
        bool agree = same_before && fe == re && fast.state() == ref.state() &&
                     fast.can_issue() == ref.can_issue() && fast.blocked() == ref.blocked() &&
                     fast.gated() == ref.gated() && fast.in_blackout() == ref.in_blackout() &&
                     fast.idle_detect() == ref.idle_detect() &&
                     fast.idle_count() == ref.idle_count() &&
                     fast.episode_gated_cycles() == ref.episode_gated_cycles() &&
                     fast.stats().cycles == ref.stats().cycles &&
                     fast.stats().gating_events == ref.stats().gating_events &&
                     fast.stats().stall_cycles == ref.stats().stall_cycles &&
                     fast.stats().idle_periods.lengths.samples() ==
                         ref.stats().idle_periods.lengths.samples();
        if constexpr (is_adaptive<P>) {
            const auto& ft = fast.policy().tuner();
            const auto& rt = ref.policy().tuner();
            agree = agree && ft.value() == rt.value() &&
                    ft.critical_in_epoch() == rt.critical_in_epoch() &&
                    ft.quiet_epochs() == rt.quiet_epochs() &&
                    ft.cycle_in_epoch() == rt.cycle_in_epoch();
        }
        if (!agree || t % 997 == 0 || t + 1 == cycles) {
            CAPTURE(t);
            REQUIRE(agree);
            REQUIRE(same_stats());
        }
        if constexpr (is_loaded<P>) {
            if (r.bernoulli(0.003)) {
                const auto v = static_cast<std::uint32_t>(1 + r.below(2 * p.idle_detect + 3));
                fast.policy().load(v);
                ref.policy().load(v);
            }
        }
        // A finish() in mid-run (its period is recorded, counting goes on) or a reset_stats().
        if (r.bernoulli(0.0007)) {
            fast.finish();
            ref.finish();
        }
        if (r.bernoulli(0.0005)) {
            warpkit::accumulate(total, fast.stats());
            fast.reset_stats();
            ref.reset_stats();
        }
    }
    fast.finish();
    ref.finish();
    CHECK(same_stats());
    warpkit::accumulate(total, fast.stats());
    return total;
}

} // namespace

TEST_CASE_TEMPLATE("controller: the same events, states and counters as the reference controller, "
                   "cycle by cycle, on long random demand patterns",
                   P, gating::no_gating, gating::conventional, gating::naive_blackout,
                   gating::coordinated_blackout,
                   gating::adaptive_idle_detect<gating::naive_blackout>,
                   gating::adaptive_idle_detect<gating::coordinated_blackout>,
                   gating::adaptive_idle_detect<gating::conventional>,
                   loaded_register<gating::naive_blackout>,
                   loaded_register<gating::coordinated_blackout>) {
    gating::stats total{};
    const auto sets = reference_parameter_sets();
    for (std::size_t i = 0; i < sets.size(); ++i) {
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
            CAPTURE(i);
            CAPTURE(seed);
            warpkit::accumulate(total, compare<P>(sets[i], seed * 7919 + i, 60000));
        }
    }
    // The patterns reached the paths that matter for P, or the comparison proves little.
    CHECK(total.idle_periods.below_idle_detect > 0);
    CHECK(total.idle_periods.lengths.count(64) > 0);
    if constexpr (!std::is_same_v<P, gating::no_gating>) {
        CHECK(total.idle_periods.up_to_break_even > 0);
        CHECK(total.idle_periods.beyond_break_even > 0);
        CHECK(total.critical_wakeups > 0);
        CHECK(total.compensated_cycles > 0);
        CHECK(total.waking_cycles > total.wakeups); // wakeups of more than one cycle
        if constexpr (P::blackout)
            CHECK(total.blackout_stall_cycles > 0);
        else
            CHECK(total.negative_events > 0);
    }
    if constexpr (gating::reads_type_active<P>) {
        CHECK(total.held_cycles > 0);
        CHECK(total.early_gating_events > 0);
    }
    if constexpr (is_adaptive<P>) {
        CHECK(total.idle_detect_increments > 0);
        CHECK(total.idle_detect_decrements > 0);
        CHECK(total.epochs > total.idle_detect_increments + total.idle_detect_decrements);
    }
}

TEST_CASE("controller<no_gating>::tick_never_gating: the same states and counters as the "
          "reference controller's tick without demand") {
    const auto sets = reference_parameter_sets();
    std::uint64_t below_idle_detect = 0; // over the sets: some have an idle_detect of 1
    for (std::size_t i = 0; i < sets.size(); ++i) {
        CAPTURE(i);
        gating::controller<gating::no_gating> fast(sets[i]);
        reference_controller<typename reference_of<gating::no_gating>::type> ref(sets[i]);
        workload w(31 + i);
        warpkit::rng& r = w.rng();
        std::uint64_t busy_cycles = 0;
        for (std::uint64_t t = 0; t < 40000; ++t) {
            gating::cycle_input in = w.next(true);
            in.demand = false;
            busy_cycles += in.busy ? 1U : 0U;
            fast.tick_never_gating(in.busy);
            (void)ref.tick(in);
            const bool agree = fast.state() == ref.state() &&
                               fast.idle_count() == ref.idle_count() &&
                               fast.stats().cycles == ref.stats().cycles &&
                               fast.stats().idle_periods.lengths.samples() ==
                                   ref.stats().idle_periods.lengths.samples();
            if (!agree || t % 997 == 0) {
                CAPTURE(t);
                REQUIRE(agree);
                REQUIRE(warpkit::stats_to_csv(fast.stats()) == warpkit::stats_to_csv(ref.stats()));
            }
            if (r.bernoulli(0.0007)) {
                fast.finish();
                ref.finish();
            }
        }
        fast.finish();
        ref.finish();
        CHECK(warpkit::stats_to_csv(fast.stats()) == warpkit::stats_to_csv(ref.stats()));
        // Both kinds of cycle occurred, and periods of every length class were closed.
        CHECK(busy_cycles > 0);
        CHECK(busy_cycles < 40000);
        CHECK(fast.stats().idle_periods.lengths.count(64) > 0);
        below_idle_detect += fast.stats().idle_periods.below_idle_detect;
    }
    CHECK(below_idle_detect > 0);
}
