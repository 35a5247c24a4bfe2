// Launch files and host devices: missing and empty files, negative and zero sizes, NaN,
// unknown names and zero SMs get a named error (config_error naming the key path, the value
// and what is allowed; parse_error with file:line:column for malformed JSON).
#include <warpkit/core/error.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <typeinfo>
#include <unistd.h>

namespace {

using bad_input::temp_dir;
using bad_input::thrown;

std::string launch_error(const std::string& text) {
    return thrown<warpkit::config_error>(
        [&] { (void)warpkit::host::parse_launch_text(text, "l.json"); });
}

} // namespace

using namespace warpkit;
using nlohmann::json;

TEST_CASE("launch files: missing and empty") {
    const temp_dir dir("host-bad-input");
    const auto absent = dir.path / "absent.json";
    CHECK(thrown<error>([&] { (void)host::read_launch(absent); }) ==
          "cannot read '" + absent.string() + "': No such file or directory");
    const auto empty = dir.write("empty.json", "");
    CHECK(thrown<parse_error>([&] { (void)host::read_launch(empty); }) ==
          empty.string() + ":1:1: syntax error while parsing value - unexpected end of input; "
                           "expected '[', '{', or a literal");
    const auto blank = dir.write("blank.json", "\n  \n");
    CHECK(thrown<parse_error>([&] { (void)host::read_launch(blank); }) ==
          blank.string() + ":3:1: syntax error while parsing value - unexpected end of input; "
                           "expected '[', '{', or a literal");
    // a `file` init naming a missing file: the I/O error names the file and the key path
    const auto l = dir.write("l.json", R"({"grid": [1], "block": [32], "buffers": [{"name": "a",
        "type": "u8", "count": 4, "init": {"kind": "file", "path": "in.bin"}}]})");
    CHECK(thrown<error>([&] { (void)host::read_launch(l); }) ==
          "cannot read '" + (dir.path / "in.bin").string() +
              "': No such file or directory (launch.buffers[0].init.path)");
}

TEST_CASE("launch files: negative and zero sizes name the key path and the range") {
    CHECK(launch_error(R"({"grid": [-1], "block": [32]})") ==
          "invalid parameter 'launch.grid[0]' = -1 (allowed: an integer in [1, 2147483647])");
    CHECK(launch_error(R"({"grid": [1], "block": [32, 0]})") ==
          "invalid parameter 'launch.block[1]' = 0 (allowed: an integer in [1, 2147483647])");
    CHECK(launch_error(R"({"grid": [1], "block": [32], "shared_bytes": -1})") ==
          "invalid parameter 'launch.shared_bytes' = -1 (allowed: an integer in [0, 4294967295])");
    CHECK(launch_error(R"({"grid": [1], "block": [32],
                           "buffers": [{"name": "a", "type": "f32", "count": -4}]})") ==
          "invalid parameter 'launch.buffers[0].count' = -4 (allowed: an integer in [1, "
          "1073741824])");
    CHECK(launch_error(R"({"grid": [1], "block": [32],
                           "buffers": [{"name": "a", "type": "u32", "count": 0}]})") ==
          "invalid parameter 'launch.buffers[0].count' = 0 (allowed: an integer in [1, "
          "1073741824])");
    CHECK(launch_error(R"({"grid": [1], "block": [32],
                           "params": [{"type": "u32", "value": -1}]})") ==
          "invalid parameter 'launch.params[0].value' = -1 (allowed: an integer: u32 values in "
          "[0, 4294967295])");
}

TEST_CASE("launch files: NaN is a JSON syntax error in text and a named value in code") {
    CHECK(thrown<parse_error>([&] {
              (void)host::parse_launch_text("{\"grid\": [1], \"block\": [32],\n"
                                            " \"params\": [{\"type\": \"f64\", \"value\": NaN}]}",
                                            "l.json");
          }) == "l.json:2:38: syntax error while parsing value - invalid literal; last read: "
                "'\"value\": N'");
    // A json value built in code can hold NaN; the message used to show it as null.
    json j = {{"grid", {1}},
              {"block", {32}},
              {"buffers",
               {{{"name", "a"},
                 {"type", "f32"},
                 {"count", 4},
                 {"init", {{"kind", "iota"}, {"scale", std::nan("")}}}}}}};
    CHECK(thrown<config_error>([&] { (void)host::parse_launch(j, "."); }) ==
          "invalid parameter 'launch.buffers[0].init.scale' = nan (allowed: a number within the "
          "range of f32)");
    j["buffers"][0]["init"]["scale"] = -std::numeric_limits<double>::infinity();
    CHECK(thrown<config_error>([&] { (void)host::parse_launch(j, "."); }) ==
          "invalid parameter 'launch.buffers[0].init.scale' = -inf (allowed: a number within the "
          "range of f32)");
    const json p = {
        {"grid", {1}}, {"block", {32}}, {"params", {{{"type", "f64"}, {"value", std::nan("")}}}}};
    CHECK(thrown<config_error>([&] { (void)host::parse_launch(p, "."); }) ==
          "invalid parameter 'launch.params[0].value' = nan (allowed: a number within the range "
          "of f64)");
}

TEST_CASE("launch files: unknown names list the known ones") {
    CHECK(launch_error(R"({"grid": [1], "block": [32],
                           "buffers": [{"name": "a", "type": "float", "count": 4}]})") ==
          "invalid parameter 'launch.buffers[0].type' = \"float\" (allowed: one of u8, i32, u32, "
          "i64, u64, f32, f64)");
    CHECK(launch_error(R"({"grid": [1], "block": [32],
                           "buffers": [{"name": "a", "type": "u8", "count": 4,
                                        "init": {"kind": "ones"}}]})") ==
          "invalid parameter 'launch.buffers[0].init.kind' = \"ones\" (allowed: one of zeros, "
          "iota, mod, random, file)");
}

TEST_CASE("host devices: unknown presets, zero SMs, bad overrides") {
    CHECK(thrown<config_error>([] { host::device d("gtx9000"); }) ==
          "invalid parameter 'preset' = gtx9000 (allowed: fermi_gtx480, tesla_seed004, "
          "amoeba_48, amoeba_48_fused, volta_qv100, turing_rtx2060, ampere_rtx3070)");
    CHECK(thrown<config_error>([] { host::device d("fermi_gtx480", {"sms=0"}); }) ==
          "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    CHECK(thrown<config_error>([] { host::device d("tesla_seed004", {"sms=-2"}); }) ==
          "invalid parameter 'sms' = '-2' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([] { host::device d("fermi_gtx480", {"sm.warp_slots=0"}); }) ==
          "invalid parameter 'sm.warp_slots' = 0 (allowed: [1, 64])");
    // the warp size is the preset's, not an override
    CHECK(thrown<config_error>([] { host::device d("fermi_gtx480", {"warp_size=128"}); })
              .find("invalid parameter 'warp_size' = '128' (allowed: no such field; known: name, "
                    "sms,") == 0);
}
