#pragma once
/// \file
/// What a warp scheduler sees of one warp: a small value per candidate warp (ready bit, unit
/// class of the next instruction, age, long-latency and barrier flags), plus `unit_set`, a
/// set of unit classes (used for the "blocked by power gating" input of GATES).

#include <warpkit/core/bit_set.hpp>
#include <warpkit/core/error.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>

namespace warpkit::issue {

/// Identifies a warp within one scheduler's (or one SM's) warps.
using warp_id = std::uint16_t;

/// Warps one scheduler tracks by default: ids are below this (a set of warps is one machine
/// word). A scheduler may track more: gto, lrr and rr take the count as a template parameter
/// (basic_gto<128>, ...), and two_level and GATES take it from their inner policy.
inline constexpr std::size_t max_warps = 64;

/// Largest issue width a scheduler can be asked for in one cycle.
inline constexpr std::size_t max_issue_width = 8;

/// One candidate warp as the issue stage sees it in the current cycle.
struct warp_view {
    // Ordered for a 16-byte layout: views are copied and scanned every cycle.
    std::uint64_t age = 0; ///< launch order / dynamic id: smaller is older
    warp_id id = 0;        ///< warp id (< max_warps for one scheduler)
    isa::unit_class unit = isa::unit_class::int_alu; ///< unit class of the next instruction
    bool valid = true;         ///< a decoded next instruction exists (instruction buffer not empty)
    bool ready = false;        ///< operands ready and no structural hazard: may issue this cycle
    bool long_latency = false; ///< the next instruction waits on a long-latency (memory) result
    bool at_barrier = false;   ///< waiting at a barrier
    bool finished = false;     ///< exited; never issues again
};
static_assert(sizeof(warp_view) == 16);

/// True when `v` may be issued this cycle: decoded, ready, not at a barrier, not finished.
[[nodiscard]] constexpr bool issuable(const warp_view& v) noexcept {
    // & rather than &&: four loads and no branch (the flags change from cycle to cycle).
    return v.valid & v.ready & !v.at_barrier & !v.finished;
}

/// A set of unit classes, one bit per class.
class unit_set {
public:
    constexpr unit_set() noexcept = default;
    /// The set holding exactly `classes`.
    constexpr unit_set(std::initializer_list<isa::unit_class> classes) noexcept {
        for (auto u : classes)
            set(u);
    }

