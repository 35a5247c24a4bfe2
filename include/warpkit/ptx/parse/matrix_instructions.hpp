#pragma once
/// \file
/// The warp-level matrix instructions in the PTX parser: `wmma.load`, `wmma.store`,
/// `wmma.mma` and `mma.sync`, whose modifiers follow a fixed grammar of their own (a role, a
/// shape, layouts and up to four element formats, `.bf16` among them) instead of the modifier
/// classes of the other instructions, and whose operands are fragments of up to eight
/// registers. Forms outside the supported set (ptx/matrix.hpp) are refused as unsupported,
/// naming the modifier at its position; malformed ones (a missing `.sync`, a fragment of the
/// wrong size or register type) get their own message.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/cursor.hpp>
#include <warpkit/ptx/parse/operand_rules.hpp>
#include <warpkit/ptx/parse/operands.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace warpkit::ptx::detail {

/// A modifier word a matrix instruction accepts at some point of its grammar and its value.
template <class E>
struct matrix_choice {
    std::string_view word;
    E value;
};

/// Reads matrix instructions (their mnemonic `wmma` or `mma` and dotted modifiers given).
class matrix_instruction_parser : public operand_parser {
public:
    using operand_parser::operand_parser;

protected:
    /// Whether `mnemonic` starts a matrix instruction.
    [[nodiscard]] static bool is_matrix_mnemonic(std::string_view mnemonic) noexcept {
        return mnemonic == "wmma" || mnemonic == "mma";
    }

    /// Fills `in` (guard and position already set) from the modifiers `words` of mnemonic `mn`
    /// (`full`: the whole mnemonic as written) and the operands up to the `;`.
    void parse_matrix_instruction(instruction& in, const token& mn, std::string_view full,
                                  std::span<const token> words) {
        matrix_words_ = words;
        matrix_at_ = 0;
        matrix_mn_ = mn;
        matrix_full_ = full;
        if (mn.text == "mma")
            read_mma_modifiers(in);
        else
            read_wmma_modifiers(in);
        if (matrix_at_ < words.size())
            fail(words[matrix_at_], "unsupported instruction " + squote(full) + ": unexpected " +
                                        describe(words[matrix_at_]));
        parse_matrix_operands(in);
    }

private:
    // The next modifier, which must be one of `choices` (`what` names its place in messages).
    template <class E, std::size_t N>
    E take(std::string_view what, const std::array<matrix_choice<E>, N>& choices) {
        std::string listed;
        for (const auto& c : choices)
            listed += (listed.empty() ? "." : ", .") + std::string(c.word);
        if (matrix_at_ == matrix_words_.size())
            fail(matrix_mn_,
                 squote(matrix_full_) + " needs " + std::string(what) + " (" + listed + ")");
        const token& word = matrix_words_[matrix_at_];
        for (const auto& c : choices)
            if (word.text == c.word) {
                ++matrix_at_;
                return c.value;
            }
        fail(word, "unsupported instruction " + squote(matrix_full_) + ": " + describe(word) +
                       " as " + std::string(what) + " (supported: " + listed + ")");
    }
    // `.sync.aligned`, which every matrix instruction carries.
    void take_sync_aligned() {
        take("'.sync'", std::array{matrix_choice<bool>{"sync", true}});
        take("'.aligned'", std::array{matrix_choice<bool>{"aligned", true}});
    }

    static constexpr std::array<matrix_choice<matrix_layout>, 2> layouts{
        {{"row", matrix_layout::row}, {"col", matrix_layout::col}}};
    static constexpr std::array<matrix_choice<matrix_format>, 2> half_or_single{
        {{"f16", matrix_format::f16}, {"f32", matrix_format::f32}}};

