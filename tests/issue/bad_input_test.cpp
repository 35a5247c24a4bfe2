// Schedulers by name: unknown names list the known ones; bad parameters and bank sizes name
// the field and the range.
#include <warpkit/core/error.hpp>
#include <warpkit/issue/registry.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <string>
#include <vector>

using bad_input::thrown;

using warpkit::config_error;

TEST_CASE("scheduler registry: unknown names list the known schedulers") {
    const auto reg = warpkit::issue::builtin_schedulers();
    CHECK(thrown<config_error>([&] { (void)reg.make("fifo"); }) ==
          "invalid parameter 'scheduler' = 'fifo' (allowed: one of: lrr, rr, gto, two_level, "
          "gates)");
    CHECK(thrown<config_error>([&] { (void)reg.make("GTO"); }) ==
          "invalid parameter 'scheduler' = 'GTO' (allowed: one of: lrr, rr, gto, two_level, "
          "gates)");
}

TEST_CASE("scheduler registry: zero, negative and unknown parameters") {
    const auto reg = warpkit::issue::builtin_schedulers();
    CHECK(thrown<config_error>([&] { (void)reg.make("gto", nullptr, {}, 0); }) ==
          "invalid parameter 'schedulers' = 0 (allowed: [1, 8])");
    CHECK(thrown<config_error>([&] { (void)reg.make("two_level", nullptr, {"active_warps=0"}); }) ==
          "invalid parameter 'active_warps' = 0 (allowed: [1, 64])");
    CHECK(thrown<config_error>([&] {
              (void)reg.make("two_level", nullptr, {"active_warps=-8"});
          }) == "invalid parameter 'active_warps' = '-8' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] {
              (void)reg.make("two_level", nlohmann::json{{"active_warps", -8}});
          }) == "invalid parameter 'active_warps' = '-8' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] { (void)reg.make("gates", nullptr, {"inner.initial=sfu"}); }) ==
          "invalid parameter 'inner.initial' = sfu (allowed: int or fp)");
    CHECK(thrown<config_error>([&] { (void)reg.make("gates", nullptr, {"intial=fp"}); })
              .find("invalid parameter 'intial' = 'fp' (allowed: no such field; did you mean "
                    "inner.initial? (known: active_warps, inner.max_switch_cycles, "
                    "inner.initial)") == 0);
}
