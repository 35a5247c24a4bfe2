#pragma once
/// \file
/// Presets by name: tools and harnesses pick a GPU at run time (`--preset fermi_gtx480`) and
/// get the statically assembled type.

#include <warpkit/core/error.hpp>
#include <warpkit/gpu/presets.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace warpkit::gpu {

/// A preset type passed as a value.
template <class Preset>
struct preset_tag {
    using type = Preset;
};

/// Names of the presets `visit_preset` knows.
inline constexpr std::array<std::string_view, 4> preset_names{"fermi_gtx480", "tesla_seed004",
                                                              "amoeba_48", "amoeba_48_fused"};

/// Calls `f(preset_tag<P>{})` with the preset called `name` and returns what it returns.
/// Throws config_error("preset", name, <the known names>) for any other name.
template <class F>
decltype(auto) visit_preset(std::string_view name, F&& f) {
    if (name == preset_names[0]) return std::forward<F>(f)(preset_tag<fermi_gtx480>{});
    if (name == preset_names[1]) return std::forward<F>(f)(preset_tag<tesla_seed004>{});
    if (name == preset_names[2]) return std::forward<F>(f)(preset_tag<amoeba_48>{});
    if (name == preset_names[3]) return std::forward<F>(f)(preset_tag<amoeba_48_fused>{});
    std::string known;
    for (const auto n : preset_names)
        known += (known.empty() ? "" : ", ") + std::string(n);
    throw config_error("preset", std::string(name), known);
}

/// Threads per warp of the preset called `name` (kernels run on it with warps this wide).
[[nodiscard]] inline std::uint32_t preset_warp_size(std::string_view name) {
    return visit_preset(
        name, [](auto tag) { return static_cast<std::uint32_t>(decltype(tag)::type::warp_size); });
}

} // namespace warpkit::gpu
