#pragma once
/// \file
/// Generic handling of any reflected params struct: print it, override fields with
/// `key=value` strings, and validate it (errors name field, value and range). Reading and
/// writing JSON is in <warpkit/core/json.hpp>, which tools include.

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit {

/// Throws config_error(field, value, "[lo, hi]") unless lo <= value <= hi.
template <class T>
void check_range(std::string_view field, T value, T lo, T hi) {
    if (value < lo || value > hi) {
        std::ostringstream v;
        std::ostringstream a;
        v << +value;
        a << '[' << +lo << ", " << +hi << ']';
        throw config_error(std::string(field), v.str(), a.str());
    }
}

/// Throws config_error(field, value, allowed) unless `ok`.
template <class T>
void check(bool ok, std::string_view field, const T& value, std::string_view allowed) {
    if (!ok) {
        std::ostringstream v;
        if constexpr (std::is_arithmetic_v<T>)
            v << +value;
        else
            v << value;
        throw config_error(std::string(field), v.str(), std::string(allowed));
    }
}

/// A params struct that checks itself: `void validate() const` throws config_error.
template <class P>
concept self_validating = requires(const P& p) {
    p.validate();
};

namespace detail {

template <class T>
std::string leaf_to_text(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
        return v ? "true" : "false";
    } else if constexpr (named_enum<T>) {
        const auto i = static_cast<std::size_t>(v);
        const auto& names = enum_names<T>::names;
        return i < names.size() ? std::string(names[i]) : std::to_string(i);
    } else if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<std::underlying_type_t<T>>(v));
    } else if constexpr (std::is_arithmetic_v<T>) {
        std::ostringstream os;
        os.precision(std::numeric_limits<T>::max_digits10);
        os << +v;
        return os.str();
    } else {
        return std::string(v);
    }
}

template <class E>
std::string enum_choices() {
    std::string s;
    for (auto n : enum_names<E>::names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return "one of: " + s;
}

template <std::integral T>
std::string int_range() {
    return "an integer in [" + std::to_string(+std::numeric_limits<T>::min()) + ", " +
           std::to_string(+std::numeric_limits<T>::max()) + "]";
}

/// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF): the only strings params_to_json can hold and nlohmann::json can write.
[[nodiscard]] constexpr bool valid_utf8(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        unsigned char lo = 0x80;
        unsigned char hi = 0xBF;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (s.size() - i <= n) return false;
        for (std::size_t k = 1; k <= n; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
        }
        i += n + 1;
    }
    return true;
}

/// Parses `text` into `out`; throws config_error naming `path` when it is not a valid value.
template <class T>
void leaf_from_text(std::string_view path, std::string_view text, T& out) {
    const auto fail = [&](const std::string& allowed) {
        throw config_error(std::string(path), "'" + std::string(text) + "'", allowed);
    };
    if constexpr (std::is_same_v<T, bool>) {
        if (text == "true" || text == "1" || text == "on" || text == "yes")
            out = true;
        else if (text == "false" || text == "0" || text == "off" || text == "no")
            out = false;
        else
            fail("true or false");
    } else if constexpr (named_enum<T>) {
        const auto& names = enum_names<T>::names;
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == text) {
                out = static_cast<T>(i);
                return;
            }
        fail(enum_choices<T>());
    } else if constexpr (std::is_enum_v<T>) {
        std::underlying_type_t<T> u{};
        leaf_from_text(path, text, u);
        out = static_cast<T>(u);
    } else if constexpr (std::is_integral_v<T>) {
        std::string_view t = text;
        bool negative = false;
        if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
            negative = t.front() == '-';
            t.remove_prefix(1);
        }
        int base = 10;
        if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            base = 16;
            t.remove_prefix(2);
        }
        std::uint64_t mag = 0;
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), mag, base);
        if (t.empty() || ec == std::errc::invalid_argument || p != t.data() + t.size())
            fail(int_range<T>());
        if (ec == std::errc::result_out_of_range) fail(int_range<T>());
        if (negative) {
            if constexpr (std::is_unsigned_v<T>) {
                if (mag != 0) fail(int_range<T>());
                out = 0;
            } else {
                const auto lim = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) + 1;
                if (mag > lim) fail(int_range<T>());
                out = static_cast<T>(-static_cast<std::int64_t>(mag - 1) - 1);
            }
        } else {
            if (mag > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
                fail(int_range<T>());
            out = static_cast<T>(mag);
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        T v{};
        const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc{} || p != text.data() + text.size())
            fail("a finite number");
        if (!(v == v) || v > std::numeric_limits<T>::max() || v < std::numeric_limits<T>::lowest())
            fail("a finite number");
        out = v;
    } else if constexpr (std::is_same_v<T, std::string>) {
        // JSON (params_to_json) cannot hold other bytes; reject them here, naming the field.
        if (!valid_utf8(text)) fail("UTF-8 text");
        out = std::string(text);
    } else {
        static_assert(std::is_same_v<T, void>, "unsupported params field type");
    }
}