    /// Adds (or with `on == false` removes) `u`.
    constexpr unit_set& set(isa::unit_class u, bool on = true) noexcept {
        const auto b = static_cast<std::uint8_t>(1U << isa::index(u));
        bits_ = static_cast<std::uint8_t>(on ? (bits_ | b) : (bits_ & ~b));
        return *this;
    }
    /// Removes `u`.
    constexpr unit_set& reset(isa::unit_class u) noexcept { return set(u, false); }
    /// True when `u` is in the set.
    [[nodiscard]] constexpr bool test(isa::unit_class u) const noexcept {
        return ((bits_ >> isa::index(u)) & 1U) != 0;
    }
    [[nodiscard]] constexpr bool any() const noexcept { return bits_ != 0; }
    [[nodiscard]] constexpr bool none() const noexcept { return bits_ == 0; }
    /// Number of classes in the set.
    [[nodiscard]] constexpr std::size_t count() const noexcept {
        return static_cast<std::size_t>(std::popcount(bits_));
    }
    /// The raw bits (bit i = class with index i).
    [[nodiscard]] constexpr std::uint8_t bits() const noexcept { return bits_; }
    friend constexpr bool operator==(unit_set, unit_set) noexcept = default;

private:
    std::uint8_t bits_ = 0;
};

/// A set of warp ids below `MaxWarps` (one 64-bit word for the default 64).
template <std::size_t MaxWarps>
using warp_set = bit_set<MaxWarps>;

/// Warps a scheduler `S` tracks: `S::max_warps` where it says, else the default 64.
template <class S>
consteval std::size_t max_warps_of() {
    if constexpr (requires { S::max_warps; })
        return S::max_warps;
    else
        return max_warps;
}

namespace detail {

/// True when scheduler `S` picks from view_planes (select_planes): `S::takes_planes`.
template <class S>
consteval bool takes_planes() {
    if constexpr (requires { S::takes_planes; })
        return S::takes_planes;
    else
        return false;
}

/// Members of a 64-bit word, inline everywhere: std::popcount is a library call where the
/// target has no population-count instruction (x86-64 without -mpopcnt).
[[nodiscard]] constexpr std::size_t popcount64(std::uint64_t x) noexcept {
    x = x - ((x >> 1) & 0x5555555555555555U);
    x = (x & 0x3333333333333333U) + ((x >> 2) & 0x3333333333333333U);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fU;
    return static_cast<std::size_t>((x * 0x0101010101010101U) >> 56);
}

/// False when the first views' ids do not increase: a cheap test to make before a pass
/// that needs increasing ids (views in id order, as an SM lists its warps). Views in any
/// order mostly fail it, on a branch that they take nearly always; such a pass would stop at
/// a place that changes from call to call, on a mispredicted branch.
[[nodiscard]] inline bool ids_may_increase(std::span<const warp_view> views) noexcept {
    const warp_view* const v = views.data();
    return views.size() < 4 || ((v[0].id < v[1].id) & (v[1].id < v[2].id) & (v[2].id < v[3].id));
}

/// The 8 bytes of `v` after its age (id, unit and the five flags) as one word.
[[nodiscard]] inline std::uint64_t tail_word(const warp_view& v) noexcept {
    static_assert(std::is_standard_layout_v<warp_view> &&
                  sizeof(warp_view) - offsetof(warp_view, id) == 8);
    std::uint64_t w;
    std::memcpy(&w, reinterpret_cast<const unsigned char*>(&v) + offsetof(warp_view, id), sizeof w);
    return w;
}

/// Zero exactly when issuable(v), else nonzero, from v's flag bytes masked in one word: a
/// value to fold other tests into before one branch. (A bool's bytes are 0 or 1.)
[[nodiscard]] inline std::uint64_t not_issuable_bits(const warp_view& v) noexcept {
    static_assert(std::bit_cast<std::uint8_t>(true) == 1 &&
                  std::bit_cast<std::uint8_t>(false) == 0);
    constexpr std::size_t at = offsetof(warp_view, id);
    // The mask and the value wanted, byte by byte, in the word's byte order.
    constexpr auto word = [](std::uint8_t valid, std::uint8_t ready, std::uint8_t barrier,
                             std::uint8_t finished) {
        std::array<std::uint8_t, 8> b{};
        b[offsetof(warp_view, valid) - at] = valid;
        b[offsetof(warp_view, ready) - at] = ready;
        b[offsetof(warp_view, at_barrier) - at] = barrier;
        b[offsetof(warp_view, finished) - at] = finished;
        return std::bit_cast<std::uint64_t>(b);
    };
    constexpr std::uint64_t mask = word(0xff, 0xff, 0xff, 0xff);
    constexpr std::uint64_t want = word(1, 1, 0, 0);
    return (tail_word(v) ^ want) & mask;
}

/// Per-warp-id bit masks of one cycle's views (ids below 64): bit w of each mask is warp w's
/// flag. What the mask-based paths of two_level, gates_priority and lrr read in place of the
/// views. An id that no view has reads as finished, and nothing else.
struct view_planes {
    // (The unit class planes are apart in memory: a copy of the three is then three word
    // loads. Next to each other, the compiler copies two with one vector load, which must
    // wait until both word stores that load() ends with are done.)
    std::uint64_t valid = 0;
    std::uint64_t unit0 = 0; ///< bit 0 of each warp's unit class index
    std::uint64_t ready = 0;
    std::uint64_t unit1 = 0; ///< bit 1 of each warp's unit class index
    std::uint64_t long_latency = 0;
    std::uint64_t unit2 = 0; ///< bit 2 of each warp's unit class index
    std::uint64_t at_barrier = 0;
    std::uint64_t finished = ~std::uint64_t{0};

    /// Fills the masks from views whose ids increase from view to view (the order in which an
    /// SM lists its warps), all below max_warps (<= 64); for any other views returns false,
    /// the masks left unspecified. Such ids are distinct and in range: no further check.
    bool load(std::span<const warp_view> views, std::size_t max_warps) noexcept;

