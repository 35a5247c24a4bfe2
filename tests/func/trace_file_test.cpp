// func::trace_file against files this test writes: plain, xz (liblzma's encoder), gzip and
// concatenated gzip members (zlib's gz writer) give the same text, large enough to cross many
// 64 KiB buffers; a truncated xz or a corrupt gzip stream, a directory and a missing file are
// errors naming the path; a compressed kernel trace reads block by block.
#include <warpkit/func/accelsim_trace.hpp>
#include <warpkit/func/trace_file.hpp>

#include <doctest/doctest.h>

#include <lzma.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using warpkit::func::trace_compression;
using warpkit::func::trace_file;

// A fresh folder for this test's files.
fs::path scratch() {
    const fs::path d =
        fs::temp_directory_path() / ("warpkit-trace-file-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out << bytes;
}

std::string xz_of(const std::string& text) {
    std::vector<std::uint8_t> out(lzma_stream_buffer_bound(text.size()));
    std::size_t pos = 0;
    REQUIRE(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const std::uint8_t*>(text.data()),
                                    text.size(), out.data(), &pos, out.size()) == LZMA_OK);
    return {reinterpret_cast<const char*>(out.data()), pos};
}

void write_gzip(const fs::path& p, const std::vector<std::string>& members) {
    std::string all;
    for (const auto& m : members) {
        const fs::path one = p.string() + ".part";
        gzFile g = gzopen(one.c_str(), "wb");
        REQUIRE(g != nullptr);
        REQUIRE(gzwrite(g, m.data(), static_cast<unsigned>(m.size())) ==
                static_cast<int>(m.size()));
        REQUIRE(gzclose(g) == Z_OK);
        std::ifstream in(one, std::ios::binary);
        all.append(std::istreambuf_iterator<char>(in), {});
        fs::remove(one);
    }
    write_bytes(p, all);
}

std::string read_all(const fs::path& p, trace_compression* kind = nullptr) {
    trace_file in(p);
    if (kind != nullptr) *kind = in.compression();
    return {std::istreambuf_iterator<char>(in), {}};
}

std::string error_reading(const fs::path& p) {
    try {
        (void)read_all(p);
    } catch (const warpkit::error& e) {
        return e.what();
    }
    return "";
}

// About 1.3 MB of trace-like text.
std::string big_text() {
    std::string t;
    for (int i = 0; i < 20000; ++i)
        t += std::to_string(i) + " ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000" + std::to_string(i) +
             " 4\n";
    return t;
}

} // namespace

TEST_CASE("trace_file: plain, xz, gzip and concatenated gzip read as the same text") {
    const fs::path d = scratch();
    const std::string text = big_text();
    write_bytes(d / "plain.traceg", text);
    write_bytes(d / "a.traceg.xz", xz_of(text));
    write_gzip(d / "a.traceg.gz", {text});
    write_gzip(d / "two.traceg.gz", {text.substr(0, 500000), text.substr(500000)});
    trace_compression kind{};
    CHECK(read_all(d / "plain.traceg", &kind) == text);
    CHECK(kind == trace_compression::none);
    CHECK(read_all(d / "a.traceg.xz", &kind) == text);
    CHECK(kind == trace_compression::xz);
    CHECK(read_all(d / "a.traceg.gz", &kind) == text);
    CHECK(kind == trace_compression::gzip);
    CHECK(read_all(d / "two.traceg.gz") == text);
    write_bytes(d / "empty.traceg", "");
    CHECK(read_all(d / "empty.traceg").empty());
    fs::remove_all(d);
}

TEST_CASE("trace_file: damaged streams and unreadable paths are errors naming the path") {
    const fs::path d = scratch();
    const std::string text = big_text();
    const std::string xz = xz_of(text);
    write_bytes(d / "cut.traceg.xz", xz.substr(0, xz.size() / 2));
    write_gzip(d / "bad.traceg.gz", {text});
    std::string gz;
    {
        std::ifstream in(d / "bad.traceg.gz", std::ios::binary);
        gz.assign(std::istreambuf_iterator<char>(in), {});
    }
    write_bytes(d / "cut.traceg.gz", gz.substr(0, gz.size() / 2));
    gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x55);
    gz[gz.size() / 2 + 1] = static_cast<char>(gz[gz.size() / 2 + 1] ^ 0x55);
    write_bytes(d / "bad.traceg.gz", gz);

    const std::string cut_xz = error_reading(d / "cut.traceg.xz");
    CHECK(cut_xz.find("cut.traceg.xz") != std::string::npos);
    CHECK(cut_xz.find("truncated") != std::string::npos);
    const std::string cut_gz = error_reading(d / "cut.traceg.gz");
    CHECK(cut_gz.find("cut.traceg.gz': the gzip stream is truncated") != std::string::npos);
    const std::string bad_gz = error_reading(d / "bad.traceg.gz");
    CHECK(bad_gz.find("bad.traceg.gz': the gzip stream is corrupt") != std::string::npos);
    CHECK(error_reading(d).find("it is a directory") != std::string::npos);
    CHECK(error_reading(d / "missing.traceg").find("missing.traceg") != std::string::npos);
    fs::remove_all(d);
}

TEST_CASE("trace_file: an xz kernel trace reads block by block") {
    const fs::path d = scratch();
    std::string text = "-kernel name = k\n-grid dim = (4,1,1)\n-block dim = (64,1,1)\n"
                       "-accelsim tracer version = 4\n";
    for (int b = 0; b < 4; ++b) {
        text += "#BEGIN_TB\nthread block = " + std::to_string(b) + ",0,0\n";
        for (int w = 0; w < 2; ++w) {
            text += "warp = " + std::to_string(w) + "\ninsts = 2\n";
            text += "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x" + std::to_string(1000 * b) + " 4\n";
            text += "0010 ffffffff 0 EXIT 0 0\n";
        }
        text += "#END_TB\n";
    }
    write_bytes(d / "k.traceg.xz", xz_of(text));
    trace_file in(d / "k.traceg.xz");
    warpkit::func::accelsim::kernel_trace_reader r(in, (d / "k.traceg.xz").string());
    warpkit::func::accelsim::block_trace b;
    std::uint32_t blocks = 0;
    while (r.next_block(b)) {
        REQUIRE(b.warps.size() == 2);
        CHECK(b.index.x == blocks);
        // The base address 0x<1000 b> is 0x1000 * b; lane 31 is 124 bytes past it.
        CHECK(b.address(b.warps[1].instructions[0], 31) == 0x1000ULL * blocks + 124);
        ++blocks;
    }
    CHECK(blocks == 4);
    fs::remove_all(d);
}
