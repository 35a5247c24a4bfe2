#pragma once
/// \file
/// Shared machinery of the coalescers: precondition checks and the "leader" loop that groups
/// the lanes of one request by segment (paper 001 Section 2.5: take the first pending lane's
/// base address, gather every lane with the same base, repeat).

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/transaction.hpp>

#include <cstddef>
#include <cstdint>

namespace warpkit::mem::detail {

/// Lanes [lo, hi) of a W-lane warp.
template <std::size_t W>
[[nodiscard]] constexpr lane_mask<W> lane_range(std::size_t lo, std::size_t hi) noexcept {
    return lane_mask<W>::first_n(hi).minus(lane_mask<W>::first_n(lo));
}

/// Checks the access size and that every active lane's address is aligned to it.
template <std::size_t W>
constexpr void check_access(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                            lane_mask<W> active) {
    WARPKIT_EXPECTS(valid_access_bytes(access_bytes));
    for (const std::size_t lane : active) {
        WARPKIT_EXPECTS(addr[lane] % access_bytes == 0);
        static_cast<void>(lane);
    }
}

/// Lanes in one request: the lanes whose data fills `request_bytes` (at least 1, at most W).
template <std::size_t W>
[[nodiscard]] constexpr std::size_t lanes_per_request(std::uint32_t request_bytes,
                                                      std::uint32_t access_bytes) noexcept {
    const std::size_t n = request_bytes / access_bytes;
    return n == 0 ? 1 : (n > W ? W : n);
}

/// Emits one transaction per `segment`-byte aligned segment touched by `pending` lanes, in
/// order of their lowest lane; the transaction keeps the segment's full size.
template <std::size_t W>
constexpr void gather_segments(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                               lane_mask<W> pending, std::uint32_t segment, std::uint32_t request,
                               transaction_list<W>& out) {
    const std::uint64_t align = ~static_cast<std::uint64_t>(segment - 1);
    while (pending.any()) {
        const std::uint64_t base = addr[pending.first()] & align;
        transaction<W> t;
        t.addr = base;
        t.size = segment;
        t.request = request;
        for (const std::size_t lane : pending) {
            if ((addr[lane] & align) != base) continue;
            t.lanes.set(lane);
            t.bytes.set_range(static_cast<std::uint32_t>(addr[lane] - base), access_bytes);
        }
        pending = pending.minus(t.lanes);
        out.push(t);
    }
}

} // namespace warpkit::mem::detail
