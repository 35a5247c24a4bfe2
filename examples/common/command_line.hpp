#pragma once
// Shared by the example tools: parsing the command line with CLI11, the same exit codes for
// all of them, the same progress flags.

#include "progress.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <iostream>
#include <optional>
#include <string_view>

namespace example {

/// Parses `argv` into `app`. Nothing when the tool goes on; otherwise the code to exit with at
/// once: 0 after --help printed the usage, 2 for arguments CLI11 refused, after one line
/// `TOOL: what was wrong (see --help)` on stderr, TOOL being argv[0]'s file name.
[[nodiscard]] inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        const std::string_view path = argc > 0 && argv[0] != nullptr ? argv[0] : "warpkit";
        const std::string_view tool = path.substr(path.find_last_of('/') + 1);
        std::cerr << tool << ": " << e.what() << " (see --help)\n";
        return 2;
    }
    return std::nullopt;
}

/// Adds --quiet and --progress to `app` (a tool or one of its subcommands), which decide
/// whether its progress line is shown (progress_options::enabled).
inline void add_progress_flags(CLI::App& app, progress_options& o) {
    app.add_flag("--quiet", o.quiet,
                 "no progress line on stderr (shown by default when stderr is a terminal)");
    app.add_flag("--progress", o.forced,
                 "show the progress line even when stderr is not a terminal, as one line per "
                 "update (at most five a second); it goes to stderr, never to the output");
}

/// For a tool that reads its input from standard input when no file is named: 2 (after a
/// usage line naming `tool` and `what` it wanted) when standard input is a terminal, where
/// the tool would wait silently for typing; nothing when a file or pipe feeds it.
[[nodiscard]] inline std::optional<int> refuse_terminal_input(std::string_view tool,
                                                              std::string_view what) {
    if (isatty(STDIN_FILENO) == 0) return std::nullopt;
    std::cerr << tool << ": no input: give " << what
              << " or redirect standard input from one (see --help)\n";
    return 2;
}

} // namespace example
