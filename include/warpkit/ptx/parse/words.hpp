#pragma once
/// \file
/// The words of PTX the parser knows, in tables built at compile time: instruction modifiers
/// (each with the class of instruction field it fills), opcode mnemonics, special registers
/// and the state spaces of declarations. Which modifiers and types each opcode accepts is in
/// legality.hpp; the grammar that reads the words is in grammar.hpp.

#include <warpkit/ptx/ir.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::ptx::detail {

/// Packs up to the first 8 characters of a word and its length into one key.
[[nodiscard]] constexpr std::uint64_t word_key(std::string_view word) noexcept {
    std::uint64_t key = 0;
    for (std::size_t i = 0; i < word.size() && i < 8; ++i)
        key |= static_cast<std::uint64_t>(static_cast<unsigned char>(word[i])) << (8 * i);
    return key ^ (static_cast<std::uint64_t>(word.size() > 255 ? 255 : word.size()) << 56);
}

/// A word looked up in a table built at compile time (sorted by key, binary search). `Entry`
/// has the word as `text` and its word_key as `key`.
template <class Entry, std::size_t N>
struct word_table {
    std::array<Entry, N> entries;
    constexpr explicit word_table(std::array<Entry, N> unsorted) : entries(unsorted) {
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& a, const Entry& b) { return a.key < b.key; });
    }
    /// The entry spelled `word`, or nullptr.
    [[nodiscard]] constexpr const Entry* find(std::string_view word) const noexcept {
        const std::uint64_t key = word_key(word);
        std::size_t low = 0, high = N;
        while (low < high) {
            const std::size_t middle = (low + high) / 2;
            if (entries[middle].key < key)
                low = middle + 1;
            else
                high = middle;
        }
        for (std::size_t i = low; i < N && entries[i].key == key; ++i)
            if (entries[i].text == word) return &entries[i];
        return nullptr;
    }
};

// --- modifiers ------------------------------------------------------------------------

/// Classes of instruction modifiers; each class fills one field of the instruction, and most
/// are named after that field (`rnd`, `aop`, `shfl`: see ir.hpp).
enum class modifier_class : std::uint8_t {
    type,
    bad_type, // a PTX type outside the subset (.b128, .bf16, .f16x2 ...)
    space,
    rnd,
    cmp,
    boolop,
    mulmode, // .lo .hi .wide
    aop,
    shfl,
    vote,
    order,
    scope,
    gl, // membar.gl
    ftz,
    sat,
    approx,
    full,
    nc,
    to,
    cc,
    shf_dir,
    shf_mode,
    sync,
    arrive,
    warp,
    aligned,
    shiftamt,
    test,
    vec,
    uni,
    cache, // cache-policy qualifiers: accepted and dropped
    level, // prefetch .L1 / .L2
    geom,  // tex .1d / .2d
    none,
};
/// How many modifier classes there are (modifier_class::none included).
inline constexpr std::size_t modifier_class_count =
    static_cast<std::size_t>(modifier_class::none) + 1;

/// A set of modifier classes, one bit each.
using modifier_set = std::uint64_t;
/// The set holding only `c`.
[[nodiscard]] constexpr modifier_set class_bit(modifier_class c) noexcept {
    return modifier_set{1} << static_cast<unsigned>(c);
}

/// A modifier word (without its dot) and what it means: `primary` with `primary_value`, or,
/// for the few words with two meanings (`.lo` a comparison or a multiply mode, `.and` a boolean
/// or an atomic operation, `.uni` a branch or a vote mode), `alternative` when the instruction
/// does not take `primary`. The values are those of the ir.hpp enum of the class.
struct modifier_word {
    std::string_view text;
    modifier_class primary = modifier_class::none;
    std::uint8_t primary_value = 0;
    modifier_class alternative = modifier_class::none;
    std::uint8_t alternative_value = 0;
    std::uint64_t key = 0;

