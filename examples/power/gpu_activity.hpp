#pragma once
// warpkit-power: runs a kernel on a GPU preset cycle by cycle and turns the SMs' counters
// into power::activity intervals. The power model never reads an SM; this file is the one
// place that maps GPU counters to the model's components (the table in mapping_table()).
// With the memory hierarchy (memory.model=hierarchy, the default of fermi_gtx480 and
// amoeba_48) the L1, constant cache, L2, NoC, memory-controller and DRAM activity is counted;
// with the ideal memory it is modelled from the SM's transactions with the rates in
// mapping_params. Register operands are always modelled (operands per instruction).
// A long run can keep its intervals on disk (interval_file.hpp) instead of in memory.

#include "interval_file.hpp"

#include "../common/progress.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/sm_counters.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace example {

namespace wp = warpkit::power;

/// Rates that stand in for counters a run does not keep. Defaults: Fermi-like operand
/// counts per unit class (int, fp, sfu, ldst, branch, ctrl, dp, tensor; FP and DP include
/// FMA's third source; a tensor instruction, wmma.mma m16n16k16 with FP32 accumulators, reads
/// 8 registers of each of A, B and C per thread and writes 8 of D); for the ideal memory only:
/// Rodinia-typical L1 / L2 hit rates on the GTX480, a 128-byte line in 32-byte flits and 64-byte
/// GDDR5 bursts (64-bit channel, burst of 8).
struct mapping_params {
    std::array<double, warpkit::isa::unit_class_count> reads_per_inst = {2.0, 2.5, 1.0, 1.5,
                                                                         1.0, 0.0, 2.5, 24.0};
    std::array<double, warpkit::isa::unit_class_count> writes_per_inst = {1.0, 1.0, 1.0, 0.7,
                                                                          0.0, 0.0, 1.0, 8.0};
    double l1_hit_rate = 0.3;     ///< of global loads
    double l2_hit_rate = 0.5;     ///< of L2 accesses
    double store_fraction = 0.25; ///< of global transactions (stores bypass L1)
    double row_hit_rate = 0.5;    ///< DRAM requests finding their row open
    std::uint32_t line_bytes = 128;
    std::uint32_t flit_bytes = 32;
    std::uint32_t dram_burst_bytes = 64;
    void validate() const {
        for (double r : {l1_hit_rate, l2_hit_rate, store_fraction, row_hit_rate})
            warpkit::check(r >= 0 && r <= 1, "rate", r, "[0, 1]");
        warpkit::check_range("line_bytes", line_bytes, 1U, 4096U);
        warpkit::check_range("flit_bytes", flit_bytes, 1U, 4096U);
        warpkit::check_range("dram_burst_bytes", dram_burst_bytes, 1U, 4096U);
    }
    WARPKIT_FIELDS(mapping_params, reads_per_inst, writes_per_inst, l1_hit_rate, l2_hit_rate,
                   store_fraction, row_hit_rate, line_bytes, flit_bytes, dram_burst_bytes)
};