template <class P>
void validate_tree(const P& p, std::string_view path) {
    if constexpr (reflectable<P>) {
        for_each_member(p, [&](std::string_view name, const auto& m) {
            validate_tree(m, join_path(path, name));
        });
        if constexpr (self_validating<P>) {
            try {
                p.validate();
            } catch (const config_error& e) {
                throw e.with_prefix(path);
            }
        }
    } else if constexpr (sequence_field<P>) {
        for (std::size_t i = 0; i < p.size(); ++i)
            validate_tree(p[i], index_path(path, i));
    }
}

} // namespace detail

/// Checks every nested params struct, innermost first, then `p` itself. A failure is a
/// config_error whose field is the full dotted path.
template <reflectable P>
void validate(const P& p) {
    detail::validate_tree(p, {});
}

/// `p` once validate(p) has passed, for the member initialiser of a part that keeps its
/// params: `: p_(validated(p))` checks them before any other member is built from them.
template <reflectable P>
[[nodiscard]] const P& validated(const P& p) {
    validate(p);
    return p;
}

namespace detail {

/// Levenshtein distance between two short strings (field paths).
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

/// The paths that an unknown `key` most likely meant, closest first (at most four): those
/// whose whole path or last component is within a third of the key's length in edits.
[[nodiscard]] inline std::vector<std::string> close_matches(std::string_view key,
                                                            const std::vector<std::string>& paths) {
    const std::size_t limit = std::max<std::size_t>(1, key.size() / 3);
    std::vector<std::pair<std::size_t, std::size_t>> scored; // (distance, index)
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const std::string_view path = paths[i];
        const auto dot = path.find_last_of('.');
        const std::string_view last = dot == std::string_view::npos ? path : path.substr(dot + 1);
        const std::size_t d = std::min(edit_distance(key, path), edit_distance(key, last));
        if (d <= limit) scored.emplace_back(d, i);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (std::size_t k = 0; k < scored.size() && k < 4; ++k)
        out.push_back(paths[scored[k].second]);
    return out;
}

} // namespace detail

/// Sets one field from "path=value" ("l1.sets=64", "lat[2]=5"); does not validate. An unknown
/// path is a config_error that names the closest known paths ("did you mean") and the known
/// ones.
template <reflectable P>
void apply_override(P& p, std::string_view assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string_view::npos)
        throw config_error(std::string(assignment), "(no value)", "key=value");
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
            s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
            s.remove_suffix(1);
        return s;
    };
    const std::string_view key = trim(assignment.substr(0, eq));
    const std::string_view text = trim(assignment.substr(eq + 1));
    bool found = false;
    std::vector<std::string> paths;
    for_each_leaf(p, [&](const std::string& path, auto& leaf) {
        if (path == key) {
            found = true;
            detail::leaf_from_text(key, text, leaf);
        }
        if (!found) paths.push_back(path);
    });
    if (!found) {
        std::string known;
        for (std::size_t i = 0; i < paths.size() && i < 24; ++i)
            known += (i == 0 ? "" : ", ") + paths[i];
        if (paths.size() > 24) known += ", ...";
        const auto near = detail::close_matches(key, paths);
        std::string allowed = "no such field; ";
        if (!near.empty()) {
            allowed += "did you mean ";
            for (std::size_t i = 0; i < near.size(); ++i)
                allowed += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
            allowed += "? (";
        }
        allowed += "known: " + known + (near.empty() ? "" : ")");
        throw config_error(std::string(key), "'" + std::string(text) + "'", allowed);
    }
}

/// Applies every "key=value" in order, then validates.
template <reflectable P, class Range>
void apply_overrides(P& p, const Range& assignments) {
    for (const auto& a : assignments)
        apply_override(p, std::string_view(a));
    validate(p);
}

/// Every field as "path = value", one per line.
template <reflectable P>
[[nodiscard]] std::string params_to_text(const P& p) {
    std::string s;
    for_each_leaf(p, [&](const std::string& path, const auto& leaf) {
        s += path;
        s += " = ";
        s += detail::leaf_to_text(leaf);
        s += '\n';
    });
    return s;
}

} // namespace warpkit
