// host::read_fatbin and friends: the fat binaries nvcc 13 writes (checked-in files made with
// `nvcc -fatbin -arch=compute_75 --compress-mode=none|speed|default` from
// examples/cuda/vector_add.cu), hand-built LZ4 blocks and malformed inputs; plus the device
// allocator's free and capacity, and global_memory::discard.
#include <warpkit/func/global_memory.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/fatbin.hpp>
#include <warpkit/ptx/parser.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace warpkit;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> data_file(const std::string& name) {
    const fs::path p = test_files::source_dir() / "tests/host/data" / name;
    std::ifstream f(p, std::ios::binary);
    REQUIRE_MESSAGE(f.good(), "cannot read " << p);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::string file_text(const fs::path& rel) {
    std::ifstream f(test_files::source_dir() / rel, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The lines of PTX text that are neither empty nor comments, each with its words joined by one
// space (nvcc drops the comments and the indentation when it embeds PTX in a fat binary).
std::vector<std::string> code_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string w, joined;
        while (words >> w)
            joined += (joined.empty() ? "" : " ") + w;
        if (!joined.empty() && joined.rfind("//", 0) != 0) out.push_back(joined);
    }
    return out;
}

template <class T>
void put(std::vector<std::uint8_t>& b, std::size_t at, T v) {
    if (b.size() < at + sizeof v) b.resize(at + sizeof v, 0);
    std::memcpy(b.data() + at, &v, sizeof v);
}

// A fat binary with one entry of `payload` (kind, arch, flags, sizes as given).
std::vector<std::uint8_t> one_entry(std::uint16_t kind, const std::vector<std::uint8_t>& payload,
                                    std::uint64_t flags, std::uint32_t compressed,
                                    std::uint64_t uncompressed) {
    std::vector<std::uint8_t> b(16 + 64, 0);
    put<std::uint32_t>(b, 0, host::fatbin_magic);
    put<std::uint16_t>(b, 4, 1);
    put<std::uint16_t>(b, 6, 16);
    put<std::uint64_t>(b, 8, 64 + payload.size());
    put<std::uint16_t>(b, 16, kind);
    put<std::uint16_t>(b, 18, 0x101);
    put<std::uint32_t>(b, 20, 64);
    put<std::uint64_t>(b, 24, payload.size());
    put<std::uint32_t>(b, 32, compressed);
    put<std::uint16_t>(b, 40, 0); // PTX ISA 9.0
    put<std::uint16_t>(b, 42, 9);
    put<std::uint32_t>(b, 44, 75);
    put<std::uint64_t>(b, 56, flags);
    put<std::uint64_t>(b, 72, uncompressed);
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
}

} // namespace

TEST_CASE("fatbin: nvcc's uncompressed, LZ4 and Zstandard files list one PTX entry for sm_75") {
    const auto plain = data_file("vector_add.plain.fatbin");
    const auto lz4 = data_file("vector_add.lz4.fatbin");
    const auto zstd = data_file("vector_add.zstd.fatbin");
    const auto compressions = {host::fatbin_compression::none, host::fatbin_compression::lz4,
                               host::fatbin_compression::zstd};
    auto expected = compressions.begin();
    for (const auto* bytes : {&plain, &lz4, &zstd}) {
        CHECK(host::fatbin_size(*bytes, "f") == bytes->size());
        const auto entries = host::read_fatbin(*bytes, "f");
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].kind == host::fatbin_kind::ptx);
        CHECK(entries[0].arch == 75);
        CHECK(entries[0].ptx_major == 9);
        CHECK(entries[0].ptx_minor == 0);
        CHECK(entries[0].compression == *expected++);
    }
}

TEST_CASE("fatbin: the PTX of the uncompressed and the LZ4 file is the checked-in PTX's code") {
    const auto want = code_lines(file_text("examples/cuda/vector_add.ptx"));
    REQUIRE(want.size() > 20);
    for (const char* name : {"vector_add.plain.fatbin", "vector_add.lz4.fatbin"}) {
        const auto bytes = data_file(name);
        const std::string text = host::fatbin_ptx(host::read_fatbin(bytes, name)[0], name);
        CHECK(code_lines(text) == want);
        const auto m = ptx::parse_ptx(text, name);
        CHECK(m.find("vector_add") != nullptr);
    }
}

