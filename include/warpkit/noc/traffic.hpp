#pragma once
/// \file
/// Synthetic traffic patterns as BookSim defines them, over nodes numbered as a k-ary
/// n-cube (node x + k y): uniform (destination uniform over all nodes, the source included),
/// transpose ((x, y) -> (y, x); diagonal nodes send to themselves), bit complement, and
/// hotspot (a fraction of the packets to a set of hotspot nodes, the rest uniform).

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/packet.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::noc {

/// Where packets go.
enum class traffic_pattern : std::uint8_t { uniform, transpose, bit_complement, hotspot };

} // namespace warpkit::noc

template <>
struct warpkit::enum_names<warpkit::noc::traffic_pattern> {
    static constexpr std::array<std::string_view, 4> names = {"uniform", "transpose",
                                                              "bit_complement", "hotspot"};
};

namespace warpkit::noc {

/// A traffic pattern over k^n nodes (n = 1 or 2).
struct traffic_params {
    traffic_pattern pattern = traffic_pattern::uniform;
    std::uint32_t k = 8;
    std::uint32_t n = 2;
    std::vector<std::uint32_t> hotspots = {0}; ///< hotspot destinations (hotspot pattern)
    double hotspot_fraction = 1.0;             ///< share of packets sent to a hotspot
    WARPKIT_FIELDS(traffic_params, pattern, k, n, hotspots, hotspot_fraction)

    [[nodiscard]] std::uint32_t nodes() const noexcept { return n == 1 ? k : k * k; }

    void validate() const {
        check_range("k", k, 1u, 4096u);
        check_range("n", n, 1u, 2u);
        check(nodes() <= 4096, "k", k, "k^n <= 4096");
        check(pattern != traffic_pattern::transpose || n == 2, "pattern", "transpose",
              "transpose needs n = 2");
        check(pattern != traffic_pattern::bit_complement || std::has_single_bit(nodes()), "pattern",
              "bit_complement", "bit_complement needs a power-of-two node count");
        check(pattern != traffic_pattern::hotspot || !hotspots.empty(), "hotspots", "[]",
              "at least one hotspot node");
        for (std::size_t i = 0; i < hotspots.size(); ++i)
            check(hotspots[i] < nodes(), "hotspots[" + std::to_string(i) + "]", hotspots[i],
                  "a node below k^n");
        check(hotspot_fraction >= 0.0 && hotspot_fraction <= 1.0, "hotspot_fraction",
              hotspot_fraction, "[0, 1]");
    }
};

/// Draws destinations for a traffic pattern.
class traffic {
public:
    explicit traffic(const traffic_params& p = {}) : p_(p) { warpkit::validate(p_); }

    [[nodiscard]] const traffic_params& params() const noexcept { return p_; }
    [[nodiscard]] std::uint32_t nodes() const noexcept { return p_.nodes(); }

    /// The destination of a packet from `src` (src < nodes()).
    [[nodiscard]] node_id destination(node_id src, rng& r) const {
        WARPKIT_EXPECTS(src < nodes());
        switch (p_.pattern) {
        case traffic_pattern::uniform:
            return static_cast<node_id>(r.below(nodes()));
        case traffic_pattern::transpose:
            return src / p_.k + p_.k * (src % p_.k);
        case traffic_pattern::bit_complement:
            return ~src & (nodes() - 1);
        case traffic_pattern::hotspot:
            if (p_.hotspot_fraction >= 1.0 || r.bernoulli(p_.hotspot_fraction))
                return p_.hotspots[r.below(p_.hotspots.size())];
            return static_cast<node_id>(r.below(nodes()));
        }
        return src;
    }

private:
    traffic_params p_;
};

} // namespace warpkit::noc
