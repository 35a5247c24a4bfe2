#pragma once
// Reading the values of a sweep spec: command-line-safe text, grid values, ranges
// {from, to, step}, grid axes and zip groups, strings and paths, and `set` objects.

#include "spec_types.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sweep::detail {

// A key or value that goes onto a child's command line as key=value.
inline bool plain_text(std::string_view t, bool is_key) {
    if (t.empty() && is_key) return false;
    for (const char c : t) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == ';' || (is_key && (c == '=' || c == ' '))) return false;
    }
    return true;
}

// A scalar as text: a string without its quotes, anything else as JSON.
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

// The values of grid parameter `key`: a list, a range or one value.
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

// A zip group: parameters with as many values each, advancing together.
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

// A non-empty string at `where`.
inline std::string need_string(const spec& s, const std::string& where, const json& v) {
    if (!v.is_string() || v.get<std::string>().empty())
        throw spec_error(s, where, "expected a non-empty string, not " + v.dump());
    return v.get<std::string>();
}

// A path at `where`, relative ones taken from `base` (the spec's folder).
inline std::filesystem::path need_path(const spec& s, const std::string& where, const json& v,
                                       const std::filesystem::path& base) {
    std::filesystem::path p = need_string(s, where, v);
    if (p.is_relative()) p = base / p;
    return p.lexically_normal();
}

// true or false at `where`.
inline bool need_bool(const spec& s, const std::string& where, const json& v) {
    if (!v.is_boolean()) throw spec_error(s, where, "expected true or false");
    return v.get<bool>();
}

// A `set` object at `where` (parameter: value) as key=value pairs in the spec's order.
inline std::vector<std::pair<std::string, std::string>>
read_settings(const spec& s, const std::string& where, const json& f) {
    if (!f.is_object()) throw spec_error(s, where, "an object of parameter: value");
    std::vector<std::pair<std::string, std::string>> settings;
    for (const auto& [k, v] : f.items()) {
        const std::string at = where + "." + k;
        if (!plain_text(k, true)) throw spec_error(s, at, "not a parameter name");
        settings.emplace_back(k, grid_value(s, at, v));
    }
    return settings;
}

} // namespace sweep::detail
