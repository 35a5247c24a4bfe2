// warpkit-sweep: design-space sweeps over the warpkit tools. A spec (JSON) names workloads,
// presets, a grid of parameters, seeds and the statistics to keep; every point runs as a child
// process of warpkit-run, warpkit-power, warpkit-cuda or warpkit-warped-gates with a time
// limit, and becomes one row of a table (CSV and JSON lines) written point by point.
//
//   warpkit-sweep SPEC.json [--out PREFIX] [--workers N] [--shard I/N] [--tools DIR]
//                 [--keep-outputs] [--quiet] [--list]
//   mpirun -np N warpkit-sweep SPEC.json ...     rank 0 hands points to ranks 1..N-1
//   warpkit-sweep merge OUT IN...                joins shards' tables into OUT.csv, OUT.jsonl
//
// Beside the table, a sweep run writes PREFIX.summary.json: the record of
// examples/common/output.hpp (the tool, its command line, the spec as "params") with the run's
// counts.
#include "driver.hpp"

#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace sweep {

spec load_spec(const std::string& file) {
    spec s = parse_spec(warpkit::read_file(file, std::uint64_t{64} << 20), file);
    // Absolute paths: a tool runs a bare program name from PATH, not from the current folder.
    for (auto& w : s.workloads)
        for (auto* p : {&w.kernel, &w.ptx, &w.launch, &w.program})
            if (!p->empty()) *p = std::filesystem::absolute(*p).lexically_normal();
    return s;
}

std::filesystem::path summary_file(const std::filesystem::path& csv) {
    auto summary = csv;
    return summary.replace_extension(".summary.json");
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    const auto resolved = [](const std::filesystem::path& p) {
        std::error_code ec;
        auto r = std::filesystem::weakly_canonical(p, ec);
        return ec ? std::filesystem::absolute(p, ec).lexically_normal() : r;
    };
    return resolved(a) == resolved(b);
}

std::filesystem::path own_folder() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::filesystem::current_path();
    return self.parent_path();
}

std::filesystem::path make_scratch() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(t != nullptr && *t != '\0' ? t : "/tmp") + "/warpkit-sweep.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr)
        throw warpkit::error("cannot create a scratch folder '" + tmpl +
                             "': " + std::strerror(errno));
    return tmpl;
}

std::unique_ptr<sweep_run> prepare(const options& o) {
    spec s = load_spec(o.spec_file);
    run_env env;
    env.tools = o.tools.empty() ? own_folder() : std::filesystem::path(o.tools);
    env.scratch = make_scratch();
    if (o.keep_outputs) env.keep = outputs_folder(o.out);
    try {
        check_tools_and_params(s, env);
        return std::make_unique<sweep_run>(std::move(s), env, o);
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove_all(env.scratch, ec);
        throw;
    }
}

sweep_run::sweep_run(spec s, run_env env, const options& o)
    : spec_(std::move(s)), env_(std::move(env)), opt_(o), columns_(columns(spec_)),
      files_(files_for(o.out)), line_("warpkit-sweep", example::progress_options{o.quiet}) {
    rows_ = read_rows(files_.jsonl, &columns_);
    // The spec as written (load_spec read and parsed it a moment ago), for PREFIX.json.
    spec_json_ =
        json::parse(warpkit::read_file(o.spec_file, std::uint64_t{64} << 20), nullptr, false, true);
    const std::uint64_t n = point_count(spec_);
    for (auto& [id, row] : rows_) {
        // A row must be the point of that id in this spec: same workload, preset, seed and
        // parameters.
        std::uint64_t index = 0;
        const bool numeric = id.size() > 1 && id[0] == 'p' &&
                             id.find_first_not_of("0123456789", 1) == std::string::npos &&
                             id.size() < 20;
        if (numeric) index = std::stoull(id.substr(1));
        if (!numeric || index >= n || point_id(index, n) != id)
            throw warpkit::error(files_.jsonl.string() + ": point '" + id + "' is not a point of " +
                                 spec_.file + " (" + std::to_string(n) +
                                 " points): the table belongs to another spec");
        const point p = make_point(spec_, index);
        const json want = point_key(spec_, p);
        json have;
        for (const auto& [k, v] : want.items())
            have[k] = row[k];
        if (have != want)
            throw warpkit::error(files_.jsonl.string() + ": point '" + id + "' was " + have.dump() +
                                 ", but " + spec_.file + " now makes it " + want.dump() +
                                 ": the spec changed; write to a new --out");
    }
    write_table(files_, columns_, rows_);
    for (std::uint64_t i = o.shard; i < n; i += o.shards) {
        if (rows_.contains(point_id(i, n)))
            ++tally_.skipped;
        else
            todo_.push_back(i);
    }
    tally_.total = todo_.size();
    out_ = std::make_unique<table_appender>(files_);
}

