#include <warpkit/core/rng.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/value_type.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace warpkit::host;

namespace {

std::vector<std::byte> bytes(std::initializer_list<unsigned> v) {
    std::vector<std::byte> out;
    for (unsigned b : v)
        out.push_back(static_cast<std::byte>(b));
    return out;
}

/// A launch with one buffer of `type` x `count` initialised by `init`.
json one_buffer(std::string_view type, std::uint64_t count, const json& init) {
    return {{"grid", {1}},
            {"block", {32}},
            {"buffers", {{{"name", "x"}, {"type", type}, {"count", count}, {"init", init}}}}};
}

std::vector<std::byte> contents(std::string_view type, std::uint64_t count, const json& init) {
    return initial_contents(parse_launch(one_buffer(type, count, init), ".").buffers.at(0));
}

template <class T>
std::vector<T> values(const std::vector<std::byte>& b) {
    std::vector<T> out(b.size() / sizeof(T));
    std::memcpy(out.data(), b.data(), out.size() * sizeof(T)); // the test host is little-endian
    return out;
}

/// The key path of the config_error that parsing `j` throws ("" when it throws none).
std::string error_field(const json& j, const fs::path& base = ".") {
    try {
        (void)parse_launch(j, base);
    } catch (const warpkit::config_error& e) {
        return e.field();
    }
    return "";
}

/// A fresh directory, removed again at the end of the test.
struct scratch_dir {
    fs::path path;
    scratch_dir() {
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        path = fs::temp_directory_path() / ("warpkit-launch-test-" + std::to_string(stamp));
        fs::create_directories(path);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name, std::ios::binary) << text;
    }
};

using test_files::source_dir;

} // namespace

TEST_CASE("value types: sizes, names, little-endian stores") {
    CHECK(size_of(value_type::u8) == 1);
    CHECK(size_of(value_type::i32) == 4);
    CHECK(size_of(value_type::u32) == 4);
    CHECK(size_of(value_type::f32) == 4);
    CHECK(size_of(value_type::i64) == 8);
    CHECK(size_of(value_type::u64) == 8);
    CHECK(size_of(value_type::f64) == 8);
    for (std::size_t i = 0; i < value_type_count; ++i) {
        const auto t = static_cast<value_type>(i);
        CHECK(parse_value_type(name_of(t)) == t);
    }
    CHECK(name_of(value_type::f64) == "f64");
    CHECK_FALSE(parse_value_type("f16").has_value());
    CHECK_FALSE(parse_value_type("F32").has_value());

    std::vector<std::byte> b(8);
    store_int(b.data(), value_type::i32, static_cast<std::uint64_t>(-2));
    CHECK(b == bytes({0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}));
    CHECK(load_le(b.data(), 4) == 0xFFFFFFFEU);
    store_float(b.data(), value_type::f64, -2.0);
    CHECK(b == bytes({0, 0, 0, 0, 0, 0, 0, 0xC0}));
}

TEST_CASE("zeros, and a buffer without init, are all zero bytes") {
    CHECK(contents("i64", 3, {{"kind", "zeros"}}) == std::vector<std::byte>(24));
    const json j = {{"grid", {1}},
                    {"block", {1}},
                    {"buffers", {{{"name", "x"}, {"type", "u8"}, {"count", 5}}}}};
    const auto l = parse_launch(j, ".");
    CHECK(l.buffers[0].init.kind == init_kind::zeros);
    CHECK(initial_contents(l.buffers[0]) == std::vector<std::byte>(5));
}

