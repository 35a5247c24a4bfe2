#pragma once
// The bundled kernels a tool runs by default: the assembly files (*.s) of a directory, and
// where the bundled folders are, found from the executable rather than the working directory.

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace example {

/// The bundled folder `relative` of the source tree (for example "examples/kernels"), found
/// from this executable's own location so that a tool's defaults do not depend on the working
/// directory: <bin>/../../`relative` in a build tree (build/bin), <bin>/../share/warpkit/
/// `relative` in an installation. Throws warpkit::error naming both places when neither
/// exists.
[[nodiscard]] inline std::string bundled_folder(std::string_view relative) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw warpkit::error("cannot find the bundled '" + std::string(relative) +
                             "': this executable's path is unknown (" + ec.message() +
                             "); name the folder");
    const auto bin = self.parent_path();
    const auto in_build = bin.parent_path().parent_path() / relative;
    const auto installed = bin.parent_path() / "share" / "warpkit" / relative;
    for (const auto& p : {in_build, installed})
        if (std::filesystem::is_directory(p, ec)) return p.lexically_normal().string();
    throw warpkit::error("cannot find the bundled '" + std::string(relative) + "' (looked in '" +
                         in_build.lexically_normal().string() + "' and '" +
                         installed.lexically_normal().string() + "'); name the folder");
}

/// `dir`, or the bundled folder `relative` (bundled_folder) when `dir` is empty: what a
/// tool's folder option means when it is not given.
[[nodiscard]] inline std::string folder_or_bundled(const std::string& dir,
                                                   std::string_view relative) {
    return dir.empty() ? bundled_folder(relative) : dir;
}

/// The paths of the `*.s` files in `given` (the bundled examples/kernels when empty), sorted;
/// throws warpkit::error when the directory cannot be read or holds none.
[[nodiscard]] inline std::vector<std::string> assembly_files(const std::string& given) {
    const std::string dir = folder_or_bundled(given, "examples/kernels");
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
