#pragma once
// The sweep specification of warpkit-sweep: reading it from JSON, expanding it into points,
// reading statistics out of a run's JSON and computing derived figures. Everything here is a
// pure function of its inputs (no files, no processes), so tests/fuzz/sweep_spec.cpp drives it.

#include <warpkit/core/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
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

namespace detail {

// A key or value that goes onto a child's command line as key=value.
inline bool plain_text(std::string_view t, bool is_key) {
    if (t.empty() && is_key) return false;
    for (const char c : t) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == ';' || (is_key && (c == '=' || c == ' '))) return false;
    }
    return true;
}

inline std::string value_text(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

// A grid value as text; throws on objects, arrays, null and non-plain strings.
inline std::string grid_value(const spec& s, const std::string& where, const json& v) {
    if (!(v.is_string() || v.is_number() || v.is_boolean()))
        throw spec_error(s, where, "a value must be a string, number or boolean, not " + v.dump());
    std::string t = value_text(v);
    if (!plain_text(t, false))
        throw spec_error(s, where, "the value " + v.dump() + " holds ';' or a control character");
    if (t.empty()) throw spec_error(s, where, "an empty value");
    return t;
}

// {from, to, step}: integers when all three are, otherwise reals.
inline std::vector<std::string> range_values(const spec& s, const std::string& where,
                                             const json& r) {
    for (const auto& [k, v] : r.items())
        if (k != "from" && k != "to" && k != "step")
            throw spec_error(s, where + "." + k, "unknown key (a range has from, to, step)");
    for (const char* k : {"from", "to"})
        if (!r.contains(k)) throw spec_error(s, where, std::string("a range needs '") + k + "'");
    const json& from = r["from"];
    const json& to = r["to"];
    const json step = r.contains("step") ? r["step"] : json(1);
    for (const auto& [k, v] :
         {std::pair{"from", from}, std::pair{"to", to}, std::pair{"step", step}})
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw spec_error(s, where + "." + k, "not a finite number: " + v.dump());
    std::vector<std::string> out;
    const auto too_many = [&] {
        return spec_error(s, where,
                          "the range has more than " + std::to_string(max_points) + " values");
    };
    if (from.is_number_integer() && to.is_number_integer() && step.is_number_integer()) {
        const auto as_i64 = [&](const json& v, const char* k) {
            if (v.is_number_unsigned() &&
                v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX / 2))
                throw spec_error(s, where + "." + k, "beyond the integer range of a range");
            const auto x = v.get<std::int64_t>();
            if (x > INT64_MAX / 2 || x < INT64_MIN / 2)
                throw spec_error(s, where + "." + k, "beyond the integer range of a range");
            return x;
        };
        const std::int64_t a = as_i64(from, "from");
        const std::int64_t b = as_i64(to, "to");
        const std::int64_t d = as_i64(step, "step");
        if (d == 0) throw spec_error(s, where + ".step", "step 0");
        if ((b - a) / d < 0 || (b != a && (b - a > 0) != (d > 0)))
            throw spec_error(s, where, "step " + step.dump() + " never reaches 'to' from 'from'");
        const std::int64_t n = (b - a) / d + 1;
        if (static_cast<std::uint64_t>(n) > max_points) throw too_many();
        for (std::int64_t i = 0; i < n; ++i)
            out.push_back(std::to_string(a + d * i));
        return out;
    }
    const double lo = from.get<double>();
    const double hi = to.get<double>();
    const double st = step.get<double>();
    if (st == 0) throw spec_error(s, where + ".step", "step 0");
    const double span = (hi - lo) / st;
    if (!(span >= 0) || !std::isfinite(span))
        throw spec_error(s, where, "step " + step.dump() + " never reaches 'to' from 'from'");
    // A small tolerance so that 0.1 steps up to 1.0 include 1.0.
    const double n = std::floor(span * (1 + 1e-12) + 1e-9) + 1;
    if (n > static_cast<double>(max_points)) throw too_many();
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        // 12 significant digits: 0.1 steps give 0.3, not 0.30000000000000004.
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.12g", lo + st * static_cast<double>(i));
        out.emplace_back(buf);
    }
    return out;
}

