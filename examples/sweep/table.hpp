#pragma once
// The sweep's table: PREFIX.csv and PREFIX.jsonl, one row per point, appended and flushed as
// points finish, rewritten sorted by point id at the end. The JSON lines are the record that
// resuming and merging read; the CSV is written from the same rows.

#include "spec.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sweep {

/// The two files of a table.
struct table_files {
    std::filesystem::path csv;
    std::filesystem::path jsonl;
};

/// The files of output prefix `out` ("runs/a", "runs/a.csv" or "runs/a.jsonl" all give
/// runs/a.csv and runs/a.jsonl).
[[nodiscard]] table_files files_for(const std::string& out);

/// The CSV text of a row (no newline): null empty, strings quoted where they must be.
[[nodiscard]] std::string csv_line(const json& row);

/// The CSV header line of `columns` (no newline).
[[nodiscard]] std::string csv_header(const std::vector<std::string>& columns);

/// The rows of a JSON-lines table by point id; a missing file has none. A torn last line (a
/// sweep killed while writing) is dropped; any other bad line throws warpkit::error naming the
/// file and line. Rows whose columns differ from `columns` (when given) throw too.
[[nodiscard]] std::map<std::string, json> read_rows(const std::filesystem::path& jsonl,
                                                    const std::vector<std::string>* columns);

/// Writes both files, rows in id order, through temporary files renamed into place.
void write_table(const table_files& f, const std::vector<std::string>& columns,
                 const std::map<std::string, json>& rows);

/// Appends rows to both files, each flushed as it is written.
class table_appender {
public:
    explicit table_appender(const table_files& f);
    /// Appends one row.
    void append(const json& row);

private:
    struct closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, closer> csv_;
    std::unique_ptr<std::FILE, closer> jsonl_;
    table_files files_;
};

} // namespace sweep
