#pragma once
/// \file
/// Reading a whole input file with an error that names the path and the reason: one helper for
/// every reader and tool, so a missing file, a directory or an unreadable file is a
/// warpkit::error, never a stream exception or an empty input.

#include <warpkit/core/error.hpp>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace warpkit {

/// Largest file read_file accepts by default (bytes).
inline constexpr std::uint64_t max_input_file_bytes = std::uint64_t{1} << 32;

/// The contents of file `p`. Throws warpkit::error "cannot read '<p>': <reason>" when it does
/// not exist, is a directory or another non-regular file, cannot be opened or read, or holds
/// more than `max_bytes` bytes.
[[nodiscard]] inline std::string read_file(const std::filesystem::path& p,
                                           std::uint64_t max_bytes = max_input_file_bytes) {
    const auto fail = [&](const std::string& why) {
        throw error("cannot read '" + p.string() + "': " + why);
    };
    std::error_code ec;
    const auto st = std::filesystem::status(p, ec);
    if (ec) fail(ec.message());
    if (std::filesystem::is_directory(st)) fail("it is a directory");
    if (!std::filesystem::is_regular_file(st) && !std::filesystem::is_character_file(st) &&
        !std::filesystem::is_fifo(st))
        fail("not a regular file");
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(p.c_str(), "rb"),
                                                            &std::fclose);
    if (!f) fail(std::generic_category().message(errno != 0 ? errno : EIO));
    std::string out;
    std::array<char, 65536> chunk{};
    for (;;) {
        const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), f.get());
        if (out.size() + n > max_bytes) fail("larger than " + std::to_string(max_bytes) + " bytes");
        out.append(chunk.data(), n);
        if (n < chunk.size()) break;
    }
    if (std::ferror(f.get()) != 0) fail(std::generic_category().message(errno != 0 ? errno : EIO));
    return out;
}

} // namespace warpkit
