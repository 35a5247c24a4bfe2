#pragma once
/// \file
/// The declaration level of the PTX parser: variables (`.global .align 4 .b8 name[16] = {...};`,
/// in a module or a function body) with their initialisers, and function parameters with
/// their offsets. Module symbols are declared here too.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/cursor.hpp>
#include <warpkit/ptx/parse/instructions.hpp>
#include <warpkit/ptx/parse/scopes.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::ptx::detail {

/// `v` rounded up to a multiple of `a` (a parameter offset to its alignment).
[[nodiscard]] constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

/// Reads variable and parameter declarations (below the module and function grammar, above
/// the instructions: see grammar.hpp).
class declaration_parser : public instruction_parser {
public:
    using instruction_parser::instruction_parser;

protected:
    // --- variables ----------------------------------------------------------------------
    struct variable_attributes {
        type t = type::none;
        std::uint32_t align = 0;
        std::uint32_t vec = 1;
        bool ptr = false;
        space ptr_space = space::none;
    };
    variable_attributes parse_var_attrs(std::string_view context, bool allow_ptr) {
        variable_attributes a;
        for (;;) {
            const token t = peek();
            if (t.kind != token_kind::directive) break;
            if (t.text == "align") {
                next();
                const token n = peek();
                const std::uint64_t v = expect_uint("alignment", 1U << 16);
                if (v == 0 || (v & (v - 1)) != 0)
                    fail(n, "alignment " + std::string(n.text) + " is not a power of two");
                a.align = static_cast<std::uint32_t>(v);
                continue;
            }
            if (t.text == "v2" || t.text == "v4") {
                next();
                a.vec = t.text == "v2" ? 2 : 4;
                continue;
            }
            if (t.text == "attribute" && context == ".global declaration") {
                // `.attribute(.managed)` (CUDA's __managed__) and `.attribute(.unified(a, b))`:
                // to the device an ordinary .global variable; the host runtime keeps the
                // host's copy coherent.
                next();
                expect('(', "after .attribute");
                if (accept_directive("unified")) {
                    expect('(', "after .unified");
                    (void)expect_uint("a .unified identifier", ~std::uint64_t{0});
                    expect(',', "between the .unified identifiers");
                    (void)expect_uint("a .unified identifier", ~std::uint64_t{0});
                    expect(')', "after the .unified identifiers");
                } else if (!accept_directive("managed")) {
                    fail(peek(),
                         "expected .managed or .unified in .attribute, found " + describe(peek()));
                }
                expect(')', "after the .attribute");
                continue;
            }
            if (allow_ptr && t.text == "ptr") {
                next();
                a.ptr = true;
                continue;
            }
            if (allow_ptr && a.ptr &&
                (t.text == "global" || t.text == "shared" || t.text == "const" ||
                 t.text == "local")) {
                next();
                a.ptr_space = declaration_space(t.text);
                continue;
            }
            if (a.t != type::none) break;
            a.t = expect_type(context);
        }
        if (a.t == type::none)
            fail(peek(),
                 "expected a type in " + std::string(context) + ", found " + describe(peek()));
        return a;
    }

    // `[N]`, `[N][M]`, `[]`: element count (0 with `open` set for `[]`).
    std::uint64_t parse_dims(bool& open, bool& array) {
        std::uint64_t count = 1;
        open = false;
        array = false;
        while (peek().is('[')) {
            array = true;
            next();
            if (peek().is(']')) {
                if (open) fail(peek(), "only the first dimension may be left open");
                open = true;
                next();
                continue;
            }
            const std::uint64_t n = expect_uint("array size", std::uint64_t{1} << 32);
            count *= n;
            if (count > (std::uint64_t{1} << 32)) fail(peek(), "array too large");
            expect(']', "after the array size");
        }
        return count;
    }

