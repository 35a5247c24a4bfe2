#include <warpkit/power/model.hpp>
#include <warpkit/power/reference.hpp>
#include <warpkit/power/report.hpp>
#include <warpkit/power/trace.hpp>

#include <doctest/doctest.h>

#include "near.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace wp = warpkit::power;
using power_test::near;

TEST_CASE("a power trace has one CSV row per interval, components as columns") {
    const wp::model m;
    wp::power_trace t;
    CHECK(t.sample_cycles() == 500);
    auto a = wp::gtx480_reference_activity();
    a.cycles = 500;
    t.record(m, a);
    a.sms[0].active_cycles = 0;
    t.record(m, a, wp::operating_point{350, 0.8});
    REQUIRE(t.size() == 2);
    CHECK(t.rows()[1].start_cycle == 500);
    CHECK(t.rows()[1].start_seconds == near(500 / 700e6));
    CHECK(t.rows()[1].mhz == 350);
    CHECK(t.rows()[0].active_sms == 15);
    CHECK(t.rows()[1].active_sms == 14);
    const auto b = m.evaluate(a);
    CHECK(t.total_w()[0] > 0);

    std::ostringstream os;
    t.write_csv(os);
    std::istringstream in(os.str());
    std::string line;
    std::getline(in, line);
    CHECK(line == wp::power_trace::csv_header());
    const auto columns = std::count(line.begin(), line.end(), ',') + 1;
    CHECK(columns == 5 + static_cast<long>(wp::component_count) + 5);
    CHECK(line.find("rf_banks") != std::string::npos);
    int rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        CHECK(std::count(line.begin(), line.end(), ',') + 1 == columns);
    }
    CHECK(rows == 2);
    (void)b;
}

TEST_CASE("a streamed power trace writes write_csv's text and keeps only its last row") {
    const wp::model m;
    wp::power_trace kept;
    wp::power_trace streamed;
    std::ostringstream os;
    streamed.stream_to(os);
    auto a = wp::gtx480_reference_activity();
    for (int i = 0; i < 5; ++i) {
        a.cycles = 500 - 100 * static_cast<std::uint64_t>(i == 4); // the last one shorter
        a.sms[0].active_cycles = static_cast<std::uint64_t>(100 * i);
        kept.record(m, a);
        streamed.record(m, a, m.nominal());
        REQUIRE(streamed.size() == 1);
        CHECK(streamed.rows().back().start_cycle == kept.rows().back().start_cycle);
    }
    std::ostringstream whole;
    whole.precision(3); // the rows' precision is their own; the stream's comes back
    kept.write_csv(whole);
    CHECK(whole.precision() == 3);
    CHECK(os.str() == whole.str());
}

TEST_CASE("the energy report sums components, SMs and groups consistently") {
    const wp::model m;
    auto a = wp::gtx480_reference_activity();
    a.sms[2].active_cycles = 5000;
    const auto b = m.evaluate(a);
    wp::energy_account e;
    e.add(b);
    e.add(b);
    CHECK(e.total_j() == near(2 * b.energy_j()));
    CHECK(e.average_w() == near(b.total_w()));
    double per_sm = 0;
    for (const auto& s : e.sms())
        per_sm += s.total_j();
    double chip = 0;
    for (std::size_t i = wp::sm_component_count; i < wp::component_count; ++i)
        chip += e.dynamic_j(wp::component_at(i)) + e.leakage_j(wp::component_at(i));
    CHECK(per_sm + chip == near(e.total_j()));
    double groups = 0;
    for (double g : e.figure12_j())
        groups += g;
    CHECK(groups == near(e.dynamic_total_j() - e.gating_overhead_j()));
    CHECK(e.figure12_j()[static_cast<std::size_t>(wp::figure12_group::idle_sm)] ==
          near(e.idle_sm_j()));

    const auto j = wp::to_json(e, "ref");
    CHECK(j["kernel"] == "ref");
    CHECK(j["sms"].size() == 15);
    CHECK(j["components"]["dram"]["dynamic_j"].get<double>() ==
          near(e.dynamic_j(wp::component::dram)));
    CHECK(j["figure12"]["execution_units"]["share"].get<double>() > 0.15);
    const std::string csv = wp::to_csv(e, "ref");
    CHECK(csv.rfind("kernel,scope,name,dynamic_j,leakage_j,energy_j,average_w\n", 0) == 0);
    CHECK(csv.find("ref,component,l2,") != std::string::npos);
    CHECK(csv.find("ref,sm,14,") != std::string::npos);
}
