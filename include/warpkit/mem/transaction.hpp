#pragma once
/// \file
/// `transaction<W>` (one memory transaction a warp access generates: aligned address, size,
/// the lanes it serves, the bytes and 32-byte sectors it touches) and `transaction_list<W>`,
/// the fixed-capacity list a coalescer fills without allocating.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace warpkit::mem {

/// Largest transaction any coalescer emits (one 128-byte line or segment).
inline constexpr std::uint32_t max_transaction_bytes = 128;
/// Granularity of the sector mask of a transaction.
inline constexpr std::uint32_t sector_bytes = 32;

/// Per-lane byte addresses of one warp access.
template <std::size_t W>
using lane_addresses = std::array<std::uint64_t, W>;

/// Bytes 0..127 of a transaction, relative to its address; bit i = byte i.
class byte_mask {
public:
    constexpr byte_mask() noexcept = default;
    /// A mask from its raw words: bytes 0..63, then 64..127.
    constexpr byte_mask(std::uint64_t low, std::uint64_t high) noexcept : words_{low, high} {}

    /// Bytes [offset, offset + n) (offset + n <= 128).
    [[nodiscard]] static constexpr byte_mask range(std::uint32_t offset, std::uint32_t n) noexcept {
        byte_mask m;
        m.set_range(offset, n);
        return m;
    }

    /// Sets bytes [offset, offset + n); offset + n <= 128.
    constexpr void set_range(std::uint32_t offset, std::uint32_t n) noexcept {
        for (std::uint32_t w = 0; w < 2; ++w) {
            const std::uint32_t lo = w * 64;
            const std::uint32_t a = offset > lo ? offset - lo : 0;
            const std::uint32_t end = offset + n;
            const std::uint32_t b = end > lo + 64 ? 64 : (end > lo ? end - lo : 0);
            if (b > a) words_[w] |= bits(a, b);
        }
    }
    /// Sets bytes [offset, offset + n) of a naturally aligned access (n a power of two
    /// <= 64, offset a multiple of n): they never straddle a 64-byte word.
    constexpr void set_aligned(std::uint32_t offset, std::uint32_t n) noexcept {
        const std::uint64_t run = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
        words_[(offset / 64) & 1u] |= run << (offset % 64);
    }
    [[nodiscard]] constexpr bool test(std::uint32_t byte) const noexcept {
        return byte < 128 && ((words_[byte / 64] >> (byte % 64)) & 1u) != 0;
    }
    /// True when any byte in [offset, offset + n) is set.
    [[nodiscard]] constexpr bool any_in(std::uint32_t offset, std::uint32_t n) const noexcept {
        return (*this & range(offset, n)).any();
    }
    /// The same bytes seen from `n` bytes further up (byte i becomes byte i - n).
    [[nodiscard]] constexpr byte_mask shifted_down(std::uint32_t n) const noexcept {
        byte_mask m;
        if (n >= 128) return m;
        if (n >= 64) {
            m.words_[0] = words_[1] >> (n - 64);
        } else if (n == 0) {
            m = *this;
        } else {
            m.words_[0] = (words_[0] >> n) | (words_[1] << (64 - n));
            m.words_[1] = words_[1] >> n;
        }
        return m;
    }
    [[nodiscard]] constexpr std::uint32_t count() const noexcept {
        return static_cast<std::uint32_t>(std::popcount(words_[0]) + std::popcount(words_[1]));
    }
    [[nodiscard]] constexpr bool any() const noexcept { return (words_[0] | words_[1]) != 0; }
    [[nodiscard]] constexpr bool none() const noexcept { return !any(); }
    /// Raw words: bytes 0..63, then 64..127.
    [[nodiscard]] constexpr std::uint64_t word(std::size_t i) const noexcept { return words_[i]; }
    /// Bit s set when any byte of 32-byte sector s is set.
    [[nodiscard]] constexpr std::uint32_t sectors() const noexcept {
        std::uint32_t s = 0;
        for (std::uint32_t i = 0; i < 4; ++i)
            if (any_in(i * sector_bytes, sector_bytes)) s |= 1u << i;
        return s;
    }