    // `.global .align 4 .b8 name[16] = {...};` (the space directive already read).
    void parse_variable_decl(space sp, bool is_extern, bool module_scope) {
        const std::string context = "." + std::string(name(sp)) + " declaration";
        const variable_attributes a = parse_var_attrs(context, false);
        if (a.t == type::pred && sp != space::reg)
            fail(peek(), ".pred variables are not allowed in ." + std::string(name(sp)));
        for (;;) {
            const token n = expect_ident("a variable name");
            variable v;
            v.name = std::string(n.text);
            v.sp = sp;
            v.t = a.t;
            const std::uint64_t elem = std::uint64_t{size_of(a.t)} * a.vec;
            v.align = a.align != 0 ? a.align : static_cast<std::uint32_t>(elem);
            v.is_extern = is_extern;
            v.pos = pos_of(n);
            bool open = false, array = false;
            std::uint64_t count = parse_dims(open, array);
            if (accept('=')) {
                if (is_extern) fail(n, "an .extern variable cannot have an initialiser");
                if (sp != space::global && sp != space::constant)
                    fail(n, "only .global and .const variables can have initialisers");
                std::vector<std::uint8_t> bytes;
                parse_initialiser(a.t, bytes);
                const std::uint64_t given = bytes.size() / size_of(a.t);
                if (open) count = (given + a.vec - 1) / a.vec;
                if (given > count * a.vec)
                    fail(n, "too many initialisers for " + squote(n.text) + " (" +
                                std::to_string(given) + " for " + std::to_string(count * a.vec) +
                                " elements)");
                bytes.resize(count * elem, 0);
                v.init = std::move(bytes);
            } else if (open && !is_extern) {
                fail(n, squote(n.text) + " has an open array size but no initialiser");
            }
            v.bytes = open && v.init.empty() ? 0 : count * elem;
            if (module_scope) {
                declare_module_symbol(
                    n, symbol_ref{symbol_kind::module_var,
                                  static_cast<std::uint32_t>(module_->variables.size())});
                module_->variables.push_back(std::move(v));
            } else {
                v.block = open_blocks_.back();
                if (!function_symbols_.declare(
                        n.text,
                        symbol_ref{symbol_kind::function_var,
                                   static_cast<std::uint32_t>(function_->variables.size())}))
                    fail(n, squote(n.text) + " is already declared in this scope");
                function_->variables.push_back(std::move(v));
            }
            if (!accept(',')) break;
        }
        expect(';', "after the declaration");
    }

