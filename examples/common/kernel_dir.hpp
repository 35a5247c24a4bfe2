#pragma once
// The bundled kernels a tool runs by default: the assembly files (*.s) of a directory.

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace example {

/// The paths of the `*.s` files in `dir`, sorted; throws warpkit::error when the directory
/// cannot be read or holds none.
[[nodiscard]] inline std::vector<std::string> assembly_files(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".s") files.push_back(e.path().string());
    if (ec) throw warpkit::error("cannot read kernel directory '" + dir + "': " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw warpkit::error("no kernels (*.s) in '" + dir + "'");
    return files;
}

} // namespace example
