// warpkit-warped-gates: the evaluation of Warped Gates (paper 003 Section 7) on synthetic SM
// workloads. For each instruction mix, the same seeded workload runs on one GTX480-like SM
// under: no gating (two-level scheduler; the baseline), ConvPG (two-level + conventional power
// gating), GATES (+ conventional), Naive Blackout and Coordinated Blackout (GATES + Blackout)
// and Warped Gates (GATES + coordinated Blackout + adaptive idle-detect). Per technique it
// reports INT and FP static-energy savings against never gating (Fig. 9), cycles relative to
// no gating (Fig. 10), wakeups relative to ConvPG (Fig. 8c), time in the compensated state
// (Fig. 8b), negative events and critical wakeups; --json adds the idle-period histograms of
// Fig. 3 (scripts/plot_warped_gates.py draws them).
//
//   warpkit-warped-gates [--mix NAME]... [--seed N] [--warps N] [--set key=value]...
//                        [--workload key=value]... [--schedulers N] [--active-warps N]
//                        [--csv | --json] [--quiet] [--progress]
//   a progress line on stderr (mix, technique, runs done, ETA) when it is a terminal; --quiet
//   hides it, --progress shows it on a file or pipe too
#include "study.hpp"

#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace wk = warpkit;
using json = nlohmann::ordered_json;

struct mix_result {
    std::string name;
    wk::func::synthetic_params workload;
    std::vector<study::run_result> runs; // runs[0] is the no-gating baseline, runs[1] ConvPG
};

const char* type_name(std::size_t t) {
    return t == 0 ? "int" : "fp";
}

double fraction(std::uint64_t part, std::uint64_t whole) {
    return study::ratio(part, whole);
}

// The mean over the mixes of each technique's figures (the paper reports means over its
// benchmarks): INT and FP savings, cycles relative to no gating.
struct mean_row {
    std::string technique;
    double int_savings = 0;
    double fp_savings = 0;
    double relative_cycles = 0;
    double relative_energy = 0;      // SM energy through the power model / no gating
    double unit_leakage_savings = 0; // INT + FP leakage energy saved (power model)
};

std::vector<mean_row> means(const std::vector<mix_result>& mixes) {
    std::vector<mean_row> rows;
    if (mixes.empty()) return rows;
    for (std::size_t k = 0; k < mixes.front().runs.size(); ++k) {
        mean_row r;
        r.technique = mixes.front().runs[k].technique;
        for (const auto& m : mixes) {
            const auto& base = m.runs[0];
            r.int_savings += study::savings(m.runs[k].type[0], base.cycles);
            r.fp_savings += study::savings(m.runs[k].type[1], base.cycles);
            r.relative_cycles += study::ratio(m.runs[k].cycles, base.cycles);
            r.relative_energy +=
                base.sm_energy_j > 0 ? m.runs[k].sm_energy_j / base.sm_energy_j : 0;
            r.unit_leakage_savings +=
                base.unit_leakage_j > 0 ? 1 - m.runs[k].unit_leakage_j / base.unit_leakage_j : 0;
        }
        const auto n = static_cast<double>(mixes.size());
        r.int_savings /= n;
        r.fp_savings /= n;
        r.relative_cycles /= n;
        r.relative_energy /= n;
        r.unit_leakage_savings /= n;
        rows.push_back(r);
    }
    return rows;
}

json histogram_json(const wk::histogram<65>& h) {
    json lower = json::array();
    json counts = json::array();
    for (std::size_t b = 0; b < 65; ++b) {
        lower.push_back(h.lower(b));
        counts.push_back(h.count(b));
    }
    return json{{"lower_bounds", lower}, {"counts", counts}};
}

