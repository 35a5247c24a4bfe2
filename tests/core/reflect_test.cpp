#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sample {
enum class policy : std::uint8_t { conventional, naive_blackout, coordinated_blackout };

struct gate_params {
    std::uint32_t idle_detect = 5;
    std::uint32_t break_even = 14;
    std::uint32_t wakeup_delay = 3;
    void validate() const {
        warpkit::check_range("idle_detect", idle_detect, 1U, 1000U);
        warpkit::check(break_even > 0, "break_even", break_even, ">= 1");
    }
};

struct sm_params {
    std::uint16_t warps = 48;
    double clock_ghz = 0.7;
    bool lane_gating = false;
    policy gating = policy::conventional;
    std::string name = "gtx480";
    std::array<std::uint32_t, 3> latency = {4, 4, 8};
    gate_params gate{};
    void validate() const {
        warpkit::check_range("warps", warps, std::uint16_t{1}, std::uint16_t{64});
    }
};

struct unit_stats {
    std::uint64_t issued = 0;
    std::uint64_t idle = 0;
    warpkit::histogram<4> lanes = warpkit::histogram<4>::linear(0, 8);
};
struct sm_stats {
    std::uint64_t cycles = 0;
    std::array<unit_stats, 2> unit{};
    std::vector<std::uint64_t> per_warp;
    double energy_j = 0.0;
};
} // namespace sample

template <>
struct warpkit::enum_names<sample::policy> {
    static constexpr std::array<std::string_view, 3> names = {"conventional", "naive_blackout",
                                                              "coordinated_blackout"};
};

WARPKIT_REFLECT(sample::gate_params, idle_detect, break_even, wakeup_delay);
WARPKIT_REFLECT(sample::sm_params, warps, clock_ghz, lane_gating, gating, name, latency, gate);
WARPKIT_REFLECT(sample::unit_stats, issued, idle, lanes);
WARPKIT_REFLECT(sample::sm_stats, cycles, unit, per_warp, energy_j);

using sample::sm_params;

namespace sample {
// Fields declared inside the struct: usable by reflective code in the same namespace at once.
struct cache_params {
    std::uint32_t sets = 32;
    std::uint32_t ways = 4;
    struct mshr_params {
        std::uint32_t entries = 64;
        WARPKIT_FIELDS(mshr_params, entries)
    } mshr{};
    void validate() const { warpkit::check_range("ways", ways, 1U, 16U); }
    WARPKIT_FIELDS(cache_params, sets, ways, mshr)
};
inline std::string describe(const cache_params& p) {
    return warpkit::params_to_text(p);
}
} // namespace sample

TEST_CASE("WARPKIT_FIELDS reflects a struct from inside its body") {
    sample::cache_params p;
    CHECK(sample::describe(p) == "sets = 32\nways = 4\nmshr.entries = 64\n");
    warpkit::apply_override(p, "mshr.entries=8");
    CHECK(p.mshr.entries == 8);
    p.ways = 0;
    try {
        warpkit::validate(p);
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "ways");
    }
    const auto j = warpkit::params_to_json(sample::cache_params{});
    CHECK(j == nlohmann::json::parse(R"({"sets":32,"ways":4,"mshr":{"entries":64}})"));
}

TEST_CASE("params keep their in-class defaults and print every field with its path") {
    const sm_params p{};
    CHECK(p.gate.break_even == 14);
    const std::string text = warpkit::params_to_text(p);
    CHECK(text == "warps = 48\n"
                  "clock_ghz = 0.69999999999999996\n"
                  "lane_gating = false\n"
                  "gating = conventional\n"
                  "name = gtx480\n"
                  "latency[0] = 4\n"
                  "latency[1] = 4\n"
                  "latency[2] = 8\n"
                  "gate.idle_detect = 5\n"
                  "gate.break_even = 14\n"
                  "gate.wakeup_delay = 3\n");
}

