#pragma once
// Shared by the examples that run kernels on GPU presets: load a kernel (assembly or image),
// pick a preset by name at run time, run it, and print a readable report.

#include "progress.hpp"

#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace example {

/// A kernel from assembly (.s) or a kernel image (.hex). Throws parse_error (file:line:column)
/// for malformed text and for a file without instructions, and warpkit::error "cannot read
/// '<path>': <reason>" for a file that cannot be read (warpkit::read_file).
inline warpkit::isa::program load_program(const std::string& path) {
    const std::string text = warpkit::read_file(path);
    const bool image = path.size() > 4 && path.substr(path.size() - 4) == ".hex";
    auto prog = image ? warpkit::isa::read_image(text, path) : warpkit::isa::assemble(text, path);
    if (prog.code.empty()) {
        const auto [line, column] = warpkit::isa::detail::end_position(text);
        throw warpkit::parse_error(path, line, column,
                                   image ? "image has no INSTR entry (a kernel needs at least EXIT)"
                                         : "no instructions (a kernel needs at least EXIT)");
    }
    return prog;
}

/// Busy fraction of each unit class of a run (from the execution clusters' counters).
struct unit_use {
    std::array<double, warpkit::isa::unit_class_count> busy{};
};

struct preset_run {
    warpkit::gpu::gpu_params params;
    warpkit::gpu::run_stats stats;
    unit_use units;
};

template <class Preset>
preset_run run_with(warpkit::gpu::gpu_params p, const warpkit::func::isa_kernel& k,
                    warpkit::func::global_memory& mem, const std::vector<std::string>& overrides,
                    progress_line* progress) {
    warpkit::apply_overrides(p, overrides);
    const bool show_progress = progress != nullptr && progress->enabled();
    // The progress line samples the run more often than the preset would; sampling changes
    // nothing else, and the run reports the preset's own params.
    auto run_params = p;
    if (show_progress)
        run_params.sample_cycles = std::min(run_params.sample_cycles, progress_sample_cycles);
    warpkit::gpu::gpu<Preset> g(run_params);
    preset_run r;
    r.params = p;
    std::array<std::uint64_t, warpkit::isa::unit_class_count> busy{};
    std::array<std::uint64_t, warpkit::isa::unit_class_count> count{};
    const auto show = [&](std::uint64_t cycle, auto sms, bool) {
        show_blocks(*progress, cycle, blocks_completed(sms), k.blocks());
    };
    r.stats = g.run(
        k, mem,
        [&](const auto& sm) {
            const auto& u = sm.units();
            for (std::size_t c = 0; c < u.size(); ++c) {
                const auto kind = warpkit::isa::index(u[c].kind());
                busy[kind] += u[c].stats().pipeline.busy_cycles;
                ++count[kind];
            }
        },
        show_progress ? typename warpkit::gpu::gpu<Preset>::sample_hook(show) : nullptr);
    for (std::size_t i = 0; i < busy.size(); ++i)
        if (count[i] != 0 && r.stats.cycles != 0)
            r.units.busy[i] = static_cast<double>(busy[i]) /
                              (static_cast<double>(count[i]) * static_cast<double>(r.stats.cycles));
    return r;
}

/// Runs `k` on the preset called `name` with `key=value` overrides of its gpu_params, showing
/// its blocks done on `progress` when one is given.
inline preset_run run_preset(const std::string& name, const warpkit::func::isa_kernel& k,
                             warpkit::func::global_memory& mem,
                             const std::vector<std::string>& overrides,
                             progress_line* progress = nullptr) {
    return warpkit::gpu::visit_preset(name, [&](auto tag) {
        return run_with<typename decltype(tag)::type>(decltype(tag)::params(), k, mem, overrides,
                                                      progress);
    });
}