    template <class Value>
    constexpr modifier_word(std::string_view word, modifier_class cls, Value value) noexcept
        : text(word), primary(cls), primary_value(static_cast<std::uint8_t>(value)),
          key(word_key(word)) {}
    template <class Value, class AlternativeValue>
    constexpr modifier_word(std::string_view word, modifier_class cls, Value value,
                            modifier_class alternative_class,
                            AlternativeValue alternative_class_value) noexcept
        : text(word), primary(cls), primary_value(static_cast<std::uint8_t>(value)),
          alternative(alternative_class),
          alternative_value(static_cast<std::uint8_t>(alternative_class_value)),
          key(word_key(word)) {}
};

/// Every modifier the subset knows, by its text (`rn` for `.rn`).
inline constexpr word_table modifier_words{std::to_array<modifier_word>({
    {"pred", modifier_class::type, type::pred},
    {"b8", modifier_class::type, type::b8},
    {"b16", modifier_class::type, type::b16},
    {"b32", modifier_class::type, type::b32},
    {"b64", modifier_class::type, type::b64},
    {"u8", modifier_class::type, type::u8},
    {"u16", modifier_class::type, type::u16},
    {"u32", modifier_class::type, type::u32},
    {"u64", modifier_class::type, type::u64},
    {"s8", modifier_class::type, type::s8},
    {"s16", modifier_class::type, type::s16},
    {"s32", modifier_class::type, type::s32},
    {"s64", modifier_class::type, type::s64},
    {"f16", modifier_class::type, type::f16},
    {"f32", modifier_class::type, type::f32},
    {"f64", modifier_class::type, type::f64},
    {"b128", modifier_class::bad_type, 0},
    {"u128", modifier_class::bad_type, 0},
    {"s128", modifier_class::bad_type, 0},
    {"f16x2", modifier_class::bad_type, 0},
    {"bf16", modifier_class::bad_type, 0},
    {"bf16x2", modifier_class::bad_type, 0},
    {"tf32", modifier_class::bad_type, 0},
    {"e4m3", modifier_class::bad_type, 0},
    {"e5m2", modifier_class::bad_type, 0},
    {"u16x2", modifier_class::bad_type, 0},
    {"s16x2", modifier_class::bad_type, 0},
    {"global", modifier_class::space, space::global},
    {"shared", modifier_class::space, space::shared},
    {"const", modifier_class::space, space::constant},
    {"local", modifier_class::space, space::local},
    {"param", modifier_class::space, space::param},
    {"rn", modifier_class::rnd, rounding::rn},
    {"rz", modifier_class::rnd, rounding::rz},
    {"rm", modifier_class::rnd, rounding::rm},
    {"rp", modifier_class::rnd, rounding::rp},
    {"rni", modifier_class::rnd, rounding::rni},
    {"rzi", modifier_class::rnd, rounding::rzi},
    {"rmi", modifier_class::rnd, rounding::rmi},
    {"rpi", modifier_class::rnd, rounding::rpi},
    {"eq", modifier_class::cmp, cmp::eq},
    {"ne", modifier_class::cmp, cmp::ne},
    {"lt", modifier_class::cmp, cmp::lt},
    {"le", modifier_class::cmp, cmp::le},
    {"gt", modifier_class::cmp, cmp::gt},
    {"ge", modifier_class::cmp, cmp::ge},
    {"lo", modifier_class::cmp, cmp::lo, modifier_class::mulmode, mul_mode::lo},
    {"ls", modifier_class::cmp, cmp::ls},
    {"hi", modifier_class::cmp, cmp::hi, modifier_class::mulmode, mul_mode::hi},
    {"hs", modifier_class::cmp, cmp::hs},
    {"equ", modifier_class::cmp, cmp::equ},
    {"neu", modifier_class::cmp, cmp::neu},
    {"ltu", modifier_class::cmp, cmp::ltu},
    {"leu", modifier_class::cmp, cmp::leu},
    {"gtu", modifier_class::cmp, cmp::gtu},
    {"geu", modifier_class::cmp, cmp::geu},
    {"num", modifier_class::cmp, cmp::num},
    {"nan", modifier_class::cmp, cmp::nan},
    {"and", modifier_class::boolop, bool_op::and_, modifier_class::aop, atom_op::and_},
    {"or", modifier_class::boolop, bool_op::or_, modifier_class::aop, atom_op::or_},
    {"xor", modifier_class::boolop, bool_op::xor_, modifier_class::aop, atom_op::xor_},
    {"wide", modifier_class::mulmode, mul_mode::wide},
    {"add", modifier_class::aop, atom_op::add},
    {"min", modifier_class::aop, atom_op::min},
    {"max", modifier_class::aop, atom_op::max},
    {"inc", modifier_class::aop, atom_op::inc},
    {"dec", modifier_class::aop, atom_op::dec},
    {"exch", modifier_class::aop, atom_op::exch},
    {"cas", modifier_class::aop, atom_op::cas},
    {"up", modifier_class::shfl, shfl_mode::up},
    {"down", modifier_class::shfl, shfl_mode::down},
    {"bfly", modifier_class::shfl, shfl_mode::bfly},
    {"idx", modifier_class::shfl, shfl_mode::idx},
    {"all", modifier_class::vote, vote_mode::all},
    {"any", modifier_class::vote, vote_mode::any},
    {"ballot", modifier_class::vote, vote_mode::ballot},
    {"uni", modifier_class::uni, 1, modifier_class::vote, vote_mode::uni},
    {"weak", modifier_class::order, order::weak},
    {"relaxed", modifier_class::order, order::relaxed},
    {"acquire", modifier_class::order, order::acquire},
    {"release", modifier_class::order, order::release},
    {"acq_rel", modifier_class::order, order::acq_rel},
    {"sc", modifier_class::order, order::sc},
    {"volatile", modifier_class::order, order::volatile_},
    {"cta", modifier_class::scope, scope::cta},
    {"gpu", modifier_class::scope, scope::gpu},
    {"sys", modifier_class::scope, scope::sys},
    {"gl", modifier_class::gl, scope::gpu},
    {"ftz", modifier_class::ftz, 1},
    {"sat", modifier_class::sat, 1},
    {"approx", modifier_class::approx, 1},
    {"full", modifier_class::full, 1},
    {"nc", modifier_class::nc, 1},
    {"to", modifier_class::to, 1},
    {"cc", modifier_class::cc, 1},
    {"l", modifier_class::shf_dir, 1},
    {"r", modifier_class::shf_dir, 0},
    {"wrap", modifier_class::shf_mode, 1},
    {"clamp", modifier_class::shf_mode, 0},
    {"sync", modifier_class::sync, 1},
    {"arrive", modifier_class::arrive, 1},
    {"warp", modifier_class::warp, 1},
    {"aligned", modifier_class::aligned, 1},
    {"shiftamt", modifier_class::shiftamt, 1},
    {"finite", modifier_class::test, test_op::finite},
    {"infinite", modifier_class::test, test_op::infinite},
    {"number", modifier_class::test, test_op::number},
    {"notanumber", modifier_class::test, test_op::notanumber},
    {"normal", modifier_class::test, test_op::normal},
    {"subnormal", modifier_class::test, test_op::subnormal},
    {"v2", modifier_class::vec, 2},
    {"v4", modifier_class::vec, 4},
    {"ca", modifier_class::cache, 1},
    {"cg", modifier_class::cache, 1},
    {"cs", modifier_class::cache, 1},
    {"lu", modifier_class::cache, 1},
    {"cv", modifier_class::cache, 1},
    {"wb", modifier_class::cache, 1},
    {"wt", modifier_class::cache, 1},
    {"L1", modifier_class::level, 1},
    {"L2", modifier_class::level, 2},
    {"1d", modifier_class::geom, tex_geom::d1},
    {"2d", modifier_class::geom, tex_geom::d2},
})};

