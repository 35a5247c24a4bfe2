// warpkit-power: the GPUWattch-style power model from the command line.
//   refine        LSE scaling factors from microbenchmark activity and measured power
//   fit-constant  P = k f + P_const from power measured at several frequencies
//   report        run kernels on a GPU preset, print the per-component power breakdown,
//                 optionally write the power trace, the RLC-filtered trace, JSON and CSV
//   dvfs          no DVFS vs fine-grained, coarse-grained and cluster-level DVFS, optionally
//                 written as JSON and CSV (a row per kernel)
// report and dvfs take --dump-params (the GPU preset's, the power model's and the counter
// mapping's params as JSON, nothing run) and --list-presets; their --json records follow
// examples/common/output.hpp's schema.
// report and dvfs show a progress line on stderr (the kernel, its blocks done, ETA) when it is
// a terminal; --quiet hides it, --progress shows it on a file or pipe too.
#include "commands.hpp"
#include "gpu_activity.hpp"

#include "../common/command_line.hpp"
#include "../common/gpu_runner.hpp"
#include "../common/kernel_dir.hpp"
#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/host/memory_cap.hpp>
#include <warpkit/power/calibration_csv.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/lane_gating.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/report.hpp>
#include <warpkit/power/rlc_filter.hpp>
#include <warpkit/power/trace.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace wp = warpkit::power;

// The GTX480 slices of paper 001, Fig. 12 (dynamic power), where the paper states them.
constexpr std::array<double, wp::figure12_group_count> paper_fig12 = {20.1, 13.0, 11.4, -1, -1,
                                                                      -1,   4.8,  17.8, -1, -1};

struct model_options {
    std::vector<std::string> power_set; // model params overrides
    std::vector<std::string> map_set;   // mapping params overrides
    std::vector<std::string> gpu_set;   // preset params settings (--config, ..., --set)
    std::uint64_t memory_cap = 0;       // --max-device-mb, in bytes
    bool lane_gating = false;
    std::uint64_t sample = 500;
    example::progress_options progress; // --quiet, --progress
};

wp::model_params make_model_params(const model_options& o) {
    auto p = warpkit::make_params<wp::model_params>(nullptr, o.power_set);
    if (o.lane_gating) p.lane_gating.enabled = true;
    return p;
}

wp::model make_model(const model_options& o) {
    return wp::model(make_model_params(o));
}

example::mapping_params make_mapping(const model_options& o) {
    return warpkit::make_params<example::mapping_params>(nullptr, o.map_set);
}

/// What --dump-params prints: the preset's params with --set, the power model's with
/// --power-set and --lane-gating, the counter mapping's with --map-set.
nlohmann::json model_params_json(const std::string& preset, const model_options& o) {
    return {{"gpu", warpkit::params_to_json(example::preset_params(preset, o.gpu_set))},
            {"power", warpkit::params_to_json(make_model_params(o))},
            {"mapping", warpkit::params_to_json(make_mapping(o))}};
}

/// The "params" of a report or dvfs JSON record: model_params_json's three blocks, the preset,
/// the sampling interval and the kernel files.
nlohmann::json run_params_json(const std::string& preset, const model_options& o,
                               const std::vector<std::string>& files) {
    auto j = model_params_json(preset, o);
    j["preset"] = preset;
    j["sample_cycles"] = o.sample;
    j["kernels"] = files;
    return j;
}

std::vector<std::string> kernel_files(const std::vector<std::string>& kernels,
                                      const std::string& dir) {
    return kernels.empty() ? example::assembly_files(dir) : kernels;
}

std::string stem(const std::string& f) {
    return std::filesystem::path(f).stem().string();
}

// Which of a command's kernels runs, for the progress line.
struct kernel_slot {
    std::size_t index = 0;
    std::size_t count = 1;
};

// `on_disk`: the intervals go to a temporary file (sampled_run::on_disk), not memory.
example::sampled_run run_kernel(const std::string& preset, const std::string& file,
                                const model_options& o, example::progress_line& progress,
                                kernel_slot slot, bool on_disk = false) {
    warpkit::func::isa_kernel k(example::load_program(file));
    warpkit::func::global_memory mem;
    warpkit::host::limit_memory(mem, o.memory_cap);
    warpkit::func::load_data(k, mem);
    progress.stage(stem(file) + " on " + preset + " (kernel " + std::to_string(slot.index + 1) +
                   "/" + std::to_string(slot.count) + ")");
    const auto show = [&](std::uint64_t cycles, std::uint64_t blocks) {
        const double share = static_cast<double>(blocks) / static_cast<double>(k.blocks());
        example::show_blocks(progress, cycles, blocks, k.blocks(),
                             (static_cast<double>(slot.index) + share) /
                                 static_cast<double>(slot.count));
    };
    auto r = example::run_sampled(preset, k, mem, o.gpu_set, o.sample, make_mapping(o), on_disk,
                                  progress.enabled() ? example::run_progress(show) : nullptr);
    progress.finish();
    return r;
}

