// warpkit-ppa: area and power of one multiprocessor versus its SPs (paper 004, Chapter 5),
// from the analytic model calibrated to Table 5.3, and where more SMs beat wider SMs.
//
//   warpkit-ppa [--set key=value]... [--json FILE] [--csv FILE]
//   --json and --csv write the printed table, one row per multiprocessor size
//   (examples/common/output.hpp's schema).
#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/ppa/sm_scaling.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace ppa = warpkit::ppa;
using json = nlohmann::ordered_json; // the table's columns in their printed order

/// The sizes the table shows: 5 doublings from the first.
constexpr std::size_t table_sizes = 5;

/// Writes the table as --csv and --json ask: one row per multiprocessor size, with the
/// model's fit and the crossover in the JSON record. The last size has no doubling after it:
/// its doubling cells stay empty (null in JSON).
void write_outputs(const example::output_files& out, json record, const ppa::scaling_targets& t,
                   const ppa::sm_scaling_model& m) {
    example::csv_table table({"sps", "area_mm2", "power_w", "sps_per_mm2", "power_mw_per_sp",
                              "doubling_sps_per_area_gain_pct", "paper_sps_per_area_gain_pct",
                              "doubling_power_per_sp_change_pct", "paper_power_per_sp_change_pct"});
    json rows = json::array();
    double n = t.first_sps;
    for (std::size_t i = 0; i < table_sizes; ++i, n *= 2) {
        const bool doubled = i + 1 < table_sizes;
        const auto if_doubled = [&](double v) { return doubled ? json(v) : json(nullptr); };
        json row = {{"sps", static_cast<std::uint64_t>(n)},
                    {"area_mm2", m.area_mm2(n)},
                    {"power_w", m.power_w(n)},
                    {"sps_per_mm2", n / m.area_mm2(n)},
                    {"power_mw_per_sp", 1000 * m.power_w(n) / n},
                    {"doubling_sps_per_area_gain_pct", if_doubled(m.area_gain_pct(n))},
                    {"paper_sps_per_area_gain_pct", if_doubled(t.area_gain_pct[i])},
                    {"doubling_power_per_sp_change_pct", if_doubled(-m.power_reduction_pct(n))},
                    {"paper_power_per_sp_change_pct", if_doubled(-t.power_reduction_pct[i])}};
        table.row();
        for (const auto& cell : row)
            table.add_formatted(cell.is_null() ? std::string() : cell.dump());
        rows.push_back(std::move(row));
    }
    if (!out.csv.empty()) table.write(out.csv);
    if (out.json.empty()) return;
    record["params"] = warpkit::params_to_json(t);
    record["model"] = {{"area_mm2", {m.area().c0, m.area().c1, m.area().c2}},
                       {"power_w", {m.power().c0, m.power().c1, m.power().c2}}};
    record["sizes"] = std::move(rows);
    const double cross = m.crossover_sps(t.first_sps);
    record["crossover_sps"] = cross > 0 ? json(cross) : json(nullptr);
    example::write_json_file(out.json, record);
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-ppa: multiprocessor area and power versus streaming processors"};
    std::vector<std::string> overrides;
    example::output_files outputs;
    app.add_option("--set", overrides,
                   "override a calibration target, e.g. area_gain_pct[1]=80 (repeatable)");
    app.add_option("--json", outputs.json,
                   "write the params, the model and the table (a row per size) as JSON");
    app.add_option("--csv", outputs.csv, "write the table as CSV, a row per size");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        warpkit::ppa::scaling_targets t;
        warpkit::apply_overrides(t, overrides);
        const auto m = warpkit::ppa::sm_scaling_model::calibrate(t);
        std::printf("model (65 nm, 300 MHz): area = %.4f + %.5f n + %.6f n^2 mm^2, "
                    "power = %.4f + %.5f n + %.6f n^2 W\n\n",
                    m.area().c0, m.area().c1, m.area().c2, m.power().c0, m.power().c1,
                    m.power().c2);
        std::printf("%5s %10s %9s %10s %10s   %-24s %-24s\n", "SPs", "area mm^2", "power W",
                    "SPs/mm^2", "mW/SP", "doubling: SPs/area", "power/SP");
        double n = t.first_sps;
        for (std::size_t i = 0; i < table_sizes; ++i, n *= 2) {
            std::printf("%5.0f %10.3f %9.3f %10.2f %10.1f", n, m.area_mm2(n), m.power_w(n),
                        n / m.area_mm2(n), 1000 * m.power_w(n) / n);
            if (i + 1 < table_sizes)
                std::printf("   %+6.1f%% (paper %+4.0f%%)   %+6.1f%% (paper %+4.0f%%)\n",
                            m.area_gain_pct(n), t.area_gain_pct[i], -m.power_reduction_pct(n),
                            -t.power_reduction_pct[i]);
            else
                std::printf("\n");
        }
        const double cross = m.crossover_sps(t.first_sps);
        if (cross > 0)
            std::printf("\nFrom %.0f SPs per multiprocessor on, doubling the SPs lowers SPs per "
                        "unit area: scale the number of multiprocessors instead (best: %.0f "
                        "SPs per multiprocessor).\n",
                        cross, cross);
        else
            std::printf("\nDoubling the SPs pays up to the largest size examined.\n");
        write_outputs(outputs, example::record_header<json>("warpkit-ppa", argc, argv), t, m);
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-ppa: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-ppa", [&] { return tool_main(argc, argv); });
}
