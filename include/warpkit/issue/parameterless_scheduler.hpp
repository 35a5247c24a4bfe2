#pragma once
/// \file
/// `detail::parameterless_scheduler`: what the schedulers without parameters (`gto`, `lrr`,
/// `rr`) hold alike: their `no_params`, their counters and the accessors of both.

#include <warpkit/core/stats.hpp>
#include <warpkit/issue/no_params.hpp>

namespace warpkit::issue::detail {

/// Base of a scheduler that has nothing to configure and counts `Stats`: the params and stats
/// types, the constructors the `warp_scheduler` concept asks for, `params()`, `stats()` and
/// `reset_stats()`. The scheduler itself adds `kind`, `select` and `notify_issued`.
template <class Stats>
class parameterless_scheduler {
public:
    using params_type = no_params;
    using stats_type = Stats;

    parameterless_scheduler() = default;
    explicit parameterless_scheduler(const params_type& /*p*/) {}

    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    [[nodiscard]] const stats_type& stats() const noexcept { return stats_; }
    /// Restarts the counters from zero (the scheduling state stays).
    void reset_stats() noexcept { reset_counters(stats_); }

protected:
    /// The counters, kept by the scheduler's `select` and `notify_issued`.
    stats_type stats_{};

private:
    params_type params_{};
};

} // namespace warpkit::issue::detail