inline axis read_axis(const spec& s, const std::string& key, const std::string& where,
                      const json& v) {
    if (!plain_text(key, true))
        throw spec_error(s, where,
                         "not a parameter name (empty, or holds '=', ';', a space or "
                         "a control character)");
    axis a{key, {}, where};
    if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i)
            a.values.push_back(grid_value(s, where + "[" + std::to_string(i) + "]", v[i]));
    } else if (v.is_object()) {
        a.values = range_values(s, where, v);
    } else {
        a.values.push_back(grid_value(s, where, v));
    }
    if (a.values.empty()) throw spec_error(s, where, "no values (an empty list)");
    return a;
}

inline axis_group read_zip(const spec& s, const std::string& where, const json& z) {
    if (!z.is_object() || z.empty())
        throw spec_error(s, where, "a zip group is an object of parameter: values");
    axis_group g;
    for (const auto& [k, v] : z.items()) {
        g.axes.push_back(read_axis(s, k, where + "." + k, v));
        if (g.axes.back().values.size() != g.axes.front().values.size())
            throw spec_error(s, where + "." + k,
                             std::to_string(g.axes.back().values.size()) + " values, but " +
                                 g.axes.front().where + " has " +
                                 std::to_string(g.axes.front().values.size()) +
                                 " (zipped parameters advance together)");
    }
    return g;
}

inline std::string need_string(const spec& s, const std::string& where, const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
        throw spec_error(s, where, "expected a non-empty string, not " + v.dump());
    return v.get<std::string>();
}

inline std::filesystem::path need_path(const spec& s, const std::string& where, const json& v,
                                       const std::filesystem::path& base) {
    std::filesystem::path p = need_string(s, where, v);
    if (p.is_relative()) p = base / p;
    return p.lexically_normal();
}

inline workload read_workload(const spec& s, std::size_t i, const json& w,
                              const std::filesystem::path& base) {
    const std::string where = "workloads[" + std::to_string(i) + "]";
    if (!w.is_object())
        throw spec_error(s, where, "a workload is an object (kernel, ptx, cuda or mix)");
    workload out;
    out.where = where;
    const char* kinds[] = {"kernel", "ptx", "cuda", "mix"};
    int n = 0;
    for (const char* k : kinds)
        n += w.contains(k) ? 1 : 0;
    if (n != 1)
        throw spec_error(s, where,
                         "give exactly one of kernel (warpkit-ISA), ptx (with entry and launch), "
                         "cuda (a program) or mix (a synthetic instruction mix)");
    const auto allowed = [&](std::initializer_list<std::string_view> keys) {
        for (const auto& [k, v] : w.items())
            if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
                std::string list;
                for (auto a : keys)
                    list += (list.empty() ? "" : ", ") + std::string(a);
                throw spec_error(s, where + "." + k, "unknown key (here: " + list + ")");
            }
    };
    if (w.contains("kernel")) {
        allowed({"name", "set", "kernel", "power"});
        out.kernel = need_path(s, where + ".kernel", w["kernel"], base);
        if (w.contains("power")) {
            if (!w["power"].is_boolean())
                throw spec_error(s, where + ".power", "expected true or false");
            if (w["power"].get<bool>()) out.tool = tool_kind::power;
        }
        out.name = out.kernel.stem().string();
    } else if (w.contains("ptx")) {
        allowed({"name", "set", "ptx", "entry", "launch"});
        out.ptx = need_path(s, where + ".ptx", w["ptx"], base);
        if (!w.contains("entry")) throw spec_error(s, where, "a ptx workload needs 'entry'");
        if (!w.contains("launch")) throw spec_error(s, where, "a ptx workload needs 'launch'");
        out.entry = need_string(s, where + ".entry", w["entry"]);
        out.launch = need_path(s, where + ".launch", w["launch"], base);
        out.name = out.entry;
    } else if (w.contains("cuda")) {
        allowed({"name", "set", "cuda", "args", "power"});
        out.tool = tool_kind::cuda;
        out.program = need_path(s, where + ".cuda", w["cuda"], base);
        if (w.contains("power")) {
            if (!w["power"].is_boolean())
                throw spec_error(s, where + ".power", "expected true or false");
            out.cuda_power = w["power"].get<bool>();
        }
        if (w.contains("args")) {
            const json& a = w["args"];
            if (!a.is_array()) throw spec_error(s, where + ".args", "expected a list of strings");
            for (std::size_t k = 0; k < a.size(); ++k) {
                if (!a[k].is_string())
                    throw spec_error(s, where + ".args[" + std::to_string(k) + "]",
                                     "expected a string");
                out.args.push_back(a[k].get<std::string>());
            }
        }
        out.name = out.program.filename().string();
    } else {
        allowed({"name", "set", "mix"});
        out.tool = tool_kind::gates;
        out.mix = need_string(s, where + ".mix", w["mix"]);
        out.name = out.mix;
    }
    if (w.contains("name")) out.name = need_string(s, where + ".name", w["name"]);
    if (w.contains("set")) {
        const json& f = w["set"];
        if (!f.is_object()) throw spec_error(s, where + ".set", "an object of parameter: value");
        for (const auto& [k, v] : f.items()) {
            const std::string at = where + ".set." + k;
            if (!plain_text(k, true)) throw spec_error(s, at, "not a parameter name");
            out.fixed.emplace_back(k, grid_value(s, at, v));
        }
    }
    if (!plain_text(out.name, false) || out.name.find(',') != std::string::npos)
        throw spec_error(s, where + ".name", "a name may not hold ',', ';' or control characters");
    return out;
}

