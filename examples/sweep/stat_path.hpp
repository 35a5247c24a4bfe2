#pragma once
// Statistic paths of a sweep spec: parsing "a.b[field=value].3.c" into steps, and reading the
// value at a path out of a run's JSON.

#include "spec_types.hpp"
#include "spec_values.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sweep {

namespace detail {

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

} // namespace detail

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
            stat_spec rest{
                st.column,
                st.path,
                {st.steps.begin() + static_cast<std::ptrdiff_t>(at_step) + 1, st.steps.end()}};
            // Integers add up as integers (counts stay exact), anything else as reals.
            double sum = 0;
            std::int64_t whole = 0;
            bool integers = true;
            for (std::size_t e = 0; e < at->size(); ++e) {
                json v = rest.steps.empty() ? (*at)[e] : extract((*at)[e], rest);
                if (v.is_boolean()) v = v.get<bool>() ? 1 : 0; // true counts one
                if (!v.is_number())
                    throw fail("element " + std::to_string(e) + " of " +
                               (done.empty() ? "the output" : done) + " gives no number to add up");
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

} // namespace sweep
