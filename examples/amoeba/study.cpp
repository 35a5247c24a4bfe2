// warpkit-amoeba study: AMOEBA's SM configurations (paper 002, Sec. 5.1) on the bundled
// kernels. Every kernel runs on the baseline scale-out GPU (amoeba_48: 48 SMs, 32-thread
// warps) and on the direct scale-up GPU (amoeba_48_fused: 24 fused SMs, 64-thread warps).
// Static fuse is AMOEBA's one-time choice per kernel: the predictor (Table 2 coefficients
// unless --coeffs) reads the metrics the baseline SM sampled over the kernel's first CTA and
// picks one of the two, whose run it then is. Per kernel: cycles, the IPC speedup of each
// configuration over the baseline (thread instructions per cycle), the prediction, L1 data
// miss rate, actual memory access rate (transactions over thread accesses of global and local
// loads and stores), and the NoC stall rate (cycles an L2 slice's reply waited for the
// network, over L2 cycles and slices). Every kernel's output must be identical on both GPUs.
// A PTX kernel with warp-level instructions (shfl, vote, match, redux, activemask) is written
// for 32-thread warps: it runs on the baseline only and static fuse keeps it there.
// Direct split and warp regrouping (Sec. 4.3) run where static fuse chose the fused GPU, with
// every fused SM free to split and re-fuse on its own (sm.split.mode); elsewhere they are the
// baseline run, as AMOEBA only splits fused SMs. Splitting needs an instruction source that
// can cut warps (warpkit-ISA kernels); a PTX kernel keeps its static-fuse run there.
#include "study.hpp"

#include "../common/gpu_runner.hpp"
#include "../common/kernel_dir.hpp"
#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/study_kernels.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/scalability_sampling.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/reconfig/coefficient_file.hpp>
#include <warpkit/reconfig/predictor.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace wk = warpkit;
namespace rc = warpkit::reconfig;

struct study_options {
    std::string isa_dir;  // empty: the bundled examples/kernels
    std::string cuda_dir; // empty: the bundled examples/cuda
    bool no_ptx = false;
    std::string coeffs = "table2";
    std::vector<std::string> overrides;
    std::string config_file; ///< --config: settings applied before --set's
    bool dump_params = false;
    std::string csv;
    std::string metrics_csv;
    std::string json;
    nlohmann::json record; // the --json record's header
};

// One configuration's runs of one kernel (all its launches), added up.
struct config_run {
    std::uint64_t cycles = 0;
    wk::gpu::sm_stats total{};
    std::uint64_t l1d_reads = 0;
    std::uint64_t l1d_misses = 0;
    std::uint64_t reply_stalls = 0;
    std::uint64_t slice_cycles = 0; // L2 cycles x slices
    std::optional<rc::scalability_metrics> first_cta;
    wk::func::global_memory mem;

    [[nodiscard]] double ipc() const {
        return cycles == 0
                   ? 0.0
                   : static_cast<double>(total.thread_instructions) / static_cast<double>(cycles);
    }
    [[nodiscard]] double l1d_miss() const { return ratio(l1d_misses, l1d_reads); }
    [[nodiscard]] double access_rate() const {
        return ratio(total.global_transactions, total.global_lane_accesses);
    }
    [[nodiscard]] double noc_stall() const { return ratio(reply_stalls, slice_cycles); }
    static double ratio(std::uint64_t a, std::uint64_t b) {
        return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
    }
};

template <class Preset>
config_run run_on(const example::study_kernel& sk, const std::vector<std::string>& overrides) {
    auto p = Preset::params();
    wk::apply_overrides(p, overrides);
    config_run r;
    r.mem = example::run_kernel(
        sk, static_cast<std::uint32_t>(Preset::warp_size), p.name,
        [&](const auto& k, wk::func::global_memory& mem) {
            using kernel_type = std::decay_t<decltype(k)>;
            wk::gpu::gpu<Preset> g(p);
            wk::gpu::first_cta_sampler sampler;
            const typename wk::gpu::gpu<Preset>::template block_hook_for<kernel_type> hook =
                [&](std::uint32_t b, const auto& sm, std::uint64_t c) { sampler(b, sm, c); };
            const auto rs = g.run(k, mem, {}, {}, hook);
            r.cycles += rs.cycles;
            wk::accumulate(r.total, rs.total);
            for (const auto& m : rs.memory.sms) {
                const auto& c = m.l1d.cache;
                r.l1d_reads += c.read_hits + c.read_misses + c.read_hits_reserved;
                r.l1d_misses += c.read_misses;
            }
            for (const auto& s : rs.memory.slices)
                r.reply_stalls += s.reply_stalls;
            r.slice_cycles += rs.memory.l2_cycles * rs.memory.slices.size();
            if (!r.first_cta) r.first_cta = sampler.metrics();
        });
    return r;
}