// Parses "a.b[field=value].3.c" into steps.
inline std::vector<path_step> parse_path(const spec& s, const std::string& where,
                                         std::string_view p) {
    std::vector<path_step> steps;
    const auto bad = [&](const std::string& why) {
        return spec_error(s, where, "bad statistic path '" + std::string(p) + "': " + why);
    };
    if (p.empty()) throw bad("empty");
    std::size_t i = 0;
    while (i <= p.size()) {
        std::size_t j = i;
        while (j < p.size() && p[j] != '.' && p[j] != '[')
            ++j;
        const std::string_view name = p.substr(i, j - i);
        if (name.empty()) throw bad("an empty step at character " + std::to_string(i + 1));
        const bool digits =
            std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (name == "*")
            steps.push_back({path_step::kind::all, {}, 0, {}});
        else if (digits && name.size() <= 9)
            steps.push_back({path_step::kind::index, {}, std::stoul(std::string(name)), {}});
        else
            steps.push_back({path_step::kind::key, std::string(name), 0, {}});
        while (j < p.size() && p[j] == '[') {
            const std::size_t close = p.find(']', j);
            if (close == std::string_view::npos) throw bad("'[' without ']'");
            const std::string_view sel = p.substr(j + 1, close - j - 1);
            const std::size_t eq = sel.find('=');
            if (eq == std::string_view::npos || eq == 0) throw bad("a selector is [field=value]");
            steps.push_back({path_step::kind::select, std::string(sel.substr(0, eq)), 0,
                             std::string(sel.substr(eq + 1))});
            j = close + 1;
        }
        if (j == p.size()) break;
        if (p[j] != '.') throw bad("expected '.' at character " + std::to_string(j + 1));
        i = j + 1;
        if (i == p.size()) throw bad("ends with '.'");
    }
    return steps;
}

// Recursive-descent parser of + - * / ( ) numbers and column names into postfix code.
class expr_parser {
public:
    expr_parser(const spec& s, std::string where, std::string_view text,
                const std::vector<std::string>& columns)
        : s_(s), where_(std::move(where)), t_(text), columns_(columns) {}

