#pragma once
/// \file
/// `coalescing_stats`: what a load/store unit's coalescer counts, from which the coalescing
/// rate of paper 002 (memory transactions sent per memory access of the instructions) and the
/// bytes-moved efficiency follow when reported.

#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/transaction.hpp>

#include <cstddef>
#include <cstdint>

namespace warpkit::mem {

/// Counters of coalesced warp accesses (they add up across load/store units).
struct coalescing_stats {
    std::uint64_t warp_accesses = 0;   ///< warp memory instructions coalesced
    std::uint64_t lane_accesses = 0;   ///< active lanes over those instructions
    std::uint64_t requests = 0;        ///< half/quarter-warp requests with an active lane
    std::uint64_t transactions = 0;    ///< transactions sent
    std::uint64_t bytes_requested = 0; ///< bytes the active lanes asked for
    std::uint64_t bytes_moved = 0;     ///< bytes the transactions carry
    WARPKIT_FIELDS(coalescing_stats, warp_accesses, lane_accesses, requests, transactions,
                   bytes_requested, bytes_moved)

    /// Counts one coalesced access of `active_lanes` lanes of `access_bytes` bytes each.
    template <std::size_t W>
    constexpr void record(const transaction_list<W>& out, std::size_t active_lanes,
                          std::uint32_t access_bytes) noexcept {
        ++warp_accesses;
        lane_accesses += active_lanes;
        requests += out.requests();
        transactions += out.size();
        bytes_requested += static_cast<std::uint64_t>(active_lanes) * access_bytes;
        bytes_moved += out.bytes_moved();
    }
};

/// Transactions per warp access (paper 002's coalescing rate); 0 when nothing was recorded.
[[nodiscard]] constexpr double coalescing_rate(const coalescing_stats& s) noexcept {
    return s.warp_accesses == 0
               ? 0.0
               : static_cast<double>(s.transactions) / static_cast<double>(s.warp_accesses);
}

/// Bytes requested over bytes moved (1 = perfectly coalesced); 0 when nothing moved.
[[nodiscard]] constexpr double transfer_efficiency(const coalescing_stats& s) noexcept {
    return s.bytes_moved == 0
               ? 0.0
               : static_cast<double>(s.bytes_requested) / static_cast<double>(s.bytes_moved);
}

} // namespace warpkit::mem
