// Bad parameters, from JSON and from key=value text, get a config_error naming the field, the
// value and what is allowed; a broken precondition is a contract_error naming the check.
#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace {

using bad_input::thrown;

enum class shape : std::uint8_t { square, round };

struct cache_params {
    std::uint32_t sets = 64;
    std::uint32_t ways = 4;
    void validate() const {
        warpkit::check_range("sets", sets, 1U, 4096U);
        warpkit::check_range("ways", ways, 1U, 64U);
    }
    WARPKIT_FIELDS(cache_params, sets, ways)
};

struct machine_params {
    std::uint32_t sms = 15;
    std::int32_t offset = 0;
    double clock_ghz = 1.4;
    float leakage = 0.5F;
    shape form = shape::square;
    cache_params l1;
    void validate() const {
        warpkit::check_range("sms", sms, 1U, 4096U);
        warpkit::check_range("clock_ghz", clock_ghz, 0.001, 10.0);
    }
    WARPKIT_FIELDS(machine_params, sms, offset, clock_ghz, leakage, form, l1)
};

} // namespace

template <>
struct warpkit::enum_names<shape> {
    static constexpr std::array<std::string_view, 2> names = {"square", "round"};
};

using nlohmann::json;
using warpkit::config_error;

TEST_CASE("params: zero and negative sizes name the field and its range") {
    machine_params p;
    // zero SMs: the validator's range
    CHECK(thrown<config_error>([&] { warpkit::apply_overrides(p, std::vector{"sms=0"}); }) ==
          "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"sms", 0}}, p);
          }) == "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    // negative sizes: the type's range, before any wrap-around
    p = {};
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "sms=-4"); }) ==
          "invalid parameter 'sms' = '-4' (allowed: an integer in [0, 4294967295])");
    CHECK(p.sms == 15);
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"sms", -4}}, p);
          }) == "invalid parameter 'sms' = '-4' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"sms", 2.5}}, p);
          }) == "invalid parameter 'sms' = 2.5 (allowed: an integer in [0, 4294967295])");
    // nested fields carry their full path
    CHECK(thrown<config_error>([&] { warpkit::apply_overrides(p, std::vector{"l1.sets=0"}); }) ==
          "invalid parameter 'l1.sets' = 0 (allowed: [1, 4096])");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"l1", {{"ways", -1}}}}, p);
          }) == "invalid parameter 'l1.ways' = '-1' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "offset=-2147483649"); }) ==
          "invalid parameter 'offset' = '-2147483649' (allowed: an integer in [-2147483648, "
          "2147483647])");
}

TEST_CASE("params: NaN and infinity are not numbers a field takes") {
    machine_params p;
    for (const char* text : {"nan", "NaN", "inf", "-inf", "1e999"}) {
        CAPTURE(text);
        CHECK(thrown<config_error>([&] {
                  warpkit::apply_override(p, "clock_ghz=" + std::string(text));
              }) == "invalid parameter 'clock_ghz' = '" + std::string(text) +
                        "' (allowed: a finite number)");
    }
    // JSON text cannot spell NaN, but a json value built in code can hold it; it used to be
    // stored silently (and written back out as null).
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"clock_ghz", std::nan("")}}, p);
          }) == "invalid parameter 'clock_ghz' = nan (allowed: a finite number)");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"leakage", -std::numeric_limits<double>::infinity()}},
                                        p);
          }) == "invalid parameter 'leakage' = -inf (allowed: a finite number)");
    // a finite double that does not fit a float field used to become infinity
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"leakage", 1e300}}, p);
          }) == "invalid parameter 'leakage' = 1e+300 (allowed: a finite number)");
    CHECK(p.clock_ghz == 1.4);
    CHECK(p.leakage == 0.5F);
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"clock_ghz", "fast"}}, p);
          }) == "invalid parameter 'clock_ghz' = \"fast\" (allowed: a finite number)");
}

TEST_CASE("params: unknown fields, unknown names and malformed assignments") {
    machine_params p;
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "smz=4"); }) ==
          "invalid parameter 'smz' = '4' (allowed: no such field; did you mean sms? (known: sms, "
          "offset, clock_ghz, leakage, form, l1.sets, l1.ways))");
    // a nested field named by its last component, a typo deeper in, and nothing close
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "sets=4"); }) ==
          "invalid parameter 'sets' = '4' (allowed: no such field; did you mean l1.sets? (known: "
          "sms, offset, clock_ghz, leakage, form, l1.sets, l1.ways))");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "l1.wyas=4"); }) ==
          "invalid parameter 'l1.wyas' = '4' (allowed: no such field; did you mean l1.ways? "
          "(known: sms, offset, clock_ghz, leakage, form, l1.sets, l1.ways))");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "banks=4"); }) ==
          "invalid parameter 'banks' = '4' (allowed: no such field; known: sms, offset, "
          "clock_ghz, leakage, form, l1.sets, l1.ways)");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json{{"smz", 4}}, p);
          }).find("invalid parameter 'smz' = 4") == 0);
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "form=oval"); }) ==
          "invalid parameter 'form' = 'oval' (allowed: one of: square, round)");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "sms 4"); }) ==
          "invalid parameter 'sms 4' = (no value) (allowed: key=value)");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, ""); }) ==
          "invalid parameter '' = (no value) (allowed: key=value)");
    CHECK(thrown<config_error>([&] { warpkit::apply_override(p, "sms="); }) ==
          "invalid parameter 'sms' = '' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] {
              warpkit::params_from_json(json::array({1, 2}), p);
          }) == "invalid parameter '(root)' = [1,2] (allowed: an object)");
}

TEST_CASE("a broken precondition is a contract_error naming the check") {
    warpkit::fifo<int> q(1);
    q.push(1);
    const std::string what = thrown<warpkit::contract_error>([&] { q.push(2); });
    CHECK(what.find("fifo.hpp:") != std::string::npos);
    CHECK(what.find(": precondition failed: can_push()") != std::string::npos);
}
