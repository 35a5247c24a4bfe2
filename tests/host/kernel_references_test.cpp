// The host references of the example CUDA kernels (tests/ptx/references.hpp) against
// hand-computed cases, and the checked-in BFS inputs against the BFS reference.
#include "../ptx/references.hpp"

#include <warpkit/host/launch_file.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

namespace ref = warpkit::test_ref;
namespace fs = std::filesystem;

TEST_CASE("vector_add and histogram references") {
    const std::vector<float> a{1.0F, 2.5F, -3.0F};
    const std::vector<float> b{0.5F, 0.5F, 3.0F};
    CHECK(ref::vector_add(a, b, 3) == std::vector<float>{1.5F, 3.0F, 0.0F});
    CHECK(ref::vector_add(a, b, 2).size() == 2);

    const std::vector<std::uint8_t> data{0, 1, 1, 255, 7};
    const auto h = ref::histogram(data, 4); // the 7 lies past n
    CHECK(h[0] == 1);
    CHECK(h[1] == 2);
    CHECK(h[255] == 1);
    CHECK(h[7] == 0);
    std::array<std::uint32_t, 256> start{};
    start[1] = 10;
    CHECK(ref::histogram(data, 5, start)[1] == 12);
}

TEST_CASE("reduce reference adds in the kernel's tree order") {
    // Tree order for 4 threads: (s2 + s0) and (s3 + s1), then their sum: (-1e8 + 1e8) + (1 + 1)
    // = 2. A left-to-right sum loses the first 1 to rounding (1e8 + 1 == 1e8 in float) and
    // gives 1.
    const std::vector<float> in{1e8F, 1.0F, -1e8F, 1.0F};
    CHECK(ref::reduce(in, 4, 1, 4) == std::vector<float>{2.0F});
    // inputs past n count as 0; one sum per block
    const std::vector<float> ones(10, 1.0F);
    CHECK(ref::reduce(ones, 10, 3, 4) == std::vector<float>{4.0F, 4.0F, 2.0F});
    CHECK(ref::reduce(ones, 10, 1)[0] == 10.0F); // 256-thread default
}

TEST_CASE("sgemm references fuse each multiply-add as the kernels' fma.rn.f32 does") {
    // C[0][0] = fma(A01, B10, fma(A00, B00, 0)) = (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly;
    // rounding the product first would give 2^-11.
    const float x = 1.0F + std::ldexp(1.0F, -12);
    const std::vector<float> A{1.0F, x, 0.0F, 2.0F};
    const std::vector<float> B{-1.0F, 0.0F, x, 3.0F};
    const float want = std::ldexp(1.0F, -11) + std::ldexp(1.0F, -24);
    for (const auto& C : {ref::sgemm_naive(A, B, 2), ref::sgemm_tiled(A, B, 2)}) {
        REQUIRE(C.size() == 4);
        CHECK(C[0] == want);
        CHECK(C[1] == 3.0F * x); // 1*0 + x*3
        CHECK(C[2] == 2.0F * x); // 0*-1 + 2*x
        CHECK(C[3] == 6.0F);     // 0*0 + 2*3
    }
    // A product too small for float gives a -0 sum; the tiled kernel's 15 padding steps
    // fma(0, 0, -0) = +0 then clear the sign (n = 1 is padded to one 16-wide tile).
    const std::vector<float> tiny_a{-1e-30F};
    const std::vector<float> tiny_b{1e-30F};
    CHECK(std::signbit(ref::sgemm_naive(tiny_a, tiny_b, 1)[0]));
    CHECK_FALSE(std::signbit(ref::sgemm_tiled(tiny_a, tiny_b, 1)[0]));
    CHECK(ref::sgemm_tiled(tiny_a, tiny_b, 1)[0] == 0.0F);
}

TEST_CASE("scan reference restarts at every block of 256") {
    const std::vector<int> in{1, 2, 3, 4, 5};
    CHECK(ref::scan(in, 5) == std::vector<int>{1, 3, 6, 10, 15});
    const std::vector<int> ones(300, 1);
    const auto out = ref::scan(ones, 300);
    CHECK(out[255] == 256);
    CHECK(out[256] == 1);
    CHECK(out[299] == 44);
    const std::vector<int> wrap{INT_MAX, 1};
    CHECK(ref::scan(wrap, 2)[1] == INT_MIN);
}