json type_json(const study::type_result& t, const study::type_result& convpg,
               std::uint64_t baseline_cycles, std::uint32_t break_even) {
    const auto& g = t.gating;
    const auto& ip = g.idle_periods;
    const std::uint64_t periods = ip.below_idle_detect + ip.up_to_break_even + ip.beyond_break_even;
    json j;
    j["clusters"] = t.clusters;
    j["static_energy"] = t.static_energy;
    j["static_energy_savings"] = study::savings(t, baseline_cycles);
    j["gating_events"] = g.gating_events;
    j["early_gating_events"] = g.early_gating_events;
    j["wakeups"] = g.wakeups;
    j["wakeups_vs_convpg"] = study::ratio(g.wakeups, convpg.gating.wakeups);
    j["negative_events"] = g.negative_events;
    j["critical_wakeups"] = g.critical_wakeups;
    j["compensated_fraction"] = fraction(g.compensated_cycles, g.cycles);
    j["uncompensated_fraction"] = fraction(g.uncompensated_cycles, g.cycles);
    j["on_fraction"] = fraction(g.on_cycles, g.cycles);
    j["waking_fraction"] = fraction(g.waking_cycles, g.cycles);
    j["stall_cycles"] = g.stall_cycles;
    j["blackout_stall_cycles"] = g.blackout_stall_cycles;
    j["held_cycles"] = g.held_cycles;
    j["final_idle_detect"] = t.final_idle_detect;
    j["idle_detect_increments"] = t.adaptation.idle_detect_increments;
    j["idle_detect_decrements"] = t.adaptation.idle_detect_decrements;
    j["controller_cycles"] = g.cycles;
    j["idle_periods"] = {
        {"count", periods},
        {"mean_length", ip.lengths.mean()},
        {"below_idle_detect", ip.below_idle_detect},
        {"up_to_break_even", ip.up_to_break_even},
        {"beyond_break_even", ip.beyond_break_even},
        {"beyond_break_even_fraction", fraction(ip.beyond_break_even, periods)},
        {"break_even", break_even},
        {"lengths", histogram_json(ip.lengths)},
    };
    return j;
}

// The JSON record (examples/common/output.hpp's schema, after `j`'s header): "params" holds
// the setup and each mix's workload; the setup's fields stay at the top level too.
json to_json(json j, const std::vector<mix_result>& mixes, const study::setup& s) {
    json params = {{"seed", s.seed},
                   {"schedulers", s.schedulers},
                   {"active_warps", s.active_warps},
                   {"sm", json(wk::params_to_json(s.sm))},
                   {"mixes", json::array()}};
    for (const auto& m : mixes)
        params["mixes"].push_back(
            {{"mix", m.name}, {"workload", json(wk::params_to_json(m.workload))}});
    j["params"] = std::move(params);
    j["study"] = "warped_gates";
    j["seed"] = s.seed;
    j["schedulers"] = s.schedulers;
    j["active_warps"] = s.active_warps;
    j["sm"] = json::parse(wk::params_to_json(s.sm).dump());
    j["mixes"] = json::array();
    for (const auto& m : mixes) {
        const auto& base = m.runs[0];
        const auto& conv = m.runs[1];
        json jm;
        jm["mix"] = m.name;
        jm["workload"] = json::parse(wk::params_to_json(m.workload).dump());
        jm["baseline_cycles"] = base.cycles;
        jm["techniques"] = json::array();
        for (const auto& r : m.runs) {
            json jr;
            jr["technique"] = r.technique;
            jr["scheduler"] = r.scheduler;
            jr["policy"] = r.policy;
            jr["cycles"] = r.cycles;
            jr["relative_cycles"] = study::ratio(r.cycles, base.cycles);
            jr["warp_instructions"] = r.sm.warp_instructions;
            jr["generated_instructions"] = r.generated;
            jr["ipc_warp"] = study::ratio(r.sm.warp_instructions, r.cycles);
            jr["gated_stall_cycles"] = r.sm.stalls.gated;
            jr["sm_energy_j"] = r.sm_energy_j;
            jr["relative_sm_energy"] = base.sm_energy_j > 0 ? r.sm_energy_j / base.sm_energy_j : 0;
            jr["unit_leakage_j"] = r.unit_leakage_j;
            for (std::size_t t = 0; t < 2; ++t)
                jr[type_name(t)] =
                    type_json(r.type[t], conv.type[t], base.cycles, s.sm.gating.break_even);
            jm["techniques"].push_back(jr);
        }
        j["mixes"].push_back(jm);
    }
    j["means"] = json::array();
    for (const auto& r : means(mixes))
        j["means"].push_back(json{{"technique", r.technique},
                                  {"int_static_energy_savings", r.int_savings},
                                  {"fp_static_energy_savings", r.fp_savings},
                                  {"relative_cycles", r.relative_cycles},
                                  {"relative_sm_energy", r.relative_energy},
                                  {"unit_leakage_energy_savings", r.unit_leakage_savings}});
    return j;
}

