#pragma once
/// \file
/// `cycle`: a count of clock edges of one clock domain, as a strong integer type.

#include <compare>
#include <concepts>
#include <cstdint>
#include <ostream>

namespace warpkit {

/// A cycle count (a point in time or a duration) in one clock domain. It does not mix with
/// plain integers by accident: construction is explicit, arithmetic with unsigned integers is
/// allowed only as an offset (`now + latency`).
class cycle {
public:
    using rep = std::uint64_t;

    constexpr cycle() noexcept = default;
    constexpr explicit cycle(rep v) noexcept : v_(v) {}

    /// The raw count.
    [[nodiscard]] constexpr rep value() const noexcept { return v_; }

    constexpr cycle& operator++() noexcept {
        ++v_;
        return *this;
    }
    constexpr cycle operator++(int) noexcept {
        cycle old = *this;
        ++v_;
        return old;
    }
    constexpr cycle& operator+=(cycle d) noexcept {
        v_ += d.v_;
        return *this;
    }
    constexpr cycle& operator-=(cycle d) noexcept {
        v_ -= d.v_;
        return *this;
    }
    template <std::unsigned_integral U>
    constexpr cycle& operator+=(U d) noexcept {
        v_ += d;
        return *this;
    }

    friend constexpr cycle operator+(cycle a, cycle b) noexcept { return cycle{a.v_ + b.v_}; }
    friend constexpr cycle operator-(cycle a, cycle b) noexcept { return cycle{a.v_ - b.v_}; }
    template <std::unsigned_integral U>
    friend constexpr cycle operator+(cycle a, U d) noexcept {
        return cycle{a.v_ + d};
    }
    template <std::unsigned_integral U>
    friend constexpr cycle operator-(cycle a, U d) noexcept {
        return cycle{a.v_ - d};
    }
    friend constexpr auto operator<=>(cycle, cycle) noexcept = default;
    friend constexpr bool operator==(cycle, cycle) noexcept = default;

    friend std::ostream& operator<<(std::ostream& os, cycle c) { return os << c.v_; }

private:
    rep v_ = 0;
};

inline namespace literals {
/// `12_cy` is `cycle{12}`.
constexpr cycle operator""_cy(unsigned long long v) noexcept {
    return cycle{v};
}
} // namespace literals

} // namespace warpkit