void print_breakdown(const std::string& kernel, const example::sampled_run& r,
                     const wp::energy_account& e) {
    const double t = e.seconds();
    std::printf("%s on %s: %llu cycles (%.2f us at %u MHz), %llu warp instructions, %zu SMs, "
                "%zu intervals of %llu cycles\n",
                kernel.c_str(), r.preset.c_str(), static_cast<unsigned long long>(r.cycles),
                t * 1e6, r.params.core_mhz, static_cast<unsigned long long>(r.warp_instructions),
                r.total.sms.size(), r.on_disk->interval_count(),
                static_cast<unsigned long long>(r.on_disk->first_interval_cycles()));
    const double dyn = e.dynamic_total_j();
    std::printf("  %-20s %10s %7s %10s\n", "component", "dynamic W", "share", "leakage W");
    const auto line = [&](const std::string& n, double dj, double lj) {
        const double share = dyn > 0 ? dj / dyn : 0.0;
        std::printf("  %-20s %10.3f %6.1f%% %10.3f  %s\n", n.c_str(), t > 0 ? dj / t : 0.0,
                    100 * share, t > 0 ? lj / t : 0.0,
                    std::string(static_cast<std::size_t>(share * 60 + 0.5), '#').c_str());
    };
    for (std::size_t i = 0; i < wp::component_count; ++i) {
        const auto c = wp::component_at(i);
        line(std::string(wp::name(c)), e.dynamic_j(c), e.leakage_j(c));
    }
    line("idle_sm", e.idle_sm_j(), 0);
    if (e.gating_overhead_j() > 0) line("lane_gating_overhead", e.gating_overhead_j(), 0);
    std::printf("  dynamic %.2f W + leakage %.2f W = %.2f W average, %.4g mJ\n",
                t > 0 ? dyn / t : 0.0, t > 0 ? e.leakage_total_j() / t : 0.0, e.average_w(),
                e.total_j() * 1e3);
}

// Fig. 12 group shares of dynamic power, with idle SMs and without.
struct group_shares {
    std::array<double, wp::figure12_group_count> with_idle{};
    std::array<double, wp::figure12_group_count> active{};
};

group_shares shares_of(const wp::energy_account& e) {
    group_shares g;
    g.with_idle = e.figure12_shares();
    auto j = e.figure12_j();
    j[static_cast<std::size_t>(wp::figure12_group::idle_sm)] = 0;
    double sum = 0;
    for (double v : j)
        sum += v;
    for (std::size_t i = 0; i < j.size(); ++i)
        g.active[i] = sum > 0 ? j[i] / sum : 0.0;
    return g;
}

// Writes the RLC trace's row for trace row `row`: its start, its total power and the total
// after `filter` (which starts from rest at the first row's power).
void write_filtered(std::ostream& os, wp::rlc_filter& filter, const wp::trace_row& row,
                    bool first) {
    const double raw = row.total_w();
    if (first) filter.reset(raw);
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.6f,%.6f,%.6f\n", row.start_seconds * 1e6, raw,
                  filter.step(raw));
    os << buf;
}

int cmd_fit_constant(const std::string& file) {
    const auto pts = wp::read_frequency_points(warpkit::read_file(file), file);
    const auto fit = wp::fit_constant_power(pts.first, pts.second);
    std::printf("k %.10g\nP_const %.10g\n", fit.k, fit.p_const);
    std::fprintf(stderr, "r^2 %.6f over %zu points\n", fit.r_squared, pts.first.size());
    return 0;
}