    /// May issue: valid, ready, not at a barrier, not finished (see issuable()).
    [[nodiscard]] constexpr std::uint64_t issuable() const noexcept { return live() & ready; }
    /// Has an instruction heading for a unit: valid, not at a barrier, not finished.
    [[nodiscard]] constexpr std::uint64_t live() const noexcept {
        return valid & ~at_barrier & ~finished;
    }
    /// Offered and not finished.
    [[nodiscard]] constexpr std::uint64_t alive() const noexcept { return ~finished; }
    /// Waiting on a long-latency result or at a barrier.
    [[nodiscard]] constexpr std::uint64_t waiting() const noexcept {
        return long_latency | at_barrier;
    }
    /// Warps whose next instruction is of class `u`.
    [[nodiscard]] constexpr std::uint64_t of_class(isa::unit_class u) const noexcept {
        return of_class(u, unit0, unit1, unit2);
    }
    /// Warps of class `u` given the three unit class planes (bit b of a warp's class index
    /// in plane b): each plane, or its complement where u's bit is 0. No branch.
    [[nodiscard]] static constexpr std::uint64_t
    of_class(isa::unit_class u, std::uint64_t u0, std::uint64_t u1, std::uint64_t u2) noexcept {
        const auto k = static_cast<std::uint64_t>(isa::index(u));
        return (u0 ^ ((k & 1U) - 1)) & (u1 ^ (((k >> 1) & 1U) - 1)) & (u2 ^ (((k >> 2) & 1U) - 1));
    }
    /// The unit class of warp w's next instruction.
    [[nodiscard]] constexpr isa::unit_class unit_of(std::size_t w) const noexcept {
        return static_cast<isa::unit_class>(((unit0 >> w) & 1U) | ((unit1 >> w) & 1U) << 1 |
                                            ((unit2 >> w) & 1U) << 2);
    }

    // One byte per warp (its code): bits 0-2 the unit class index, 3 valid, 4 ready,
    // 5 long_latency, 6 at_barrier, 7 finished (bit j >= 3 is byte j of the view's tail word).
    static constexpr unsigned char absent_code = 0x80;
    static constexpr std::uint64_t absent_word = 0x8080808080808080U;

    /// v's code.
    [[nodiscard]] static unsigned char code_of(const warp_view& v) noexcept;

private:
    // Where the layout allows (little-endian, the fields in their order after the age: id,
    // unit, valid, ready, long_latency, at_barrier, finished), a view's flags are bit 0 of
    // bytes 3..7 of its tail word, and its unit class the low bits of byte 2.
    static constexpr std::uint64_t flag_bits = 0x0101010101000000U;
    // Gathers bit 0 of each byte of a word into the top byte (bit j from byte j): the partial
    // products of a word of 0/1 bytes never meet, so nothing carries into the top byte.
    static constexpr std::uint64_t gather_bytes = 0x0102040810204080U;
    [[nodiscard]] static consteval bool tail_layout() {
        return std::endian::native == std::endian::little && offsetof(warp_view, id) == 8 &&
               offsetof(warp_view, unit) == 10 && offsetof(warp_view, valid) == 11 &&
               offsetof(warp_view, ready) == 12 && offsetof(warp_view, long_latency) == 13 &&
               offsetof(warp_view, at_barrier) == 14 && offsetof(warp_view, finished) == 15 &&
               sizeof(isa::unit_class) == 1 && std::bit_cast<std::uint8_t>(true) == 1 &&
               std::bit_cast<std::uint8_t>(false) == 0;
    }

