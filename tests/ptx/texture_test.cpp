// Texture fetches: the sampling rules of ptx/texture.hpp on hand-computed cases (point and
// linear filtering, weight quantisation, every address mode, normalised coordinates, read
// modes, missing channels, texel addresses), texture headers, and the parser's tex forms.
#include <warpkit/core/error.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/printer.hpp>
#include <warpkit/ptx/texture.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace warpkit;
using ptx::texture_address;
using ptx::texture_header;

namespace {

// Texture memory for the sampler: bytes at addresses from `base` on.
struct memory {
    std::uint64_t base = 0x1000;
    std::vector<std::uint8_t> bytes;
    std::uint64_t operator()(std::uint64_t a, unsigned n) const {
        REQUIRE(a >= base);
        REQUIRE(a - base + n <= bytes.size());
        std::uint64_t v = 0;
        std::memcpy(&v, bytes.data() + (a - base), n);
        return v;
    }
    template <class T>
    static memory of(const std::vector<T>& values) {
        memory m;
        m.bytes.resize(values.size() * sizeof(T));
        std::memcpy(m.bytes.data(), values.data(), m.bytes.size());
        return m;
    }
};

// A float texture of width x height texels at 0x1000, rows packed.
texture_header float_texture(std::uint64_t width, std::uint64_t height) {
    texture_header h;
    h.resource = height > 1 ? ptx::texture_resource::pitch2d : ptx::texture_resource::linear;
    h.base = 0x1000;
    h.width = width;
    h.height = height;
    h.pitch = width * 4;
    return h;
}

std::uint32_t fbits(float f) {
    return std::bit_cast<std::uint32_t>(f);
}

// Channel 0 of a float fetch at (x) or (x, y) with float coordinates.
float at(const texture_header& h, const memory& m, float x, float y = 0.0F, bool two_d = false) {
    const std::uint32_t c[2] = {fbits(x), fbits(y)};
    const auto s = ptx::sample_texture(h, ptx::type::f32, ptx::type::f32,
                                       std::span<const std::uint32_t>(c, two_d ? 2 : 1), m);
    return std::bit_cast<float>(s.value[0]);
}

// The 4 x 2 float texture {1 2 3 4 / 10 20 30 40}.
const memory grid = memory::of(std::vector<float>{1, 2, 3, 4, 10, 20, 30, 40});

} // namespace

TEST_CASE("texture: point filtering reads texel floor(x), clamped") {
    const auto h = float_texture(4, 2);
    CHECK(at(h, grid, 2.7F, 1.2F, true) == 30.0F);
    CHECK(at(h, grid, 0.0F, 0.0F, true) == 1.0F);
    CHECK(at(h, grid, -3.0F, 0.5F, true) == 1.0F); // clamped to column 0
    CHECK(at(h, grid, 9.0F, 9.0F, true) == 40.0F); // clamped to (3, 1)
    CHECK(at(h, grid, 3.999F, 0.999F, true) == 4.0F);
    // The texel address: base + row x pitch + column x texel bytes.
    const std::uint32_t c[2] = {fbits(2.7F), fbits(1.2F)};
    const auto s = ptx::sample_texture(h, ptx::type::f32, ptx::type::f32, c, grid);
    CHECK(s.touched_memory);
    CHECK(s.address == 0x1000 + 16 + 8);
}

TEST_CASE("texture: linear filtering weighs texels i and i + 1 at x - 0.5") {
    const auto h = [] {
        auto t = float_texture(4, 2);
        t.filter = ptx::texture_filter::linear;
        return t;
    }();
    // (1.0, 0.5): xb = 0.5 between columns 0 and 1 of row 0: 0.5 x 1 + 0.5 x 2.
    CHECK(at(h, grid, 1.0F, 0.5F, true) == 1.5F);
    // (2.25, 1.0): a = 0.75 between columns 1 and 2, b = 0.5 between the rows:
    // 0.5 x (0.25 x 2 + 0.75 x 3) + 0.5 x (0.25 x 20 + 0.75 x 30) = 15.125.
    CHECK(at(h, grid, 2.25F, 1.0F, true) == 15.125F);
    // At a texel centre the texel itself; past the edge the clamped texel.
    CHECK(at(h, grid, 3.5F, 1.5F, true) == 40.0F);
    CHECK(at(h, grid, -7.0F, 0.5F, true) == 1.0F);
}

TEST_CASE("texture: linear weights are 9-bit fixed point with 8 fraction bits") {
    auto h = float_texture(4, 1);
    h.filter = ptx::texture_filter::linear;
    const memory row = memory::of(std::vector<float>{1, 2, 3, 4});
    // a = 1/1024 rounds to 0: texel 1 exactly; a = 3/1024 rounds to 1/256.
    CHECK(at(h, row, 1.5F + 1.0F / 1024) == 2.0F);
    CHECK(at(h, row, 1.5F + 3.0F / 1024) == 2.0F + 1.0F / 256);
    CHECK(at(h, row, 1.5F + 0.5F) == 2.5F);
}