rc::scalability_predictor load_predictor(const std::string& which) {
    if (which == "table2") return rc::scalability_predictor::table2();
    return rc::scalability_predictor::from(rc::read_coefficients(wk::read_file(which), which));
}

// True when the PTX kernel uses instructions whose result depends on the warp's width.
bool warp_width_dependent(const example::study_kernel& sk) {
    if (sk.kind != "ptx") return false;
    const std::string text = wk::read_file(sk.file);
    for (const char* op : {"shfl.", "vote.", "match.", "redux.", "activemask"})
        if (text.find(op) != std::string::npos) return true;
    return false;
}

struct row {
    std::string kernel;
    config_run base, up, direct, regroup;
    bool fusible = true; // runs on 64-thread warps
    rc::prediction pred{};
    bool same = true;
    [[nodiscard]] bool fuse() const {
        return fusible && pred.decision == rc::scale_decision::scale_up;
    }
    [[nodiscard]] const config_run& fused_choice() const { return fuse() ? up : base; }
    [[nodiscard]] const config_run& scale_up() const { return fusible ? up : base; }
    [[nodiscard]] const config_run& split(bool regrouped) const {
        if (!fuse()) return fused_choice();
        return regrouped ? regroup : direct;
    }
};

double speedup(const config_run& c, const config_run& base) {
    return base.ipc() == 0 ? 0.0 : c.ipc() / base.ipc();
}

using base_preset = wk::gpu::amoeba_48;
using up_preset = wk::gpu::amoeba_48_fused;

void print_header(const study_options& o) {
    std::printf("AMOEBA configurations (paper 002, Fig. 12-17): baseline scale-out = %s (%u SMs), "
                "direct scale-up = %s (%u SMs of 64-thread warps), static fuse = the predictor's "
                "choice (%s) from the baseline's first CTA\n"
                "speedup: thread IPC over the baseline; L1D: read miss rate; access: memory "
                "transactions per thread access; stall: NoC reply stall rate\n\n",
                base_preset::params().name.c_str(), base_preset::params().sms,
                up_preset::params().name.c_str(), up_preset::params().sms, o.coeffs.c_str());
    std::printf("%-18s %9s %8s %8s %8s %8s %9s %6s %13s %13s %15s %4s\n", "kernel", "base cyc",
                "scale-up", "static", "direct", "regroup", "predicted", "P(up)", "L1D base/up",
                "access b/up", "stall base/up", "same");
}

// Every configuration of one kernel: the baseline, the scale-up GPU where the kernel runs on
// 64-thread warps, the prediction from the baseline's first CTA and, where it chose the fused
// GPU, the two split modes.
row run_configurations(const example::study_kernel& sk, const study_options& o,
                       const rc::scalability_predictor& predictor) {
    row r;
    r.kernel = sk.label();
    r.fusible = !warp_width_dependent(sk);
    r.base = run_on<base_preset>(sk, o.overrides);
    if (r.fusible) r.up = run_on<up_preset>(sk, o.overrides);
    if (!r.base.first_cta)
        throw wk::sim_error(r.kernel + ": the first CTA never completed on the baseline");
    r.pred = predictor.predict(*r.base.first_cta);
    if (r.fuse()) {
        auto with = o.overrides;
        with.emplace_back("sm.split.mode=direct");
        r.direct = run_on<up_preset>(sk, with);
        with.back() = "sm.split.mode=regroup";
        r.regroup = run_on<up_preset>(sk, with);
    }
    r.same = (!r.fusible || r.base.mem == r.up.mem) && r.split(false).mem == r.base.mem &&
             r.split(true).mem == r.base.mem;
    return r;
}

void print_row(const row& r) {
    const auto& up = r.scale_up();
    std::printf("%-18s %9llu %7.3fx %7.3fx %7.3fx %7.3fx %9s %6.3f %6.3f/%6.3f %6.3f/%6.3f "
                "%7.4f/%7.4f %4s%s\n",
                r.kernel.c_str(), static_cast<unsigned long long>(r.base.cycles),
                speedup(up, r.base), speedup(r.fused_choice(), r.base),
                speedup(r.split(false), r.base), speedup(r.split(true), r.base),
                r.pred.decision == rc::scale_decision::scale_up ? "scale_up" : "scale_out",
                r.pred.probability, r.base.l1d_miss(), up.l1d_miss(), r.base.access_rate(),
                up.access_rate(), r.base.noc_stall(), up.noc_stall(), r.same ? "yes" : "NO",
                r.fusible ? "" : "  (warp-width dependent: baseline only)");
    std::fflush(stdout);
}

