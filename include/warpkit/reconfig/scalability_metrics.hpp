#pragma once
/// \file
/// `scalability_metrics`: the ten inputs of AMOEBA's scalability predictor (paper 002,
/// Sections 4.1.1, 4.1.2 and Table 2), with the exact definition of each so that a GPU model
/// can fill them from its counters.
///
/// Sampling window (Section 4.1.1: the CTAs of a kernel behave like the kernel, so one CTA
/// predicts it): every metric is measured on the baseline (scale-out, unfused) SM that runs
/// the kernel's first CTA, from the cycle that CTA is dispatched to the cycle it completes.
/// Event counts are the SM's counts in that window; the other CTAs resident on the SM
/// contribute to them, as per-SM hardware counters cannot tell CTAs apart.
///
/// Where the paper gives a definition (coalescing rate, inactive-thread rate) it is followed;
/// where it only names the metric, the definition below is warpkit's and says so.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace warpkit::reconfig {

/// The predictor inputs of Table 2, sampled from a kernel's first CTA.
struct scalability_metrics {
    /// Concurrent CTAs: CTAs of the kernel resident on the sampled SM at the same time while
    /// the first CTA runs, i.e. the occupancy the kernel's threads, registers, shared memory
    /// and the per-SM CTA cap allow (Table 1: at most 8). A count of CTAs (time average if it
    /// changes within the window); >= 0. The paper proposes a new counter for it (Sec. 5.3).
    double concurrent_cta = 0;
    /// Inactive-thread rate (control divergence, Sec. 4.1.2 item 6): thread-cycles spent idle
    /// because of control instructions over thread-cycles of execution. Counted per issued
    /// warp instruction: sum of the warp's threads that are not in the instruction's active
    /// mask, over sum of the warp's threads, over all warp instructions the SM issues in the
    /// window. A warp's threads are those launched into it (empty lanes of a partial last warp
    /// do not count); threads that have exited count as idle. Dimensionless, [0, 1].
    double control_divergent = 0;
    /// Coalescing rate (Sec. 4.1.2 item 3): memory transactions the SM's coalescer sends to the
    /// memory system for global and local loads and stores, over the per-thread accesses of
    /// those instructions (sum of active lanes of every warp memory instruction). Dimensionless,
    /// [0, 1]: 1/32 when every 32-lane access of 4-byte words falls in one 128-byte line, 1 when
    /// every thread needs its own transaction. (mem::coalescing_rate() divides by warp
    /// instructions instead; this metric is transactions / lane_accesses.)
    double coalescing = 0;
    /// L1 data cache miss rate: read misses that fetch from below over read accesses (hits +
    /// misses + hits on a line whose fill is still pending), one access per coalesced
    /// transaction. Stores are not counted (the L1D does not allocate on them). Pending hits
    /// count as accesses, not misses (they are what `mshr` measures). Dimensionless, [0, 1].
    double l1d_miss = 0;
    /// L1 instruction cache miss rate: fetch misses over fetch accesses. Dimensionless, [0, 1].
    double l1i_miss = 0;
    /// L1 constant cache miss rate: misses over accesses (0 without constant accesses).
    /// Dimensionless, [0, 1].
    double l1c_miss = 0;
    /// MSHR rate (Sec. 4.1.2 item 5: like coalescing, but across instructions): L1D read misses
    /// merged into an MSHR entry that another instruction already holds for the line, over L1D
    /// read misses presented to the MSHRs (merges + new entries). Dimensionless, [0, 1];
    /// 0 = no merging. Equals mem::mshr_rate().
    double mshr = 0;
    /// Load instruction rate (named only in Table 2; warpkit's definition): warp load
    /// instructions from global or local memory over all warp instructions the SM issues in
    /// the window. Dimensionless, [0, 1].
    double load_rate = 0;
    /// Store instruction rate (named only in Table 2; warpkit's definition): warp store
    /// instructions to global or local memory over all warp instructions issued. [0, 1].
    double store_rate = 0;
    /// NoC throughput (Sec. 4.1.2 item 1, "communication intensity"): flits the sampled SM's
    /// network interface injects into the interconnect per core clock cycle over the window
    /// (requests, including store data). Flits per cycle, >= 0. The paper also lists average
    /// NoC latency, but Table 2 has a single NoC coefficient; warpkit takes the throughput.
    double noc = 0;

    WARPKIT_FIELDS(scalability_metrics, concurrent_cta, control_divergent, coalescing, l1d_miss,
                   l1i_miss, l1c_miss, mshr, load_rate, store_rate, noc)

    /// Throws config_error naming the first metric that is not finite or is outside its range.
    void validate() const;
};

/// Number of predictor inputs.
inline constexpr std::size_t metric_count = 10;

/// The metric keys, in declaration (and Table 2 reading) order.
inline constexpr std::array<std::string_view, metric_count> metric_names = {
    "concurrent_cta", "control_divergent", "coalescing", "l1d_miss", "l1i_miss", "l1c_miss",
    "mshr",           "load_rate",         "store_rate", "noc"};

/// Pointers to the metric fields, in the order of metric_names.
inline constexpr std::array<double scalability_metrics::*, metric_count> metric_fields = {
    &scalability_metrics::concurrent_cta, &scalability_metrics::control_divergent,
    &scalability_metrics::coalescing,     &scalability_metrics::l1d_miss,
    &scalability_metrics::l1i_miss,       &scalability_metrics::l1c_miss,
    &scalability_metrics::mshr,           &scalability_metrics::load_rate,
    &scalability_metrics::store_rate,     &scalability_metrics::noc};

/// Upper bound of each metric (lower bounds are all 0); infinity where unbounded.
inline constexpr std::array<double, metric_count> metric_upper_bounds = {
    std::numeric_limits<double>::infinity(), 1, 1, 1, 1, 1, 1, 1, 1,
    std::numeric_limits<double>::infinity()};

/// Index of metric `name` in metric_names, or nullopt.
[[nodiscard]] constexpr std::optional<std::size_t> metric_index(std::string_view name) noexcept {
    for (std::size_t i = 0; i < metric_count; ++i)
        if (metric_names[i] == name) return i;
    return std::nullopt;
}

/// The metrics as an array, in the order of metric_names.
[[nodiscard]] constexpr std::array<double, metric_count>
to_array(const scalability_metrics& m) noexcept {
    std::array<double, metric_count> a{};
    for (std::size_t i = 0; i < metric_count; ++i)
        a[i] = m.*metric_fields[i];
    return a;
}

/// Metrics from an array in the order of metric_names.
[[nodiscard]] constexpr scalability_metrics
from_array(const std::array<double, metric_count>& a) noexcept {
    scalability_metrics m;
    for (std::size_t i = 0; i < metric_count; ++i)
        m.*metric_fields[i] = a[i];
    return m;
}

/// "a, b, c": the metric keys for messages.
[[nodiscard]] inline std::string metric_list() {
    std::string s;
    for (auto n : metric_names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

/// Throws config_error(name, value, range) unless `value` is allowed for metric `index`.
inline void check_metric(std::size_t index, double value) {
    WARPKIT_EXPECTS(index < metric_count);
    const double hi = metric_upper_bounds[index];
    const bool ok = std::isfinite(value) && value >= 0 && value <= hi;
    check(ok, metric_names[index], value,
          std::isinf(hi) ? std::string("a finite number >= 0")
                         : std::string("a finite number in [0, 1]"));
}

inline void scalability_metrics::validate() const {
    for (std::size_t i = 0; i < metric_count; ++i)
        check_metric(i, this->*metric_fields[i]);
}

} // namespace warpkit::reconfig
