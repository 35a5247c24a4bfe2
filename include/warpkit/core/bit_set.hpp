#pragma once
/// \file
/// `bit_set<Bits>`: a fixed-width set of small indices held in 64-bit words, constexpr, with
/// the operations per-cycle bookkeeping needs (intersection, union, population count, and a
/// visit of the members in ascending order by count-trailing-zeros). A width of 64 is one
/// machine word, so a part that takes its width as a template parameter pays nothing for it
/// at the width it had before; wider sets (a scoreboard of 255 registers) cost one word per
/// 64 members.

#include <warpkit/core/error.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace warpkit {

template <std::size_t Bits>
requires(Bits > 0) class bit_set {
public:
    /// Members are below this.
    static constexpr std::size_t width = Bits;
    /// 64-bit words the set takes.
    static constexpr std::size_t words = (Bits + 63) / 64;

    constexpr bit_set() noexcept = default;

    /// The set of every index below `n` (n <= Bits).
    [[nodiscard]] static constexpr bit_set below(std::size_t n) noexcept {
        bit_set s;
        for (std::size_t w = 0; w < words; ++w) {
            const std::size_t lo = w * 64;
            if (n >= lo + 64)
                s.words_[w] = ~std::uint64_t{0};
            else if (n > lo)
                s.words_[w] = (std::uint64_t{1} << (n - lo)) - 1;
        }
        return s;
    }

    /// Adds `i` (< Bits).
    constexpr bit_set& set(std::size_t i) {
        WARPKIT_EXPECTS(i < Bits);
        words_[i / 64] |= std::uint64_t{1} << (i % 64);
        return *this;
    }
    /// Adds `i` (< Bits) when `member`, without a branch on it (for flags that change from
    /// call to call, where a branch would mispredict).
    constexpr bit_set& set_if(std::size_t i, bool member) {
        WARPKIT_EXPECTS(i < Bits);
        words_[i / 64] |= std::uint64_t{member} << (i % 64);
        return *this;
    }
    /// Removes `i` (< Bits).
    constexpr bit_set& reset(std::size_t i) {
        WARPKIT_EXPECTS(i < Bits);
        words_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
        return *this;
    }
    /// True when `i` is a member (false for any `i` >= Bits).
    [[nodiscard]] constexpr bool test(std::size_t i) const noexcept {
        return i < Bits && ((words_[i / 64] >> (i % 64)) & 1U) != 0;
    }
    [[nodiscard]] constexpr bool any() const noexcept {
        std::uint64_t all = 0;
        for (const auto w : words_)
            all |= w;
        return all != 0;
    }
    [[nodiscard]] constexpr bool none() const noexcept { return !any(); }
    /// Members in the set.
    [[nodiscard]] constexpr std::size_t count() const noexcept {
        std::size_t n = 0;
        for (const auto w : words_)
            n += static_cast<std::size_t>(std::popcount(w));
        return n;
    }
    /// True when the two sets share a member.
    [[nodiscard]] constexpr bool intersects(const bit_set& o) const noexcept {
        std::uint64_t common = 0;
        for (std::size_t w = 0; w < words; ++w)
            common |= words_[w] & o.words_[w];
        return common != 0;
    }
    /// True when every member is also in `o`.
    [[nodiscard]] constexpr bool subset_of(const bit_set& o) const noexcept {
        std::uint64_t outside = 0;
        for (std::size_t w = 0; w < words; ++w)
            outside |= words_[w] & ~o.words_[w];
        return outside == 0;
    }
    /// Calls `visit(i)` for every member `i`, in ascending order.
    template <class Visit>
    constexpr void for_each(Visit&& visit) const {
        // visit_until with a visitor that never stops. A void visitor is passed as it is: a
        // wrapping lambda would be one more call level for the inliner, which then leaves the
        // scoreboard's release loop slower.
        if constexpr (std::is_void_v<std::invoke_result_t<Visit&, std::size_t>>)
            visit_until(visit);
        else
            visit_until([&visit](std::size_t i) { (void)visit(i); });
    }
    /// Calls `visit(i)` for the members in ascending order until it returns true; returns
    /// whether it did. A visitor returning void never stops.
    template <class Visit>
    constexpr bool visit_until(Visit&& visit) const {
        for (std::size_t w = 0; w < words; ++w)
            for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
                const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
                if constexpr (std::is_void_v<decltype(visit(i))>)
                    visit(i);
                else if (visit(i))
                    return true;
            }
        return false;
    }
    /// Word `w` of the set (members 64w .. 64w + 63).
    [[nodiscard]] constexpr std::uint64_t word(std::size_t w) const {
        WARPKIT_EXPECTS(w < words);
        return words_[w];
    }

    /// Sets word `w` of the set to `bits` (members 64w .. 64w + 63; those >= Bits dropped).
    constexpr bit_set& set_word(std::size_t w, std::uint64_t bits) {
        WARPKIT_EXPECTS(w < words);
        const std::size_t left = Bits - w * 64;
        words_[w] = left >= 64 ? bits : bits & ((std::uint64_t{1} << left) - 1);
        return *this;
    }

    constexpr bit_set& operator|=(const bit_set& o) noexcept {
        for (std::size_t w = 0; w < words; ++w)
            words_[w] |= o.words_[w];
        return *this;
    }
    constexpr bit_set& operator&=(const bit_set& o) noexcept {
        for (std::size_t w = 0; w < words; ++w)
            words_[w] &= o.words_[w];
        return *this;
    }
    /// Removes the members of `o`.
    constexpr bit_set& remove(const bit_set& o) noexcept {
        for (std::size_t w = 0; w < words; ++w)
            words_[w] &= ~o.words_[w];
        return *this;
    }
    [[nodiscard]] friend constexpr bit_set operator|(bit_set a, const bit_set& b) noexcept {
        return a |= b;
    }
    [[nodiscard]] friend constexpr bit_set operator&(bit_set a, const bit_set& b) noexcept {
        return a &= b;
    }
    friend constexpr bool operator==(const bit_set&, const bit_set&) noexcept = default;

private:
    std::array<std::uint64_t, words> words_{};
};

} // namespace warpkit
