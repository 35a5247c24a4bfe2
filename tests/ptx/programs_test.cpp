// The nvcc-compiled kernels of tests/ptx/data (-O3 and -G builds of calls, atomics, integer
// and double arithmetic) executed in the functional runner and on fermi_gtx480, checked
// against C++ versions of their CUDA sources.
#include <warpkit/core/rng.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include "test_device.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

std::string data_path(const std::string& file) {
    return test_files::source_path("tests/ptx/data/" + file);
}

using ptx_test::device;

// Runs `l` in the functional runner on a copy of `dev` and on fermi_gtx480 on `dev`; both
// must leave the same memory unless the kernel's results depend on the order of its threads.
void run_both(const ptx::launch& l, device& dev, bool order_independent = true) {
    func::global_memory functional = dev.mem;
    (void)func::run_functional(l, functional);
    gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
    (void)g.run(l, dev.mem);
    if (order_independent) CHECK(dev.mem == functional);
}

std::uint32_t u32(std::int64_t v) {
    return static_cast<std::uint32_t>(v);
}

} // namespace

TEST_CASE("ptx programs: device-function calls (-O3 and -G)") {
    for (const std::string file : {"calls.ptx", "calls_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "calls");
        const bool debug = file == "calls_debug.ptx";
        if (debug) CHECK(k.local_bytes() > 0); // -G keeps call arguments in local memory
        device dev;
        const int n = 300;
        std::vector<int> in(n);
        warpkit::rng r(5);
        for (auto& v : in)
            v = static_cast<int>(r.between(0, 400)) - 200;
        const float s = 0.75f;
        const std::uint64_t out = dev.alloc(8 * n), pin = dev.put(in);
        const ptx::launch l(k, {3, 1, 1}, {128, 1, 1},
                            ptx::param_pack(k).add(out).add(pin).add(n).add(s).bytes());
        run_both(l, dev);
        const auto got = dev.get<float>(out, 2 * n);
        // scale(x, s) = x * s + 1: one fma at -O3, a multiply then an add with -G.
        const auto scale = [&](float x) { return debug ? x * s + 1.0f : std::fma(x, s, 1.0f); };
        for (int i = 0; i < n; ++i) {
            const int v = std::clamp(in[static_cast<std::size_t>(i)], -100, 100);
            CHECK(got[2 * static_cast<std::size_t>(i)] == scale(static_cast<float>(i)));
            CHECK(got[2 * static_cast<std::size_t>(i) + 1] == scale(static_cast<float>(v)));
        }
    }
}

TEST_CASE("ptx programs: integer division, 64-bit arithmetic and bit manipulation (-O3, -G)") {
    for (const std::string file : {"intmath.ptx", "intmath_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "intmath");
        device dev;
        const int n = 200;
        warpkit::rng r(9);
        std::vector<int> a(n);
        std::vector<long long> b(n);
        for (int i = 0; i < n; ++i) {
            a[static_cast<std::size_t>(i)] =
                i % 7 == 0 ? static_cast<int>(r()) // any bits, extremes included
                           : static_cast<int>(r.between(0, 2'000'000)) - 1'000'000;
            b[static_cast<std::size_t>(i)] = static_cast<long long>(r());
        }
        a[3] = INT32_MIN + 1; // INT32_MIN / -1 would trap on a CPU; avoid it as an input pair
        for (auto& v : a)
            if (v == INT32_MIN) v = INT32_MIN + 1;
        const std::uint64_t o32 = dev.alloc(4 * n), o64 = dev.alloc(8 * n), ou = dev.alloc(4 * n);
        const std::uint64_t pa = dev.put(a), pb = dev.put(b);
        const ptx::launch l(
            k, {2, 1, 1}, {128, 1, 1},
            ptx::param_pack(k).add(o32).add(o64).add(ou).add(pa).add(pb).add(n).bytes());
        run_both(l, dev);
        const auto g32 = dev.get<std::int32_t>(o32, n);
        const auto g64 = dev.get<std::int64_t>(o64, n);
        const auto gu = dev.get<std::uint32_t>(ou, n);
        for (int i = 0; i < n; ++i) {
            CAPTURE(i);
            const auto ui = static_cast<std::size_t>(i);
            const int x = a[ui], y = a[static_cast<std::size_t>((i + 1) % n)] | 1;
            const long long p = b[ui], q = b[static_cast<std::size_t>((i + 3) % n)] | 1;
            // Wrap-around sums, as the GPU computes them.
            const std::uint32_t e32 = u32(x / y) + u32(x % y) + u32(std::min(x, y)) -
                                      u32(std::max(x, 3)) +
                                      u32(std::abs(static_cast<long long>(x)));
            CHECK(static_cast<std::uint32_t>(g32[ui]) == e32);
            __extension__ using i128 = __int128;
            const auto hi64 = static_cast<std::uint64_t>((static_cast<i128>(p) * q) >> 64);
            const std::uint64_t e64 =
                static_cast<std::uint64_t>(p / q) + static_cast<std::uint64_t>(p % q) +
                static_cast<std::uint64_t>(p >> 3) + (static_cast<std::uint64_t>(p) << (x & 7)) +
                static_cast<std::uint64_t>(static_cast<long long>(x) * y) + hi64;
            CHECK(static_cast<std::uint64_t>(g64[ui]) == e64);
            const auto u = static_cast<std::uint32_t>(x), uy = static_cast<std::uint32_t>(y);
            const auto byte = [](std::uint64_t v, unsigned k2) { return (v >> (8 * k2)) & 0xffU; };
            const std::uint64_t yx = (std::uint64_t{uy} << 32) | u;
            const auto perm = static_cast<std::uint32_t>(byte(yx, 0) | byte(yx, 1) << 8 |
                                                         byte(yx, 4) << 16 | byte(yx, 5) << 24);
            const unsigned sh = static_cast<unsigned>(x) & 31U;
            const auto funnel =
                static_cast<std::uint32_t>(((std::uint64_t{uy} << 32 | u) << sh) >> 32);
            const auto umulhi = static_cast<std::uint32_t>((std::uint64_t{u} * uy) >> 32);
            const std::uint32_t ffs =
                u == 0 ? 0U : static_cast<std::uint32_t>(std::countr_zero(u) + 1);
            const auto sad = static_cast<std::uint32_t>(
                std::abs(static_cast<long long>(x) - static_cast<long long>(y)) + 2);
            std::uint32_t rev = 0;
            for (unsigned bit = 0; bit < 32; ++bit)
                if ((u >> bit) & 1U) rev |= 1U << (31 - bit);
            const std::uint32_t eu =
                u / uy + u % uy + static_cast<std::uint32_t>(std::popcount(u)) +
                static_cast<std::uint32_t>(std::countl_zero(u)) + rev + perm + funnel + (u >> 7) +
                ((u & 0xff00U) >> 8) + umulhi + (x > 0 ? u ^ uy : ~u) + ffs + sad;
            CHECK(gu[ui] == eu);
        }
    }
}

TEST_CASE("ptx programs: double precision arithmetic and conversions (-O3, -G)") {
    for (const std::string file : {"doubles.ptx", "doubles_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "doubles");
        device dev;
        const int n = 150;
        warpkit::rng r(2);
        std::vector<double> a(n);
        std::vector<float> b(n);
        for (int i = 0; i < n; ++i) {
            a[static_cast<std::size_t>(i)] = (r.uniform() - 0.3) * 100.0;
            b[static_cast<std::size_t>(i)] = static_cast<float>(r.uniform() * 10.0);
        }
        const std::uint64_t out = dev.alloc(16 * n), pa = dev.put(a), pb = dev.put(b);
        const ptx::launch l(k, {2, 1, 1}, {96, 1, 1},
                            ptx::param_pack(k).add(out).add(pa).add(pb).add(n).bytes());
        run_both(l, dev);
        const auto got = dev.get<double>(out, 2 * static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            CAPTURE(i);
            const auto ui = static_cast<std::size_t>(i);
            const double x = a[ui], y = static_cast<double>(b[ui]);
            double rr = x / (y + 1.0);
            rr = std::fma(rr, x, -y);
            rr += std::sqrt(std::fabs(x));
            rr = std::fmin(rr, 1.0e30) + std::fmax(x, -2.5);
            const auto kk = static_cast<long long>(rr);
            CHECK(got[ui] == 1.0 / x + (rr + static_cast<double>(kk % 7)));
            CHECK(got[static_cast<std::size_t>(n) + ui] ==
                  static_cast<double>(static_cast<float>(rr) * 0.5f));
        }
    }
}

TEST_CASE("ptx programs: every kind of atomic on global and shared memory (-O3, -G)") {
    for (const std::string file : {"atomics.ptx", "atomics_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "atomics");
        REQUIRE(k.globals().size() == 1); // global_counter
        device dev;
        func::load_globals(k, dev.mem);
        const int n = 500; // 4 blocks of 128: the last one partly idle
        std::vector<int> gi = {0, 0, 1000, -5, 0};
        std::vector<std::uint32_t> gu = {0, 0, 0, 0xffffffffU, 0, 0, 0, 0};
        std::vector<float> gf = {0, 0};
        std::vector<double> gd = {0};
        std::vector<std::uint64_t> gl = {0, ~std::uint64_t{0}, 0};
        const std::uint64_t pgi = dev.put(gi), pgu = dev.put(gu), pgf = dev.put(gf),
                            pgd = dev.put(gd), pgl = dev.put(gl);
        const ptx::launch l(
            k, {4, 1, 1}, {128, 1, 1},
            ptx::param_pack(k).add(pgi).add(pgu).add(pgf).add(pgd).add(pgl).add(n).bytes());
        run_both(l, dev, false); // exch, CAS and the xor of exch results depend on the order
        const auto ri = dev.get<int>(pgi, 5);
        const auto ru = dev.get<std::uint32_t>(pgu, 8);
        const auto rf = dev.get<float>(pgf, 2);
        const auto rd = dev.get<double>(pgd, 1);
        const auto rl = dev.get<std::uint64_t>(pgl, 3);
        CHECK(ri[0] == n * (n - 1) / 2);
        CHECK(ri[1] == -2 * n);
        CHECK(ri[2] == -n / 2);
        CHECK(ri[3] == n - 1);
        CHECK(ru[0] == n % 101);               // atomicInc wraps after 100
        CHECK(ru[1] == (101 - n % 101) % 101); // atomicDec from 0 goes to 100
        CHECK(ru[2] < static_cast<std::uint32_t>(n));
        CHECK(ru[3] == 0); // every bit cleared by some i & 31
        CHECK(ru[4] == 0xffffffffU);
        CHECK(rf[0] == 0.5f * n);
        CHECK(rf[1] == static_cast<float>(n));
        CHECK(rd[0] == 0.25 * n);
        CHECK(rl[0] == static_cast<std::uint64_t>(n));
        CHECK(rl[1] == 0);
        // gu[6] / gu[7]: the shared counts of even / odd slots, summed over blocks (every
        // thread of a block counts once in its block's slot i & 63).
        CHECK(ru[6] + ru[7] == static_cast<std::uint32_t>(n));
        CHECK(ru[6] == static_cast<std::uint32_t>((n + 1) / 2));
        const auto counter = dev.get<int>(k.globals()[0].address, 1);
        CHECK(counter[0] == n);
    }
}

TEST_CASE("ptx programs: -G builds of the examples give the -O3 results") {
    for (const std::string name : {"vector_add", "reduce", "bfs"}) {
        CAPTURE(name);
        const std::string dir = test_files::source_path("examples/cuda") + "/";
        const auto opt = ptx::read_ptx(dir + name + ".ptx");
        const auto dbg = ptx::read_ptx(dir + "debug/" + name + ".ptx");
        const ptx::kernel ko(opt, name), kd(dbg, name);
        device dev;
        warpkit::rng r(1);
        const int n = 700;
        std::vector<std::uint8_t> params;
        std::vector<float> fa(n), fb(n);
        for (int i = 0; i < n; ++i) {
            fa[static_cast<std::size_t>(i)] = static_cast<float>(r.uniform());
            fb[static_cast<std::size_t>(i)] = static_cast<float>(r.uniform());
        }
        const std::uint64_t pa = dev.put(fa), pb = dev.put(fb), pc = dev.alloc(4 * n);
        // bfs on a ring: vertex v links to v - 1 and v + 1; level 0 at vertex 0.
        std::vector<int> rows(n + 1), cols, levels(n, -1);
        for (int v = 0; v < n; ++v) {
            rows[static_cast<std::size_t>(v)] = static_cast<int>(cols.size());
            cols.push_back((v + n - 1) % n);
            cols.push_back((v + 1) % n);
        }
        rows[n] = static_cast<int>(cols.size());
        levels[0] = 0;
        const std::uint64_t prow = dev.put(rows), pcol = dev.put(cols), plev = dev.put(levels),
                            pchg = dev.alloc(4);
        const auto pack = [&](const ptx::kernel& k) {
            ptx::param_pack p(k);
            if (name == "vector_add") p.add(pa).add(pb).add(pc).add(n);
            if (name == "reduce") p.add(pa).add(pc).add(n);
            if (name == "bfs") p.add(prow).add(pcol).add(plev).add(n).add(0).add(pchg);
            return p.bytes();
        };
        const ptx::dim3 grid{(n + 255) / 256, 1, 1}, block{256, 1, 1};
        device d2 = dev;
        (void)func::run_functional(ptx::launch(ko, grid, block, pack(ko)), dev.mem);
        (void)func::run_functional(ptx::launch(kd, grid, block, pack(kd)), d2.mem);
        CHECK(dev.mem == d2.mem);
    }
}

TEST_CASE("ptx programs: constant and global data, dynamic shared memory, vectors, warp "
          "intrinsics (-O3 and -G agree)") {
    std::vector<func::global_memory> results;
    for (const std::string file : {"misc.ptx", "misc_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "misc");
        CHECK(k.uses_dynamic_shared());
        CHECK(k.constant_bank().size() == 16);
        CHECK(k.globals().size() == 2);
        device dev;
        func::load_globals(k, dev.mem);
        const int n = 200;
        std::vector<float> in(4 * n);
        for (std::size_t i = 0; i < in.size(); ++i)
            in[i] = static_cast<float>(i % 37) * 0.25f - 3.0f;
        const std::uint64_t out = dev.alloc(16 * n), pin = dev.put(in),
                            flags = dev.alloc(4 * n + 4);
        const ptx::launch l(k, {2, 1, 1}, {128, 1, 1},
                            ptx::param_pack(k).add(out).add(pin).add(flags).add(n).bytes(),
                            128 * 16);
        run_both(l, dev);
        const auto o = dev.get<float>(out, 4 * n);
        const auto f = dev.get<int>(flags, n + 1);
        for (int i = 0; i < n; ++i) {
            const float s = o[4 * static_cast<std::size_t>(i)];
            CHECK(o[4 * static_cast<std::size_t>(i) + 2] == doctest::Approx(s / 3.0f));
            CHECK(o[4 * static_cast<std::size_t>(i) + 3] == std::clamp(s, 0.0f, 1.0f));
            CHECK(f[static_cast<std::size_t>(i)] >= 0);
            CHECK(f[static_cast<std::size_t>(i)] <= 2);
        }
        CHECK(f[n] == 1);
        results.push_back(dev.mem);
    }
    CHECK(results[0] == results[1]);
}

TEST_CASE("ptx programs: a negative offset folded into a 32-bit shared address wraps (-O3, -G)") {
    // nvcc -O3 reads s[(m - tx) * 16 + tx] as [tx * -60 + s + 64 m]: the 32-bit sum wraps.
    for (const std::string file : {"shared_wrap.ptx", "shared_wrap_debug.ptx"}) {
        CAPTURE(file);
        const auto m = ptx::read_ptx(data_path(file));
        const ptx::kernel k(m, "shared_wrap");
        device dev;
        const std::uint64_t out = dev.alloc(4 * 32);
        const ptx::launch l(k, {1, 1, 1}, {32, 1, 1}, ptx::param_pack(k).add(out).bytes());
        run_both(l, dev);
        std::vector<int> expected(32, 0);
        for (int tx = 0; tx < 32; ++tx)
            for (int i = 0; i < 4; ++i)
                if (tx <= i) expected[static_cast<std::size_t>(tx)] += (i - tx) * 16 + tx;
        CHECK(expected[0] == 96);
        CHECK(expected[3] == 3);
        CHECK(dev.get<int>(out, 32) == expected);
    }
}

TEST_CASE("ptx programs: a blocked LU update saturates the AMOEBA mesh and computes its result") {
    // 15 x 15 blocks of 16 x 16 threads on a 256 x 256 matrix, each reading two tiles and
    // updating a third: on amoeba_48 and amoeba_48_fused this traffic once overflowed a mesh
    // credit channel (a node interface returned a burst of credits after its ejection
    // queue drained). The update equals the C++ one: 16 fused multiply-adds, then a subtract.
    const auto m = ptx::read_ptx(data_path("lu_update.ptx"));
    const ptx::kernel k(m, "lu_update");
    const int n = 256, k0 = 0;
    std::vector<float> a(static_cast<std::size_t>(n) * n);
    warpkit::rng r(7);
    for (auto& v : a)
        v = static_cast<float>(r.uniform() * 2.0 - 1.0);
    std::vector<float> expected = a;
    const auto at = [&](const std::vector<float>& x, int i, int j) {
        return x[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)];
    };
    for (int i = k0 + 16; i < n; ++i)
        for (int j = k0 + 16; j < n; ++j) {
            float sum = 0.0F;
            for (int q = 0; q < 16; ++q)
                sum = std::fma(at(a, i, k0 + q), at(a, k0 + q, j), sum);
            expected[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)] -= sum;
        }
    const auto check = [&](auto preset) {
        using P = decltype(preset);
        device dev;
        const std::uint64_t pa = dev.put(a);
        const ptx::launch l(k, {15, 15, 1}, {16, 16, 1},
                            ptx::param_pack(k).add(pa).add(n).add(k0).bytes(), 0,
                            static_cast<std::uint32_t>(P::warp_size));
        gpu::gpu<P> g(P::params());
        gpu::run_stats rs;
        REQUIRE_NOTHROW(rs = g.run(l, dev.mem));
        CHECK(rs.total.blocks_completed == 225);
        CHECK(dev.get<float>(pa, a.size()) == expected);
    };
    check(gpu::amoeba_48{});
    check(gpu::amoeba_48_fused{});
}

TEST_CASE("ptx programs: calls of functions outside the module are refused by name") {
    const auto m = ptx::read_ptx(data_path("mathlib.ptx"));
    CHECK_THROWS_WITH_AS(ptx::kernel(m, "mathlib"), doctest::Contains("`vprintf`"), parse_error);
}