    std::vector<expr_op> parse() {
        sum();
        skip();
        if (i_ != t_.size()) throw fail("unexpected '" + std::string(1, t_[i_]) + "'");
        return std::move(code_);
    }

private:
    warpkit::error fail(const std::string& why) const {
        return spec_error(s_, where_,
                          "'" + std::string(t_) + "' at character " + std::to_string(i_ + 1) +
                              ": " + why);
    }
    void skip() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t'))
            ++i_;
    }
    void sum() {
        product();
        for (;;) {
            skip();
            if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) {
                const char op = t_[i_++];
                product();
                code_.push_back({op == '+' ? expr_op::kind::add : expr_op::kind::sub});
            } else {
                return;
            }
        }
    }
    void product() {
        unary();
        for (;;) {
            skip();
            if (i_ < t_.size() && (t_[i_] == '*' || t_[i_] == '/')) {
                const char op = t_[i_++];
                unary();
                code_.push_back({op == '*' ? expr_op::kind::mul : expr_op::kind::div});
            } else {
                return;
            }
        }
    }
    void unary() {
        skip();
        if (++depth_ > 200) throw fail("nested too deeply");
        if (i_ < t_.size() && t_[i_] == '-') {
            ++i_;
            unary();
            code_.push_back({expr_op::kind::neg});
        } else {
            primary();
        }
        --depth_;
    }
    static bool name_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.';
    }
    void primary() {
        skip();
        if (i_ == t_.size()) throw fail("expected a number, a column or '('");
        const char c = t_[i_];
        if (c == '(') {
            ++i_;
            sum();
            skip();
            if (i_ == t_.size() || t_[i_] != ')') throw fail("expected ')'");
            ++i_;
            return;
        }
        if ((c >= '0' && c <= '9') || c == '.') {
            std::size_t j = i_;
            while (j < t_.size() && ((t_[j] >= '0' && t_[j] <= '9') || t_[j] == '.' ||
                                     t_[j] == 'e' || t_[j] == 'E' ||
                                     ((t_[j] == '+' || t_[j] == '-') && j > i_ &&
                                      (t_[j - 1] == 'e' || t_[j - 1] == 'E'))))
                ++j;
            const std::string num(t_.substr(i_, j - i_));
            std::size_t used = 0;
            double v = 0;
            try {
                v = std::stod(num, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != num.size() || !std::isfinite(v)) throw fail("bad number '" + num + "'");
            code_.push_back({expr_op::kind::number, v});
            i_ = j;
            return;
        }
        if (name_char(c)) {
            std::size_t j = i_;
            while (j < t_.size() && name_char(t_[j]))
                ++j;
            const std::string name(t_.substr(i_, j - i_));
            const auto it = std::find(columns_.begin(), columns_.end(), name);
            if (it == columns_.end()) {
                std::string known;
                for (const auto& k : columns_)
                    known += (known.empty() ? "" : ", ") + k;
                throw fail("'" + name + "' is not a statistic or an earlier derived figure" +
                           (known.empty() ? std::string() : " (known: " + known + ")"));
            }
            code_.push_back(
                {expr_op::kind::column, 0, static_cast<std::size_t>(it - columns_.begin())});
            i_ = j;
            return;
        }
        throw fail("unexpected '" + std::string(1, c) + "'");
    }

    const spec& s_;
    std::string where_;
    std::string_view t_;
    const std::vector<std::string>& columns_;
    std::vector<expr_op> code_;
    std::size_t i_ = 0;
    int depth_ = 0;
};

inline std::uint64_t checked_product(const spec& s, std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > max_points / b)
        throw spec_error(s, "grid", "more than " + std::to_string(max_points) + " points");
    return a * b;
}

} // namespace detail