    void parse_initialiser(type t, std::vector<std::uint8_t>& out) {
        if (peek().is('{')) {
            const token open = next();
            if (!peek().is('}')) {
                for (;;) {
                    parse_initialiser(t, out);
                    if (!accept(',')) break;
                }
            }
            if (!peek().is('}')) fail(peek(), "expected '}' or ',' in the initialiser list");
            next();
            static_cast<void>(open);
            return;
        }
        const token first = peek();
        bool neg = false;
        if (accept('-')) neg = true;
        const token v = peek();
        std::uint64_t bits = 0;
        const unsigned size = size_of(t);
        if (v.kind == token_kind::integer) {
            next();
            if (is_float(t)) {
                double d = static_cast<double>(v.value);
                if (neg) d = -d;
                bits = float_bits(t, d);
            } else {
                const unsigned width = 8 * size;
                const bool fits = width == 64 || (neg ? v.value <= (std::uint64_t{1} << (width - 1))
                                                      : v.value < (std::uint64_t{1} << width));
                if (!fits)
                    fail(first, "initialiser " + std::string(neg ? "-" : "") + std::string(v.text) +
                                    " does not fit in ." + std::string(name(t)));
                bits = neg ? ~v.value + 1 : v.value;
            }
        } else if (v.kind == token_kind::f32 || v.kind == token_kind::f64) {
            next();
            if (!is_float(t))
                fail(first,
                     "floating-point initialiser for a ." + std::string(name(t)) + " variable");
            double d = 0;
            if (v.kind == token_kind::f32) {
                float f = 0;
                const auto b32 = static_cast<std::uint32_t>(v.value);
                std::memcpy(&f, &b32, sizeof f);
                d = static_cast<double>(f);
                if (t == type::f32) bits = v.value ^ (neg ? 0x80000000U : 0U);
            } else {
                std::memcpy(&d, &v.value, sizeof d);
                if (t == type::f64) bits = v.value ^ (neg ? std::uint64_t{1} << 63 : 0U);
            }
            if (neg) d = -d;
            if ((v.kind == token_kind::f32 && t != type::f32) ||
                (v.kind == token_kind::f64 && t != type::f64))
                bits = float_bits(t, d);
        } else if (v.kind == token_kind::ident) {
            fail(v, "address initialisers (" + squote(v.text) + ") are not supported");
        } else {
            fail(v, "expected an initialiser value, found " + describe(v));
        }
        if (out.size() > (std::uint64_t{1} << 32)) fail(v, "initialiser too large");
        for (unsigned i = 0; i < size; ++i)
            out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }
    static std::uint64_t float_bits(type t, double d) noexcept {
        if (t == type::f64) {
            std::uint64_t b = 0;
            std::memcpy(&b, &d, sizeof b);
            return b;
        }
        if (t == type::f32) {
            const auto f = static_cast<float>(d);
            std::uint32_t b = 0;
            std::memcpy(&b, &f, sizeof b);
            return b;
        }
        return f32_to_f16(static_cast<float>(d));
    }
    static std::uint16_t f32_to_f16(float f) noexcept {
        // Round to nearest even; overflow -> infinity; subnormals kept.
        std::uint32_t x = 0;
        std::memcpy(&x, &f, sizeof x);
        const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000U);
        const std::uint32_t exp = (x >> 23) & 0xffU;
        std::uint32_t man = x & 0x7fffffU;
        if (exp == 0xff)
            return static_cast<std::uint16_t>(sign | 0x7c00U | (man != 0 ? 0x200U : 0U));
        const int e = static_cast<int>(exp) - 127 + 15;
        if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00U);
        if (e <= 0) {
            if (e < -10) return sign;
            man |= 0x800000U;
            const auto shift = static_cast<unsigned>(14 - e);
            std::uint32_t h = man >> shift;
            const std::uint32_t rem = man & ((1U << shift) - 1U);
            const std::uint32_t half = 1U << (shift - 1U);
            if (rem > half || (rem == half && (h & 1U) != 0)) ++h;
            return static_cast<std::uint16_t>(sign | h);
        }
        std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
        const std::uint32_t rem = man & 0x1fffU;
        if (rem > 0x1000U || (rem == 0x1000U && (h & 1U) != 0)) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }

    void declare_module_symbol(const token& n, symbol_ref r) {
        auto [it, inserted] = module_symbols_.try_emplace(n.text, r);
        if (!inserted) fail(n, squote(n.text) + " is already declared");
    }

    // --- functions ----------------------------------------------------------------------
    // `.param .u64 .ptr .global .align 8 name[N]` (the `.param` already read).
    param parse_param(std::string_view context) {
        const variable_attributes a = parse_var_attrs(context, true);
        if (a.vec != 1) fail(peek(), "vector parameters are not supported");
        if (a.t == type::pred) fail(peek(), ".pred parameters are not supported");
        const token n = expect_ident("a parameter name");
        bool open = false, array = false;
        const std::uint64_t count = parse_dims(open, array);
        if (open) fail(n, "parameter " + squote(n.text) + " needs a size");
        param p;
        p.name = std::string(n.text);
        p.t = a.t;
        const std::uint64_t bytes = count * size_of(a.t);
        if (bytes > (1U << 20)) fail(n, "parameter " + squote(n.text) + " is too large");
        p.bytes = static_cast<std::uint32_t>(bytes);
        p.align = std::max(a.align, size_of(a.t));
        p.pos = pos_of(n);
        return p;
    }
    void parse_param_list(std::vector<param>& out, std::string_view context) {
        expect('(', std::string("to open the ") + std::string(context));
        std::uint64_t end = 0;
        if (!peek().is(')')) {
            for (;;) {
                const token d = peek();
                if (d.kind != token_kind::directive || d.text != "param") {
                    if (d.kind == token_kind::directive && d.text == "reg")
                        fail(d, ".reg parameters are not supported (only .param)");
                    fail(d, "expected '.param' in the " + std::string(context) + ", found " +
                                describe(d));
                }
                next();
                param p = parse_param(context);
                p.offset = static_cast<std::uint32_t>(align_up(end, p.align));
                end = std::uint64_t{p.offset} + p.bytes;
                if (end > (1U << 24)) fail(d, "parameter space too large");
                out.push_back(std::move(p));
                if (!accept(',')) break;
            }
        }
        expect(')', std::string("to close the ") + std::string(context));
    }
};

} // namespace warpkit::ptx::detail