TEST_CASE("iota gives i*scale + offset") {
    // -3, -1, 1, 3 as little-endian two's complement
    CHECK(contents("i32", 4, {{"kind", "iota"}, {"scale", 2}, {"offset", -3}}) ==
          bytes({0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 3, 0, 0, 0}));
    // 1.0f, 1.5f, 2.0f = 0x3F800000, 0x3FC00000, 0x40000000
    CHECK(contents("f32", 3, {{"kind", "iota"}, {"scale", 0.5}, {"offset", 1}}) ==
          bytes({0, 0, 0x80, 0x3F, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0x40}));
    // defaults scale 1, offset 0
    CHECK(contents("u8", 4, {{"kind", "iota"}}) == bytes({0, 1, 2, 3}));
    // 0.25 = 0x3FD0000000000000, 0.0 and -0.25
    CHECK(contents("f64", 3, {{"kind", "iota"}, {"scale", -0.25}, {"offset", 0.25}}) ==
          bytes({0, 0, 0, 0, 0, 0, 0xD0, 0x3F, 0, 0, 0,    0,
                 0, 0, 0, 0, 0, 0, 0,    0,    0, 0, 0xD0, 0xBF}));
    // u64 beyond 2^32: 2^40 + i * 2^33
    const auto big = values<std::uint64_t>(contents(
        "u64", 3, {{"kind", "iota"}, {"scale", 8589934592LL}, {"offset", 1099511627776LL}}));
    CHECK(big == std::vector<std::uint64_t>{1099511627776ULL, 1108101562368ULL, 1116691496960ULL});
}

TEST_CASE("mod gives (i % m)*scale + offset") {
    CHECK(contents("u8", 7, {{"kind", "mod"}, {"m", 3}, {"scale", 10}, {"offset", 1}}) ==
          bytes({1, 11, 21, 1, 11, 21, 1}));
    CHECK(values<std::int32_t>(contents("i32", 5, {{"kind", "mod"}, {"m", 2}, {"scale", -7}})) ==
          std::vector<std::int32_t>{0, -7, 0, -7, 0});
    CHECK(values<float>(contents("f32", 4, {{"kind", "mod"}, {"m", 2}, {"offset", 0.5}})) ==
          std::vector<float>{0.5F, 1.5F, 0.5F, 1.5F});
    // a modulus larger than the buffer is plain iota
    CHECK(contents("u8", 3, {{"kind", "mod"}, {"m", 1000}}) == bytes({0, 1, 2}));
}

TEST_CASE("random: element i is draw i of warpkit::rng(seed), within [lo, hi]") {
    const json init = {{"kind", "random"}, {"seed", 42}, {"lo", -2}, {"hi", 2}};
    const auto a = contents("i32", 1000, init);
    CHECK(a == contents("i32", 1000, init));
    json other = init;
    other["seed"] = 43;
    CHECK(a != contents("i32", 1000, other));

    const auto v = values<std::int32_t>(a);
    warpkit::rng r(42);
    bool same = true;
    for (const auto x : v)
        same = same && x == -2 + static_cast<std::int32_t>(r.between(0, 4));
    CHECK(same);
    const std::set<std::int32_t> seen(v.begin(), v.end());
    CHECK(seen == std::set<std::int32_t>{-2, -1, 0, 1, 2}); // both ends included

    const auto u = contents("u8", 4096, {{"kind", "random"}, {"seed", 1}, {"lo", 0}, {"hi", 255}});
    const std::set<std::byte> bytes_seen(u.begin(), u.end());
    CHECK(bytes_seen.size() == 256);

    const auto f = values<float>(
        contents("f32", 4096, {{"kind", "random"}, {"seed", 9}, {"lo", -1}, {"hi", 1}}));
    CHECK(std::all_of(f.begin(), f.end(), [](float x) { return x >= -1.0F && x < 1.0F; }));
    CHECK(*std::min_element(f.begin(), f.end()) < -0.99F);
    CHECK(*std::max_element(f.begin(), f.end()) > 0.99F);

    const auto d = values<double>(
        contents("f64", 4096, {{"kind", "random"}, {"seed", 9}, {"lo", 10}, {"hi", 20}}));
    CHECK(std::all_of(d.begin(), d.end(), [](double x) { return x >= 10.0 && x < 20.0; }));

    // hi excluded even when rounding to float would reach it: the only f32 in [1, 1 + 2^-23)
    // is 1.
    const double next = static_cast<double>(std::nextafter(1.0F, 2.0F));
    const auto narrow = values<float>(
        contents("f32", 256, {{"kind", "random"}, {"seed", 3}, {"lo", 1}, {"hi", next}}));
    CHECK(std::all_of(narrow.begin(), narrow.end(), [](float x) { return x == 1.0F; }));
}

