#pragma once
/// \file
/// `cc13_coalescer`: the coalescing rules of compute capability 1.2 and 1.3 devices, applied
/// to each half-warp: take the segment of the lowest pending lane (32 B for 1-byte words,
/// 64 B for 2-byte, 128 B for 4-, 8- and 16-byte words), gather every pending lane in it,
/// shrink the transaction 128 -> 64 -> 32 B while the lanes use only one half, issue, repeat.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/detail/coalesce.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::mem {

/// Compute capability 1.2/1.3 coalescing, one request per half-warp.
class cc13_coalescer {
public:
    static constexpr std::string_view kind = "cc13";
    /// Smallest transaction the memory system accepts.
    static constexpr std::uint32_t min_transaction = 32;

    /// Segment size for a word of `access_bytes` bytes.
    [[nodiscard]] static constexpr std::uint32_t
    segment_bytes(std::uint32_t access_bytes) noexcept {
        return access_bytes == 1 ? 32u : (access_bytes == 2 ? 64u : 128u);
    }

    /// Fills `out` with the transactions of the access, half-warp 0 first.
    template <std::size_t W>
    constexpr void coalesce(const lane_addresses<W>& addr, std::uint32_t access_bytes,
                            lane_mask<W> active, transaction_list<W>& out) const {
        detail::check_access(addr, access_bytes, active);
        out.clear();
        const std::size_t half = (W + 1) / 2;
        const std::uint32_t segment = segment_bytes(access_bytes);
        const auto shift = static_cast<unsigned>(std::countr_zero(segment));
        std::array<std::uint64_t, W> keys;
        for (std::size_t l = 0; l < W; ++l)
            keys[l] = addr[l] >> shift;
        std::uint32_t request = 0;
        std::uint32_t used = 0;
        for (std::size_t lo = 0; lo < W; lo += half, ++request) {
            lane_mask<W> pending = active & detail::lane_range<W>(lo, lo + half);
            if (pending.any()) ++used;
            while (pending.any()) {
                const std::uint64_t key = keys[pending.first()];
                const std::uint64_t base = key << shift;
                transaction<W> t;
                t.request = request;
                t.lanes = detail::same_key(keys, key, pending);
                t.bytes = detail::lane_bytes(addr, base, access_bytes, t.lanes);
                pending = pending.minus(t.lanes);
                shrink(t, base, segment);
                out.push(t);
            }
        }
        out.set_requests(used);
    }

private:
    // Halves the transaction while all its bytes sit in one half of it.
    template <std::size_t W>
    static constexpr void shrink(transaction<W>& t, std::uint64_t base, std::uint32_t size) {
        std::uint32_t offset = 0; // of the transaction within the segment
        while (size > min_transaction) {
            const std::uint32_t h = size / 2;
            const bool low = t.bytes.any_in(offset, h);
            const bool high = t.bytes.any_in(offset + h, h);
            if (low && high) break;
            if (high) offset += h;
            size = h;
        }
        t.addr = base + offset;
        t.size = size;
        t.bytes = t.bytes.shifted_down(offset);
    }
};

} // namespace warpkit::mem
