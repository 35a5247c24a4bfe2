#pragma once
/// \file
/// Texture objects and the `tex` fetch. A texture object is a 64-byte header in device
/// memory (as on NVIDIA GPUs since Kepler's bindless textures, where the handle names a
/// header): what memory it reads (1D linear or pitched 2D), the texel format, and the
/// sampler state (filtering, addressing per axis, read mode, normalised coordinates, border
/// colour). `sample_texture` is the fetch, by the rules of the CUDA programming guide's
/// "Texture Fetching" appendix:
/// - Normalised coordinates are scaled by the width (height) first. Integer (`.s32`)
///   coordinates address texels directly: no scaling, no filtering.
/// - Point filtering reads texel floor(x); linear filtering reads texels i and i + 1 with
///   i = floor(x - 0.5) and weights 1 - a, a where a = frac(x - 0.5) is held in 9-bit fixed
///   point with 8 fraction bits (rounded to the nearest 1/256), bilinear in 2D. Filtering
///   needs a floating-point result (a float texture or the normalised-float read mode).
/// - Addressing acts on each texel index: clamp to [0, n - 1]; border: an index outside
///   [0, n) reads the border colour; wrap: index mod n; mirror: the texture repeats mirrored
///   every n texels. Wrap and mirror apply only to normalised coordinates; with unnormalised
///   ones they clamp, as CUDA does.
/// - The normalised-float read mode maps 8- and 16-bit integers to [0, 1] (unsigned) or
///   [-1, 1] (signed); the element read mode returns integers sign- or zero-extended and
///   16-bit floats widened to f32.
/// - A texel with fewer than four channels reads 0 for the missing colour channels and 1
///   for a missing fourth (alpha) channel.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace warpkit::ptx {

/// The memory a texture object reads (the values of cudaResourceType that are supported).
enum class texture_resource : std::uint8_t { linear = 2, pitch2d = 3 };
/// Channel data kinds (cudaChannelFormatKind order).
enum class texture_kind : std::uint8_t { signed_int = 0, unsigned_int = 1, floating = 2 };
/// Addressing of an index outside the texture (cudaTextureAddressMode order).
enum class texture_address : std::uint8_t { wrap = 0, clamp = 1, mirror = 2, border = 3 };
/// Filtering (cudaTextureFilterMode order).
enum class texture_filter : std::uint8_t { point = 0, linear = 1 };
/// What a fetch returns (cudaTextureReadMode order).
enum class texture_read : std::uint8_t { element = 0, normalized_float = 1 };

/// A texture object as it lies in device memory (encode / decode give the 64 bytes).
struct texture_header {
    static constexpr std::uint32_t magic = 0x31585457U; ///< "WTX1" little-endian
    static constexpr std::size_t bytes = 64;

    texture_resource resource = texture_resource::linear;
    texture_kind kind = texture_kind::floating;
    std::uint8_t channels = 1;      ///< 1..4
    std::uint8_t channel_bits = 32; ///< 8, 16 or 32, the same for every channel
    texture_filter filter = texture_filter::point;
    texture_read read = texture_read::element;
    bool normalized_coords = false;
    std::array<texture_address, 2> address{texture_address::clamp, texture_address::clamp};
    std::uint64_t base = 0;   ///< device address of texel (0, 0)
    std::uint64_t width = 0;  ///< texels per row
    std::uint64_t height = 1; ///< rows (1 for linear memory)
    std::uint64_t pitch = 0;  ///< bytes from one row to the next
    std::array<float, 4> border{};
    friend bool operator==(const texture_header&, const texture_header&) = default;

    /// Bytes of one texel.
    [[nodiscard]] constexpr std::uint32_t texel_bytes() const noexcept {
        return std::uint32_t{channels} * channel_bits / 8;
    }
    /// Whether fetches return floating-point data (float texels or normalised reads).
    [[nodiscard]] constexpr bool float_result() const noexcept {
        return kind == texture_kind::floating || read == texture_read::normalized_float;
    }

