#pragma once
/// \file
/// Tokens of PTX text: identifiers (`%r1`, `$L__BB0_2`, `_Z6vecAddPfS_i`), dotted words
/// (`.reg`, `.u32`), integer and floating-point literals, strings and punctuation. The lexer
/// hands out one token at a time, reads nothing outside the text and reports bad input as a
/// warpkit::parse_error with line and column (1-based; a tab counts as one column).

#include <warpkit/core/error.hpp>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

namespace warpkit::ptx {

/// Kinds of PTX tokens.
enum class token_kind : std::uint8_t {
    end,       ///< end of the text
    ident,     ///< identifier; `%` and `$` allowed (`%rd4`, `$L__BB0_2`, `__local_depot3`)
    directive, ///< a word after a dot, text without the dot (`reg` for `.reg`, `L2::128B`)
    integer,   ///< integer literal; `value` holds its magnitude (a leading `-` is a punct)
    f32,       ///< `0fXXXXXXXX`; `value` holds the IEEE-754 single bits
    f64,       ///< `0dXXXXXXXXXXXXXXXX` or a decimal float; `value` holds the double bits
    string,    ///< `"..."`; text without the quotes (escapes left as written)
    punct,     ///< one of `{ } [ ] ( ) , ; : @ ! | + - < > =`; `text` is that character
};

/// One token: its kind, its text (a view into the source), its value and position.
struct token {
    token_kind kind = token_kind::end;
    std::string_view text;
    std::uint64_t value = 0;
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    std::uint32_t offset = 0; ///< byte offset of the first character in the source

    /// True for the punctuation character `c`.
    [[nodiscard]] constexpr bool is(char c) const noexcept {
        return kind == token_kind::punct && text.size() == 1 && text[0] == c;
    }
};

namespace detail {
[[nodiscard]] constexpr bool is_ident_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}
[[nodiscard]] constexpr bool is_ident_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}
[[nodiscard]] constexpr bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
[[nodiscard]] constexpr int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
} // namespace detail

/// Splits PTX text into tokens on demand (`peek` / `next`), with one token of look-ahead.
class lexer {
public:
    /// A lexer over `text` (which must outlive it); `file` names the text in messages.
    lexer(std::string_view text, std::string_view file) : text_(text), file_(file) {
        if (text.size() >= 0xffffffffU)
            throw parse_error(std::string(file), 1, 1, "input too large");
        scan();
    }

    /// The current token (not consumed).
    [[nodiscard]] const token& peek() const noexcept { return cur_; }
    /// Consumes and returns the current token.
    token next() {
        token t = cur_;
        scan();
        return t;
    }
    /// The source text.
    [[nodiscard]] std::string_view text() const noexcept { return text_; }
    /// The file name used in messages.
    [[nodiscard]] std::string_view file() const noexcept { return file_; }

    /// Drops the current token and the rest of its line (for `.loc` / `.file`), then scans on.
    void skip_rest_of_line() {
        pos_ = cur_.offset;
        while (pos_ < text_.size() && text_[pos_] != '\n')
            ++pos_;
        scan();
    }

    /// Throws a parse_error at `line`:`column`.
    [[noreturn]] void fail(std::uint32_t line, std::uint32_t column, std::string message) const {
        throw parse_error(std::string(file_), line, column, std::move(message));
    }
    /// Throws a parse_error at the token `t`.
    [[noreturn]] void fail(const token& t, std::string message) const {
        fail(t.line, t.column, std::move(message));
    }

private:
    [[nodiscard]] std::uint32_t column_of(std::size_t p) const noexcept {
        return static_cast<std::uint32_t>(p - line_start_ + 1);
    }
    [[noreturn]] void fail_at(std::size_t p, std::string message) const {
        fail(line_, column_of(p), std::move(message));
    }