/// The counter -> component table (for the README and --help).
inline std::string mapping_table() {
    return "component           counter (sm_stats / cluster_stats)                       kind\n"
           "front_end           warp_instructions + ibuffer_flushes                       "
           "modelled\n"
           "icache              fetches                                                   counted\n"
           "scheduler           warp_instructions                                         counted\n"
           "pipeline            warp_instructions                                         counted\n"
           "rf_banks            sum_u issued_by_unit[u] x (reads + writes per inst)      modelled\n"
           "operand_collectors  register reads (as above)                                 "
           "modelled\n"
           "rf_crossbar         register reads (as above)                                 "
           "modelled\n"
           "shared_memory       shared_bank_passes                                        counted\n"
           "shared_crossbar     shared_accesses                                           counted\n"
           "l1d                 L1D read + write hits and misses (ideal memory: "
           "global_transactions) counted\n"
           "const_cache         constant-cache accesses (ideal memory: const_accesses)    counted\n"
           "tex_cache           - (no texture path)                                       0\n"
           "coalescer           global_accesses (one PRT entry per warp access)           counted\n"
           "int_alu / fp / sfu  issued_by_unit[int / fp / sfu]                            counted\n"
           "  lanes (gating)    thread_ops of the INT / FP / SFU clusters                 counted\n"
           "  operand lanes     cluster thread_ops x operands per inst                    "
           "modelled\n"
           "l2                  L2 slice requests                                         "
           "counted*\n"
           "noc                 flits injected, request + reply networks                  "
           "counted*\n"
           "mem_ctrl            L2 line reads + write-backs sent to DRAM                  "
           "counted*\n"
           "dram rd / wr / act / pre  the channels' READ / WRITE / ACT / PRE commands     "
           "counted*\n"
           "  * with the memory hierarchy: run totals, spread over the trace intervals in\n"
           "    proportion to the requests the SMs sent in each; with the ideal memory:\n"
           "    l2 = global_transactions x (stores + loads x L1 miss rate), noc = L2 x\n"
           "    (1 + line / flit), mem_ctrl = L2 x L2 miss rate, dram from MC requests\n"
           "    (modelled with mapping_params)\n"
           "idle SM             cycles - active_cycles                                    counted\n"
           "leakage off         powered_off_cycles of the INT / FP clusters (gating)      counted\n"
           "memory stall (DVFS) stalls.scoreboard                                         proxy\n";
}

class activity_sampler;

/// One kernel run, sampled.
struct sampled_run {
    std::string preset;
    warpkit::gpu::gpu_params params;
    std::uint64_t cycles = 0;
    std::uint64_t warp_instructions = 0;
    std::vector<wp::activity> intervals; ///< one per sample (the last may be shorter)
    wp::activity total;                  ///< the whole run
    /// With run_sampled's `on_disk`: the sampler holding the intervals (which `intervals`
    /// then leaves empty); read them with its for_each_interval.
    std::shared_ptr<activity_sampler> on_disk;
};

namespace detail {
inline std::uint64_t rounded(double v) {
    return v <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(v));
}