    /// Why the header cannot be used (empty when it can): the field and its allowed values.
    [[nodiscard]] std::string problem() const {
        if (resource != texture_resource::linear && resource != texture_resource::pitch2d)
            return "resource type must be linear or pitch2D";
        if (static_cast<unsigned>(kind) > 2)
            return "channel kind must be signed, unsigned or float";
        if (channels < 1 || channels > 4 || channels == 3) return "1, 2 or 4 channels";
        if (channel_bits != 8 && channel_bits != 16 && channel_bits != 32)
            return "channels of 8, 16 or 32 bits";
        if (kind == texture_kind::floating && channel_bits == 8)
            return "float channels of 16 or 32 bits";
        if (static_cast<unsigned>(filter) > 1 || static_cast<unsigned>(read) > 1)
            return "filter mode point or linear, read mode element or normalized float";
        for (const auto a : address)
            if (static_cast<unsigned>(a) > 3) return "address modes wrap, clamp, mirror or border";
        if (read == texture_read::normalized_float &&
            (kind == texture_kind::floating || channel_bits == 32))
            return "the normalized-float read mode needs 8- or 16-bit integer channels";
        if (filter == texture_filter::linear && !float_result())
            return "linear filtering needs floating-point results (float channels or the "
                   "normalized-float read mode)";
        if (width == 0 || height == 0) return "width and height of at least one texel";
        if (pitch < width * texel_bytes()) return "a pitch of at least width x texel bytes";
        if (base % (channel_bits / 8) != 0 || pitch % (channel_bits / 8) != 0)
            return "a base address and pitch aligned to the channel size";
        if (width > (std::uint64_t{1} << 32) || height > (std::uint64_t{1} << 32) ||
            pitch > (std::uint64_t{1} << 40) ||
            (height - 1) * pitch > ~base - width * texel_bytes())
            return "a texture inside the 64-bit address space";
        return {};
    }

    /// The 64 bytes of the header (little-endian fields after the magic word).
    [[nodiscard]] std::array<std::uint8_t, bytes> encode() const noexcept {
        std::array<std::uint8_t, bytes> out{};
        std::size_t at = 0;
        const auto put = [&](const auto v) {
            std::memcpy(out.data() + at, &v, sizeof v);
            at += sizeof v;
        };
        put(magic);
        put(static_cast<std::uint8_t>(resource));
        put(static_cast<std::uint8_t>(kind));
        put(channels);
        put(channel_bits);
        put(static_cast<std::uint8_t>(filter));
        put(static_cast<std::uint8_t>(read));
        put(static_cast<std::uint8_t>(normalized_coords ? 1 : 0));
        put(static_cast<std::uint8_t>(address[0]));
        put(static_cast<std::uint8_t>(address[1]));
        at = 16;
        put(base);
        put(width);
        put(height);
        put(pitch);
        for (const float b : border)
            put(std::bit_cast<std::uint32_t>(b));
        return out;
    }
    /// The header in `in`, or nullopt when the magic word is missing.
    [[nodiscard]] static std::optional<texture_header>
    decode(std::span<const std::uint8_t, bytes> in) noexcept {
        std::size_t at = 0;
        const auto get = [&](auto& v) {
            std::memcpy(&v, in.data() + at, sizeof v);
            at += sizeof v;
        };
        std::uint32_t m = 0;
        get(m);
        if (m != magic) return std::nullopt;
        std::array<std::uint8_t, 9> b{};
        for (auto& x : b)
            get(x);
        texture_header h;
        h.resource = static_cast<texture_resource>(b[0]);
        h.kind = static_cast<texture_kind>(b[1]);
        h.channels = b[2];
        h.channel_bits = b[3];
        h.filter = static_cast<texture_filter>(b[4]);
        h.read = static_cast<texture_read>(b[5]);
        h.normalized_coords = b[6] != 0;
        h.address = {static_cast<texture_address>(b[7]), static_cast<texture_address>(b[8])};
        at = 16;
        get(h.base);
        get(h.width);
        get(h.height);
        get(h.pitch);
        for (float& f : h.border) {
            std::uint32_t u = 0;
            get(u);
            f = std::bit_cast<float>(u);
        }
        return h;
    }
};

