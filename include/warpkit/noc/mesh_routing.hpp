#pragma once
/// \file
/// Routing policies of the `mesh`: the algorithm names (`mesh_routing`), the port
/// numbering of a mesh router, and the small pure functions a router applies to a packet's
/// head flit: the dimension-order direction, the minimal directions an adaptive policy
/// allows, the choice among them, O1TURN's per-packet choice and the VCs each packet may use.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::noc {

/// How a mesh router picks the output of a packet. Every policy is minimal (a packet
/// crosses exactly the Manhattan distance). The adaptive ones (west_first, odd_even) choose
/// per packet and router, so two packets from one source to one destination may overtake
/// each other; flits of one packet always stay in order.
enum class mesh_routing : std::uint8_t {
    /// Dimension order, X first (BookSim's dim_order): deterministic and deadlock-free on
    /// a single VC because no packet ever turns from Y back into X.
    xy,
    /// Dimension order, Y first: the mirror of xy, for traffic whose hot spots XY loads badly.
    yx,
    /// Glass & Ni 1992 turn model: forbidding only the two turns into west breaks every
    /// cycle of channel dependencies without extra VCs, and packets not heading west may still
    /// steer around congestion.
    west_first,
    /// Chiu 2000 odd-even turn model: no east-to-north/south turns in even columns and no
    /// north/south-to-west turns in odd columns; spreading the forbidden turns over columns
    /// gives westbound packets a choice too (west-first gives them none).
    odd_even,
    /// Seo et al. 2005 O1TURN: each packet takes XY or YX, chosen at its source; mixing the
    /// two orders gives near-optimal worst-case throughput without adaptive routers. XY and
    /// YX packets use disjoint halves of the VCs, so neither can close a cycle with the other.
    o1turn,
};

/// Port numbers of a mesh router: four directions, then local ports.
enum class port : std::uint8_t { east = 0, west = 1, north = 2, south = 3, local = 4 };

} // namespace warpkit::noc

template <>
struct warpkit::enum_names<warpkit::noc::mesh_routing> {
    static constexpr std::array<std::string_view, 5> names = {"xy", "yx", "west_first", "odd_even",
                                                              "o1turn"};
};

namespace warpkit::noc::detail {

inline constexpr std::uint32_t dirs = 4;

/// The dimension-order direction from router a towards router b (a != b), X first unless
/// `y_first`. Routers are numbered x + cols * y; north is +y.
[[nodiscard]] constexpr std::uint32_t dor_dir(std::uint32_t a, std::uint32_t b, std::uint32_t cols,
                                              bool y_first) noexcept {
    const std::uint32_t ax = a % cols;
    const std::uint32_t ay = a / cols;
    const std::uint32_t bx = b % cols;
    const std::uint32_t by = b / cols;
    if (y_first ? ay == by : ax != bx) return bx > ax ? 0u : 1u;
    return by > ay ? 2u : 3u;
}

/// The XY direction from router a towards router b (a != b).
[[nodiscard]] constexpr std::uint32_t xy_dir(std::uint32_t a, std::uint32_t b,
                                             std::uint32_t cols) noexcept {
    return dor_dir(a, b, cols, false);
}

/// The minimal directions (bit d for direction d) `routing` allows at router `cur` for a
/// packet that entered the mesh at router `src` and leaves at router `dst` (cur != dst).
/// Never empty: each policy keeps at least one productive direction everywhere.
[[nodiscard]] constexpr std::uint32_t allowed_dirs(mesh_routing routing, std::uint32_t cur,
                                                   std::uint32_t src, std::uint32_t dst,
                                                   std::uint32_t cols) noexcept {
    const std::uint32_t cx = cur % cols;
    const std::uint32_t cy = cur / cols;
    const std::uint32_t dx = dst % cols;
    const std::uint32_t dy = dst / cols;
    const std::uint32_t xbit = dx > cx ? 1u : dx < cx ? 2u : 0u;
    const std::uint32_t ybit = dy > cy ? 4u : dy < cy ? 8u : 0u;
    if (xbit == 0 || ybit == 0) return xbit | ybit; // one productive direction, no choice
    switch (routing) {
    case mesh_routing::yx:
        return ybit;
    case mesh_routing::west_first:
        return dx < cx ? xbit : xbit | ybit;
    case mesh_routing::odd_even:
        if (dx < cx) return cx % 2 == 0 ? xbit | ybit : xbit; // N/S then W needs an even column
        // Eastbound: turning north/south here needs an odd column (or no east move yet, at
        // the source column); going east must not leave the packet in an even destination
        // column, where it could no longer turn.
        return ((cx % 2 == 1 || cx == src % cols) ? ybit : 0u) |
               ((dx % 2 == 1 || dx - cx != 1) ? xbit : 0u);
    default:
        return xbit;
    }
}

/// Selection among `allowed` directions: the most free credits wins (congestion steers the
/// packet), ties go to `prefer` (so an unloaded adaptive mesh routes like XY) and then to
/// the lowest direction, which keeps the choice a function of the router's state only.
[[nodiscard]] constexpr std::uint32_t pick_dir(std::uint32_t allowed,
                                               const std::array<std::uint32_t, dirs>& free,
                                               std::uint32_t prefer) noexcept {
    std::uint32_t best = (allowed >> prefer & 1u) != 0
                             ? prefer
                             : static_cast<std::uint32_t>(std::countr_zero(allowed));
    for (std::uint32_t m = allowed; m != 0; m &= m - 1) {
        const auto d = static_cast<std::uint32_t>(std::countr_zero(m));
        if (free[d] > free[best]) best = d;
    }
    return best;
}

/// O1TURN's choice for a packet: YX when true. A hash of the packet's id (unique, given in
/// injection order) instead of a per-source counter: no state to keep, the same answer at
/// every router, and no correlation with the destinations a source cycles through.
[[nodiscard]] constexpr bool o1turn_yx(std::uint64_t packet_id) noexcept {
    std::uint64_t z = packet_id + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return ((z ^ (z >> 31)) >> 63) != 0;
}

/// The VCs a packet may use, indexed 2 x traffic class + half (half 1: o1turn's YX
/// packets; for the other policies both halves are the class's VCs). With `split_vcs`
/// requests own the lower num_vcs / 2 VCs and replies the rest; o1turn then gives the lower
/// half of each class's VCs to XY packets and the rest to YX packets.
[[nodiscard]] constexpr std::array<std::uint32_t, 4>
routing_vc_masks(mesh_routing routing, std::uint32_t num_vcs, bool split_vcs) noexcept {
    const std::uint32_t all = num_vcs >= 32 ? ~0u : (1u << num_vcs) - 1;
    std::array<std::uint32_t, 2> cls = {all, all};
    if (split_vcs) {
        const std::uint32_t lo = (1u << (num_vcs / 2)) - 1;
        cls = {lo, all & ~lo};
    }
    std::array<std::uint32_t, 4> m{};
    for (std::size_t c = 0; c < 2; ++c) {
        m[2 * c] = cls[c];
        m[2 * c + 1] = cls[c];
        if (routing != mesh_routing::o1turn || cls[c] == 0) continue;
        const auto k = static_cast<std::uint32_t>(std::popcount(cls[c]));
        const std::uint32_t xy = ((1u << (k / 2)) - 1) << std::countr_zero(cls[c]);
        m[2 * c] = xy;
        m[2 * c + 1] = cls[c] & ~xy;
    }
    return m;
}

} // namespace warpkit::noc::detail