// Cumulative activity of one SM from its cumulative counters.
inline wp::sm_activity map_sm(const warpkit::gpu::sm_counters& sm, const mapping_params& m,
                              bool counted_memory = false) {
    using warpkit::isa::unit_class;
    const auto& st = sm.stats;
    wp::sm_activity a;
    a.active_cycles = st.active_cycles;
    a.decoded = st.warp_instructions + st.ibuffer_flushes;
    a.icache_accesses = st.fetches;
    a.issued = st.warp_instructions;
    double reads = 0;
    double writes = 0;
    for (std::size_t u = 0; u < warpkit::isa::unit_class_count; ++u) {
        reads += static_cast<double>(st.issued_by_unit[u]) * m.reads_per_inst[u];
        writes += static_cast<double>(st.issued_by_unit[u]) * m.writes_per_inst[u];
    }
    a.rf_reads = rounded(reads);
    a.rf_writes = rounded(writes);
    a.collector_accesses = a.rf_reads;
    a.crossbar_transfers = a.rf_reads;
    a.shared_bank_accesses = st.shared_bank_passes;
    a.shared_transfers = st.shared_accesses;
    a.l1d_accesses = st.global_transactions;
    a.const_accesses = st.const_accesses;
    if (counted_memory) {
        const auto& l1 = sm.memory.l1d.cache;
        const auto& cc = sm.memory.constant.cache;
        a.l1d_accesses =
            l1.read_hits + l1.read_misses + l1.read_hits_reserved + l1.write_hits + l1.write_misses;
        a.const_accesses = cc.read_hits + cc.read_misses + cc.read_hits_reserved;
    }
    a.prt_accesses = st.global_accesses;
    // GPUWattch models no FP64 or tensor datapath of its own: their instructions count as the
    // FP unit's (an SM without such units runs them on its FP pipelines anyway).
    const auto fp_like = [&](const auto& by_unit) {
        return by_unit[warpkit::isa::index(unit_class::fp)] +
               by_unit[warpkit::isa::index(unit_class::dp)] +
               by_unit[warpkit::isa::index(unit_class::tensor)];
    };
    a.int_ops = st.issued_by_unit[warpkit::isa::index(unit_class::int_alu)];
    a.fp_ops = fp_like(st.issued_by_unit);
    a.sfu_ops = st.issued_by_unit[warpkit::isa::index(unit_class::sfu)];
    std::array<std::uint64_t, warpkit::isa::unit_class_count> lanes{};
    std::array<std::uint64_t, warpkit::isa::unit_class_count> off{};
    std::array<std::uint64_t, warpkit::isa::unit_class_count> clusters{};
    std::uint64_t cluster_threads = 0;
    for (const auto& c : sm.clusters) {
        const auto k = warpkit::isa::index(c.kind);
        lanes[k] += c.stats.thread_ops;
        off[k] += c.stats.powered_off_cycles;
        // A split SM's second half (AMOEBA) runs threads on its own clusters; they are the
        // same hardware as the fused SM's, so the cluster count stays.
        if (!c.second_half) ++clusters[k];
        cluster_threads += c.stats.thread_ops;
    }
    a.int_lanes = lanes[warpkit::isa::index(unit_class::int_alu)];
    a.fp_lanes = fp_like(lanes);
    a.sfu_lanes = lanes[warpkit::isa::index(unit_class::sfu)];
    // Branch and control instructions run on no cluster: their threads are the rest.
    const std::uint64_t other_threads =
        st.thread_instructions > cluster_threads ? st.thread_instructions - cluster_threads : 0;
    // Branch and control instructions share the rest in proportion to their counts.
    const auto branch = st.issued_by_unit[warpkit::isa::index(unit_class::branch)];
    const auto ctrl = st.issued_by_unit[warpkit::isa::index(unit_class::ctrl)];
    double operand_lanes = 0;
    for (std::size_t k = 0; k < warpkit::isa::unit_class_count; ++k) {
        double threads = static_cast<double>(lanes[k]);
        const bool no_cluster = k == warpkit::isa::index(unit_class::branch) ||
                                k == warpkit::isa::index(unit_class::ctrl);
        if (no_cluster && branch + ctrl > 0)
            threads = static_cast<double>(other_threads) *
                      static_cast<double>(st.issued_by_unit[k]) /
                      static_cast<double>(branch + ctrl);
        operand_lanes += threads * (m.reads_per_inst[k] + m.writes_per_inst[k]);
    }
    a.operand_lanes = rounded(operand_lanes);
    for (unit_class k : {unit_class::int_alu, unit_class::fp}) {
        const auto i = warpkit::isa::index(k);
        if (clusters[i] > 0)
            a.leakage_off_cycles[wp::index(k == unit_class::int_alu ? wp::component::int_alu
                                                                    : wp::component::fp)] =
                off[i] / clusters[i];
    }
    a.memory_stall_cycles = st.stalls.scoreboard;
    return a;
}

// The same for an SM object (any gpu::sm<...>).
template <class Sm>
requires(!std::same_as<Sm, warpkit::gpu::sm_counters>) wp::sm_activity
    map_sm(const Sm& sm, const mapping_params& m, bool counted_memory = false) {
    return map_sm(warpkit::gpu::counters_of(sm), m, counted_memory);
}

// Cumulative chip activity from the SMs' cumulative global transactions.
inline wp::chip_activity map_chip(const wp::activity& a, const mapping_params& m) {
    double tx = 0;
    for (const auto& s : a.sms)
        tx += static_cast<double>(s.l1d_accesses);
    const double l2 = tx * (m.store_fraction + (1 - m.store_fraction) * (1 - m.l1_hit_rate));
    const double mc = l2 * (1 - m.l2_hit_rate);
    const double bursts = static_cast<double>(m.line_bytes) / m.dram_burst_bytes;
    wp::chip_activity c;
    c.l2_accesses = rounded(l2);
    c.noc_flits = rounded(l2 * (1 + static_cast<double>(m.line_bytes) / m.flit_bytes));
    c.mc_requests = rounded(mc);
    c.dram.reads = rounded(mc * (1 - m.store_fraction) * bursts);
    c.dram.writes = rounded(mc * m.store_fraction * bursts);
    c.dram.activates = rounded(mc * (1 - m.row_hit_rate));
    c.dram.precharges = c.dram.activates;
    return c;
}

