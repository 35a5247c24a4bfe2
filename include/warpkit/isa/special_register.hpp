#pragma once
/// \file
/// Special registers read by LDS: thread, block and grid coordinates, lane/warp/SM ids, the
/// clock, and the kernel parameters (PARAM words of the kernel image).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpkit::isa {

/// Special register numbers as held in LDS's src1 field. Kernel parameter k (k < 16) is
/// register param0 + k.
enum class special_register : std::uint8_t {
    tid_x,
    tid_y,
    tid_z, ///< thread index in the block
    ntid_x,
    ntid_y,
    ntid_z, ///< block dimensions
    ctaid_x,
    ctaid_y,
    ctaid_z, ///< block index in the grid
    nctaid_x,
    nctaid_y,
    nctaid_z, ///< grid dimensions
    laneid,   ///< lane within the warp
    warpid,   ///< warp within the block
    smid,     ///< multiprocessor executing the block
    clock,    ///< low 32 bits of the core cycle counter
    param0,   ///< first of 16 kernel parameters
};

/// Kernel parameters addressable by LDS.
inline constexpr std::uint32_t max_params = 16;
/// Number of special register numbers (params included).
inline constexpr std::uint32_t special_register_count =
    static_cast<std::uint32_t>(special_register::param0) + max_params;

/// Assembly name of special register number `n` ("%tid.x", "%param3"); empty if invalid.
[[nodiscard]] inline std::string special_register_name(std::uint32_t n) {
    static constexpr std::array<std::string_view, 16> fixed = {
        "%tid.x",   "%tid.y",   "%tid.z",   "%ntid.x",   "%ntid.y",   "%ntid.z",
        "%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z",
        "%laneid",  "%warpid",  "%smid",    "%clock"};
    if (n < fixed.size()) return std::string(fixed[n]);
    if (n < special_register_count)
        return "%param" + std::to_string(n - static_cast<std::uint32_t>(special_register::param0));
    return {};
}

/// The special register number named `text`, if any.
[[nodiscard]] inline std::optional<std::uint32_t> find_special_register(std::string_view text) {
    for (std::uint32_t n = 0; n < special_register_count; ++n)
        if (special_register_name(n) == text) return n;
    return std::nullopt;
}

} // namespace warpkit::isa
