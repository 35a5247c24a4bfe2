#pragma once
/// \file
/// `rng`: the seeded random engine every randomised warpkit component takes from its caller.

#include <warpkit/core/error.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>

namespace warpkit {

/// xoshiro256** seeded through splitmix64, with its own (portable) distributions: the same
/// seed gives the same numbers with every compiler and standard library, which the standard
/// <random> distributions do not promise. Models UniformRandomBitGenerator.
class rng {
public:
    using result_type = std::uint64_t;

    /// An engine for `seed`; different `stream`s of one seed are independent sequences.
    explicit rng(std::uint64_t seed, std::uint64_t stream = 0) noexcept : seed_(seed) {
        std::uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);
        for (auto& s : s_)
            s = splitmix64(x);
    }

    /// splitmix64 step: advances `x` and returns the next output.
    static constexpr std::uint64_t splitmix64(std::uint64_t& x) noexcept {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    static constexpr result_type min() noexcept { return 0; }
    static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

    /// Next 64 random bits.
    result_type operator()() noexcept {
        const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = std::rotl(s_[3], 45);
        return result;
    }

    /// Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject). n >= 1.
    std::uint64_t below(std::uint64_t n) {
        WARPKIT_EXPECTS(n > 0);
        __extension__ using u128 = unsigned __int128;
        u128 m = static_cast<u128>((*this)()) * n;
        auto low = static_cast<std::uint64_t>(m);
        if (low < n) {
            const std::uint64_t threshold = (0 - n) % n;
            while (low < threshold) {
                m = static_cast<u128>((*this)()) * n;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint64_t>(m >> 64);
    }
    /// Uniform integer in [lo, hi] (inclusive).
    std::uint64_t between(std::uint64_t lo, std::uint64_t hi) {
        WARPKIT_EXPECTS(lo <= hi);
        if (lo == 0 && hi == max()) return (*this)();
        return lo + below(hi - lo + 1);
    }
    /// Uniform double in [0, 1) with 53 random bits.
    double uniform() noexcept { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
    /// True with probability p (p outside [0, 1] is clamped).
    bool bernoulli(double p) noexcept { return uniform() < p; }

    /// An independent engine derived from this one's seed for sub-component `stream`.
    [[nodiscard]] rng fork(std::uint64_t stream) const noexcept {
        std::uint64_t x = seed_ ^ 0x6A09E667F3BCC909ULL;
        return rng{splitmix64(x) + stream, stream + 1};
    }
    [[nodiscard]] std::uint64_t seed() const noexcept { return seed_; }

private:
    std::uint64_t seed_;
    std::array<std::uint64_t, 4> s_{};
};

} // namespace warpkit
