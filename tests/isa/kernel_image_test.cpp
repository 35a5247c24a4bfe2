#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace warpkit::isa;

TEST_CASE("image entries follow Table 4.3, hand-computed") {
    const program p = assemble(R"(.grid 4 2
.block 64
.warps 2
.regs 5
.param 0x100
.const 7
.data 0xdeadbeef
ADD r1, r2, r3
EXIT
)");
    const std::string img = write_image(p);
    // GRID: x=4 in [9:0], y=2 in [19:10], z=1 in [29:20] -> 0x00100804, kind 0.
    // BLOCK: x=64, y=1, z=1 -> 0x00100440, kind 1. INSTR kind 3 carries the whole word.
    CHECK(img == "000100804\n"
                 "100100440\n"
                 "600000002\n"
                 "700000005\n"
                 "200000100\n"
                 "300221803\n"
                 "3fc000000\n"
                 "400000007\n"
                 "5deadbeef\n"
                 "f00000000\n");
    const program q = read_image(img, "k.hex");
    CHECK(q.kernel == p.kernel);
    CHECK(q.code == p.code);
}

TEST_CASE("an image keeps the kernel's shared memory (SHARED, kind 8) and runs as its source") {
    const program p = assemble(".block 32\n.shared 512\nEXIT\n");
    const std::string img = write_image(p);
    CHECK(img == "000100401\n"
                 "100100420\n"
                 "800000200\n"
                 "3fc000000\n"
                 "f00000000\n");
    CHECK(read_image(img, "k.hex").kernel.shared_bytes == 512);
    // A Table 4.3 image without it leaves shared memory to the GPU.
    CHECK(read_image("000100401 100100420 3fc000000 f00000000", "k.hex").kernel.shared_bytes == 0);
}

TEST_CASE("image reader accepts the memory-file conventions") {
    // Any white space, `//` comments, optional 0x, '_' digit separators, entries in any order.
    const program q =
        read_image("// kernel\n 0x3fc000000   000100804 1_0010_0441 // block\r\nF00000000");
    CHECK(q.code.size() == 1);
    CHECK(q.kernel.grid == dim3{4, 2, 1});
    CHECK(q.kernel.block == dim3{65, 1, 1});
}

namespace {
std::string image_error_of(const std::string& img) {
    try {
        (void)read_image(img, "k.hex");
    } catch (const warpkit::parse_error& e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE("image errors point at the offending entry") {
    CHECK(image_error_of("000100804\n100100440\n30041180g\nf00000000") ==
          "k.hex:3:1: expected a hexadecimal entry, found '30041180g'");
    CHECK(image_error_of("000100804 1000100440") ==
          "k.hex:1:11: entry '1000100440' is wider than 36 bits");
    CHECK(image_error_of("000100804 900000000") ==
          "k.hex:1:11: unknown entry kind 9 (GRID 0, BLOCK 1, PARAM 2, INSTR 3, CONST 4, DATA 5, "
          "WARP 6, REG 7, SHARED 8, START F)");
    CHECK(image_error_of("000000004") == "k.hex:1:1: GRID dimensions must be >= 1 (x 4, y 0, z 0)");
    CHECK(image_error_of("000100804\n100100440\n") == "k.hex:3:1: image has no START entry");
    CHECK(image_error_of("100100440 f00000000") == "k.hex:1:20: image has no GRID entry");
    CHECK(image_error_of("000100804 100100440 f00000000 300000000") ==
          "k.hex:1:31: entry after START");
    std::string many = "000100804 100100440";
    for (int i = 0; i < 17; ++i)
        many += " 200000000";
    many += " f00000000";
    CHECK(image_error_of(many) == "k.hex:1:181: more than 16 PARAM entries");
}

TEST_CASE("image writer rejects values that do not fit") {
    kernel_config k;
    k.grid = {1024, 1, 1}; // 10-bit dimension fields
    CHECK_THROWS_AS((void)write_image(k, {}), warpkit::config_error);
    k.grid = {1, 1, 1};
    k.params.assign(17, 0);
    CHECK_THROWS_AS((void)write_image(k, {}), warpkit::config_error);
}

TEST_CASE("bare instruction-word lists") {
    CHECK(read_words("00221803 // ADD\n0xfc00_0000\n") ==
          std::vector<std::uint32_t>{0x00221803U, 0xFC000000U});
    CHECK_THROWS_WITH_AS((void)read_words("00221803\n  1fc000000", "w.hex"),
                         "w.hex:2:3: word '1fc000000' is wider than 32 bits", warpkit::parse_error);
    CHECK_THROWS_WITH_AS((void)read_words("xyz", "w.hex"),
                         "w.hex:1:1: expected a hexadecimal word, found 'xyz'",
                         warpkit::parse_error);
}
