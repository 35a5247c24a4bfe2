// Fuzz target: texture fetches (ptx/texture.hpp) on headers and coordinates from the input:
// any format, sampler state and size that the header accepts, float or integer coordinates
// (NaN, infinities and huge values included), float or integer results.
//
// Laws: no crash; every texel read lies inside the texture's footprint (rows of `pitch`
// bytes, `width` texels each) and is aligned to its channel size; a fetch that touched
// memory reports the first texel it read inside the footprint; point filtering of a float
// texture with float results returns, in each present channel, a value stored in the
// texture or the border colour.
#include "fuzz.hpp"

#include <warpkit/ptx/texture.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

struct reader {
    const std::uint8_t* data;
    std::size_t size;
    std::size_t at = 0;
    std::uint32_t byte() { return at < size ? data[at++] : 0; }
    std::uint32_t word() { return byte() | byte() << 8 | byte() << 16 | byte() << 24; }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace warpkit::ptx;
    reader in{data, size};
    texture_header h;
    h.resource = (in.byte() & 1) != 0 ? texture_resource::pitch2d : texture_resource::linear;
    h.kind = static_cast<texture_kind>(in.byte() % 3);
    const std::uint8_t channels[3] = {1, 2, 4};
    h.channels = channels[in.byte() % 3];
    const std::uint8_t bits[3] = {8, 16, 32};
    h.channel_bits = bits[in.byte() % 3];
    h.filter = static_cast<texture_filter>(in.byte() % 2);
    h.read = static_cast<texture_read>(in.byte() % 2);
    h.normalized_coords = (in.byte() & 1) != 0;
    h.address = {static_cast<texture_address>(in.byte() % 4),
                 static_cast<texture_address>(in.byte() % 4)};
    h.base = 0x10000 + 256 * (in.byte() % 16);
    h.width = 1 + in.byte() % 40;
    h.height = h.resource == texture_resource::pitch2d ? 1 + in.byte() % 20 : 1;
    h.pitch = h.width * h.texel_bytes() + 4 * (in.byte() % 8);
    for (float& b : h.border)
        b = std::bit_cast<float>(in.word());
    if (!h.problem().empty()) return 0;

    // Texture memory: the footprint filled from the input.
    const std::uint64_t footprint = (h.height - 1) * h.pitch + h.width * h.texel_bytes();
    std::vector<std::uint8_t> mem(footprint);
    for (auto& b : mem)
        b = static_cast<std::uint8_t>(in.byte());
    const std::uint32_t channel = h.channel_bits / 8U;
    const auto read = [&](std::uint64_t a, unsigned n) -> std::uint64_t {
        WARPKIT_FUZZ_LAW(n == channel);
        WARPKIT_FUZZ_LAW(a >= h.base && a - h.base + n <= footprint);
        WARPKIT_FUZZ_LAW((a - h.base) % n == 0);
        const std::uint64_t off = (a - h.base) % h.pitch;
        WARPKIT_FUZZ_LAW(off + n <= h.width * h.texel_bytes()); // not in a row's padding
        std::uint64_t v = 0;
        std::memcpy(&v, mem.data() + (a - h.base), n);
        return v;
    };
    const type results[3] = {type::f32, type::s32, type::u32};
    for (int fetch = 0; fetch < 8; ++fetch) {
        const type coord = (in.byte() & 1) != 0 ? type::f32 : type::s32;
        const type result = results[in.byte() % 3];
        const std::uint32_t c[2] = {in.word(), in.word()};
        const std::size_t dims = 1 + in.byte() % 2;
        const auto s =
            sample_texture(h, result, coord, std::span<const std::uint32_t>(c, dims), read);
        if (s.touched_memory)
            WARPKIT_FUZZ_LAW(s.address >= h.base && s.address - h.base < footprint);
        const bool point = h.filter == texture_filter::point || coord != type::f32;
        if (!point || h.kind != texture_kind::floating || result != type::f32 || channel != 4)
            continue;
        for (std::size_t ch = 0; ch < h.channels; ++ch) {
            const std::uint32_t got = s.value[ch];
            bool found = std::bit_cast<std::uint32_t>(h.border[ch]) == got ||
                         (std::isnan(h.border[ch]) && std::isnan(std::bit_cast<float>(got)));
            for (std::uint64_t t = 0; !found && t < h.width * h.height; ++t) {
                std::uint32_t v = 0;
                std::memcpy(&v,
                            mem.data() + (t / h.width) * h.pitch + (t % h.width) * h.texel_bytes() +
                                ch * 4,
                            4);
                found = v == got || (std::isnan(std::bit_cast<float>(v)) &&
                                     std::isnan(std::bit_cast<float>(got)));
            }
            WARPKIT_FUZZ_LAW(found);
        }
    }
    return 0;
}