TEST_CASE("file init reads raw little-endian bytes relative to the launch file's folder") {
    scratch_dir dir;
    dir.write("in.bin", std::string("\x01\x00\x00\x00\xff\xff\xff\xff", 8));
    const json j = one_buffer("i32", 2, {{"kind", "file"}, {"path", "in.bin"}});
    const auto l = parse_launch(j, dir.path);
    CHECK(l.buffers[0].init.path == dir.path / "in.bin");
    CHECK(values<std::int32_t>(initial_contents(l.buffers[0])) == std::vector<std::int32_t>{1, -1});

    // a size that does not match count * size_of(type)
    CHECK(error_field(one_buffer("i32", 3, {{"kind", "file"}, {"path", "in.bin"}}), dir.path) ==
          "launch.buffers[0].init.path");
    CHECK(error_field(one_buffer("u8", 7, {{"kind", "file"}, {"path", "in.bin"}}), dir.path) ==
          "launch.buffers[0].init.path");
    // a file that is not there is an I/O error naming it, not a config error
    const json missing = one_buffer("u8", 1, {{"kind", "file"}, {"path", "nope.bin"}});
    try {
        (void)parse_launch(missing, dir.path);
        FAIL("no error");
    } catch (const warpkit::config_error&) {
        FAIL("a config_error");
    } catch (const warpkit::error& e) {
        CHECK(std::string(e.what()).find("cannot read '") != std::string::npos);
        CHECK(std::string(e.what()).find("nope.bin") != std::string::npos);
    }
    // a file that changed size after parsing
    dir.write("in.bin", "abc");
    CHECK_THROWS_AS((void)initial_contents(l.buffers[0]), warpkit::error);
}

TEST_CASE("grid and block take 1 to 3 entries; missing ones are 1") {
    json j = {{"grid", {4}}, {"block", {16, 8}}, {"shared_bytes", 512}};
    auto l = parse_launch(j, ".");
    CHECK(l.grid == warpkit::isa::dim3{4, 1, 1});
    CHECK(l.block == warpkit::isa::dim3{16, 8, 1});
    CHECK(l.shared_bytes == 512);
    CHECK(l.buffers.empty());
    CHECK(l.params.empty());
    CHECK(l.outputs.empty());
    j["grid"] = {2, 3, 4};
    CHECK(parse_launch(j, ".").grid == warpkit::isa::dim3{2, 3, 4});
}