TEST_CASE("fatbin: a Zstandard entry without a decoder says how to rebuild") {
    const auto bytes = data_file("vector_add.zstd.fatbin");
    const auto e = host::read_fatbin(bytes, "prog")[0];
    CHECK_THROWS_WITH_AS(host::fatbin_ptx(e, "prog"),
                         doctest::Contains("rebuild the program with `nvcc --no-compress`"), error);
    // A decoder is called with the payload and the uncompressed size, and must deliver it.
    std::uint64_t asked = 0;
    const auto text = host::fatbin_ptx(e, "prog", [&](auto in, std::uint64_t n) {
        asked = n;
        CHECK(in.size() == e.payload.size());
        return std::vector<std::uint8_t>(static_cast<std::size_t>(n), 'x');
    });
    CHECK(asked == e.uncompressed_bytes);
    CHECK(text.size() == e.uncompressed_bytes);
    CHECK_THROWS_WITH_AS(
        (void)host::fatbin_ptx(
            e, "prog", [](auto, std::uint64_t) { return std::vector<std::uint8_t>(3, 'x'); }),
        doctest::Contains("decoded to 3 bytes"), error);
}

TEST_CASE("lz4: hand-made blocks decode by the block format; bad ones are errors") {
    // "abc" as literals, then a match of 9 bytes at offset 3 (token 0x35), then "!" as the
    // last literals: "abcabcabcabc!".
    const std::vector<std::uint8_t> block{0x35, 'a', 'b', 'c', 3, 0, 0x10, '!'};
    const auto out = host::lz4_decompress(block, 13);
    CHECK(std::string(out.begin(), out.end()) == "abcabcabcabc!");
    // An overlapping match of offset 1 repeats one byte; a length of 15 + 255 + 1 literals.
    const std::vector<std::uint8_t> run{0x1f, 'z', 1, 0, 2};
    const auto zs = host::lz4_decompress(run, 1 + 4 + 15 + 2);
    CHECK(zs == std::vector<std::uint8_t>(22, 'z'));
    std::vector<std::uint8_t> long_lit{0xf0, 255, 1};
    long_lit.insert(long_lit.end(), 15 + 255 + 1, 'q');
    CHECK(host::lz4_decompress(long_lit, 271).size() == 271);

    CHECK_THROWS_WITH_AS(host::lz4_decompress(std::vector<std::uint8_t>{0x10, 'a', 5, 0}, 10),
                         doctest::Contains("bad match offset"), error);
    CHECK_THROWS_WITH_AS(host::lz4_decompress(std::vector<std::uint8_t>{0x50, 'a'}, 5),
                         doctest::Contains("literals past the end"), error);
    CHECK_THROWS_WITH_AS(host::lz4_decompress(block, 10), doctest::Contains("past the output"),
                         error);
    CHECK_THROWS_WITH_AS(host::lz4_decompress(block, 20), doctest::Contains("13 bytes decoded"),
                         error);
    CHECK_THROWS_WITH_AS(host::lz4_decompress(std::vector<std::uint8_t>{0x10, 'a', 1}, 8),
                         doctest::Contains("truncated match offset"), error);
    // A size no block of these bytes can reach is refused before anything is reserved: 2 GiB
    // from 3 bytes, and one byte past 255 bytes per input byte.
    CHECK_THROWS_WITH_AS(
        host::lz4_decompress(std::vector<std::uint8_t>{0x10, 'a', 1}, host::max_fatbin_entry_bytes),
        doctest::Contains("cannot come from 3 compressed bytes"), error);
    CHECK_THROWS_WITH_AS(host::lz4_decompress(run, 255 * run.size() + 255),
                         doctest::Contains("cannot come from 5"), error);
}

