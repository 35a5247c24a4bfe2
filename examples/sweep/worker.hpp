#pragma once
// Running one point of a sweep: its command line, the child process, its row of the table.

#include "spec.hpp"

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

namespace sweep {

/// Where the tools are and where this process's children write.
struct run_env {
    std::filesystem::path tools;   ///< folder of the warpkit-* executables
    std::filesystem::path scratch; ///< a private folder of this process
    /// Where a finished point's tool output is kept, as POINT.json or POINT.jsonl (the
    /// statistics file of the tool); empty: it is deleted once its row is made.
    std::filesystem::path keep;
};

/// The folder that keeps the tools' outputs of the sweep writing PREFIX.csv: PREFIX.outputs.
[[nodiscard]] std::filesystem::path outputs_folder(const std::string& prefix);

/// The table's columns: point, workload, preset, seed, the grid's keys, the statistics, the
/// derived figures, status, error, wall_s.
[[nodiscard]] std::vector<std::string> columns(const spec& s);

/// The columns that identify `p`: point, workload, preset, seed and the grid's values.
[[nodiscard]] json point_key(const spec& s, const point& p);

/// The command line that runs `p`; its statistics go to `json_file` (or to stdout for tools
/// that print them).
[[nodiscard]] std::vector<std::string> command(const spec& s, const point& p, const run_env& env,
                                               const std::filesystem::path& json_file);

/// Runs `p` (scratch files under env.scratch/slot<slot>) and returns its row. Never throws for
/// a point that fails: the row says why. When `stop` is set meanwhile, the child is killed and
/// the row's status is "interrupted" (such a row is not recorded).
[[nodiscard]] json run_point(const spec& s, const point& p, const run_env& env, unsigned slot,
                             const std::atomic<bool>* stop = nullptr);

/// Checks that every tool the spec needs is in env.tools and that the tools accept every grid
/// and "set" parameter (a short run per preset and value position); throws warpkit::error
/// "FILE: grid.KEY: ..." naming the key path otherwise.
void check_tools_and_params(const spec& s, const run_env& env);

/// True when the rows hold the same point and results (every column but wall_s).
[[nodiscard]] bool same_result(const json& a, const json& b);

} // namespace sweep