void print_csv(const std::vector<mix_result>& mixes) {
    std::printf("mix,technique,cycles,relative_cycles,int_savings,fp_savings,int_wakeups,"
                "fp_wakeups,int_wakeups_vs_convpg,fp_wakeups_vs_convpg,int_compensated,"
                "fp_compensated,negative_events,critical_wakeups,int_mean_idle,fp_mean_idle,"
                "int_final_idle_detect,fp_final_idle_detect\n");
    for (const auto& m : mixes) {
        const auto& base = m.runs[0];
        const auto& conv = m.runs[1];
        for (const auto& r : m.runs) {
            const auto& i = r.type[0];
            const auto& f = r.type[1];
            std::printf(
                "%s,%s,%llu,%.6f,%.6f,%.6f,%llu,%llu,%.6f,%.6f,%.6f,%.6f,%llu,%llu,"
                "%.4f,%.4f,%u,%u\n",
                m.name.c_str(), r.technique.c_str(), static_cast<unsigned long long>(r.cycles),
                study::ratio(r.cycles, base.cycles), study::savings(i, base.cycles),
                study::savings(f, base.cycles), static_cast<unsigned long long>(i.gating.wakeups),
                static_cast<unsigned long long>(f.gating.wakeups),
                study::ratio(i.gating.wakeups, conv.type[0].gating.wakeups),
                study::ratio(f.gating.wakeups, conv.type[1].gating.wakeups),
                fraction(i.gating.compensated_cycles, i.gating.cycles),
                fraction(f.gating.compensated_cycles, f.gating.cycles),
                static_cast<unsigned long long>(i.gating.negative_events +
                                                f.gating.negative_events),
                static_cast<unsigned long long>(i.gating.critical_wakeups +
                                                f.gating.critical_wakeups),
                i.gating.idle_periods.lengths.mean(), f.gating.idle_periods.lengths.mean(),
                i.final_idle_detect, f.final_idle_detect);
        }
    }
}