// Geometric means of the speedups; how often the predictor picked the faster GPU.
void print_summary(const std::vector<row>& rows) {
    double log_up = 0;
    double log_static = 0;
    double log_direct = 0;
    double log_regroup = 0;
    std::uint64_t splits = 0;
    std::uint64_t cut = 0;
    std::uint64_t fast_moved = 0;
    for (const auto& r : rows) {
        log_direct += std::log(speedup(r.split(false), r.base));
        log_regroup += std::log(speedup(r.split(true), r.base));
        for (const auto* c : {&r.split(false).total.split, &r.split(true).total.split}) {
            splits += c->splits;
            cut += c->warps_cut;
            fast_moved += c->fast_warps_moved;
        }
    }
    std::size_t right = 0;
    for (const auto& r : rows) {
        log_up += std::log(speedup(r.scale_up(), r.base));
        log_static += std::log(speedup(r.fused_choice(), r.base));
        const bool up_faster = r.scale_up().ipc() > r.base.ipc();
        right += r.fuse() == up_faster ? 1 : 0;
    }
    const double n = static_cast<double>(rows.size());
    std::printf("\ngeometric mean speedup over %zu kernels: direct scale-up %.3fx, static fuse "
                "%.3fx, direct split %.3fx, warp regrouping %.3fx; the predictor picked the "
                "faster GPU for %zu of %zu; split runs: %llu splits, %llu warps cut, %llu fast "
                "warps moved\n"
                "(paper 002 Fig. 12, 12 benchmarks: AMOEBA +47%% IPC on average; static fuse "
                "close to direct scale-up where scale-up pays, about 10%% better where it "
                "does not; warp regrouping 16%% above direct split)\n",
                rows.size(), std::exp(log_up / n), std::exp(log_static / n),
                std::exp(log_direct / n), std::exp(log_regroup / n), right, rows.size(),
                static_cast<unsigned long long>(splits), static_cast<unsigned long long>(cut),
                static_cast<unsigned long long>(fast_moved));
}

// Calls `f(kernel, configuration name, its run, the baseline run)` for every kernel and
// configuration, in the table's order.
template <class F>
void for_each_configuration(const std::vector<row>& rows, F f) {
    for (const auto& r : rows) {
        f(r.kernel, "baseline", r.base, r.base);
        f(r.kernel, "scale_up", r.scale_up(), r.base);
        f(r.kernel, "static_fuse", r.fused_choice(), r.base);
        f(r.kernel, "direct_split", r.split(false), r.base);
        f(r.kernel, "warp_regrouping", r.split(true), r.base);
    }
}

// Per kernel and configuration: cycles, instructions, speedup and the memory figures.
void write_csv(const std::string& path, const std::vector<row>& rows) {
    std::ostringstream f;
    f << "kernel,config,cycles,thread_instructions,speedup,l1d_miss,access_rate,noc_stall\n";
    for_each_configuration(rows, [&](const std::string& kernel, const char* name,
                                     const config_run& c, const config_run& base) {
        f << kernel << ',' << name << ',' << c.cycles << ',' << c.total.thread_instructions << ','
          << speedup(c, base) << ',' << c.l1d_miss() << ',' << c.access_rate() << ','
          << c.noc_stall() << '\n';
    });
    example::write_text_file(path, f.str());
}

// The --json record: the params of both GPUs, then write_csv's rows with their units named.
void write_json(const study_options& o, const std::vector<row>& rows) {
    auto j = o.record;
    auto baseline = wk::gpu::amoeba_48::params();
    wk::apply_overrides(baseline, o.overrides);
    auto fused = wk::gpu::amoeba_48_fused::params();
    wk::apply_overrides(fused, o.overrides);
    j["params"] = {{"kernels", o.isa_dir},
                   {"cuda", o.cuda_dir},
                   {"no_ptx", o.no_ptx},
                   {"coeffs", o.coeffs},
                   {"overrides", o.overrides},
                   {"baseline_gpu", wk::params_to_json(baseline)},
                   {"fused_gpu", wk::params_to_json(fused)}};
    nlohmann::json out = nlohmann::json::array();
    for_each_configuration(rows, [&](const std::string& kernel, const char* name,
                                     const config_run& c, const config_run& base) {
        out.push_back({{"kernel", kernel},
                       {"config", name},
                       {"cycles", c.cycles},
                       {"thread_instructions", c.total.thread_instructions},
                       {"ipc_speedup", speedup(c, base)},
                       {"l1d_miss_rate", c.l1d_miss()},
                       {"transactions_per_access", c.access_rate()},
                       {"noc_stall_rate", c.noc_stall()}});
    });
    j["rows"] = std::move(out);
    example::write_json_file(o.json, j);
}

