// warpkit-schedulers: replays one seeded synthetic instruction mix through each warp scheduler
// (picked by name from the registry) on a small Fermi-like SM model, and prints the first
// issue cycles and, per execution unit, the idle periods a power-gating controller would see
// (count, mean length, histogram, and the three regions of paper 003 Fig. 3 for idle-detect 5
// and break-even time 14).
//
// The SM model lives here, not in the library: per warp a fixed instruction stream whose
// dependences go through the library scoreboard; INT and FP pipelines in two clusters (SP0,
// SP1: latency 4, initiation interval 1, paper 003 Section 3.1), one SFU group (latency 16,
// a warp every 8 cycles: 4 SFUs for 32 threads), one LD/ST group (a warp every 2 cycles:
// 16 units) whose loads return after a fixed memory latency and are long-latency results.
#include "../common/output.hpp"
#include "../common/tool_main.hpp"
#include "issue_model.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/registry.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace wi = warpkit::issue;
using json = nlohmann::ordered_json; // keys in the order of the printed report
using warpkit::isa::unit_class;
constexpr std::size_t classes = warpkit::isa::unit_class_count;

struct options {
    std::uint32_t warps = 48; // GTX480: 48 warps per SM
    std::string mix = "int=50,fp=25,sfu=4,ldst=15,branch=6";
    std::uint64_t cycles = 20000; // cap on simulated cycles
    std::uint32_t length = 200;   // instructions per warp
    std::uint64_t seed = 1;
    std::string scheduler = "all";
    std::uint32_t schedulers = 2;       // GTX480: 2 schedulers per SM...
    std::uint32_t issue_width = 1;      // ...each issuing one warp per cycle
    std::uint32_t memory_latency = 300; // cycles for a load's data
    std::uint32_t show = 12;            // issue cycles to print
    double dependence = 0.6;            // chance an instruction reads a recent result
};

struct inst {
    unit_class unit = unit_class::int_alu;
    wi::operands ops{};
};

