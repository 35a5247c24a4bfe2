#pragma once
// What the local (threads) and MPI drivers of warpkit-sweep share: the prepared sweep, the
// table being written, the progress line.

#include "spec.hpp"
#include "table.hpp"
#include "worker.hpp"

#include "../common/progress.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sweep {

/// Command-line options of a sweep run.
struct options {
    std::string spec_file;
    std::string out;          ///< output prefix (default: the spec's name)
    unsigned workers = 1;     ///< local threads, each running one child at a time
    std::uint64_t shard = 0;  ///< this shard
    std::uint64_t shards = 1; ///< of this many
    std::string tools;        ///< folder of the warpkit-* tools (default: ours)
    bool quiet = false;
    bool list = false;
    bool keep_outputs = false; ///< keep each finished point's tool output in PREFIX.outputs/
    json record;               ///< the header of PREFIX.json (examples/common/output.hpp)
};

/// Counts for the progress line and the summary.
struct tally {
    std::uint64_t total = 0;   ///< points this run has to do
    std::uint64_t skipped = 0; ///< points already in the table
    std::uint64_t done = 0;
    std::uint64_t failed = 0; ///< failed or timed out (also counted in done)
    std::uint64_t running = 0;
};

/// A sweep ready to run: its spec, environment, the points still to do, and the table.
class sweep_run {
public:
    sweep_run(spec s, run_env env, const options& o);

    [[nodiscard]] const spec& the_spec() const noexcept { return spec_; }
    [[nodiscard]] const run_env& env() const noexcept { return env_; }
    /// Indices of the points still to run (this shard's, not yet in the table), in order.
    [[nodiscard]] const std::vector<std::uint64_t>& todo() const noexcept { return todo_; }

    /// A point starts (progress only).
    void started();
    /// Records a finished point's row: appended to the table, flushed.
    void finished(const json& row);
    /// Rewrites the table sorted by point id, writes PREFIX.json (the tool, its command line,
    /// the spec as "params", the counts); prints the summary. Returns the exit code:
    /// 0 when every row of the table is ok, 1 when some failed or timed out, 130 when
    /// interrupted.
    int finish(bool interrupted);
    /// Redraws the progress line (on a terminal, not --quiet) at most every 0.2 s.
    void progress(bool force = false);

private:
    spec spec_;
    run_env env_;
    options opt_;
    std::vector<std::string> columns_;
    table_files files_;
    std::map<std::string, json> rows_;
    json spec_json_; ///< the spec file's JSON: the "params" of PREFIX.json
    std::unique_ptr<table_appender> out_;
    std::vector<std::uint64_t> todo_;
    tally tally_;
    std::mutex mutex_;
    example::progress_line line_; ///< on a terminal, not --quiet; its clock times the run
};

/// True when this process was started by mpirun / an MPI launcher (and MPI is built in).
[[nodiscard]] bool mpi_launched() noexcept;

/// Runs the sweep under MPI: rank 0 prepares it and hands points to the other ranks one at a
/// time; returns the process's exit code. Only called when mpi_launched().
[[nodiscard]] int run_mpi(const options& o, std::atomic<bool>& stop);

/// Prepares a sweep (parse, check tools and parameters, open the table); throws warpkit::error.
[[nodiscard]] std::unique_ptr<sweep_run> prepare(const options& o);

/// A fresh scratch folder for this process's children (under $TMPDIR).
[[nodiscard]] std::filesystem::path make_scratch();

/// The folder of the running executable (where the other warpkit tools are built).
[[nodiscard]] std::filesystem::path own_folder();

/// Reads and parses the spec file.
[[nodiscard]] spec load_spec(const std::string& file);

} // namespace sweep