inline double pct(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0.0 : 100.0 * static_cast<double>(a) / static_cast<double>(b);
}
/// a / b, 0 when b is 0 (transactions per access, thread instructions per warp instruction).
inline double per(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

/// A few lines about one run.
inline std::string report(const std::string& kernel, const preset_run& r) {
    const auto& t = r.stats.total;
    const auto& s = t.stalls;
    char buf[1024];
    std::string out;
    std::snprintf(buf, sizeof buf,
                  "%s on %s: %llu cycles (%.2f us at %u MHz), %llu warp instructions, IPC %.3f "
                  "(issue width %u x %u SMs)\n",
                  kernel.c_str(), r.params.name.c_str(),
                  static_cast<unsigned long long>(r.stats.cycles),
                  static_cast<double>(r.stats.cycles) / r.params.core_mhz, r.params.core_mhz,
                  static_cast<unsigned long long>(t.warp_instructions), r.stats.ipc(),
                  r.params.sm.issue_width, r.params.sms);
    out += buf;
    std::snprintf(buf, sizeof buf,
                  "  units busy: INT %.1f%%  FP %.1f%%  SFU %.1f%%  LDST %.1f%%   lanes active "
                  "per warp instruction %.1f\n",
                  100 * r.units.busy[0], 100 * r.units.busy[1], 100 * r.units.busy[2],
                  100 * r.units.busy[3], per(t.thread_instructions, t.warp_instructions));
    out += buf;
    const std::uint64_t sm_cycles = t.cycles;
    std::snprintf(buf, sizeof buf,
                  "  stall cycles (of SM cycles): idle %.1f%%  fetch %.1f%%  barrier %.1f%%  "
                  "scoreboard %.1f%%  unit %.1f%%  gated %.1f%%\n",
                  pct(s.idle, sm_cycles), pct(s.fetch, sm_cycles), pct(s.barrier, sm_cycles),
                  pct(s.scoreboard, sm_cycles), pct(s.unit, sm_cycles), pct(s.gated, sm_cycles));
    out += buf;
    std::snprintf(buf, sizeof buf,
                  "  memory: %llu global accesses (%.2f transactions each), %llu shared (%.2f "
                  "bank passes each), %llu constant\n",
                  static_cast<unsigned long long>(t.global_accesses),
                  per(t.global_transactions, t.global_accesses),
                  static_cast<unsigned long long>(t.shared_accesses),
                  per(t.shared_bank_passes, t.shared_accesses),
                  static_cast<unsigned long long>(t.const_accesses));
    out += buf;
    const auto& m = r.stats.memory;
    if (!m.sms.empty()) {
        warpkit::gpu::cache_controller_stats l1;
        for (const auto& sm : m.sms)
            warpkit::accumulate(l1, sm.l1d);
        warpkit::gpu::cache_controller_stats l2;
        for (const auto& sl : m.slices)
            warpkit::accumulate(l2, sl.cache);
        warpkit::mem::dram_stats dram;
        for (const auto& c : m.channels)
            warpkit::accumulate(dram, c);
        const auto reads = [](const warpkit::mem::cache_stats& c) {
            return c.read_hits + c.read_misses + c.read_hits_reserved;
        };
        std::snprintf(buf, sizeof buf,
                      "  hierarchy: L1 read hits %.1f%% of %llu, L2 read hits %.1f%% of %llu, "
                      "DRAM %llu reads %llu writes (row-buffer hits %.1f%%), network latency "
                      "%.1f / %.1f cycles (requests / replies)\n",
                      pct(l1.cache.read_hits, reads(l1.cache)),
                      static_cast<unsigned long long>(reads(l1.cache)),
                      pct(l2.cache.read_hits, reads(l2.cache)),
                      static_cast<unsigned long long>(reads(l2.cache)),
                      static_cast<unsigned long long>(dram.read_requests),
                      static_cast<unsigned long long>(dram.write_requests),
                      100 * warpkit::mem::row_buffer_hit_rate(dram),
                      warpkit::gpu::mean_packet_latency(m.noc.request),
                      warpkit::gpu::mean_packet_latency(m.noc.reply));
        out += buf;
    }
    return out;
}

/// The run as JSON: params, stats, unit utilisation.
inline nlohmann::json to_json(const std::string& kernel, const preset_run& r) {
    nlohmann::json j;
    j["kernel"] = kernel;
    j["params"] = warpkit::params_to_json(r.params);
    j["stats"] = warpkit::stats_to_json(r.stats);
    // Instructions per core cycle, named by what they count (one schema for every tool).
    j["ipc_warp"] = r.stats.ipc();
    j["ipc_thread"] = r.stats.cycles == 0 ? 0.0
                                          : static_cast<double>(r.stats.total.thread_instructions) /
                                                static_cast<double>(r.stats.cycles);
    nlohmann::json u;
    for (std::size_t i = 0; i < 4; ++i)
        u[std::string(warpkit::isa::short_name(static_cast<warpkit::isa::unit_class>(i)))] =
            r.units.busy[i];
    j["unit_busy"] = u;
    return j;
}

} // namespace example
