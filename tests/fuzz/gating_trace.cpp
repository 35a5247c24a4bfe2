// Fuzz target: the warpkit-gating demand-trace reader (gating::parse_demand_trace) and the
// replay of the trace through each policy warpkit-gating offers.
//
// Laws: the trace has one arrival flag per '0'/'1' character; a replay serves every arrival,
// never ends before the trace, never beats the never-gated baseline, and its four state
// counters add up to its cycles; every idle period falls in exactly one region of Fig. 3.
#include "fuzz.hpp"

#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/conventional.hpp>
#include <warpkit/gating/naive_blackout.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/trace_replay.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit;

template <class Policy>
void replay_and_check(const std::vector<std::uint8_t>& arrivals, std::uint64_t ones,
                      const gating::params& p) {
    gating::replay_result r;
    if (!fuzz::expect_errors([&] { r = gating::replay<Policy>(arrivals, p); })) return;
    const auto& s = r.stats;
    WARPKIT_FUZZ_LAW(r.trace_cycles == arrivals.size());
    WARPKIT_FUZZ_LAW(r.arrivals == ones);
    WARPKIT_FUZZ_LAW(r.cycles >= r.trace_cycles);
    WARPKIT_FUZZ_LAW(r.baseline_cycles <= r.cycles);
    WARPKIT_FUZZ_LAW(r.max_queue <= ones);
    WARPKIT_FUZZ_LAW(s.cycles == r.cycles);
    WARPKIT_FUZZ_LAW(
        s.on_cycles + s.uncompensated_cycles + s.compensated_cycles + s.waking_cycles == s.cycles);
    WARPKIT_FUZZ_LAW(s.wakeups <= s.gating_events && s.negative_events <= s.wakeups);
    WARPKIT_FUZZ_LAW(s.blackout_stall_cycles <= s.stall_cycles);
    const auto& ip = s.idle_periods;
    WARPKIT_FUZZ_LAW(ip.below_idle_detect + ip.up_to_break_even + ip.beyond_break_even ==
                     ip.lengths.samples());
    WARPKIT_FUZZ_LAW(std::isfinite(r.static_energy_savings) && r.static_energy_savings <= 1.0);
}

// Paper defaults, a quick-gating block, a slow-waking one, and a long idle-detect window.
constexpr std::array<std::array<std::uint32_t, 3>, 4> settings = {
    {{5, 14, 3}, {1, 1, 1}, {2, 30, 12}, {40, 5, 1}}};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    std::vector<std::uint8_t> arrivals;
    if (!fuzz::expect_errors([&] { arrivals = gating::parse_demand_trace(text, "<fuzz>"); }))
        return 0;
    std::uint64_t ones = 0;
    std::uint64_t flags = 0;
    for (const char c : text) {
        ones += c == '1' ? 1 : 0;
        flags += c == '0' || c == '1' ? 1 : 0;
    }
    WARPKIT_FUZZ_LAW(arrivals.size() == flags);

    const auto& set = settings[ones % settings.size()];
    gating::params p;
    p.idle_detect = set[0];
    p.break_even = set[1];
    p.wakeup_delay = set[2];
    p.adaptive.epoch = 64;
    p.adaptive.critical_threshold = 1;
    replay_and_check<gating::conventional>(arrivals, ones, p);
    replay_and_check<gating::naive_blackout>(arrivals, ones, p);
    replay_and_check<gating::adaptive_idle_detect<gating::naive_blackout>>(arrivals, ones, p);
    return 0;
}