// --- opcodes ----------------------------------------------------------------------------

/// A word and the value it stands for.
template <class Value>
struct word_entry {
    std::string_view text;
    Value value{};
    std::uint64_t key = word_key(text);
};

/// An opcode mnemonic. `bar` and `barrier` are both op::bar; they accept different modifiers
/// (see legality.hpp, which is keyed by the same mnemonics).
using opcode_word = word_entry<op>;

/// Every mnemonic the subset knows.
inline constexpr word_table opcode_words{std::to_array<opcode_word>({
    {"add", op::add},
    {"addc", op::addc},
    {"sub", op::sub},
    {"subc", op::subc},
    {"mul", op::mul},
    {"mad", op::mad},
    {"madc", op::madc},
    {"mul24", op::mul24},
    {"mad24", op::mad24},
    {"fma", op::fma},
    {"div", op::div},
    {"rem", op::rem},
    {"abs", op::abs},
    {"neg", op::neg},
    {"min", op::min},
    {"max", op::max},
    {"sad", op::sad},
    {"popc", op::popc},
    {"clz", op::clz},
    {"bfind", op::bfind},
    {"brev", op::brev},
    {"bfe", op::bfe},
    {"bfi", op::bfi},
    {"prmt", op::prmt},
    {"and", op::and_},
    {"or", op::or_},
    {"xor", op::xor_},
    {"not", op::not_},
    {"cnot", op::cnot},
    {"lop3", op::lop3},
    {"shl", op::shl},
    {"shr", op::shr},
    {"shf", op::shf},
    {"setp", op::setp},
    {"set", op::set},
    {"selp", op::selp},
    {"slct", op::slct},
    {"testp", op::testp},
    {"copysign", op::copysign},
    {"cvt", op::cvt},
    {"cvta", op::cvta},
    {"mov", op::mov},
    {"ld", op::ld},
    {"ldu", op::ldu},
    {"st", op::st},
    {"atom", op::atom},
    {"red", op::red},
    {"prefetch", op::prefetch},
    {"rcp", op::rcp},
    {"sqrt", op::sqrt},
    {"rsqrt", op::rsqrt},
    {"sin", op::sin},
    {"cos", op::cos},
    {"lg2", op::lg2},
    {"ex2", op::ex2},
    {"tanh", op::tanh},
    {"shfl", op::shfl},
    {"vote", op::vote},
    {"activemask", op::activemask},
    {"bar", op::bar},
    {"barrier", op::bar},
    {"membar", op::membar},
    {"fence", op::fence},
    {"bra", op::bra},
    {"call", op::call},
    {"ret", op::ret},
    {"exit", op::exit},
    {"trap", op::trap},
    {"tex", op::tex},
})};