TEST_CASE("params round-trip through JSON") {
    sm_params p{};
    p.gating = sample::policy::coordinated_blackout;
    p.latency[2] = 9;
    p.gate.idle_detect = 7;
    const auto j = warpkit::params_to_json(p);
    CHECK(j["gating"] == "coordinated_blackout");
    CHECK(j["gate"]["idle_detect"] == 7);
    sm_params q{};
    warpkit::params_from_json(j, q);
    CHECK(warpkit::params_to_json(q) == j);

    // Absent fields keep their values.
    sm_params r{};
    warpkit::params_from_json(nlohmann::json::parse(R"({"gate": {"wakeup_delay": 1}})"), r);
    CHECK(r.gate.wakeup_delay == 1);
    CHECK(r.gate.idle_detect == 5);
}

namespace {
warpkit::config_error error_of(const auto& f) {
    try {
        f();
    } catch (const warpkit::config_error& e) {
        return e;
    }
    FAIL("expected a config_error");
    return {"", "", ""};
}
} // namespace

TEST_CASE("params errors name field, value and allowed range") {
    auto e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"gate": {"idle_detect": 0}})"), p);
    });
    CHECK(e.field() == "gate.idle_detect");
    CHECK(e.value() == "0");
    CHECK(e.allowed() == "[1, 1000]");
    CHECK(std::string(e.what()) == "invalid parameter 'gate.idle_detect' = 0 (allowed: [1, 1000])");

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"gate": {"idel_detect": 3}})"), p);
    });
    CHECK(e.field() == "gate.idel_detect");
    CHECK(e.allowed().find("idle_detect") != std::string::npos);

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"warps": 70000})"), p);
    });
    CHECK(e.field() == "warps");
    CHECK(e.allowed() == "an integer in [0, 65535]");

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"warps": 65})"), p);
    });
    CHECK(e.allowed() == "[1, 64]");

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"gating": "sometimes"})"), p);
    });
    CHECK(e.field() == "gating");
    CHECK(e.allowed() == "one of: conventional, naive_blackout, coordinated_blackout");

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"latency": [1, 2]})"), p);
    });
    CHECK(e.field() == "latency");
    CHECK(e.allowed() == "an array of 3 elements");

    e = error_of([] {
        sm_params p{};
        warpkit::params_from_json(nlohmann::json::parse(R"({"lane_gating": 1})"), p);
    });
    CHECK(e.allowed() == "true or false");
}

TEST_CASE("key=value overrides reach nested fields and array elements") {
    sm_params p{};
    const std::vector<std::string> ov = {"gate.break_even=20",    "latency[1] = 0x10",
                                         "gating=naive_blackout", "lane_gating=on",
                                         "clock_ghz=1.4",         "name=fermi"};
    warpkit::apply_overrides(p, ov);
    CHECK(p.gate.break_even == 20);
    CHECK(p.latency[1] == 16);
    CHECK(p.gating == sample::policy::naive_blackout);
    CHECK(p.lane_gating);
    CHECK(p.clock_ghz == doctest::Approx(1.4));
    CHECK(p.name == "fermi");

    auto e = error_of([] {
        sm_params q{};
        warpkit::apply_override(q, "gate.wakeup_delay=-1");
    });
    CHECK(e.field() == "gate.wakeup_delay");
    CHECK(e.value() == "'-1'");
    CHECK(e.allowed() == "an integer in [0, 4294967295]");

    e = error_of([] {
        sm_params q{};
        warpkit::apply_override(q, "warps=12abc");
    });
    CHECK(e.field() == "warps");

    e = error_of([] {
        sm_params q{};
        warpkit::apply_override(q, "clock_ghz=fast");
    });
    CHECK(e.allowed() == "a finite number");

    e = error_of([] {
        sm_params q{};
        warpkit::apply_override(q, "no_such=1");
    });
    CHECK(e.field() == "no_such");
    CHECK(e.allowed().find("gate.idle_detect") != std::string::npos);

    e = error_of([] {
        sm_params q{};
        warpkit::apply_override(q, "warps");
    });
    CHECK(e.allowed() == "key=value");

    // Validation runs after all overrides: an invalid end state is reported.
    e = error_of([] {
        (void)warpkit::make_params<sm_params>(nullptr,
                                              std::vector<std::string>{"gate.idle_detect=0"});
    });
    CHECK(e.field() == "gate.idle_detect");
    const auto ok = warpkit::make_params<sm_params>(nlohmann::json{{"warps", 32}},
                                                    std::vector<std::string>{"warps=24"});
    CHECK(ok.warps == 24);
}