void sweep_run::started() {
    const std::lock_guard lock(mutex_);
    ++tally_.running;
}

void sweep_run::finished(const json& row) {
    const std::lock_guard lock(mutex_);
    --tally_.running;
    if (row["status"] == "interrupted") return;
    out_->append(row);
    rows_.emplace(row["point"].get<std::string>(), row);
    ++tally_.done;
    if (row["status"] != "ok") ++tally_.failed;
}

void sweep_run::progress(bool force) {
    const std::lock_guard lock(mutex_);
    if (!line_.enabled()) return;
    std::string eta = "--:--:--";
    const double left = example::seconds_left(
        line_.elapsed(), static_cast<double>(tally_.done) / static_cast<double>(tally_.total));
    if (left >= 0) {
        const auto secs = static_cast<long long>(std::llround(left));
        char buf[32];
        std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", secs / 3600, secs / 60 % 60,
                      secs % 60);
        eta = buf;
    }
    char text[256];
    std::snprintf(
        text, sizeof text, "warpkit-sweep: %llu/%llu done, %llu failed, %llu running, finish in %s",
        static_cast<unsigned long long>(tally_.done), static_cast<unsigned long long>(tally_.total),
        static_cast<unsigned long long>(tally_.failed),
        static_cast<unsigned long long>(tally_.running), eta.c_str());
    line_.draw(text, force);
}

int sweep_run::finish(bool interrupted) {
    const std::lock_guard lock(mutex_);
    out_.reset();
    write_table(files_, columns_, rows_);
    std::error_code ec;
    std::filesystem::remove_all(env_.scratch, ec);
    const double elapsed = line_.elapsed();
    line_.finish();
    const auto bad = static_cast<std::size_t>(std::count_if(
        rows_.begin(), rows_.end(), [](const auto& r) { return r.second["status"] != "ok"; }));
    auto record = opt_.record;
    record["params"] = spec_json_;
    record["points"] = point_count(spec_);
    record["rows"] = rows_.size();
    record["failed_rows"] = bad;
    record["points_run"] = tally_.done;
    record["points_skipped"] = tally_.skipped;
    record["interrupted"] = interrupted;
    record["elapsed_seconds"] = elapsed;
    record["table"] = {{"csv", files_.csv.string()}, {"jsonl", files_.jsonl.string()}};
    example::write_json_file(summary_file(files_.csv).string(), record);
    if (!opt_.quiet || interrupted)
        std::fprintf(stderr,
                     "warpkit-sweep: %llu of %llu points run in %.1f s (%llu already in the "
                     "table)%s; %zu rows, %zu failed or timed out, in %s and %s\n",
                     static_cast<unsigned long long>(tally_.done),
                     static_cast<unsigned long long>(tally_.total), elapsed,
                     static_cast<unsigned long long>(tally_.skipped),
                     interrupted ? "; interrupted: run the same command to resume" : "",
                     rows_.size(), bad, files_.csv.c_str(), files_.jsonl.c_str());
    if (interrupted) return 130;
    return bad == 0 ? 0 : 1;
}

} // namespace sweep

