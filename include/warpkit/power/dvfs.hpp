#pragma once
/// \file
/// Dynamic voltage and frequency scaling (paper 001, Section 5.1): P-states, a controller
/// that watches memory-stall time per epoch and steps the frequency down when a domain is
/// memory bound and up when it is compute bound, with an on-chip (500 cycles) or off-chip
/// (10,000 cycles) regulator; processor-level (one domain) or cluster-level (one domain per
/// group of SMs, idle groups at the lowest P-state). The evaluator replays a trace recorded at
/// the nominal point: compute time scales with 1/f, memory time does not; activity energy
/// scales with V^2, idle-SM and gating-logic power with V^2 f, leakage with V^k.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/concepts.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/params.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::power {

/// One P-state.
struct p_state {
    double mhz = 700;
    double volts = 1.0;
    WARPKIT_FIELDS(p_state, mhz, volts)
};

/// The paper's seven P-states: 700 MHz down to 100 MHz in 100 MHz steps, the voltage
/// scaled linearly from 1.0 V to 0.55 V (the paper scales it with the 45 nm PTM models).
[[nodiscard]] inline std::vector<p_state> gtx480_p_states() {
    std::vector<p_state> s;
    for (int i = 0; i < 7; ++i)
        s.push_back({700.0 - 100.0 * i, 1.0 - 0.075 * i});
    return s;
}

/// P-states (fastest first), epoch and regulator latency. Both lengths are in cycles of the
/// nominal clock (the model's nominal_mhz), i.e. times.
struct dvfs_params {
    std::vector<p_state> states = gtx480_p_states();
    std::uint64_t epoch_cycles = 500;
    std::uint64_t transition_cycles = 500; ///< 500: on-chip regulator; 10,000: off-chip
    void validate() const {
        check(!states.empty(), "states", states.size(), "at least one P-state");
        for (std::size_t i = 0; i < states.size(); ++i) {
            check(std::isfinite(states[i].mhz) && states[i].mhz > 0,
                  "states[" + std::to_string(i) + "].mhz", states[i].mhz, "> 0");
            check(std::isfinite(states[i].volts) && states[i].volts > 0,
                  "states[" + std::to_string(i) + "].volts", states[i].volts, "> 0");
            if (i > 0)
                check(states[i].mhz < states[i - 1].mhz, "states[" + std::to_string(i) + "].mhz",
                      states[i].mhz, "below the previous state's (fastest first)");
        }
        check_range("epoch_cycles", epoch_cycles, std::uint64_t{1}, std::uint64_t{1} << 40);
        check_range("transition_cycles", transition_cycles, std::uint64_t{0},
                    std::uint64_t{1} << 40);
    }
    WARPKIT_FIELDS(dvfs_params, states, epoch_cycles, transition_cycles)

    /// Fine-grained DVFS with an on-chip regulator: 500-cycle epochs and transitions.
    [[nodiscard]] static dvfs_params on_chip() { return {}; }
    /// Coarse-grained DVFS with an off-chip regulator: 10,000-cycle epochs and transitions.
    [[nodiscard]] static dvfs_params off_chip() {
        dvfs_params p;
        p.epoch_cycles = 10000;
        p.transition_cycles = 10000;
        return p;
    }
};

/// Thresholds of stall_threshold on the share of an epoch's time stalled on memory.
struct stall_threshold_params {
    double memory_bound = 0.90;  ///< step down when the stall share is at least this
    double compute_bound = 0.80; ///< step up when it is at most this
    void validate() const {
        check(compute_bound >= 0 && compute_bound < memory_bound && memory_bound <= 1,
              "compute_bound", compute_bound, "0 <= compute_bound < memory_bound <= 1");
    }
    WARPKIT_FIELDS(stall_threshold_params, memory_bound, compute_bound)
};

/// The paper's policy: one P-state slower after a memory-bound epoch, one faster after a
/// compute-bound one, the slowest for an idle domain. The paper gives no thresholds; ours
/// slow a domain down only while at least 90 % of its time waits on memory at the current
/// clock, which keeps the performance loss of a mostly memory-bound kernel within a few
/// percent (the paper reports 2.9 % on average).
class stall_threshold {
public:
    using params = stall_threshold_params;
    using params_type = params;

    explicit stall_threshold(const params& p = {}) : p_(validated(p)) {}

    [[nodiscard]] std::size_t decide(const epoch_view& v) const noexcept {
        if (v.idle) return v.states - 1;
        if (v.memory_stall_share >= p_.memory_bound) return std::min(v.state + 1, v.states - 1);
        if (v.memory_stall_share <= p_.compute_bound) return v.state > 0 ? v.state - 1 : 0;
        return v.state;
    }

private:
    params p_;
};