/// The result of one lane's fetch: four 32-bit values (f32 bits for a float result) and the
/// device address of the first texel read (for the timing model; none for a border read).
struct texture_sample {
    std::array<std::uint32_t, 4> value{};
    std::uint64_t address = 0;
    bool touched_memory = false;
};

namespace detail::tex {

// Index i of an axis of n texels under address mode m; nullopt: the border colour.
[[nodiscard]] inline std::optional<std::uint64_t>
place(std::int64_t i, std::uint64_t n, texture_address m, bool normalized) noexcept {
    const auto sn = static_cast<std::int64_t>(n);
    if (!normalized && (m == texture_address::wrap || m == texture_address::mirror))
        m = texture_address::clamp;
    switch (m) {
    case texture_address::border:
        if (i < 0 || i >= sn) return std::nullopt;
        return static_cast<std::uint64_t>(i);
    case texture_address::wrap:
        return static_cast<std::uint64_t>(((i % sn) + sn) % sn);
    case texture_address::mirror: {
        const std::int64_t p = ((i % (2 * sn)) + 2 * sn) % (2 * sn);
        return static_cast<std::uint64_t>(p < sn ? p : 2 * sn - 1 - p);
    }
    default:
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(i, 0, sn - 1));
    }
}

// A float coordinate as a texel index (saturating far outside the texture).
[[nodiscard]] inline std::int64_t floor_index(float x) noexcept {
    if (std::isnan(x)) return 0;
    const double f = std::floor(static_cast<double>(x));
    constexpr double limit = 1e15;
    return static_cast<std::int64_t>(std::clamp(f, -limit, limit));
}

} // namespace detail::tex

