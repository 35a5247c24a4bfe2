#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

using namespace warpkit;
using namespace warpkit::ptx;

namespace {
std::string source_path(const std::string& rel) {
    // ctest sets WARPKIT_SOURCE_DIR; run by hand from the source tree, "." works too.
    const char* root = std::getenv("WARPKIT_SOURCE_DIR");
    return std::string(root != nullptr ? root : ".") + "/" + rel;
}
} // namespace

TEST_CASE("ptx parser: vector_add by hand") {
    const module m = read_ptx(source_path("examples/cuda/vector_add.ptx"));
    CHECK(m.version_major == 9);
    CHECK(m.version_minor == 0);
    CHECK(m.target == "sm_75");
    CHECK(m.address_size == 64);
    REQUIRE(m.functions.size() == 1);
    const function& f = m.functions[0];
    CHECK(f.name == "vector_add");
    CHECK(f.entry);
    REQUIRE(f.params.size() == 4);
    CHECK(f.params[0].offset == 0);
    CHECK(f.params[1].offset == 8);
    CHECK(f.params[2].offset == 16);
    CHECK(f.params[3].offset == 24);
    CHECK(f.params[3].t == type::u32);
    CHECK(f.param_bytes() == 28);
    CHECK(f.registers.size() == 2 + 4 + 6 + 11);
    CHECK(f.code.size() == 22);
    CHECK(m.find("vector_add") == &f);
}