// --- special registers ------------------------------------------------------------------

/// A special register by name (with the `%`).
using special_register_word = word_entry<sreg>;

/// The special registers the subset reads.
inline constexpr word_table special_register_words{std::to_array<special_register_word>({
    {"%tid", sreg::tid},
    {"%ntid", sreg::ntid},
    {"%ctaid", sreg::ctaid},
    {"%nctaid", sreg::nctaid},
    {"%laneid", sreg::laneid},
    {"%warpid", sreg::warpid},
    {"%nwarpid", sreg::nwarpid},
    {"%smid", sreg::smid},
    {"%nsmid", sreg::nsmid},
    {"%gridid", sreg::gridid},
    {"%clock", sreg::clock},
    {"%clock64", sreg::clock64},
    {"%lanemask_eq", sreg::lanemask_eq},
    {"%lanemask_le", sreg::lanemask_le},
    {"%lanemask_lt", sreg::lanemask_lt},
    {"%lanemask_ge", sreg::lanemask_ge},
    {"%lanemask_gt", sreg::lanemask_gt},
})};

/// Special registers PTX has and the subset does not read (prefixes: `%envreg3`, `%pm0`), so a
/// message can say "unsupported" rather than "undeclared".
inline constexpr std::array<std::string_view, 14> unsupported_special_registers{
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%clock_hi",
    "%dynamic_smem_size",
    "%total_smem_size",
    "%aggr_smem_size",
    "%envreg",
    "%pm",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%reserved_smem_offset_begin",
    "%current_graph_exec"};

/// Whether `name` is (or starts with) one of unsupported_special_registers.
[[nodiscard]] constexpr bool is_unsupported_special_register(std::string_view name) noexcept {
    for (const std::string_view known : unsupported_special_registers)
        if (name.substr(0, known.size()) == known) return true;
    return false;
}

// --- state spaces -----------------------------------------------------------------------

/// The state space of a declaration directive (`global`, `const`, `shared`, `local`; anything
/// else is `.param`).
[[nodiscard]] constexpr space declaration_space(std::string_view directive) noexcept {
    if (directive == "global") return space::global;
    if (directive == "const") return space::constant;
    if (directive == "shared") return space::shared;
    if (directive == "local") return space::local;
    return space::param;
}

} // namespace warpkit::ptx::detail
