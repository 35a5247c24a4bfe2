#pragma once
/// \file
/// The instruction level of the PTX parser: a mnemonic, its dotted modifiers and its operands
/// become one ptx::instruction. Each modifier word has a class (words.hpp); the opcode must
/// take that class (legality.hpp); modifier_fields says which instruction field the class
/// fills; the rules between modifiers (modifier_rules.hpp) are checked once all are in.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/lexer.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parse/cursor.hpp>
#include <warpkit/ptx/parse/legality.hpp>
#include <warpkit/ptx/parse/matrix_instructions.hpp>
#include <warpkit/ptx/parse/modifier_rules.hpp>
#include <warpkit/ptx/parse/operands.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace warpkit::ptx::detail {

/// Writes a modifier's value into the instruction field `Field` (a bool field is set by any
/// value but 0: `.l` is 1, `.r` 0).
template <auto Field>
constexpr void store_modifier(instruction& in, std::uint8_t value) noexcept {
    using field_type = std::remove_cvref_t<decltype(in.*Field)>;
    if constexpr (std::is_same_v<field_type, bool>)
        in.*Field = value != 0;
    else
        in.*Field = static_cast<field_type>(value);
}

/// What the modifiers of one class do to an instruction.
struct modifier_field {
    modifier_class cls = modifier_class::none;
    /// Writes the modifier's value; nullptr: accepted and dropped (its presence still counts,
    /// e.g. `.sync`, which the rules require of shfl and vote).
    void (*store)(instruction&, std::uint8_t) noexcept = nullptr;
    /// The class whose field it fills: a second modifier filling the same field conflicts
    /// (`.gl` and the scopes fill the scope).
    modifier_class fills = cls;
    bool repeatable = false; ///< may be written more than once (cache-policy qualifiers)
};

/// One row per modifier_class, in its order. Types are not here: apply_modifiers places them.
inline constexpr std::array<modifier_field, modifier_class_count> modifier_fields{{
    {modifier_class::type},
    {modifier_class::bad_type},
    {modifier_class::space, &store_modifier<&instruction::sp>},
    {modifier_class::rnd, &store_modifier<&instruction::rnd>},
    {modifier_class::cmp, &store_modifier<&instruction::compare>},
    {modifier_class::boolop, &store_modifier<&instruction::combine>},
    {modifier_class::mulmode, &store_modifier<&instruction::mode>},
    {modifier_class::aop, &store_modifier<&instruction::aop>},
    {modifier_class::shfl, &store_modifier<&instruction::shfl>},
    {modifier_class::vote, &store_modifier<&instruction::vote>},
    {modifier_class::order, &store_modifier<&instruction::sem>},
    {modifier_class::scope, &store_modifier<&instruction::sc>},
    {modifier_class::gl, &store_modifier<&instruction::sc>, modifier_class::scope},
    {modifier_class::ftz, &store_modifier<&instruction::ftz>},
    {modifier_class::sat, &store_modifier<&instruction::sat>},
    {modifier_class::approx, &store_modifier<&instruction::approx>},
    {modifier_class::full, &store_modifier<&instruction::full>},
    {modifier_class::nc, &store_modifier<&instruction::nc>},
    {modifier_class::to, &store_modifier<&instruction::to>},
    {modifier_class::cc, &store_modifier<&instruction::cc>},
    {modifier_class::shf_dir, &store_modifier<&instruction::shift_left>},
    {modifier_class::shf_mode, &store_modifier<&instruction::wrap>},
    {modifier_class::sync},
    {modifier_class::arrive, &store_modifier<&instruction::arrive>},
    {modifier_class::warp, &store_modifier<&instruction::warp>},
    {modifier_class::aligned},
    {modifier_class::shiftamt, &store_modifier<&instruction::shiftamt>},
    {modifier_class::test, &store_modifier<&instruction::test>},
    {modifier_class::vec, &store_modifier<&instruction::vec>},
    {modifier_class::uni, &store_modifier<&instruction::uni>},
    {modifier_class::cache, nullptr, modifier_class::cache, true},
    {modifier_class::level},
    {modifier_class::geom, &store_modifier<&instruction::geom>},
    {modifier_class::none},
}};

/// Whether every row of modifier_fields stands at its class's index.
[[nodiscard]] constexpr bool modifier_fields_in_class_order() noexcept {
    for (std::size_t i = 0; i < modifier_fields.size(); ++i)
        if (static_cast<std::size_t>(modifier_fields[i].cls) != i) return false;
    return true;
}
static_assert(modifier_fields_in_class_order());

/// A modifier as the instruction takes it: its class and value (class none: not taken).
struct resolved_modifier {
    modifier_class cls = modifier_class::none;
    std::uint8_t value = 0;
};

/// What modifier `text` means to an opcode that accepts `accepted`: its first meaning the
/// opcode takes, or a cache-policy qualifier such as `L2::128B`.
[[nodiscard]] constexpr resolved_modifier
resolve_modifier(std::string_view text, const opcode_legality& accepted) noexcept {
    if (const modifier_word* word = modifier_words.find(text)) {
        if (accepted.takes(word->primary)) return {word->primary, word->primary_value};
        if (word->alternative != modifier_class::none && accepted.takes(word->alternative))
            return {word->alternative, word->alternative_value};
        return {};
    }
    if (accepted.takes(modifier_class::cache) &&
        (text.substr(0, 4) == "L1::" || text.substr(0, 4) == "L2::"))
        return {modifier_class::cache, 0};
    return {};
}

