#pragma once
// The source tree and the bundled warpkit-ISA kernels (examples/kernels/*.s) for the gpu tests.

#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/program.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace test {

/// The source tree: ctest sets WARPKIT_SOURCE_DIR; run by hand from the tree, "." works too.
inline std::string source_dir() {
    const char* root = std::getenv("WARPKIT_SOURCE_DIR");
    return root != nullptr ? root : ".";
}

/// examples/kernels/`name`, assembled.
inline warpkit::isa::program bundled_kernel(const std::string& name) {
    const std::string path = source_dir() + "/examples/kernels/" + name;
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path);
    std::stringstream ss;
    ss << in.rdbuf();
    return warpkit::isa::assemble(ss.str(), path);
}

} // namespace test