    // Transposes the 8x8 bit matrix in x: bit 8r + c goes to 8c + r.
    [[nodiscard]] static constexpr std::uint64_t transpose8(std::uint64_t x) noexcept {
        std::uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAU;
        x ^= t ^ (t << 7);
        t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCU;
        x ^= t ^ (t << 14);
        t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0U;
        x ^= t ^ (t << 28);
        return x;
    }
    // One step of the 8x8 byte transpose: a keeps its fields under m and takes b's, shifted
    // up by s; b keeps its fields above them and takes a's, shifted down.
    static constexpr void swap_fields(std::uint64_t& a, std::uint64_t& b, unsigned s,
                                      std::uint64_t m) noexcept {
        const std::uint64_t na = (a & m) | ((b & m) << s);
        const std::uint64_t nb = ((a >> s) & m) | (b & ~m);
        a = na;
        b = nb;
    }
};

inline unsigned char view_planes::code_of(const warp_view& v) noexcept {
    if constexpr (tail_layout()) {
        const std::uint64_t x = tail_word(v);
        return static_cast<unsigned char>((((x & flag_bits) * gather_bytes) >> 56) |
                                          ((x >> 16) & 7U));
    } else {
        return static_cast<unsigned char>((static_cast<unsigned>(isa::index(v.unit)) & 7U) |
                                          unsigned{v.valid} << 3 | unsigned{v.ready} << 4 |
                                          unsigned{v.long_latency} << 5 |
                                          unsigned{v.at_barrier} << 6 | unsigned{v.finished} << 7);
    }
}

inline bool view_planes::load(std::span<const warp_view> views, std::size_t max_warps) noexcept {
    // Two steps. First a block word per 8 warps, byte j of block b holding code bit j of
    // warps 8b..8b+7 (warp 8b+k in bit k); then the 8x8 matrix of bytes of the 8 blocks is
    // transposed, which leaves code bit j of every warp in word j. The words are named
    // variables for the transpose, not an array: an array goes to memory, where the compiler
    // packs pairs of words into vector loads that wait for the stores of both halves.
    const std::size_t n = views.size();
    const warp_view* const v = views.data();
    std::array<std::uint64_t, 8> blocks;
    std::int32_t last = -1;
    bool in_place = false; // ids 0..n-1, each view at the position of its id
    if constexpr (tail_layout()) {
        in_place = n != 0 && v[n - 1].id == n - 1;
    }
    if (in_place) {
        // Ids 0..n-1 if each view's id is its position (one check a view: the tail word less
        // the position, xor-ed with the block's first position, has a zero id field; the
        // fields are or-ed together and tested once). A block is built from its views in
        // registers, the last view first: the flag bits (bit 0 of bytes 3..7 of each tail
        // word) shift up one bit a view, the unit classes (a byte each) one byte a view; the
        // unit classes are then gathered bit by bit into bytes 0..2.
        std::uint64_t diff = 0;
        const auto block = [&](std::size_t first, std::size_t count) {
            std::uint64_t t = 0;
            std::uint64_t units = 0;
            for (std::size_t k = count; k-- > 0;) {
                const warp_view& x = v[first + k];
                const std::uint64_t w = tail_word(x);
                diff |= (w - k) ^ first;
                t = (t << 1) | (w & flag_bits);
                units = (units << 8) | static_cast<std::uint8_t>(x.unit);
            }
            for (unsigned b = 0; b < 3; ++b)
                t |= ((((units >> b) & 0x0101010101010101U) * gather_bytes) >> 56) << (8 * b);
            return t;
        };
        std::size_t b = 0;
        for (; 8 * b + 8 <= n; ++b)
            blocks[b] = block(8 * b, 8);
        if (8 * b < n) { // the warps after the last view: absent
            const std::size_t count = n - 8 * b;
            blocks[b] = block(8 * b, count) | (((std::uint64_t{0xff} << count) & 0xffU) << 56);
            ++b;
        }
        for (; b < 8; ++b)
            blocks[b] = transpose8(absent_word);
        if ((diff & 0xffffU) != 0) return false; // not 0..n-1: not increasing then
        last = static_cast<std::int32_t>(n) - 1;
    } else {
        // Any increasing ids (one compare a view): the codes are written byte by byte to
        // their warps' places, then each 8 codes (8x8 bits) are transposed into a block. An
        // id too large is caught after the loop (until then, & 63 keeps its write in place).
        std::array<unsigned char, 64> codes;
        codes.fill(absent_code);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t id = v[i].id;
            if (id <= last) return false;
            last = id;
            codes[static_cast<std::size_t>(id) & 63U] = code_of(v[i]);
        }
        for (std::size_t b = 0; b < 8; ++b) {
            std::uint64_t w = 0;
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(&w, codes.data() + 8 * b, sizeof w);
            } else {
                for (std::size_t j = 0; j < 8; ++j)
                    w |= std::uint64_t{codes[8 * b + j]} << (8 * j);
            }
            blocks[b] = transpose8(w);
        }
    }
    if (last >= static_cast<std::int64_t>(max_warps)) return false;
    std::uint64_t t0 = blocks[0];
    std::uint64_t t1 = blocks[1];
    std::uint64_t t2 = blocks[2];
    std::uint64_t t3 = blocks[3];
    std::uint64_t t4 = blocks[4];
    std::uint64_t t5 = blocks[5];
    std::uint64_t t6 = blocks[6];
    std::uint64_t t7 = blocks[7];
    swap_fields(t0, t4, 32, 0x00000000FFFFFFFFU);
    swap_fields(t1, t5, 32, 0x00000000FFFFFFFFU);
    swap_fields(t2, t6, 32, 0x00000000FFFFFFFFU);
    swap_fields(t3, t7, 32, 0x00000000FFFFFFFFU);
    swap_fields(t0, t2, 16, 0x0000FFFF0000FFFFU);
    swap_fields(t1, t3, 16, 0x0000FFFF0000FFFFU);
    swap_fields(t4, t6, 16, 0x0000FFFF0000FFFFU);
    swap_fields(t5, t7, 16, 0x0000FFFF0000FFFFU);
    swap_fields(t0, t1, 8, 0x00FF00FF00FF00FFU);
    swap_fields(t2, t3, 8, 0x00FF00FF00FF00FFU);
    swap_fields(t4, t5, 8, 0x00FF00FF00FF00FFU);
    swap_fields(t6, t7, 8, 0x00FF00FF00FF00FFU);
    unit0 = t0;
    unit1 = t1;
    unit2 = t2;
    valid = t3;
    ready = t4;
    long_latency = t5;
    at_barrier = t6;
    finished = t7;
    return true;
}