int cmd_report(const std::string& preset, const std::vector<std::string>& kernels,
               const std::string& dir, const model_options& o, const std::string& trace_out,
               const std::string& rlc_out, const example::output_files& outputs,
               nlohmann::json out) {
    const auto files = kernel_files(kernels, dir);
    if ((!trace_out.empty() || !rlc_out.empty()) && files.size() != 1)
        throw warpkit::error("--trace and --rlc-trace need exactly one --kernel");
    const wp::model m = make_model(o);
    out["params"] = run_params_json(preset, o, files);
    out["preset"] = preset;
    out["kernels"] = nlohmann::json::array();
    std::string csv;
    std::array<double, wp::figure12_group_count> avg_idle{};
    std::array<double, wp::figure12_group_count> avg_active{};
    std::vector<std::pair<std::string, group_shares>> per_kernel;
    example::progress_line progress("warpkit-power", o.progress);
    for (std::size_t index = 0; index < files.size(); ++index) {
        const std::string& f = files[index];
        // The intervals wait on disk while the kernel runs and the trace rows go straight to
        // their files: memory stays flat however long the kernel runs.
        const auto r = run_kernel(preset, f, o, progress, {index, files.size()}, true);
        wp::energy_account e;
        wp::power_trace trace(o.sample);
        std::ofstream trace_file;
        std::ostream nowhere(nullptr); // without --trace the rows are kept nowhere
        if (!trace_out.empty()) trace_file = example::open_output_file(trace_out);
        trace.stream_to(trace_out.empty() ? nowhere : trace_file);
        std::ofstream rlc_file;
        std::optional<wp::rlc_filter> filter;
        if (!rlc_out.empty()) {
            rlc_file = example::open_output_file(rlc_out);
            rlc_file << "time_us,total,filtered\n";
            filter.emplace(wp::rlc_params{},
                           static_cast<double>(o.sample) / (m.params().nominal_mhz * 1e6));
        }
        wp::power_breakdown b;
        std::size_t rows = 0;
        r.on_disk->for_each_interval([&](const wp::activity& a) {
            m.evaluate(a, b, m.nominal());
            e.add(b);
            trace.add(b, static_cast<std::uint32_t>(a.active_sms()));
            if (filter) write_filtered(rlc_file, *filter, trace.rows().back(), rows++ == 0);
        });
        const std::string name = stem(f);
        print_breakdown(name, r, e);
        auto ungated = m.params();
        ungated.lane_gating.enabled = false;
        const auto lg = wp::compare_lane_gating(r.total, ungated);
        std::printf("  lane clock gating (Section 5.2): %.1f%% of processor dynamic power saved "
                    "(%.3f W, after %.2f W of gating logic)\n\n",
                    100 * lg.saving(), lg.saved_w(), lg.overhead_w);
        const auto g = shares_of(e);
        per_kernel.emplace_back(name, g);
        for (std::size_t i = 0; i < g.active.size(); ++i) {
            avg_idle[i] += g.with_idle[i] / static_cast<double>(files.size());
            avg_active[i] += g.active[i] / static_cast<double>(files.size());
        }
        auto j = wp::to_json(e, name);
        j["warp_instructions"] = r.warp_instructions;
        out["kernels"].push_back(j);
        const std::string c = wp::to_csv(e, name);
        csv += csv.empty() ? c : c.substr(c.find('\n') + 1);
    }

    std::printf("Fig. 12 groups, share of dynamic power (with idle SMs / without):\n");
    std::printf("  %-16s", "group");
    for (const auto& [n, g] : per_kernel)
        std::printf(" %13s", n.c_str());
    if (files.size() > 1) std::printf(" %13s", "average");
    std::printf(" %8s\n", "paper");
    nlohmann::json avg = nlohmann::json::object();
    for (std::size_t i = 0; i < wp::figure12_group_count; ++i) {
        const std::string gname(wp::name(static_cast<wp::figure12_group>(i)));
        std::printf("  %-16s", gname.c_str());
        for (const auto& [n, g] : per_kernel)
            std::printf("   %5.1f/%5.1f", 100 * g.with_idle[i], 100 * g.active[i]);
        if (files.size() > 1) std::printf("   %5.1f/%5.1f", 100 * avg_idle[i], 100 * avg_active[i]);
        if (paper_fig12[i] >= 0)
            std::printf(" %8.1f\n", paper_fig12[i]);
        else
            std::printf(" %8s\n", "-");
        avg[gname] = {{"share", avg_idle[i]}, {"share_without_idle", avg_active[i]}};
    }
    out["figure12_average"] = avg;
    if (!outputs.json.empty()) example::write_json_file(outputs.json, out);
    if (!outputs.csv.empty()) example::write_text_file(outputs.csv, csv);
    return 0;
}

// The dvfs table: a row per kernel, its figures as shares (0.25 is 25%).
example::csv_table dvfs_table() {
    return example::csv_table({"kernel", "cycles", "stall_share", "baseline_energy_j",
                               "fine_energy_saving_share", "fine_slowdown_share",
                               "coarse_energy_saving_share", "coarse_slowdown_share",
                               "cluster_energy_saving_share", "cluster_slowdown_share"});
}

