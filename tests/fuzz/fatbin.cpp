// Fuzz target: the fat-binary reader (host::read_fatbin), the PTX extraction of its entries
// with the built-in LZ4 decoder (host::fatbin_ptx) and the LZ4 block decoder alone.
//
// Laws: every entry's payload lies inside the input; a decoded LZ4 entry has exactly the
// uncompressed size its header gives; lz4_decompress delivers exactly the size asked or throws.
#include "fuzz.hpp"

#include <warpkit/host/fatbin.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

using namespace warpkit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    std::vector<host::fatbin_entry> entries;
    if (fuzz::expect_errors([&] { entries = host::read_fatbin(in, "<fuzz>"); })) {
        for (const auto& e : entries) {
            WARPKIT_FUZZ_LAW(e.payload.data() >= data &&
                             e.payload.data() + e.payload.size() <= data + size);
            if (e.kind != host::fatbin_kind::ptx) continue;
            std::string text;
            // Zstandard entries without a decoder end in the rebuild error.
            if (fuzz::expect_errors([&] { text = host::fatbin_ptx(e, "<fuzz>"); })) {
                WARPKIT_FUZZ_LAW(e.compression != host::fatbin_compression::zstd);
                WARPKIT_FUZZ_LAW(text.size() <=
                                 std::max<std::uint64_t>(e.uncompressed_bytes, e.payload.size()));
            }
        }
    }
    // The same bytes as one LZ4 block of a size taken from the first two bytes.
    if (size >= 2) {
        const std::uint64_t want = data[0] | (std::uint64_t{data[1]} << 8);
        std::vector<std::uint8_t> out;
        if (fuzz::expect_errors([&] { out = host::lz4_decompress(in.subspan(2), want); }))
            WARPKIT_FUZZ_LAW(out.size() == want);
    }
    return 0;
}