TEST_CASE("fatbin: synthetic entries: kinds, sizes and compression flags are read and checked") {
    const std::vector<std::uint8_t> text{'.', 'v', 'e', 'r', 0, 0, 0, 0};
    const auto plain = one_entry(1, text, 0x11, 0, 0);
    const auto e = host::read_fatbin(plain, "t");
    REQUIRE(e.size() == 1);
    CHECK(host::fatbin_ptx(e[0], "t") == ".ver"); // padding NULs dropped

    const std::vector<std::uint8_t> block{0x35, 'a', 'b', 'c', 3, 0, 0x10, '!', 0, 0, 0, 0};
    const auto lz = one_entry(1, block, 0x2011, 8, 13);
    CHECK(host::fatbin_ptx(host::read_fatbin(lz, "t")[0], "t") == "abcabcabcabc!");

    auto bad = plain;
    put<std::uint32_t>(bad, 0, 0x12345678U);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("prog: fat binary, offset 0: bad magic number"), error);
    bad = plain;
    put<std::uint64_t>(bad, 8, 1000);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("past the 88 bytes given"), error);
    bad = plain;
    put<std::uint16_t>(bad, 16, 7);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("offset 16: entry kind 7"), error);
    bad = plain;
    put<std::uint64_t>(bad, 24, 9);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("entry size 9 past the end"), error);
    bad = lz;
    put<std::uint32_t>(bad, 32, 0);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("compressed size 0"), error);
    bad = lz;
    put<std::uint64_t>(bad, 72, std::uint64_t{1} << 40);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(bad, "prog"),
                         doctest::Contains("uncompressed size"), error);
    CHECK_THROWS_WITH_AS((void)host::read_fatbin(std::vector<std::uint8_t>(8, 0), "prog"),
                         doctest::Contains("truncated header"), error);
}

TEST_CASE("device: free returns memory to zeros and to the capacity; bad frees are errors") {
    host::device dev("fermi_gtx480", {"device_memory_mb=1"});
    const auto a = dev.alloc(6000, "a");
    const auto b = dev.alloc(100, "b");
    const std::vector<std::uint8_t> ones(6000, 1);
    dev.write(a, std::span<const std::uint8_t>(ones));
    dev.write(b, std::span<const std::uint8_t>(std::vector<std::uint8_t>(100, 2)));
    CHECK(dev.live_bytes() == 6100);
    dev.free(a.address);
    CHECK(dev.live_bytes() == 100);
    // b shares no bytes with a and keeps its contents; a's bytes read as zeros again.
    CHECK(dev.download<std::uint8_t>(b) == std::vector<std::uint8_t>(100, 2));
    CHECK(dev.memory().read_bytes(a.address, 6000) == std::vector<std::uint8_t>(6000, 0));
    CHECK(dev.memory().allocation_at(a.address, 1) == nullptr);
    CHECK_THROWS_AS(dev.free(a.address), config_error);     // twice
    CHECK_THROWS_AS(dev.free(b.address + 4), config_error); // not a buffer's start
    // The capacity counts live bytes only: 1 MiB fits once a is gone, not 1 MiB + 1.
    CHECK_THROWS_WITH_AS((void)dev.alloc((1U << 20) - 99),
                         doctest::Contains("device_memory_mb = 1"), config_error);
    const auto c = dev.alloc((1U << 20) - 100);
    CHECK(c.address > b.address); // addresses are never reused
}

TEST_CASE("global_memory: discard frees whole pages and clears partial ones") {
    func::global_memory m;
    const std::uint64_t base = 0x10000;
    m.write_bytes(base, std::vector<std::uint8_t>(3 * 4096, 7));
    CHECK(m.pages() == 3);
    m.discard(base + 100, 2 * 4096); // [base+100, base+8292): page 1 whole, 0 and 2 partly
    CHECK(m.pages() == 2);
    const auto after = m.read_bytes(base, 3 * 4096);
    for (std::size_t i = 0; i < after.size(); ++i) {
        const bool cleared = i >= 100 && i < 100 + 2 * 4096;
        if (after[i] != (cleared ? 0 : 7)) {
            FAIL("byte " << i << " is " << int(after[i]));
            break;
        }
    }
    m.discard(base, 0); // nothing
    CHECK(m.pages() == 2);
}
