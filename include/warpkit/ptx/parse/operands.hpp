#pragma once
/// \file
/// The operand level of the PTX parser: an instruction's operands as its signature
/// (operand_rules.hpp) lists them, each resolved (registers, special registers, variables,
/// parameters, labels, functions) and checked against the instruction's types; call
/// instructions with their argument and result lists.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/cursor.hpp>
#include <warpkit/ptx/parse/legality.hpp>
#include <warpkit/ptx/parse/operand_rules.hpp>
#include <warpkit/ptx/parse/scopes.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::ptx::detail {

/// Reads operands at the cursor and resolves them in the declared names.
class operand_parser : public token_cursor, public declared_names {
public:
    using token_cursor::token_cursor;

protected:
    static std::string ordinal(std::size_t i) { return "operand " + std::to_string(i + 1); }

    // The operands of `in` up to the `;` (its modifiers already applied), checked.
    void parse_operands(instruction& in, const token& mn, std::string_view full) {
        std::string_view signature = operand_signature(in);
        // mov packs / unpacks vectors: `mov.b64 %rd1, {%r1, %r2}` and `mov.b64 {%r1, %r2}, %rd1`.
        if (in.opcode == op::mov) {
            if (peek().is('{'))
                signature = "Vs";
            else if (in.t != type::pred)
                signature = "da"; // the source may be a vector; checked below
        }
        const bool pred_data = in.t == type::pred && in.opcode != op::vote;
        std::array<token, 6> operand_tokens{};
        std::size_t slot = 0;
        bool optional = false;
        auto expected_count = [&] {
            std::size_t n = 0;
            for (char letter : signature)
                if (letter != '|' && letter != '?') ++n;
            return n;
        };
        for (std::size_t position = 0; position < signature.size(); ++position) {
            char letter = signature[position];
            if (letter == '?') {
                optional = true;
                continue;
            }
            if (letter == '|') continue;
            if (slot > 0) {
                if (optional && peek().is(';')) break;
                if (!peek().is(',')) {
                    if (peek().is(';'))
                        fail(mn, squote(full) + " expects " + std::to_string(expected_count()) +
                                     " operands, found " + std::to_string(slot));
                    fail(peek(), "expected ',' between operands of " + squote(full) + ", found " +
                                     describe(peek()));
                }
                next();
            } else if (peek().is(';')) {
                if (optional) break;
                fail(mn, squote(full) + " expects " + std::to_string(expected_count()) +
                             " operands, found 0");
            }
            if (in.opcode == op::mov && slot == 1 && letter == 'a' && peek().is('{')) letter = 'W';
            parse_operand(letter, in, full, slot, pred_data, operand_tokens);
            ++slot;
            // `%p|%q`: a second predicate destination.
            if (position + 1 < signature.size() && signature[position + 1] == '|' &&
                peek().is('|')) {
                next();
                const token second = peek();
                operand_tokens[in.num_operands] = second;
                parse_dest(in.operands[in.num_operands], second, full, slot, true);
                ++in.num_operands;
            }
        }
        if (!peek().is(';')) {
            if (peek().is(','))
                fail(peek(), squote(full) + " expects " + std::to_string(expected_count()) +
                                 " operands, found more");
            fail(peek(), "expected ';' after " + squote(full) + ", found " + describe(peek()));
        }
        next();
        check_operands(in, mn, full);
        check_register_types(in, full, operand_tokens);
    }