    // wmma.load.{a,b,c} / wmma.store.d: .sync.aligned.layout.shape{.space}.type;
    // wmma.mma: .sync.aligned.alayout.blayout.shape.dtype.ctype.
    void read_wmma_modifiers(instruction& in) {
        in.opcode = take("the operation", std::array{matrix_choice<op>{"load", op::wmma_load},
                                                     matrix_choice<op>{"store", op::wmma_store},
                                                     matrix_choice<op>{"mma", op::wmma_mma}});
        matrix_form& f = in.matrix;
        const auto shape =
            std::array{matrix_choice<matrix_shape>{"m16n16k16", matrix_shape::m16n16k16}};
        if (in.opcode == op::wmma_mma) {
            take_sync_aligned();
            f.layout_a = take("the layout of A", layouts);
            f.layout_b = take("the layout of B", layouts);
            f.shape = take("the shape", shape);
            f.ab = matrix_format::f16;
            f.d = take("the type of D", half_or_single);
            f.c = take("the type of C", half_or_single);
            return;
        }
        f.role =
            in.opcode == op::wmma_load
                ? take("the matrix", std::array{matrix_choice<matrix_role>{"a", matrix_role::a},
                                                matrix_choice<matrix_role>{"b", matrix_role::b},
                                                matrix_choice<matrix_role>{"c", matrix_role::c}})
                : take("the matrix", std::array{matrix_choice<matrix_role>{"d", matrix_role::d}});
        take_sync_aligned();
        f.layout_a = take("the layout", layouts);
        f.shape = take("the shape", shape);
        in.sp = space::generic;
        if (matrix_at_ < matrix_words_.size()) {
            const std::string_view w = matrix_words_[matrix_at_].text;
            if (w == "global" || w == "shared" || w == "shared::cta") {
                in.sp = w == "global" ? space::global : space::shared;
                ++matrix_at_;
            }
        }
        if (f.role == matrix_role::a || f.role == matrix_role::b)
            f.ab = take("the type",
                        std::array{matrix_choice<matrix_format>{"f16", matrix_format::f16}});
        else
            (f.role == matrix_role::c ? f.c : f.d) = take("the type", half_or_single);
    }

    // mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype.
    void read_mma_modifiers(instruction& in) {
        in.opcode = op::mma;
        matrix_form& f = in.matrix;
        take_sync_aligned();
        f.shape = take("the shape",
                       std::array{matrix_choice<matrix_shape>{"m16n8k8", matrix_shape::m16n8k8},
                                  matrix_choice<matrix_shape>{"m16n8k16", matrix_shape::m16n8k16}});
        f.layout_a = take("the layout of A",
                          std::array{matrix_choice<matrix_layout>{"row", matrix_layout::row}});
        f.layout_b = take("the layout of B",
                          std::array{matrix_choice<matrix_layout>{"col", matrix_layout::col}});
        const std::array<matrix_choice<matrix_format>, 2> inputs{
            {{"f16", matrix_format::f16}, {"bf16", matrix_format::bf16}}};
        f.d = take("the type of D", half_or_single);
        const std::size_t a_at = matrix_at_;
        f.ab = take("the type of A", inputs);
        if (take("the type of B", inputs) != f.ab)
            fail(matrix_words_[a_at + 1], "unsupported instruction " + squote(matrix_full_) +
                                              ": A and B of different types");
        const std::size_t c_at = matrix_at_;
        f.c = take("the type of C", half_or_single);
        // The ISA allows D and C of different types only in .m8n8k4, which is not supported.
        if (f.c != f.d)
            fail(matrix_words_[c_at], squote(matrix_full_) + ": D and C have different types (." +
                                          std::string(name(f.d)) + ", ." + std::string(name(f.c)) +
                                          "); ." + std::string(name(f.shape)) + " needs one type");
        if (f.ab == matrix_format::bf16 && (f.c != matrix_format::f32 || f.d != matrix_format::f32))
            fail(matrix_mn_, "unsupported instruction " + squote(matrix_full_) +
                                 ": .bf16 inputs accumulate in .f32 (D and C)");
    }

