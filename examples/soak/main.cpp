// warpkit-soak: many kernels back to back on each GPU preset until a budget of simulated
// cycles is spent. Every run's conservation identities (gpu/invariants.hpp: blocks, memory
// requests and replies, NoC packets and flits, MSHR and PRT entries, instructions through the
// execution units) and its energy account's identities are checked; the first broken one
// stops the soak. Resident memory is reported at the start and the end, and per preset after
// the first tenth of its cycles (warm) and after its last run, so growth over a long run shows.
// A progress line on stderr (cycles done, ETA) shows on a terminal; --quiet hides it,
// --progress shows it on a file or pipe too.
//
//   warpkit-soak [--cycles N] [--preset NAME]... [--kernels DIR] [--config F.json]
//                [--set key=value]... [--max-growth-mb MB] [--quiet] [--progress]
//   warpkit-soak --list-presets | [--preset NAME] [--config F] [--set k=v]... --dump-params
#include "../common/command_line.hpp"
#include "../common/gpu_runner.hpp"
#include "../common/kernel_dir.hpp"
#include "../common/params_cli.hpp"
#include "../common/tool_main.hpp"
#include "../power/gpu_activity.hpp"

#include <warpkit/gpu/invariants.hpp>
#include <warpkit/host/memory_cap.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/report.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace wk = warpkit;

// A /proc/self/status value in kB (VmRSS, VmHWM); 0 where there is no /proc.
std::uint64_t status_kb(const std::string& key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, key.size() + 1, key + ":") == 0)
            return std::stoull(line.substr(key.size() + 1));
    return 0;
}

struct memory_use {
    double rss_mb = 0;
    double peak_mb = 0;
};

memory_use memory_now() {
    return {static_cast<double>(status_kb("VmRSS")) / 1024.0,
            static_cast<double>(status_kb("VmHWM")) / 1024.0};
}

struct kernel_file {
    std::string name;
    wk::isa::program program;
};

struct totals {
    std::uint64_t runs = 0;
    std::uint64_t cycles = 0;
    std::uint64_t warp_instructions = 0;
    std::uint64_t identities = 0;
    memory_use warm{}; ///< after the first tenth of the cycles
    memory_use end{};  ///< after the last run, the GPU still alive
};

// Where a preset's soak stands in the whole soak, for the progress line.
struct soak_position {
    example::progress_line& line;
    std::uint64_t cycles_before = 0; ///< spent on the presets before this one
    std::uint64_t budget = 0;        ///< the cycles of every preset
};

