#pragma once
// Shared by every example tool's main(): no exception leaves the program. A tool's own main
// body runs inside guarded_main, which turns anything that escapes it into one line on stderr,
// prefixed with the tool's name, and exit code 2 (the code of bad input: a file that cannot be
// read, a malformed file, a parameter out of range). Input files are read with
// warpkit::read_file (<warpkit/core/file.hpp>), whose error names the path and the reason.

#include <cstdio>
#include <exception>
#include <new>

namespace example {

/// `body()`'s exit code; when it throws, a message "<tool>: <what>" ("<tool>: out of memory"
/// for std::bad_alloc) on stderr and 2.
template <class F>
int guarded_main(const char* tool, F&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "%s: out of memory\n", tool);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", tool, e.what());
    } catch (...) {
        std::fprintf(stderr, "%s: unknown error\n", tool);
    }
    return 2;
}

} // namespace example