// Requests the SMs have sent to L2 so far (the weight that spreads counted chip totals).
inline std::uint64_t l2_requests_sent(std::span<const warpkit::gpu::sm_counters> sms) {
    std::uint64_t n = 0;
    for (const auto& s : sms)
        n += s.memory.reads_sent + s.memory.const_reads_sent + s.memory.writes_sent +
             s.memory.atomics_sent;
    return n;
}

inline wp::activity snapshot(std::span<const warpkit::gpu::sm_counters> sms, std::uint64_t cycles,
                             const mapping_params& m, bool counted_memory) {
    wp::activity a;
    a.cycles = cycles;
    a.sms.reserve(sms.size());
    for (const auto& s : sms)
        a.sms.push_back(map_sm(s, m, counted_memory));
    a.chip = map_chip(a, m);
    return a;
}

// The chip activity a hierarchy run counted.
inline wp::chip_activity counted_chip(const warpkit::gpu::memory_stats& ms) {
    wp::chip_activity c;
    for (const auto& sl : ms.slices) {
        c.l2_accesses += sl.requests;
        c.mc_requests += sl.dram_reads + sl.dram_writes;
    }
    c.noc_flits = ms.noc.request.flits_injected + ms.noc.reply.flits_injected;
    for (const auto& ch : ms.channels) {
        c.dram.reads += ch.reads;
        c.dram.writes += ch.writes;
        c.dram.activates += ch.activates;
        c.dram.precharges += ch.precharges;
    }
    return c;
}

// Splits `total` over the intervals in proportion to `weights` (largest remainders, so the
// parts add up to the total exactly).
inline std::vector<std::uint64_t> spread(std::uint64_t total,
                                         const std::vector<std::uint64_t>& weights) {
    std::vector<std::uint64_t> out(weights.size(), 0);
    std::uint64_t sum = 0;
    for (auto w : weights)
        sum += w;
    if (weights.empty()) return out;
    if (sum == 0) {
        out.back() = total;
        return out;
    }
    std::uint64_t given = 0;
    std::vector<std::pair<double, std::size_t>> rest;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        const double exact =
            static_cast<double>(total) * static_cast<double>(weights[i]) / static_cast<double>(sum);
        out[i] = static_cast<std::uint64_t>(exact);
        given += out[i];
        rest.emplace_back(exact - static_cast<double>(out[i]), i);
    }
    std::stable_sort(rest.begin(), rest.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::size_t k = 0; given < total && k < rest.size(); ++k, ++given)
        ++out[rest[k].second];
    return out;
}

// The counted chip counts of a run, each spread over its intervals in proportion to the L2
// requests sent in each: l2, noc, mc, then DRAM reads, writes, activates, precharges.
struct chip_parts {
    static constexpr std::array<std::uint64_t wp::chip_activity::*, 3> chip_fields = {
        &wp::chip_activity::l2_accesses, &wp::chip_activity::noc_flits,
        &wp::chip_activity::mc_requests};
    static constexpr std::array<std::uint64_t wp::dram_ops::*, 4> dram_fields = {
        &wp::dram_ops::reads, &wp::dram_ops::writes, &wp::dram_ops::activates,
        &wp::dram_ops::precharges};
    std::array<std::vector<std::uint64_t>, 7> parts;

