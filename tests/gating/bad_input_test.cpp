// Bad demand traces, bad gating parameters and unknown policy names get named errors.
#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/trace_replay.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using bad_input::thrown;

using namespace warpkit;

TEST_CASE("gating: policies by name, and an unknown name lists the known ones") {
    const auto arrivals = gating::parse_demand_trace("1100000000000000000000001", "t.txt");
    const gating::params p;
    for (const auto name : gating::replay_policy_names) {
        CAPTURE(name);
        const auto r = gating::replay_named(name, arrivals, p);
        CHECK(r.arrivals == 3);
        CHECK(r.trace_cycles == arrivals.size());
    }
    CHECK(gating::replay_named("adaptive", arrivals, p).stats.cycles ==
          gating::replay<gating::adaptive_idle_detect<gating::naive_blackout>>(arrivals, p)
              .stats.cycles);
    CHECK(thrown<config_error>([&] { (void)gating::replay_named("blackout", arrivals, p); }) ==
          "invalid parameter 'policy' = 'blackout' (allowed: one of: conventional, "
          "naive_blackout, adaptive)");
    CHECK(thrown<config_error>([&] {
              (void)gating::replay_named("", arrivals, p);
          }).find("'policy' = ''") != std::string::npos);
}

TEST_CASE("gating: a trace with anything but 0, 1 and blanks names line, column and cycle") {
    const auto e = [](const std::string& text) {
        return thrown<parse_error>([&] { (void)gating::parse_demand_trace(text, "t.txt"); });
    };
    CHECK(e("0101\n10,1\n") == "t.txt:2:3: unexpected ',' at cycle 6 (expected '0', '1' or "
                               "whitespace)");
    CHECK(e("11 -1") == "t.txt:1:4: unexpected '-' at cycle 2 (expected '0', '1' or whitespace)");
    CHECK(e("nan") == "t.txt:1:1: unexpected 'n' at cycle 0 (expected '0', '1' or whitespace)");
}

TEST_CASE("gating: parameters out of range name the field") {
    gating::params p;
    CHECK(thrown<config_error>([&] { apply_override(p, "idle_detect=-5"); }) ==
          "invalid parameter 'idle_detect' = '-5' (allowed: an integer in [0, 4294967295])");
    const auto& arrivals = std::vector<std::uint8_t>{1, 0, 1};
    CHECK_NOTHROW((void)gating::replay_named("conventional", arrivals, p));
    const std::string zero_epoch = thrown<config_error>([&] {
        gating::params q;
        params_from_json(nlohmann::json{{"adaptive", {{"epoch", 0}}}}, q);
    });
    CHECK(zero_epoch.find("invalid parameter 'adaptive.epoch' = 0 (allowed: ") == 0);
}
