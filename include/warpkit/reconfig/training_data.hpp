#pragma once
/// \file
/// Offline training data for the scalability predictor: rows of metric values with a 0/1
/// label (1 = the kernel ran faster on fused, scale-up SMs), and the CSV reader for them.
///
/// CSV format: a header line naming the metric columns (keys of scalability_metrics, each at
/// most once, any order) followed by `label` as the last column; then one row per kernel,
/// comma separated. Blank lines and lines starting with '#' are skipped. Every defect (empty
/// file, missing label column, unknown or repeated column, a row of the wrong width, a value
/// that is not a finite number or is outside the metric's range, a label other than 0 or 1,
/// no rows) is a parse_error naming file, line and column.

#include <warpkit/core/error.hpp>
#include <warpkit/reconfig/scalability_metrics.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace warpkit::reconfig {

/// A labelled data set: `names.size()` inputs per row.
struct training_set {
    std::vector<std::string> names;   ///< input columns
    std::vector<double> x;            ///< rows() x cols() values, row-major
    std::vector<std::uint8_t> labels; ///< 0 or 1 per row (1 = scale up)
    std::vector<std::size_t> lines;   ///< source line of each row (1-based; 0 if not from a file)

    [[nodiscard]] std::size_t rows() const noexcept { return labels.size(); }
    [[nodiscard]] std::size_t cols() const noexcept { return names.size(); }
    /// Value of column `c` in row `r`.
    [[nodiscard]] double at(std::size_t r, std::size_t c) const {
        WARPKIT_EXPECTS(r < rows() && c < cols());
        return x[r * cols() + c];
    }
    /// Appends a row of cols() values with its label.
    void add_row(std::span<const double> values, bool label, std::size_t line = 0) {
        WARPKIT_EXPECTS(values.size() == cols());
        x.insert(x.end(), values.begin(), values.end());
        labels.push_back(label ? 1 : 0);
        lines.push_back(line);
    }
};

namespace detail {

/// One comma-separated field: its text (blanks trimmed) and 1-based column of its start.
struct csv_field {
    std::string_view text;
    std::size_t column = 1;
};

[[nodiscard]] inline bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\r';
}

[[nodiscard]] inline std::vector<csv_field> split_csv_line(std::string_view line) {
    std::vector<csv_field> out;
    std::size_t start = 0;
    for (;;) {
        std::size_t end = line.find(',', start);
        const bool last = end == std::string_view::npos;
        if (last) end = line.size();
        std::size_t b = start;
        std::size_t e = end;
        while (b < e && is_blank(line[b]))
            ++b;
        while (e > b && is_blank(line[e - 1]))
            --e;
        out.push_back({line.substr(b, e - b), b + 1});
        if (last) break;
        start = end + 1;
    }
    return out;
}

/// Parses a whole field as a double; nullopt unless all of it is a number.
[[nodiscard]] inline std::optional<double> parse_number(std::string_view s) noexcept {
    if (s.empty()) return std::nullopt;
    if (s.front() == '+') s.remove_prefix(1);
    double v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
    return v;
}

/// Calls f(line_number, line) for each line that is neither blank nor a '#' comment.
template <class F>
void for_each_content_line(std::string_view text, F&& f) {
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        const std::string_view line = text.substr(pos, nl - pos);
        ++line_no;
        pos = nl + 1;
        std::size_t first = 0;
        while (first < line.size() && is_blank(line[first]))
            ++first;
        if (first == line.size() || line[first] == '#') continue;
        f(line_no, line);
    }
}

/// 1-based number of the line after the last one of `text` (where "end of file" is).
[[nodiscard]] inline std::size_t end_line(std::string_view text) noexcept {
    std::size_t n = 1;
    for (char c : text)
        n += c == '\n' ? 1 : 0;
    return n;
}

} // namespace detail

/// Parses `text`, the contents of `file` (named in errors), into a training set whose columns
/// are metric keys.
[[nodiscard]] inline training_set read_training_csv(std::string_view text,
                                                    const std::string& file) {
    training_set t;
    std::vector<std::size_t> metric_of; // column -> index in metric_names
    bool have_header = false;
    std::vector<double> row;
    detail::for_each_content_line(text, [&](std::size_t line_no, std::string_view line) {
        const auto fields = detail::split_csv_line(line);
        if (!have_header) {
            have_header = true;
            const auto& last = fields.back();
            for (std::size_t c = 0; c + 1 < fields.size(); ++c) {
                const auto& f = fields[c];
                if (f.text == "label")
                    throw parse_error(file, line_no, f.column, "'label' must be the last column");
                const auto k = metric_index(f.text);
                if (!k)
                    throw parse_error(file, line_no, f.column,
                                      f.text.empty() ? "empty column name"
                                                     : "unknown column '" + std::string(f.text) +
                                                           "' (metrics: " + metric_list() + ")");
                for (std::size_t m : metric_of)
                    if (m == *k)
                        throw parse_error(file, line_no, f.column,
                                          "column '" + std::string(f.text) + "' appears twice");
                metric_of.push_back(*k);
                t.names.emplace_back(f.text);
            }
            if (last.text != "label")
                throw parse_error(file, line_no, last.column,
                                  "missing label column: the last column must be 'label' (0 or "
                                  "1), found '" +
                                      std::string(last.text) + "'");
            if (t.names.empty())
                throw parse_error(file, line_no, last.column, "no metric columns before 'label'");
            return;
        }
        const std::size_t want = t.cols() + 1;
        if (fields.size() != want) {
            const std::size_t col = fields.size() > want ? fields[want].column : line.size() + 1;
            throw parse_error(file, line_no, col,
                              "row has " + std::to_string(fields.size()) + " values, the header " +
                                  std::to_string(want) + " columns");
        }
        row.assign(t.cols(), 0.0);
        for (std::size_t c = 0; c < t.cols(); ++c) {
            const auto& f = fields[c];
            const std::string& name = t.names[c];
            const auto v = detail::parse_number(f.text);
            if (!v)
                throw parse_error(file, line_no, f.column,
                                  f.text.empty() ? "empty value for '" + name + "'"
                                                 : "'" + std::string(f.text) +
                                                       "' is not a number (column '" + name + "')");
            if (!std::isfinite(*v))
                throw parse_error(file, line_no, f.column,
                                  "'" + std::string(f.text) + "' is not a finite number (column '" +
                                      name + "')");
            try {
                check_metric(metric_of[c], *v);
            } catch (const config_error& e) {
                throw parse_error(file, line_no, f.column,
                                  name + " = " + std::string(f.text) + " is not allowed (" +
                                      e.allowed() + ")");
            }
            row[c] = *v;
        }
        const auto& lf = fields.back();
        const auto label = detail::parse_number(lf.text);
        if (!label || (*label != 0 && *label != 1))
            throw parse_error(file, line_no, lf.column,
                              "label must be 0 or 1, found '" + std::string(lf.text) + "'");
        t.add_row(row, *label == 1, line_no);
    });
    if (!have_header)
        throw parse_error(file, 1, 1, "empty file: expected a header line '<metric>,...,label'");
    if (t.rows() == 0)
        throw parse_error(file, detail::end_line(text), 1, "no data rows after the header");
    return t;
}

} // namespace warpkit::reconfig
