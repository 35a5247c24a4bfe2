// The warpkit-coalesce input reader (examples/coalesce/access_reader.hpp): every defect is a
// parse_error naming the source, line and column.
#include "../../examples/coalesce/access_reader.hpp"

#include <warpkit/core/error.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <sstream>
#include <string>

namespace {

using bad_input::thrown;

std::string read_error(const std::string& text) {
    return thrown<warpkit::parse_error>([&] {
        std::istringstream in(text);
        (void)example::read_access(in, "warp.txt");
    });
}

} // namespace

TEST_CASE("coalescer input: empty input names where `size N` was expected") {
    CHECK(read_error("") == "warp.txt:1:1: end of input: expected `size N`");
    CHECK(read_error("# a comment\n\n") == "warp.txt:3:1: end of input: expected `size N`");
}

TEST_CASE("coalescer input: negative, zero and unsupported access sizes") {
    CHECK(read_error("size -4\n0x0\n") == "warp.txt:1:6: size must be 1, 2, 4, 8 or 16, got '-4'");
    CHECK(read_error("  size 0\n") == "warp.txt:1:8: size must be 1, 2, 4, 8 or 16, got '0'");
    CHECK(read_error("size 3\n") == "warp.txt:1:6: size must be 1, 2, 4, 8 or 16, got '3'");
    CHECK(read_error("size nan\n") == "warp.txt:1:6: size must be 1, 2, 4, 8 or 16, got 'nan'");
    CHECK(read_error("0x100\n") == "warp.txt:1:1: expected `size N` first, got '0x100'");
}

TEST_CASE("coalescer input: bad lane lines") {
    CHECK(read_error("size 4\n0x100\n0x10g\n") ==
          "warp.txt:3:1: lane 1: expected a hex address or '-', got '0x10g'");
    CHECK(read_error("size 4\n-0x100\n") ==
          "warp.txt:2:1: lane 0: expected a hex address or '-', got '-0x100'");
    CHECK(read_error("size 4\n0x100 0x104\n") ==
          "warp.txt:2:1: lane 0: expected a hex address or '-', got '0x100 0x104'");
    CHECK(read_error("size 8\n0x104\n") ==
          "warp.txt:2:1: lane 0: address 0x104 is not aligned to 8 bytes");
    std::string many = "size 4\n";
    for (int i = 0; i < 33; ++i)
        many += "0x0\n";
    CHECK(read_error(many) == "warp.txt:34:1: more than 32 lane lines");
}
