#pragma once
/// \file
/// The unit classes instructions execute on; schedulers, gating and power use them.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::isa {

/// Which kind of functional unit executes an instruction.
enum class unit_class : std::uint8_t {
    int_alu, ///< integer pipeline of an SP lane
    fp,      ///< floating-point pipeline of an SP lane
    sfu,     ///< special-function unit (rcp, sqrt, sin, cos, ex2)
    ldst,    ///< load/store unit (shared, global, local, constant memory)
    branch,  ///< control flow handled by the SIMT stack (BRA, SSY, JOIN...)
    ctrl,    ///< everything else that occupies no datapath (barrier, NOP, EXIT)
    dp,      ///< double-precision (FP64) unit; an SM without one runs FP64 on its FP pipelines
    tensor,  ///< tensor core (matrix multiply-accumulate); without one, on the FP pipelines
};

/// Number of unit classes.
inline constexpr std::size_t unit_class_count = 8;

/// Index of a unit class, for arrays indexed by class.
[[nodiscard]] constexpr std::size_t index(unit_class u) noexcept {
    return static_cast<std::size_t>(u);
}

/// Short upper-case name ("INT", "FP", "SFU", "LDST", "BRANCH", "CTRL", "DP", "TENSOR") for
/// reports.
[[nodiscard]] constexpr std::string_view short_name(unit_class u) noexcept {
    constexpr std::array<std::string_view, unit_class_count> n = {
        "INT", "FP", "SFU", "LDST", "BRANCH", "CTRL", "DP", "TENSOR"};
    return n[index(u)];
}

} // namespace warpkit::isa

/// Names used in params files and key=value overrides.
template <>
struct warpkit::enum_names<warpkit::isa::unit_class> {
    static constexpr std::array<std::string_view, 8> names = {"int",    "fp",   "sfu", "ldst",
                                                              "branch", "ctrl", "dp",  "tensor"};
};