/// The spec in `text` (the contents of `file`). Relative paths resolve against the file's
/// folder. Throws warpkit::parse_error (file:line:column) on malformed JSON and warpkit::error
/// "FILE: KEY.PATH: what" on a bad spec; nothing else.
[[nodiscard]] inline spec parse_spec(std::string_view text, const std::string& file) {
    spec s;
    s.file = file;
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        std::string msg = e.what();
        if (const auto c = msg.find("column "); c != std::string::npos)
            if (const auto colon = msg.find(": ", c); colon != std::string::npos)
                msg = msg.substr(colon + 2);
        std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        std::size_t line = 1;
        std::size_t col = 1;
        for (std::size_t k = 0; k < at; ++k) {
            if (text[k] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw warpkit::parse_error(file, line, col, msg);
    } catch (const json::exception& e) {
        throw warpkit::parse_error(file, 1, 1, e.what());
    }
    if (!j.is_object()) throw spec_error(s, "(root)", "a spec is a JSON object");
    static constexpr std::string_view keys[] = {"workloads", "presets", "set",     "grid",
                                                "seeds",     "stats",   "derived", "timeout_s"};
    for (const auto& [k, v] : j.items())
        if (std::find(std::begin(keys), std::end(keys), k) == std::end(keys))
            throw spec_error(s, k,
                             "unknown key (a spec has workloads, presets, set, grid, seeds, "
                             "stats, derived, timeout_s)");
    const std::filesystem::path base = std::filesystem::path(file).parent_path();

    if (!j.contains("workloads") || !j["workloads"].is_array() || j["workloads"].empty())
        throw spec_error(s, "workloads", "a non-empty list of workloads is required");
    for (std::size_t i = 0; i < j["workloads"].size(); ++i) {
        s.workloads.push_back(detail::read_workload(s, i, j["workloads"][i], base));
        for (std::size_t k = 0; k + 1 < s.workloads.size(); ++k)
            if (s.workloads[k].name == s.workloads.back().name)
                throw spec_error(s, s.workloads.back().where,
                                 "the name '" + s.workloads.back().name + "' is also " +
                                     s.workloads[k].where + "'s (give each a distinct \"name\")");
    }
    const bool any_preset = std::any_of(s.workloads.begin(), s.workloads.end(),
                                        [](const workload& w) { return w.takes_preset(); });
    const bool any_seed = std::any_of(s.workloads.begin(), s.workloads.end(),
                                      [](const workload& w) { return w.takes_seed(); });

    if (j.contains("presets")) {
        const json& p = j["presets"];
        if (!p.is_array() || p.empty())
            throw spec_error(s, "presets", "a non-empty list of preset names");
        if (!any_preset)
            throw spec_error(s, "presets",
                             "no workload runs on a preset (mix workloads run on one SM)");
        for (std::size_t i = 0; i < p.size(); ++i) {
            const std::string w = "presets[" + std::to_string(i) + "]";
            s.presets.push_back(detail::need_string(s, w, p[i]));
            if (!detail::plain_text(s.presets.back(), true))
                throw spec_error(s, w, "not a preset name");
            if (std::count(s.presets.begin(), s.presets.end(), s.presets.back()) > 1)
                throw spec_error(s, w, "'" + s.presets.back() + "' is listed twice");
        }
    } else if (any_preset) {
        s.presets.push_back("fermi_gtx480");
    }

    if (j.contains("set")) {
        const json& f = j["set"];
        if (!f.is_object()) throw spec_error(s, "set", "an object of parameter: value");
        for (const auto& [k, v] : f.items()) {
            const std::string w = "set." + k;
            if (!detail::plain_text(k, true)) throw spec_error(s, w, "not a parameter name");
            s.fixed.emplace_back(k, detail::grid_value(s, w, v));
        }
    }

    if (j.contains("grid")) {
        const json& g = j["grid"];
        if (!g.is_object()) throw spec_error(s, "grid", "an object of parameter: values");
        for (const auto& [k, v] : g.items()) {
            if (k == "zip") {
                if (v.is_array()) {
                    if (v.empty()) throw spec_error(s, "grid.zip", "no zip groups");
                    for (std::size_t i = 0; i < v.size(); ++i)
                        s.grid.push_back(
                            detail::read_zip(s, "grid.zip[" + std::to_string(i) + "]", v[i]));
                } else {
                    s.grid.push_back(detail::read_zip(s, "grid.zip", v));
                }
            } else {
                s.grid.push_back({{detail::read_axis(s, k, "grid." + k, v)}});
            }
        }
        std::vector<const axis*> seen;
        for (const auto& grp : s.grid)
            for (const auto& a : grp.axes) {
                for (const axis* b : seen)
                    if (b->key == a.key)
                        throw spec_error(s, a.where, "the parameter is also swept at " + b->where);
                seen.push_back(&a);
            }
    }

    if (j.contains("seeds")) {
        if (!any_seed)
            throw spec_error(s, "seeds", "no workload takes a seed (only mix workloads do)");
        const json& sd = j["seeds"];
        std::vector<std::string> texts;
        if (sd.is_object()) {
            texts = detail::range_values(s, "seeds", sd);
        } else if (sd.is_array()) {
            for (std::size_t i = 0; i < sd.size(); ++i) {
                if (!sd[i].is_number_integer())
                    throw spec_error(s, "seeds[" + std::to_string(i) + "]",
                                     "a seed is a non-negative integer, not " + sd[i].dump());
                texts.push_back(sd[i].dump());
            }
        } else {
            throw spec_error(s, "seeds", "a list of seeds or a range {from, to, step}");
        }
        if (texts.empty()) throw spec_error(s, "seeds", "no seeds (an empty list)");
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const std::string w = "seeds[" + std::to_string(i) + "]";
            if (texts[i].empty() || texts[i][0] == '-' ||
                texts[i].find_first_not_of("0123456789") != std::string::npos)
                throw spec_error(s, w, "a seed is a non-negative integer, not " + texts[i]);
            s.seeds.push_back(std::stoull(texts[i]));
        }
    } else if (any_seed) {
        s.seeds.push_back(1);
    }

    if (!j.contains("stats")) throw spec_error(s, "stats", "name at least one statistic");
    std::vector<std::string> columns;
    const auto reserved = [&](const std::string& c, const std::string& w) {
        static constexpr std::string_view fixed_cols[] = {"point",  "workload", "preset", "seed",
                                                          "status", "error",    "wall_s"};
        const auto params = s.param_keys();
        if (std::find(std::begin(fixed_cols), std::end(fixed_cols), c) != std::end(fixed_cols) ||
            std::find(params.begin(), params.end(), c) != params.end() ||
            std::find(columns.begin(), columns.end(), c) != columns.end())
            throw spec_error(s, w, "the column '" + c + "' already exists");
        if (c.empty() ||
            !std::all_of(c.begin(), c.end(),
                         [](char ch) {
                             return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
                         }) ||
            (c[0] >= '0' && c[0] <= '9') || c[0] == '.')
            throw spec_error(s, w, "a column name is letters, digits, '_' and '.' (not first)");
    };
    const json& st = j["stats"];
    if (st.is_array()) {
        for (std::size_t i = 0; i < st.size(); ++i) {
            const std::string w = "stats[" + std::to_string(i) + "]";
            const std::string p = detail::need_string(s, w, st[i]);
            reserved(p, w);
            s.stats.push_back({p, p, detail::parse_path(s, w, p)});
            columns.push_back(p);
        }
    } else if (st.is_object()) {
        for (const auto& [k, v] : st.items()) {
            const std::string w = "stats." + k;
            reserved(k, w);
            const std::string p = detail::need_string(s, w, v);
            s.stats.push_back({k, p, detail::parse_path(s, w, p)});
            columns.push_back(k);
        }
    } else {
        throw spec_error(s, "stats", "a list of paths or an object of column: path");
    }
    if (s.stats.empty()) throw spec_error(s, "stats", "name at least one statistic");

    if (j.contains("derived")) {
        const json& d = j["derived"];
        if (!d.is_object()) throw spec_error(s, "derived", "an object of column: expression");
        for (const auto& [k, v] : d.items()) {
            const std::string w = "derived." + k;
            reserved(k, w);
            const std::string expr = detail::need_string(s, w, v);
            auto code = detail::expr_parser(s, w, expr, columns).parse();
            s.derived.push_back({k, expr, std::move(code)});
            columns.push_back(k);
        }
    }

    if (j.contains("timeout_s")) {
        const json& t = j["timeout_s"];
        if (!t.is_number() || !(t.get<double>() > 0) || t.get<double>() > 1e6)
            throw spec_error(s, "timeout_s", "seconds in (0, 1000000], not " + t.dump());
        s.timeout_s = t.get<double>();
    }

    // The product must stay countable.
    std::uint64_t n = 0;
    for (const auto& w : s.workloads) {
        std::uint64_t per = w.takes_preset() ? s.presets.size() : 1;
        for (const auto& g : s.grid)
            per = detail::checked_product(s, per, g.size());
        if (w.takes_seed()) per = detail::checked_product(s, per, s.seeds.size());
        n += per;
        if (n > max_points)
            throw spec_error(s, "grid", "more than " + std::to_string(max_points) + " points");
    }
    return s;
}