    // A ',' between operands (`count` read so far, `total` expected).
    void matrix_comma(std::size_t count, std::size_t total) {
        if (peek().is(';'))
            fail(matrix_mn_, squote(matrix_full_) + " expects " + std::to_string(total) +
                                 " operands, found " + std::to_string(count));
        if (!peek().is(','))
            fail(peek(), "expected ',' between operands of " + squote(matrix_full_) + ", found " +
                             describe(peek()));
        next();
    }

    // The fragment of matrix `role` as the next operand: its register count and types checked.
    void matrix_fragment(instruction& in, matrix_role role, bool dest) {
        const token at = peek();
        const std::size_t slot = in.num_operands;
        operand& o = in.operands[in.num_operands++];
        parse_vector(in, o, at, matrix_full_, slot, dest);
        const unsigned wanted = fragment_registers(in.opcode, in.matrix, role);
        const matrix_format format = fragment_format(in.matrix, role);
        if (o.count != wanted)
            fail(at, squote(matrix_full_) + ": the fragment of " +
                         std::string(role == matrix_role::a   ? "A"
                                     : role == matrix_role::b ? "B"
                                     : role == matrix_role::c ? "C"
                                                              : "D") +
                         " has " + std::to_string(wanted) + " registers, found " +
                         std::to_string(o.count));
        for (std::uint8_t e = 0; e < o.count; ++e) {
            if (o.elements[e] == no_index) continue;
            const register_decl& r = function_->registers[o.elements[e]];
            const bool fits = format == matrix_format::f32 ? register_fits(r.t, type::f32, false)
                                                           : bits(r.t) == 32;
            if (!fits)
                fail(at, ordinal(slot) + " of " + squote(matrix_full_) + ": element " +
                             squote(r.name) + " is ." + std::string(name(r.t)) + "; " +
                             (format == matrix_format::f32
                                  ? "an .f32 fragment needs .f32 or .b32 registers"
                                  : "a fragment of ." + std::string(name(format)) +
                                        " pairs needs 32-bit registers"));
        }
    }

    // The optional stride of wmma.load / wmma.store: a 32-bit integer register or immediate.
    void matrix_stride(instruction& in) {
        if (!accept(',')) return;
        const token at = peek();
        const std::size_t slot = in.num_operands;
        operand& o = in.operands[in.num_operands++];
        parse_source(in, o, at, matrix_full_, slot, false, false);
        const bool integer = o.k == operand::kind::imm
                                 ? o.immediate == imm_kind::integer
                                 : register_fits(function_->registers[o.reg].t, type::u32, false);
        if (!integer)
            fail(at, ordinal(slot) + " of " + squote(matrix_full_) +
                         " (the stride) must be a 32-bit integer register or integer immediate");
    }

    void parse_matrix_operands(instruction& in) {
        const matrix_role role = in.matrix.role;
        switch (in.opcode) {
        case op::wmma_load:
            matrix_fragment(in, role, true);
            matrix_comma(1, 2);
            parse_memory(in, in.operands[in.num_operands], peek(), matrix_full_, 1);
            ++in.num_operands;
            matrix_stride(in);
            break;
        case op::wmma_store:
            parse_memory(in, in.operands[in.num_operands], peek(), matrix_full_, 0);
            ++in.num_operands;
            matrix_comma(1, 2);
            matrix_fragment(in, role, false);
            matrix_stride(in);
            break;
        default: {
            constexpr std::array<matrix_role, 4> order{matrix_role::d, matrix_role::a,
                                                       matrix_role::b, matrix_role::c};
            for (std::size_t i = 0; i < order.size(); ++i) {
                if (i > 0) matrix_comma(i, order.size());
                matrix_fragment(in, order[i], i == 0);
            }
            break;
        }
        }
        if (!peek().is(';')) {
            if (peek().is(',')) fail(peek(), squote(matrix_full_) + " expects fewer operands");
            fail(peek(),
                 "expected ';' after " + squote(matrix_full_) + ", found " + describe(peek()));
        }
        next();
    }

    std::span<const token> matrix_words_{};
    std::size_t matrix_at_ = 0;
    token matrix_mn_{};
    std::string_view matrix_full_{};
};

} // namespace warpkit::ptx::detail
