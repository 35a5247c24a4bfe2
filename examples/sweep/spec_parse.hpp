#pragma once
// Reading a sweep spec from its JSON text: the document itself (malformed JSON as
// file:line:column), then each top-level key in turn, then the size of the product.

#include "derived.hpp"
#include "spec_types.hpp"
#include "spec_values.hpp"
#include "spec_workload.hpp"
#include "stat_path.hpp"

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sweep {

namespace detail {

inline std::uint64_t checked_product(const spec& s, std::uint64_t a, std::uint64_t b) {
    if (b != 0 && a > max_points / b)
        throw spec_error(s, "grid", "more than " + std::to_string(max_points) + " points");
    return a * b;
}

// The JSON document in `text`; malformed JSON throws warpkit::parse_error at the line and
// column of the byte where the JSON reader stopped.
inline json read_document(std::string_view text, const std::string& file) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // The reader's message without its own "[json.exception...] ... column N: " prefix.
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
}

// The document is an object of known keys only.
inline void check_top_keys(const spec& s, const json& j) {
    if (!j.is_object()) throw spec_error(s, "(root)", "a spec is a JSON object");
    static constexpr std::string_view keys[] = {"workloads", "presets", "set",     "grid",
                                                "seeds",     "stats",   "derived", "timeout_s"};
    for (const auto& [k, v] : j.items())
        if (std::find(std::begin(keys), std::end(keys), k) == std::end(keys))
            throw spec_error(s, k,
                             "unknown key (a spec has workloads, presets, set, grid, seeds, "
                             "stats, derived, timeout_s)");
}

// "workloads": required, each read in turn, names distinct.
inline void read_workloads(spec& s, const json& j, const std::filesystem::path& base) {
    if (!j.contains("workloads") || !j["workloads"].is_array() || j["workloads"].empty())
        throw spec_error(s, "workloads", "a non-empty list of workloads is required");
    for (std::size_t i = 0; i < j["workloads"].size(); ++i) {
        s.workloads.push_back(read_workload(s, i, j["workloads"][i], base));
        for (std::size_t k = 0; k + 1 < s.workloads.size(); ++k)
            if (s.workloads[k].name == s.workloads.back().name)
                throw spec_error(s, s.workloads.back().where,
                                 "the name '" + s.workloads.back().name + "' is also " +
                                     s.workloads[k].where + "'s (give each a distinct \"name\")");
    }
}

// "presets": distinct names, only when a workload runs on one; fermi_gtx480 when absent.
inline void read_presets(spec& s, const json& j, bool any_preset) {
    if (!j.contains("presets")) {
        if (any_preset) s.presets.push_back("fermi_gtx480");
        return;
    }
    const json& p = j["presets"];
    if (!p.is_array() || p.empty())
        throw spec_error(s, "presets", "a non-empty list of preset names");
    if (!any_preset)
        throw spec_error(s, "presets",
                         "no workload runs on a preset (mix workloads run on one SM)");
    for (std::size_t i = 0; i < p.size(); ++i) {
        const std::string w = "presets[" + std::to_string(i) + "]";
        s.presets.push_back(need_string(s, w, p[i]));
        if (!plain_text(s.presets.back(), true)) throw spec_error(s, w, "not a preset name");
        if (std::count(s.presets.begin(), s.presets.end(), s.presets.back()) > 1)
            throw spec_error(s, w, "'" + s.presets.back() + "' is listed twice");
    }
}

// "grid": one axis per key, zip groups under "zip"; no parameter swept twice.
inline void read_grid(spec& s, const json& j) {
    if (!j.contains("grid")) return;
    const json& g = j["grid"];
    if (!g.is_object()) throw spec_error(s, "grid", "an object of parameter: values");
    for (const auto& [k, v] : g.items()) {
        if (k == "zip") {
            if (v.is_array()) {
                if (v.empty()) throw spec_error(s, "grid.zip", "no zip groups");
                for (std::size_t i = 0; i < v.size(); ++i)
                    s.grid.push_back(read_zip(s, "grid.zip[" + std::to_string(i) + "]", v[i]));
            } else {
                s.grid.push_back(read_zip(s, "grid.zip", v));
            }
        } else {
            s.grid.push_back({{read_axis(s, k, "grid." + k, v)}});
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

// "seeds": non-negative integers, listed or as a range, only when a workload takes one; 1
// when absent.
inline void read_seeds(spec& s, const json& j, bool any_seed) {
    if (!j.contains("seeds")) {
        if (any_seed) s.seeds.push_back(1);
        return;
    }
    if (!any_seed) throw spec_error(s, "seeds", "no workload takes a seed (only mix workloads do)");
    const json& sd = j["seeds"];
    std::vector<std::string> texts;
    if (sd.is_object()) {
        texts = range_values(s, "seeds", sd);
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
}

// A new table column `c` (at `where`): not a fixed column, a grid key or an earlier column,
// and a name that an expression can refer to.
inline void check_column(const spec& s, const std::vector<std::string>& columns,
                         const std::string& c, const std::string& where) {
    static constexpr std::string_view fixed_cols[] = {"point",  "workload", "preset", "seed",
                                                      "status", "error",    "wall_s"};
    const auto params = s.param_keys();
    if (std::find(std::begin(fixed_cols), std::end(fixed_cols), c) != std::end(fixed_cols) ||
        std::find(params.begin(), params.end(), c) != params.end() ||
        std::find(columns.begin(), columns.end(), c) != columns.end())
        throw spec_error(s, where, "the column '" + c + "' already exists");
    if (c.empty() ||
        !std::all_of(c.begin(), c.end(),
                     [](char ch) {
                         return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                                (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
                     }) ||
        (c[0] >= '0' && c[0] <= '9') || c[0] == '.')
        throw spec_error(s, where, "a column name is letters, digits, '_' and '.' (not first)");
}

// "stats": required, a list of paths (each its own column) or an object of column: path.
// Returns the columns so far.
inline std::vector<std::string> read_stats(spec& s, const json& j) {
    if (!j.contains("stats")) throw spec_error(s, "stats", "name at least one statistic");
    std::vector<std::string> columns;
    const json& st = j["stats"];
    if (st.is_array()) {
        for (std::size_t i = 0; i < st.size(); ++i) {
            const std::string w = "stats[" + std::to_string(i) + "]";
            const std::string p = need_string(s, w, st[i]);
            check_column(s, columns, p, w);
            s.stats.push_back({p, p, parse_path(s, w, p)});
            columns.push_back(p);
        }
    } else if (st.is_object()) {
        for (const auto& [k, v] : st.items()) {
            const std::string w = "stats." + k;
            check_column(s, columns, k, w);
            const std::string p = need_string(s, w, v);
            s.stats.push_back({k, p, parse_path(s, w, p)});
            columns.push_back(k);
        }
    } else {
        throw spec_error(s, "stats", "a list of paths or an object of column: path");
    }
    if (s.stats.empty()) throw spec_error(s, "stats", "name at least one statistic");
    return columns;
}

// "derived": an object of column: expression over the statistics and earlier derived figures.
inline void read_derived(spec& s, const json& j, std::vector<std::string>& columns) {
    if (!j.contains("derived")) return;
    const json& d = j["derived"];
    if (!d.is_object()) throw spec_error(s, "derived", "an object of column: expression");
    for (const auto& [k, v] : d.items()) {
        const std::string w = "derived." + k;
        check_column(s, columns, k, w);
        const std::string expr = need_string(s, w, v);
        auto code = expr_parser(s, w, expr, columns).parse();
        s.derived.push_back({k, expr, std::move(code)});
        columns.push_back(k);
    }
}

// "timeout_s": a point's time limit in seconds.
inline void read_timeout(spec& s, const json& j) {
    if (!j.contains("timeout_s")) return;
    const json& t = j["timeout_s"];
    if (!t.is_number() || !(t.get<double>() > 0) || t.get<double>() > 1e6)
        throw spec_error(s, "timeout_s", "seconds in (0, 1000000], not " + t.dump());
    s.timeout_s = t.get<double>();
}

// The product must stay countable: at most max_points points, counted without overflow.
inline void check_point_total(const spec& s) {
    std::uint64_t n = 0;
    for (const auto& w : s.workloads) {
        std::uint64_t per = w.takes_preset() ? s.presets.size() : 1;
        for (const auto& g : s.grid)
            per = checked_product(s, per, g.size());
        if (w.takes_seed()) per = checked_product(s, per, s.seeds.size());
        n += per;
        if (n > max_points)
            throw spec_error(s, "grid", "more than " + std::to_string(max_points) + " points");
    }
}

} // namespace detail

/// The spec in `text` (the contents of `file`). Relative paths resolve against the file's
/// folder. Throws warpkit::parse_error (file:line:column) on malformed JSON and warpkit::error
/// "FILE: KEY.PATH: what" on a bad spec; nothing else.
[[nodiscard]] inline spec parse_spec(std::string_view text, const std::string& file) {
    spec s;
    s.file = file;
    const json j = detail::read_document(text, file);
    detail::check_top_keys(s, j);
    // The keys in this order, so that a spec with several faults names the same one each time.
    detail::read_workloads(s, j, std::filesystem::path(file).parent_path());
    const bool any_preset = std::any_of(s.workloads.begin(), s.workloads.end(),
                                        [](const workload& w) { return w.takes_preset(); });
    const bool any_seed = std::any_of(s.workloads.begin(), s.workloads.end(),
                                      [](const workload& w) { return w.takes_seed(); });
    detail::read_presets(s, j, any_preset);
    if (j.contains("set")) s.fixed = detail::read_settings(s, "set", j["set"]);
    detail::read_grid(s, j);
    detail::read_seeds(s, j, any_seed);
    std::vector<std::string> columns = detail::read_stats(s, j);
    detail::read_derived(s, j, columns);
    detail::read_timeout(s, j);
    detail::check_point_total(s);
    return s;
}

} // namespace sweep
