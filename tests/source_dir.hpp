#pragma once
// Where the tests find the repository's files (example kernels, launch files, PTX data): ctest
// sets WARPKIT_SOURCE_DIR; run by hand from the source tree, "." works too. One definition for
// every test file, so that an area compiled as one unity source does not define it twice.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace test_files {

inline std::filesystem::path source_dir() {
    const char* root = std::getenv("WARPKIT_SOURCE_DIR");
    return root != nullptr ? std::filesystem::path(root) : std::filesystem::path(".");
}

/// `rel` (a path under the source tree) as a string.
inline std::string source_path(const std::string& rel) { return (source_dir() / rel).string(); }

} // namespace test_files