/// Counters of one DVFS domain.
struct dvfs_stats {
    std::uint64_t epochs = 0;
    std::uint64_t decisions_to_change = 0; ///< epochs whose decision differed from the target
    std::uint64_t transitions = 0;         ///< P-state changes carried out
    WARPKIT_FIELDS(dvfs_stats, epochs, decisions_to_change, transitions)
};

/// The controller of one voltage / frequency domain. Per sample of execution: begin_sample()
/// gives the P-state to run it at (a requested change takes effect once the regulator's
/// transition time has passed), end_sample() accounts its time and stall time and, when an
/// epoch is complete, asks the policy for the next P-state.
template <dvfs_policy Policy = stall_threshold>
class dvfs_controller {
public:
    using policy_type = Policy;

    dvfs_controller(const dvfs_params& p, double nominal_mhz, Policy policy = Policy{})
        : p_(validated(p)), policy_(std::move(policy)),
          epoch_s_(static_cast<double>(p_.epoch_cycles) / (nominal_mhz * 1e6)),
          transition_s_(static_cast<double>(p_.transition_cycles) / (nominal_mhz * 1e6)) {
        WARPKIT_EXPECTS(nominal_mhz > 0);
    }

    [[nodiscard]] const dvfs_params& params() const noexcept { return p_; }
    [[nodiscard]] const dvfs_stats& stats() const noexcept { return s_; }
    /// P-state in force.
    [[nodiscard]] std::size_t state() const noexcept { return state_; }
    [[nodiscard]] const p_state& point() const noexcept { return p_.states[state_]; }

    /// Starts a sample: applies a change whose transition has completed; returns the P-state.
    std::size_t begin_sample() noexcept {
        if (pending_ && now_ >= switch_at_) {
            pending_ = false;
            if (target_ != state_) ++s_.transitions;
            state_ = target_;
        }
        return state_;
    }

    /// Ends a sample of `seconds`, `stall_seconds` of them stalled on memory; `idle` when
    /// the domain had no work.
    void end_sample(double seconds, double stall_seconds, bool idle) noexcept {
        now_ += seconds;
        epoch_time_ += seconds;
        epoch_stall_ += stall_seconds;
        epoch_idle_ = epoch_idle_ && idle;
        if (epoch_time_ + 1e-15 < epoch_s_) return;
        ++s_.epochs;
        epoch_view v;
        v.state = state_;
        v.states = p_.states.size();
        v.memory_stall_share = epoch_time_ > 0 ? epoch_stall_ / epoch_time_ : 0.0;
        v.idle = epoch_idle_;
        const std::size_t want = std::min<std::size_t>(policy_.decide(v), v.states - 1);
        const std::size_t heading = pending_ ? target_ : state_;
        if (want != heading) {
            ++s_.decisions_to_change;
            target_ = want;
            pending_ = true;
            switch_at_ = now_ + transition_s_;
        }
        epoch_time_ = 0;
        epoch_stall_ = 0;
        epoch_idle_ = true;
    }

private:
    dvfs_params p_;
    Policy policy_;
    double epoch_s_;
    double transition_s_;
    std::size_t state_ = 0;
    std::size_t target_ = 0;
    bool pending_ = false;
    double switch_at_ = 0;
    double now_ = 0;
    double epoch_time_ = 0;
    double epoch_stall_ = 0;
    bool epoch_idle_ = true;
    dvfs_stats s_{};
};

/// One sample of one domain, recorded at the nominal point.
struct dvfs_sample {
    std::uint64_t cycles = 0;              ///< nominal-clock cycles
    std::uint64_t memory_stall_cycles = 0; ///< of them stalled on memory (domain average)
    bool idle = false;                     ///< no SM of the domain had work
    double dynamic_j = 0;                  ///< activity energy at nominal voltage
    double clock_w = 0;                    ///< idle-SM and gating-logic power at nominal V, f
    double leakage_w = 0;                  ///< leakage at nominal voltage
};

/// A kernel as DVFS sees it: the samples of each domain (same count and cycles per sample in
/// every domain) and the parts that DVFS does not scale (L2, NoC, memory controllers, DRAM).
struct dvfs_trace {
    std::vector<std::vector<dvfs_sample>> domains;
    double uncore_dynamic_j = 0;
    double uncore_leakage_w = 0;
    double nominal_mhz = 700;
    double nominal_v = 1.0;
    double leakage_voltage_exponent = 1.0;
};