    constexpr byte_mask& operator|=(const byte_mask& o) noexcept {
        words_[0] |= o.words_[0];
        words_[1] |= o.words_[1];
        return *this;
    }
    constexpr byte_mask& operator&=(const byte_mask& o) noexcept {
        words_[0] &= o.words_[0];
        words_[1] &= o.words_[1];
        return *this;
    }
    friend constexpr byte_mask operator|(byte_mask a, const byte_mask& b) noexcept {
        return a |= b;
    }
    friend constexpr byte_mask operator&(byte_mask a, const byte_mask& b) noexcept {
        return a &= b;
    }
    friend constexpr bool operator==(const byte_mask&, const byte_mask&) noexcept = default;

private:
    static constexpr std::uint64_t bits(std::uint32_t a, std::uint32_t b) noexcept {
        const std::uint64_t upto = b >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
        return upto & ~((std::uint64_t{1} << a) - 1);
    }
    std::array<std::uint64_t, 2> words_{};
};

/// One memory transaction: `size` bytes at `addr` (aligned to `size`), serving `lanes`.
template <std::size_t W>
struct transaction {
    std::uint64_t addr = 0;    ///< first byte, a multiple of size
    std::uint32_t size = 0;    ///< bytes: 32, 64 or 128
    std::uint32_t request = 0; ///< which request of the access (half/quarter warp) it belongs to
    lane_mask<W> lanes{};      ///< lanes whose bytes it carries
    byte_mask bytes{};         ///< bytes the lanes touch, relative to addr
    /// 32-byte sectors touched, relative to addr (bit s = bytes [32s, 32s + 32)).
    [[nodiscard]] constexpr std::uint32_t sectors() const noexcept { return bytes.sectors(); }
    friend constexpr bool operator==(const transaction&, const transaction&) noexcept = default;
};

/// At most W transactions (every transaction serves at least one lane), stored in place.
template <std::size_t W>
class transaction_list {
public:
    using value_type = transaction<W>;
    using const_iterator = const value_type*;

    [[nodiscard]] static constexpr std::size_t capacity() noexcept { return W; }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    /// Requests (half/quarter-warp groups) of the access with at least one active lane.
    [[nodiscard]] constexpr std::uint32_t requests() const noexcept { return requests_; }
    constexpr void set_requests(std::uint32_t n) noexcept { requests_ = n; }
    constexpr void clear() noexcept {
        size_ = 0;
        requests_ = 0;
    }
    /// Appends a transaction; the list must not be full.
    constexpr value_type& push(const value_type& t) {
        WARPKIT_EXPECTS(size_ < W);
        items_[size_] = t;
        return items_[size_++];
    }
    [[nodiscard]] constexpr const value_type& operator[](std::size_t i) const {
        WARPKIT_EXPECTS(i < size_);
        return items_[i];
    }
    [[nodiscard]] constexpr value_type& operator[](std::size_t i) {
        WARPKIT_EXPECTS(i < size_);
        return items_[i];
    }
    [[nodiscard]] constexpr const_iterator begin() const noexcept { return items_.data(); }
    [[nodiscard]] constexpr const_iterator end() const noexcept { return items_.data() + size_; }
    /// Total bytes moved by the transactions.
    [[nodiscard]] constexpr std::uint64_t bytes_moved() const noexcept {
        std::uint64_t b = 0;
        for (std::size_t i = 0; i < size_; ++i)
            b += items_[i].size;
        return b;
    }

private:
    std::array<value_type, W> items_{};
    std::size_t size_ = 0;
    std::uint32_t requests_ = 0;
};

/// True for the per-lane access sizes GPUs coalesce: 1, 2, 4, 8 or 16 bytes.
[[nodiscard]] constexpr bool valid_access_bytes(std::uint32_t n) noexcept {
    return n == 1 || n == 2 || n == 4 || n == 8 || n == 16;
}

} // namespace warpkit::mem
