#pragma once
// The Warped Gates evaluation (paper 003 Section 7) on synthetic workloads: one SM, the same
// seeded instruction streams under each technique, and the figures of Figs. 3 and 8-10
// computed from the gating controllers' counters.

#include "../power/gpu_activity.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/coordinated_blackout.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/func/synthetic_source.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/two_level.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/model.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace study {

namespace wk = warpkit;

/// The parts of the study's SM: GTX480 warp size and coalescing, a scheduler and a policy.
template <class Scheduler, class Gating>
struct policies {
    static constexpr std::size_t warp_size = 32;
    using scheduler = Scheduler;
    using gating_policy = Gating;
    using coalescer = wk::mem::line_coalescer<128>;
};

// The study's SM: GTX480 defaults, with a front end that fetches two warps per cycle so that
// the issue stage, not instruction supply, limits issue (one warp per cycle feeds at most the
// two instructions the SM issues, which leaves the schedulers few decoded warps to choose from).
inline wk::gpu::sm_params study_sm() {
    wk::gpu::sm_params p;
    p.fetch_width = 2;
    return p;
}

/// What is shared by every run of one study.
struct setup {
    wk::gpu::sm_params sm = study_sm();
    std::uint32_t schedulers = 1;    // paper 003 Section 6: one arbiter issuing N = 2 per cycle
    std::uint32_t active_warps = 32; // Section 6: at most 32 warps in the active set
    std::uint64_t seed = 1;
    std::uint64_t max_cycles = 200000000;
};

/// Counters of the clusters of one unit type (INT or FP), summed.
struct type_result {
    std::size_t clusters = 0;
    wk::gating::stats gating{};
    std::uint64_t static_energy = 0; // in units of one cluster's leakage per cycle
    std::uint32_t final_idle_detect = 0;
    wk::gpu::type_adaptation_stats adaptation{};
};

/// One technique on one workload.
struct run_result {
    std::string technique;
    std::string scheduler;
    std::string policy;
    std::uint64_t cycles = 0;
    wk::gpu::sm_stats sm{};
    std::uint64_t generated = 0;       // warp instructions the source generated
    std::array<type_result, 2> type{}; // INT, FP
    // Through the power model (paper 001, GTX480 defaults) at 700 MHz: the SM's energy and
    // the INT + FP units' leakage energy (powered-off cycles draw no leakage).
    double sm_energy_j = 0;
    double unit_leakage_j = 0;
};

/// The SM's energy and its INT + FP leakage energy through the power model: the SM counters
/// mapped as warpkit-power maps them (examples/power/gpu_activity.hpp), the INT / FP
/// leakage switched off as the gating controllers' static-energy accounting says.
template <class Sm>
void add_energy(run_result& r, const Sm& sm) {
    namespace wp = wk::power;
    wp::activity a;
    a.cycles = r.cycles;
    a.sms.push_back(example::detail::map_sm(sm, example::mapping_params{}));
    // Leakage switched off as the gating controllers account it: powered-off cycles less the
    // wake-up overhead (static_energy counts a wake-up as break-even cycles of leakage).
    const auto off = [&](const type_result& t) -> std::uint64_t {
        if (t.clusters == 0) return 0;
        const std::uint64_t on = t.static_energy / t.clusters;
        return on >= r.cycles ? 0 : r.cycles - on;
    };
    a.sms[0].leakage_off_cycles[wp::index(wp::component::int_alu)] = off(r.type[0]);
    a.sms[0].leakage_off_cycles[wp::index(wp::component::fp)] = off(r.type[1]);
    const wp::model pm;
    const auto b = pm.evaluate(a);
    const auto& s = b.sms.at(0);
    r.sm_energy_j = s.total_w() * b.seconds;
    r.unit_leakage_j = (s.leakage_w[wp::index(wp::component::int_alu)] +
                        s.leakage_w[wp::index(wp::component::fp)]) *
                       b.seconds;
}

/// The techniques run_all runs, the no-gating baseline first.
inline constexpr std::size_t technique_count = 6;

/// Told every progress_cycles cycles of run_all: which technique runs (its index in run_all's
/// results and its name) and how many of the workload's blocks it has completed.
using technique_progress =
    std::function<void(std::size_t technique, std::string_view name, std::uint32_t blocks)>;
inline constexpr std::uint64_t progress_cycles = 1024;

