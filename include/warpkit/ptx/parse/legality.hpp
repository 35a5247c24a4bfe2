#pragma once
/// \file
/// Which modifier classes and types each PTX opcode accepts, as one table keyed by the
/// mnemonics of words.hpp (every opcode word has a row; a test checks it). The rules between
/// modifiers that a table cannot express (`.sat` only with `mad.hi.s32`, a float `mad` needs a
/// rounding mode, ...) are in modifier_rules.hpp.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/parse/words.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace warpkit::ptx::detail {

/// A set of instruction types, one bit each.
using type_set = std::uint32_t;
/// The set holding only `t`.
[[nodiscard]] constexpr type_set type_bit(type t) noexcept {
    return type_set{1} << static_cast<unsigned>(t);
}

inline constexpr type_set pred_types = type_bit(type::pred);
inline constexpr type_set bit_types =
    type_bit(type::b16) | type_bit(type::b32) | type_bit(type::b64);
inline constexpr type_set unsigned_types =
    type_bit(type::u16) | type_bit(type::u32) | type_bit(type::u64);
inline constexpr type_set signed_types =
    type_bit(type::s16) | type_bit(type::s32) | type_bit(type::s64);
inline constexpr type_set integer_types = unsigned_types | signed_types;
inline constexpr type_set float_types = type_bit(type::f32) | type_bit(type::f64);
inline constexpr type_set half_types = type_bit(type::f16);
inline constexpr type_set integer_32_64_types =
    type_bit(type::u32) | type_bit(type::s32) | type_bit(type::u64) | type_bit(type::s64);
inline constexpr type_set bit_32_64_types = type_bit(type::b32) | type_bit(type::b64);
/// What ld / st / ldu move.
inline constexpr type_set memory_types = type_bit(type::b8) | type_bit(type::u8) |
                                         type_bit(type::s8) | bit_types | unsigned_types |
                                         signed_types | float_types;
/// What cvt converts between.
inline constexpr type_set conversion_types = type_bit(type::u8) | type_bit(type::s8) |
                                             unsigned_types | signed_types | float_types |
                                             half_types;

/// The instruction takes a type (a type outside the subset is then named as unsupported).
inline constexpr modifier_set takes_type =
    class_bit(modifier_class::type) | class_bit(modifier_class::bad_type);
/// Float arithmetic: rounding, flush to zero, saturation.
inline constexpr modifier_set float_arithmetic = class_bit(modifier_class::rnd) |
                                                 class_bit(modifier_class::ftz) |
                                                 class_bit(modifier_class::sat);
/// ld / st: a state space, a memory order and scope, vectors, cache-policy qualifiers.
inline constexpr modifier_set memory_access =
    takes_type | class_bit(modifier_class::space) | class_bit(modifier_class::order) |
    class_bit(modifier_class::scope) | class_bit(modifier_class::vec) |
    class_bit(modifier_class::cache);

/// What one opcode mnemonic accepts.
struct opcode_legality {
    std::string_view text;      ///< the mnemonic
    modifier_set modifiers = 0; ///< the modifier classes it takes
    type_set types = 0;         ///< allowed (first) types; 0: the instruction takes no type
    type_set second_types = 0;  ///< allowed second types (cvt, set, slct, tex)
    std::uint64_t key = word_key(text);

    /// Whether the opcode takes modifiers of class `c`.
    [[nodiscard]] constexpr bool takes(modifier_class c) const noexcept {
        return (modifiers & class_bit(c)) != 0;
    }
    /// How many types the opcode is written with (0, 1 or 2).
    [[nodiscard]] constexpr unsigned type_count() const noexcept {
        return types == 0 ? 0U : (second_types != 0 ? 2U : 1U);
    }
    /// Whether `t` may be the opcode's first (`position` 0) or second (1) type.
    [[nodiscard]] constexpr bool allows(type t, unsigned position) const noexcept {
        return ((position == 0 ? types : second_types) & type_bit(t)) != 0;
    }
};

