#pragma once
/// \file
/// JSON for any reflected params or stats struct (nlohmann::json): params to JSON and back
/// (unknown fields and wrongly typed values are config_errors naming the field), stats as
/// JSON. Kept apart from <warpkit/core/params.hpp> and <warpkit/core/stats.hpp> so that a
/// part header does not pay for the JSON library; tools and harnesses include this one.

#include <warpkit/core/error.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace warpkit {

namespace detail {

template <class T>
void leaf_from_json(std::string_view path, const nlohmann::json& j, T& out) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!j.is_boolean()) throw config_error(std::string(path), j.dump(), "true or false");
        out = j.get<bool>();
    } else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>) {
        if (j.is_string())
            leaf_from_text(path, j.get_ref<const std::string&>(), out);
        else if (std::is_enum_v<T> && j.is_number_integer())
            leaf_from_text(path, j.dump(), out);
        else
            throw config_error(std::string(path), j.dump(), "a string");
    } else if constexpr (std::is_integral_v<T>) {
        if (!j.is_number_integer()) throw config_error(std::string(path), j.dump(), int_range<T>());
        leaf_from_text(path, j.dump(), out);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!j.is_number()) throw config_error(std::string(path), j.dump(), "a finite number");
        // A json value built in code may hold NaN or infinity (JSON text cannot), and a double
        // may not fit a float field; dump() would show either as null, so name it.
        const double v = j.get<double>();
        if (!(v == v) || v > static_cast<double>(std::numeric_limits<T>::max()) ||
            v < static_cast<double>(std::numeric_limits<T>::lowest()))
            throw config_error(std::string(path),
                               std::isnan(v)   ? std::string("nan")
                               : std::isinf(v) ? std::string(v > 0 ? "inf" : "-inf")
                                               : j.dump(),
                               "a finite number");
        out = static_cast<T>(v);
    } else {
        static_assert(std::is_same_v<T, void>, "unsupported params field type");
    }
}

template <class T>
nlohmann::json to_json_value(const T& v) {
    using V = std::remove_cvref_t<T>;
    if constexpr (reflectable<V>) {
        nlohmann::json j = nlohmann::json::object();
        for_each_member(v, [&](std::string_view name, const auto& m) {
            j[std::string(name)] = to_json_value(m);
        });
        return j;
    } else if constexpr (sequence_field<V>) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& e : v)
            j.push_back(to_json_value(e));
        return j;
    } else if constexpr (std::is_enum_v<V>) {
        return leaf_to_text(v);
    } else {
        return v;
    }
}

template <class T>
void from_json_value(std::string_view path, const nlohmann::json& j, T& out) {
    using V = std::remove_cvref_t<T>;
    if constexpr (reflectable<V>) {
        if (!j.is_object())
            throw config_error(path.empty() ? std::string("(root)") : std::string(path), j.dump(),
                               "an object");
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string& key = it.key();
            const nlohmann::json& value = it.value();
            bool found = false;
            std::string names;
            for_each_member(out, [&](std::string_view name, auto& m) {
                names += names.empty() ? "" : ", ";
                names += name;
                if (name == key) {
                    found = true;
                    from_json_value(join_path(path, name), value, m);
                }
            });
            if (!found)
                throw config_error(join_path(path, key), value.dump(),
                                   "no such field; known: " + names);
        }
    } else if constexpr (detail::is_std_array<V>::value) {
        if (!j.is_array() || j.size() != out.size())
            throw config_error(std::string(path), j.dump(),
                               "an array of " + std::to_string(out.size()) + " elements");
        for (std::size_t i = 0; i < out.size(); ++i)
            from_json_value(index_path(path, i), j[i], out[i]);
    } else if constexpr (detail::is_std_vector<V>::value) {
        if (!j.is_array()) throw config_error(std::string(path), j.dump(), "an array");
        out.resize(j.size());
        for (std::size_t i = 0; i < out.size(); ++i)
            from_json_value(index_path(path, i), j[i], out[i]);
    } else {
        leaf_from_json(path, j, out);
    }
}

template <class T>
nlohmann::json stats_json_value(const T& v) {
    if constexpr (reflectable<T>) {
        nlohmann::json j = nlohmann::json::object();
        for_each_member(v, [&](std::string_view name, const auto& m) {
            j[std::string(name)] = stats_json_value(m);
        });
        return j;
    } else if constexpr (sequence_field<T>) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& e : v)
            j.push_back(stats_json_value(e));
        return j;
    } else if constexpr (histogram_type<T>) {
        nlohmann::json labels = nlohmann::json::array();
        nlohmann::json counts = nlohmann::json::array();
        for (std::size_t b = 0; b < T::bins; ++b) {
            labels.push_back(v.label(b));
            counts.push_back(v.count(b));
        }
        return {{"labels", labels},       {"counts", counts}, {"underflow", v.underflow()},
                {"samples", v.samples()}, {"sum", v.sum()},   {"mean", v.mean()}};
    } else {
        return v;
    }
}

} // namespace detail

/// `p` as a JSON object (enums by name).
template <reflectable P>
[[nodiscard]] nlohmann::json params_to_json(const P& p) {
    return detail::to_json_value(p);
}

/// Reads the fields present in `j` into `p` (absent fields keep their values), then validates.
/// Unknown fields and wrongly typed values are config_errors.
template <reflectable P>
void params_from_json(const nlohmann::json& j, P& p) {
    detail::from_json_value({}, j, p);
    validate(p);
}

/// `s` as JSON: counters as numbers, histograms as {labels, counts, samples, sum, mean}.
template <reflectable S>
[[nodiscard]] nlohmann::json stats_to_json(const S& s) {
    return detail::stats_json_value(s);
}

/// Defaults of P, overlaid with `j` (may be null) and then `overrides`, validated.
template <reflectable P, class Range = std::vector<std::string>>
[[nodiscard]] P make_params(const nlohmann::json& j = nullptr, const Range& overrides = {}) {
    P p{};
    if (!j.is_null()) detail::from_json_value({}, j, p);
    for (const auto& a : overrides)
        apply_override(p, std::string_view(a));
    validate(p);
    return p;
}

} // namespace warpkit
