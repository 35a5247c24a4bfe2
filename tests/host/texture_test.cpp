// Texture fetches run through host::device: nvcc's tex.1d / tex.2d kernels
// (tests/ptx/data/texture.ptx) read texture objects written into device memory, functionally
// and on fermi_gtx480's texture cache; a handle that names no texture object faults.
#include <warpkit/core/error.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/texture.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

const ptx::module& texture_module(bool debug) {
    const std::filesystem::path dir = test_files::source_dir() / "tests/ptx/data";
    static const ptx::module o3 = ptx::read_ptx(dir / "texture.ptx");
    static const ptx::module g = ptx::read_ptx(dir / "texture_debug.ptx");
    return debug ? g : o3;
}

// Writes `h` into a fresh device buffer; its address is the texture object.
std::uint64_t make_texture(host::device& dev, const ptx::texture_header& h) {
    REQUIRE(h.problem().empty());
    const auto b = dev.alloc(ptx::texture_header::bytes, "texture object");
    const auto bytes = h.encode();
    dev.memory().write_bytes(b.address, bytes);
    return b.address;
}

} // namespace

TEST_CASE("texture kernels: tex1Dfetch with clamp and border, functional and timed") {
    const int n = 256;
    std::vector<float> data(n);
    for (int i = 0; i < n; ++i)
        data[i] = 0.5F * static_cast<float>(i) - 20.0F;
    for (const bool debug : {false, true}) {
        for (const bool timed : {false, true}) {
            CAPTURE(debug);
            CAPTURE(timed);
            host::device dev("fermi_gtx480");
            const auto src = dev.upload(data);
            const auto out = dev.alloc<float>(n);
            ptx::texture_header h;
            h.base = src.address;
            h.width = n;
            h.pitch = n * 4;
            const std::uint64_t clamp = make_texture(dev, h);
            h.address = {ptx::texture_address::border, ptx::texture_address::border};
            h.border = {-1.0F, 0, 0, 0};
            const std::uint64_t border = make_texture(dev, h);
            const auto k = dev.prepare(texture_module(debug), "fetch_float");
            const host::launch_config cfg{{2, 1, 1}, {128, 1, 1}, 0};
            for (const auto& [tex, shift, is_border] :
                 {std::tuple{clamp, -3, false}, std::tuple{border, 5, true}}) {
                ptx::param_pack args(k);
                args.add(tex).add(out.address).add(n).add(shift);
                const auto r = timed ? dev.launch_packed(k, cfg, args.bytes())
                                     : dev.launch_functional(k, cfg, args.bytes());
                const auto got = dev.download<float>(out);
                for (int i = 0; i < n; ++i) {
                    const int j = i + shift;
                    const float want = j < 0 || j >= n
                                           ? (is_border ? -1.0F : data[std::clamp(j, 0, n - 1)])
                                           : data[j];
                    REQUIRE(got[i] == want);
                }
                if (!timed) continue;
                // Each warp reads 32 consecutive floats shifted by 3 or 5 texels, so it
                // touches two 128-byte lines; block 0 (SM 0) misses on lines 0-3 (0-4 for
                // the shift of 5), block 1 (SM 1) on lines 3-7 (4-7): 9 misses either way.
                // Border lanes fetch nothing of their own.
                std::uint64_t misses = 0, fetches = 0, sent = 0;
                for (const auto& s : r.run.memory.sms) {
                    misses += s.texture.cache.read_misses;
                    fetches += s.texture.cache.read_misses + s.texture.cache.read_hits +
                               s.texture.cache.read_hits_reserved;
                    sent += s.tex_reads_sent;
                    // -O3 loads nothing through the L1 (-G keeps locals in local memory).
                    if (!debug) CHECK(s.l1d.cache.read_misses == 0);
                }
                CHECK(r.run.total.tex_accesses == 8);
                CHECK(misses == sent);
                CHECK(misses == 9);
                CHECK(fetches >= misses);
            }
        }
    }
}

TEST_CASE("texture kernels: 2D float4 fetches at texel centres read the texels") {
    const int w = 8, h = 4;
    host::device dev("amoeba_48");
    std::vector<float> texels(w * h * 4);
    for (std::size_t i = 0; i < texels.size(); ++i)
        texels[i] = static_cast<float>(i) * 0.25F;
    // A pitch of 256 bytes per row (texturePitchAlignment multiples), rows written one by one.
    const auto src = dev.alloc(256 * h);
    for (int y = 0; y < h; ++y)
        dev.write(src, std::span<const float>(texels.data() + y * w * 4, w * 4),
                  static_cast<std::uint64_t>(y) * 256);
    ptx::texture_header t;
    t.resource = ptx::texture_resource::pitch2d;
    t.channels = 4;
    t.filter = ptx::texture_filter::linear; // at texel centres the weights are 0 and 1
    t.base = src.address;
    t.width = w;
    t.height = h;
    t.pitch = 256;
    const std::uint64_t tex = make_texture(dev, t);
    const auto out = dev.alloc<float>(w * h * 4);
    const auto k = dev.prepare(texture_module(false), "sample2d4");
    (void)dev.launch(k, {{1, 1, 1}, {8, 4, 1}, 0}, tex, out, w, h);
    CHECK(dev.download<float>(out) == texels);
}

TEST_CASE("texture kernels: a handle that names no texture object faults") {
    host::device dev("fermi_gtx480");
    const auto buf = dev.alloc<float>(64);
    const auto out = dev.alloc<float>(64);
    const auto k = dev.prepare(texture_module(false), "fetch_float");
    try {
        (void)dev.launch(k, {{1, 1, 1}, {32, 1, 1}, 0}, buf.address, out, 32, 0);
        FAIL("no fault");
    } catch (const sim_error& e) {
        CHECK(std::string(e.what()).find("is not a live texture object") != std::string::npos);
    }
}
