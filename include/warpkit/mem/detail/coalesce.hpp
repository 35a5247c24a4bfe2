#pragma once
/// \file
/// Shared machinery of the coalescers: precondition checks and the "leader" loop that groups
/// the lanes of one request by segment (paper 001 Section 2.5: take the first pending lane's
/// base address, gather every lane with the same base, repeat).

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <bit>
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
    // OR of the addresses: one test for all lanes, no division (access_bytes is a power of 2).
    std::uint64_t any = 0;
    for (const std::size_t lane : active)
        any |= addr[lane];
    WARPKIT_EXPECTS((any & (access_bytes - 1u)) == 0);
}

/// Lanes in one request: the lanes whose data fills `request_bytes` (at least 1, at most W).
template <std::size_t W>
[[nodiscard]] constexpr std::size_t lanes_per_request(std::uint32_t request_bytes,
                                                      std::uint32_t access_bytes) noexcept {
    const std::size_t n = request_bytes / access_bytes;
    return n == 0 ? 1 : (n > W ? W : n);
}

/// Lanes of `pending` whose key equals `key` (a branch-free pass over all W lanes).
template <std::size_t W>
[[nodiscard]] constexpr lane_mask<W> same_key(const std::array<std::uint64_t, W>& keys,
                                              std::uint64_t key, lane_mask<W> pending) noexcept {
    typename lane_mask<W>::word_type m = 0;
    for (std::size_t l = 0; l < W; ++l)
        m |= static_cast<typename lane_mask<W>::word_type>(
            static_cast<typename lane_mask<W>::word_type>(keys[l] == key) << l);
    return lane_mask<W>{m} & pending;
}

/// Bytes that `lanes` touch (naturally aligned accesses of `access_bytes`), relative to
/// `base`; every lane's access lies in [base, base + 128).
template <std::size_t W>
[[nodiscard]] constexpr byte_mask lane_bytes(const lane_addresses<W>& addr, std::uint64_t base,
                                             std::uint32_t access_bytes,
                                             lane_mask<W> lanes) noexcept {
    // Two register accumulators: or-ing into memory would chain every lane through a store.
    const std::uint64_t run = (std::uint64_t{1} << access_bytes) - 1;
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    for (const std::size_t lane : lanes) {
        const auto off = static_cast<std::uint32_t>(addr[lane] - base);
        const std::uint64_t v = run << (off % 64);
        const std::uint64_t upper = std::uint64_t{0} - ((off >> 6) & 1u);
        high |= v & upper;
        low |= v & ~upper;
    }
    return {low, high};
}

/// Emits one transaction per `segment`-byte aligned segment touched by `pending` lanes, in
/// order of their lowest lane; the transaction keeps the segment's full size.
template <std::size_t W>
constexpr void gather_segments(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                               lane_mask<W> pending, std::uint32_t segment, std::uint32_t request,
                               transaction_list<W>& out) {
    const auto shift = static_cast<unsigned>(std::countr_zero(segment));
    std::array<std::uint64_t, W> keys;
    for (std::size_t l = 0; l < W; ++l)
        keys[l] = addr[l] >> shift;
    while (pending.any()) {
        const std::uint64_t key = keys[pending.first()];
        transaction<W> t;
        t.addr = key << shift;
        t.size = segment;
        t.request = request;
        t.lanes = same_key(keys, key, pending);
        t.bytes = lane_bytes(addr, t.addr, access_bytes, t.lanes);
        pending = pending.minus(t.lanes);
        out.push(t);
    }
}

/// Splits the access into requests of `request_bytes` of data (half / quarter warps for 8- and
/// 16-byte words) and emits each request's `segment`-byte segments (line and sector
/// coalescers).
template <std::size_t W>
constexpr void coalesce_requests(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                                 lane_mask<W> active, std::uint32_t request_bytes,
                                 std::uint32_t segment, transaction_list<W>& out) {
    check_access(addr, access_bytes, active);
    out.clear();
    const std::size_t per = lanes_per_request<W>(request_bytes, access_bytes);
    std::uint32_t request = 0;
    std::uint32_t used = 0;
    for (std::size_t lo = 0; lo < W; lo += per, ++request) {
        const lane_mask<W> lanes = active & lane_range<W>(lo, lo + per);
        if (lanes.none()) continue;
        ++used;
        gather_segments(addr, access_bytes, lanes, segment, request, out);
    }
    out.set_requests(used);
}

} // namespace warpkit::mem::detail
