// PTX files that are missing or empty, entries that do not exist and launches with impossible
// shapes (zero-sized blocks, warps wider than 64 lanes) get named errors.
#include <warpkit/core/error.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>
#include <unistd.h>

namespace {

using bad_input::temp_dir;
using bad_input::thrown;

const char* const two_entries = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry first()
{
    ret;
}
.visible .entry second(.param .u32 n)
{
    ret;
}
)";

} // namespace

using namespace warpkit;

TEST_CASE("ptx files: missing and empty") {
    const temp_dir dir("ptx-bad-input");
    const auto missing = dir.path / "absent.ptx";
    CHECK(thrown<error>([&] { (void)ptx::read_ptx(missing); }) ==
          "cannot read '" + missing.string() + "': No such file or directory");
    CHECK(thrown<error>([&] { (void)ptx::read_ptx(dir.path); }) ==
          "cannot read '" + dir.path.string() + "': it is a directory");
    const auto empty = dir.write("empty.ptx", "");
    CHECK(thrown<parse_error>([&] { (void)ptx::read_ptx(empty); }) ==
          empty.string() + ":1:1: expected '.version' at the start of the PTX, found end of file");
    const auto blank = dir.write("blank.ptx", "\n  // nothing\n");
    CHECK(thrown<parse_error>([&] { (void)ptx::read_ptx(blank); }) ==
          blank.string() + ":3:1: expected '.version' at the start of the PTX, found end of file");
}

TEST_CASE("ptx: a branch out of the function is an undefined label at its position") {
    const std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n"
                             ".visible .entry k()\n{\n    bra $L_past_end;\n    ret;\n}\n";
    CHECK(thrown<parse_error>([&] { (void)ptx::parse_ptx(text, "k.ptx"); }) ==
          "k.ptx:6:9: undefined label '$L_past_end'");
}

TEST_CASE("ptx: .attribute(.managed) and .unified are ordinary .global variables; others fail") {
    const std::string head = ".version 9.0\n.target sm_75\n.address_size 64\n";
    const auto m = ptx::parse_ptx(head + ".global .attribute(.managed) .align 4 .u32 total = 5;\n"
                                         ".global .attribute(.unified(7, 9)) .b8 arr[16];\n",
                                  "m.ptx");
    REQUIRE(m.variables.size() == 2);
    CHECK(m.variables[0].name == "total");
    CHECK(m.variables[0].sp == ptx::space::global);
    CHECK(m.variables[0].init == std::vector<std::uint8_t>{5, 0, 0, 0});
    CHECK(m.variables[1].bytes == 16);
    CHECK(thrown<parse_error>([&] {
              (void)ptx::parse_ptx(head + ".global .attribute(.shared) .u32 x;\n", "a.ptx");
          }) == "a.ptx:4:20: expected .managed or .unified in .attribute, found '.shared'");
    CHECK(thrown<parse_error>([&] {
              (void)ptx::parse_ptx(head + ".const .attribute(.managed) .u32 x;\n", "c.ptx");
          }) == "c.ptx:4:8: expected a type in .const declaration, found '.attribute'");
}

TEST_CASE("ptx: an unknown entry name lists the module's entries") {
    const auto m = ptx::parse_ptx(two_entries, "two.ptx");
    CHECK(thrown<config_error>([&] { ptx::kernel k(m, "third"); }) ==
          "invalid parameter 'entry' = third (allowed: one of: first, second)");
}

TEST_CASE("ptx launches: zero-sized and negative-looking shapes, warps wider than 64 lanes") {
    const auto m = ptx::parse_ptx(two_entries, "two.ptx");
    const ptx::kernel k(m, "first");
    CHECK(thrown<config_error>([&] {
              ptx::launch l(k, {1, 1, 1}, {0, 1, 1});
          }) == "invalid parameter 'block' = [0, 1, 1] (allowed: positive dimensions, at most 1024 "
                "threads)");
    // -1 converted to an unsigned dimension is 2^32 - 1: too large, not wrapped silently
    CHECK(thrown<config_error>([&] {
              ptx::launch l(k, {static_cast<std::uint32_t>(-1), 2, 1}, {32, 1, 1});
          }) == "invalid parameter 'grid' = [4294967295, 2, 1] (allowed: positive dimensions, "
                "fewer than 2^32 blocks)");
    for (const std::uint32_t w : {0U, 65U, 128U}) {
        CAPTURE(w);
        CHECK(thrown<config_error>([&] {
                  ptx::launch l(k, {1, 1, 1}, {32, 1, 1}, {}, 0, w);
              }) == "invalid parameter 'warp_size' = " + std::to_string(w) + " (allowed: 1 to 64)");
    }
    CHECK_NOTHROW(ptx::launch(k, {1, 1, 1}, {32, 1, 1}, {}, 0, 64));
    const ptx::kernel k2(m, "second");
    CHECK(thrown<config_error>([&] {
              ptx::launch l(k2, {1, 1, 1}, {32, 1, 1});
          }) ==
          "invalid parameter 'params' = 0 bytes (allowed: 4 bytes (the parameters of `second`))");
}