/// One row per mnemonic: {mnemonic, modifier classes, types, second types}.
inline constexpr word_table opcode_legality_table{std::to_array<opcode_legality>({
    {"add", takes_type | float_arithmetic | class_bit(modifier_class::cc),
     integer_types | float_types | half_types},
    {"addc", takes_type | class_bit(modifier_class::cc), integer_32_64_types},
    {"sub", takes_type | float_arithmetic | class_bit(modifier_class::cc),
     integer_types | float_types | half_types},
    {"subc", takes_type | class_bit(modifier_class::cc), integer_32_64_types},
    {"mul", takes_type | float_arithmetic | class_bit(modifier_class::mulmode),
     integer_types | float_types | half_types},
    {"mad",
     takes_type | float_arithmetic | class_bit(modifier_class::mulmode) |
         class_bit(modifier_class::cc),
     integer_types | float_types},
    {"madc", takes_type | class_bit(modifier_class::mulmode) | class_bit(modifier_class::cc),
     integer_32_64_types},
    {"mul24", takes_type | class_bit(modifier_class::mulmode),
     type_bit(type::u32) | type_bit(type::s32)},
    {"mad24", takes_type | class_bit(modifier_class::mulmode) | class_bit(modifier_class::sat),
     type_bit(type::u32) | type_bit(type::s32)},
    {"fma", takes_type | float_arithmetic, float_types | half_types},
    {"div",
     takes_type | class_bit(modifier_class::rnd) | class_bit(modifier_class::ftz) |
         class_bit(modifier_class::approx) | class_bit(modifier_class::full),
     integer_types | float_types},
    {"rem", takes_type, integer_types},
    {"abs", takes_type | class_bit(modifier_class::ftz), signed_types | float_types | half_types},
    {"neg", takes_type | class_bit(modifier_class::ftz), signed_types | float_types | half_types},
    {"min", takes_type | class_bit(modifier_class::ftz), integer_types | float_types},
    {"max", takes_type | class_bit(modifier_class::ftz), integer_types | float_types},
    {"sad", takes_type, integer_types},
    {"popc", takes_type, bit_32_64_types},
    {"clz", takes_type, bit_32_64_types},
    {"bfind", takes_type | class_bit(modifier_class::shiftamt), integer_32_64_types},
    {"brev", takes_type, bit_32_64_types},
    {"bfe", takes_type, integer_32_64_types},
    {"bfi", takes_type, bit_32_64_types},
    {"prmt", takes_type, type_bit(type::b32)},
    {"and", takes_type, pred_types | bit_types},
    {"or", takes_type, pred_types | bit_types},
    {"xor", takes_type, pred_types | bit_types},
    {"not", takes_type, pred_types | bit_types},
    {"cnot", takes_type, bit_types},
    {"lop3", takes_type, type_bit(type::b32)},
    {"shl", takes_type, bit_types},
    {"shr", takes_type, bit_types | integer_types},
    {"shf", takes_type | class_bit(modifier_class::shf_dir) | class_bit(modifier_class::shf_mode),
     type_bit(type::b32)},
    {"setp",
     takes_type | class_bit(modifier_class::cmp) | class_bit(modifier_class::boolop) |
         class_bit(modifier_class::ftz),
     bit_types | integer_types | float_types | half_types},
    {"set",
     takes_type | class_bit(modifier_class::cmp) | class_bit(modifier_class::boolop) |
         class_bit(modifier_class::ftz),
     type_bit(type::u32) | type_bit(type::s32) | type_bit(type::f32),
     bit_types | integer_types | float_types},
    {"selp", takes_type, bit_types | integer_types | float_types},
    {"slct", takes_type | class_bit(modifier_class::ftz), bit_types | integer_types | float_types,
     type_bit(type::s32) | type_bit(type::f32)},
    {"testp", takes_type | class_bit(modifier_class::test), float_types},
    {"copysign", takes_type, float_types},
    {"cvt", takes_type | float_arithmetic, conversion_types, conversion_types},
    {"cvta", takes_type | class_bit(modifier_class::space) | class_bit(modifier_class::to),
     type_bit(type::u32) | type_bit(type::u64)},
    {"mov", takes_type, pred_types | bit_types | integer_types | float_types},
    {"ld", memory_access | class_bit(modifier_class::nc), memory_types},
    {"ldu", takes_type | class_bit(modifier_class::space) | class_bit(modifier_class::vec),
     memory_types},
    {"st", memory_access, memory_types},
    {"atom",
     takes_type | class_bit(modifier_class::space) | class_bit(modifier_class::order) |
         class_bit(modifier_class::scope) | class_bit(modifier_class::aop),
     bit_32_64_types | integer_32_64_types | float_types},
    {"red",
     takes_type | class_bit(modifier_class::space) | class_bit(modifier_class::order) |
         class_bit(modifier_class::scope) | class_bit(modifier_class::aop),
     bit_32_64_types | integer_32_64_types | float_types},
    {"prefetch", class_bit(modifier_class::space) | class_bit(modifier_class::level), 0},
    {"rcp",
     takes_type | class_bit(modifier_class::rnd) | class_bit(modifier_class::ftz) |
         class_bit(modifier_class::approx),
     float_types},
    {"sqrt",
     takes_type | class_bit(modifier_class::rnd) | class_bit(modifier_class::ftz) |
         class_bit(modifier_class::approx),
     float_types},
    {"rsqrt", takes_type | class_bit(modifier_class::ftz) | class_bit(modifier_class::approx),
     float_types},
    {"sin", takes_type | class_bit(modifier_class::ftz) | class_bit(modifier_class::approx),
     type_bit(type::f32)},
    {"cos", takes_type | class_bit(modifier_class::ftz) | class_bit(modifier_class::approx),
     type_bit(type::f32)},
    {"lg2", takes_type | class_bit(modifier_class::ftz) | class_bit(modifier_class::approx),
     type_bit(type::f32)},
    {"ex2", takes_type | class_bit(modifier_class::ftz) | class_bit(modifier_class::approx),
     type_bit(type::f32)},
    {"tanh", takes_type | class_bit(modifier_class::approx), type_bit(type::f32)},
    {"shfl", takes_type | class_bit(modifier_class::sync) | class_bit(modifier_class::shfl),
     type_bit(type::b32)},
    {"vote", takes_type | class_bit(modifier_class::sync) | class_bit(modifier_class::vote),
     pred_types | type_bit(type::b32)},
    {"activemask", takes_type, type_bit(type::b32)},
    {"bar",
     class_bit(modifier_class::sync) | class_bit(modifier_class::arrive) |
         class_bit(modifier_class::warp) | class_bit(modifier_class::scope),
     0},
    {"barrier",
     class_bit(modifier_class::sync) | class_bit(modifier_class::arrive) |
         class_bit(modifier_class::aligned) | class_bit(modifier_class::scope),
     0},
    {"membar", class_bit(modifier_class::gl) | class_bit(modifier_class::scope), 0},
    {"fence", class_bit(modifier_class::order) | class_bit(modifier_class::scope), 0},
    {"bra", class_bit(modifier_class::uni), 0},
    {"call", class_bit(modifier_class::uni), 0},
    {"ret", class_bit(modifier_class::uni), 0},
    {"exit", 0, 0},
    {"trap", 0, 0},
    {"tex", takes_type | class_bit(modifier_class::geom) | class_bit(modifier_class::vec),
     type_bit(type::u32) | type_bit(type::s32) | type_bit(type::f32),
     type_bit(type::s32) | type_bit(type::f32)},
})};

} // namespace warpkit::ptx::detail