TEST_CASE("scalar parameters are kept as little-endian bytes; buffer parameters name buffers") {
    const json j = {{"grid", {1}},
                    {"block", {1}},
                    {"buffers", {{{"name", "a"}, {"type", "f32"}, {"count", 4}}}},
                    {"params",
                     {{{"buffer", "a"}},
                      {{"type", "i32"}, {"value", -2}},
                      {{"type", "u64"}, {"value", std::numeric_limits<std::uint64_t>::max()}},
                      {{"type", "f32"}, {"value", 1.5}},
                      {{"type", "f64"}, {"value", -2}},
                      {{"type", "u8"}, {"value", 200}},
                      {{"type", "i64"}, {"value", std::numeric_limits<std::int64_t>::min()}},
                      {{"type", "u32"}, {"value", 4294967295U}}}},
                    {"outputs", {{{"buffer", "a"}, {"file", "out/a.bin"}}}}};
    const auto l = parse_launch(j, "/base");
    REQUIRE(l.params.size() == 8);
    CHECK(l.params[0].is_buffer());
    CHECK(l.params[0].buffer == "a");
    CHECK(l.params[0].size() == 8);
    CHECK(l.params[1].type == value_type::i32);
    CHECK(l.params[1].value == bytes({0xFE, 0xFF, 0xFF, 0xFF}));
    CHECK(l.params[2].value == bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
    CHECK(l.params[3].value == bytes({0, 0, 0xC0, 0x3F}));
    CHECK(l.params[4].value == bytes({0, 0, 0, 0, 0, 0, 0, 0xC0}));
    CHECK(l.params[5].value == bytes({0xC8}));
    CHECK(l.params[5].size() == 1);
    CHECK(l.params[6].value == bytes({0, 0, 0, 0, 0, 0, 0, 0x80}));
    CHECK(l.params[7].value == bytes({0xFF, 0xFF, 0xFF, 0xFF}));
    REQUIRE(l.outputs.size() == 1);
    CHECK(l.outputs[0].buffer == "a");
    CHECK(l.outputs[0].path == fs::path("/base") / "out/a.bin");
    const json abs = {{"grid", {1}},
                      {"block", {1}},
                      {"buffers", {{{"name", "a"}, {"type", "f32"}, {"count", 4}}}},
                      {"outputs", {{{"buffer", "a"}, {"file", "/tmp/a.bin"}}}}};
    CHECK(parse_launch(abs, "/base").outputs[0].path == fs::path("/tmp/a.bin"));
}

TEST_CASE("each mistake is reported at its key path") {
    const json ok = {
        {"grid", {2}},
        {"block", {64}},
        {"buffers",
         {{{"name", "a"}, {"type", "u8"}, {"count", 16}},
          {{"name", "b"}, {"type", "f32"}, {"count", 4}, {"init", {{"kind", "zeros"}}}}}},
        {"params", {{{"buffer", "a"}}, {{"type", "i32"}, {"value", 16}}}},
        {"outputs", {{{"buffer", "b"}, {"file", "b.bin"}}}}};
    REQUIRE(error_field(ok) == "");

    struct bad_case {
        const char* pointer; ///< JSON pointer of the value to replace ("" = add/replace at key)
        json value;
        const char* field;
    };
    const std::vector<bad_case> cases = {
        {"/gird", {4}, "launch.gird"},
        {"/grid", json::array(), "launch.grid"},
        {"/grid", {1, 2, 3, 4}, "launch.grid"},
        {"/grid", 4, "launch.grid"},
        {"/grid", {0}, "launch.grid[0]"},
        {"/grid", {1.5}, "launch.grid[0]"},
        {"/block", {32, -1}, "launch.block[1]"},
        {"/block", {32, 1, 4294967296LL}, "launch.block[2]"},
        {"/shared_bytes", -1, "launch.shared_bytes"},
        {"/description", 3, "launch.description"},
        {"/buffers", {{"name", "a"}}, "launch.buffers"},
        {"/buffers/0", "a", "launch.buffers[0]"},
        {"/buffers/0/size", 4, "launch.buffers[0].size"},
        {"/buffers/0/type", "f16", "launch.buffers[0].type"},
        {"/buffers/0/type", 32, "launch.buffers[0].type"},
        {"/buffers/0/count", 0, "launch.buffers[0].count"},
        {"/buffers/0/count", -5, "launch.buffers[0].count"},
        {"/buffers/0/count", "10", "launch.buffers[0].count"},
        {"/buffers/0/count", 5000000000LL, "launch.buffers[0].count"}, // over 4 GiB of u8
        {"/buffers/0/name", "", "launch.buffers[0].name"},
        {"/buffers/1/name", "a", "launch.buffers[1].name"},
        {"/buffers/1/init", "zeros", "launch.buffers[1].init"},
        {"/buffers/1/init/kind", "ramp", "launch.buffers[1].init.kind"},
        {"/buffers/1/init/scale", 2, "launch.buffers[1].init.scale"}, // not a zeros key
        {"/buffers/1/init", {{"kind", "iota"}, {"m", 3}}, "launch.buffers[1].init.m"},
        {"/buffers/1/init", {{"kind", "mod"}}, "launch.buffers[1].init.m"},
        {"/buffers/1/init", {{"kind", "mod"}, {"m", 0}}, "launch.buffers[1].init.m"},
        {"/buffers/1/init", {{"scale", 1}}, "launch.buffers[1].init.kind"},
        {"/buffers/1/init", {{"kind", "iota"}, {"scale", "1"}}, "launch.buffers[1].init.scale"},
        {"/buffers/1/init", {{"kind", "iota"}, {"scale", 1e39}}, "launch.buffers[1].init.scale"},
        {"/buffers/0/init", {{"kind", "iota"}, {"scale", 0.5}}, "launch.buffers[0].init.scale"},
        {"/buffers/0/init", {{"kind", "iota"}, {"offset", 250}}, "launch.buffers[0].init"},
        {"/buffers/0/init", {{"kind", "mod"}, {"m", 4}, {"offset", -1}}, "launch.buffers[0].init"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"lo", 0}, {"hi", 9}},
         "launch.buffers[0].init.seed"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"seed", -1}, {"lo", 0}, {"hi", 9}},
         "launch.buffers[0].init.seed"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"seed", 1}, {"hi", 9}},
         "launch.buffers[0].init.lo"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"seed", 1}, {"lo", 0}, {"hi", 256}},
         "launch.buffers[0].init.hi"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"seed", 1}, {"lo", -1}, {"hi", 3}},
         "launch.buffers[0].init.lo"},
        {"/buffers/0/init",
         {{"kind", "random"}, {"seed", 1}, {"lo", 5}, {"hi", 4}},
         "launch.buffers[0].init.hi"},
        {"/buffers/1/init",
         {{"kind", "random"}, {"seed", 1}, {"lo", 1}, {"hi", 1}},
         "launch.buffers[1].init.hi"},
        {"/buffers/1/init",
         {{"kind", "random"}, {"seed", 1}, {"lo", 0}, {"hi", 1}, {"m", 2}},
         "launch.buffers[1].init.m"},
        {"/buffers/1/init", {{"kind", "file"}}, "launch.buffers[1].init.path"},
        {"/buffers/1/init", {{"kind", "file"}, {"path", ""}}, "launch.buffers[1].init.path"},
        {"/params", {{"buffer", "a"}}, "launch.params"},
        {"/params/0/buffer", "c", "launch.params[0].buffer"},
        {"/params/0", json::object(), "launch.params[0]"},
        {"/params/0", {{"buffer", "a"}, {"type", "u64"}}, "launch.params[0].type"},
        {"/params/1/type", "int", "launch.params[1].type"},
        {"/params/1", {{"value", 3}}, "launch.params[1].type"},
        {"/params/1", {{"type", "i32"}}, "launch.params[1].value"},
        {"/params/1/value", 2147483648LL, "launch.params[1].value"},
        {"/params/1/value", 1.5, "launch.params[1].value"},
        {"/params/1/value", "16", "launch.params[1].value"},
        {"/params/1", {{"type", "f32"}, {"value", 1e39}}, "launch.params[1].value"},
        {"/params/1", {{"type", "u8"}, {"value", -1}}, "launch.params[1].value"},
        {"/params/1/size", 4, "launch.params[1].size"},
        {"/outputs/0/buffer", "z", "launch.outputs[0].buffer"},
        {"/outputs/0", {{"buffer", "b"}}, "launch.outputs[0].file"},
        {"/outputs/0", {{"file", "b.bin"}}, "launch.outputs[0].buffer"},
        {"/outputs/0/mode", "w", "launch.outputs[0].mode"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.pointer);
        json j = ok;
        j[json::json_pointer(c.pointer)] = c.value;
        CHECK(error_field(j) == c.field);
    }
    json no_grid = ok;
    no_grid.erase("grid");
    CHECK(error_field(no_grid) == "launch.grid");
    CHECK(error_field(json::array()) == "launch");

    // the message carries the value and what is allowed
    json kind = ok;
    kind["buffers"][1]["init"]["kind"] = "ramp";
    try {
        (void)parse_launch(kind, ".");
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.value() == "\"ramp\"");
        CHECK(e.allowed() == "one of zeros, iota, mod, random, file");
    }
    json overflow = ok;
    overflow["buffers"][0]["init"] = {{"kind", "iota"}, {"scale", 20}};
    try {
        (void)parse_launch(overflow, ".");
        FAIL("no error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.value() == "element 15 = 300"); // 15 * 20
        CHECK(e.allowed() == "u8 values in [0, 255]");
    }
}

