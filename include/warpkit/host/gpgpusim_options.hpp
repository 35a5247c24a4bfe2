#pragma once
/// \file
/// The words of a GPGPU-Sim configuration file (`gpgpusim.config`) and what reading one onto
/// warpkit's parameters gives (host/gpgpusim_config.hpp reads it): the `-name value` options
/// with where each stands, the mapped rows of the report and the warnings.
///
/// Blanks and line ends separate the options, `#` starts a comment that runs to the end of its
/// line, and a value in double quotes is one value even across blanks, line ends and `#`
/// (GPGPU-Sim's tested configs split the DRAM timing string over two lines that way).

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::host {

/// One `-name value` option of a GPGPU-Sim config file.
struct gpgpusim_option {
    std::string name;             ///< without its leading '-'
    std::string value;            ///< as written, quotes removed (a quoted value may span lines)
    std::size_t line = 0;         ///< line of the name's '-'
    std::size_t column = 0;       ///< column of the name's '-'
    std::size_t value_line = 0;   ///< line of the value's first character
    std::size_t value_column = 0; ///< column of the value's first character

    /// Line and column of character `offset` of the value.
    [[nodiscard]] std::pair<std::size_t, std::size_t> where(std::size_t offset) const noexcept {
        std::size_t l = value_line;
        std::size_t c = value_column;
        for (std::size_t i = 0; i < offset && i < value.size(); ++i) {
            if (value[i] == '\n') {
                ++l;
                c = 1;
            } else {
                ++c;
            }
        }
        return {l, c};
    }
};

/// What the reader checks the file against: the preset's fixed choice, which no parameter
/// changes (its warp width).
struct gpgpusim_target {
    std::uint32_t warp_size = 32;
};

/// One mapped option of the report: the option, its value and the settings it became.
struct gpgpusim_row {
    std::string option;                ///< with its leading '-'
    std::string value;                 ///< blanks and line ends shown as single spaces
    std::size_t line = 0;              ///< where the option stands
    std::vector<std::string> settings; ///< `key=value`, in the order they apply
    std::string note;                  ///< why a row sets nothing, or how a value was read
};

/// An option, or a part of a value, with no warpkit equivalent.
struct gpgpusim_warning {
    std::string file;
    std::size_t line = 0;
    std::size_t column = 0;
    std::string message;

    /// `file:line:column: warning: message`, as compilers write them.
    [[nodiscard]] std::string text() const {
        return file + ":" + std::to_string(line) + ":" + std::to_string(column) +
               ": warning: " + message;
    }
};

namespace detail {

[[nodiscard]] constexpr bool gpgpusim_blank(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// `text` for a message: at most 40 characters, the rest shown as "...".
[[nodiscard]] inline std::string gpgpusim_quoted(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 40))
        out += gpgpusim_blank(c) ? ' ' : c;
    return "'" + out + (text.size() > 40 ? "...'" : "'");
}

/// `text` padded with blanks to `width` characters.
[[nodiscard]] inline std::string gpgpusim_padded(std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}

/// One word of the file: its text and where it starts.
struct gpgpusim_token {
    std::string text;
    std::size_t line = 0;
    std::size_t column = 0;
    bool quoted = false;
};

/// The words of `text`: blank-separated, comments left out, quoted values kept whole.
[[nodiscard]] inline std::vector<gpgpusim_token> gpgpusim_tokens(std::string_view text,
                                                                 const std::string& file) {
    std::vector<gpgpusim_token> tokens;
    std::size_t i = 0;
    std::size_t line = 1;
    std::size_t column = 1;
    const auto advance = [&] {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        ++i;
    };
    while (i < text.size()) {
        if (gpgpusim_blank(text[i])) {
            advance();
        } else if (text[i] == '#') {
            while (i < text.size() && text[i] != '\n')
                advance();
        } else if (text[i] == '"') {
            const std::size_t quote_line = line;
            const std::size_t quote_column = column;
            advance();
            gpgpusim_token t{{}, line, column, true};
            const std::size_t start = i;
            while (i < text.size() && text[i] != '"')
                advance();
            if (i == text.size())
                throw parse_error(file, quote_line, quote_column, "a quote that is never closed");
            t.text = std::string(text.substr(start, i - start));
            advance();
            tokens.push_back(std::move(t));
        } else {
            gpgpusim_token t{{}, line, column, false};
            const std::size_t start = i;
            while (i < text.size() && !gpgpusim_blank(text[i]) && text[i] != '#' && text[i] != '"')
                advance();
            t.text = std::string(text.substr(start, i - start));
            tokens.push_back(std::move(t));
        }
    }
    return tokens;
}

/// True for a word that names an option: a '-' and a letter.
[[nodiscard]] inline bool gpgpusim_is_name(const gpgpusim_token& t) noexcept {
    if (t.quoted || t.text.size() < 2 || t.text[0] != '-') return false;
    const char c = t.text[1];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

} // namespace detail

/// The options of GPGPU-Sim config `text` (read from `file`, for messages) in file order.
/// Throws parse_error at an unclosed quote, at a word where an option name belongs and at a
/// name without a value (the end of the file, or another option on a later line).
[[nodiscard]] inline std::vector<gpgpusim_option> gpgpusim_options(std::string_view text,
                                                                   const std::string& file) {
    const auto tokens = detail::gpgpusim_tokens(text, file);
    std::vector<gpgpusim_option> options;
    for (std::size_t k = 0; k < tokens.size(); k += 2) {
        const auto& name = tokens[k];
        if (!detail::gpgpusim_is_name(name))
            throw parse_error(file, name.line, name.column,
                              "expected an option name (-name), got " +
                                  detail::gpgpusim_quoted(name.text));
        const bool last = k + 1 == tokens.size();
        if (last || (detail::gpgpusim_is_name(tokens[k + 1]) && tokens[k + 1].line > name.line))
            throw parse_error(file, name.line, name.column, name.text + " has no value");
        const auto& value = tokens[k + 1];
        options.push_back(
            {name.text.substr(1), value.text, name.line, name.column, value.line, value.column});
    }
    return options;
}

/// What a GPGPU-Sim config became: the mapped options with their settings and the warnings.
struct gpgpusim_translation {
    std::string file;
    std::vector<gpgpusim_row> rows;
    std::vector<gpgpusim_warning> warnings;

    /// Every row's settings, in file order (a later option wins, as in GPGPU-Sim).
    [[nodiscard]] std::vector<std::string> settings() const {
        std::vector<std::string> out;
        for (const auto& r : rows)
            out.insert(out.end(), r.settings.begin(), r.settings.end());
        return out;
    }

    /// The mapping table (line, option, value, warpkit settings), the warnings, one a line,
    /// and a count of both.
    [[nodiscard]] std::string report() const {
        std::string out = file + ": GPGPU-Sim options mapped onto warpkit parameters\n";
        out += "  " + detail::gpgpusim_padded("line", 6) + detail::gpgpusim_padded("option", 38) +
               detail::gpgpusim_padded("value", 30) + "warpkit\n";
        for (const auto& r : rows) {
            std::string value = r.value.size() > 28 ? r.value.substr(0, 25) + "..." : r.value;
            std::string lead = "  " + detail::gpgpusim_padded(std::to_string(r.line), 6) +
                               detail::gpgpusim_padded(r.option, 37) + " " +
                               detail::gpgpusim_padded(std::move(value), 29) + " ";
            std::vector<std::string> cells = r.settings;
            if (!r.note.empty()) cells.push_back("(" + r.note + ")");
            for (const auto& cell : cells) {
                out += lead + cell + "\n";
                lead.assign(lead.size(), ' ');
            }
        }
        for (const auto& w : warnings)
            out += w.text() + "\n";
        out += std::to_string(rows.size()) + " options mapped, " + std::to_string(warnings.size()) +
               " warnings\n";
        return out;
    }
};

} // namespace warpkit::host
