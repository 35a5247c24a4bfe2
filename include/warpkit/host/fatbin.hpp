#pragma once
/// \file
/// Reading the fat binaries nvcc embeds in host programs: the device code of each translation
/// unit as a list of entries (PTX text or a cubin ELF per target architecture), so a host
/// runtime can find the PTX of a module without NVIDIA's tools.
///
/// Layout (little-endian), as nvcc 13 writes it:
/// - the wrapper the host code registers (`__fatBinC_Wrapper_t`): magic 0x466243b1 (u32),
///   version (u32), a pointer to the fat binary, a pointer to more data (unused here);
/// - the fat binary: magic 0xba55ed50 (u32), version (u16), header size (u16), size of the
///   entries that follow the header (u64);
/// - each entry: kind (u16: 1 PTX, 2 ELF), version (u16), header size (u32), payload size
///   (u64, padded), compressed size (u32, 0 when uncompressed), a u32, the PTX ISA minor and
///   major version (u16, u16), the target architecture (u32, e.g. 75 for sm_75), the offset
///   and length of an object name (u32, u32), flags (u64: 0x2000 LZ4-compressed, 0x8000
///   Zstandard-compressed), a u64, the uncompressed size (u64); the payload follows the
///   header.
/// nvcc 13 compresses entries by default (Zstandard; LZ4 with `--compress-mode=speed`); a
/// program built with `--no-compress` has plain PTX text.
/// LZ4 block decoding is built in; Zstandard is decoded by a function the caller supplies.

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::host {

/// Magic number of the wrapper the host code registers.
inline constexpr std::uint32_t fatbin_wrapper_magic = 0x466243b1U;
/// Magic number of a fat binary.
inline constexpr std::uint32_t fatbin_magic = 0xba55ed50U;
/// Bytes of the fat binary header.
inline constexpr std::size_t fatbin_header_bytes = 16;
/// Largest fat binary accepted (bytes after the header).
inline constexpr std::uint64_t max_fatbin_bytes = std::uint64_t{1} << 32;
/// Largest uncompressed entry accepted.
inline constexpr std::uint64_t max_fatbin_entry_bytes = std::uint64_t{1} << 31;

/// What an entry holds.
enum class fatbin_kind : std::uint16_t { ptx = 1, elf = 2 };
/// How an entry's payload is stored.
enum class fatbin_compression : std::uint8_t { none, lz4, zstd };

/// One entry of a fat binary; `payload` points into the bytes given to read_fatbin.
struct fatbin_entry {
    fatbin_kind kind = fatbin_kind::ptx;
    std::uint32_t arch = 0;      ///< target architecture (75: sm_75 / compute_75)
    std::uint32_t ptx_major = 0; ///< PTX ISA version (PTX entries)
    std::uint32_t ptx_minor = 0;
    fatbin_compression compression = fatbin_compression::none;
    std::uint64_t uncompressed_bytes = 0; ///< 0 when the header does not say
    std::uint64_t offset = 0;             ///< of the entry header in the fat binary
    std::span<const std::uint8_t> payload;
};

namespace detail::fatbin {
template <class T>
[[nodiscard]] T get(std::span<const std::uint8_t> b, std::size_t at) {
    T v{};
    std::memcpy(&v, b.data() + at, sizeof(T));
    return v;
}
[[noreturn]] inline void fail(std::string_view origin, std::uint64_t offset,
                              const std::string& what) {
    throw error(std::string(origin) + ": fat binary, offset " + std::to_string(offset) + ": " +
                what);
}
} // namespace detail::fatbin

/// Total size (header included) of the fat binary whose header is `header`; throws error
/// naming `origin` for a bad magic number, header size or a size over max_fatbin_bytes.
[[nodiscard]] inline std::uint64_t fatbin_size(std::span<const std::uint8_t> header,
                                               std::string_view origin) {
    using detail::fatbin::fail;
    using detail::fatbin::get;
    if (header.size() < fatbin_header_bytes)
        fail(origin, 0, "truncated header (" + std::to_string(header.size()) + " bytes)");
    if (get<std::uint32_t>(header, 0) != fatbin_magic)
        fail(origin, 0, "bad magic number (not an nvcc fat binary)");
    const auto hs = get<std::uint16_t>(header, 6);
    const auto body = get<std::uint64_t>(header, 8);
    if (hs < fatbin_header_bytes || hs > 4096)
        fail(origin, 6, "header size " + std::to_string(hs) + " (16 to 4096 expected)");
    if (body > max_fatbin_bytes)
        fail(origin, 8, "size " + std::to_string(body) + " over the limit of 4 GiB");
    return hs + body;
}

/// The entries of the fat binary in `bytes` (header first; trailing bytes are ignored).
/// Throws error naming `origin`, the offset and the field for anything malformed.
[[nodiscard]] inline std::vector<fatbin_entry> read_fatbin(std::span<const std::uint8_t> bytes,
                                                           std::string_view origin) {
    using detail::fatbin::fail;
    using detail::fatbin::get;
    const std::uint64_t total = fatbin_size(bytes, origin);
    if (total > bytes.size())
        fail(origin, 8,
             "size " + std::to_string(total) + " past the " + std::to_string(bytes.size()) +
                 " bytes given");
    std::vector<fatbin_entry> out;
    std::uint64_t at = get<std::uint16_t>(bytes, 6);
    while (at < total) {
        if (total - at < 64) fail(origin, at, "truncated entry header");
        const auto kind = get<std::uint16_t>(bytes, at);
        const auto hs = get<std::uint32_t>(bytes, at + 4);
        const auto size = get<std::uint64_t>(bytes, at + 8);
        if (hs < 64 || hs > total - at)
            fail(origin, at + 4, "entry header size " + std::to_string(hs));
        if (size > total - at - hs)
            fail(origin, at + 8,
                 "entry size " + std::to_string(size) + " past the end of the fat binary");
        if (kind != 1 && kind != 2)
            fail(origin, at, "entry kind " + std::to_string(kind) + " (1: PTX, 2: ELF expected)");
        fatbin_entry e;
        e.kind = static_cast<fatbin_kind>(kind);
        e.offset = at;
        const auto compressed = get<std::uint32_t>(bytes, at + 16);
        e.ptx_minor = get<std::uint16_t>(bytes, at + 24);
        e.ptx_major = get<std::uint16_t>(bytes, at + 26);
        e.arch = get<std::uint32_t>(bytes, at + 28);
        const auto flags = get<std::uint64_t>(bytes, at + 40);
        e.uncompressed_bytes = get<std::uint64_t>(bytes, at + 56);
        e.compression = (flags & 0x8000U) != 0   ? fatbin_compression::zstd
                        : (flags & 0x2000U) != 0 ? fatbin_compression::lz4
                                                 : fatbin_compression::none;
        std::uint64_t stored = size;
        if (e.compression != fatbin_compression::none) {
            if (compressed == 0 || compressed > size)
                fail(origin, at + 16,
                     "compressed size " + std::to_string(compressed) + " (1 to " +
                         std::to_string(size) + " expected)");
            if (e.uncompressed_bytes == 0 || e.uncompressed_bytes > max_fatbin_entry_bytes)
                fail(origin, at + 56,
                     "uncompressed size " + std::to_string(e.uncompressed_bytes) +
                         " (1 to 2^31 expected)");
            stored = compressed;
        }
        e.payload =
            bytes.subspan(static_cast<std::size_t>(at + hs), static_cast<std::size_t>(stored));
        out.push_back(e);
        at += hs + size;
    }
    return out;
}

/// Decodes one LZ4 block (the LZ4 block format: sequences of a token, literals and a
/// back-reference) into exactly `size` bytes; throws error for a malformed block.
[[nodiscard]] inline std::vector<std::uint8_t> lz4_decompress(std::span<const std::uint8_t> in,
                                                              std::uint64_t size) {
    if (size > max_fatbin_entry_bytes) throw error("LZ4 block: output size over the limit");
    // No input byte yields more than 255 output bytes (a length byte of 255; a token at most
    // 15 + 4), so a size past 255 bytes per input byte is refused before anything is reserved.
    if (size / 255 > in.size())
        throw error("LZ4 block: " + std::to_string(size) + " bytes cannot come from " +
                    std::to_string(in.size()) + " compressed bytes");
    std::vector<std::uint8_t> out;
    out.reserve(static_cast<std::size_t>(size));
    std::size_t i = 0;
    const auto length = [&](std::size_t base) {
        std::size_t n = base;
        if (base == 15) {
            std::uint8_t b = 255;
            while (b == 255) {
                if (i >= in.size()) throw error("LZ4 block: truncated length");
                b = in[i++];
                n += b;
                if (n > size) throw error("LZ4 block: length past the output size");
            }
        }
        return n;
    };
    while (i < in.size()) {
        const std::uint8_t token = in[i++];
        const std::size_t lit = length(token >> 4);
        if (lit > in.size() - i || lit > size - out.size())
            throw error("LZ4 block: literals past the end");
        out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i),
                   in.begin() + static_cast<std::ptrdiff_t>(i + lit));
        i += lit;
        if (i == in.size()) break; // the last sequence has literals only
        if (in.size() - i < 2) throw error("LZ4 block: truncated match offset");
        const std::size_t offset = in[i] | (std::size_t{in[i + 1]} << 8);
        i += 2;
        if (offset == 0 || offset > out.size()) throw error("LZ4 block: bad match offset");
        const std::size_t match = length(token & 15U) + 4;
        if (match > size - out.size()) throw error("LZ4 block: match past the output size");
        const std::size_t from = out.size() - offset;
        for (std::size_t k = 0; k < match; ++k) // overlapping copies repeat bytes
            out.push_back(out[from + k]);
    }
    if (out.size() != size)
        throw error("LZ4 block: " + std::to_string(out.size()) + " bytes decoded, " +
                    std::to_string(size) + " expected");
    return out;
}

