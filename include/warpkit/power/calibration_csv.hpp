#pragma once
/// \file
/// The calibration input files: a header line of column names, then rows of numbers, comma
/// separated. Every defect (empty file, missing rows, a row of the wrong width, text or
/// NaN / infinity where a number belongs, files that disagree on the benchmark count) is a
/// parse_error naming file, line and column.

#include <warpkit/core/error.hpp>
#include <warpkit/power/calibration.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace warpkit::power {

/// A parsed CSV table of numbers.
struct csv_table {
    std::vector<std::string> header;
    std::vector<double> values;              ///< rows x header.size(), row-major
    std::vector<std::size_t> lines;          ///< source line of each row (1-based)
    std::vector<std::size_t> header_columns; ///< source column of each header name (1-based)
    std::vector<std::size_t> columns;        ///< source column of each value, as `values`
    [[nodiscard]] std::size_t rows() const noexcept { return lines.size(); }
    [[nodiscard]] std::size_t cols() const noexcept { return header.size(); }
    [[nodiscard]] double at(std::size_t r, std::size_t c) const {
        return values.at(r * cols() + c);
    }
};

namespace detail {
[[nodiscard]] inline std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}
// Splits `line` at commas; each field with its 1-based column.
[[nodiscard]] inline std::vector<std::pair<std::string_view, std::size_t>>
split_fields(std::string_view line) {
    std::vector<std::pair<std::string_view, std::size_t>> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = line.find(',', start);
        const std::string_view raw = line.substr(
            start, comma == std::string_view::npos ? line.size() - start : comma - start);
        std::size_t col = start + 1;
        while (col - 1 < line.size() && col - 1 < start + raw.size() &&
               (line[col - 1] == ' ' || line[col - 1] == '\t'))
            ++col;
        out.emplace_back(trim(raw), col);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}
} // namespace detail

namespace detail {
// Throws a parse_error at the first negative value of `t` (what: what the values are).
inline void require_non_negative(const csv_table& t, const std::string& file,
                                 std::string_view what) {
    for (std::size_t i = 0; i < t.values.size(); ++i)
        if (t.values[i] < 0)
            throw parse_error(file, t.lines[i / t.cols()], t.columns[i],
                              "negative " + std::string(what) + " " + std::to_string(t.values[i]) +
                                  " in column '" + t.header[i % t.cols()] + "'");
}
} // namespace detail

/// Parses `text` (the contents of `file`). Blank lines are skipped.
[[nodiscard]] inline csv_table parse_csv_table(std::string_view text, const std::string& file) {
    csv_table t;
    bool have_header = false;
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t nl = text.find('\n', pos);
        const std::string_view line =
            text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
        ++line_no;
        pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        if (detail::trim(line).empty()) continue;
        const auto fields = detail::split_fields(line);
        if (!have_header) {
            for (const auto& [f, col] : fields) {
                if (f.empty()) throw parse_error(file, line_no, col, "empty column name in header");
                for (const auto& h : t.header)
                    if (h == f)
                        throw parse_error(file, line_no, col,
                                          "duplicate column name '" + std::string(f) + "'");
                t.header.emplace_back(f);
                t.header_columns.push_back(col);
            }
            have_header = true;
            continue;
        }
        if (fields.size() != t.header.size())
            throw parse_error(file, line_no, 1,
                              "row has " + std::to_string(fields.size()) + " values, the header " +
                                  std::to_string(t.header.size()) + " columns");
        for (const auto& [f, col] : fields) {
            double v = 0;
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
            if (f.empty() || ec != std::errc{} || end != f.data() + f.size())
                throw parse_error(file, line_no, col, "'" + std::string(f) + "' is not a number");
            if (!std::isfinite(v))
                throw parse_error(file, line_no, col,
                                  "'" + std::string(f) + "' is not a finite number");
            t.values.push_back(v);
            t.columns.push_back(col);
        }
        t.lines.push_back(line_no);
    }
    if (!have_header) throw parse_error(file, 1, 1, "empty file: expected a header line");
    if (t.rows() == 0) throw parse_error(file, line_no, 1, "no data rows after the header");
    return t;
}

/// The refinement problem from an activity file (header: column names, one row of access
/// rates per benchmark) and a measured-power file (header `power`, one value per benchmark).
[[nodiscard]] inline lse_problem read_lse_problem(std::string_view activity_text,
                                                  const std::string& activity_file,
                                                  std::string_view measured_text,
                                                  const std::string& measured_file) {
    const csv_table a = parse_csv_table(activity_text, activity_file);
    const csv_table p = parse_csv_table(measured_text, measured_file);
    if (p.cols() != 1 || p.header[0] != "power")
        throw parse_error(measured_file, 1, 1, "expected the header 'power' (one column)");
    if (a.rows() != p.rows()) {
        const bool more_a = a.rows() > p.rows();
        const csv_table& longer = more_a ? a : p;
        throw parse_error(more_a ? activity_file : measured_file,
                          longer.lines[std::min(a.rows(), p.rows())], 1,
                          activity_file + " has " + std::to_string(a.rows()) + " benchmarks but " +
                              measured_file + " has " + std::to_string(p.rows()));
    }
    // The columns are the model's components (their modelled dynamic power, W): any other
    // name would fit a factor that applies to nothing, and power is never negative.
    const std::vector<std::string> known = component_names();
    for (std::size_t c = 0; c < a.cols(); ++c)
        if (std::find(known.begin(), known.end(), a.header[c]) == known.end()) {
            std::string list;
            for (const auto& k : known)
                list += (list.empty() ? "" : ", ") + k;
            throw parse_error(activity_file, 1, a.header_columns[c],
                              "unknown component '" + a.header[c] + "' (known: " + list + ")");
        }
    detail::require_non_negative(a, activity_file, "activity");
    detail::require_non_negative(p, measured_file, "power");
    lse_problem prob;
    prob.names = a.header;
    prob.a = a.values;
    prob.measured = p.values;
    return prob;
}

/// (frequency, power) points from a file with the header `frequency,power`.
[[nodiscard]] inline std::pair<std::vector<double>, std::vector<double>>
read_frequency_points(std::string_view text, const std::string& file) {
    const csv_table t = parse_csv_table(text, file);
    if (t.cols() != 2 || t.header[0] != "frequency" || t.header[1] != "power")
        throw parse_error(file, 1, 1, "expected the header 'frequency,power'");
    detail::require_non_negative(t, file, "frequency and power");
    for (std::size_t r = 0; r < t.rows(); ++r)
        if (!(t.at(r, 0) > 0))
            throw parse_error(file, t.lines[r], t.columns[r * t.cols()],
                              "frequency " + std::to_string(t.at(r, 0)) + " is not positive");
    std::pair<std::vector<double>, std::vector<double>> out;
    for (std::size_t r = 0; r < t.rows(); ++r) {
        out.first.push_back(t.at(r, 0));
        out.second.push_back(t.at(r, 1));
    }
    return out;
}

} // namespace warpkit::power