/// One lane's fetch from texture `h`: `dims` coordinates (1 or 2) of type `coord_type`
/// (s32 or f32, raw bits) for a result of type `result_type` (f32, s32 or u32).
/// `read(address, bytes)` returns the little-endian value of `bytes` (1, 2 or 4) bytes.
template <class Read>
[[nodiscard]] texture_sample sample_texture(const texture_header& h, type result_type,
                                            type coord_type, std::span<const std::uint32_t> coords,
                                            Read&& read) {
    const bool integer_coords = coord_type != type::f32;
    const bool normalized = h.normalized_coords && !integer_coords;
    const std::array<std::uint64_t, 2> size{h.width, h.height};
    const std::size_t dims = std::min<std::size_t>(coords.size(), 2);
    const bool linear = h.filter == texture_filter::linear && !integer_coords;

    // The texel indices and weights along each axis.
    std::array<std::array<std::int64_t, 2>, 2> index{};
    std::array<float, 2> frac{0.0F, 0.0F};
    for (std::size_t a = 0; a < 2; ++a) {
        if (a >= dims) continue; // a 1D fetch reads row 0
        if (integer_coords) {
            index[a][0] = static_cast<std::int32_t>(coords[a]);
            continue;
        }
        float x = std::bit_cast<float>(coords[a]);
        if (normalized) x *= static_cast<float>(size[a]);
        if (linear) {
            const float xb = x - 0.5F;
            index[a][0] = detail::tex::floor_index(xb);
            const double f = std::isfinite(xb) ? static_cast<double>(xb) - std::floor(xb) : 0.0;
            frac[a] = static_cast<float>(std::nearbyint(f * 256.0) / 256.0);
        } else {
            index[a][0] = detail::tex::floor_index(x);
        }
        index[a][1] = index[a][0] + 1;
    }

    const std::uint32_t cb = h.channel_bits / 8;
    texture_sample out;
    // The channels of texel (ix, iy) as floats or integers; the border colour outside.
    const auto texel = [&](std::int64_t ix, std::int64_t iy, std::array<double, 4>& f,
                           std::array<std::int64_t, 4>& n) {
        const auto px = detail::tex::place(ix, size[0], h.address[0], normalized);
        const auto py = detail::tex::place(iy, size[1], h.address[1], normalized);
        if (!px || !py) {
            for (std::size_t c = 0; c < 4; ++c) {
                f[c] = h.border[c];
                // An integer texture reads the border colour truncated, saturating at the
                // 32-bit range (NaN: 0).
                const double b = std::isnan(f[c]) ? 0.0 : std::trunc(f[c]);
                n[c] = static_cast<std::int64_t>(std::clamp(b, -2147483648.0, 4294967295.0));
            }
            return;
        }
        const std::uint64_t at = h.base + *py * h.pitch + *px * h.texel_bytes();
        if (!out.touched_memory) {
            out.address = at;
            out.touched_memory = true;
        }
        for (std::size_t c = 0; c < 4; ++c) {
            if (c >= h.channels) { // missing channels: 0, 0, 0, 1
                f[c] = c == 3 ? 1.0 : 0.0;
                n[c] = c == 3 ? 1 : 0;
                continue;
            }
            const std::uint64_t raw = read(at + c * cb, cb);
            if (h.kind == texture_kind::floating) {
                f[c] = cb == 2 ? half_to_double(raw)
                               : static_cast<double>(
                                     std::bit_cast<float>(static_cast<std::uint32_t>(raw)));
                continue;
            }
            const unsigned bits = h.channel_bits;
            const std::int64_t v =
                h.kind == texture_kind::signed_int
                    ? static_cast<std::int64_t>(raw << (64 - bits)) >> (64 - bits)
                    : static_cast<std::int64_t>(raw);
            n[c] = v;
            if (h.read == texture_read::normalized_float) {
                const double top = h.kind == texture_kind::signed_int
                                       ? static_cast<double>((std::int64_t{1} << (bits - 1)) - 1)
                                       : static_cast<double>((std::int64_t{1} << bits) - 1);
                f[c] = std::max(static_cast<double>(v) / top, -1.0);
            } else {
                f[c] = static_cast<double>(v);
            }
        }
    };

    std::array<double, 4> f{};
    std::array<std::int64_t, 4> n{};
    if (!linear) {
        texel(index[0][0], index[1][0], f, n);
    } else {
        // Bilinear (a 1D texture: one row, weight 0 on the second): in float, as the texture
        // unit computes it.
        std::array<float, 4> acc{};
        const std::size_t ny = dims > 1 ? 2 : 1;
        for (std::size_t j = 0; j < ny; ++j)
            for (std::size_t i = 0; i < 2; ++i) {
                const float wx = i == 0 ? 1.0F - frac[0] : frac[0];
                const float wy = dims > 1 ? (j == 0 ? 1.0F - frac[1] : frac[1]) : 1.0F;
                std::array<double, 4> tf{};
                std::array<std::int64_t, 4> tn{};
                texel(index[0][i], index[1][j], tf, tn);
                for (std::size_t c = 0; c < 4; ++c)
                    acc[c] += wx * wy * static_cast<float>(tf[c]);
            }
        for (std::size_t c = 0; c < 4; ++c)
            f[c] = acc[c];
    }
    for (std::size_t c = 0; c < 4; ++c) {
        if (result_type == type::f32) {
            out.value[c] = std::bit_cast<std::uint32_t>(static_cast<float>(f[c]));
        } else if (h.float_result()) {
            // An integer result of float data: the value converted, saturating (NaN -> 0).
            out.value[c] =
                static_cast<std::uint32_t>(convert(result_type, type::f64, rounding::rzi, false,
                                                   false, std::bit_cast<std::uint64_t>(f[c])));
        } else {
            out.value[c] = static_cast<std::uint32_t>(n[c]);
        }
    }
    return out;
}

} // namespace warpkit::ptx
