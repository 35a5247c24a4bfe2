#pragma once
/// \file
/// Generic handling of any reflected stats struct: add instances together and write them as
/// CSV (long "path,value" rows, or a wide header plus one row per instance). JSON is in
/// <warpkit/core/json.hpp>, which tools include.

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/reflect.hpp>

#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace warpkit {

namespace detail {

template <class T>
void accumulate_value(T& into, const T& from, std::string_view path) {
    if constexpr (reflectable<T>) {
        for_each_member_pair(into, from, [&](std::string_view name, auto& i, const auto& f) {
            accumulate_value(i, f, join_path(path, name));
        });
    } else if constexpr (is_std_array<T>::value) {
        for (std::size_t i = 0; i < into.size(); ++i)
            accumulate_value(into[i], from[i], index_path(path, i));
    } else if constexpr (is_std_vector<T>::value) {
        if (into.size() < from.size()) into.resize(from.size());
        for (std::size_t i = 0; i < from.size(); ++i)
            accumulate_value(into[i], from[i], index_path(path, i));
    } else if constexpr (histogram_type<T>) {
        into += from;
    } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        into += from;
    } else {
        static_assert(std::is_same_v<T, void>, "stats fields must be numbers, histograms, "
                                               "reflected structs, arrays or vectors of them");
    }
}

template <class T>
void subtract_value(T& into, const T& from) {
    if constexpr (reflectable<T>) {
        for_each_member_pair(
            into, from, [](std::string_view, auto& i, const auto& f) { subtract_value(i, f); });
    } else if constexpr (is_std_array<T>::value) {
        for (std::size_t i = 0; i < into.size(); ++i)
            subtract_value(into[i], from[i]);
    } else if constexpr (is_std_vector<T>::value) {
        WARPKIT_EXPECTS(from.size() <= into.size());
        for (std::size_t i = 0; i < from.size(); ++i)
            subtract_value(into[i], from[i]);
    } else if constexpr (histogram_type<T>) {
        into -= from;
    } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        into -= from;
    } else {
        static_assert(std::is_same_v<T, void>, "stats fields must be numbers, histograms, "
                                               "reflected structs, arrays or vectors of them");
    }
}

template <class T>
void zero_value(T& v) {
    if constexpr (reflectable<T>) {
        for_each_member(v, [](std::string_view, auto& m) { zero_value(m); });
    } else if constexpr (sequence_field<T>) {
        for (auto& e : v)
            zero_value(e);
    } else if constexpr (histogram_type<T>) {
        v.clear();
    } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        v = T{};
    } else {
        static_assert(std::is_same_v<T, void>, "stats fields must be numbers, histograms, "
                                               "reflected structs, arrays or vectors of them");
    }
}

template <class T>
std::string number_text(const T& v) {
    std::ostringstream os;
    if constexpr (std::is_floating_point_v<T>) os.precision(std::numeric_limits<T>::max_digits10);
    os << +v;
    return os.str();
}

/// Calls f(column, text) for every scalar of a stats struct, histograms expanded per bin.
template <class S, class F>
void for_each_stat_cell(const S& s, std::string_view prefix, F&& f) {
    for_each_leaf(
        s,
        [&](const std::string& path, const auto& leaf) {
            using L = std::remove_cvref_t<decltype(leaf)>;
            if constexpr (histogram_type<L>) {
                for (std::size_t b = 0; b < L::bins; ++b)
                    f(path + "[" + leaf.label(b) + "]", std::to_string(leaf.count(b)));
                f(path + ".samples", std::to_string(leaf.samples()));
                f(path + ".sum", std::to_string(leaf.sum()));
            } else {
                f(path, number_text(leaf));
            }
        },
        prefix);
}

} // namespace detail

/// Adds every counter and histogram of `from` into `into` (vectors grow to the longer size).
template <reflectable S>
void accumulate(S& into, const S& from) {
    detail::accumulate_value(into, from, {});
}

/// Removes from `into` an earlier snapshot `from` of the same counters, leaving what was
/// counted between the two (counters only grow, so no field goes below zero).
template <reflectable S>
void subtract(S& into, const S& from) {
    detail::subtract_value(into, from);
}

/// Sets every counter and histogram of `s` to zero, keeping its shape (vector sizes, so
/// per-node or per-warp entries stay addressable): what a component's reset_stats() does.
template <reflectable S>
void reset_counters(S& s) {
    detail::zero_value(s);
}

/// The sum of a range of stats structs.
template <class Range>
[[nodiscard]] auto sum_stats(const Range& r) {
    using S = std::remove_cvref_t<decltype(*std::begin(r))>;
    S total{};
    for (const auto& s : r)
        accumulate(total, s);
    return total;
}

/// Long CSV: a "stat,value" header, then one row per counter (histograms one row per bin),
/// names prefixed with `prefix` ("gpu.sm[3]").
template <reflectable S>
[[nodiscard]] std::string stats_to_csv(const S& s, std::string_view prefix = {}) {
    std::string out = "stat,value\n";
    detail::for_each_stat_cell(s, prefix, [&](const std::string& col, const std::string& text) {
        out += col;
        out += ',';
        out += text;
        out += '\n';
    });
    return out;
}

/// Wide CSV header: the column names of stats_csv_row for the same struct shape.
template <reflectable S>
[[nodiscard]] std::string stats_csv_header(const S& s) {
    std::string out;
    detail::for_each_stat_cell(s, {}, [&](const std::string& col, const std::string&) {
        out += out.empty() ? "" : ",";
        out += col;
    });
    return out;
}

/// Wide CSV: one row of values in stats_csv_header order.
template <reflectable S>
[[nodiscard]] std::string stats_csv_row(const S& s) {
    std::string out;
    bool first = true;
    detail::for_each_stat_cell(s, {}, [&](const std::string&, const std::string& text) {
        if (!first) out += ',';
        first = false;
        out += text;
    });
    return out;
}

} // namespace warpkit
