// warpkit-fs: dynamic front-end sharing (paper 000) on the GTX480 preset. Runs the bundled
// kernels (examples/kernels/*.s; the BFS kernel relaunched until its frontier is empty, so
// its clusters regroup at every launch) and the CUDA kernels (examples/cuda/*.ptx with their
// launch files) with clusters of S = 1 (baseline), 2 and 4 SMs and prints per kernel: the
// front-end sharing time, performance against the baseline, front-end and total energy
// saved, and the cluster-network packets by type; then the averages next to the paper's.
//
//   warpkit-fs [--kernels DIR] [--cuda DIR] [--no-ptx] [--sizes 1,2,4] [--sms 16]
//              [--set key=value]... [--scoreboard-share X] [--csv FILE] [--json FILE]
//
// --csv and --json write one row per kernel and cluster size; the JSON record follows
// examples/common/output.hpp's schema (tool, command line, params, rows).
//
// The paper simulates 16 SMs (Table I) and so does the study by default: the preset's 15
// do not split into clusters of 2 or 4. Every kernel's output must be the same with and
// without sharing; a difference is reported and makes the exit status 1.
#include "../common/command_line.hpp"
#include "../common/gpu_runner.hpp"
#include "../common/kernel_dir.hpp"
#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/study_kernels.hpp"
#include "../common/tool_main.hpp"
#include "energy.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace wk = warpkit;
namespace rc = warpkit::reconfig;
using preset = wk::gpu::fermi_gtx480;

// One configuration's run of one kernel.
struct result {
    std::uint64_t cycles = 0;
    rc::front_end_sharing_stats sharing{};
    example::fs::run_energy energy{};
    wk::func::global_memory mem; // final device memory
};

using example::study_kernel;

// Runs a launchable kernel once on `p`, adding its cycles, cluster counters and energy.
template <class K>
void run_once(const K& k, wk::func::global_memory& mem, const wk::gpu::gpu_params& p,
              const example::fs::energy_params& ep, result& out) {
    wk::gpu::gpu<preset> g(p);
    std::vector<example::fs::sm_record> sms;
    const auto rs =
        g.run(k, mem, [&](const auto& sm) { sms.push_back(example::fs::record(sm, ep.mapping)); });
    out.cycles += rs.cycles;
    wk::accumulate(out.sharing, rs.sharing);
    const std::uint32_t members = p.cluster_size > 1 && p.sharing.enabled ? p.cluster_size : 1;
    out.energy += example::fs::energy(sms, rs.cycles, rs.sharing, p.sharing, members, ep);
}

result run_kernel(const study_kernel& sk, const wk::gpu::gpu_params& p,
                  const example::fs::energy_params& ep) {
    result r;
    r.mem = example::run_kernel(
        sk, static_cast<std::uint32_t>(preset::warp_size), "fermi_gtx480",
        [&](const auto& k, wk::func::global_memory& mem) { run_once(k, mem, p, ep, r); });
    return r;
}

double pct(double part, double whole) {
    return whole == 0 ? 0.0 : 100.0 * part / whole;
}

struct row {
    std::string kernel;
    std::uint32_t s = 1;
    result r;
    double perf = 100;   // % of the baseline's performance
    double share = 0;    // % of active cycles grouped
    double fe_saved = 0; // % of the baseline's front-end energy
    double saved = 0;    // % of the baseline's total energy
    bool same = true;    // output identical to the baseline's
};

// The --csv table: a row per kernel and cluster size, numbers as a stream prints them.
std::string csv_text(const std::vector<row>& rows) {
    std::ostringstream f;
    f << "kernel,cluster_size,cycles,perf_pct,sharing_pct,front_end_saved_pct,"
         "total_saved_pct,front_end_j,total_j,link_j,scoreboard_j,identical,"
      << wk::stats_csv_header(rc::front_end_sharing_stats{}) << '\n';
    for (const auto& rw : rows)
        f << rw.kernel << ',' << rw.s << ',' << rw.r.cycles << ',' << rw.perf << ',' << rw.share
          << ',' << rw.fe_saved << ',' << rw.saved << ',' << rw.r.energy.front_end << ','
          << rw.r.energy.total << ',' << rw.r.energy.link << ',' << rw.r.energy.scoreboard << ','
          << (rw.same ? 1 : 0) << ',' << wk::stats_csv_row(rw.r.sharing) << '\n';
    return f.str();
}

// The --json record's rows: the --csv table's figures, named with their units.
nlohmann::json rows_json(const std::vector<row>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& rw : rows)
        out.push_back({{"kernel", rw.kernel},
                       {"cluster_size", rw.s},
                       {"cycles", rw.r.cycles},
                       {"performance_pct", rw.perf},
                       {"sharing_pct", rw.share},
                       {"front_end_energy_saved_pct", rw.fe_saved},
                       {"total_energy_saved_pct", rw.saved},
                       {"front_end_energy_j", rw.r.energy.front_end},
                       {"total_energy_j", rw.r.energy.total},
                       {"link_energy_j", rw.r.energy.link},
                       {"scoreboard_energy_j", rw.r.energy.scoreboard},
                       {"identical_output", rw.same},
                       {"sharing", wk::stats_to_json(rw.r.sharing)}});
    return out;
}

