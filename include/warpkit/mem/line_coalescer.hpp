#pragma once
/// \file
/// `line_coalescer<LineBytes>`: Fermi-style coalescing through the L1 (paper 001 Section 2.5):
/// one transaction per cache line touched. An access whose data exceeds one line per warp is
/// split into requests of LineBytes / access_bytes lanes each (8-byte words: half-warps,
/// 16-byte words: quarter-warps of a 32-lane warp with 128-byte lines), coalesced separately.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/detail/coalesce.hpp>
#include <warpkit/mem/transaction.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::mem {

/// One LineBytes transaction per line touched by each request of the access.
template <std::uint32_t LineBytes = 128>
class line_coalescer {
    static_assert(LineBytes >= 32 && LineBytes <= max_transaction_bytes &&
                      (LineBytes & (LineBytes - 1)) == 0,
                  "LineBytes must be 32, 64 or 128");

public:
    static constexpr std::string_view kind = "line";
    static constexpr std::uint32_t line_bytes = LineBytes;

    /// Fills `out` with the transactions of the access, request 0 first.
    template <std::size_t W>
    constexpr void coalesce(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                            lane_mask<W> active, transaction_list<W>& out) const {
        detail::coalesce_requests(addr, access_bytes, active, LineBytes, LineBytes, out);
    }
};

/// The GTX480 L1 path: 128-byte lines.
using fermi_coalescer = line_coalescer<128>;

} // namespace warpkit::mem
