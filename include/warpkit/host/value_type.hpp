#pragma once
/// \file
/// `value_type`: the element and scalar types a host program hands to a kernel (buffers and
/// launch parameters), their sizes and their raw little-endian encoding.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpkit::host {

/// Element type of a device buffer or a scalar launch parameter.
enum class value_type : std::uint8_t { u8, i32, u32, i64, u64, f32, f64 };

/// Number of value types.
inline constexpr std::size_t value_type_count = 7;

/// Size in bytes of one value of type `t`.
[[nodiscard]] constexpr std::size_t size_of(value_type t) noexcept {
    switch (t) {
    case value_type::u8:
        return 1;
    case value_type::i32:
    case value_type::u32:
    case value_type::f32:
        return 4;
    case value_type::i64:
    case value_type::u64:
    case value_type::f64:
        return 8;
    }
    return 0;
}

/// True for f32 and f64.
[[nodiscard]] constexpr bool is_float(value_type t) noexcept {
    return t == value_type::f32 || t == value_type::f64;
}

/// True for i32 and i64.
[[nodiscard]] constexpr bool is_signed_int(value_type t) noexcept {
    return t == value_type::i32 || t == value_type::i64;
}

/// Writes the low `n` (<= 8) bytes of `bits` to `out`, least significant first, whatever the
/// byte order of the host.
inline void store_le(std::byte* out, std::uint64_t bits, std::size_t n) noexcept {
    for (std::size_t b = 0; b < n; ++b)
        out[b] = static_cast<std::byte>((bits >> (8 * b)) & 0xFFU);
}

/// Reads `n` (<= 8) little-endian bytes from `in`, zero-extended.
[[nodiscard]] inline std::uint64_t load_le(const std::byte* in, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < n; ++b)
        v |= std::uint64_t{std::to_integer<std::uint8_t>(in[b])} << (8 * b);
    return v;
}

/// Stores an integer value as type `t` (two's complement, truncated to size_of(t) bytes).
inline void store_int(std::byte* out, value_type t, std::uint64_t bits) noexcept {
    store_le(out, bits, size_of(t));
}

/// Stores a real value as type `t` (f32: rounded to the nearest float; f64 as is).
inline void store_float(std::byte* out, value_type t, double v) noexcept {
    if (t == value_type::f32)
        store_le(out, std::bit_cast<std::uint32_t>(static_cast<float>(v)), 4);
    else
        store_le(out, std::bit_cast<std::uint64_t>(v), 8);
}

} // namespace warpkit::host

/// Names used in launch files ("u8", "i32", ...).
template <>
struct warpkit::enum_names<warpkit::host::value_type> {
    static constexpr std::array<std::string_view, 7> names = {"u8",  "i32", "u32", "i64",
                                                              "u64", "f32", "f64"};
};

namespace warpkit::host {

/// The value type called `name` ("f32"...), or nothing.
[[nodiscard]] constexpr std::optional<value_type> parse_value_type(std::string_view name) noexcept {
    const auto& names = enum_names<value_type>::names;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<value_type>(i);
    return std::nullopt;
}

/// The launch-file name of `t`.
[[nodiscard]] constexpr std::string_view name_of(value_type t) noexcept {
    return enum_names<value_type>::names[static_cast<std::size_t>(t)];
}

} // namespace warpkit::host
