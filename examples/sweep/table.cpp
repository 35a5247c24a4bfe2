#include "table.hpp"

#include "../common/output.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace sweep {

namespace {

std::string cell(const json& v) {
    if (v.is_null()) return {};
    if (!v.is_string()) return v.dump();
    const std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n\r") == std::string::npos &&
        (s.empty() || (s.front() != ' ' && s.back() != ' ')))
        return s;
    std::string q = "\"";
    for (const char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + '"';
}

void write_all(std::FILE* f, const std::string& text, const std::filesystem::path& p) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0)
        throw example::write_error(p.string(), errno);
}

std::FILE* open_or_throw(const std::filesystem::path& p, const char* mode) {
    errno = 0;
    std::FILE* f = std::fopen(p.c_str(), mode);
    if (f == nullptr) throw example::write_error(p.string(), errno);
    return f;
}

} // namespace

table_files files_for(const std::string& out) {
    std::filesystem::path p = out;
    if (p.extension() == ".csv" || p.extension() == ".jsonl") p.replace_extension();
    std::filesystem::path csv = p;
    csv += ".csv";
    std::filesystem::path jsonl = p;
    jsonl += ".jsonl";
    return {csv, jsonl};
}

std::string csv_line(const json& row) {
    std::string line;
    bool first = true;
    for (const auto& [k, v] : row.items()) {
        if (!first) line += ',';
        first = false;
        line += cell(v);
    }
    return line;
}

std::string csv_header(const std::vector<std::string>& columns) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i)
        line += (i == 0 ? "" : ",") + cell(json(columns[i]));
    return line;
}

std::map<std::string, json> read_rows(const std::filesystem::path& jsonl,
                                      const std::vector<std::string>* columns) {
    std::map<std::string, json> rows;
    std::error_code ec;
    if (!std::filesystem::exists(jsonl, ec)) return rows;
    const std::string text = warpkit::read_file(jsonl);
    std::size_t line_no = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        ++line_no;
        const std::size_t nl = text.find('\n', at);
        const bool torn = nl == std::string::npos;
        const std::string line = text.substr(at, torn ? std::string::npos : nl - at);
        at = torn ? text.size() : nl + 1;
        const auto bad = [&](const std::string& why) {
            return warpkit::error(jsonl.string() + ":" + std::to_string(line_no) + ": " + why);
        };
        if (torn) break; // the last row was being written when the sweep stopped
        if (line.empty()) continue;
        json row;
        try {
            row = json::parse(line);
        } catch (const json::exception&) {
            throw bad("not a JSON row of a sweep table");
        }
        if (!row.is_object() || !row.contains("point") || !row["point"].is_string())
            throw bad("a row without a \"point\" id");
        if (columns != nullptr) {
            std::vector<std::string> have;
            for (const auto& [k, v] : row.items())
                have.push_back(k);
            if (have != *columns) {
                std::string want;
                for (const auto& c : *columns)
                    want += (want.empty() ? "" : ",") + c;
                std::string got;
                for (const auto& c : have)
                    got += (got.empty() ? "" : ",") + c;
                throw bad("the row's columns (" + got + ") are not this sweep's (" + want +
                          "): the table belongs to another spec");
            }
        }
        const std::string id = row["point"].get<std::string>();
        if (rows.contains(id) && rows[id] != row) {
            // A point run twice (an interrupted sweep's retry) keeps its first row.
            continue;
        }
        rows.emplace(id, std::move(row));
    }
    return rows;
}

void write_table(const table_files& f, const std::vector<std::string>& columns,
                 const std::map<std::string, json>& rows) {
    std::error_code ec;
    if (f.csv.has_parent_path()) std::filesystem::create_directories(f.csv.parent_path(), ec);
    auto tmp_csv = f.csv;
    tmp_csv += ".tmp";
    auto tmp_jsonl = f.jsonl;
    tmp_jsonl += ".tmp";
    std::filesystem::remove(tmp_csv, ec);
    std::filesystem::remove(tmp_jsonl, ec);
    {
        std::FILE* c = open_or_throw(tmp_csv, "wb");
        const std::unique_ptr<std::FILE, int (*)(std::FILE*)> guard(c, &std::fclose);
        write_all(c, csv_header(columns) + '\n', tmp_csv);
    }
    {
        table_appender out({tmp_csv, tmp_jsonl});
        for (const auto& [id, row] : rows)
            out.append(row);
    }
    // The JSON lines first: they are what a resumed sweep trusts.
    std::filesystem::rename(tmp_jsonl, f.jsonl, ec);
    if (ec) throw warpkit::error("cannot write '" + f.jsonl.string() + "': " + ec.message());
    std::filesystem::rename(tmp_csv, f.csv, ec);
    if (ec) throw warpkit::error("cannot write '" + f.csv.string() + "': " + ec.message());
}

table_appender::table_appender(const table_files& f)
    : csv_(open_or_throw(f.csv, "ab")), jsonl_(open_or_throw(f.jsonl, "ab")), files_(f) {}

void table_appender::append(const json& row) {
    write_all(jsonl_.get(), row.dump() + '\n', files_.jsonl);
    write_all(csv_.get(), csv_line(row) + '\n', files_.csv);
}

} // namespace sweep
