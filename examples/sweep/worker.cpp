#include "worker.hpp"

#include "process.hpp"
#include "table.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

namespace sweep {

namespace {

constexpr std::string_view gates_workload_prefix = "workload.";

// A grid or "set" parameter as the tool's option and its key=value.
std::pair<std::string, std::string> option_for(const workload& w, const std::string& key,
                                               const std::string& value) {
    if (w.tool == tool_kind::gates && key.starts_with(gates_workload_prefix))
        return {"--workload", key.substr(gates_workload_prefix.size()) + "=" + value};
    return {"--set", key + "=" + value};
}

// The line of the child's stderr that says what went wrong: the first line the tool prefixed
// with its name (its error), else the last non-empty line.
std::string error_line(const std::string& err, std::string_view tool) {
    std::istringstream in(err);
    std::string line;
    std::string last;
    const std::string prefix = std::string(tool) + ":";
    while (std::getline(in, line)) {
        if (line.starts_with(prefix)) return line;
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    }
    return last;
}

std::string one_line(std::string s, std::size_t max = 400) {
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (s.size() > max) s = s.substr(0, max) + "...";
    return s;
}

std::string read_or_empty(const std::filesystem::path& p) {
    try {
        return warpkit::read_file(p, std::uint64_t{1} << 30);
    } catch (const warpkit::error&) {
        return {};
    }
}

bool executable(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// The tool's JSON output of a finished point.
json read_output(const workload& w, const std::filesystem::path& json_file,
                 const std::filesystem::path& out_file) {
    if (w.tool == tool_kind::gates) {
        const std::string text = warpkit::read_file(out_file);
        return json::parse(text);
    }
    const std::string text = warpkit::read_file(json_file);
    if (w.tool != tool_kind::cuda) return json::parse(text);
    // warpkit-cuda writes one record per kernel launch.
    json launches = json::array();
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            launches.push_back(json::parse(line));
    return json{{"launches", launches}};
}

json base_row(const spec& s, const point& p) {
    json row = point_key(s, p);
    for (const auto& st : s.stats)
        row[st.column] = json();
    for (const auto& d : s.derived)
        row[d.column] = json();
    return row;
}

double as_number(const json& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    if (v.is_string()) {
        const std::string t = v.get<std::string>();
        std::size_t used = 0;
        try {
            const double d = std::stod(t, &used);
            if (used == t.size()) return d;
        } catch (const std::exception&) {
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace

json point_key(const spec&, const point& p) {
    json row;
    row["point"] = p.id;
    row["workload"] = p.work->name;
    row["preset"] = p.preset.empty() ? json() : json(p.preset);
    row["seed"] = p.seed ? json(*p.seed) : json();
    for (const auto& [k, v] : p.params)
        row[k] = v;
    return row;
}

std::vector<std::string> columns(const spec& s) {
    std::vector<std::string> c{"point", "workload", "preset", "seed"};
    for (const auto& k : s.param_keys())
        c.push_back(k);
    for (const auto& st : s.stats)
        c.push_back(st.column);
    for (const auto& d : s.derived)
        c.push_back(d.column);
    for (const char* k : {"status", "error", "wall_s"})
        c.emplace_back(k);
    return c;
}

std::vector<std::string> command(const spec& s, const point& p, const run_env& env,
                                 const std::filesystem::path& json_file) {
    const workload& w = *p.work;
    std::vector<std::string> a{(env.tools / tool_name(w.tool)).string()};
    const auto settings = [&] {
        for (const auto* fixed : {&s.fixed, &w.fixed})
            for (const auto& [k, v] : *fixed) {
                auto [opt, kv] = option_for(w, k, v);
                a.push_back(opt);
                a.push_back(kv);
            }
        for (const auto& [k, v] : p.params) {
            auto [opt, kv] = option_for(w, k, v);
            a.push_back(opt);
            a.push_back(kv);
        }
    };
    switch (w.tool) {
    case tool_kind::run:
        a.insert(a.end(), {"--preset", p.preset});
        if (!w.kernel.empty()) {
            a.insert(a.end(), {"--kernel", w.kernel.string()});
        } else {
            a.insert(a.end(),
                     {"--ptx", w.ptx.string(), "--entry", w.entry, "--launch", w.launch.string()});
        }
        settings();
        a.insert(a.end(), {"--json", json_file.string()});
        break;
    case tool_kind::power:
        a.insert(a.end(), {"report", "--preset", p.preset, "--kernel", w.kernel.string()});
        settings();
        a.insert(a.end(), {"--json", json_file.string()});
        break;
    case tool_kind::cuda:
        a.insert(a.end(), {"--preset", p.preset, "--quiet"});
        if (w.cuda_power) a.emplace_back("--power");
        settings();
        a.insert(a.end(), {"--stats", json_file.string(), "--", w.program.string()});
        a.insert(a.end(), w.args.begin(), w.args.end());
        break;
    case tool_kind::gates:
        a.insert(a.end(), {"--mix", w.mix, "--seed", std::to_string(p.seed.value_or(1))});
        settings();
        a.emplace_back("--json");
        break;
    }
    return a;
}

json run_point(const spec& s, const point& p, const run_env& env, unsigned slot,
               const std::atomic<bool>* stop) {
    json row = base_row(s, p);
    const auto fail = [&](const std::string& status, const std::string& why, double wall) {
        row["status"] = status;
        row["error"] = one_line(why);
        row["wall_s"] = wall;
        return row;
    };
    const auto dir = env.scratch / ("slot" + std::to_string(slot));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return fail("failed", "cannot create '" + dir.string() + "': " + ec.message(), 0);
    const auto json_file = dir / (p.work->tool == tool_kind::cuda ? "stats.jsonl" : "stats.json");
    const auto out_file = dir / "stdout";
    const auto err_file = dir / "stderr";
    std::filesystem::remove(json_file, ec);

    const auto argv = command(s, p, env, json_file);
    const child_result r = run_child(argv, out_file, err_file, s.timeout_s, stop);
    const double wall = r.wall_s;
    const std::string tool(tool_name(p.work->tool));
    if (r.interrupted) return fail("interrupted", "the sweep was stopped", wall);
    if (r.spawn_failed) return fail("failed", r.spawn_error, wall);
    if (r.timed_out)
        return fail("timeout", "timed out after " + json(s.timeout_s).dump() + " s", wall);
    if (r.signal != 0) {
        const std::string last = error_line(read_or_empty(err_file), tool);
        return fail("failed",
                    tool + " killed by signal " + std::to_string(r.signal) + " (" +
                        strsignal(r.signal) + ")" + (last.empty() ? "" : ": " + last),
                    wall);
    }
    if (r.exit_code != 0) {
        const std::string last = error_line(read_or_empty(err_file), tool);
        return fail("failed",
                    tool + " exit code " + std::to_string(r.exit_code) +
                        (last.empty() ? "" : ": " + last),
                    wall);
    }
    json out;
    try {
        out = read_output(*p.work, json_file, out_file);
    } catch (const std::exception& e) {
        return fail("failed", tool + " output: " + e.what(), wall);
    }
    std::vector<double> values;
    try {
        for (const auto& st : s.stats) {
            json v = extract(out, st);
            values.push_back(as_number(v));
            row[st.column] = std::move(v);
        }
    } catch (const warpkit::error& e) {
        return fail("failed", e.what(), wall);
    }
    for (const auto& d : s.derived) {
        const double v = evaluate(d, values);
        values.push_back(v);
        row[d.column] = std::isfinite(v) ? json(v) : json();
    }
    if (!env.keep.empty()) {
        // The output the row was made from: the statistics file, or stdout for the tools
        // that print their JSON. Renamed, or copied where the scratch folder is on another
        // file system.
        const bool printed = p.work->tool == tool_kind::gates;
        const auto& made = printed ? out_file : json_file;
        const auto kept = env.keep / (p.id + (printed ? ".json" : json_file.extension().string()));
        std::filesystem::create_directories(env.keep, ec);
        if (!ec) std::filesystem::rename(made, kept, ec);
        if (ec) {
            ec.clear();
            std::filesystem::copy_file(made, kept,
                                       std::filesystem::copy_options::overwrite_existing, ec);
        }
        if (ec)
            return fail("failed",
                        "cannot keep the output as '" + kept.string() + "': " + ec.message(), wall);
    }
    row["status"] = "ok";
    row["error"] = "";
    row["wall_s"] = wall;
    std::filesystem::remove(json_file, ec);
    return row;
}

std::filesystem::path outputs_folder(const std::string& prefix) {
    std::filesystem::path p = files_for(prefix).csv;
    p.replace_extension(".outputs");
    return std::filesystem::absolute(p).lexically_normal();
}

namespace {

// A warpkit-ISA kernel of one instruction: the probes' workload.
constexpr std::string_view probe_kernel = ".kernel probe\n.grid 1\n.block 32\n    EXIT\n";

// The spec key path of parameter `field`, or empty when the spec does not set it.
std::string where_of(const spec& s, const std::string& field, const workload& w) {
    for (const auto& g : s.grid)
        for (const auto& a : g.axes)
            if (option_for(w, a.key, "x").second.starts_with(field + "=")) return a.where;
    for (const auto& [k, v] : s.fixed)
        if (option_for(w, k, "x").second.starts_with(field + "=")) return "set." + k;
    for (const auto& [k, v] : w.fixed)
        if (option_for(w, k, "x").second.starts_with(field + "=")) return w.where + ".set." + k;
    // Some checks name the field without its enclosing struct ('idle_detect' for
    // gating.idle_detect): the one key that ends with it.
    std::string found;
    const auto suffix = [&](const std::string& key, const std::string& where) {
        const std::string kv = option_for(w, key, "x").second;
        const std::string k = kv.substr(0, kv.size() - 2);
        if (k.size() > field.size() && k.ends_with("." + field)) {
            if (!found.empty()) return false;
            found = where;
        }
        return true;
    };
    for (const auto& g : s.grid)
        for (const auto& a : g.axes)
            if (!suffix(a.key, a.where)) return {};
    for (const auto& [k, v] : s.fixed)
        if (!suffix(k, "set." + k)) return {};
    for (const auto& [k, v] : w.fixed)
        if (!suffix(k, w.where + ".set." + k)) return {};
    return found;
}

} // namespace

void check_tools_and_params(const spec& s, const run_env& env) {
    for (const auto& w : s.workloads) {
        const auto tool = env.tools / tool_name(w.tool);
        if (!executable(tool))
            throw spec_error(s, w.where,
                             "needs " + std::string(tool_name(w.tool)) + ", which is not in '" +
                                 env.tools.string() + "' (build it, or give --tools DIR)");
        const auto check_file = [&](const std::filesystem::path& f, const char* key) {
            if (f.empty()) return;
            try {
                (void)warpkit::read_file(f, 1);
            } catch (const warpkit::error& e) {
                const std::string m = e.what();
                if (m.find("larger than") == std::string::npos)
                    throw spec_error(s, w.where + "." + key, m);
            }
        };
        check_file(w.kernel, "kernel");
        check_file(w.ptx, "ptx");
        check_file(w.launch, "launch");
        if (!w.program.empty() && !executable(w.program))
            throw spec_error(s, w.where + ".cuda",
                             "'" + w.program.string() + "' is not an executable file");
    }
    const auto dir = env.scratch / "probe";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    // A PTX workload's file and entry: parsed and prepared, nothing run.
    for (const auto& w : s.workloads) {
        if (w.ptx.empty()) continue;
        const std::vector<std::string> argv{(env.tools / "warpkit-run").string(),
                                            "--ptx",
                                            w.ptx.string(),
                                            "--check",
                                            "--entry",
                                            w.entry};
        const child_result r = run_child(argv, dir / "stdout", dir / "stderr", 60);
        if (r.exit_code != 0 && !r.spawn_failed) {
            const std::string err = error_line(read_or_empty(dir / "stderr"), "warpkit-run");
            throw spec_error(
                s, w.where + (err.find("'entry'") != std::string::npos ? ".entry" : ".ptx"),
                one_line(err));
        }
    }

    // Probes: the kernel above (or a tiny mix) with every parameter, one value position at a
    // time, per preset. A tool that rejects a parameter the spec sets names it in a
    // config_error ("invalid parameter 'KEY' = ..."); other failures are left to the points.
    std::size_t positions = 1;
    for (const auto& g : s.grid)
        positions = std::max(positions, g.size());
    {
        std::ofstream f(dir / "probe.s");
        f << probe_kernel;
    }
    struct probe_kind {
        tool_kind tool;
        const workload* w;
    };
    std::vector<probe_kind> kinds;
    for (const auto& w : s.workloads) {
        // CUDA programs take the same --set parameters as warpkit-run; they are probed with it
        // when it is there.
        tool_kind t = w.tool == tool_kind::cuda ? tool_kind::run : w.tool;
        if (t == tool_kind::run && !executable(env.tools / tool_name(t))) continue;
        // Every mix (its name is checked too) and every workload with settings of its own; one
        // probe for the others of a tool.
        if (t == tool_kind::gates || !w.fixed.empty() ||
            std::none_of(kinds.begin(), kinds.end(),
                         [&](const probe_kind& k) { return k.tool == t; }))
            kinds.push_back({t, &w});
    }
    for (const auto& k : kinds) {
        const std::vector<std::string> presets =
            k.tool == tool_kind::gates ? std::vector<std::string>{""} : s.presets;
        for (const auto& preset : presets) {
            for (std::size_t pos = 0; pos < positions; ++pos) {
                workload w = *k.w;
                w.tool = k.tool;
                if (k.tool != tool_kind::gates) w.kernel = dir / "probe.s";
                point p;
                p.work = &w;
                p.preset = preset;
                p.seed = 1;
                for (const auto& g : s.grid)
                    for (const auto& a : g.axes)
                        p.params.emplace_back(a.key, a.values[std::min(pos, g.size() - 1)]);
                auto argv = command(s, p, env, dir / "probe.json");
                if (k.tool == tool_kind::gates)
                    argv.insert(argv.end() - 1, {"--workload", "insts_per_warp=8"});
                const child_result r = run_child(argv, dir / "stdout", dir / "stderr", 60);
                if (r.exit_code != 2) continue;
                const std::string err =
                    error_line(read_or_empty(dir / "stderr"), tool_name(k.tool));
                const std::string marker = "invalid parameter '";
                const auto at = err.find(marker);
                if (at == std::string::npos) continue;
                const auto end = err.find('\'', at + marker.size());
                if (end == std::string::npos) continue;
                const std::string field = err.substr(at + marker.size(), end - at - marker.size());
                std::string where = where_of(s, field, w);
                if (field == "preset") {
                    const auto it = std::find(s.presets.begin(), s.presets.end(), preset);
                    where = "presets[" + std::to_string(it - s.presets.begin()) + "]";
                } else if (field == "mix") {
                    where = k.w->where + ".mix";
                }
                if (where.empty()) continue;
                throw spec_error(
                    s, where,
                    std::string(tool_name(k.tool)) + (preset.empty() ? "" : " --preset " + preset) +
                        " rejects it: " +
                        err.substr(err.find(':') == std::string::npos ? 0 : err.find(':') + 2));
            }
        }
    }
    std::filesystem::remove_all(dir, ec);
}

bool same_result(const json& a, const json& b) {
    if (a.size() != b.size()) return false;
    auto i = a.begin();
    auto j = b.begin();
    for (; i != a.end(); ++i, ++j)
        if (i.key() != j.key() || (i.key() != "wall_s" && i.value() != j.value())) return false;
    return true;
}

} // namespace sweep