/// Runs the workload `w` on one SM with Scheduler and Gating; blocks are started as slots free
/// up (at most w.max_blocks_per_sm at a time when set). `progress(technique, blocks done)`,
/// when given, is called every progress_cycles cycles.
template <class Scheduler, class Gating>
run_result run(const std::string& technique, const setup& s, const wk::func::synthetic_params& w,
               const std::function<void(std::string_view, std::uint32_t)>& progress = {}) {
    using pol = policies<Scheduler, Gating>;
    using source_t = wk::func::synthetic_source<32>;
    using sm_t = wk::gpu::sm<pol, source_t>;
    typename sm_t::scheduler_bank_type::params_type bank;
    bank.schedulers = s.schedulers;
    bank.scheduler.active_warps = s.active_warps;
    if (w.warps_per_block > s.sm.warp_slots)
        throw wk::config_error("warps_per_block", std::to_string(w.warps_per_block),
                               "<= the SM's warp slots (" + std::to_string(s.sm.warp_slots) + ")");
    sm_t sm(0, s.sm, bank, source_t(w, wk::rng(s.seed), s.sm.warp_slots, s.sm.block_slots));
    const std::uint32_t limit = w.max_blocks_per_sm == 0 ? s.sm.block_slots : w.max_blocks_per_sm;
    std::uint32_t next = 0;
    std::uint32_t resident = 0;
    std::uint64_t last_issued = 0;
    std::uint64_t last_progress = 0;
    for (std::uint64_t c = 0;; ++c) {
        while (next < w.blocks && resident < limit && sm.has_free_block_slot(w.warps_per_block)) {
            sm.start_block(next++, w.warps_per_block);
            ++resident;
        }
        sm.tick([&](std::uint32_t) { --resident; });
        if (next == w.blocks && sm.idle()) break;
        if (sm.warp_instructions() != last_issued) {
            last_issued = sm.warp_instructions();
            last_progress = c;
        } else if (c - last_progress > 100000) {
            throw wk::sim_error("watchdog: no instruction issued for 100000 cycles under " +
                                technique + sm.describe_warps());
        }
        if (c >= s.max_cycles) throw wk::sim_error("max_cycles reached under " + technique);
        if (progress && c % progress_cycles == 0) progress(technique, next - resident);
    }
    sm.finish();
    if (sm.warp_instructions() != sm.source().total_instructions())
        throw wk::sim_error(technique + ": issued " + std::to_string(sm.warp_instructions()) +
                            " warp instructions of " +
                            std::to_string(sm.source().total_instructions()));

    run_result r;
    r.technique = technique;
    r.scheduler = std::string(Scheduler::kind);
    r.policy = Gating::name();
    r.sm = sm.stats();
    r.cycles = r.sm.cycles;
    r.generated = sm.source().generated();
    const std::size_t sps = s.sm.units.sp_count;
    for (std::size_t t = 0; t < 2; ++t) {
        auto& tr = r.type[t];
        const auto u = t == 0 ? wk::isa::unit_class::int_alu : wk::isa::unit_class::fp;
        tr.clusters = sps;
        for (std::size_t k = 0; k < sps; ++k) {
            const auto& g = sm.gates()[t * sps + k];
            wk::accumulate(tr.gating, g.stats());
            tr.static_energy += wk::gating::static_energy(g.stats(), g.params());
        }
        tr.final_idle_detect = sm.idle_detect(u);
        tr.adaptation = sm.adaptation(u);
    }
    add_energy(r, sm);
    return r;
}

/// The techniques of paper 003 Section 7.2, after the never-gated baseline (technique_count
/// runs), telling `progress` (when given) how far each got.
inline std::vector<run_result> run_all(const setup& s, const wk::func::synthetic_params& w,
                                       const technique_progress& progress = {}) {
    namespace g = wk::gating;
    using two_level = wk::issue::two_level<>;
    using gates = wk::issue::gates<>;
    std::vector<run_result> out;
    // The progress of the technique about to run (the next of `out`).
    const auto tell = [&]() -> std::function<void(std::string_view, std::uint32_t)> {
        if (!progress) return {};
        return [&progress, index = out.size()](std::string_view technique, std::uint32_t blocks) {
            progress(index, technique, blocks);
        };
    };
    out.push_back(run<two_level, g::no_gating>("No gating", s, w, tell()));
    out.push_back(run<two_level, g::conventional>("ConvPG", s, w, tell()));
    out.push_back(run<gates, g::conventional>("GATES", s, w, tell()));
    out.push_back(run<gates, g::naive_blackout>("Naive Blackout", s, w, tell()));
    out.push_back(run<gates, g::coordinated_blackout>("Coordinated Blackout", s, w, tell()));
    out.push_back(
        run<gates, g::adaptive_idle_detect<g::coordinated_blackout>>("Warped Gates", s, w, tell()));
    return out;
}

/// Static-energy saving of one type against never gating for `baseline_cycles` (the
/// no-gating run): 1 - energy / (clusters x baseline_cycles).
inline double savings(const type_result& t, std::uint64_t baseline_cycles) {
    if (baseline_cycles == 0 || t.clusters == 0) return 0.0;
    return 1.0 - static_cast<double>(t.static_energy) /
                     (static_cast<double>(t.clusters) * static_cast<double>(baseline_cycles));
}

inline double ratio(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

} // namespace study
