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

/// A preset passed as a value: `type` is what a GPU of it is assembled from (gpu<type>),
/// `params()` its figures. Presets of the same parts share one `type`, so that a program that
/// can run any preset builds one GPU type per set of parts rather than one per preset: every
/// 32-thread preset (fermi_gtx480, tesla_seed004, amoeba_48, volta_qv100, turing_rtx2060,
/// ampere_rtx3070) runs as gpu<selectable_parts32>, whose parts are chosen by params.
template <class Parts, class Figures = Parts>
struct preset_tag {
    using type = Parts;
    /// The preset's own params (its name included).
    [[nodiscard]] static gpu_params params() { return Figures::params(); }
};

/// The parts of the 32-thread presets: the SIMT stack, warp scheduler, gating policy and
/// coalescer each chosen at run time by params.
using selectable_parts32 = detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                                mem::selectable_coalescer>;

/// Names of the presets `visit_preset` knows.
inline constexpr std::array<std::string_view, 7> preset_names{
    "fermi_gtx480", "tesla_seed004", "amoeba_48",     "amoeba_48_fused",
    "volta_qv100",  "turing_rtx2060", "ampere_rtx3070"};

/// Calls `f(tag)` with the preset_tag of the preset called `name` and returns what it returns.
/// Throws config_error("preset", name, <the known names>) for any other name.
template <class F>
decltype(auto) visit_preset(std::string_view name, F&& f) {
    if (name == preset_names[0])
        return std::forward<F>(f)(preset_tag<selectable_parts32, fermi_gtx480>{});
    if (name == preset_names[1])
        return std::forward<F>(f)(preset_tag<selectable_parts32, tesla_seed004>{});
    if (name == preset_names[2])
        return std::forward<F>(f)(preset_tag<selectable_parts32, amoeba_48>{});
    if (name == preset_names[3]) return std::forward<F>(f)(preset_tag<amoeba_48_fused>{});
    if (name == preset_names[4])
        return std::forward<F>(f)(preset_tag<selectable_parts32, volta_qv100>{});
    if (name == preset_names[5])
        return std::forward<F>(f)(preset_tag<selectable_parts32, turing_rtx2060>{});
    if (name == preset_names[6])
        return std::forward<F>(f)(preset_tag<selectable_parts32, ampere_rtx3070>{});
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
