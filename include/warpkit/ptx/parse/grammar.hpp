#pragma once
/// \file
/// The PTX grammar from the top: the module header (`.version`, `.target`, `.address_size`),
/// module-level statements, functions and their bodies (nested blocks, labels, register
/// declarations). The layers below it, each a class the next derives from:
/// - cursor.hpp     token_cursor: tokens, expectations, messages with file:line:column;
/// - scopes.hpp     declared_names: what is declared so far, and the lookups;
/// - operands.hpp   operand_parser: operands as operand_rules.hpp's signatures list them;
/// - matrix_instructions.hpp matrix_instruction_parser: wmma.* and mma.sync, their modifiers
///                  and fragment operands (a grammar of their own);
/// - instructions.hpp instruction_parser: mnemonic and modifiers (words.hpp, legality.hpp,
///                  modifier_rules.hpp);
/// - declarations.hpp declaration_parser: variables, initialisers, parameters.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/cursor.hpp>
#include <warpkit/ptx/parse/declarations.hpp>
#include <warpkit/ptx/parse/scopes.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::ptx::detail {

/// The recursive-descent parser behind parse_ptx.
class parser : public declaration_parser {
public:
    using declaration_parser::declaration_parser;

    module run() {
        module m;
        m.file = file();
        module_ = &m;
        parse_header();
        while (peek().kind != token_kind::end)
            parse_module_statement();
        module_ = nullptr;
        return m;
    }

private:
    // --- module level --------------------------------------------------------------------
    void parse_header() {
        const token& t = peek();
        if (t.kind != token_kind::directive || t.text != "version")
            fail(t, "expected '.version' at the start of the PTX, found " + describe(t));
        next();
        const token v = next();
        // `9.0` lexes as a decimal float; take its text apart.
        const auto dot = v.text.find('.');
        auto digits = [](std::string_view s) {
            return !s.empty() && s.size() <= 3 &&
                   std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (v.kind != token_kind::f64 || dot == std::string_view::npos ||
            !digits(v.text.substr(0, dot)) || !digits(v.text.substr(dot + 1)))
            fail(v, "bad .version " + squote(v.text) + " (expected major.minor, e.g. 9.0)");
        module_->version_major = to_u32(v.text.substr(0, dot));
        module_->version_minor = to_u32(v.text.substr(dot + 1));
        if (!accept_directive("target"))
            fail(peek(), "expected '.target' after '.version', found " + describe(peek()));
        const token arch = expect_ident("a target (sm_XX or compute_XX)");
        if (!valid_arch(arch.text))
            fail(arch, "bad target " + squote(arch.text) + " (expected sm_XX or compute_XX)");
        module_->target = std::string(arch.text);
        while (accept(',')) {
            const token o = expect_ident("a target option");
            if (o.text != "debug" && o.text != "texmode_unified" &&
                o.text != "texmode_independent" && o.text != "map_f64_to_f32")
                fail(o, "unknown target option " + squote(o.text));
        }
        if (accept_directive("address_size")) {
            const token a = peek();
            const std::uint64_t n = expect_uint("address size", 64);
            if (n != 32 && n != 64) fail(a, "bad .address_size " + std::string(a.text));
            module_->address_size = static_cast<std::uint32_t>(n);
        }
    }
    static std::uint32_t to_u32(std::string_view s) noexcept {
        std::uint32_t v = 0;
        for (char c : s)
            v = v * 10 + static_cast<std::uint32_t>(c - '0');
        return v;
    }
    static bool valid_arch(std::string_view a) noexcept {
        std::string_view rest;
        if (a.substr(0, 3) == "sm_")
            rest = a.substr(3);
        else if (a.substr(0, 8) == "compute_")
            rest = a.substr(8);
        else
            return false;
        std::size_t i = 0;
        while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9')
            ++i;
        if (i < 2 || i > 3) return false;
        return i == rest.size() || (i + 1 == rest.size() && (rest[i] == 'a' || rest[i] == 'f'));
    }

    void parse_module_statement() {
        const token t = peek();
        if (t.kind != token_kind::directive)
            fail(t, "expected a directive at module scope, found " + describe(t));
        const std::string_view d = t.text;
        if (d == "file" || d == "loc") {
            skip_rest_of_line();
            return;
        }
        if (d == "section") {
            skip_section();
            return;
        }
        if (d == "pragma") {
            skip_pragma();
            return;
        }
        if (d == "version" || d == "target" || d == "address_size")
            fail(t, squote("." + std::string(d)) + " may appear only once, at the start");
        bool is_extern = false;
        bool linkage = false;
        for (;;) {
            const token& l = peek();
            if (l.kind != token_kind::directive) break;
            if (l.text == "extern") {
                is_extern = true;
            } else if (l.text == "visible" || l.text == "weak" || l.text == "common") {
            } else {
                break;
            }
            linkage = true;
            next();
        }
        const token k = peek();
        if (k.kind == token_kind::directive) {
            if (k.text == "entry" || k.text == "func") {
                next();
                parse_function(k, k.text == "entry", is_extern);
                return;
            }
            if (k.text == "global" || k.text == "const" || k.text == "shared" ||
                k.text == "local") {
                next();
                parse_variable_decl(declaration_space(k.text), is_extern, true);
                return;
            }
        }
        fail(k, linkage ? "expected '.entry', '.func' or a variable after the linkage directive, "
                          "found " +
                              describe(k)
                        : "unsupported directive " + describe(k) + " at module scope");
    }

    void skip_section() {
        const token s = next(); // .section
        if (peek().kind != token_kind::directive && peek().kind != token_kind::ident)
            fail(peek(), "expected a section name, found " + describe(peek()));
        next();
        if (!peek().is('{')) fail(peek(), "expected '{' after the section name");
        next();
        int depth = 1;
        while (depth > 0) {
            const token t = next();
            if (t.kind == token_kind::end) fail(s, "unterminated .section (missing '}')");
            if (t.is('{')) ++depth;
            if (t.is('}')) --depth;
        }
    }

    // --- functions ----------------------------------------------------------------------
    void parse_function(const token& kw, bool entry, bool is_extern) {
        function f;
        f.entry = entry;
        f.pos = pos_of(kw);
        if (!entry && peek().is('(')) parse_param_list(f.results, "return parameter list");
        const token n = expect_ident("a function name");
        f.name = std::string(n.text);
        if (peek().is('(')) parse_param_list(f.params, "parameter list");
        // Performance directives and attributes before the body.
        for (;;) {
            const token d = peek();
            if (d.kind != token_kind::directive) break;
            if (d.text == "maxntid" || d.text == "reqntid") {
                next();
                auto& dims = d.text == "maxntid" ? f.maxntid : f.reqntid;
                for (std::size_t i = 0; i < 3; ++i) {
                    dims[i] = static_cast<std::uint32_t>(expect_uint("thread count", 1U << 16));
                    if (!accept(',')) break;
                }
            } else if (d.text == "minnctapersm" || d.text == "maxnctapersm") {
                next();
                f.minnctapersm = static_cast<std::uint32_t>(expect_uint("CTA count", 1U << 16));
            } else if (d.text == "maxnreg") {
                next();
                f.maxnreg = static_cast<std::uint32_t>(expect_uint("register count", 1U << 16));
            } else if (d.text == "noreturn") {
                next();
                f.noreturn = true;
            } else if (d.text == "pragma") {
                skip_pragma();
            } else {
                fail(d, "unsupported function directive " + describe(d));
            }
        }
        // A declaration earlier in the file gives the function its index.
        std::uint32_t index = static_cast<std::uint32_t>(module_->functions.size());
        const auto it = module_symbols_.find(n.text);
        if (it != module_symbols_.end()) {
            if (it->second.kind != symbol_kind::function)
                fail(n, squote(n.text) + " is already declared as a variable");
            index = it->second.index;
            const function& old = module_->functions[index];
            if (old.entry != f.entry || !same_signature(old.params, f.params) ||
                !same_signature(old.results, f.results))
                fail(n, "declaration of " + squote(n.text) + " does not match an earlier one");
            if (!old.blocks.empty() && peek().is('{'))
                fail(n, "function " + squote(n.text) + " is defined twice");
        } else {
            declare_module_symbol(n, symbol_ref{symbol_kind::function, index});
            module_->functions.emplace_back();
        }
        if (accept(';')) {
            if (module_->functions[index].blocks.empty()) {
                f.is_extern = true;
                module_->functions[index] = std::move(f);
            }
            return;
        }
        if (!peek().is('{'))
            fail(peek(),
                 "expected '{' or ';' after the function header, found " + describe(peek()));
        if (is_extern) fail(peek(), "an .extern function cannot have a body");
        module_->functions[index] = std::move(f);
        parse_body(index);
    }
    static bool same_signature(const std::vector<param>& a, const std::vector<param>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].bytes != b[i].bytes || a[i].offset != b[i].offset) return false;
        return true;
    }

    // --- function bodies ----------------------------------------------------------------
    void parse_body(std::uint32_t index) {
        function_ = &module_->functions[index];
        function_->is_extern = false;
        register_names_.clear();
        register_ranges_.clear();
        function_symbols_.clear();
        labels_.clear();
        label_fixups_.clear();
        open_blocks_.clear();
        // Parameters and results are visible in the whole body.
        for (std::uint32_t i = 0; i < function_->params.size(); ++i)
            if (!function_symbols_.declare(function_->params[i].name,
                                           symbol_ref{symbol_kind::param, i}))
                fail(function_->params[i].pos,
                     "parameter " + squote(function_->params[i].name) + " is declared twice");
        for (std::uint32_t i = 0; i < function_->results.size(); ++i)
            if (!function_symbols_.declare(function_->results[i].name,
                                           symbol_ref{symbol_kind::result, i}))
                fail(function_->results[i].pos, "return parameter " +
                                                    squote(function_->results[i].name) +
                                                    " is declared twice");
        const token open = next(); // '{'
        reserve_code(open.offset);
        function_->blocks.push_back(block{0, 0, 0});
        open_blocks_.push_back(0);
        function_symbols_.push();
        register_names_.push();
        open_block_positions_.clear();
        open_block_positions_.push_back(pos_of(open));
        while (!open_blocks_.empty())
            parse_body_statement();
        resolve_labels();
        function_ = nullptr;
    }

    // Instructions are large; reserve room for about one per ';' up to the `}` that starts a
    // line (how nvcc closes a body) so the code vector is not copied as it grows.
    void reserve_code(std::uint32_t from) {
        const std::string_view text = source();
        const std::size_t end = text.find("\n}", from);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        std::size_t semis = 0;
        for (std::size_t i = from; i < stop; ++i)
            semis += text[i] == ';' ? 1U : 0U;
        function_->code.reserve(std::min<std::size_t>(semis, std::size_t{1} << 20));
    }

    void open_block(const token& t) {
        if (open_blocks_.size() >= 64) fail(t, "blocks nested too deeply");
        const auto b = static_cast<std::uint32_t>(function_->blocks.size());
        function_->blocks.push_back(block{open_blocks_.back(), code_size(), 0});
        open_blocks_.push_back(b);
        function_symbols_.push();
        register_names_.push();
        open_block_positions_.push_back(pos_of(t));
    }
    void close_block() {
        const std::uint32_t b = open_blocks_.back();
        function_->blocks[b].end = code_size();
        open_blocks_.pop_back();
        open_block_positions_.pop_back();
        function_symbols_.pop();
        register_names_.pop();
        // Ranges declared in the closed block (at depth open_blocks_.size()) go with it.
        const auto depth = static_cast<std::uint32_t>(open_blocks_.size());
        while (!register_ranges_.empty() && register_ranges_.back().depth >= depth)
            register_ranges_.pop_back();
    }

    void parse_body_statement() {
        const token t = peek();
        switch (t.kind) {
        case token_kind::end:
            fail(open_block_positions_.back(), "unbalanced '{': the function body is not closed");
        case token_kind::punct:
            if (t.is('{')) {
                next();
                open_block(t);
                return;
            }
            if (t.is('}')) {
                next();
                close_block();
                return;
            }
            if (t.is('@')) {
                parse_guarded_instruction();
                return;
            }
            if (t.is(';')) fail(t, "empty statement");
            break;
        case token_kind::directive:
            parse_body_directive();
            return;
        case token_kind::ident: {
            const token w = next();
            if (peek().is(':')) {
                next();
                define_label(w);
                return;
            }
            parse_instruction(w, no_index, false);
            return;
        }
        default:
            break;
        }
        fail(t, "expected an instruction, label or declaration, found " + describe(t));
    }

    void define_label(const token& w) {
        auto [it, inserted] = labels_.try_emplace(w.text, code_size());
        if (!inserted) fail(w, "label " + squote(w.text) + " is defined twice");
        function_->labels.push_back(label{std::string(w.text), code_size()});
    }
    void resolve_labels() {
        for (const label_fixup& fixup : label_fixups_) {
            const auto it = labels_.find(fixup.name);
            if (it == labels_.end()) fail(fixup.pos, "undefined label " + squote(fixup.name));
            function_->code[fixup.instruction_index].operands[fixup.operand_index].index =
                it->second;
        }
    }

    void parse_body_directive() {
        const token d = peek();
        const std::string_view w = d.text;
        if (w == "reg") {
            next();
            parse_reg_decl();
            return;
        }
        if (w == "loc" || w == "file") {
            skip_rest_of_line();
            return;
        }
        if (w == "pragma") {
            skip_pragma();
            return;
        }
        if (w == "shared" || w == "local" || w == "param") {
            next();
            parse_variable_decl(declaration_space(w), false, false);
            return;
        }
        if (w == "global" || w == "const")
            fail(d, "." + std::string(w) + " variables must be declared at module scope");
        if (w == "extern") {
            next();
            if (!accept_directive("shared"))
                fail(peek(), "only .extern .shared variables may be declared in a function");
            parse_variable_decl(space::shared, true, false);
            return;
        }
        fail(d, "unsupported directive " + describe(d) + " in a function body");
    }

    void parse_reg_decl() {
        const token& first = peek();
        if (first.kind == token_kind::directive && (first.text == "v2" || first.text == "v4"))
            fail(first,
                 "vector registers (.reg ." + std::string(first.text) + ") are not supported");
        const type t = expect_type(".reg declaration");
        for (;;) {
            const token n = expect_ident("a register name");
            if (n.text == "_") fail(n, "'_' cannot be declared as a register");
            if (accept('<')) {
                const token c = peek();
                const std::uint64_t count = expect_uint("register count", 1U << 20);
                expect('>', "after the register count");
                if (function_->registers.size() + count > (1U << 22))
                    fail(c, "too many registers in one function");
                if (n.text.back() >= '0' && n.text.back() <= '9')
                    fail(n, "a register range prefix cannot end in a digit");
                const auto depth = static_cast<std::uint32_t>(open_blocks_.size() - 1);
                for (const auto& r : register_ranges_)
                    if (r.depth == depth && r.prefix == n.text)
                        fail(n, "registers " + squote(std::string(n.text) + "<N>") +
                                    " are already declared in this scope");
                const auto base = static_cast<std::uint32_t>(function_->registers.size());
                register_ranges_.push_back(
                    register_range{n.text, base, static_cast<std::uint32_t>(count), depth});
                std::string name_buf(n.text);
                for (std::uint64_t i = 0; i < count; ++i) {
                    name_buf.resize(n.text.size());
                    name_buf += std::to_string(i);
                    function_->registers.push_back(register_decl{name_buf, t, open_blocks_.back()});
                }
            } else {
                const auto idx = static_cast<std::uint32_t>(function_->registers.size());
                if (in_range_here(n.text) || !register_names_.declare(n.text, idx))
                    fail(n, "register " + squote(n.text) + " is already declared in this scope");
                if (function_->registers.size() + 1 > (1U << 22))
                    fail(n, "too many registers in one function");
                function_->registers.push_back(
                    register_decl{std::string(n.text), t, open_blocks_.back()});
            }
            if (!accept(',')) break;
        }
        expect(';', "after the .reg declaration");
    }
};

} // namespace warpkit::ptx::detail