TEST_CASE("read_launch reports JSON syntax errors with line and column, I/O errors by name") {
    scratch_dir dir;
    dir.write("bad.json", "{\n  \"grid\": [1,\n  ]\n}\n");
    try {
        (void)read_launch(dir.path / "bad.json");
        FAIL("no error");
    } catch (const warpkit::parse_error& e) {
        CHECK(e.file() == (dir.path / "bad.json").string());
        CHECK(e.line() == 3);
        CHECK(e.column() == 3);
        CHECK(e.message().find("unexpected ']'") != std::string::npos);
    }
    dir.write("short.json", "{\"grid\": [1]");
    try {
        (void)read_launch(dir.path / "short.json");
        FAIL("no error");
    } catch (const warpkit::parse_error& e) {
        CHECK(e.line() == 1);
        CHECK(e.column() == 13); // just past the last character
    }
    try {
        (void)read_launch(dir.path / "absent.json");
        FAIL("no error");
    } catch (const warpkit::parse_error&) {
        FAIL("a parse_error");
    } catch (const warpkit::error& e) {
        CHECK(std::string(e.what()).rfind("cannot read '", 0) == 0);
    }
    dir.write("good.json", R"({"grid": [1], "block": [1],
        "buffers": [{"name": "x", "type": "u8", "count": 2}],
        "outputs": [{"buffer": "x", "file": "x.bin"}]})");
    const auto l = read_launch(dir.path / "good.json");
    CHECK(l.outputs.at(0).path == dir.path / "x.bin");
}