// What the study ran with: the GTX480 parameters (S = 1), the sizes and the energy model.
struct study_setup {
    std::vector<std::uint32_t> sizes;
    std::uint32_t sms = 16;
    std::vector<std::string> overrides;
    example::fs::energy_params energy;
    example::output_files outputs;
    nlohmann::json record; // the JSON record's header
};

void write_outputs(const study_setup& setup, const std::vector<row>& rows) {
    if (!setup.outputs.csv.empty()) example::write_text_file(setup.outputs.csv, csv_text(rows));
    if (setup.outputs.json.empty()) return;
    auto gpu = preset::params();
    gpu.sms = setup.sms;
    wk::apply_overrides(gpu, setup.overrides);
    auto j = setup.record;
    j["params"] = {{"gpu", wk::params_to_json(gpu)},
                   {"cluster_sizes", setup.sizes},
                   {"sms", setup.sms},
                   {"scoreboard_share", setup.energy.scoreboard_share},
                   {"mapping", wk::params_to_json(setup.energy.mapping)},
                   {"power", wk::params_to_json(setup.energy.model)}};
    j["rows"] = rows_json(rows);
    j["identical_outputs"] =
        std::all_of(rows.begin(), rows.end(), [](const row& r) { return r.same; });
    example::write_json_file(setup.outputs.json, j);
}

int run_study(const std::vector<study_kernel>& kernels, const study_setup& setup) {
    const auto& sizes = setup.sizes;
    const auto sms = setup.sms;
    const auto& overrides = setup.overrides;
    const auto& ep = setup.energy;
    std::vector<row> rows;
    bool all_same = true;
    std::printf("front-end sharing on %s with %u SMs (paper 000, Table I: 16 SMs); the "
                "scoreboard is %.2f of the scheduler's power, its ack bits scale it by S\n"
                "FE/E%%: front-end share of the run's energy; savings against S = 1\n\n",
                preset::params().name.c_str(), sms, ep.scoreboard_share);
    std::printf("%-16s %2s %9s %7s %7s %6s %8s %8s %9s %6s %7s %5s  %s\n", "kernel", "S", "cycles",
                "perf%", "share%", "FE/E%", "FEsave%", "totsave%", "InstPkt", "mask", "MemPkt",
                "Ctrl", "ungroups");
    for (const auto& sk : kernels) {
        result base;
        for (std::uint32_t s : sizes) {
            auto p = preset::params();
            p.sms = sms;
            wk::apply_overrides(p, overrides);
            p.cluster_size = s;
            wk::validate(p);
            row rw;
            rw.kernel = sk.label();
            rw.s = s;
            rw.r = run_kernel(sk, p, ep);
            if (s == sizes.front()) base = rw.r;
            rw.same = rw.r.mem == base.mem;
            all_same = all_same && rw.same;
            rw.perf = pct(static_cast<double>(base.cycles), static_cast<double>(rw.r.cycles));
            if (s > 1) {
                rw.share = 100.0 * rc::sharing_fraction(rw.r.sharing);
                rw.fe_saved = 100.0 - pct(rw.r.energy.front_end, base.energy.front_end);
                rw.saved = 100.0 - pct(rw.r.energy.total, base.energy.total);
            }
            const auto& h = rw.r.sharing;
            std::string why;
            for (std::size_t c = 0; c < rc::ungroup_cause_count; ++c)
                if (h.ungroup_causes[c] > 0)
                    why += (why.empty() ? "" : ",") +
                           std::string(wk::enum_names<rc::ungroup_cause>::names[c]) + "=" +
                           std::to_string(h.ungroup_causes[c]);
            std::printf("%-16s %2u %9llu %7.1f %7.1f %6.1f %8.1f %8.1f %9llu %6llu %7llu %5llu  "
                        "%llu%s%s%s\n",
                        rw.kernel.c_str(), s, static_cast<unsigned long long>(rw.r.cycles), rw.perf,
                        rw.share, pct(rw.r.energy.front_end, rw.r.energy.total), rw.fe_saved,
                        rw.saved, static_cast<unsigned long long>(h.inst_packets),
                        static_cast<unsigned long long>(h.mask_packets),
                        static_cast<unsigned long long>(h.mem_packets),
                        static_cast<unsigned long long>(h.ctrl_packets),
                        static_cast<unsigned long long>(h.ungroups), why.empty() ? "" : " (",
                        why.c_str(), why.empty() ? "" : ")");
            if (!rw.same)
                std::printf("  ** %s: output differs from the baseline with S = %u **\n",
                            rw.kernel.c_str(), s);
            rows.push_back(std::move(rw));
        }
    }
    std::printf("\naverage over %zu kernels (paper 000: 2-SM perf 98.0%%, FE saved 24.9%%, total "
                "saved 4.9%%; 4-SM perf 97.1%%, FE saved 33.7%%, total saved 6.8%%)\n",
                kernels.size());
    std::printf("%2s %7s %7s %8s %8s\n", "S", "perf%", "share%", "FEsave%", "totsave%");
    for (std::uint32_t s : sizes) {
        double perf = 0, share = 0, fe = 0, tot = 0;
        std::size_t n = 0;
        for (const auto& rw : rows)
            if (rw.s == s) {
                perf += rw.perf;
                share += rw.share;
                fe += rw.fe_saved;
                tot += rw.saved;
                ++n;
            }
        const double d = n == 0 ? 1.0 : static_cast<double>(n);
        std::printf("%2u %7.1f %7.1f %8.1f %8.1f\n", s, perf / d, share / d, fe / d, tot / d);
    }
    std::printf("outputs identical with and without sharing: %s\n", all_same ? "yes" : "NO");
    write_outputs(setup, rows);
    return all_same ? 0 : 1;
}