/// Time and energy of one domain over a trace.
struct domain_outcome {
    double seconds = 0;
    double dynamic_j = 0;
    double clock_j = 0;
    double leakage_j = 0;
    std::vector<double> state_seconds; ///< time spent in each P-state
    std::size_t final_state = 0;       ///< P-state of the last sample
    dvfs_stats stats{};
    [[nodiscard]] double energy_j() const noexcept { return dynamic_j + clock_j + leakage_j; }
};

/// Time and energy of a whole kernel with and without DVFS.
struct dvfs_outcome {
    double seconds = 0;
    double energy_j = 0;
    double baseline_seconds = 0; ///< every domain at P-state 0 throughout
    double baseline_energy_j = 0;
    std::vector<domain_outcome> domains;
    /// Energy saved against the baseline (share).
    [[nodiscard]] double energy_saving() const noexcept {
        return baseline_energy_j > 0 ? 1.0 - energy_j / baseline_energy_j : 0.0;
    }
    /// Extra execution time against the baseline (share).
    [[nodiscard]] double slowdown() const noexcept {
        return baseline_seconds > 0 ? seconds / baseline_seconds - 1.0 : 0.0;
    }
};

namespace detail {
struct sample_cost {
    double seconds;
    double stall_seconds;
    double dynamic_j;
    double clock_j;
    double leakage_j;
};
// Compute cycles run at f, memory-stall time is fixed by the memory system at its nominal
// speed; energies scale from the nominal point.
[[nodiscard]] inline sample_cost cost_at(const dvfs_sample& s, const p_state& ps,
                                         const dvfs_trace& t) noexcept {
    const double f0 = t.nominal_mhz * 1e6;
    const double f = ps.mhz * 1e6;
    const auto stall = static_cast<double>(std::min(s.memory_stall_cycles, s.cycles));
    const double compute = static_cast<double>(s.cycles) - stall;
    sample_cost c{};
    c.stall_seconds = stall / f0;
    // An idle domain waits for the others: its samples take their recorded time at any f.
    c.seconds = s.idle ? static_cast<double>(s.cycles) / f0 : compute / f + c.stall_seconds;
    const double v = ps.volts / t.nominal_v;
    c.dynamic_j = s.dynamic_j * v * v;
    c.clock_j = s.clock_w * v * v * (ps.mhz / t.nominal_mhz) * c.seconds;
    c.leakage_j = s.leakage_w * std::pow(v, t.leakage_voltage_exponent) * c.seconds;
    return c;
}

template <class Choose>
domain_outcome replay(std::span<const dvfs_sample> samples, const dvfs_params& p,
                      const dvfs_trace& t, Choose&& choose) {
    domain_outcome o;
    o.state_seconds.assign(p.states.size(), 0.0);
    for (const auto& s : samples) {
        const std::size_t st = choose.begin_sample();
        const auto c = cost_at(s, p.states[st], t);
        choose.end_sample(c.seconds, c.stall_seconds, s.idle);
        o.seconds += c.seconds;
        o.dynamic_j += c.dynamic_j;
        o.clock_j += c.clock_j;
        o.leakage_j += c.leakage_j;
        o.state_seconds[st] += c.seconds;
        o.final_state = st;
    }
    return o;
}

struct fixed_state {
    std::size_t state = 0;
    std::size_t begin_sample() const noexcept { return state; }
    void end_sample(double, double, bool) const noexcept {}
};

// A domain that finishes early idles at its last P-state until the kernel ends.
inline void pad_to(domain_outcome& o, std::span<const dvfs_sample> samples, const p_state& ps,
                   const dvfs_trace& t, double until) {
    if (samples.empty() || until <= o.seconds) return;
    const double extra = until - o.seconds;
    const double v = ps.volts / t.nominal_v;
    o.clock_j += samples.back().clock_w * v * v * (ps.mhz / t.nominal_mhz) * extra;
    o.leakage_j += samples.back().leakage_w * std::pow(v, t.leakage_voltage_exponent) * extra;
}
} // namespace detail

