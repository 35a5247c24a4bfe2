#pragma once
/// \file
/// The coefficient file of the scalability predictor: one `name value` pair per line, first
/// `constant` (b0), then one line per metric input (keys of scalability_metrics, each at most
/// once). Blank lines and text after '#' are ignored. `warpkit-amoeba train` writes it and
/// `predict --coeffs FILE` reads it; values are written in the shortest form that reads back
/// to the same double, so a model survives the round trip bit for bit.

#include <warpkit/core/error.hpp>
#include <warpkit/reconfig/logistic_regression.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>
#include <warpkit/reconfig/training_data.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::reconfig {

namespace detail {
/// `v` in the shortest text that parses back to exactly `v`.
[[nodiscard]] inline std::string shortest(double v) {
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return {buf.data(), r.ptr};
}

/// Whitespace-separated words of a line (up to a '#'), each with its 1-based column.
[[nodiscard]] inline std::vector<csv_field> split_words(std::string_view line) {
    std::vector<csv_field> out;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '#') {
        if (is_blank(line[i])) {
            ++i;
            continue;
        }
        const std::size_t b = i;
        while (i < line.size() && !is_blank(line[i]) && line[i] != '#')
            ++i;
        out.push_back({line.substr(b, i - b), b + 1});
    }
    return out;
}
} // namespace detail

/// The coefficient file text of `m`: `constant b0`, then `name b_i` in input order.
[[nodiscard]] inline std::string write_coefficients(const logistic_regression& m) {
    std::string s = "constant " + detail::shortest(m.intercept()) + "\n";
    for (std::size_t i = 0; i < m.inputs(); ++i)
        s += m.names()[i] + " " + detail::shortest(m.weights()[i]) + "\n";
    return s;
}

/// Parses coefficient file `text` (the contents of `file`, named in errors).
[[nodiscard]] inline logistic_regression read_coefficients(std::string_view text,
                                                           const std::string& file) {
    bool have_constant = false;
    double intercept = 0;
    std::vector<std::string> names;
    std::vector<double> weights;
    detail::for_each_content_line(text, [&](std::size_t line_no, std::string_view line) {
        const auto words = detail::split_words(line);
        if (words.empty()) return; // a comment after blanks
        const auto& name = words[0];
        if (words.size() < 2)
            throw parse_error(file, line_no, name.column + name.text.size(),
                              "expected a value after '" + std::string(name.text) + "'");
        if (words.size() > 2)
            throw parse_error(file, line_no, words[2].column,
                              "unexpected '" + std::string(words[2].text) +
                                  "' (one 'name value' pair per line)");
        if (!have_constant && name.text != "constant")
            throw parse_error(file, line_no, name.column,
                              "expected 'constant' first, found '" + std::string(name.text) + "'");
        if (have_constant) {
            if (name.text == "constant")
                throw parse_error(file, line_no, name.column, "'constant' appears twice");
            if (!metric_index(name.text))
                throw parse_error(file, line_no, name.column,
                                  "unknown metric '" + std::string(name.text) +
                                      "' (metrics: " + metric_list() + ")");
            for (const auto& n : names)
                if (n == name.text)
                    throw parse_error(file, line_no, name.column, "'" + n + "' appears twice");
        }
        const auto& value = words[1];
        const auto v = detail::parse_number(value.text);
        if (!v || !std::isfinite(*v))
            throw parse_error(file, line_no, value.column,
                              "'" + std::string(value.text) + "' is not a finite number");
        if (!have_constant) {
            have_constant = true;
            intercept = *v;
        } else {
            names.emplace_back(name.text);
            weights.push_back(*v);
        }
    });
    if (!have_constant)
        throw parse_error(file, detail::end_line(text), 1,
                          "empty file: expected 'constant <value>' and one line per metric");
    return {std::move(names), intercept, std::move(weights)};
}

} // namespace warpkit::reconfig