    void skip_space_and_comments() {
        const std::size_t n = text_.size();
        while (pos_ < n) {
            const char c = text_[pos_];
            if (c == '\n') {
                ++pos_;
                ++line_;
                line_start_ = pos_;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++pos_;
            } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '/') {
                pos_ += 2;
                while (pos_ < n && text_[pos_] != '\n')
                    ++pos_;
            } else if (c == '/' && pos_ + 1 < n && text_[pos_ + 1] == '*') {
                const std::size_t start = pos_;
                const std::uint32_t start_line = line_;
                const std::uint32_t start_col = column_of(start);
                pos_ += 2;
                for (;;) {
                    if (pos_ + 1 >= n) fail(start_line, start_col, "unterminated comment");
                    if (text_[pos_] == '*' && text_[pos_ + 1] == '/') {
                        pos_ += 2;
                        break;
                    }
                    if (text_[pos_] == '\n') {
                        ++line_;
                        line_start_ = pos_ + 1;
                    }
                    ++pos_;
                }
            } else {
                return;
            }
        }
    }

    void scan() {
        skip_space_and_comments();
        cur_ = token{};
        cur_.line = line_;
        cur_.column = column_of(pos_);
        cur_.offset = static_cast<std::uint32_t>(pos_);
        const std::size_t n = text_.size();
        if (pos_ >= n) {
            cur_.kind = token_kind::end;
            return;
        }
        const std::size_t start = pos_;
        const char c = text_[pos_];
        if (detail::is_ident_start(c)) {
            ++pos_;
            while (pos_ < n && detail::is_ident_char(text_[pos_]))
                ++pos_;
            if (pos_ - start == 1 && (c == '%' || c == '$'))
                fail_at(start, std::string("expected an identifier after '") + c + "'");
            cur_.kind = token_kind::ident;
            cur_.text = text_.substr(start, pos_ - start);
            return;
        }
        if (c == '.') {
            // PTX floats start with a digit, so `.2d` (tex geometry) is a word like `.u32`.
            ++pos_;
            while (pos_ < n) {
                const char d = text_[pos_];
                if (detail::is_ident_char(d)) {
                    ++pos_;
                } else if (d == ':' && pos_ + 2 < n && text_[pos_ + 1] == ':' &&
                           detail::is_ident_char(text_[pos_ + 2])) {
                    pos_ += 2; // cache hints such as `.L2::128B`
                } else {
                    break;
                }
            }
            if (pos_ == start + 1) fail_at(start, "expected a word after '.'");
            cur_.kind = token_kind::directive;
            cur_.text = text_.substr(start + 1, pos_ - start - 1);
            return;
        }
        if (detail::is_digit(c)) {
            scan_number();
            return;
        }
        if (c == '"') {
            ++pos_;
            while (pos_ < n && text_[pos_] != '"' && text_[pos_] != '\n') {
                if (text_[pos_] == '\\' && pos_ + 1 < n && text_[pos_ + 1] != '\n') ++pos_;
                ++pos_;
            }
            if (pos_ >= n || text_[pos_] != '"') fail_at(start, "unterminated string");
            ++pos_;
            cur_.kind = token_kind::string;
            cur_.text = text_.substr(start + 1, pos_ - start - 2);
            return;
        }
        switch (c) {
        case '{':
        case '}':
        case '[':
        case ']':
        case '(':
        case ')':
        case ',':
        case ';':
        case ':':
        case '@':
        case '!':
        case '|':
        case '+':
        case '-':
        case '<':
        case '>':
        case '=':
            ++pos_;
            cur_.kind = token_kind::punct;
            cur_.text = text_.substr(start, 1);
            return;
        default:
            break;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x21 && u < 0x7f) fail_at(start, std::string("unexpected character '") + c + "'");
        static constexpr char hex[] = "0123456789abcdef";
        std::string m = "unexpected byte 0x";
        m += hex[u >> 4];
        m += hex[u & 15];
        fail_at(start, std::move(m));
    }

    // Literals: 0x.. hex, 0b.. binary, 0.. octal, decimal (each with an optional U suffix),
    // 0f + 8 hex digits (f32 bits), 0d + 16 hex digits (f64 bits), decimal floats.
    void scan_number() {
        const std::size_t n = text_.size();
        const std::size_t start = pos_;
        auto at = [&](std::size_t i) { return i < n ? text_[i] : '\0'; };
        const char c1 = at(pos_ + 1);
        if (at(pos_) == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
            const bool single = c1 == 'f' || c1 == 'F';
            const std::size_t digits = single ? 8 : 16;
            pos_ += 2;
            std::uint64_t v = 0;
            std::size_t k = 0;
            while (k < digits && detail::hex_value(at(pos_)) >= 0) {
                v = (v << 4) | static_cast<std::uint64_t>(detail::hex_value(at(pos_)));
                ++pos_;
                ++k;
            }
            if (k != digits || detail::is_ident_char(at(pos_)))
                fail_at(start, std::string("bad ") + (single ? "f32" : "f64") +
                                   " literal (expected 0" + c1 + " and " + std::to_string(digits) +
                                   " hex digits)");
            finish(start, single ? token_kind::f32 : token_kind::f64, v);
            return;
        }
        // A decimal float: digits with a '.', or an exponent.
        std::size_t e = pos_;
        while (detail::is_digit(at(e)))
            ++e;
        const bool dot = at(e) == '.';
        if (dot || at(e) == 'e' || at(e) == 'E') {
            std::size_t f = e;
            if (at(f) == '.') {
                ++f;
                while (detail::is_digit(at(f)))
                    ++f;
            }
            if (at(f) == 'e' || at(f) == 'E') {
                std::size_t g = f + 1;
                if (at(g) == '+' || at(g) == '-') ++g;
                if (!detail::is_digit(at(g))) fail_at(start, "bad floating-point literal");
                while (detail::is_digit(at(g)))
                    ++g;
                f = g;
            }
            if (detail::is_ident_char(at(f))) fail_at(start, "bad floating-point literal");
            double d = 0;
            const auto r = std::from_chars(text_.data() + start, text_.data() + f, d);
            if (r.ec != std::errc{} || r.ptr != text_.data() + f)
                fail_at(start, "bad floating-point literal");
            std::uint64_t bits = 0;
            std::memcpy(&bits, &d, sizeof bits);
            pos_ = f;
            finish(start, token_kind::f64, bits);
            return;
        }
        unsigned base = 10;
        if (at(pos_) == '0' && (c1 == 'x' || c1 == 'X')) {
            base = 16;
            pos_ += 2;
        } else if (at(pos_) == '0' && (c1 == 'b' || c1 == 'B')) {
            base = 2;
            pos_ += 2;
        } else if (at(pos_) == '0' && detail::is_digit(c1)) {
            base = 8;
            pos_ += 1;
        }
        const std::size_t digits_start = pos_;
        std::uint64_t v = 0;
        bool overflow = false;
        for (;;) {
            const int d = detail::hex_value(at(pos_));
            if (d < 0 || static_cast<unsigned>(d) >= base) break;
            const auto ud = static_cast<std::uint64_t>(d);
            if (v > (~std::uint64_t{0} - ud) / base) overflow = true;
            v = v * base + ud;
            ++pos_;
        }
        if (pos_ == digits_start) fail_at(start, "bad integer literal");
        if (at(pos_) == 'U') ++pos_;
        if (detail::is_ident_char(at(pos_))) fail_at(start, "bad integer literal");
        if (overflow) fail_at(start, "integer literal does not fit in 64 bits");
        finish(start, token_kind::integer, v);
    }

    void finish(std::size_t start, token_kind k, std::uint64_t v) noexcept {
        cur_.kind = k;
        cur_.value = v;
        cur_.text = text_.substr(start, pos_ - start);
    }

    std::string_view text_;
    std::string_view file_;
    std::size_t pos_ = 0;
    std::size_t line_start_ = 0;
    std::uint32_t line_ = 1;
    token cur_;
};

} // namespace warpkit::ptx