TEST_CASE("texture: border, wrap and mirror addressing") {
    const memory row = memory::of(std::vector<float>{1, 2, 3, 4});
    auto h = float_texture(4, 1);
    h.address = {texture_address::border, texture_address::border};
    h.border = {100.0F, 0, 0, 0};
    CHECK(at(h, row, -0.5F) == 100.0F);
    CHECK(at(h, row, 4.0F) == 100.0F);
    CHECK(at(h, row, 3.9F) == 4.0F);
    h.filter = ptx::texture_filter::linear;
    // x = 0.25: texels -1 (border, 100) and 0 (1) with a = 0.75.
    CHECK(at(h, row, 0.25F) == 0.25F * 100.0F + 0.75F * 1.0F);

    h = float_texture(4, 1);
    h.normalized_coords = true;
    h.address = {texture_address::wrap, texture_address::wrap};
    CHECK(at(h, row, 1.3F) == 2.0F);  // x = 5.2: texel 5 mod 4 = 1
    CHECK(at(h, row, -0.1F) == 4.0F); // x = -0.4: texel -1 mod 4 = 3
    h.address = {texture_address::mirror, texture_address::mirror};
    CHECK(at(h, row, 1.3F) == 3.0F);  // texel 5 in a period of 8 mirrors to 2
    CHECK(at(h, row, -0.1F) == 1.0F); // texel -1 mirrors to 0
    CHECK(at(h, row, 0.6F) == 3.0F);  // inside: texel 2
    // Wrap and mirror need normalised coordinates; otherwise they clamp.
    h.normalized_coords = false;
    CHECK(at(h, row, 5.2F) == 4.0F);
    h.address = {texture_address::wrap, texture_address::wrap};
    CHECK(at(h, row, -2.0F) == 1.0F);
}

TEST_CASE("texture: integer coordinates address texels directly") {
    const memory row = memory::of(std::vector<std::int32_t>{-5, 7, 9});
    texture_header h;
    h.kind = ptx::texture_kind::signed_int;
    h.base = 0x1000;
    h.width = 3;
    h.pitch = 12;
    h.normalized_coords = true; // ignored by integer coordinates
    h.filter = ptx::texture_filter::point;
    auto fetch = [&](std::int32_t x) {
        const std::uint32_t c = static_cast<std::uint32_t>(x);
        return ptx::sample_texture(h, ptx::type::s32, ptx::type::s32,
                                   std::span<const std::uint32_t>(&c, 1), row)
            .value;
    };
    CHECK(fetch(0)[0] == 0xfffffffbU);
    CHECK(fetch(2)[0] == 9U);
    CHECK(fetch(-4)[0] == 0xfffffffbU); // clamp
    CHECK(fetch(3)[0] == 9U);
    // A missing channel reads 0, a missing fourth (alpha) channel 1.
    CHECK(fetch(1)[1] == 0U);
    CHECK(fetch(1)[2] == 0U);
    CHECK(fetch(1)[3] == 1U);
    h.address = {texture_address::border, texture_address::border};
    h.border = {-3.0F, 0, 0, 0};
    CHECK(fetch(-1)[0] == 0xfffffffdU); // the border colour as an integer
    CHECK(fetch(1)[0] == 7U);
}

TEST_CASE("texture: the normalized-float read mode and 16-bit floats") {
    texture_header h;
    h.kind = ptx::texture_kind::unsigned_int;
    h.channels = 4;
    h.channel_bits = 8;
    h.read = ptx::texture_read::normalized_float;
    h.base = 0x1000;
    h.width = 1;
    h.pitch = 4;
    const memory px = memory::of(std::vector<std::uint8_t>{0, 128, 255, 51});
    const std::uint32_t zero = 0;
    auto v = ptx::sample_texture(h, ptx::type::f32, ptx::type::s32,
                                 std::span<const std::uint32_t>(&zero, 1), px)
                 .value;
    CHECK(std::bit_cast<float>(v[0]) == 0.0F);
    CHECK(std::bit_cast<float>(v[1]) == static_cast<float>(128.0 / 255.0));
    CHECK(std::bit_cast<float>(v[2]) == 1.0F);
    CHECK(std::bit_cast<float>(v[3]) == 0.2F);

    h.kind = ptx::texture_kind::signed_int;
    h.channels = 2;
    h.pitch = 2;
    const memory sx = memory::of(std::vector<std::int8_t>{-128, 127});
    v = ptx::sample_texture(h, ptx::type::f32, ptx::type::s32,
                            std::span<const std::uint32_t>(&zero, 1), sx)
            .value;
    CHECK(std::bit_cast<float>(v[0]) == -1.0F); // -128 / 127 clamps to -1
    CHECK(std::bit_cast<float>(v[1]) == 1.0F);
    CHECK(std::bit_cast<float>(v[3]) == 1.0F); // missing alpha

    texture_header half;
    half.kind = ptx::texture_kind::floating;
    half.channel_bits = 16;
    half.base = 0x1000;
    half.width = 2;
    half.pitch = 4;
    const memory hx = memory::of(std::vector<std::uint16_t>{0x3c00, 0xc100}); // 1.0, -2.5
    const std::uint32_t one = 1;
    v = ptx::sample_texture(half, ptx::type::f32, ptx::type::s32,
                            std::span<const std::uint32_t>(&one, 1), hx)
            .value;
    CHECK(std::bit_cast<float>(v[0]) == -2.5F);
}

