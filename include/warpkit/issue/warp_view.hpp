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
