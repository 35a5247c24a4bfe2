#pragma once
// The bundled warpkit-ISA kernels (examples/kernels/*.s) for the gpu tests.

#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/program.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace test {

/// examples/kernels/`name`, assembled.
inline warpkit::isa::program bundled_kernel(const std::string& name) {
    const std::string path = test_files::source_path("examples/kernels/" + name);
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot open " << path);
    std::stringstream ss;
    ss << in.rdbuf();
    return warpkit::isa::assemble(ss.str(), path);
}

} // namespace test