std::vector<std::uint32_t> parse_sizes(const std::string& text) {
    std::vector<std::uint32_t> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        const std::string item = text.substr(pos, comma - pos);
        std::uint32_t v = 0;
        try {
            std::size_t used = 0;
            const unsigned long n = std::stoul(item, &used);
            if (used != item.size() || n < 1 || n > 4) throw std::invalid_argument(item);
            v = static_cast<std::uint32_t>(n);
        } catch (const std::exception&) {
            throw wk::config_error("sizes", item, "cluster sizes 1..4, comma-separated");
        }
        out.push_back(v);
        pos = comma + 1;
    }
    if (out.front() != 1)
        throw wk::config_error("sizes", text, "a list starting with 1 (baseline)");
    return out;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-fs: dynamic front-end sharing (paper 000) on the GTX480 preset"};
    std::string isa_dir;  // empty: the bundled examples/kernels
    std::string cuda_dir; // empty: the bundled examples/cuda
    bool no_ptx = false;
    std::string sizes_text = "1,2,4";
    study_setup setup;
    auto& sms = setup.sms;
    auto& ep = setup.energy;
    app.add_option("--kernels", isa_dir,
                   "directory of warpkit-ISA kernels (*.s; default: the bundled examples/kernels)");
    app.add_option("--cuda", cuda_dir,
                   "directory of PTX kernels with *.launch.json files (default: the bundled "
                   "examples/cuda)");
    app.add_flag("--no-ptx", no_ptx, "run the warpkit-ISA kernels only");
    app.add_option("--sizes", sizes_text, "cluster sizes, the baseline 1 first")
        ->capture_default_str();
    app.add_option("--sms", sms, "SMs (a multiple of every cluster size)")->capture_default_str();
    std::string config_file;
    bool dump_params = false;
    app.add_option("--config", config_file,
                   "the GTX480's parameters from a JSON file (as --dump-params writes them; a "
                   "part of one is fine; --set wins over it)");
    app.add_option("--set", setup.overrides, "override a GTX480 parameter: key=value (repeatable)");
    app.add_flag("--dump-params", dump_params,
                 "print the GTX480's parameters with --config and --set applied (each cluster "
                 "size then sets cluster_size and sms) as JSON and exit");
    app.add_option("--scoreboard-share", ep.scoreboard_share,
                   "share of the scheduler component's power that is the scoreboard")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--csv", setup.outputs.csv, "write one row per kernel and cluster size");
    app.add_option("--json", setup.outputs.json,
                   "write the params and one record per kernel and cluster size as JSON");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        setup.overrides = example::config_then_overrides(config_file, setup.overrides);
        if (dump_params) {
            std::cout << wk::params_to_json(example::preset_params("fermi_gtx480", setup.overrides))
                             .dump(2)
                      << '\n';
            return 0;
        }
        setup.sizes = parse_sizes(sizes_text);
        setup.record = example::record_header("warpkit-fs", argc, argv);
        for (std::uint32_t s : setup.sizes)
            if (sms == 0 || sms % s != 0)
                throw wk::config_error("sms", std::to_string(sms),
                                       "a multiple of cluster size " + std::to_string(s));
        const auto kernels =
            example::find_kernels(example::folder_or_bundled(isa_dir, "examples/kernels"),
                                  example::folder_or_bundled(cuda_dir, "examples/cuda"), !no_ptx);
        return run_study(kernels, setup);
    } catch (const wk::error& e) {
        std::cerr << "warpkit-fs: " << e.what() << '\n';
        return 2;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-fs", [&] { return tool_main(argc, argv); });
}
