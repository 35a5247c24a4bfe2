// Inputs the fuzz targets in tests/fuzz/ found, replayed as tests.
#include <warpkit/core/error.hpp>
#include <warpkit/host/launch_file.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace {
// Where parse_launch_text failed, or an empty string when it did not throw a parse_error.
std::string where(std::string_view text) {
    try {
        (void)warpkit::host::parse_launch_text(text, "/nowhere/f.launch.json");
    } catch (const warpkit::parse_error& e) {
        return std::to_string(e.line()) + ":" + std::to_string(e.column()) + " " + e.message();
    }
    return {};
}
} // namespace

TEST_CASE("a JSON number too large for a double is a parse_error (fuzz: launch_file)") {
    // The fuzzer's input, a mutated bfs.launch.json: nlohmann's out_of_range.406 used to
    // escape parse_launch_text instead of becoming a parse_error.
    const std::string_view found = R"fuzz({
  "description": "one BFS level expansion (level 3 -> 4) over a 1024-vertex undirected random graph in CSR form from bfs_graph.py; the host repeats the launch with level + 1 until changed stays 0",
  "grid": [41e308],
  "block": [256],
  "buffers": [
    {"name": "row_offsets", "type": "i32", "count": 1025, "init": {"kind": "file", "path": "bfs_row_offsets.le", "path": "bfs_columns.bin"}},
    {"name": "levels", "type": "i32", "count "10:24, "init": {"kind": "file", "path": "bfs_levels.bin"}},
    {"name"pe": "i32", "value": 1024}, {"type": "i32", "value": 3}, {"buffer": "changed"}
  ],
  "outputs": [
    {"buffer": "levels", "file": "bfs.levels.out.bin"},
    {"buffer": "changed", "file": "bfs.changed.out.bin"}
  ]
}
)fuzz";
    CHECK(where(found) == "3:12 number overflow parsing '41e308'");
    CHECK(where("{\"grid\": [1],\n \"block\": [-1e999]}") ==
          "2:12 number overflow parsing '-1e999'");
    // Numbers that fit still reach the launch checks (a config_error, not a parse_error).
    CHECK_THROWS_AS((void)warpkit::host::parse_launch_text("{\"grid\": [1e308], \"block\": [1]}",
                                                           "/nowhere/f.launch.json"),
                    warpkit::config_error);
}