/// Position of each warp id in a span of views (a byte while ids fit one).
template <std::size_t MaxWarps>
using view_positions =
    std::array<std::conditional_t<(MaxWarps <= 256), std::uint8_t, std::uint16_t>, MaxWarps>;

/// Maps warp ids to their positions in `views` and returns the set of ids present. Throws
/// contract_error on an id >= MaxWarps or a duplicate id (a caller error).
template <std::size_t MaxWarps>
warp_set<MaxWarps> index_views(std::span<const warp_view> views, view_positions<MaxWarps>& pos) {
    WARPKIT_EXPECTS(views.size() <= MaxWarps);
    warp_set<MaxWarps> present;
    for (std::size_t i = 0; i < views.size(); ++i) {
        const std::size_t w = views[i].id;
        present.set(w); // refuses w >= MaxWarps
        pos[w] = static_cast<typename view_positions<MaxWarps>::value_type>(i);
    }
    // Duplicates after the pass: a test per view would chain each to the previous one's set.
    WARPKIT_EXPECTS(present.count() == views.size());
    return present;
}

/// Set of ids in `views` that may issue this cycle; fills `pos` like index_views.
template <std::size_t MaxWarps>
warp_set<MaxWarps> issuable_set(std::span<const warp_view> views, view_positions<MaxWarps>& pos) {
    (void)index_views<MaxWarps>(views, pos);
    warp_set<MaxWarps> ready;
    for (const auto& v : views)
        ready.set_if(v.id, issuable(v));
    return ready;
}

/// Visits the members of `set` in rotation order from `start` (start, start + 1, ... wrapping
/// around at MaxWarps) until `visit(w)` returns true.
template <std::size_t MaxWarps, class Visit>
constexpr void visit_from(const warp_set<MaxWarps>& set, std::size_t start, Visit&& visit) {
    const auto before = warp_set<MaxWarps>::below(start % MaxWarps);
    if (warp_set<MaxWarps>(set).remove(before).visit_until(visit)) return;
    (void)(set & before).visit_until(visit);
}

} // namespace detail

} // namespace warpkit::issue
