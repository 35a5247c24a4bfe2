#pragma once
/// \file
/// What a warp scheduler sees of one warp: a small value per candidate warp (ready bit, unit
/// class of the next instruction, age, long-latency and barrier flags), plus `unit_set`, a
/// set of unit classes (used for the "blocked by power gating" input of GATES).

#include <warpkit/core/error.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

namespace warpkit::issue {

/// Identifies a warp within one scheduler's (or one SM's) warps.
using warp_id = std::uint16_t;

/// Warps one scheduler can track: ids are below this (sets of warps are one machine word).
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
    return v.valid && v.ready && !v.at_barrier && !v.finished;
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

namespace detail {

/// Bit of warp `w` in a 64-warp set.
[[nodiscard]] constexpr std::uint64_t warp_bit(std::size_t w) noexcept {
    return std::uint64_t{1} << w;
}

/// Maps warp ids to their positions in `views` and returns the set of ids present. Throws
/// contract_error on an id >= max_warps or a duplicate id (a caller error).
inline std::uint64_t index_views(std::span<const warp_view> views,
                                 std::array<std::uint8_t, max_warps>& pos) {
    WARPKIT_EXPECTS(views.size() <= max_warps);
    std::uint64_t present = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
        const std::size_t w = views[i].id;
        WARPKIT_EXPECTS(w < max_warps);
        WARPKIT_EXPECTS((present & warp_bit(w)) == 0);
        present |= warp_bit(w);
        pos[w] = static_cast<std::uint8_t>(i);
    }
    return present;
}

/// Set of ids in `views` that may issue this cycle; fills `pos` like index_views.
inline std::uint64_t issuable_set(std::span<const warp_view> views,
                                  std::array<std::uint8_t, max_warps>& pos) {
    (void)index_views(views, pos);
    std::uint64_t ready = 0;
    for (const auto& v : views)
        if (issuable(v)) ready |= warp_bit(v.id);
    return ready;
}

/// `set` rotated so that warp `start` is bit 0 (ids wrap around max_warps).
[[nodiscard]] constexpr std::uint64_t rotate_to(std::uint64_t set, std::size_t start) noexcept {
    return std::rotr(set, static_cast<int>(start % max_warps));
}

} // namespace detail

} // namespace warpkit::issue