void print_table(const std::vector<mix_result>& mixes, const study::setup& s) {
    std::printf("Warped Gates study: one SM, %u warp slots, issue width %u (%u scheduler%s), "
                "fetch width %u, idle-detect %u, break-even %u, wakeup %u, seed %llu\n",
                s.sm.warp_slots, s.sm.issue_width, s.schedulers, s.schedulers == 1 ? "" : "s",
                s.sm.fetch_width, s.sm.gating.idle_detect, s.sm.gating.break_even,
                s.sm.gating.wakeup_delay, static_cast<unsigned long long>(s.seed));
    for (const auto& m : mixes) {
        const auto& base = m.runs[0];
        const auto& conv = m.runs[1];
        const auto& w = m.workload;
        std::printf(
            "\nmix %s: INT %.0f%% FP %.0f%% SFU %.0f%% LD/ST %.0f%%, %u blocks x %u warps x "
            "%u instructions; no gating: %llu cycles, IPC %.2f\n",
            m.name.c_str(), 100 * w.int_fraction, 100 * w.fp_fraction, 100 * w.sfu_fraction,
            100 * w.ldst_fraction, w.blocks, w.warps_per_block, w.insts_per_warp,
            static_cast<unsigned long long>(base.cycles),
            study::ratio(base.sm.warp_instructions, base.cycles));
        std::printf("  %-21s %8s %8s %8s %8s %8s %8s %8s %7s %7s %9s\n", "technique", "INT sav",
                    "FP sav", "cycles", "INT wk", "FP wk", "INT comp", "FP comp", "neg.ev",
                    "crit.wk", "idle-det");
        std::printf("  %-21s %8s %8s %8s %8s %8s %8s %8s %7s %7s %9s\n", "", "", "", "/no-PG",
                    "/ConvPG", "/ConvPG", "time", "time", "", "", "INT/FP");
        for (std::size_t k = 1; k < m.runs.size(); ++k) {
            const auto& r = m.runs[k];
            const auto& i = r.type[0];
            const auto& f = r.type[1];
            std::printf("  %-21s %7.1f%% %7.1f%% %8.4f %8.2f %8.2f %7.1f%% %7.1f%% %7llu %7llu "
                        "%5u/%-3u\n",
                        r.technique.c_str(), 100 * study::savings(i, base.cycles),
                        100 * study::savings(f, base.cycles), study::ratio(r.cycles, base.cycles),
                        study::ratio(i.gating.wakeups, conv.type[0].gating.wakeups),
                        study::ratio(f.gating.wakeups, conv.type[1].gating.wakeups),
                        100 * fraction(i.gating.compensated_cycles, i.gating.cycles),
                        100 * fraction(f.gating.compensated_cycles, f.gating.cycles),
                        static_cast<unsigned long long>(i.gating.negative_events +
                                                        f.gating.negative_events),
                        static_cast<unsigned long long>(i.gating.critical_wakeups +
                                                        f.gating.critical_wakeups),
                        i.final_idle_detect, f.final_idle_detect);
        }
        std::printf("  idle periods (INT | FP): mean length, share longer than idle-detect + "
                    "BET\n");
        for (std::size_t k = 0; k < m.runs.size(); ++k) {
            const auto& r = m.runs[k];
            std::printf("  %-21s", r.technique.c_str());
            for (std::size_t t = 0; t < 2; ++t) {
                const auto& ip = r.type[t].gating.idle_periods;
                const std::uint64_t n =
                    ip.below_idle_detect + ip.up_to_break_even + ip.beyond_break_even;
                std::printf(" %7.2f %6.1f%%%s", ip.lengths.mean(),
                            100 * fraction(ip.beyond_break_even, n), t == 0 ? "  |" : "\n");
            }
        }
    }
    if (mixes.size() < 2) return;
    std::printf("\nmean over %zu mixes (paper 003, 18 benchmarks: ConvPG 20.1%% / 31.4%%, GATES "
                "21.5%% / 35.2%%, Naive Blackout 27.8%% / 41.1%%, Coordinated Blackout 31.5%% / "
                "45.6%%, Warped Gates 31.6%% / 46.5%%)\n",
                mixes.size());
    std::printf("  %-21s %8s %8s %8s %10s %10s\n", "technique", "INT sav", "FP sav", "cycles",
                "SM energy", "unit leak");
    for (const auto& r : means(mixes))
        std::printf("  %-21s %7.1f%% %7.1f%% %8.4f %10.4f %9.1f%%\n", r.technique.c_str(),
                    100 * r.int_savings, 100 * r.fp_savings, r.relative_cycles, r.relative_energy,
                    100 * r.unit_leakage_savings);
    std::printf("  (SM energy: the SM's energy through the power model relative to no gating; "
                "unit leak: INT + FP leakage energy saved, power model)\n");
}

