#pragma once
/// \file
/// Assembler for the warpkit ISA: `ADD r1, r2, r3`, `MVI r4, 0x10`, `BEQ r2, loop`, labels,
/// comments (`;` or `//`), `.word` for raw words and the `.kernel` family of directives.
/// Errors are parse_errors with file:line:column.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/encoding.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/program.hpp>
#include <warpkit/isa/special_register.hpp>

#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace warpkit::isa {

namespace detail {

/// A cursor over one source line that knows its 1-based column.
class line_cursor {
public:
    line_cursor(std::string_view file, std::size_t line, std::string_view text)
        : file_(file), line_(line), text_(text) {}

    void skip_space() noexcept {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r'))
            ++pos_;
    }
    [[nodiscard]] bool at_end() noexcept {
        skip_space();
        return pos_ >= text_.size();
    }
    [[nodiscard]] char peek() noexcept {
        skip_space();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    [[nodiscard]] std::size_t column() const noexcept { return pos_ + 1; }
    [[noreturn]] void fail(std::size_t col, const std::string& msg) const {
        throw parse_error(std::string(file_), line_, col, msg);
    }
    [[noreturn]] void fail(const std::string& msg) const { fail(column(), msg); }

    /// The next token made of identifier / number characters ('.', '%' and '-' included).
    [[nodiscard]] std::string_view word() noexcept {
        skip_space();
        const std::size_t start = pos_;
        while (pos_ < text_.size() && is_word_char(text_[pos_]))
            ++pos_;
        return text_.substr(start, pos_ - start);
    }
    /// Consumes `c` if it is next.
    bool accept(char c) noexcept {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void expect(char c, std::string_view what) {
        if (!accept(c)) {
            if (at_end()) fail("expected " + std::string(what) + " before end of line");
            fail("expected " + std::string(what) + ", found '" + std::string(1, peek()) + "'");
        }
    }
    [[nodiscard]] std::string_view rest() noexcept {
        skip_space();
        return text_.substr(pos_);
    }

    static bool is_word_char(char c) noexcept {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '%' || c == '-' || c == '+';
    }

private:
    std::string_view file_;
    std::size_t line_;
    std::string_view text_;
    std::size_t pos_ = 0;
};

inline bool is_identifier(std::string_view s) noexcept {
    if (s.empty()) return false;
    const char c0 = s[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_' || c0 == '.'))
        return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            return false;
    return true;
}

/// Parses a decimal, 0x hex or 0b binary integer with optional sign into [-2^32, 2^32).
inline std::optional<std::int64_t> parse_integer(std::string_view s) noexcept {
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s.remove_prefix(2);
    }
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || v > 0xFFFF'FFFFULL)
        return std::nullopt;
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

/// A 32-bit data word: an integer (negative ones as two's complement) or a float literal
/// ("1.5", "-2e3", "0.25f") stored as its IEEE-754 single-precision bits.
inline std::optional<std::uint32_t> parse_data_word(std::string_view s) noexcept {
    if (auto i = parse_integer(s)) {
        if (*i < -0x8000'0000LL) return std::nullopt;
        return static_cast<std::uint32_t>(*i);
    }
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex || s.empty()) return std::nullopt;
    std::string_view t = s;
    if (t.back() == 'f' || t.back() == 'F') t.remove_suffix(1);
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    float f = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
    if (t.empty() || ec != std::errc{} || p != t.data() + t.size()) return std::nullopt;
    return std::bit_cast<std::uint32_t>(f);
}

struct fixup {
    std::size_t index; // code word to patch
    std::string label;
    std::size_t line;
    std::size_t column;
};

} // namespace detail

/// Assembles `text` (named `file` in errors) into a program. Throws parse_error.
[[nodiscard]] inline program assemble(std::string_view text, std::string_view file = "<input>",
                                      const encoding_params& enc = {}) {
    validate(enc);
    program prog;
    std::vector<detail::fixup> fixups;
    std::size_t line_no = 0;
    std::size_t params_seen = 0;

    auto find_label = [&](std::string_view name) -> const std::uint32_t* {
        for (const auto& [n, at] : prog.labels)
            if (n == name) return &at;
        return nullptr;
    };

    while (!text.empty()) {
        ++line_no;
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        // Strip comments.
        const auto semi = line.find(';');
        const auto slashes = line.find("//");
        line = line.substr(0, std::min(semi, slashes));

        detail::line_cursor cur(file, line_no, line);
        if (cur.at_end()) continue;

        // Labels ("name:"), possibly followed by an instruction.
        while (true) {
            const std::string_view rest = cur.rest();
            const auto colon = rest.find(':');
            if (colon == std::string_view::npos) break;
            const std::size_t col = cur.column();
            const std::string_view name = cur.word();
            if (name.size() != colon || !detail::is_identifier(name) || name[0] == '.') {
                cur.fail(col, "malformed label '" + std::string(rest.substr(0, colon)) + "'");
            }
            if (find_mnemonic(name))
                cur.fail(col, "label '" + std::string(name) + "' is an instruction name");
            if (find_label(name)) cur.fail(col, "label '" + std::string(name) + "' defined twice");
            prog.labels.emplace_back(std::string(name),
                                     static_cast<std::uint32_t>(prog.code.size()));
            cur.expect(':', "':'");
        }
        if (cur.at_end()) continue;

        const std::size_t head_col = cur.column();
        const std::string_view head = cur.word();
        if (head.empty()) cur.fail(head_col, "expected an instruction, directive or label");

        if (head[0] == '.') {
            // Directives.
            auto numbers = [&](std::size_t min_count, std::size_t max_count, bool data) {
                std::vector<std::uint32_t> out;
                while (!cur.at_end()) {
                    cur.accept(',');
                    const std::size_t col = cur.column();
                    const std::string_view tok = cur.word();
                    if (tok.empty()) cur.fail(col, "expected a number");
                    const auto v = data ? detail::parse_data_word(tok)
                                        : [&]() -> std::optional<std::uint32_t> {
                        const auto i = detail::parse_integer(tok);
                        if (!i || *i < 0) return std::nullopt;
                        return static_cast<std::uint32_t>(*i);
                    }();
                    if (!v)
                        cur.fail(col, "bad " + std::string(data ? "value" : "unsigned integer") +
                                          " '" + std::string(tok) + "'");
                    out.push_back(*v);
                }
                if (out.size() < min_count || out.size() > max_count)
                    cur.fail(head_col,
                             std::string(head) + " takes " +
                                 (min_count == max_count
                                      ? std::to_string(min_count)
                                      : std::to_string(min_count) + " to " +
                                            (max_count == SIZE_MAX ? std::string("any")
                                                                   : std::to_string(max_count))) +
                                 " value(s), got " + std::to_string(out.size()));
                return out;
            };
            auto dims = [&](dim3& d) {
                const auto v = numbers(1, 3, false);
                for (auto x : v)
                    if (x == 0) cur.fail(head_col, std::string(head) + " dimensions must be >= 1");
                d.x = v[0];
                d.y = v.size() > 1 ? v[1] : 1;
                d.z = v.size() > 2 ? v[2] : 1;
            };
            if (head == ".kernel") {
                const std::size_t col = cur.column();
                const std::string_view name = cur.word();
                if (!detail::is_identifier(name)) cur.fail(col, "expected a kernel name");
                prog.kernel.name = std::string(name);
                if (!cur.at_end()) cur.fail("unexpected text after the kernel name");
            } else if (head == ".grid") {
                dims(prog.kernel.grid);
            } else if (head == ".block") {
                dims(prog.kernel.block);
            } else if (head == ".regs") {
                prog.kernel.regs_per_thread = numbers(1, 1, false)[0];
            } else if (head == ".shared") {
                prog.kernel.shared_bytes = numbers(1, 1, false)[0];
            } else if (head == ".warps") {
                prog.kernel.warps_per_block = numbers(1, 1, false)[0];
            } else if (head == ".param") {
                for (auto v : numbers(1, SIZE_MAX, true)) {
                    if (++params_seen > max_params)
                        cur.fail(head_col,
                                 "more than " + std::to_string(max_params) + " kernel parameters");
                    prog.kernel.params.push_back(v);
                }
            } else if (head == ".const") {
                for (auto v : numbers(1, SIZE_MAX, true))
                    prog.kernel.consts.push_back(v);
            } else if (head == ".data") {
                for (auto v : numbers(1, SIZE_MAX, true))
                    prog.kernel.data.push_back(v);
            } else if (head == ".word") {
                for (auto v : numbers(1, SIZE_MAX, true)) {
                    prog.code.push_back(v);
                    prog.source_line.push_back(line_no);
                }
            } else {
                cur.fail(head_col, "unknown directive '" + std::string(head) +
                                       "' (known: .kernel .grid .block .regs .warps .shared "
                                       ".param .const .data .word)");
            }
            continue;
        }

        const auto op = find_mnemonic(head);
        if (!op) cur.fail(head_col, "unknown instruction '" + std::string(head) + "'");
        const auto& oi = info(*op);
        instruction in;
        in.op = *op;
        for (std::uint8_t k = 0; k < oi.operand_count; ++k) {
            if (k > 0)
                cur.expect(',', "',' before operand " + std::to_string(k + 1) + " of " +
                                    std::string(oi.mnemonic));
            cur.skip_space();
            const std::size_t col = cur.column();
            const std::string_view tok = cur.word();
            if (tok.empty()) {
                if (cur.at_end())
                    cur.fail(col, std::string(oi.mnemonic) + " needs " +
                                      std::to_string(oi.operand_count) + " operand(s), got " +
                                      std::to_string(k));
                cur.fail(col, "expected an operand, found '" + std::string(1, cur.peek()) + "'");
            }
            const operand kind = oi.operands[k];
            switch (kind) {
            case operand::dest:
            case operand::src1:
            case operand::src2:
            case operand::src3: {
                const std::uint32_t limit =
                    kind == operand::dest ? enc.dest_regs() : enc.src_regs();
                std::optional<std::int64_t> r;
                if (tok.size() >= 2 && (tok[0] == 'r' || tok[0] == 'R'))
                    r = detail::parse_integer(tok.substr(1));
                if (!r || *r < 0 || (tok.size() > 2 && tok[1] == '0') ||
                    static_cast<std::uint64_t>(*r) >= limit)
                    cur.fail(col, "expected a register r0..r" + std::to_string(limit - 1) +
                                      ", found '" + std::string(tok) + "'");
                const auto reg = static_cast<std::uint8_t>(*r);
                if (kind == operand::dest) in.dest = reg;
                if (kind == operand::src1) in.src1 = reg;
                if (kind == operand::src2) in.src2 = reg;
                if (kind == operand::src3) in.src3 = reg;
                break;
            }
            case operand::sreg: {
                const auto s = find_special_register(tok);
                if (!s)
                    cur.fail(col, "expected a special register (%tid.x, %ctaid.y, %laneid, "
                                  "%param0 ...), found '" +
                                      std::string(tok) + "'");
                in.src1 = static_cast<std::uint8_t>(*s);
                break;
            }
            case operand::imm: {
                const auto v = detail::parse_integer(tok);
                if (!v || *v < 0 || static_cast<std::uint64_t>(*v) > enc.imm_max())
                    cur.fail(col, "expected an immediate in [0, " + std::to_string(enc.imm_max()) +
                                      "], found '" + std::string(tok) + "'");
                in.imm = static_cast<std::uint32_t>(*v);
                break;
            }
            case operand::target: {
                if (const auto v = detail::parse_integer(tok)) {
                    if (*v < 0 || static_cast<std::uint64_t>(*v) > enc.imm_max())
                        cur.fail(col, "branch target " + std::string(tok) + " outside [0, " +
                                          std::to_string(enc.imm_max()) + "]");
                    in.imm = static_cast<std::uint32_t>(*v);
                } else if (detail::is_identifier(tok) && tok[0] != '.') {
                    fixups.push_back({prog.code.size(), std::string(tok), line_no, col});
                } else {
                    cur.fail(col, "expected a label or instruction index, found '" +
                                      std::string(tok) + "'");
                }
                break;
            }
            }
        }
        if (!cur.at_end())
            cur.fail("unexpected '" + std::string(cur.rest()) + "' after " +
                     std::string(oi.mnemonic) + " operands");
        prog.code.push_back(encode(in, enc));
        prog.source_line.push_back(line_no);
    }

    for (const auto& f : fixups) {
        const std::uint32_t* at = find_label(f.label);
        if (!at)
            throw parse_error(std::string(file), f.line, f.column,
                              "undefined label '" + f.label + "'");
        if (*at > enc.imm_max())
            throw parse_error(std::string(file), f.line, f.column,
                              "label '" + f.label + "' at " + std::to_string(*at) +
                                  " does not fit the branch target field");
        prog.code[f.index] |= detail::place(*at, 0, enc.imm_width);
    }
    return prog;
}

} // namespace warpkit::isa
