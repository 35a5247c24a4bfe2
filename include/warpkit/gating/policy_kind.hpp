#pragma once
/// \file
/// `policy_kind`: the gating policies by name, as params choose one (`params::policy`) for an
/// SM whose gating policy is `gating::selectable` (every GPU preset's).

#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace warpkit::gating {

/// The gating policies a `selectable` SM can run, by the name each static policy type has in
/// reports (warpkit-gating's `--policy` names where it has them).
enum class policy_kind : std::uint8_t {
    no_gating,                    ///< "no_gating": never gates (no_gating)
    conventional,                 ///< "conventional": ConvPG, idle-detect gating (conventional)
    naive_blackout,               ///< "naive_blackout": Blackout (naive_blackout)
    coordinated_blackout,         ///< "coordinated_blackout": coordinated Blackout
    adaptive,                     ///< "adaptive": adaptive_idle_detect<naive_blackout>
    adaptive_coordinated_blackout ///< "adaptive_coordinated_blackout": the gating half of
                                  ///< Warped Gates, adaptive_idle_detect<coordinated_blackout>
};

} // namespace warpkit::gating

/// Names of the gating policies in params and reports.
template <>
struct warpkit::enum_names<warpkit::gating::policy_kind> {
    static constexpr std::array<std::string_view, 6> names = {
        "no_gating",      "conventional",
        "naive_blackout", "coordinated_blackout",
        "adaptive",       "adaptive_coordinated_blackout"};
};
