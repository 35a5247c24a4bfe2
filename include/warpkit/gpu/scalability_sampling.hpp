#pragma once
/// \file
/// AMOEBA's predictor inputs (paper 002, Sec. 4.1; reconfig::scalability_metrics) from an SM's
/// counters, and the first-CTA sampler that a GPU run feeds through its block hook.
///
/// Each metric follows the definition in reconfig/scalability_metrics.hpp, with these
/// counters of the sampled SM over the window (the first CTA's dispatch at cycle 0 to its
/// completion; the SM's counters start at 0 with the kernel):
/// - concurrent_cta: sm_stats::block_cycles / cycles;
/// - control_divergent: 1 - thread_instructions / warp_threads;
/// - coalescing: global_transactions / global_lane_accesses (at most 1; the transactions of
///   atomics are counted with those of loads and stores);
/// - l1d_miss, l1c_miss: read misses / reads of the L1 data and constant caches (hierarchy);
/// - l1i_miss: 0 — warpkit's SMs fetch at a fixed latency and model no instruction cache;
/// - mshr: mem::mshr_rate of the L1 data cache's MSHRs;
/// - load_rate, store_rate: global_loads, global_stores / warp_instructions;
/// - noc: request_flits / cycles.

#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/mshr.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace warpkit::gpu {

/// The predictor inputs from one SM's counters over a window of `s.cycles` cycles.
[[nodiscard]] inline reconfig::scalability_metrics
scalability_metrics_of(const sm_stats& s, const sm_memory_stats& m) {
    const auto ratio = [](std::uint64_t a, std::uint64_t b) {
        return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
    };
    reconfig::scalability_metrics x;
    x.concurrent_cta = ratio(s.block_cycles, s.cycles);
    x.control_divergent =
        s.warp_threads == 0 ? 0.0 : 1.0 - ratio(s.thread_instructions, s.warp_threads);
    x.coalescing = std::min(1.0, ratio(s.global_transactions, s.global_lane_accesses));
    x.l1d_miss = mem::read_miss_rate(m.l1d.cache);
    x.l1i_miss = 0;
    x.l1c_miss = mem::read_miss_rate(m.constant.cache);
    x.mshr = mem::mshr_rate(m.l1d.mshr);
    x.load_rate = ratio(s.global_loads, s.warp_instructions);
    x.store_rate = ratio(s.global_stores, s.warp_instructions);
    x.noc = ratio(s.request_flits, s.cycles);
    return x;
}

/// Samples the SM that runs a kernel's first CTA (block 0) until that CTA completes (paper
/// 002 Sec. 4.1.1). Pass `hook()` as gpu::run's block hook; `metrics()` is set once block 0
/// has completed.
class first_cta_sampler {
public:
    /// The block hook: (block, sm, cycle).
    template <class Sm>
    void operator()(std::uint32_t block, const Sm& sm, std::uint64_t cycle) {
        if (block != 0 || metrics_) return;
        metrics_ = scalability_metrics_of(sm.stats(), sm.memory_stats());
        sm_ = sm.id();
        cycle_ = cycle;
    }
    [[nodiscard]] const std::optional<reconfig::scalability_metrics>& metrics() const noexcept {
        return metrics_;
    }
    [[nodiscard]] std::uint32_t sm() const noexcept { return sm_; }
    /// The cycle block 0 completed in.
    [[nodiscard]] std::uint64_t cycle() const noexcept { return cycle_; }

private:
    std::optional<reconfig::scalability_metrics> metrics_;
    std::uint32_t sm_ = 0;
    std::uint64_t cycle_ = 0;
};

} // namespace warpkit::gpu