// Runs the kernels in turn on preset P until `budget` simulated cycles are spent, device
// memory capped at `memory_cap` bytes.
template <class P>
totals soak_preset(wk::gpu::gpu_params params, const std::vector<kernel_file>& files,
                   const std::vector<std::string>& overrides, std::uint64_t budget,
                   std::uint64_t memory_cap, const soak_position& at) {
    wk::apply_overrides(params, overrides);
    const bool counted = params.memory.model == wk::gpu::memory_model::hierarchy;
    const std::uint64_t sample = std::max<std::uint64_t>(1, params.sample_cycles / 200);
    params.sample_cycles = sample;
    std::vector<wk::func::isa_kernel> kernels;
    kernels.reserve(files.size());
    for (const auto& f : files)
        kernels.emplace_back(f.program, static_cast<std::uint32_t>(P::warp_size));
    wk::gpu::gpu<P> g(params);
    const example::mapping_params mapping;
    const wk::power::model model;
    wk::func::global_memory mem; // device memory lives on from kernel to kernel
    wk::host::limit_memory(mem, memory_cap);
    totals t;
    bool warm = false;
    for (std::size_t i = 0; t.cycles < budget; i = (i + 1) % kernels.size()) {
        const auto& k = kernels[i];
        wk::func::load_data(k, mem);
        // The power model's activity, sampled as warpkit-power does.
        example::activity_sampler sampler(params.sms, mapping, counted);
        wk::gpu::invariant_report check;
        const auto rs = g.run(
            k, mem, [&](const auto& sm) { check.merge(wk::gpu::check_sm(sm)); },
            [&](std::uint64_t cycles, auto sms, bool) {
                sampler.add_sms(cycles, sms);
                const std::uint64_t spent = t.cycles + cycles;
                at.line.update({"cycle", spent, budget, "cycles"},
                               "run " + std::to_string(t.runs + 1) + " (" + files[i].name + ")",
                               static_cast<double>(at.cycles_before + spent) /
                                   static_cast<double>(at.budget));
            });
        sampler.finish(rs.cycles, rs.memory);
        const auto& intervals = sampler.intervals();
        wk::power::energy_account energy;
        wk::power::power_breakdown b;
        for (const auto& a : intervals) {
            model.evaluate(a, b, model.nominal());
            energy.add(b);
        }
        check.merge(wk::gpu::check_run(rs, {k.blocks(), params.sms}));
        check.merge(wk::gpu::check_energy(energy));
        check.equal("energy.cycles == run cycles", energy.cycles(), rs.cycles);
        wk::gpu::require(check, params.name + " run " + std::to_string(t.runs) + " (" +
                                    files[i].name + ")");
        ++t.runs;
        t.cycles += rs.cycles;
        t.warp_instructions += rs.total.warp_instructions;
        t.identities += check.checked();
        if (!warm && t.cycles >= budget / 10) {
            t.warm = memory_now();
            warm = true;
        }
    }
    t.end = memory_now();
    return t;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-soak: kernels back to back on every preset, invariants checked after "
                 "each run, memory use reported"};
    std::uint64_t budget = 100'000'000;
    std::vector<std::string> presets;
    std::string dir; // empty: the bundled examples/kernels
    example::preset_options params;
    double max_growth_mb = 0;
    example::progress_options progress_flags;
    app.add_option("--cycles", budget, "simulated core cycles in total, shared by the presets")
        ->check(CLI::PositiveNumber);
    app.add_option("--preset", presets, "preset to soak (repeatable; default: every preset)");
    app.add_option("--kernels", dir,
                   "directory of kernel assembly files (*.s; default: the bundled "
                   "examples/kernels)");
    params.add_to(app, false);
    app.add_option("--max-growth-mb", max_growth_mb,
                   "fail when a preset's resident memory grows by more than this from its warm "
                   "point to its end (0: report only)");
    example::add_progress_flags(app, progress_flags);
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;

    try {
        if (!presets.empty()) params.preset = presets.front(); // the one --dump-params prints
        if (params.print_requested(std::cout)) return 0;
        const std::vector<std::string> overrides = params.settings();
        if (presets.empty())
            for (const auto n : wk::gpu::preset_names)
                presets.emplace_back(n);
        std::vector<kernel_file> files;
        for (const auto& p : example::assembly_files(dir))
            files.push_back({std::filesystem::path(p).stem().string(), example::load_program(p)});

        const auto t0 = std::chrono::steady_clock::now();
        const memory_use start = memory_now();
        std::printf("warpkit-soak: %llu simulated cycles over %zu presets, %zu kernels in turn\n",
                    static_cast<unsigned long long>(budget), presets.size(), files.size());
        std::printf("memory at start: rss %.1f MB, peak %.1f MB\n", start.rss_mb, start.peak_mb);
        std::printf("%-18s %7s %12s %14s %11s %8s %9s %9s %9s\n", "preset", "runs", "cycles",
                    "warp-insts", "identities", "wall s", "cycles/s", "rss warm", "rss end");
        std::fflush(stdout);

        const std::uint64_t per_preset = (budget + presets.size() - 1) / presets.size();
        totals all;
        example::progress_line progress("warpkit-soak", progress_flags);
        double growth = 0; // largest warm-to-end growth of a preset's resident memory (MB)
        for (const auto& name : presets) {
            const auto tp = std::chrono::steady_clock::now();
            progress.stage(name);
            const soak_position at{progress, all.cycles, per_preset * presets.size()};
            const totals t = wk::gpu::visit_preset(name, [&](auto tag) {
                return soak_preset<typename decltype(tag)::type>(
                    decltype(tag)::params(), files, overrides, per_preset, params.memory_cap(), at);
            });
            progress.finish();
            const double s = seconds_since(tp);
            std::printf(
                "%-18s %7llu %12llu %14llu %11llu %8.1f %9.0f %6.1f MB %6.1f MB\n", name.c_str(),
                static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(t.cycles),
                static_cast<unsigned long long>(t.warp_instructions),
                static_cast<unsigned long long>(t.identities), s,
                s > 0 ? static_cast<double>(t.cycles) / s : 0.0, t.warm.rss_mb, t.end.rss_mb);
            std::fflush(stdout);
            growth = std::max(growth, t.end.rss_mb - t.warm.rss_mb);
            all.runs += t.runs;
            all.cycles += t.cycles;
            all.warp_instructions += t.warp_instructions;
            all.identities += t.identities;
        }
        const double s = seconds_since(t0);
        const memory_use end = memory_now();
        std::printf("%-18s %7llu %12llu %14llu %11llu %8.1f %9.0f\n", "total",
                    static_cast<unsigned long long>(all.runs),
                    static_cast<unsigned long long>(all.cycles),
                    static_cast<unsigned long long>(all.warp_instructions),
                    static_cast<unsigned long long>(all.identities), s,
                    s > 0 ? static_cast<double>(all.cycles) / s : 0.0);
        std::printf("memory at end: rss %.1f MB, peak %.1f MB; largest growth of a preset's rss "
                    "from warm to end %.1f MB\n",
                    end.rss_mb, end.peak_mb, growth);
        std::printf("invariants: %llu identities checked over %llu runs, none broken\n",
                    static_cast<unsigned long long>(all.identities),
                    static_cast<unsigned long long>(all.runs));
        if (max_growth_mb > 0 && growth > max_growth_mb) {
            std::fprintf(stderr,
                         "warpkit-soak: a preset's resident memory grew by %.1f MB after warm-up "
                         "(limit %.1f MB)\n",
                         growth, max_growth_mb);
            return 1;
        }
        return 0;
    } catch (const wk::sim_error& e) {
        // A broken identity or a run that could not go on: the soak failed (exit code 1).
        // Bad input (an unknown preset, an unreadable kernel) reaches guarded_main: exit 2.
        std::cerr << "warpkit-soak: " << e.what() << '\n';
        return 1;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-soak", [&] { return tool_main(argc, argv); });
}