// Runs every technique on every mix, showing how far it got on a progress line.
void run_mixes(std::vector<mix_result>& mixes, const study::setup& s,
               const example::progress_options& flags) {
    example::progress_line progress("warpkit-warped-gates", flags);
    const double runs = static_cast<double>(mixes.size() * study::technique_count);
    for (std::size_t mix = 0; mix < mixes.size(); ++mix) {
        auto& m = mixes[mix];
        progress.stage("mix " + m.name);
        const auto show = [&](std::size_t technique, std::string_view name, std::uint32_t blocks) {
            const double share =
                static_cast<double>(blocks) / static_cast<double>(m.workload.blocks);
            progress.update(
                {"run", technique, study::technique_count, "runs"},
                std::string(name) + ", blocks " + example::grouped(blocks) + "/" +
                    example::grouped(m.workload.blocks),
                (static_cast<double>(mix * study::technique_count + technique) + share) / runs);
        };
        m.runs = study::run_all(s, m.workload,
                                progress.enabled() ? study::technique_progress(show) : nullptr);
    }
}

int tool_main(int argc, char** argv) {
    CLI::App app{"The Warped Gates evaluation (ConvPG, GATES, Naive / Coordinated Blackout, "
                 "Warped Gates) on synthetic instruction mixes, one SM."};
    std::vector<std::string> mix_names;
    std::vector<std::string> sets;
    std::vector<std::string> workload_sets;
    study::setup s;
    std::uint32_t warps = 0;
    bool csv = false;
    bool as_json = false;
    example::progress_options progress_flags;
    std::string all_names;
    for (auto n : wk::func::synthetic_mix_names())
        all_names += (all_names.empty() ? "" : ", ") + std::string(n);
    app.add_option("--mix", mix_names, "Mix to run (repeatable; default all): " + all_names);
    app.add_option("--seed", s.seed, "Workload seed (default 1)");
    app.add_option("--warps", warps, "Warp slots of the SM (default 48, GTX480)");
    app.add_option("--set", sets, "SM parameter override key=value, e.g. gating.break_even=19");
    app.add_option("--workload", workload_sets,
                   "Workload parameter override key=value, e.g. insts_per_warp=2000");
    app.add_option("--schedulers", s.schedulers,
                   "Warp schedulers sharing the issue width (default 1: one GATES arbiter "
                   "issuing two per cycle, paper 003 Section 6)");
    app.add_option("--active-warps", s.active_warps,
                   "Active-set size of the two-level schedulers (default 32)");
    auto* csv_flag = app.add_flag("--csv", csv, "Print CSV");
    app.add_flag("--json", as_json, "Print JSON (with the idle-period histograms)")
        ->excludes(csv_flag);
    example::add_progress_flags(app, progress_flags);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "warpkit-warped-gates: " << e.what() << "\n";
        return 2;
    }

    std::vector<mix_result> mixes;
    try {
        wk::apply_overrides(s.sm, sets);
        if (warps != 0) s.sm.warp_slots = warps;
        wk::validate(s.sm);
        if (mix_names.empty())
            for (auto n : wk::func::synthetic_mix_names())
                mix_names.emplace_back(n);
        for (const auto& n : mix_names) {
            mix_result m;
            m.name = n;
            m.workload = wk::func::synthetic_mix(n);
            wk::apply_overrides(m.workload, workload_sets);
            wk::validate(m.workload);
            mixes.push_back(std::move(m));
        }
    } catch (const wk::error& e) {
        std::cerr << "warpkit-warped-gates: " << e.what() << "\n";
        return 2;
    }
    try {
        run_mixes(mixes, s, progress_flags);
    } catch (const wk::config_error& e) {
        std::cerr << "warpkit-warped-gates: " << e.what() << "\n";
        return 2;
    } catch (const wk::sim_error& e) {
        std::cerr << "warpkit-warped-gates: simulation failed: " << e.what() << "\n";
        return 1;
    }
    if (as_json)
        std::cout << to_json(example::record_header<json>("warpkit-warped-gates", argc, argv),
                             mixes, s)
                         .dump(1)
                  << "\n";
    else if (csv)
        print_csv(mixes);
    else
        print_table(mixes, s);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-warped-gates", [&] { return tool_main(argc, argv); });
}