    // The operand in `slot` as its signature letter says (see operand_signature), appended to
    // `in`; `operand_tokens` keeps where each operand starts, for the register type messages.
    void parse_operand(char letter, instruction& in, std::string_view full, std::size_t slot,
                       bool pred_data, std::array<token, 6>& operand_tokens) {
        const token at = peek();
        operand_tokens[in.num_operands] = at;
        operand& o = in.operands[in.num_operands];
        switch (letter) {
        case 'd':
        case 'D':
            parse_dest(o, at, full, slot, letter == 'D' || pred_data);
            break;
        case 's':
            parse_source(in, o, at, full, slot, pred_data, false);
            break;
        case 'p':
        case 'n':
            parse_source(in, o, at, full, slot, true, letter == 'n');
            break;
        case 'i':
            parse_source(in, o, at, full, slot, false, false);
            if (o.k != operand::kind::imm || o.immediate != imm_kind::integer || o.bits > 255)
                fail(at, ordinal(slot) + " of " + squote(full) +
                             " must be an integer immediate 0..255");
            break;
        case 'a':
        case 'c':
            parse_address_source(in, o, at, full, slot, letter == 'a', pred_data);
            break;
        case 'm':
            parse_memory(in, o, at, full, slot);
            break;
        case 'l':
            parse_label(o, at, full, slot);
            break;
        case 'V':
        case 'W':
            parse_vector(in, o, at, full, slot, letter == 'V');
            break;
        case 't': // [handle, {coordinates}]: two operands
            parse_texture(in, o, at, full, slot);
            ++in.num_operands;
            operand_tokens[in.num_operands] = at;
            break;
        default:
            break;
        }
        ++in.num_operands;
    }

    // Rules between operands and modifiers.
    void check_operands(const instruction& in, const token& mn, std::string_view full) const {
        if (in.opcode == op::mov) {
            const operand& d = in.operands[0];
            const operand& s = in.operands[1];
            if (d.k == operand::kind::vector && s.k == operand::kind::vector)
                fail(mn, squote(full) + ": cannot move a vector to a vector");
            if ((d.k == operand::kind::vector || s.k == operand::kind::vector) &&
                (type_bit(in.t) & (bit_types | unsigned_types | signed_types | float_types)) == 0)
                fail(mn, squote(full) + ": packing needs a 16-, 32- or 64-bit type");
        }
    }

    void check_register_types(const instruction& in, std::string_view full,
                              const std::array<token, 6>& at) const {
        for (std::size_t i = 0; i < in.num_operands; ++i) {
            const operand& o = in.operands[i];
            const auto [want, wider] = operand_type(in, i);
            if (o.k == operand::kind::reg) {
                if (want == type::none || want == type::pred) continue;
                const type r = function_->registers[o.reg].t;
                if (!register_fits(r, want, wider))
                    fail(at[i], ordinal(i) + " of " + squote(full) + ": " +
                                    squote(function_->registers[o.reg].name) + " is ." +
                                    std::string(name(r)) + ", the operand is ." +
                                    std::string(name(want)));
            } else if (o.k == operand::kind::vector) {
                // mov packs parts of 1/count the width; ld/st vectors hold elements of the type.
                const bool pack = in.opcode == op::mov;
                const std::uint32_t part = pack ? bits(in.t) / (o.count ? o.count : 1U) : 0U;
                type first = type::none;
                for (std::uint8_t e = 0; e < o.count; ++e) {
                    if (o.elements[e] == no_index) continue;
                    const type r = function_->registers[o.elements[e]].t;
                    const bool ok = pack ? bits(r) == part : register_fits(r, want, wider);
                    if (!ok || (first != type::none && bits(r) != bits(first)))
                        fail(at[i], ordinal(i) + " of " + squote(full) + ": element " +
                                        squote(function_->registers[o.elements[e]].name) + " is ." +
                                        std::string(name(r)) + ", which does not fit");
                    if (first == type::none) first = r;
                }
            }
        }
    }

    std::uint32_t lookup_register(const token& at) const { return find_register(at.text); }