int cmd_dvfs(const std::string& preset, const std::vector<std::string>& kernels,
             const std::string& dir, const model_options& o, std::size_t cluster,
             const example::output_files& outputs, nlohmann::json out) {
    const auto files = kernel_files(kernels, dir);
    const wp::model m = make_model(o);
    const auto fine = wp::dvfs_params::on_chip();
    const auto coarse = wp::dvfs_params::off_chip();
    out["params"] = run_params_json(preset, o, files);
    out["params"]["cluster_sms"] = cluster;
    out["params"]["fine_dvfs"] = warpkit::params_to_json(fine);
    out["params"]["coarse_dvfs"] = warpkit::params_to_json(coarse);
    out["kernels"] = nlohmann::json::array();
    auto table = dvfs_table();
    std::printf("DVFS on %s: 7 P-states 700..100 MHz, 1.0..0.55 V; stall share thresholds "
                "0.90 down / 0.80 up; fine: 500-cycle epochs and transitions (on-chip "
                "regulator); coarse: 10,000 (off-chip); cluster: fine, %zu SMs per domain\n",
                preset.c_str(), cluster);
    std::printf("%-10s %8s %9s %11s | %7s %7s | %7s %7s | %7s %7s\n", "kernel", "cycles", "stall%",
                "energy uJ", "fine E", "slow", "coarse", "slow", "cluster", "slow");
    double sum_fine = 0, sum_coarse = 0, sum_cluster = 0;
    example::progress_line progress("warpkit-power", o.progress);
    for (std::size_t index = 0; index < files.size(); ++index) {
        const std::string& f = files[index];
        // The intervals wait on disk and only the two DVFS traces stay in memory.
        const auto r = run_kernel(preset, f, o, progress, {index, files.size()}, true);
        wp::dvfs_trace_builder processor(m, 0);
        wp::dvfs_trace_builder clusters(m, cluster);
        r.on_disk->for_each_interval([&](const wp::activity& a) {
            processor.add(a);
            clusters.add(a);
        });
        const auto& proc = processor.trace();
        const auto& clus = clusters.trace();
        const auto a = wp::run_dvfs(proc, fine);
        const auto b = wp::run_dvfs(proc, coarse);
        const auto c = wp::run_dvfs(clus, fine);
        std::uint64_t stall = 0;
        std::uint64_t active = 0;
        for (const auto& s : r.total.sms) {
            stall += s.memory_stall_cycles;
            active += s.active_cycles;
        }
        const double stall_share =
            active > 0 ? static_cast<double>(stall) / static_cast<double>(active) : 0.0;
        std::printf("%-10s %8llu %8.1f%% %11.3f | %6.1f%% %6.1f%% | %6.1f%% %6.1f%% | %6.1f%% "
                    "%6.1f%%\n",
                    stem(f).c_str(), static_cast<unsigned long long>(r.cycles), 100.0 * stall_share,
                    a.baseline_energy_j * 1e6, 100 * a.energy_saving(), 100 * a.slowdown(),
                    100 * b.energy_saving(), 100 * b.slowdown(), 100 * c.energy_saving(),
                    100 * c.slowdown());
        table.row().add(stem(f)).add(r.cycles).add(stall_share).add(a.baseline_energy_j);
        table.add(a.energy_saving()).add(a.slowdown()).add(b.energy_saving()).add(b.slowdown());
        table.add(c.energy_saving()).add(c.slowdown());
        out["kernels"].push_back({{"kernel", stem(f)},
                                  {"cycles", r.cycles},
                                  {"stall_share", stall_share},
                                  {"baseline_energy_j", a.baseline_energy_j},
                                  {"fine_energy_saving_share", a.energy_saving()},
                                  {"fine_slowdown_share", a.slowdown()},
                                  {"coarse_energy_saving_share", b.energy_saving()},
                                  {"coarse_slowdown_share", b.slowdown()},
                                  {"cluster_energy_saving_share", c.energy_saving()},
                                  {"cluster_slowdown_share", c.slowdown()}});
        sum_fine += a.energy_saving();
        sum_coarse += b.energy_saving();
        sum_cluster += c.energy_saving();
    }
    const auto n = static_cast<double>(files.size());
    std::printf("%-10s %8s %9s %11s | %6.1f%% %7s | %6.1f%% %7s | %6.1f%%\n", "mean", "", "", "",
                100 * sum_fine / n, "", 100 * sum_coarse / n, "", 100 * sum_cluster / n);
    out["mean_fine_energy_saving_share"] = sum_fine / n;
    out["mean_coarse_energy_saving_share"] = sum_coarse / n;
    out["mean_cluster_energy_saving_share"] = sum_cluster / n;
    if (!outputs.json.empty()) example::write_json_file(outputs.json, out);
    if (!outputs.csv.empty()) table.write(outputs.csv);
    return 0;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-power: GPUWattch-style power model, calibration, DVFS"};
    app.require_subcommand(1);

    std::string activity_file, measured_file, points_file;
    auto* refine = app.add_subcommand(
        "refine", "least-squares scaling factors: A x = P (prints 'name value' per column, then "
                  "'mean_abs_rel_error value')");
    refine
        ->add_option("--activity", activity_file,
                     "CSV: header of component names, one row of access rates per benchmark")
        ->required();
    refine->add_option("--measured", measured_file, "CSV: header 'power', one value per benchmark")
        ->required();

    auto* fit = app.add_subcommand("fit-constant",
                                   "P = k f + P_const (prints 'k value' and 'P_const value')");
    fit->add_option("--points", points_file, "CSV with the header 'frequency,power'")->required();

    example::preset_options presets;
    std::vector<std::string> kernels;
    std::string dir; // empty: the bundled examples/kernels
    model_options o;
    std::string trace_out, rlc_out;
    example::output_files outputs;
    std::size_t cluster = 5;
    auto add_run_options = [&](CLI::App* c) {
        presets.add_to(*c); // --preset, --config, --gpgpusim-config, --set, --max-device-mb, ...
        c->get_option("--dump-params")
            ->description("print the preset's (with --config, --gpgpusim-config and --set), the "
                          "power model's (with --power-set and --lane-gating) and the counter "
                          "mapping's (with --map-set) parameters as JSON and exit");
        c->add_option("--kernel", kernels, "kernel assembly (.s) or image (.hex); repeatable");
        c->add_option("--kernels", dir,
                      "directory of *.s kernels used when no --kernel is given (default: the "
                      "bundled examples/kernels)");
        c->add_option("--power-set", o.power_set,
                      "override a power-model parameter: key=value, e.g. fp.peak_w=4");
        c->add_option("--map-set", o.map_set,
                      "override a counter-mapping rate: key=value, e.g. l1_hit_rate=0.5");
        c->add_flag("--lane-gating", o.lane_gating, "clock-gate idle SIMD lanes (Section 5.2)");
        c->add_option("--sample", o.sample, "sampling interval in core cycles")
            ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
        example::add_progress_flags(*c, o.progress);
    };
    auto* report = app.add_subcommand("report", "run kernels and print the power breakdown");
    add_run_options(report);
    report->add_option("--trace", trace_out, "write the power trace (one row per interval)");
    report->add_option("--rlc-trace", rlc_out,
                       "write total power before and after the RLC filter (Section 4.3.1)");
    report->add_option("--json", outputs.json, "write the params and the energy report as JSON");
    report->add_option("--csv", outputs.csv, "write the energy report as CSV");
    auto* dvfs = app.add_subcommand("dvfs", "no DVFS vs fine, coarse and cluster-level DVFS");
    add_run_options(dvfs);
    dvfs->add_option("--cluster", cluster, "SMs per voltage domain for cluster-level DVFS")
        ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
    dvfs->add_option("--json", outputs.json,
                     "write the params, a record per kernel and the means as JSON");
    dvfs->add_option("--csv", outputs.csv, "write a row per kernel as CSV");
    auto* mapping =
        app.add_subcommand("mapping", "print which GPU counter drives which power component");

    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        if (*mapping) {
            std::cout << example::mapping_table();
            return 0;
        }
        if (*refine) return example::run_refine(activity_file, measured_file);
        if (*fit) return cmd_fit_constant(points_file);
        if (presets.list_presets) {
            std::cout << example::preset_list();
            return 0;
        }
        const std::string& preset = presets.preset;
        o.gpu_set = presets.settings();
        o.memory_cap = presets.memory_cap();
        if (presets.dump_params) {
            std::cout << model_params_json(preset, o).dump(2) << '\n';
            return 0;
        }
        auto record = example::record_header("warpkit-power", argc, argv);
        if (*report)
            return cmd_report(preset, kernels, dir, o, trace_out, rlc_out, outputs,
                              std::move(record));
        if (*dvfs) return cmd_dvfs(preset, kernels, dir, o, cluster, outputs, std::move(record));
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-power: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-power", [&] { return tool_main(argc, argv); });
}