/// Decodes a Zstandard frame into `size` bytes (supplied by the caller, e.g. libzstd).
using zstd_decoder =
    std::function<std::vector<std::uint8_t>(std::span<const std::uint8_t>, std::uint64_t)>;

/// The PTX text of a PTX entry (decompressed; trailing NULs dropped). A Zstandard entry
/// without a decoder throws error saying how to rebuild the program uncompressed.
[[nodiscard]] inline std::string fatbin_ptx(const fatbin_entry& e, std::string_view origin,
                                            const zstd_decoder& zstd = {}) {
    WARPKIT_EXPECTS(e.kind == fatbin_kind::ptx);
    std::vector<std::uint8_t> raw;
    switch (e.compression) {
    case fatbin_compression::none:
        raw.assign(e.payload.begin(), e.payload.end());
        break;
    case fatbin_compression::lz4:
        raw = lz4_decompress(e.payload, e.uncompressed_bytes);
        break;
    case fatbin_compression::zstd:
        if (!zstd)
            throw error(std::string(origin) +
                        ": the PTX is Zstandard-compressed (nvcc's default) and this build "
                        "cannot decompress it; rebuild the program with `nvcc --no-compress` "
                        "(or `--compress-mode=speed`)");
        raw = zstd(e.payload, e.uncompressed_bytes);
        if (raw.size() != e.uncompressed_bytes)
            throw error(std::string(origin) + ": Zstandard entry decoded to " +
                        std::to_string(raw.size()) + " bytes, " +
                        std::to_string(e.uncompressed_bytes) + " expected");
        break;
    }
    while (!raw.empty() && raw.back() == 0)
        raw.pop_back();
    return {raw.begin(), raw.end()};
}

} // namespace warpkit::host
