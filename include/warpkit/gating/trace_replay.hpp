#pragma once
/// \file
/// Replays one block's demand trace through a gating controller: the `warpkit-gating` study.
/// A trace has one character per cycle, '1' when an instruction for the block arrives that
/// cycle and '0' when none does (whitespace ignored).

#include <warpkit/core/error.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/stats.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::gating {

/// Reads a demand trace: one arrival flag (0 or 1) per cycle. Any character other than '0',
/// '1' and whitespace is a parse_error naming `source`, line, column and the cycle it would be.
[[nodiscard]] inline std::vector<std::uint8_t>
parse_demand_trace(std::string_view text, std::string_view source = "<trace>") {
    std::vector<std::uint8_t> arrivals;
    arrivals.reserve(text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (const char c : text) {
        if (c == '0' || c == '1') {
            arrivals.push_back(c == '1' ? 1 : 0);
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') {
            std::string shown;
            const auto u = static_cast<unsigned char>(c);
            if (u >= 0x20 && u < 0x7f) {
                shown = std::string("'") + c + "'";
            } else {
                constexpr char hex[] = "0123456789abcdef";
                shown = std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
            }
            throw parse_error(std::string(source), line, column,
                              "unexpected " + shown + " at cycle " +
                                  std::to_string(arrivals.size()) +
                                  " (expected '0', '1' or whitespace)");
        }
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return arrivals;
}

/// Outcome of one replay.
struct replay_result {
    gating::stats stats{};             ///< the controller's counters
    std::uint64_t trace_cycles = 0;    ///< cycles in the trace
    std::uint64_t cycles = 0;          ///< cycles run, queue drain included
    std::uint64_t arrivals = 0;        ///< instructions that arrived
    std::uint64_t baseline_cycles = 0; ///< cycles the same trace takes without gating
    std::uint64_t max_queue = 0;       ///< most instructions waiting at once
    std::uint32_t final_idle_detect = 0;
    double static_energy_savings = 0.0; ///< vs the never-gated baseline run
};

/// Runs `arrivals` through a controller<Policy> and a server that executes one queued
/// instruction per cycle while the block is on. Per cycle: the cycle's arrival joins the
/// queue; demand = the queue is not empty; if the block is on, one instruction is served and
/// the cycle is busy. The run continues past the trace until the queue is empty. The energy
/// saving is measured against the same trace run without gating (one unit per cycle).
template <policy Policy>
[[nodiscard]] replay_result replay(const std::vector<std::uint8_t>& arrivals, const params& p) {
    const auto run = [&](auto& ctl, replay_result& r) {
        std::uint64_t queue = 0;
        std::uint64_t t = 0;
        const std::uint64_t n = arrivals.size();
        while (t < n || queue > 0) {
            if (t < n && arrivals[t] != 0) {
                ++queue;
                ++r.arrivals;
            }
            if (queue > r.max_queue) r.max_queue = queue;
            const bool demand = queue > 0;
            const bool serve = demand && ctl.can_issue();
            if (serve) --queue;
            static_cast<void>(ctl.tick(cycle_input{demand, serve, 0, false}));
            ++t;
        }
        ctl.finish();
        r.trace_cycles = n;
        r.cycles = t;
    };
    replay_result base;
    controller<no_gating> never(p);
    run(never, base);

    replay_result r;
    controller<Policy> ctl(p);
    run(ctl, r);
    r.stats = ctl.stats();
    r.baseline_cycles = base.cycles;
    r.final_idle_detect = ctl.idle_detect();
    r.static_energy_savings = gating::static_energy_savings(r.stats, p, r.baseline_cycles);
    return r;
}

/// Names of the policies `replay_named` runs (`adaptive` is naive Blackout with adaptive
/// idle-detect), as warpkit-gating's `--policy` spells them.
inline constexpr std::array<std::string_view, 3> replay_policy_names{"conventional",
                                                                     "naive_blackout", "adaptive"};

/// `replay<P>` for the policy called `name`. Throws config_error("policy", name, <the known
/// names>) for any other name.
[[nodiscard]] inline replay_result
replay_named(std::string_view name, const std::vector<std::uint8_t>& arrivals, const params& p) {
    if (name == replay_policy_names[0]) return replay<conventional>(arrivals, p);
    if (name == replay_policy_names[1]) return replay<naive_blackout>(arrivals, p);
    if (name == replay_policy_names[2])
        return replay<adaptive_idle_detect<naive_blackout>>(arrivals, p);
    std::string known;
    for (const auto n : replay_policy_names)
        known += (known.empty() ? "" : ", ") + std::string(n);
    throw config_error("policy", "'" + std::string(name) + "'", "one of: " + known);
}

} // namespace warpkit::gating