    [[noreturn]] void undeclared(const token& at) const {
        if (!at.text.empty() && at.text[0] == '%')
            fail(at, is_unsupported_special_register(at.text)
                         ? "unsupported special register " + squote(at.text)
                         : "undeclared register " + squote(at.text));
        fail(at, "undeclared identifier " + squote(at.text));
    }
    void parse_dest(operand& o, const token& at, std::string_view full, std::size_t slot,
                    bool want_pred) {
        if (at.kind != token_kind::ident)
            fail(at, ordinal(slot) + " of " + squote(full) + " must be a register, found " +
                         describe(at));
        next();
        if (at.text == "_") {
            o.k = operand::kind::sink;
            return;
        }
        const std::uint32_t r = lookup_register(at);
        if (r == no_index) {
            if (special_register_words.find(at.text) != nullptr)
                fail(at, "special register " + squote(at.text) + " cannot be written");
            undeclared(at);
        }
        check_pred(r, at, full, slot, want_pred);
        o.k = operand::kind::reg;
        o.reg = r;
    }
    void check_pred(std::uint32_t r, const token& at, std::string_view full, std::size_t slot,
                    bool want_pred) const {
        const bool is_pred = function_->registers[r].t == type::pred;
        if (is_pred != want_pred)
            fail(at, ordinal(slot) + " of " + squote(full) + ": " + squote(at.text) +
                         (want_pred ? " is not a .pred register" : " is a .pred register"));
    }

    // An immediate (with an optional leading '-'); false when the token is no literal.
    bool parse_immediate(operand& o) {
        const token& t = peek();
        const bool neg = t.is('-');
        if (neg) {
            next();
            const token& v = peek();
            if (v.kind != token_kind::integer && v.kind != token_kind::f32 &&
                v.kind != token_kind::f64)
                fail(v, "expected a number after '-', found " + describe(v));
        }
        const token v = peek();
        switch (v.kind) {
        case token_kind::integer:
            o.immediate = imm_kind::integer;
            o.bits = neg ? ~v.value + 1 : v.value;
            break;
        case token_kind::f32:
            o.immediate = imm_kind::f32;
            o.bits = v.value ^ (neg ? 0x80000000U : 0U);
            break;
        case token_kind::f64:
            o.immediate = imm_kind::f64;
            o.bits = v.value ^ (neg ? std::uint64_t{1} << 63 : 0U);
            break;
        default:
            return false;
        }
        next();
        o.k = operand::kind::imm;
        return true;
    }

    void parse_source(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot, bool want_pred, bool may_negate) {
        if (parse_immediate(o)) return;
        bool neg = false;
        if (at.is('!')) {
            if (!may_negate) fail(at, ordinal(slot) + " of " + squote(full) + " cannot be negated");
            next();
            neg = true;
        }
        const token r_tok = peek();
        if (r_tok.kind != token_kind::ident)
            fail(r_tok, ordinal(slot) + " of " + squote(full) +
                            " must be a register or immediate, found " + describe(r_tok));
        next();
        const std::uint32_t r = lookup_register(r_tok);
        if (r == no_index) {
            if (special_register_words.find(r_tok.text) != nullptr)
                fail(r_tok, "special register " + squote(r_tok.text) +
                                " can only be read by mov, not by " + squote(full));
            if (r_tok.text != "_" && (r_tok.text[0] != '%') &&
                find_symbol(r_tok.text).index != no_index)
                fail(r_tok, ordinal(slot) + " of " + squote(full) +
                                " must be a register or immediate; take the address of " +
                                squote(r_tok.text) + " with mov");
            undeclared(r_tok);
        }
        check_pred(r, r_tok, full, slot, want_pred);
        o.k = operand::kind::reg;
        o.reg = r;
        o.negate = neg;
        static_cast<void>(in);
    }