/// Reads instructions (with an optional guard) into the current function.
class instruction_parser : public matrix_instruction_parser {
public:
    using matrix_instruction_parser::matrix_instruction_parser;

protected:
    void parse_guarded_instruction() {
        next(); // '@'
        const bool negated = accept('!');
        const token predicate = expect_ident("a guard predicate");
        const std::uint32_t guard = find_register(predicate.text);
        if (guard == no_index)
            fail(predicate, "undeclared register " + squote(predicate.text) + " in the guard");
        if (function_->registers[guard].t != type::pred)
            fail(predicate, "guard " + squote(predicate.text) + " is not a .pred register");
        const token opcode_token = expect_ident("an instruction after the guard");
        if (peek().is(':')) fail(opcode_token, "a label cannot be guarded");
        parse_instruction(opcode_token, guard, negated);
    }

    [[noreturn]] void unsupported(const token& mn, std::string_view full) const {
        fail(mn, "unsupported instruction " + squote(full));
    }

    void parse_instruction(const token& mn, std::uint32_t guard, bool guard_neg) {
        // Collect the dotted modifiers first so every message can show the whole mnemonic.
        std::array<token, 12> modifiers{};
        std::size_t modifier_count = 0;
        std::uint32_t end = mn.offset + static_cast<std::uint32_t>(mn.text.size());
        while (peek().kind == token_kind::directive) {
            const token m = next();
            if (modifier_count == modifiers.size()) fail(m, "too many modifiers");
            modifiers[modifier_count++] = m;
            end = m.offset + 1 + static_cast<std::uint32_t>(m.text.size());
        }
        const std::string_view full = source().substr(mn.offset, end - mn.offset);
        const bool matrix = is_matrix_mnemonic(mn.text);
        const opcode_word* word = opcode_words.find(mn.text);
        const opcode_legality* accepted = opcode_legality_table.find(mn.text);
        if (!matrix && (word == nullptr || accepted == nullptr)) unsupported(mn, full);

        if (function_->code.size() >= (1U << 24)) fail(mn, "too many instructions in one function");
        instruction& in = function_->code.emplace_back();
        in.guard = guard;
        in.guard_negated = guard_neg;
        in.pos = pos_of(mn);
        if (matrix) {
            parse_matrix_instruction(in, mn, full,
                                     std::span<const token>(modifiers.data(), modifier_count));
            return;
        }
        in.opcode = word->value;
        // Modifiers into fields, the default state space, the rules between modifiers (which
        // only read), then what the rules allow but the instruction does not keep.
        const modifier_set given = apply_modifiers(
            *accepted, in, mn, full, std::span<const token>(modifiers.data(), modifier_count));
        default_to_generic_space(in, *accepted);
        const std::string_view violation = modifier_rule_violation(in, given);
        if (!violation.empty()) fail(mn, squote(full) + ": " + std::string(violation));
        drop_barrier_scope(in);
        if (in.opcode == op::call)
            parse_call(in, mn, full);
        else
            parse_operands(in, mn, full);
    }

    // Writes each modifier into its field (modifier_fields) and the types into t and t2;
    // returns the classes written (the rules ask whether .sync, .l/.r ... were).
    modifier_set apply_modifiers(const opcode_legality& accepted, instruction& in, const token& mn,
                                 std::string_view full, std::span<const token> modifiers) {
        modifier_set given = 0;
        unsigned types = 0;
        for (const token& m : modifiers) {
            const resolved_modifier modifier = resolve_modifier(m.text, accepted);
            if (modifier.cls == modifier_class::none) reject_modifier(accepted, in, m, full);
            if (modifier.cls == modifier_class::bad_type)
                fail(m, "unsupported type " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            if (modifier.cls == modifier_class::type) {
                apply_type(accepted, in, m, full, static_cast<type>(modifier.value), types);
                ++types;
                continue;
            }
            const modifier_field& field = modifier_fields[static_cast<std::size_t>(modifier.cls)];
            if (!field.repeatable && (given & class_bit(field.fills)) != 0)
                fail(m, "conflicting modifier " + squote("." + std::string(m.text)) + " in " +
                            squote(full));
            given |= class_bit(field.fills);
            if (field.store != nullptr) field.store(in, modifier.value);
        }
        if (accepted.types != 0 && types == 0) fail(mn, squote(full) + " needs a type");
        if (accepted.second_types != 0 && types == 1) fail(mn, squote(full) + " needs two types");
        return given;
    }

    // A modifier the opcode does not take.
    [[noreturn]] void reject_modifier(const opcode_legality& accepted, const instruction& in,
                                      const token& m, std::string_view full) const {
        const modifier_word* word = modifier_words.find(m.text);
        if (word != nullptr && word->primary == modifier_class::type && accepted.types == 0)
            fail(m, squote(std::string(name(in.opcode))) + " takes no type: " + squote(full));
        fail(m,
             "unsupported modifier " + squote("." + std::string(m.text)) + " in " + squote(full));
    }

    // The type `t` as the instruction's type number `position` (0: t, 1: t2).
    void apply_type(const opcode_legality& accepted, instruction& in, const token& m,
                    std::string_view full, type t, unsigned position) const {
        if (position >= accepted.type_count()) fail(m, "too many types in " + squote(full));
        if (!accepted.allows(t, position))
            fail(m, "type " + squote("." + std::string(m.text)) + " is not allowed in " +
                        squote(full));
        (position == 0 ? in.t : in.t2) = t;
    }
};

} // namespace warpkit::ptx::detail