TEST_CASE("texture: headers round-trip and name what makes them unusable") {
    texture_header h = float_texture(37, 29);
    h.pitch = 256;
    h.filter = ptx::texture_filter::linear;
    h.normalized_coords = true;
    h.address = {texture_address::wrap, texture_address::mirror};
    h.border = {1.5F, -2.0F, 0.25F, 8.0F};
    CHECK(h.problem().empty());
    const auto bytes = h.encode();
    const auto back = texture_header::decode(bytes);
    REQUIRE(back.has_value());
    CHECK(*back == h);
    auto broken = bytes;
    broken[0] ^= 1U;
    CHECK_FALSE(texture_header::decode(broken).has_value());

    auto bad = h;
    bad.kind = ptx::texture_kind::signed_int;
    CHECK(bad.problem().find("linear filtering") != std::string::npos);
    bad.filter = ptx::texture_filter::point;
    bad.read = ptx::texture_read::normalized_float;
    CHECK(bad.problem().find("8- or 16-bit") != std::string::npos);
    bad = h;
    bad.pitch = 100; // < 37 x 4
    CHECK(bad.problem().find("pitch") != std::string::npos);
    bad = h;
    bad.channels = 3;
    CHECK(bad.problem().find("channels") != std::string::npos);
}

TEST_CASE("ptx parser: tex forms") {
    const std::string head = ".version 9.0\n.target sm_75\n.address_size 64\n"
                             ".global .texref legacy;\n"
                             ".visible .entry k(.param .u64 k_p0)\n{\n"
                             ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>;\n";
    const auto body = [&](const std::string& line) { return head + line + "\nret;\n}\n"; };
    const std::string ok2d = "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];";
    const std::string ok1d = "tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];";
    // .texref is not PTX the subset declares: the module without it.
    const std::string plain = ".version 9.0\n.target sm_75\n.address_size 64\n"
                              ".visible .entry k(.param .u64 k_p0)\n{\n"
                              ".reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<8>;\n";
    const auto plain_body = [&](const std::string& line) { return plain + line + "\nret;\n}\n"; };
    for (const auto& line : {ok2d, ok1d}) {
        const ptx::module m = ptx::parse_ptx(plain_body(line), "tex.ptx");
        const ptx::instruction& in = m.functions[0].code[0];
        CHECK(in.opcode == ptx::op::tex);
        CHECK(in.vec == 4);
        CHECK(in.num_operands == 3);
        CHECK(in.operands[2].k == ptx::operand::kind::vector);
        // The printer writes the instruction as it was written (tabs and spacing aside).
        CHECK(ptx::to_string(m, m.functions[0], in) == line);
    }
    CHECK(ptx::parse_ptx(plain_body(ok2d), "a").functions[0].code[0].geom == ptx::tex_geom::d2);
    // A 1D coordinate may be written without braces.
    CHECK_NOTHROW((void)ptx::parse_ptx(
        plain_body("tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, %r1];"), "a"));

    struct bad_case {
        std::string line;
        std::string says;
    };
    const std::vector<bad_case> bad{
        {"tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f0}];",
         "unsupported modifier '.3d'"},
        {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];", "needs 2 coordinates"},
        {"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%r1, {%f5}];", "64-bit integer register"},
        {"tex.1d.v4.f16.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];", "not allowed"},
        {"tex.1d.v2.f32.f32 {%f1, %f2}, [%rd1, {%f5}];", "tex needs .v4"},
        {"tex.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];", "needs .1d or .2d"},
        {"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd2, {%f5}];", "explicit samplers"},
        {"tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%rd5}];", "does not fit"},
    };
    for (const auto& b : bad) {
        CAPTURE(b.line);
        try {
            (void)ptx::parse_ptx(plain_body(b.line), "bad.ptx");
            FAIL("accepted");
        } catch (const parse_error& e) {
            CHECK(e.line() == 7);
            CHECK(e.message().find(b.says) != std::string::npos);
        }
    }
    // Texture references (CUDA 13 has none): `.texref` itself is outside the subset.
    CHECK_THROWS_AS((void)ptx::parse_ptx(body(ok1d), "legacy.ptx"), parse_error);
}