    void parse_address_source(const instruction& in, operand& o, const token& at,
                              std::string_view full, std::size_t slot, bool mov, bool want_pred) {
        if (parse_immediate(o)) {
            if (!mov)
                fail(at,
                     ordinal(slot) + " of " + squote(full) + " must be a register or a variable");
            return;
        }
        if (at.kind != token_kind::ident)
            fail(at, ordinal(slot) + " of " + squote(full) +
                         " must be a register, immediate or symbol, found " + describe(at));
        next();
        const std::uint32_t r = lookup_register(at);
        if (r != no_index) {
            check_pred(r, at, full, slot, want_pred);
            o.k = operand::kind::reg;
            o.reg = r;
            return;
        }
        if (const special_register_word* special = special_register_words.find(at.text)) {
            if (!mov) fail(at, "special register " + squote(at.text) + " can only be read by mov");
            o.k = operand::kind::sreg;
            o.special = special->value;
            if (has_components(special->value)) {
                const token& component = peek();
                if (component.kind != token_kind::directive ||
                    (component.text != "x" && component.text != "y" && component.text != "z"))
                    fail(at, squote(at.text) + " needs a component (.x, .y or .z)");
                o.dim = static_cast<std::uint8_t>(component.text[0] - 'x');
                next();
            }
            const bool wide = special->value == sreg::clock64 || special->value == sreg::gridid;
            if (want_pred || (bits(in.t) != 32 && !(wide && bits(in.t) == 64)))
                fail(at, squote(full) + ": " + squote(at.text) + " is a " + (wide ? "64" : "32") +
                             "-bit special register");
            return;
        }
        const symbol_ref sym = find_symbol(at.text);
        if (sym.index == no_index) undeclared(at);
        if (want_pred) fail(at, squote(full) + ": a symbol's address is not a predicate");
        if (sym.kind == symbol_kind::function && !mov)
            fail(at, "cvta cannot convert the address of function " + squote(at.text));
        o.k = operand::kind::symbol;
        o.symbol_of = sym.kind;
        o.index = sym.index;
    }

    void parse_memory(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot) {
        if (!at.is('['))
            fail(at, ordinal(slot) + " of " + squote(full) + " must be an address [...], found " +
                         describe(at));
        next();
        o.k = operand::kind::memory;
        const token base = peek();
        if (base.kind == token_kind::ident) {
            next();
            const std::uint32_t r = lookup_register(base);
            if (r != no_index) {
                if (function_->registers[r].t == type::pred || is_float(function_->registers[r].t))
                    fail(base, "address register " + squote(base.text) + " is a ." +
                                   std::string(name(function_->registers[r].t)) + " register");
                o.reg = r;
            } else {
                const symbol_ref symbol = find_symbol(base.text);
                if (symbol.index == no_index) {
                    if (special_register_words.find(base.text) != nullptr)
                        fail(base,
                             "special register " + squote(base.text) + " cannot be an address");
                    undeclared(base);
                }
                if (symbol.kind == symbol_kind::function)
                    fail(base, "function " + squote(base.text) + " cannot be an address");
                const space variable_space = space_of_symbol(symbol);
                if (in.sp != space::generic && in.sp != space::none && variable_space != in.sp)
                    fail(base, squote(base.text) + " is a ." + std::string(name(variable_space)) +
                                   " variable; " + squote(full) + " accesses ." +
                                   std::string(name(in.sp)));
                if (symbol.kind == symbol_kind::param && in.opcode != op::ld &&
                    in.opcode != op::prefetch)
                    fail(base, "parameter " + squote(base.text) + " is read-only");
                o.symbol_of = symbol.kind;
                o.index = symbol.index;
            }
            if (peek().is('+') || peek().is('-')) {
                const bool minus = next().is('-');
                const bool negative_offset = accept('-');
                const token offset = peek();
                if (offset.kind != token_kind::integer)
                    fail(offset, "expected an integer offset, found " + describe(offset));
                next();
                if (offset.value > (std::uint64_t{1} << 62))
                    fail(offset, "address offset too large");
                const auto magnitude = static_cast<std::int64_t>(offset.value);
                o.offset = (minus != negative_offset) ? -magnitude : magnitude;
            }
        } else if (base.kind == token_kind::integer) {
            next();
            if (base.value > (std::uint64_t{1} << 62)) fail(base, "address too large");
            o.offset = static_cast<std::int64_t>(base.value);
        } else {
            fail(base,
                 "expected a register, variable or address inside [...], found " + describe(base));
        }
        expect(']', "to close the address");
    }