namespace {

namespace wk = warpkit;
using sweep::json;

// Blocks the termination signals in every thread and turns them into `stop` on a thread of
// its own, so that children are killed before the sweep ends.
class signal_watch {
public:
    explicit signal_watch(std::atomic<bool>& stop) : stop_(stop) {
        sigemptyset(&set_);
        // SIGUSR2 only wakes the watching thread when the watch ends.
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR2})
            sigaddset(&set_, s);
        pthread_sigmask(SIG_BLOCK, &set_, nullptr);
        thread_ = std::thread([this] {
            int sig = 0;
            while (sigwait(&set_, &sig) == 0) {
                if (sig == SIGUSR2 && done_.load()) return;
                if (sig != SIGUSR2) stop_.store(true);
            }
        });
    }
    signal_watch(const signal_watch&) = delete;
    signal_watch& operator=(const signal_watch&) = delete;
    ~signal_watch() {
        done_.store(true);
        pthread_kill(thread_.native_handle(), SIGUSR2);
        thread_.join();
    }

private:
    std::atomic<bool>& stop_;
    std::atomic<bool> done_{false};
    sigset_t set_{};
    std::thread thread_;
};

int run_local(const sweep::options& o, std::atomic<bool>& stop) {
    auto run = sweep::prepare(o);
    const auto& todo = run->todo();
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> threads;
    std::atomic<unsigned> live{o.workers};
    for (unsigned t = 0; t < o.workers; ++t)
        threads.emplace_back([&, t] {
            for (;;) {
                const std::size_t i = next.fetch_add(1);
                if (i >= todo.size() || stop.load()) break;
                run->started();
                const auto p = sweep::make_point(run->the_spec(), todo[i]);
                run->finished(sweep::run_point(run->the_spec(), p, run->env(), t, &stop));
            }
            --live;
        });
    while (live.load() > 0) {
        run->progress();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (auto& th : threads)
        th.join();
    return run->finish(stop.load());
}

int list_points(const sweep::options& o) {
    const auto s = sweep::load_spec(o.spec_file);
    const std::uint64_t n = sweep::point_count(s);
    std::uint64_t shown = 0;
    for (std::uint64_t i = o.shard; i < n; i += o.shards) {
        const auto p = sweep::make_point(s, i);
        std::string line = p.id + " " + p.work->name;
        if (!p.preset.empty()) line += " preset=" + p.preset;
        if (p.seed) line += " seed=" + std::to_string(*p.seed);
        for (const auto& [k, v] : p.params)
            line += " " + k + "=" + v;
        std::puts(line.c_str());
        ++shown;
    }
    std::fprintf(stderr, "warpkit-sweep: %llu of %llu points\n",
                 static_cast<unsigned long long>(shown), static_cast<unsigned long long>(n));
    return 0;
}

int merge_main(int argc, char** argv) {
    CLI::App app{"warpkit-sweep merge: join the tables of a sweep's shards"};
    app.name("warpkit-sweep merge");
    std::string out;
    std::vector<std::string> inputs;
    app.add_option("OUT", out, "output prefix: writes OUT.csv and OUT.jsonl")->required();
    app.add_option("IN", inputs, "shard tables (prefix, .csv or .jsonl: the .jsonl is read)")
        ->required();
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    std::map<std::string, json> rows;
    std::vector<std::string> cols;
    for (const auto& in : inputs) {
        const auto f = sweep::files_for(in);
        std::error_code ec;
        // A missing file or a folder: read_file's message names the path and the reason.
        if (!std::filesystem::is_regular_file(f.jsonl, ec)) (void)wk::read_file(f.jsonl);
        for (auto& [id, row] : sweep::read_rows(f.jsonl, cols.empty() ? nullptr : &cols)) {
            std::vector<std::string> keys;
            for (const auto& [k, v] : row.items())
                keys.push_back(k);
            if (cols.empty()) cols = keys;
            if (keys != cols)
                throw wk::error(f.jsonl.string() + ": point '" + id +
                                "' has other columns than the table's first rows");
            const auto it = rows.find(id);
            if (it == rows.end()) {
                rows.emplace(id, std::move(row));
            } else if (!sweep::same_result(it->second, row)) {
                throw wk::error(f.jsonl.string() + ": point '" + id +
                                "' differs from the same point in an earlier table");
            }
        }
    }
    if (rows.empty()) throw wk::error("no rows in " + std::to_string(inputs.size()) + " tables");
    const auto f = sweep::files_for(out);
    sweep::write_table(f, cols, rows);
    std::fprintf(stderr, "warpkit-sweep merge: %zu rows from %zu tables into %s and %s\n",
                 rows.size(), inputs.size(), f.csv.c_str(), f.jsonl.c_str());
    return 0;
}

int tool_main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "merge") return merge_main(argc - 1, argv + 1);
    CLI::App app{"warpkit-sweep: run a design-space sweep over the warpkit tools (see "
                 "README.md, \"Sweeps on a cluster\"); `warpkit-sweep merge OUT IN...` joins "
                 "shards' tables"};
    sweep::options o;
    std::string shard;
    app.add_option("SPEC", o.spec_file, "the sweep spec (JSON)")->required();
    app.add_option(
        "--out", o.out,
        "output prefix: PREFIX.csv and PREFIX.jsonl, and the run's record "
        "PREFIX.summary.json (default: the spec's name in the current folder); an existing "
        "table is resumed");
    app.add_option("--workers", o.workers, "points run at once on this machine (default 1)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--shard", shard,
                   "run only shard I of N (points I, I+N, I+2N, ...; 0 <= I < N), e.g. "
                   "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT");
    app.add_option("--tools", o.tools,
                   "folder of warpkit-run and the other tools (default: warpkit-sweep's own)");
    app.add_flag("--keep-outputs", o.keep_outputs,
                 "keep each finished point's tool output (its statistics JSON or JSON lines, "
                 "every launch of a CUDA program) as PREFIX.outputs/POINT.json[l]");
    app.add_flag("--quiet", o.quiet, "no progress line and no summary");
    app.add_flag("--list", o.list, "print the points (this shard's) and exit, run nothing");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    if (!shard.empty()) {
        const auto slash = shard.find('/');
        const auto digits = [](std::string_view t) {
            return !t.empty() && t.size() < 10 &&
                   t.find_first_not_of("0123456789") == std::string_view::npos;
        };
        if (slash == std::string::npos || !digits(shard.substr(0, slash)) ||
            !digits(shard.substr(slash + 1)))
            throw wk::error("--shard '" + shard + "': expected I/N, e.g. 3/8");
        o.shard = std::stoull(shard.substr(0, slash));
        o.shards = std::stoull(shard.substr(slash + 1));
        if (o.shards == 0 || o.shard >= o.shards)
            throw wk::error("--shard '" + shard + "': I must be in [0, N)");
    }
    if (o.out.empty()) o.out = std::filesystem::path(o.spec_file).stem().string();
    if (const auto summary = sweep::summary_file(sweep::files_for(o.out).csv);
        sweep::same_file(summary, o.spec_file))
        throw wk::error("--out '" + o.out + "': the summary " + summary.string() +
                        " would overwrite the spec; choose another --out");
    if (o.list) return list_points(o);
    o.record = example::record_header<json>("warpkit-sweep", argc, argv);
    std::atomic<bool> stop{false};
    if (sweep::mpi_launched() && o.workers != 1)
        throw wk::error("--workers: under mpirun every rank but rank 0 runs one point at a "
                        "time; give more ranks instead");
    // Before MPI starts its threads, so that they too leave the signals to the watch.
    const signal_watch watch(stop);
    if (sweep::mpi_launched()) return sweep::run_mpi(o, stop);
    return run_local(o, stop);
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-sweep", [&] { return tool_main(argc, argv); });
}