/// The number of points `s` expands to.
[[nodiscard]] inline std::uint64_t point_count(const spec& s) noexcept {
    std::uint64_t n = 0;
    for (const auto& w : s.workloads) {
        std::uint64_t per = w.takes_preset() ? s.presets.size() : 1;
        for (const auto& g : s.grid)
            per *= g.size();
        if (w.takes_seed()) per *= s.seeds.size();
        n += per;
    }
    return n;
}

/// The id of point `index` of `total`: "p" and the index zero-padded to total's digits (at
/// least 4), so that ids sort as the expansion order.
[[nodiscard]] inline std::string point_id(std::uint64_t index, std::uint64_t total) {
    std::size_t width = 4;
    for (std::uint64_t t = total > 0 ? total - 1 : 0; t >= 10000; t /= 10)
        ++width;
    std::string d = std::to_string(index);
    return "p" + std::string(d.size() < width ? width - d.size() : 0, '0') + d;
}

/// Point `index` (< point_count(s)). Order: workloads, then presets, then grid groups (the
/// first outermost), then seeds.
[[nodiscard]] inline point make_point(const spec& s, std::uint64_t index) {
    const std::uint64_t total = point_count(s);
    point p;
    p.index = index;
    p.id = point_id(index, total);
    std::uint64_t rest = index;
    for (const auto& w : s.workloads) {
        std::uint64_t grid = 1;
        for (const auto& g : s.grid)
            grid *= g.size();
        const std::uint64_t seeds = w.takes_seed() ? s.seeds.size() : 1;
        const std::uint64_t presets = w.takes_preset() ? s.presets.size() : 1;
        const std::uint64_t per = presets * grid * seeds;
        if (rest >= per) {
            rest -= per;
            continue;
        }
        p.work = &w;
        if (w.takes_seed()) {
            p.seed = s.seeds[rest % seeds];
            rest /= seeds;
        }
        std::vector<std::size_t> pick(s.grid.size());
        for (std::size_t g = s.grid.size(); g-- > 0;) {
            pick[g] = rest % s.grid[g].size();
            rest /= s.grid[g].size();
        }
        if (w.takes_preset()) p.preset = s.presets[rest];
        for (std::size_t g = 0; g < s.grid.size(); ++g)
            for (const auto& a : s.grid[g].axes)
                p.params.emplace_back(a.key, a.values[pick[g]]);
        return p;
    }
    throw warpkit::error("point " + std::to_string(index) + " is outside the sweep's " +
                         std::to_string(total) + " points");
}

