#pragma once
/// \file
/// The token level of the PTX parser: a cursor over the lexer's tokens with the helpers every
/// part of the grammar uses (expect a character, an identifier, a bounded integer, a type;
/// describe a token in a message; fail at a token or position with file:line:column).

#include <warpkit/core/error.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace warpkit::ptx::detail {

/// `s` in single quotes, as messages quote PTX text.
[[nodiscard]] inline std::string squote(std::string_view s) {
    std::string quoted;
    quoted.reserve(s.size() + 2);
    quoted += '\'';
    quoted += s;
    quoted += '\'';
    return quoted;
}

/// The tokens of one PTX text and the helpers that read them; the base of the parser's layers.
class token_cursor {
public:
    token_cursor(std::string_view text, std::string file)
        : file_(std::move(file)), lex_(text, file_) {}
    // The lexer refers to file_; a copy would refer to the original's.
    token_cursor(const token_cursor&) = delete;
    token_cursor& operator=(const token_cursor&) = delete;

protected:
    ~token_cursor() = default;

    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    /// The whole source text (instructions quote their mnemonic from it).
    [[nodiscard]] std::string_view source() const noexcept { return lex_.text(); }
    /// Drops the current token and the rest of its line (`.loc`, `.file`).
    void skip_rest_of_line() { lex_.skip_rest_of_line(); }

    const token& peek() const noexcept { return lex_.peek(); }
    token next() { return lex_.next(); }
    [[noreturn]] void fail(const token& t, std::string msg) const { lex_.fail(t, std::move(msg)); }
    [[noreturn]] void fail(source_pos p, std::string msg) const {
        lex_.fail(p.line, p.column, std::move(msg));
    }
    static source_pos pos_of(const token& t) noexcept { return {t.line, t.column}; }

    static std::string describe(const token& t) {
        switch (t.kind) {
        case token_kind::end:
            return "end of file";
        case token_kind::directive:
            return squote("." + std::string(t.text));
        case token_kind::string:
            return "a string";
        default:
            return squote(t.text);
        }
    }
    void expect(char c, std::string_view what = {}) {
        const token& t = peek();
        if (!t.is(c)) {
            std::string m = "expected '";
            m += c;
            m += '\'';
            if (!what.empty()) {
                m += ' ';
                m += what;
            }
            m += ", found " + describe(t);
            fail(t, std::move(m));
        }
        next();
    }
    bool accept(char c) {
        if (!peek().is(c)) return false;
        next();
        return true;
    }
    bool accept_directive(std::string_view d) {
        if (peek().kind != token_kind::directive || peek().text != d) return false;
        next();
        return true;
    }
    token expect_ident(std::string_view what) {
        if (peek().kind != token_kind::ident)
            fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
        return next();
    }
    std::uint64_t expect_uint(std::string_view what, std::uint64_t max) {
        const token& t = peek();
        if (t.kind != token_kind::integer)
            fail(t, "expected " + std::string(what) + ", found " + describe(t));
        if (t.value > max)
            fail(t, std::string(what) + " " + std::string(t.text) + " is out of range (at most " +
                        std::to_string(max) + ")");
        return next().value;
    }
    // A type directive such as `.u32`; fails on anything else.
    type expect_type(std::string_view context) {
        const token& t = peek();
        if (t.kind == token_kind::directive) {
            const modifier_word* word = modifier_words.find(t.text);
            if (word != nullptr && word->primary == modifier_class::type) {
                next();
                return static_cast<type>(word->primary_value);
            }
            if (word != nullptr && word->primary == modifier_class::bad_type)
                fail(t, "unsupported type ." + std::string(t.text) + " in " + std::string(context));
        }
        fail(t, "expected a type in " + std::string(context) + ", found " + describe(t));
    }
    // `.pragma "..." {, "..."};` (read and ignored).
    void skip_pragma() {
        next();
        if (peek().kind != token_kind::string)
            fail(peek(), "expected a string after .pragma, found " + describe(peek()));
        next();
        while (accept(',')) {
            if (peek().kind != token_kind::string)
                fail(peek(), "expected a string after ',', found " + describe(peek()));
            next();
        }
        expect(';', "after .pragma");
    }

private:
    std::string file_;
    lexer lex_;
};

} // namespace warpkit::ptx::detail
