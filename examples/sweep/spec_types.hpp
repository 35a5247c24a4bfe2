#pragma once
// The data of a sweep specification (workloads, presets, grid axes, seeds, statistics and
// derived figures), one point of its expansion, and the error a bad spec raises.

#include <warpkit/core/error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sweep {

using json = nlohmann::ordered_json;

/// The most points one spec may expand to.
inline constexpr std::uint64_t max_points = 1'000'000;

/// The warpkit tool a workload runs under.
enum class tool_kind {
    run,   ///< warpkit-run: a warpkit-ISA kernel or a PTX entry with its launch file
    power, ///< warpkit-power report: a warpkit-ISA kernel with the power model's energy report
    cuda,  ///< warpkit-cuda: a CUDA program under the library's CUDA runtime
    gates  ///< warpkit-warped-gates: a synthetic instruction mix on one SM
};

/// The executable name of `t`'s tool.
[[nodiscard]] inline std::string_view tool_name(tool_kind t) noexcept {
    switch (t) {
    case tool_kind::run:
        return "warpkit-run";
    case tool_kind::power:
        return "warpkit-power";
    case tool_kind::cuda:
        return "warpkit-cuda";
    case tool_kind::gates:
        return "warpkit-warped-gates";
    }
    return "";
}

/// One workload of the spec.
struct workload {
    std::string name; ///< the workload column's value (unique in the spec)
    tool_kind tool = tool_kind::run;
    std::filesystem::path kernel;  ///< run, power: warpkit-ISA kernel (.s or .hex)
    std::filesystem::path ptx;     ///< run: PTX file
    std::string entry;             ///< run: PTX entry
    std::filesystem::path launch;  ///< run: launch file of the PTX entry
    std::filesystem::path program; ///< cuda: the program
    std::vector<std::string> args; ///< cuda: its arguments
    bool cuda_power = false;       ///< cuda: warpkit-cuda --power (a `power` in every record)
    std::string mix;               ///< gates: synthetic mix name
    std::vector<std::pair<std::string, std::string>> fixed; ///< "set": this workload's settings
    std::string where; ///< key path in the spec, e.g. "workloads[2]"

    /// True when the workload runs on a GPU preset (all but synthetic mixes).
    [[nodiscard]] bool takes_preset() const noexcept { return tool != tool_kind::gates; }
    /// True when the workload takes a seed (synthetic mixes).
    [[nodiscard]] bool takes_seed() const noexcept { return tool == tool_kind::gates; }
};

/// One swept parameter and its values as `--set key=value` text.
struct axis {
    std::string key;
    std::vector<std::string> values;
    std::string where; ///< key path in the spec, e.g. "grid.zip[0].sms"
};

/// Axes that advance together (a zip group) or one axis alone; groups are crossed.
struct axis_group {
    std::vector<axis> axes;
    [[nodiscard]] std::size_t size() const noexcept {
        return axes.empty() ? 0 : axes.front().values.size();
    }
};

/// One step of a statistic path: an object key, an array index, the array element whose
/// field `key` equals `value` (`techniques[technique=GATES]`), or every element (`*`: the
/// rest of the path is taken in each and the numbers added up, `true` counting 1).
struct path_step {
    enum class kind { key, index, select, all } k = kind::key;
    std::string key;
    std::size_t index = 0;
    std::string value;
};

/// A kept statistic: its column and where it is in the run's JSON.
struct stat_spec {
    std::string column;
    std::string path;
    std::vector<path_step> steps;
};

/// A node of a derived figure's expression (postfix order).
struct expr_op {
    enum class kind { number, column, add, sub, mul, div, neg } k = kind::number;
    double number = 0;
    std::size_t column = 0; ///< index into the statistics then derived figures before it
};

/// A derived figure: its column and its expression over earlier columns.
struct derived_spec {
    std::string column;
    std::string text;
    std::vector<expr_op> code;
};

/// A sweep: workloads x presets x grid x seeds, the statistics to keep and the time limit.
struct spec {
    std::vector<workload> workloads;
    std::vector<std::string> presets;
    std::vector<std::pair<std::string, std::string>> fixed; ///< "set": every point's settings
    std::vector<axis_group> grid;
    std::vector<std::uint64_t> seeds;
    std::vector<stat_spec> stats;
    std::vector<derived_spec> derived;
    double timeout_s = 600;
    std::string file; ///< the spec's file name (in messages)

    /// Every grid key in column order.
    [[nodiscard]] std::vector<std::string> param_keys() const {
        std::vector<std::string> k;
        for (const auto& g : grid)
            for (const auto& a : g.axes)
                k.push_back(a.key);
        return k;
    }
};

/// One point of the sweep.
struct point {
    std::uint64_t index = 0;
    std::string id; ///< "p" and the zero-padded index: sorts as the expansion order
    const workload* work = nullptr;
    std::string preset;                                      ///< empty: the workload takes none
    std::vector<std::pair<std::string, std::string>> params; ///< grid keys and values in order
    std::optional<std::uint64_t> seed;
};

/// A bad spec: "FILE: KEY.PATH: what is wrong".
[[nodiscard]] inline warpkit::error spec_error(const spec& s, std::string_view where,
                                               std::string_view what) {
    return warpkit::error(s.file + ": " + std::string(where) + ": " + std::string(what));
}

} // namespace sweep