/// The value at `st`'s path in `root`: a number or string as table text. Throws
/// warpkit::error naming the path when it is missing or not a single value.
[[nodiscard]] inline json extract(const json& root, const stat_spec& st) {
    const json* at = &root;
    std::string done;
    const auto fail = [&](const std::string& why) {
        return warpkit::error("statistic '" + st.column + "' (" + st.path + "): " + why);
    };
    for (std::size_t at_step = 0; at_step < st.steps.size(); ++at_step) {
        const auto& step = st.steps[at_step];
        switch (step.k) {
        case path_step::kind::all: {
            if (!at->is_array())
                throw fail((done.empty() ? "the output" : done) + " is not a list");
            stat_spec rest{st.column, st.path, {st.steps.begin() + static_cast<std::ptrdiff_t>(at_step) + 1,
                                                st.steps.end()}};
            // Integers add up as integers (counts stay exact), anything else as reals.
            double sum = 0;
            std::int64_t whole = 0;
            bool integers = true;
            for (std::size_t e = 0; e < at->size(); ++e) {
                json v = rest.steps.empty() ? (*at)[e] : extract((*at)[e], rest);
                if (v.is_boolean()) v = v.get<bool>() ? 1 : 0; // true counts one
                if (!v.is_number())
                    throw fail("element " + std::to_string(e) + " of " +
                               (done.empty() ? "the output" : done) +
                               " gives no number to add up");
                integers = integers && v.is_number_integer();
                if (integers) whole += v.get<std::int64_t>();
                sum += v.get<double>();
            }
            return integers ? json(whole) : json(sum);
        }
        case path_step::kind::key: {
            if (!at->is_object() || !at->contains(step.key)) {
                std::string keys;
                if (at->is_object()) {
                    std::size_t n = 0;
                    for (const auto& [k, v] : at->items()) {
                        if (++n > 24) {
                            keys += ", ...";
                            break;
                        }
                        keys += (keys.empty() ? "" : ", ") + k;
                    }
                }
                throw fail("no '" + step.key + "' in " + (done.empty() ? "the output" : done) +
                           (keys.empty() ? std::string() : " (there: " + keys + ")"));
            }
            at = &(*at)[step.key];
            done += (done.empty() ? "" : ".") + step.key;
            break;
        }
        case path_step::kind::index:
            if (at->is_object() && at->contains(std::to_string(step.index))) {
                at = &(*at)[std::to_string(step.index)];
            } else if (!at->is_array() || step.index >= at->size()) {
                throw fail("no element " + std::to_string(step.index) + " in " +
                           (done.empty() ? "the output" : done) +
                           (at->is_array() ? " (" + std::to_string(at->size()) + " elements)"
                                           : std::string(" (not a list)")));
            } else {
                at = &(*at)[step.index];
            }
            done += (done.empty() ? "" : ".") + std::to_string(step.index);
            break;
        case path_step::kind::select: {
            if (!at->is_array())
                throw fail((done.empty() ? "the output" : done) + " is not a list");
            const json* found = nullptr;
            for (const auto& e : *at)
                if (e.is_object() && e.contains(step.key) &&
                    detail::value_text(e[step.key]) == step.value) {
                    found = &e;
                    break;
                }
            if (found == nullptr)
                throw fail("no element of " + (done.empty() ? "the output" : done) + " has " +
                           step.key + " = " + step.value);
            at = found;
            done += "[" + step.key + "=" + step.value + "]";
            break;
        }
        }
    }
    if (at->is_number() || at->is_string() || at->is_boolean()) return *at;
    throw fail(done + " is " +
               (at->is_null()    ? "null"
                : at->is_array() ? "a list"
                                 : "an object") +
               ", not a value");
}

/// `d` evaluated over `values` (statistics then derived figures, as numbers; NaN where a value
/// is not a number). Division by zero and other non-finite results give NaN.
[[nodiscard]] inline double evaluate(const derived_spec& d, const std::vector<double>& values) {
    std::vector<double> stack;
    for (const auto& op : d.code) {
        if (op.k == expr_op::kind::number) {
            stack.push_back(op.number);
            continue;
        }
        if (op.k == expr_op::kind::column) {
            stack.push_back(op.column < values.size() ? values[op.column]
                                                      : std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        if (op.k == expr_op::kind::neg) {
            stack.back() = -stack.back();
            continue;
        }
        const double b = stack.back();
        stack.pop_back();
        double& a = stack.back();
        switch (op.k) {
        case expr_op::kind::add:
            a += b;
            break;
        case expr_op::kind::sub:
            a -= b;
            break;
        case expr_op::kind::mul:
            a *= b;
            break;
        default:
            a = b == 0 ? std::numeric_limits<double>::quiet_NaN() : a / b;
            break;
        }
    }
    const double r = stack.empty() ? std::numeric_limits<double>::quiet_NaN() : stack.back();
    return std::isfinite(r) ? r : std::numeric_limits<double>::quiet_NaN();
}

} // namespace sweep