namespace {

/// Types of the `.param` entries of kernel `entry` in a PTX text (".u64", ".u32", ...).
std::vector<std::string> ptx_param_types(const std::string& ptx, const std::string& entry) {
    std::vector<std::string> types;
    const auto at = ptx.find(".entry " + entry + "(");
    if (at == std::string::npos) return types;
    const auto end = ptx.find(')', at);
    for (auto p = ptx.find(".param ", at); p < end; p = ptx.find(".param ", p + 1)) {
        const auto t = p + 7;
        types.push_back(ptx.substr(t, ptx.find(' ', t) - t));
    }
    return types;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("every example kernel has a launch file that parses and matches its PTX parameters") {
    const fs::path dir = source_dir() / "examples" / "cuda";
    REQUIRE(fs::is_directory(dir));
    int kernels = 0;
    for (const auto& f : fs::directory_iterator(dir)) {
        if (f.path().extension() != ".cu") continue;
        ++kernels;
        const std::string name = f.path().stem().string();
        CAPTURE(name);
        const fs::path launch = dir / (name + ".launch.json");
        REQUIRE(fs::exists(launch));
        const auto l = read_launch(launch);
        CHECK(l.grid.count() >= 1);
        CHECK(l.block.count() <= 1024);
        CHECK_FALSE(l.outputs.empty());
        for (const auto& b : l.buffers)
            CHECK(initial_contents(b).size() == b.bytes());

        // The parameters line up with the kernel's: a pointer or 8-byte scalar for each
        // .u64, a 4-byte scalar for each .u32 / .f32.
        const auto types = ptx_param_types(read_text(dir / (name + ".ptx")), name);
        REQUIRE(types.size() == l.params.size());
        for (std::size_t i = 0; i < types.size(); ++i) {
            CAPTURE(i);
            const std::size_t want = types[i] == ".u64" || types[i] == ".f64" ? 8 : 4;
            CHECK(l.params[i].size() == want);
        }
    }
    CHECK(kernels == 9);
}

TEST_CASE("mutated launch files are accepted or rejected with a warpkit error, never worse") {
    // Byte flips, insertions and deletions in every example launch file; each result must parse
    // or throw a warpkit::error (parse_error, config_error, or I/O for a renamed data file).
    const fs::path dir = source_dir() / "examples" / "cuda";
    REQUIRE(fs::is_directory(dir));
    const std::string alphabet = "{}[]\":,-.0123456789eE \nabcdefghijklmnopqrstuvwxyz_";
    warpkit::rng r(2024);
    int parsed = 0;
    int rejected = 0;
    for (const auto& f : fs::directory_iterator(dir)) {
        const std::string file = f.path().filename().string();
        if (file.size() < 12 || file.substr(file.size() - 12) != ".launch.json") continue;
        const std::string text = read_text(f.path());
        for (int round = 0; round < 300; ++round) {
            std::string t = text;
            const auto edits = 1 + r.below(3);
            for (std::uint64_t e = 0; e < edits && !t.empty(); ++e) {
                const auto at = static_cast<std::size_t>(r.below(t.size()));
                const char c = alphabet[static_cast<std::size_t>(r.below(alphabet.size()))];
                switch (r.below(3)) {
                case 0:
                    t[at] = c;
                    break;
                case 1:
                    t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), c);
                    break;
                default:
                    t.erase(at, 1);
                    break;
                }
            }
            try {
                const auto l = parse_launch_text(t, f.path());
                for (const auto& b : l.buffers)
                    if (b.bytes() <= (std::uint64_t{1} << 20))
                        CHECK(initial_contents(b).size() == b.bytes());
                ++parsed;
            } catch (const warpkit::error&) {
                ++rejected;
            }
        }
    }
    // the mutations reach both outcomes
    CHECK(parsed > 100);
    CHECK(rejected > 100);
}