/// Parses "int=50,fp=25,..." into weights per unit class.
std::array<double, classes> parse_mix(const std::string& text) {
    std::array<double, classes> w{};
    std::stringstream ss(text);
    std::string item;
    double total = 0;
    while (std::getline(ss, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
            throw warpkit::config_error("mix", "'" + item + "'", "class=weight, e.g. int=50");
        const std::string name = item.substr(0, eq);
        const auto& names = warpkit::enum_names<unit_class>::names;
        const auto it = std::find(names.begin(), names.end(), name);
        // The modelled SM (the GTX480's) has no DP or tensor units.
        if (it == names.end() || name == "dp" || name == "tensor")
            throw warpkit::config_error("mix", "'" + name + "'",
                                        "one of: int, fp, sfu, ldst, branch, ctrl");
        double v = 0;
        try {
            std::size_t used = 0;
            v = std::stod(item.substr(eq + 1), &used);
            if (used != item.size() - eq - 1) throw std::invalid_argument("trailing");
        } catch (const std::exception&) {
            throw warpkit::config_error("mix." + name, "'" + item.substr(eq + 1) + "'",
                                        "a number >= 0");
        }
        if (!(v >= 0) || v > 1e9)
            throw warpkit::config_error("mix." + name, item.substr(eq + 1), "a number >= 0");
        w[static_cast<std::size_t>(it - names.begin())] += v;
        total += v;
    }
    if (!(total > 0))
        throw warpkit::config_error("mix", "'" + text + "'", "a positive total weight");
    return w;
}

/// One instruction stream per warp. Instruction k writes r(1 + k mod 24) (branches write
/// nothing) and, with probability `dependence`, reads the result of one of the 6 previous.
std::vector<std::vector<inst>> make_programs(const options& o,
                                             const std::array<double, classes>& mix) {
    double total = 0;
    for (double v : mix)
        total += v;
    std::vector<std::vector<inst>> progs(o.warps);
    const warpkit::rng root(o.seed);
    for (std::uint32_t w = 0; w < o.warps; ++w) {
        warpkit::rng r = root.fork(w);
        auto& p = progs[w];
        p.resize(o.length);
        for (std::uint32_t k = 0; k < o.length; ++k) {
            double x = r.uniform() * total;
            std::size_t u = 0;
            while (u + 1 < classes && x >= mix[u]) {
                x -= mix[u];
                ++u;
            }
            inst& i = p[k];
            i.unit = static_cast<unit_class>(u);
            i.ops = wi::operands{}.read(0);
            if (k > 0 && r.bernoulli(o.dependence)) {
                const std::uint32_t back = 1 + static_cast<std::uint32_t>(r.below(std::min(k, 6U)));
                i.ops = i.ops.read(1 + (k - back) % 24);
            }
            if (i.unit != unit_class::branch && i.unit != unit_class::ctrl)
                i.ops = i.ops.write(1 + k % 24);
        }
    }
    return progs;
}

/// The execution units whose idle periods are reported.
struct unit_model {
    std::string name;
    unit_class cls;
    std::uint32_t latency;  // cycles an instruction occupies the pipeline
    std::uint32_t interval; // cycles between two accepted instructions
};
const std::vector<unit_model> units = {
    {"INT.SP0", unit_class::int_alu, 4, 1}, {"INT.SP1", unit_class::int_alu, 4, 1},
    {"FP.SP0", unit_class::fp, 4, 1},       {"FP.SP1", unit_class::fp, 4, 1},
    {"SFU", unit_class::sfu, 16, 8},        {"LDST", unit_class::ldst, 4, 2},
};

struct run_result {
    std::vector<std::string> first_cycles;
    std::uint64_t cycles = 0;
    std::uint64_t instructions = 0;
    std::vector<std::vector<std::uint64_t>> idle; // per unit: idle period lengths
    std::string stats;
};

run_result run(wi::any_scheduler& s, const std::vector<std::vector<inst>>& progs,
               const options& o) {
    const std::size_t n = progs.size();
    wi::scoreboard sb(wi::scoreboard_params{o.warps, 32, 7});
    issue_model::writebacks in_flight;
    std::vector<std::size_t> pc(n, 0);
    std::vector<std::uint64_t> busy_until(units.size(), 0); // last busy cycle + 1
    std::vector<std::uint64_t> accept_at(units.size(), 0);  // next cycle it takes an inst
    std::vector<std::uint64_t> idle_run(units.size(), 0);
    run_result res;
    res.idle.resize(units.size());
    std::vector<wi::warp_view> views(n);
    std::uint64_t finished = 0;
    std::uint64_t c = 0;
    for (; c < o.cycles && finished < n; ++c) {
        in_flight.release_due(sb, c);
        issue_model::fill_views(views, progs, pc, sb, [&](const inst& i) {
            bool unit_free = i.unit == unit_class::branch || i.unit == unit_class::ctrl;
            for (std::size_t u = 0; u < units.size(); ++u)
                unit_free = unit_free || (units[u].cls == i.unit && accept_at[u] <= c);
            return unit_free;
        });
        const auto picked =
            s.select(std::span<const wi::warp_view>(views), o.schedulers * o.issue_width);
        wi::issue_list done;
        for (const auto& p : picked) {
            const inst& i = progs[p.warp][pc[p.warp]];
            std::uint32_t latency = 1;
            if (i.unit != unit_class::branch && i.unit != unit_class::ctrl) {
                // First cluster of the class that can take it (SP0 before SP1).
                std::size_t u = 0;
                while (u < units.size() && !(units[u].cls == i.unit && accept_at[u] <= c))
                    ++u;
                if (u == units.size()) continue; // taken by an earlier slot this cycle
                accept_at[u] = c + units[u].interval;
                busy_until[u] = std::max(busy_until[u], c + units[u].latency);
                latency = i.unit == unit_class::ldst ? o.memory_latency : units[u].latency;
            }
            sb.reserve(p.warp, i.ops, i.unit == unit_class::ldst);
            in_flight.add(c + latency, p.warp, i.ops);
            done.push(p);
            ++res.instructions;
            if (++pc[p.warp] == progs[p.warp].size()) ++finished;
        }
        s.notify_issued(done);
        if (c < o.show) {
            std::string line = "  cycle " + std::to_string(c) + ":";
            for (const auto& d : done)
                line += " w" + std::to_string(d.warp) + " " +
                        std::string(warpkit::isa::short_name(d.unit));
            if (done.empty()) line += " (nothing ready)";
            res.first_cycles.push_back(line);
        }
        for (std::size_t u = 0; u < units.size(); ++u) {
            if (busy_until[u] > c) {
                if (idle_run[u] > 0) res.idle[u].push_back(idle_run[u]);
                idle_run[u] = 0;
            } else {
                ++idle_run[u];
            }
        }
    }
    for (std::size_t u = 0; u < units.size(); ++u)
        if (idle_run[u] > 0) res.idle[u].push_back(idle_run[u]);
    res.cycles = c;
    res.stats = s.stats_json().dump();
    return res;
}

// Idle-period bins: 1, 2, 3, 4, 5-9, 10-18, 19-49, 50+; regions of paper 003 Fig. 3 with
// idle-detect 5 and break-even 14: < 5 wasted, 5..18 net loss when gated, >= 19 net saving.
constexpr std::array<std::uint64_t, 8> idle_bin_lower = {1, 2, 3, 4, 5, 10, 19, 50};
constexpr std::array<const char*, 8> idle_bin_names = {"1",   "2",     "3",     "4",
                                                       "5-9", "10-18", "19-49", "50+"};

/// One unit's idle periods: their count, mean length, bins and Fig. 3 regions.
struct unit_idle {
    std::uint64_t periods = 0;
    double mean = 0;
    std::array<std::uint64_t, 8> bins{};
    std::uint64_t wasted = 0; // shorter than idle-detect
    std::uint64_t loss = 0;   // gated, but shorter than break-even
    std::uint64_t gain = 0;   // long enough to save energy
};

std::vector<unit_idle> idle_summary(const run_result& r) {
    const warpkit::histogram<8> shape(idle_bin_lower);
    std::vector<unit_idle> out;
    for (std::size_t u = 0; u < units.size(); ++u) {
        auto h = shape;
        for (auto len : r.idle[u])
            h.add(len);
        unit_idle i;
        i.periods = h.samples();
        i.mean = h.mean();
        for (std::size_t b = 0; b < 8; ++b)
            i.bins[b] = h.count(b);
        i.wasted = h.count(0) + h.count(1) + h.count(2) + h.count(3);
        i.loss = h.count(4) + h.count(5);
        i.gain = h.count(6) + h.count(7);
        out.push_back(i);
    }
    return out;
}

double issue_ipc(const run_result& r) {
    return r.cycles == 0 ? 0.0
                         : static_cast<double>(r.instructions) / static_cast<double>(r.cycles);
}

bool cap_reached(const run_result& r, const options& o) {
    return r.instructions < std::uint64_t{o.warps} * o.length;
}

void report(const std::string& name, const run_result& r, const options& o) {
    std::printf("\n== %s ==\nfirst issue cycles:\n", name.c_str());
    for (const auto& l : r.first_cycles)
        std::printf("%s\n", l.c_str());
    std::printf("%llu instructions in %llu cycles (IPC %.3f)%s\n",
                static_cast<unsigned long long>(r.instructions),
                static_cast<unsigned long long>(r.cycles), issue_ipc(r),
                cap_reached(r, o) ? " [cycle cap reached]" : "");
    std::printf("%-8s %7s %7s %6s %6s %6s %6s %6s %6s %6s %6s | %6s %6s %6s\n", "unit", "periods",
                "mean", "1", "2", "3", "4", "5-9", "10-18", "19-49", "50+", "<5", "5-18", ">=19");
    const auto idle = idle_summary(r);
    for (std::size_t u = 0; u < units.size(); ++u) {
        const unit_idle& i = idle[u];
        std::printf("%-8s %7llu %7.2f", units[u].name.c_str(),
                    static_cast<unsigned long long>(i.periods), i.mean);
        for (std::size_t b = 0; b < 8; ++b)
            std::printf(" %6llu", static_cast<unsigned long long>(i.bins[b]));
        std::printf(" | %6llu %6llu %6llu\n", static_cast<unsigned long long>(i.wasted),
                    static_cast<unsigned long long>(i.loss),
                    static_cast<unsigned long long>(i.gain));
    }
    std::printf("scheduler stats: %s\n", r.stats.c_str());
}

/// The CSV columns: the scheduler's run, then per unit its idle periods, their mean length
/// and the three Fig. 3 regions.
example::csv_table scheduler_table() {
    std::vector<std::string> columns = {"scheduler", "cycles", "instructions",
                                        "instructions_per_cycle", "cycle_cap_reached"};
    for (const auto& u : units)
        for (const char* what : {"idle_periods", "mean_idle_cycles", "idle_below_idle_detect",
                                 "idle_below_break_even", "idle_beyond_break_even"})
            columns.push_back(u.name + "." + what);
    return example::csv_table(std::move(columns));
}

/// Collects one row per scheduler run, then writes --csv and --json.
class scheduler_outputs {
public:
    scheduler_outputs(example::output_files files, json record, const options& o)
        : files_(std::move(files)), record_(std::move(record)) {
        record_["params"] = {{"warps", o.warps},
                             {"mix", o.mix},
                             {"cycles", o.cycles},
                             {"length", o.length},
                             {"seed", o.seed},
                             {"scheduler", o.scheduler},
                             {"schedulers", o.schedulers},
                             {"issue_width", o.issue_width},
                             {"memory_latency", o.memory_latency},
                             {"show", o.show},
                             {"dependence", o.dependence}};
        record_["schedulers"] = json::array();
    }
    void add(const std::string& name, const run_result& r, const options& o) {
        json row = {{"scheduler", name},
                    {"cycles", r.cycles},
                    {"instructions", r.instructions},
                    {"instructions_per_cycle", issue_ipc(r)},
                    {"cycle_cap_reached", cap_reached(r, o)}};
        table_.row().add(name).add(r.cycles).add(r.instructions).add(issue_ipc(r));
        table_.add(cap_reached(r, o));
        json idle = json::object();
        const auto summary = idle_summary(r);
        for (std::size_t u = 0; u < units.size(); ++u) {
            const unit_idle& i = summary[u];
            json bins = json::object();
            for (std::size_t b = 0; b < 8; ++b)
                bins[idle_bin_names[b]] = i.bins[b];
            idle[units[u].name] = {
                {"idle_periods", i.periods},       {"mean_idle_cycles", i.mean},
                {"idle_period_cycles_bins", bins}, {"idle_below_idle_detect", i.wasted},
                {"idle_below_break_even", i.loss}, {"idle_beyond_break_even", i.gain}};
            table_.add(i.periods).add(i.mean).add(i.wasted).add(i.loss).add(i.gain);
        }
        row["units"] = std::move(idle);
        row["stats"] = json::parse(r.stats);
        record_["schedulers"].push_back(std::move(row));
    }
    void write() const {
        if (!files_.csv.empty()) table_.write(files_.csv);
        if (!files_.json.empty()) example::write_json_file(files_.json, record_);
    }

private:
    example::output_files files_;
    json record_;
    example::csv_table table_ = scheduler_table();
};

int tool_main(int argc, char** argv) {
    options o;
    CLI::App app{"Replay a synthetic instruction mix through each warp scheduler and print issue "
                 "order and per-unit idle-period statistics"};
    app.add_option("--warps", o.warps, "warps on the SM (1..128)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--mix", o.mix, "unit-class weights: int=..,fp=..,sfu=..,ldst=..,branch=..")
        ->capture_default_str();
    app.add_option("--cycles", o.cycles, "cap on simulated cycles")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--length", o.length, "instructions per warp")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--seed", o.seed, "random seed of the mix")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--scheduler", o.scheduler, "all, or one of: lrr rr gto two_level gates")
        ->capture_default_str();
    app.add_option("--schedulers", o.schedulers, "schedulers per SM (warp i on i mod n)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--issue-width", o.issue_width, "issue slots per scheduler")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--memory-latency", o.memory_latency, "cycles until a load's data is back")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--show", o.show, "issue cycles to print")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--dependence", o.dependence,
                   "chance that an instruction reads one of the 6 previous results")
        ->capture_default_str();
    std::vector<std::string> overrides;
    app.add_option("--set", overrides, "scheduler parameter key=value (with one --scheduler)");
    example::output_files files;
    app.add_option("--json", files.json,
                   "write the params and a record per scheduler (IPC, idle periods per unit, "
                   "scheduler stats) as JSON to this file");
    app.add_option("--csv", files.csv, "write one row per scheduler as CSV to this file");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        warpkit::check_range("warps", o.warps, 1U, 128U);
        warpkit::check_range("cycles", o.cycles, std::uint64_t{1}, std::uint64_t{100'000'000});
        warpkit::check_range("length", o.length, 1U, 1'000'000U);
        warpkit::check_range("memory-latency", o.memory_latency, 1U, 100'000U);
        warpkit::check_range("schedulers", o.schedulers, 1U, 8U);
        warpkit::check_range("issue-width", o.issue_width, 1U, 8U);
        warpkit::check(o.schedulers * o.issue_width <= wi::max_issue_width, "issue-width",
                       o.issue_width, "schedulers x issue-width <= 8");
        warpkit::check(o.dependence >= 0.0 && o.dependence <= 1.0, "dependence", o.dependence,
                       "[0, 1]");
        warpkit::check(o.warps <= 64 * o.schedulers, "warps", o.warps, "at most 64 per scheduler");
        const auto registry = wi::builtin_schedulers();
        std::vector<std::string> names;
        if (o.scheduler == "all") {
            names = registry.names();
            if (!overrides.empty())
                throw warpkit::config_error("set", overrides.front(),
                                            "only together with a single --scheduler");
        } else {
            names = {o.scheduler};
        }
        // Build every scheduler before running any, so a bad name or parameter fails early.
        std::vector<wi::any_scheduler> scheds;
        for (const auto& n : names)
            scheds.push_back(registry.make(n, nullptr, overrides, o.schedulers));
        const auto mix = parse_mix(o.mix);
        const auto progs = make_programs(o, mix);
        std::printf("warpkit-schedulers: %u warps x %u instructions, mix %s, %u scheduler(s) "
                    "x %u issue slot(s), memory latency %u, seed %llu\n",
                    o.warps, o.length, o.mix.c_str(), o.schedulers, o.issue_width, o.memory_latency,
                    static_cast<unsigned long long>(o.seed));
        scheduler_outputs outputs(
            files, example::record_header<json>("warpkit-schedulers", argc, argv), o);
        for (std::size_t k = 0; k < scheds.size(); ++k) {
            const auto r = run(scheds[k], progs, o);
            report(names[k], r, o);
            outputs.add(names[k], r, o);
        }
        outputs.write();
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-schedulers: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-schedulers", [&] { return tool_main(argc, argv); });
}