    void parse_label(operand& o, const token& at, std::string_view full, std::size_t slot) {
        if (at.kind != token_kind::ident)
            fail(at,
                 ordinal(slot) + " of " + squote(full) + " must be a label, found " + describe(at));
        next();
        if (find_register(at.text) != no_index)
            fail(at, "indirect branches through registers are not supported");
        o.k = operand::kind::label;
        const auto it = labels_.find(at.text);
        if (it != labels_.end()) {
            o.index = it->second;
        } else {
            label_fixups_.push_back(
                label_fixup{code_size() - 1, static_cast<std::uint8_t>(slot), at.text, pos_of(at)});
        }
    }

    void parse_vector(const instruction& in, operand& o, const token& at, std::string_view full,
                      std::size_t slot, bool dest) {
        if (!at.is('{'))
            fail(at, ordinal(slot) + " of " + squote(full) + " must be a vector {...}, found " +
                         describe(at));
        next();
        o.k = operand::kind::vector;
        for (;;) {
            const token element = peek();
            if (element.kind != token_kind::ident)
                fail(element, "expected a register in the vector, found " + describe(element));
            next();
            // The fragments of the matrix instructions hold up to 8 registers.
            const std::size_t most = is_matrix(in.opcode) ? max_vector_elements : 4;
            if (o.count == most)
                fail(element, "a vector has at most " + std::to_string(most) + " elements");
            if (element.text == "_") {
                if (!dest) fail(element, "'_' can only stand for an unused destination");
                o.elements[o.count++] = no_index;
            } else {
                const std::uint32_t r = lookup_register(element);
                if (r == no_index) undeclared(element);
                if (function_->registers[r].t == type::pred)
                    fail(element,
                         "vector element " + squote(element.text) + " is a .pred register");
                o.elements[o.count++] = r;
            }
            if (!accept(',')) break;
        }
        expect('}', "to close the vector");
        if (in.opcode == op::mov) {
            if (o.count != 2 && o.count != 4)
                fail(at, squote(full) + ": a packed vector has 2 or 4 elements");
            if (bits(in.t) % o.count != 0 || bits(in.t) / o.count < 8)
                fail(at, squote(full) + ": cannot split ." + std::string(name(in.t)) + " into " +
                             std::to_string(o.count) + " parts");
        } else if (!is_matrix(in.opcode) && o.count != in.vec) {
            fail(at, squote(full) + " needs a vector of " + std::to_string(in.vec) +
                         " registers, found " + std::to_string(o.count));
        }
    }

    // tex: `[a, {c}]` or `[a, c]` (1d), `[a, {x, y}]` (2d); a is the 64-bit texture object
    // handle, held in operand o; the coordinates go to the next operand.
    void parse_texture(instruction& in, operand& o, const token& at, std::string_view full,
                       std::size_t slot) {
        if (!at.is('['))
            fail(at, ordinal(slot) + " of " + squote(full) +
                         " must be [texture, {coordinates}], found " + describe(at));
        next();
        const token handle = peek();
        if (handle.kind != token_kind::ident)
            fail(handle, "expected the texture object register, found " + describe(handle));
        next();
        const std::uint32_t r = lookup_register(handle);
        if (r == no_index) {
            if (find_symbol(handle.text).index != no_index)
                fail(handle, "texture references (" + squote(handle.text) +
                                 ") are not supported; CUDA 13 has texture objects only");
            undeclared(handle);
        }
        if (bits(function_->registers[r].t) != 64 || is_float(function_->registers[r].t))
            fail(handle, "the texture object " + squote(handle.text) +
                             " must be a 64-bit integer register");
        o.k = operand::kind::reg;
        o.reg = r;
        expect(',', "between the texture and its coordinates");
        const std::size_t dims = in.geom == tex_geom::d2 ? 2 : 1;
        operand& coordinates = in.operands[in.num_operands + 1];
        coordinates.k = operand::kind::vector;
        const bool braced = accept('{');
        for (;;) {
            const token element = peek();
            if (element.kind != token_kind::ident)
                fail(element, "expected a coordinate register, found " + describe(element));
            next();
            const std::uint32_t coordinate = lookup_register(element);
            if (coordinate == no_index) undeclared(element);
            if (coordinates.count == 4) fail(element, "a vector has at most 4 elements");
            coordinates.elements[coordinates.count++] = coordinate;
            if (!braced || !accept(',')) break;
        }
        if (braced) expect('}', "to close the coordinates");
        if (coordinates.count != dims)
            fail(at, squote(full) + " needs " + std::to_string(dims) + " coordinate" +
                         (dims == 1 ? "" : "s") + ", found " + std::to_string(coordinates.count));
        if (peek().is(',')) fail(peek(), "explicit samplers are not supported in " + squote(full));
        expect(']', "to close the texture operand");
    }