    chip_parts(const wp::chip_activity& counted, const std::vector<std::uint64_t>& weights) {
        for (std::size_t k = 0; k < chip_fields.size(); ++k)
            parts[k] = spread(counted.*chip_fields[k], weights);
        for (std::size_t k = 0; k < dram_fields.size(); ++k)
            parts[chip_fields.size() + k] = spread(counted.dram.*dram_fields[k], weights);
    }
    /// Sets the chip counts of interval `i`.
    void apply(wp::activity& a, std::size_t i) const {
        for (std::size_t k = 0; k < chip_fields.size(); ++k)
            a.chip.*chip_fields[k] = parts[k][i];
        for (std::size_t k = 0; k < dram_fields.size(); ++k)
            a.chip.dram.*dram_fields[k] = parts[chip_fields.size() + k][i];
    }
};

// Replaces the modelled chip activity of every interval with the counted totals, spread in
// proportion to the L2 requests sent in each interval.
inline void apply_counted_chip(std::vector<wp::activity>& intervals, wp::activity& total,
                               const wp::chip_activity& counted,
                               const std::vector<std::uint64_t>& weights) {
    const chip_parts parts(counted, weights);
    for (std::size_t i = 0; i < intervals.size(); ++i)
        parts.apply(intervals[i], i);
    total.chip = counted;
}
} // namespace detail

/// Turns the SMs' cumulative counters, seen at every sample of a run (gpu::run's sample hook,
/// host::device::sample_every), into power::activity intervals. With the memory hierarchy,
/// finish() replaces the modelled chip rows by the run's counted totals, spread over the
/// intervals in proportion to the L2 requests the SMs sent in each.
class activity_sampler {
public:
    activity_sampler(std::size_t sms, const mapping_params& m, bool counted_memory)
        : m_(m), counted_(counted_memory) {
        warpkit::validate(m_);
        // Fresh SMs count nothing: the activity before the first interval is all zeros.
        before_.sms.resize(sms);
    }

    /// Keeps the intervals in a temporary file instead of memory, from the next add() on
    /// (intervals() then stays empty: read them with for_each_interval).
    void keep_on_disk() { file_ = std::make_shared<interval_file>(); }

    /// The counters of every SM after `cycles` cycles.
    void add(std::uint64_t cycles, std::span<const warpkit::gpu::sm_counters> sms) {
        const auto now = detail::snapshot(sms, cycles, m_, counted_);
        auto interval = wp::difference(now, before_);
        before_ = now;
        std::uint64_t weight = 0;
        if (counted_) {
            const auto sent = detail::l2_requests_sent(sms);
            weight = sent - sent_before_;
            sent_before_ = sent;
        }
        if (file_) {
            file_->append(interval, weight);
            return;
        }
        intervals_.push_back(std::move(interval));
        if (counted_) weights_.push_back(weight);
    }
    /// The same from the SM objects.
    template <class Sm>
    void add_sms(std::uint64_t cycles, std::span<const Sm> sms) {
        std::vector<warpkit::gpu::sm_counters> c;
        c.reserve(sms.size());
        for (const auto& s : sms)
            c.push_back(warpkit::gpu::counters_of(s));
        add(cycles, c);
    }

    /// Ends the run of `cycles` cycles whose memory side counted `memory`.
    void finish(std::uint64_t cycles, const warpkit::gpu::memory_stats& memory) {
        total_ = before_;
        total_.cycles = cycles;
        if (counted_)
            detail::apply_counted_chip(intervals_, total_, detail::counted_chip(memory), weights_);
    }

    /// Intervals sampled so far.
    [[nodiscard]] std::size_t interval_count() const noexcept {
        return file_ ? file_->size() : intervals_.size();
    }
    /// Cycles of the first interval (0 when there is none).
    [[nodiscard]] std::uint64_t first_interval_cycles() const noexcept {
        return file_ ? file_->first_cycles() : intervals_.empty() ? 0 : intervals_[0].cycles;
    }
    /// Calls `f(interval)` for every interval in order, from memory or from the file (after
    /// finish(): with the counted chip activity spread over them).
    template <class F>
    void for_each_interval(F&& f) const {
        if (!file_) {
            for (const auto& a : intervals_)
                f(a);
            return;
        }
        if (!counted_) {
            file_->for_each([&](const wp::activity& a, std::uint64_t) { f(a); });
            return;
        }
        // Only the weights and the spread counts, 64 bytes an interval, come into memory.
        const detail::chip_parts parts(total_.chip, file_->weights());
        std::size_t i = 0;
        file_->for_each([&](wp::activity& a, std::uint64_t) {
            parts.apply(a, i++);
            f(std::as_const(a));
        });
    }

