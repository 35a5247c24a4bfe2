#pragma once
// warpkit-run --trace: the kernels of an Accel-Sim trace (kernelslist.g) through the timing
// model of a preset (examples/run/trace.cpp, the one translation unit that instantiates the
// trace SMs).

#include "../common/progress.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace run_trace {

/// What --trace was given.
struct options {
    std::string list;                   ///< kernelslist.g
    std::string preset;
    std::vector<std::string> overrides; ///< key=value settings of the preset
    std::string kernels;                ///< --kernels: names and launch indices (from 0)
    std::string family;                 ///< --sass-family; empty: from each trace's header
    std::string opcodes;                ///< --opcodes: an opcode table file
    std::string json_out;               ///< --json
    bool print_params = false;
};

/// Runs every kernel of the list the filter keeps, in order, on fresh SMs of the preset whose
/// L2 and DRAM carry over from kernel to kernel; prints a summary per kernel and writes `record` with a "kernels" array
/// (one record per kernel, as --ptx writes) to json_out. Throws warpkit::error (parse_error
/// naming file and line for a bad list or trace).
void run(const options& o, nlohmann::json record, example::progress_line& progress);

} // namespace run_trace
