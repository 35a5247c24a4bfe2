#pragma once
// Shared by the example tools: parsing the command line with CLI11, the same exit codes for
// all of them.

#include <CLI/CLI.hpp>

#include <optional>

namespace example {

/// Parses `argv` into `app`. Nothing when the tool goes on; otherwise the code to exit with at
/// once after CLI11 printed what it had to: 0 for --help, 2 for arguments it refused.
[[nodiscard]] inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    return std::nullopt;
}

} // namespace example