TEST_CASE("stats add up, and dump as JSON and CSV") {
    sample::sm_stats a{};
    a.cycles = 100;
    a.unit[0].issued = 7;
    a.unit[1].idle = 3;
    a.unit[0].lanes.add(32);
    a.per_warp = {1, 2};
    a.energy_j = 0.5;
    sample::sm_stats b{};
    b.cycles = 50;
    b.unit[0].issued = 1;
    b.unit[0].lanes.add(4);
    b.per_warp = {10, 20, 30};
    b.energy_j = 0.25;

    const std::vector<sample::sm_stats> all = {a, b};
    const auto t = warpkit::sum_stats(all);
    CHECK(t.cycles == 150);
    CHECK(t.unit[0].issued == 8);
    CHECK(t.unit[1].idle == 3);
    CHECK(t.unit[0].lanes.samples() == 2);
    CHECK(t.unit[0].lanes.count(0) == 1);
    CHECK(t.unit[0].lanes.count(3) == 1);
    CHECK(t.per_warp == std::vector<std::uint64_t>{11, 22, 30});
    CHECK(t.energy_j == doctest::Approx(0.75));

    const auto j = warpkit::stats_to_json(t);
    CHECK(j["cycles"] == 150);
    CHECK(j["unit"][0]["lanes"]["counts"] == nlohmann::json::array({1, 0, 0, 1}));
    CHECK(j["unit"][0]["lanes"]["labels"][3] == "24+");
    CHECK(j["unit"][0]["lanes"]["mean"] == doctest::Approx(18.0));

    sample::sm_stats small{};
    small.cycles = 2;
    small.per_warp = {5};
    const std::string csv = warpkit::stats_to_csv(small, "gpu.sm[3]");
    CHECK(csv == "stat,value\n"
                 "gpu.sm[3].cycles,2\n"
                 "gpu.sm[3].unit[0].issued,0\n"
                 "gpu.sm[3].unit[0].idle,0\n"
                 "gpu.sm[3].unit[0].lanes[0-7],0\n"
                 "gpu.sm[3].unit[0].lanes[8-15],0\n"
                 "gpu.sm[3].unit[0].lanes[16-23],0\n"
                 "gpu.sm[3].unit[0].lanes[24+],0\n"
                 "gpu.sm[3].unit[0].lanes.samples,0\n"
                 "gpu.sm[3].unit[0].lanes.sum,0\n"
                 "gpu.sm[3].unit[1].issued,0\n"
                 "gpu.sm[3].unit[1].idle,0\n"
                 "gpu.sm[3].unit[1].lanes[0-7],0\n"
                 "gpu.sm[3].unit[1].lanes[8-15],0\n"
                 "gpu.sm[3].unit[1].lanes[16-23],0\n"
                 "gpu.sm[3].unit[1].lanes[24+],0\n"
                 "gpu.sm[3].unit[1].lanes.samples,0\n"
                 "gpu.sm[3].unit[1].lanes.sum,0\n"
                 "gpu.sm[3].per_warp[0],5\n"
                 "gpu.sm[3].energy_j,0\n");
    const std::string header = warpkit::stats_csv_header(small);
    const std::string row = warpkit::stats_csv_row(small);
    CHECK(header.substr(0, 24) == "cycles,unit[0].issued,un");
    CHECK(row.substr(0, 6) == "2,0,0,");
    // As many cells as columns.
    CHECK(std::count(header.begin(), header.end(), ',') == std::count(row.begin(), row.end(), ','));
}
