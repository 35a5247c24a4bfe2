#pragma once
/// \file
/// `lane_mask<N>`: the active-lane mask of a warp of N lanes (N <= 64) in one machine word.

#include <warpkit/core/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

namespace warpkit {

/// A set of lanes of an N-lane warp, held in one 32- or 64-bit word; lane i is bit i.
template <std::size_t N>
class lane_mask {
    static_assert(N >= 1 && N <= 64, "lane_mask supports 1 to 64 lanes");

public:
    /// The machine word holding the mask.
    using word_type = std::conditional_t<(N <= 32), std::uint32_t, std::uint64_t>;
    static constexpr std::size_t lanes = N;
    static constexpr word_type full_bits = N == sizeof(word_type) * 8
                                               ? ~word_type{0}
                                               : static_cast<word_type>((word_type{1} << N) - 1);

    /// Iterates the set lanes in ascending order.
    class iterator {
    public:
        using value_type = std::size_t;
        using difference_type = std::ptrdiff_t;
        using iterator_category = std::forward_iterator_tag;
        constexpr iterator() noexcept = default;
        constexpr explicit iterator(word_type rest) noexcept : rest_(rest) {}
        constexpr std::size_t operator*() const noexcept {
            return static_cast<std::size_t>(std::countr_zero(rest_));
        }
        constexpr iterator& operator++() noexcept {
            rest_ &= static_cast<word_type>(rest_ - 1);
            return *this;
        }
        constexpr iterator operator++(int) noexcept {
            iterator old = *this;
            ++*this;
            return old;
        }
        friend constexpr bool operator==(iterator, iterator) noexcept = default;

    private:
        word_type rest_ = 0;
    };

    constexpr lane_mask() noexcept = default;
    /// A mask from raw bits; bits at or above N are dropped.
    constexpr explicit lane_mask(word_type bits) noexcept : bits_(bits & full_bits) {}

    /// All N lanes.
    [[nodiscard]] static constexpr lane_mask full() noexcept { return lane_mask{full_bits}; }
    /// Lanes 0 .. n-1 (n <= N).
    [[nodiscard]] static constexpr lane_mask first_n(std::size_t n) noexcept {
        return n >= N ? full()
                      : lane_mask{static_cast<word_type>((word_type{1} << n) - word_type{1})};
    }
    /// Only lane `lane`.
    [[nodiscard]] static constexpr lane_mask single(std::size_t lane) {
        WARPKIT_EXPECTS(lane < N);
        return lane_mask{static_cast<word_type>(word_type{1} << lane)};
    }

    [[nodiscard]] constexpr word_type bits() const noexcept { return bits_; }
    [[nodiscard]] static constexpr std::size_t size() noexcept { return N; }
    [[nodiscard]] constexpr bool test(std::size_t lane) const {
        WARPKIT_EXPECTS(lane < N);
        return ((bits_ >> lane) & word_type{1}) != 0;
    }
    constexpr lane_mask& set(std::size_t lane, bool value = true) {
        WARPKIT_EXPECTS(lane < N);
        const auto bit = static_cast<word_type>(word_type{1} << lane);
        bits_ = value ? static_cast<word_type>(bits_ | bit) : static_cast<word_type>(bits_ & ~bit);
        return *this;
    }
    constexpr lane_mask& reset(std::size_t lane) { return set(lane, false); }

    /// Number of set lanes.
    [[nodiscard]] constexpr std::size_t count() const noexcept {
        return static_cast<std::size_t>(std::popcount(bits_));
    }
    [[nodiscard]] constexpr bool any() const noexcept { return bits_ != 0; }
    [[nodiscard]] constexpr bool none() const noexcept { return bits_ == 0; }
    [[nodiscard]] constexpr bool all() const noexcept { return bits_ == full_bits; }
    /// Lowest set lane; N when the mask is empty.
    [[nodiscard]] constexpr std::size_t first() const noexcept {
        return bits_ == 0 ? N : static_cast<std::size_t>(std::countr_zero(bits_));
    }
    /// Highest set lane; N when the mask is empty.
    [[nodiscard]] constexpr std::size_t last() const noexcept {
        return bits_ == 0
                   ? N
                   : sizeof(word_type) * 8 - 1 - static_cast<std::size_t>(std::countl_zero(bits_));
    }

    [[nodiscard]] constexpr iterator begin() const noexcept { return iterator{bits_}; }
    [[nodiscard]] constexpr iterator end() const noexcept { return iterator{}; }
    /// Calls f(lane) for each set lane in ascending order.
    template <class F>
    constexpr void for_each(F&& f) const {
        for (word_type rest = bits_; rest != 0; rest &= static_cast<word_type>(rest - 1))
            f(static_cast<std::size_t>(std::countr_zero(rest)));
    }

    [[nodiscard]] constexpr bool contains(lane_mask other) const noexcept {
        return (other.bits_ & ~bits_) == 0;
    }
    /// Lanes in *this and not in `other`.
    [[nodiscard]] constexpr lane_mask minus(lane_mask other) const noexcept {
        return lane_mask{static_cast<word_type>(bits_ & ~other.bits_)};
    }

    constexpr lane_mask& operator&=(lane_mask o) noexcept {
        bits_ &= o.bits_;
        return *this;
    }
    constexpr lane_mask& operator|=(lane_mask o) noexcept {
        bits_ |= o.bits_;
        return *this;
    }
    constexpr lane_mask& operator^=(lane_mask o) noexcept {
        bits_ ^= o.bits_;
        return *this;
    }
    friend constexpr lane_mask operator&(lane_mask a, lane_mask b) noexcept { return a &= b; }
    friend constexpr lane_mask operator|(lane_mask a, lane_mask b) noexcept { return a |= b; }
    friend constexpr lane_mask operator^(lane_mask a, lane_mask b) noexcept { return a ^= b; }
    /// Complement within the N lanes.
    friend constexpr lane_mask operator~(lane_mask a) noexcept {
        return lane_mask{static_cast<word_type>(~a.bits_)};
    }
    friend constexpr bool operator==(lane_mask, lane_mask) noexcept = default;

    /// N characters, lane 0 first: '1' for a set lane, '0' otherwise.
    [[nodiscard]] std::string to_string() const {
        std::string s(N, '0');
        for_each([&](std::size_t lane) { s[lane] = '1'; });
        return s;
    }

private:
    word_type bits_ = 0;
};

/// The 32-lane mask of NVIDIA warps.
using warp_mask = lane_mask<32>;

} // namespace warpkit
