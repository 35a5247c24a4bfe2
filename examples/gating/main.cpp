// warpkit-gating: replays one execution unit's demand trace through a power-gating policy and
// prints the gating statistics as one JSON object (examples/common/output.hpp's schema: the
// tool, its command line, the params, the statistics).
//
//   warpkit-gating [--trace FILE] [--policy conventional|naive_blackout|adaptive]
//                  [--idle-detect N] [--break-even N] [--wakeup N] [--epoch N]
//                  [--critical-threshold N]
//
// The trace (stdin by default) has one character per cycle: '1' when an instruction for the
// unit arrives, '0' when none does; whitespace is ignored. Arrivals queue and the unit serves
// one per cycle while powered on. `adaptive` is naive Blackout with adaptive idle-detect.
#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/trace_replay.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

namespace gating = warpkit::gating;

using replay_fn = gating::replay_result (*)(const std::vector<std::uint8_t>&,
                                            const gating::params&);

// The runtime registry over the static policy types.
const std::map<std::string, replay_fn>& policies() {
    static const std::map<std::string, replay_fn> m = {
        {"conventional", &gating::replay<gating::conventional>},
        {"naive_blackout", &gating::replay<gating::naive_blackout>},
        {"adaptive", &gating::replay<gating::adaptive_idle_detect<gating::naive_blackout>>},
    };
    return m;
}

// The command-line flag that sets a params field, for error messages.
std::string flag_of(const std::string& field) {
    static const std::map<std::string, std::string> m = {
        {"idle_detect", "--idle-detect"},
        {"break_even", "--break-even"},
        {"wakeup_delay", "--wakeup"},
        {"adaptive.epoch", "--epoch"},
        {"adaptive.critical_threshold", "--critical-threshold"},
    };
    const auto it = m.find(field);
    return it == m.end() ? field : it->second;
}

// Keys in the order the study documents them, after those of `record` (the header).
nlohmann::ordered_json report(nlohmann::ordered_json record, const std::string& policy,
                              const gating::replay_result& r, const gating::params& p) {
    const gating::stats& s = r.stats;
    nlohmann::ordered_json j = {
        {"policy", policy},
        {"cycles", r.cycles},
        {"trace_cycles", r.trace_cycles},
        {"baseline_cycles", r.baseline_cycles},
        {"arrivals", r.arrivals},
        {"gating_events", s.gating_events},
        {"wakeups", s.wakeups},
        {"negative_events", s.negative_events},
        {"gated_cycles", s.gated_cycles()},
        {"on_cycles", s.on_cycles},
        {"uncompensated_cycles", s.uncompensated_cycles},
        {"compensated_cycles", s.compensated_cycles},
        {"waking_cycles", s.waking_cycles},
        {"stall_cycles", s.stall_cycles},
        {"blackout_stall_cycles", s.blackout_stall_cycles},
        {"critical_wakeups", s.critical_wakeups},
        {"static_energy", gating::static_energy(s, p)},
        {"static_energy_savings", r.static_energy_savings},
        {"static_energy_saving_share", r.static_energy_savings},
        {"final_idle_detect", r.final_idle_detect},
        {"idle_detect_increments", s.idle_detect_increments},
        {"idle_detect_decrements", s.idle_detect_decrements},
    };
    j["idle_periods"] = {
        {"below_idle_detect", s.idle_periods.below_idle_detect},
        {"up_to_break_even", s.idle_periods.up_to_break_even},
        {"beyond_break_even", s.idle_periods.beyond_break_even},
        {"mean_length", s.idle_periods.lengths.mean()},
    };
    j["params"] = nlohmann::ordered_json::parse(warpkit::params_to_json(p).dump());
    record.update(j);
    return record;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"Replay one execution unit's demand trace (one 0/1 character per cycle) "
                 "through a power-gating policy; prints JSON."};
    std::string trace_file;
    std::string policy = "conventional";
    gating::params p;
    app.add_option("--trace", trace_file, "Trace file (default: standard input)");
    app.add_option("--policy", policy, "conventional, naive_blackout or adaptive")
        ->check(CLI::IsMember({"conventional", "naive_blackout", "adaptive"}));
    app.add_option("--idle-detect", p.idle_detect, "Idle cycles before gating (default 5)");
    app.add_option("--break-even", p.break_even, "Break-even time in cycles (default 14)");
    app.add_option("--wakeup", p.wakeup_delay, "Wakeup delay in cycles (default 3)");
    app.add_option("--epoch", p.adaptive.epoch, "Adaptive idle-detect epoch (default 1000)");
    app.add_option("--critical-threshold", p.adaptive.critical_threshold,
                   "Critical wakeups per epoch tolerated before idle-detect rises (default 5)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "warpkit-gating: " << e.what() << "\n";
        return 2;
    }

    try {
        // The params report the policy replayed (its --policy names are policy_kind names).
        warpkit::apply_override(p, "policy=" + policy);
        warpkit::validate(p);
        std::string text;
        std::string source = "<stdin>";
        if (trace_file.empty()) {
            if (const auto code = example::refuse_terminal_input("warpkit-gating", "--trace FILE"))
                return *code;
            text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        } else {
            text = warpkit::read_file(trace_file);
            source = trace_file;
        }
        const auto arrivals = gating::parse_demand_trace(text, source);
        if (arrivals.empty()) {
            // A report over no cycles would be all zeros: say what is wrong instead.
            std::cerr << "warpkit-gating: " << source
                      << ": the trace holds no cycles (one '0' or '1' per cycle)\n";
            return 2;
        }
        const auto r = policies().at(policy)(arrivals, p);
        std::cout << report(example::record_header<nlohmann::ordered_json>("warpkit-gating", argc,
                                                                           argv),
                            policy, r, p)
                         .dump(2)
                  << "\n";
        return 0;
    } catch (const warpkit::config_error& e) {
        std::cerr << "warpkit-gating: " << flag_of(e.field()) << ": " << e.what() << "\n";
        return 2;
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-gating: " << e.what() << "\n";
        return 2;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-gating", [&] { return tool_main(argc, argv); });
}