    // call{.uni} (results), f, (args);  call{.uni} f, (args);  call{.uni} f;
    void parse_call(instruction& in, const token& mn, std::string_view full) {
        if (accept('(')) {
            parse_call_list(in.call_results, true);
            expect(',', "after the call's return list");
        }
        const token f = peek();
        if (f.kind != token_kind::ident)
            fail(f, "expected the called function, found " + describe(f));
        next();
        if (find_register(f.text) != no_index)
            fail(f, "indirect calls through registers are not supported");
        const auto it = module_symbols_.find(f.text);
        if (it == module_symbols_.end()) fail(f, "call to undeclared function " + squote(f.text));
        if (it->second.kind != symbol_kind::function)
            fail(f, squote(f.text) + " is not a function");
        operand& o = in.operands[0];
        o.k = operand::kind::symbol;
        o.symbol_of = symbol_kind::function;
        o.index = it->second.index;
        in.num_operands = 1;
        if (accept(',')) {
            expect('(', "to open the call's argument list");
            parse_call_list(in.call_args, false);
            if (peek().is(',')) fail(peek(), "indirect calls with a prototype are not supported");
        }
        if (!peek().is(';'))
            fail(peek(), "expected ';' after " + squote(full) + ", found " + describe(peek()));
        next();
        const function& callee = module_->functions[o.index];
        if (callee.entry) fail(f, "cannot call the kernel " + squote(f.text));
        if (in.call_args.size() != callee.params.size())
            fail(mn, "call to " + squote(f.text) + " passes " +
                         std::to_string(in.call_args.size()) + " arguments; it takes " +
                         std::to_string(callee.params.size()));
        if (in.call_results.size() != callee.results.size())
            fail(mn, "call to " + squote(f.text) + " receives " +
                         std::to_string(in.call_results.size()) + " results; it returns " +
                         std::to_string(callee.results.size()));
    }
    void parse_call_list(std::vector<operand>& out, bool results) {
        if (accept(')')) return;
        for (;;) {
            operand o;
            const token a = peek();
            if (!results && parse_immediate(o)) {
                out.push_back(o);
            } else {
                if (a.kind != token_kind::ident)
                    fail(a, std::string("expected a ") + (results ? "result" : "argument") +
                                ", found " + describe(a));
                next();
                const std::uint32_t r = find_register(a.text);
                if (r != no_index) {
                    o.k = operand::kind::reg;
                    o.reg = r;
                } else {
                    const symbol_ref s = find_symbol(a.text);
                    if (s.index == no_index) undeclared(a);
                    if (space_of_symbol(s) != space::param)
                        fail(a, squote(a.text) + " is not a .param variable");
                    o.k = operand::kind::symbol;
                    o.symbol_of = s.kind;
                    o.index = s.index;
                }
                out.push_back(o);
            }
            if (out.size() > 256) fail(a, "too many call operands");
            if (!accept(',')) break;
        }
        expect(')', results ? "to close the call's return list" : "to close the argument list");
    }
};

} // namespace warpkit::ptx::detail