// Offline training data for 'warpkit-amoeba train': the sampled metrics and whether the
// kernel ran faster on the scale-up GPU.
void write_metrics_csv(const std::string& path, const std::vector<row>& rows) {
    std::ostringstream f;
    for (const auto name : rc::metric_names)
        f << name << ',';
    f << "label\n";
    for (const auto& r : rows) {
        for (const double v : rc::to_array(*r.base.first_cta))
            f << v << ',';
        f << (r.scale_up().ipc() > r.base.ipc() ? 1 : 0) << '\n';
    }
    example::write_text_file(path, f.str());
}

int run_study(const study_options& given) {
    study_options o = given;
    o.overrides = example::config_then_overrides(o.config_file, o.overrides);
    if (o.dump_params) {
        std::cout << nlohmann::json{{"baseline_gpu", wk::params_to_json(example::preset_params(
                                                         "amoeba_48", o.overrides))},
                                    {"fused_gpu", wk::params_to_json(example::preset_params(
                                                      "amoeba_48_fused", o.overrides))}}
                         .dump(2)
                  << '\n';
        return 0;
    }
    o.isa_dir = example::folder_or_bundled(o.isa_dir, "examples/kernels");
    o.cuda_dir = example::folder_or_bundled(o.cuda_dir, "examples/cuda");
    const auto predictor = load_predictor(o.coeffs);
    const auto kernels = example::find_kernels(o.isa_dir, o.cuda_dir, !o.no_ptx);
    print_header(o);
    std::vector<row> rows;
    bool all_same = true;
    for (const auto& sk : kernels) {
        row r = run_configurations(sk, o, predictor);
        all_same = all_same && r.same;
        print_row(r);
        rows.push_back(std::move(r));
    }
    print_summary(rows);
    if (!o.csv.empty()) write_csv(o.csv, rows);
    if (!o.metrics_csv.empty()) write_metrics_csv(o.metrics_csv, rows);
    if (!o.json.empty()) write_json(o, rows);
    if (!all_same) {
        std::fprintf(stderr, "warpkit-amoeba: a kernel's output differs between the baseline "
                             "and the fused or split GPU (the 'same' column)\n");
        return 1;
    }
    return 0;
}

} // namespace

void add_study(CLI::App& app, std::function<int()>& run, nlohmann::json record) {
    auto o = std::make_shared<study_options>();
    o->record = std::move(record);
    auto* sub = app.add_subcommand(
        "study", "baseline scale-out, direct scale-up, static fuse, direct split and warp "
                 "regrouping on the bundled kernels");
    sub->add_option("--kernels", o->isa_dir,
                    "directory of warpkit-ISA kernels (*.s; default: the bundled "
                    "examples/kernels)");
    sub->add_option("--cuda", o->cuda_dir,
                    "directory of PTX kernels with *.launch.json files (default: the bundled "
                    "examples/cuda)");
    sub->add_flag("--no-ptx", o->no_ptx, "run the warpkit-ISA kernels only");
    sub->add_option("--coeffs", o->coeffs,
                    "predictor for static fuse: 'table2' or a coefficient file from 'train'")
        ->capture_default_str();
    sub->add_option("--config", o->config_file,
                    "parameters of both GPUs from a JSON file (a part of a --dump-params GPU "
                    "block; --set wins over it)");
    sub->add_option("--set", o->overrides,
                    "override a parameter of both GPUs: key=value (repeatable)");
    sub->add_flag("--dump-params", o->dump_params,
                  "print both GPUs' parameters ({baseline_gpu, fused_gpu}) with --config and "
                  "--set applied as JSON and exit");
    sub->add_option("--csv", o->csv, "write one row per kernel and configuration");
    sub->add_option("--metrics-csv", o->metrics_csv,
                    "write each kernel's first-CTA metrics and label (1: scale-up faster), the "
                    "input format of 'train'");
    sub->add_option("--json", o->json,
                    "write the params of both GPUs and one record per kernel and configuration "
                    "as JSON");
    sub->callback([o, &run] { run = [o] { return run_study(*o); }; });
}
