#pragma once
/// \file
/// `unit_cluster<Payload>`: a group of SIMT lanes of one unit class that executes a warp
/// instruction together and is power gated as one block (one sleep switch per cluster).

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/exec/functional_unit.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/exec/timing.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::exec {

/// Threads per warp of the clusters' reference shape (lanes divide it; a warp of up to
/// max_warp_size threads, such as the 64-thread warps of a fused AMOEBA SM, takes
/// proportionally more lane passes).
inline constexpr std::uint32_t warp_size = 32;
/// The widest warp a cluster executes.
inline constexpr std::uint32_t max_warp_size = 64;

/// Shape of one cluster. An SP's INT or FP cluster has 16 lanes clocked at twice the core
/// clock, so a 32-thread warp passes through it in two lane passes within one core cycle;
/// the SFU cluster has 4 lanes (8 passes), the LD/ST cluster 16 (2 passes).
struct cluster_params {
    isa::unit_class kind = isa::unit_class::int_alu;
    std::uint32_t lanes = 16;
    timing_params timing{};
    /// Bit u set: the cluster also executes unit class u's opcodes (an SM's FP clusters run
    /// FP64 and matrix instructions where it has no DP or tensor units).
    std::uint32_t also = 0;

    void validate() const {
        check(has_datapath(kind), "kind", static_cast<int>(kind),
              "int, fp, sfu, ldst, dp or tensor");
        check(lanes >= 1 && lanes <= warp_size && warp_size % lanes == 0, "lanes", lanes,
              "a divisor of 32 (1, 2, 4, 8, 16, 32)");
    }
    WARPKIT_FIELDS(cluster_params, kind, lanes, timing, also)
};

/// Counters of one cluster: its pipeline, power state and lane activity.
struct cluster_stats {
    functional_unit_stats pipeline{};
    std::uint64_t powered_off_cycles = 0; ///< cycles with the sleep switch open
    std::uint64_t thread_ops = 0;         ///< active threads summed over issued instructions
    std::uint64_t lane_slots = 0;         ///< lanes x passes summed over issued instructions
    /// Issued instructions by active thread count (the last bin: 32 or more).
    histogram<33> active_threads{};
    std::vector<std::uint64_t> lane_ops; ///< thread operations executed by each physical lane
    WARPKIT_FIELDS(cluster_stats, pipeline, powered_off_cycles, thread_ops, lane_slots,
                   active_threads, lane_ops)
};

/// A cluster of `lanes` SIMT lanes of one unit class: one functional_unit, a power switch and
/// lane activity counters (active threads per instruction, per-lane work, idle lane slots for
/// lane clock gating). Thread i of a warp runs on physical lane i mod lanes.
template <class Payload = std::uint32_t>
class unit_cluster {
public:
    using params_type = cluster_params;
    using stats_type = cluster_stats;
    using payload_type = Payload;

    explicit unit_cluster(const cluster_params& p = {})
        : p_(validated(p)), unit_(p_.kind, p_.timing, p_.also) {
        stats_.lane_ops.assign(p_.lanes, 0);
    }

    [[nodiscard]] isa::unit_class kind() const noexcept { return p_.kind; }
    [[nodiscard]] std::uint32_t lanes() const noexcept { return p_.lanes; }
    /// Lane passes a full warp of `width` threads needs (width / lanes, at least 1).
    [[nodiscard]] std::uint32_t passes(std::uint32_t width = warp_size) const noexcept {
        return width <= p_.lanes ? 1 : width / p_.lanes;
    }

    /// True if opcode class `o` runs on this cluster.
    [[nodiscard]] bool accepts(op_class o) const noexcept { return unit_.accepts(o); }
    /// True if the cluster is powered and its pipeline can take an instruction of class `o`.
    [[nodiscard]] bool can_issue(op_class o) const noexcept {
        return powered_ && unit_.can_issue(o);
    }
    /// Issues a warp instruction of class `o` with the given active threads (a warp of N
    /// threads, N <= max_warp_size; thread t runs on lane t mod lanes); `repeat` > 1: the
    /// pipeline takes it that many times (functional_unit::issue's passes).
    template <std::size_t N>
    requires(N >= 1 && N <= max_warp_size) void issue(op_class o, Payload value,
                                                      lane_mask<N> active,
                                                      std::uint32_t repeat = 1) {
        WARPKIT_EXPECTS(powered_);
        unit_.issue(o, std::move(value), repeat);
        const auto n = static_cast<std::uint64_t>(active.count());
        stats_.thread_ops += n;
        stats_.lane_slots += std::uint64_t{p_.lanes} * passes(static_cast<std::uint32_t>(N));
        stats_.active_threads.add(n);
        const std::uint32_t mask = p_.lanes - 1; // lanes is a power of two
        active.for_each([&](std::size_t t) { ++stats_.lane_ops[t & mask]; });
    }

    /// True while an instruction occupies the pipeline (the cluster cannot be gated).
    [[nodiscard]] bool busy() const noexcept { return unit_.busy(); }
    [[nodiscard]] bool ready() const noexcept { return unit_.ready(); }
    [[nodiscard]] const Payload& front() const { return unit_.front(); }
    void pop() { unit_.pop(); }
    [[nodiscard]] Payload take() { return unit_.take(); }

    /// True while the sleep switch is closed (the cluster can execute).
    [[nodiscard]] bool powered() const noexcept { return powered_; }
    /// Opens the sleep switch. Gating a cluster with work in its pipeline would lose it.
    void power_off() {
        WARPKIT_EXPECTS(!busy());
        powered_ = false;
    }
    /// Closes the sleep switch (the wakeup delay is the gating controller's business).
    void power_on() noexcept { powered_ = true; }
    /// Sets the power state from a controller's decision for this cycle.
    void set_powered(bool on) {
        if (on)
            power_on();
        else
            power_off();
    }

    /// `n` cycles of an empty pipeline at once (functional_unit::skip_idle).
    void skip_idle(std::uint64_t n) noexcept {
        if (!powered_) stats_.powered_off_cycles += n;
        unit_.skip_idle(n);
    }
    /// Ends the current cycle; true when the pipeline held an instruction.
    bool tick() noexcept {
        if (!powered_) ++stats_.powered_off_cycles;
        return unit_.tick();
    }

    [[nodiscard]] const functional_unit<Payload>& unit() const noexcept { return unit_; }
    [[nodiscard]] const cluster_params& params() const noexcept { return p_; }
    /// Counters (the pipeline's included).
    [[nodiscard]] cluster_stats stats() const {
        cluster_stats s = stats_;
        s.pipeline = unit_.stats();
        return s;
    }
    /// Restarts the counters (the pipeline's included) from zero.
    void reset_stats() noexcept {
        reset_counters(stats_);
        unit_.reset_stats();
    }

private:
    cluster_params p_;
    functional_unit<Payload> unit_;
    cluster_stats stats_{};
    bool powered_ = true;
};

} // namespace warpkit::exec
