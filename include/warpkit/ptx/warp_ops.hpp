#pragma once
/// \file
/// The thread-context and warp-level parts of PTX semantics that need no memory: special
/// registers (`%tid`, `%ctaid`, `%laneid`, `%lanemask_*`, `%clock`...), the source lane of
/// `shfl.sync` and the result of `vote.sync`. The instruction sources apply them to a warp's
/// registers.

#include <warpkit/isa/program.hpp>
#include <warpkit/ptx/ir.hpp>

#include <cstddef>
#include <cstdint>

namespace warpkit::ptx {

/// What the special registers of one warp's threads are read from.
struct thread_context {
    isa::dim3 block_dim;             ///< %ntid
    isa::dim3 block_id;              ///< %ctaid
    isa::dim3 grid_dim;              ///< %nctaid
    std::uint32_t warp_size = 32;    ///< threads per warp
    std::uint32_t warp_in_block = 0; ///< %warpid (the warp's index in its block)
    std::uint32_t warp_slots = 0;    ///< %nwarpid (warp slots of the SM)
    std::uint32_t sm = 0;            ///< %smid
    std::uint64_t clock = 0;         ///< %clock64 (%clock: its low 32 bits)
};

/// Special register `s` (component `dim`: 0 x, 1 y, 2 z) of lane `lane` of the warp `c`
/// describes. `%nsmid` and `%gridid` read 0: an SM's source does not know the GPU's SM count.
[[nodiscard]] constexpr std::uint64_t
special_register(sreg s, unsigned dim, const thread_context& c, std::size_t lane) noexcept {
    const auto pick = [&](const isa::dim3& d) -> std::uint64_t {
        return dim == 0 ? d.x : (dim == 1 ? d.y : d.z);
    };
    const isa::dim3& bd = c.block_dim;
    const std::uint64_t t = std::uint64_t{c.warp_in_block} * c.warp_size + lane;
    const std::uint64_t lane_bit = std::uint64_t{1} << lane;
    switch (s) {
    case sreg::tid:
        return dim == 0 ? t % bd.x
                        : (dim == 1 ? (t / bd.x) % bd.y : t / (std::uint64_t{bd.x} * bd.y));
    case sreg::ntid:
        return pick(bd);
    case sreg::ctaid:
        return pick(c.block_id);
    case sreg::nctaid:
        return pick(c.grid_dim);
    case sreg::laneid:
        return lane;
    case sreg::warpid:
        return c.warp_in_block;
    case sreg::nwarpid:
        return c.warp_slots;
    case sreg::smid:
        return c.sm;
    case sreg::nsmid:
    case sreg::gridid:
        return 0;
    case sreg::clock:
        return c.clock & 0xffffffffU;
    case sreg::clock64:
        return c.clock;
    case sreg::lanemask_eq:
        return lane_bit;
    case sreg::lanemask_le:
        return (lane_bit << 1) - 1;
    case sreg::lanemask_lt:
        return lane_bit - 1;
    case sreg::lanemask_ge:
        return ~(lane_bit - 1) & 0xffffffffU;
    case sreg::lanemask_gt:
        return ~((lane_bit << 1) - 1) & 0xffffffffU;
    }
    return 0;
}

/// Where a `shfl.sync` lane reads from, and its predicate result.
struct shuffle_source {
    std::size_t lane = 0; ///< the source lane (the lane itself when out of range)
    bool valid = false;   ///< the optional predicate destination: the source was in range
};

/// The source lane of lane `lane` for `shfl.sync.<mode>` with operands b (lane or offset) and
/// c (clamp in bits 0-4, segment mask in bits 8-12), by the PTX ISA's definition.
[[nodiscard]] constexpr shuffle_source shuffle_lane(shfl_mode mode, std::size_t lane,
                                                    std::uint64_t b, std::uint64_t c,
                                                    std::size_t warp_size) noexcept {
    const auto self = static_cast<std::int64_t>(lane);
    const auto bval = static_cast<std::int64_t>(b & 31U);
    const auto cval = static_cast<std::int64_t>(c & 31U);
    const auto seg = static_cast<std::int64_t>((c >> 8) & 31U);
    const std::int64_t max_lane = (self & seg) | (cval & ~seg);
    const std::int64_t min_lane = self & seg;
    std::int64_t j = self;
    bool valid = false;
    switch (mode) {
    case shfl_mode::up:
        j = self - bval;
        valid = j >= max_lane;
        break;
    case shfl_mode::down:
        j = self + bval;
        valid = j <= max_lane;
        break;
    case shfl_mode::bfly:
        j = self ^ bval;
        valid = j <= max_lane;
        break;
    default: // idx
        j = min_lane | (bval & ~seg);
        valid = j <= max_lane;
        break;
    }
    if (!valid || j < 0 || j >= static_cast<std::int64_t>(warp_size)) j = self;
    return {static_cast<std::size_t>(j), valid};
}

/// The result of `vote.sync.<mode>` for the member lanes `members` of which `yes` have a true
/// predicate (lane masks as bits): a predicate for all / any / uni, the mask for ballot.
[[nodiscard]] constexpr std::uint64_t vote_result(vote_mode mode, std::uint64_t yes,
                                                  std::uint64_t members) noexcept {
    switch (mode) {
    case vote_mode::all:
        return yes == members ? 1 : 0;
    case vote_mode::any:
        return yes != 0 ? 1 : 0;
    case vote_mode::uni:
        return (yes == 0 || yes == members) ? 1 : 0;
    default:
        return yes;
    }
}

} // namespace warpkit::ptx
