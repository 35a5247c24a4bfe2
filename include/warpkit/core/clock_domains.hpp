#pragma once
/// \file
/// `clock_domains`: steps several clock domains (core, interconnect, L2, DRAM...) in the order
/// of their edges, with exact integer time (no floating-point drift between domains).

#include <warpkit/core/cycle.hpp>
#include <warpkit/core/error.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>

namespace warpkit {

/// Clock domains given by frequency (kHz, MHz) or period (ps). Edge k of a domain with period
/// P happens at exactly k * P picoseconds; periods such as 1e6/700 ps are kept as exact
/// fractions over a common base, so 700 MHz and 924 MHz edges meet exactly at t = 1 us.
/// Every domain has an edge at t = 0. `next()` moves to the earliest pending edge and reports
/// every domain that has an edge at that instant.
class clock_domains {
public:
    /// Most domains one object can step (the edge mask is one 32-bit word).
    static constexpr std::size_t max_domains = 32;
    using id = std::size_t;

    /// The domains that have an edge at one instant.
    struct edge {
        std::uint32_t mask = 0;    ///< bit i set: domain i has an edge now
        std::uint64_t time_ps = 0; ///< time of the edge, rounded down to whole picoseconds
        [[nodiscard]] constexpr bool has(id d) const noexcept { return (mask >> d) & 1U; }
    };

    /// Adds a domain running at `mhz` megahertz.
    id add_mhz(std::string_view name, std::uint64_t mhz) {
        if (mhz == 0 || mhz > 1'000'000)
            throw config_error(std::string(name) + ".frequency_mhz", std::to_string(mhz),
                               "[1, 1000000]");
        return add_khz(name, mhz * 1000);
    }

    /// Adds a domain running at `khz` kilohertz (period 1e9 / khz ps, kept exact).
    id add_khz(std::string_view name, std::uint64_t khz) {
        if (khz == 0 || khz > 1'000'000'000)
            throw config_error(std::string(name) + ".frequency_khz", std::to_string(khz),
                               "[1, 1000000000]");
        return add(name, 1'000'000'000, khz);
    }

    /// Adds a domain whose period is `ps` picoseconds.
    id add_period_ps(std::string_view name, std::uint64_t ps) {
        if (ps == 0 || ps > 1'000'000'000'000ULL)
            throw config_error(std::string(name) + ".period_ps", std::to_string(ps),
                               "[1, 1000000000000]");
        return add(name, ps, 1);
    }

    /// Moves time to the earliest pending edge and returns the domains ticking there.
    edge next() {
        WARPKIT_EXPECTS(count_ > 0);
        started_ = true;
        u128 t = domains_[0].next;
        for (std::size_t i = 1; i < count_; ++i)
            if (domains_[i].next < t) t = domains_[i].next;
        edge e;
        for (std::size_t i = 0; i < count_; ++i) {
            auto& d = domains_[i];
            if (d.next == t) {
                e.mask |= 1U << i;
                d.next += d.period;
                ++d.edges;
            }
        }
        now_ = t;
        e.time_ps = static_cast<std::uint64_t>(t / base_);
        return e;
    }

    /// Edges domain `d` has had so far (after the first `next()`, at least 1).
    [[nodiscard]] cycle cycles(id d) const {
        WARPKIT_EXPECTS(d < count_);
        return cycle{domains_[d].edges};
    }
    /// Current time, rounded down to whole picoseconds.
    [[nodiscard]] std::uint64_t now_ps() const noexcept {
        return static_cast<std::uint64_t>(now_ / base_);
    }
    /// True if the current time is exactly `ps` picoseconds.
    [[nodiscard]] bool now_is_exactly_ps(std::uint64_t ps) const noexcept {
        return now_ == static_cast<u128>(ps) * base_;
    }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    [[nodiscard]] const std::string& name(id d) const {
        WARPKIT_EXPECTS(d < count_);
        return domains_[d].name;
    }
    /// Period of domain `d` as an exact fraction of picoseconds.
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> period_ps_fraction(id d) const {
        WARPKIT_EXPECTS(d < count_);
        return {domains_[d].num, domains_[d].den};
    }

private:
    __extension__ using u128 = unsigned __int128;

    struct domain {
        std::string name;
        std::uint64_t num = 1; // period = num / den picoseconds, reduced
        std::uint64_t den = 1;
        u128 period = 0; // in units of 1/base_ ps
        u128 next = 0;
        std::uint64_t edges = 0;
    };

    id add(std::string_view name, std::uint64_t num, std::uint64_t den) {
        if (started_)
            throw contract_error("clock_domains: domain '" + std::string(name) +
                                 "' added after stepping started");
        if (count_ == max_domains)
            throw config_error("clock_domains.size", std::to_string(count_ + 1),
                               "[1, " + std::to_string(max_domains) + "]");
        const std::uint64_t g = std::gcd(num, den);
        auto& d = domains_[count_];
        d.name = std::string(name);
        d.num = num / g;
        d.den = den / g;
        const std::uint64_t new_base = std::lcm(base_, d.den);
        if (new_base > (std::uint64_t{1} << 40))
            throw config_error(d.name, std::to_string(num) + "/" + std::to_string(den) + " ps",
                               "periods whose denominators have a common multiple below 2^40");
        base_ = new_base;
        ++count_;
        for (std::size_t i = 0; i < count_; ++i) {
            domains_[i].period = static_cast<u128>(domains_[i].num) * (base_ / domains_[i].den);
            domains_[i].next = 0;
        }
        return count_ - 1;
    }

    std::array<domain, max_domains> domains_{};
    std::size_t count_ = 0;
    std::uint64_t base_ = 1; // time unit is 1/base_ picoseconds
    u128 now_ = 0;
    bool started_ = false;
};

} // namespace warpkit
