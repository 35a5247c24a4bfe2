#pragma once
// Shared by every example tool that writes results: one output schema. A JSON record starts
// with the same header ("tool": the program's name, "command_line": its argv as an array of
// strings) and then holds "params" (everything that decided the run), the statistics, and
// derived figures whose names carry their unit. Output files are written through
// write_text_file, whose error names the path and the operating system's reason, and tables
// go out through csv_table, which quotes a text cell only where CSV needs it.

#include <warpkit/core/error.hpp>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace example {

/// The start of a tool's JSON record: {"tool": `tool`, "command_line": [argv[0], ...]}.
/// `Json` is nlohmann::json or nlohmann::ordered_json (the tool's own key order).
template <class Json = nlohmann::json>
[[nodiscard]] Json record_header(std::string_view tool, int argc, const char* const* argv) {
    Json j = Json::object();
    j["tool"] = std::string(tool);
    Json args = Json::array();
    for (int i = 0; i < argc; ++i)
        args.push_back(std::string(argv[i]));
    j["command_line"] = std::move(args);
    return j;
}

/// "cannot write '<path>': <reason>", the reason from errno (strerror) when it names one.
[[nodiscard]] inline warpkit::error write_error(const std::string& path, int error_number) {
    return warpkit::error("cannot write '" + path +
                          "': " + std::strerror(error_number != 0 ? error_number : EIO));
}

/// Writes `text` to the file at `path` (created or replaced). Throws warpkit::error naming the
/// path and the reason when the file cannot be opened, written or closed.
inline void write_text_file(const std::string& path, std::string_view text) {
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"),
                                                            &std::fclose);
    if (!f) throw write_error(path, errno);
    if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size() ||
        std::fflush(f.get()) != 0)
        throw write_error(path, errno);
}

/// Writes JSON record `j` to `path`, indented by two, with a final newline.
template <class Json>
void write_json_file(const std::string& path, const Json& j) {
    write_text_file(path, j.dump(2) + "\n");
}

/// Opens `path` for a stream of rows written while a run goes on (a trace). Throws
/// warpkit::error naming the path and the reason when it cannot be opened.
[[nodiscard]] inline std::ofstream open_output_file(const std::filesystem::path& path) {
    errno = 0;
    std::ofstream f(path);
    if (!f) throw write_error(path.string(), errno);
    return f;
}

/// `v` as a CSV or table cell: integers in full, other numbers in the shortest form that reads
/// back the same value.
template <class T>
requires std::is_arithmetic_v<T>
[[nodiscard]] std::string number_cell(T v) {
    if constexpr (std::is_same_v<T, bool>) {
        return v ? "1" : "0";
    } else {
        char buf[64];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        return ec == std::errc{} ? std::string(buf, end) : std::string();
    }
}

/// `text` as a CSV cell: quoted (with inner quotes doubled) when it holds a comma, a quote or a
/// line break; as it is otherwise.
[[nodiscard]] inline std::string text_cell(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

/// A CSV table: a header line of column names and rows of as many cells. Numbers go in through
/// number_cell, text through text_cell; a cell already formatted (a fixed number of digits, as
/// a tool prints it) goes in with add_formatted.
class csv_table {
public:
    explicit csv_table(std::vector<std::string> columns) : columns_(std::move(columns)) {}

    /// Starts a new row; the cells follow with add or add_formatted.
    csv_table& row() {
        rows_.emplace_back();
        return *this;
    }
    /// Appends a number or a text cell to the current row.
    template <class T>
    csv_table& add(const T& value) {
        if constexpr (std::is_arithmetic_v<T>)
            return add_formatted(number_cell(value));
        else
            return add_formatted(text_cell(value));
    }
    /// Appends `cell` to the current row as it is (it must not need quoting).
    csv_table& add_formatted(std::string cell) {
        if (rows_.empty()) row();
        rows_.back().push_back(std::move(cell));
        return *this;
    }
    /// The number of rows (the header not counted).
    [[nodiscard]] std::size_t rows() const noexcept { return rows_.size(); }
    /// The header line.
    [[nodiscard]] std::string header() const { return join(columns_, true); }
    /// Row `i` as one line, without its line break.
    [[nodiscard]] std::string line(std::size_t i) const { return join(rows_.at(i), false); }
    /// The whole table: the header and every row, each ending with a line break. Throws
    /// warpkit::error when a row has not as many cells as there are columns.
    [[nodiscard]] std::string text() const {
        std::string out = header() + '\n';
        for (std::size_t i = 0; i < rows_.size(); ++i) {
            if (rows_[i].size() != columns_.size())
                throw warpkit::error("CSV row " + std::to_string(i + 1) + " has " +
                                     std::to_string(rows_[i].size()) + " cells for " +
                                     std::to_string(columns_.size()) + " columns");
            out += line(i) + '\n';
        }
        return out;
    }
    /// Writes text() to `path` (write_text_file).
    void write(const std::string& path) const { write_text_file(path, text()); }

private:
    static std::string join(const std::vector<std::string>& cells, bool quote) {
        std::string out;
        for (std::size_t i = 0; i < cells.size(); ++i)
            out += (i == 0 ? "" : ",") + (quote ? text_cell(cells[i]) : cells[i]);
        return out;
    }
    std::vector<std::string> columns_;
    std::vector<std::vector<std::string>> rows_;
};

/// A fixed-point rendering of `v` with `digits` decimals ("%.<digits>f"), for cells that must
/// read as the tool's printed table does.
[[nodiscard]] inline std::string fixed_cell(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

/// The JSON and CSV files a tool was asked for (--json FILE, --csv FILE; empty: none).
struct output_files {
    std::string json; ///< --json FILE
    std::string csv;  ///< --csv FILE
};

} // namespace example