    [[nodiscard]] const std::vector<wp::activity>& intervals() const noexcept {
        return intervals_;
    }
    [[nodiscard]] std::vector<wp::activity>& intervals() noexcept { return intervals_; }
    /// The whole run (after finish()).
    [[nodiscard]] const wp::activity& total() const noexcept { return total_; }

private:
    mapping_params m_;
    bool counted_ = false;
    wp::activity before_;
    wp::activity total_;
    std::vector<wp::activity> intervals_;
    std::vector<std::uint64_t> weights_;
    std::uint64_t sent_before_ = 0;
    std::shared_ptr<interval_file> file_; ///< set by keep_on_disk
};

/// Told at every sample of a run: the cycles run and the blocks completed so far.
using run_progress = std::function<void(std::uint64_t cycles, std::uint64_t blocks)>;

/// Runs `k` on `Preset` with params `p` and records the activity of every `sample_cycles`
/// cycles (the last interval may be shorter), through gpu::run's sample hook; `on_disk`
/// keeps the intervals in a temporary file (sampled_run::on_disk) instead of memory;
/// `progress`, when given, hears of every sample.
template <class Preset>
sampled_run run_sampled(const warpkit::func::isa_kernel& k, warpkit::func::global_memory& mem,
                        const warpkit::gpu::gpu_params& p, std::uint64_t sample_cycles,
                        const mapping_params& m, bool on_disk = false,
                        const run_progress& progress = {}) {
    namespace gpu = warpkit::gpu;
    using gpu_type = gpu::gpu<Preset>;
    gpu::gpu_params q = p;
    q.sample_cycles = sample_cycles;
    gpu_type g(q);
    sampled_run r;
    r.preset = p.name;
    r.params = p;
    auto sampler = std::make_shared<activity_sampler>(
        p.sms, m, p.memory.model == gpu::memory_model::hierarchy);
    if (on_disk) sampler->keep_on_disk();
    const auto rs = g.run(k, mem, {}, [&](std::uint64_t cycles, auto sms, bool) {
        sampler->add_sms(cycles, sms);
        if (progress) progress(cycles, blocks_completed(sms));
    });
    sampler->finish(rs.cycles, rs.memory);
    r.cycles = rs.cycles;
    r.intervals = std::move(sampler->intervals());
    r.total = sampler->total();
    if (on_disk) r.on_disk = std::move(sampler);
    r.warp_instructions = rs.total.warp_instructions;
    return r;
}

/// run_sampled on the preset called `name`, its params overridden by `overrides`.
inline sampled_run run_sampled(const std::string& name, const warpkit::func::isa_kernel& k,
                               warpkit::func::global_memory& mem,
                               const std::vector<std::string>& overrides,
                               std::uint64_t sample_cycles, const mapping_params& m,
                               bool on_disk = false, const run_progress& progress = {}) {
    const auto with = [&](auto preset) {
        using P = decltype(preset);
        auto p = P::params();
        warpkit::apply_overrides(p, overrides);
        return run_sampled<P>(k, mem, p, sample_cycles, m, on_disk, progress);
    };
    if (name == "fermi_gtx480") return with(warpkit::gpu::fermi_gtx480{});
    if (name == "tesla_seed004") return with(warpkit::gpu::tesla_seed004{});
    if (name == "amoeba_48") return with(warpkit::gpu::amoeba_48{});
    throw warpkit::config_error("preset", name, "fermi_gtx480, tesla_seed004 or amoeba_48");
}

} // namespace example