TEST_CASE("warp_reduce reference") {
    const std::vector<int> in{1, -2, 3, 0, 5};
    const auto r = ref::warp_reduce(in, 4);
    CHECK(r.total == 2);
    CHECK(r.positives == 2);
    const std::vector<int> wrap{INT_MAX, 1};
    CHECK(ref::warp_reduce(wrap, 2).total == INT_MIN);
}

TEST_CASE("BFS references on a hand-drawn graph") {
    // 0 - 1 - 2, 0 - 3, vertex 4 alone (undirected, CSR)
    const std::vector<int> rows{0, 2, 4, 5, 6, 6};
    const std::vector<int> cols{1, 3, 0, 2, 1, 0};
    const std::vector<int> start{0, -1, -1, -1, -1};
    const auto step = ref::bfs_level(rows, cols, start, 5, 0);
    CHECK(step.changed);
    CHECK(step.levels == std::vector<int>{0, 1, -1, 1, -1});
    const auto none = ref::bfs_level(rows, cols, start, 5, 1); // nobody on level 1 yet
    CHECK_FALSE(none.changed);
    CHECK(none.levels == start);
    const auto full = ref::bfs(rows, cols, 5);
    CHECK(full.levels == std::vector<int>{0, 1, 2, 1, -1});
    CHECK(full.launches == 3); // levels 0 and 1 change something, level 2 does not
    CHECK(ref::bfs(rows, cols, 5, 2).levels == std::vector<int>{2, 1, 0, 3, -1});
}

TEST_CASE("SFU references agree within the stated tolerance") {
    const std::vector<float> zero{0.0F};
    // sin 0 = 0, cos 0 = 1: y = 0 + log(1 + 1) / 1 + 1
    CHECK(ref::sfu(zero, 1)[0] == static_cast<float>(1.0 + std::log(2.0)));
    std::vector<float> x;
    for (int i = -800; i < 800; ++i)
        x.push_back(static_cast<float>(i) / 100.0F);
    const auto exact = ref::sfu(x, static_cast<int>(x.size()));
    const auto steps = ref::sfu_ptx_order(x, static_cast<int>(x.size()));
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        worst = std::max(worst, std::fabs(double{exact[i]} - double{steps[i]}));
    CHECK(worst < ref::sfu_tolerance);
}

namespace {
std::vector<int> ints(const warpkit::host::buffer_spec& b) {
    const auto bytes = warpkit::host::initial_contents(b);
    std::vector<int> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), bytes.size()); // the test host is little-endian
    return v;
}
} // namespace

TEST_CASE("the BFS example's graph is valid CSR and its levels are three expansions from 0") {
    const fs::path dir = test_files::source_dir() / "examples" / "cuda";
    const auto l = warpkit::host::read_launch(dir / "bfs.launch.json");
    const auto rows = ints(*l.find_buffer("row_offsets"));
    const auto cols = ints(*l.find_buffer("columns"));
    const auto levels = ints(*l.find_buffer("levels"));
    const int n = static_cast<int>(levels.size());
    REQUIRE(rows.size() == levels.size() + 1);
    CHECK(rows.front() == 0);
    CHECK(rows.back() == static_cast<int>(cols.size()));
    CHECK(std::is_sorted(rows.begin(), rows.end()));
    CHECK(std::all_of(cols.begin(), cols.end(), [n](int c) { return c >= 0 && c < n; }));

    // The file holds the state the host reaches before launching level 3 (the launch file's
    // level parameter, the fifth).
    std::int32_t level = 0;
    std::memcpy(&level, l.params.at(4).value.data(), 4);
    CHECK(level == 3);
    std::vector<int> state(levels.size(), -1);
    state[0] = 0;
    for (int k = 0; k < level; ++k)
        state = ref::bfs_level(rows, cols, state, n, k).levels;
    CHECK(state == levels);

    // the launch has work to do, and the whole search takes several launches
    CHECK(ref::bfs_level(rows, cols, levels, n, level).changed);
    const auto full = ref::bfs(rows, cols, n);
    CHECK(full.launches > level + 2);
    CHECK(std::count(levels.begin(), levels.end(), level) > 32);
}