/// Replays `t` with one controller per domain (policy copies of `policy`) and at P-state 0.
template <dvfs_policy Policy = stall_threshold>
[[nodiscard]] dvfs_outcome run_dvfs(const dvfs_trace& t, const dvfs_params& p,
                                    const Policy& policy = Policy{}) {
    validate(p);
    dvfs_outcome r;
    double base_seconds = 0;
    std::vector<domain_outcome> base;
    for (const auto& d : t.domains) {
        dvfs_controller<Policy> ctl(p, t.nominal_mhz, policy);
        r.domains.push_back(detail::replay(d, p, t, ctl));
        r.domains.back().stats = ctl.stats();
        detail::fixed_state fast;
        base.push_back(detail::replay(d, p, t, fast));
        r.seconds = std::max(r.seconds, r.domains.back().seconds);
        base_seconds = std::max(base_seconds, base.back().seconds);
    }
    r.energy_j = t.uncore_dynamic_j + t.uncore_leakage_w * r.seconds;
    r.baseline_energy_j = t.uncore_dynamic_j + t.uncore_leakage_w * base_seconds;
    for (std::size_t i = 0; i < t.domains.size(); ++i) {
        detail::pad_to(r.domains[i], t.domains[i], p.states[r.domains[i].final_state], t,
                       r.seconds);
        detail::pad_to(base[i], t.domains[i], p.states[0], t, base_seconds);
        r.energy_j += r.domains[i].energy_j();
        r.baseline_energy_j += base[i].energy_j();
    }
    r.baseline_seconds = base_seconds;
    return r;
}

/// Builds a DVFS trace one interval activity at a time (each of `cycles` cycles at the
/// nominal point), so a caller streaming intervals from disk keeps only the trace: one domain
/// for the whole chip when `cluster_size` is 0, else one per group of `cluster_size`
/// consecutive SMs. A domain's memory-stall cycles are the average over its SMs with work in
/// the interval.
class dvfs_trace_builder {
public:
    dvfs_trace_builder(const model& m, std::size_t cluster_size) : m_(&m), cluster_(cluster_size) {
        t_.nominal_mhz = m.params().nominal_mhz;
        t_.nominal_v = m.params().nominal_v;
        t_.leakage_voltage_exponent = m.params().leakage_voltage_exponent;
    }

    /// Adds the next interval. Throws config_error when its SM count differs from the first's.
    void add(const activity& a) {
        if (t_.domains.empty()) start(a.sms.size());
        if (a.sms.size() != sms_)
            throw config_error("intervals.sms", std::to_string(a.sms.size()),
                               "the same SM count in every interval (" + std::to_string(sms_) +
                                   ")");
        m_->evaluate(a, b_, m_->nominal());
        for (std::size_t d = 0; d < t_.domains.size(); ++d)
            t_.domains[d].push_back(sample(a, d));
        for (std::size_t i = sm_component_count; i < component_count; ++i)
            t_.uncore_dynamic_j += b_.dynamic_w[i] * b_.seconds;
        t_.uncore_leakage_w =
            b_.leakage_w[index(component::l2)] + b_.leakage_w[index(component::noc)] +
            b_.leakage_w[index(component::mem_ctrl)] + b_.leakage_w[index(component::dram)];
    }
    /// The trace of the intervals added so far.
    [[nodiscard]] const dvfs_trace& trace() const noexcept { return t_; }

private:
    void start(std::size_t sms) {
        sms_ = sms;
        per_ = cluster_ == 0 ? std::max<std::size_t>(sms, 1) : cluster_;
        t_.domains.assign(sms == 0 ? 1 : (sms + per_ - 1) / per_, {});
    }
    // Domain d's sample of the interval `a` (whose breakdown is b_).
    [[nodiscard]] dvfs_sample sample(const activity& a, std::size_t d) const {
        dvfs_sample s;
        s.cycles = a.cycles;
        std::uint64_t stall = 0;
        std::uint64_t active = 0;
        const std::size_t lo = d * per_;
        const std::size_t hi = std::min(sms_, lo + per_);
        for (std::size_t i = lo; i < hi; ++i) {
            const double dyn = b_.sms[i].dynamic_total_w() - b_.sms[i].idle_w;
            s.dynamic_j += dyn * b_.seconds;
            s.clock_w += b_.sms[i].idle_w;
            s.leakage_w += b_.sms[i].leakage_total_w();
            if (a.sms[i].active_cycles > 0) {
                ++active;
                stall += a.sms[i].memory_stall_cycles;
            }
        }
        if (sms_ > 0)
            s.clock_w +=
                b_.gating_overhead_w * static_cast<double>(hi - lo) / static_cast<double>(sms_);
        s.idle = active == 0;
        s.memory_stall_cycles = active == 0 ? 0 : (stall + active / 2) / active;
        return s;
    }

    const model* m_;
    std::size_t cluster_;
    std::size_t sms_ = 0;
    std::size_t per_ = 1;
    power_breakdown b_;
    dvfs_trace t_;
};

/// The DVFS trace of `intervals` (see dvfs_trace_builder).
[[nodiscard]] inline dvfs_trace make_dvfs_trace(const model& m, std::span<const activity> intervals,
                                                std::size_t cluster_size = 0) {
    dvfs_trace_builder builder(m, cluster_size);
    for (const auto& a : intervals)
        builder.add(a);
    return builder.trace();
}

} // namespace warpkit::power
