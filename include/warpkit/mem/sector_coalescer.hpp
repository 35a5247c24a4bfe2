#pragma once
/// \file
/// `sector_coalescer`: one 32-byte transaction per sector touched, the granularity of an
/// L2-only path and of GPUs after Fermi. Requests cover 128 bytes of data as on the line
/// path (8-byte words: half-warps, 16-byte words: quarter-warps of a 32-lane warp).

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/detail/coalesce.hpp>
#include <warpkit/mem/transaction.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::mem {

/// One 32-byte transaction per sector touched by each 128-byte request of the access.
class sector_coalescer {
public:
    static constexpr std::string_view kind = "sector";
    /// Data one request carries.
    static constexpr std::uint32_t request_bytes = 128;

    /// Fills `out` with the transactions of the access, request 0 first.
    template <std::size_t W>
    constexpr void coalesce(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                            lane_mask<W> active, transaction_list<W>& out) const {
        detail::coalesce_requests(addr, access_bytes, active, request_bytes, sector_bytes, out);
    }
};

} // namespace warpkit::mem
