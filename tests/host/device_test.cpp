// host::device: allocation, copies, presets by name, launches of real PTX kernels through the
// host API with hand-counted instruction totals, and launch files end to end.
#include "../ptx/references.hpp"

#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/ptx/parser.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace warpkit;
namespace fs = std::filesystem;

namespace {

fs::path source_dir() {
    const char* d = std::getenv("WARPKIT_SOURCE_DIR");
    return d != nullptr ? fs::path(d) : fs::path(".");
}

const ptx::module& vector_add_module() {
    static const ptx::module m = ptx::read_ptx(source_dir() / "examples/cuda/vector_add.ptx");
    return m;
}

} // namespace

TEST_CASE("device: allocations are 256-byte aligned, consecutive and never overlap") {
    host::device dev;
    const auto a = dev.alloc(10);
    const auto b = dev.alloc<float>(100);
    const auto c = dev.alloc(0);
    const auto d = dev.alloc(1);
    CHECK(a.address == host::heap_base);
    CHECK(a.bytes == 10);
    CHECK(b.address == host::heap_base + 256);
    CHECK(b.bytes == 400);
    CHECK(c.address == host::heap_base + 256 + 512);
    CHECK(d.address == c.address + 256); // an empty buffer still has its own address
    for (const auto& x : {a, b, c, d})
        CHECK(x.address % host::alloc_alignment == 0);
}

TEST_CASE("device: upload, write and download round-trip; writes past the end are errors") {
    host::device dev;
    const std::vector<std::int32_t> xs{1, -2, 3, 0x7fffffff};
    const auto b = dev.upload(xs);
    CHECK(dev.download<std::int32_t>(b) == xs);
    const std::vector<std::int32_t> two{9, 8};
    dev.write(b, std::span<const std::int32_t>(two), 8);
    CHECK(dev.download<std::int32_t>(b) == std::vector<std::int32_t>{1, -2, 9, 8});
    CHECK_THROWS_AS(dev.write(b, std::span<const std::int32_t>(two), 12), config_error);
    const auto fresh = dev.alloc<std::uint8_t>(5);
    CHECK(dev.download<std::uint8_t>(fresh) == std::vector<std::uint8_t>(5, 0));
}

TEST_CASE("device: presets by name, overrides applied, unknown names rejected") {
    CHECK(host::device("tesla_seed004").params().sms == 16);
    CHECK(host::device("fermi_gtx480", {"sms=4"}).params().sms == 4);
    CHECK_THROWS_AS(host::device("gtx9000"), config_error);
    CHECK_THROWS_AS(host::device("fermi_gtx480", {"sms=0"}), config_error);
}

TEST_CASE("device: vector_add through the host API on every preset, counts checked by hand") {
    // 1000 elements in 4 blocks of 256 threads. Per thread (GPGPU-Sim counting): 9 instructions
    // up to the guarded branch; a thread with i < n does not count `@%p1 bra` and runs 11 more
    // plus `ret` (21); a thread with i >= n counts the branch and `ret` (11).
    // Per warp: 10 up to and including the branch, 11 on the fall-through path, `ret` once at
    // the reconvergence point: 22 for each of the 32 warps (warp 31 diverges: 8 lanes in range).
    // With the fused preset's 64-thread warps: 16 warps, the last with 40 lanes in range.
    const int n = 1000;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        a[static_cast<std::size_t>(i)] = 0.25F * static_cast<float>(i);
        b[static_cast<std::size_t>(i)] = 3.0F - static_cast<float>(i % 7);
    }
    const auto expected = test_ref::vector_add(a, b, n);
    for (const auto name : gpu::preset_names) {
        CAPTURE(name);
        host::device dev{std::string(name)};
        const auto k = dev.prepare(vector_add_module(), "vector_add");
        const auto da = dev.upload(a);
        const auto db = dev.upload(b);
        const auto dc = dev.alloc<float>(n);
        const auto r = dev.launch(k, {{4, 1, 1}, {256, 1, 1}}, da, db, dc, std::int32_t{n});
        CHECK(dev.download<float>(dc) == expected);
        CHECK(r.thread_instructions() == 1000U * 21 + 24U * 11);
        const std::uint32_t warps = 1024U / gpu::preset_warp_size(name);
        CHECK(r.warp_instructions() == warps * 22);
        CHECK(r.run.total.warp_instructions == r.warp_instructions());
        CHECK(r.cycles() > 0);
        CHECK(r.ipc() == doctest::Approx(static_cast<double>(r.thread_instructions()) /
                                         static_cast<double>(r.cycles())));
    }
}

TEST_CASE("device: argument mistakes name the parameter") {
    host::device dev;
    const auto k = dev.prepare(vector_add_module(), "vector_add");
    const auto buf = dev.alloc<float>(4);
    // n is .u32: an 8-byte integer is the wrong size.
    CHECK_THROWS_WITH_AS(dev.launch(k, {{1, 1, 1}, {32, 1, 1}}, buf, buf, buf, std::int64_t{4}),
                         doctest::Contains("params[3]"), config_error);
    CHECK_THROWS_AS(dev.launch(k, {{1, 1, 1}, {32, 1, 1}}, buf, buf, buf), config_error);
    CHECK_THROWS_AS(dev.prepare(vector_add_module(), "no_such_kernel"), config_error);
}

TEST_CASE("run_launch: the histogram launch file end to end, outputs written where asked") {
    auto spec = host::read_launch(source_dir() / "examples/cuda/histogram.launch.json");
    const auto out = fs::temp_directory_path() / "warpkit-host-test-bins.bin";
    REQUIRE(spec.outputs.size() == 1);
    spec.outputs[0].path = out;
    const auto m = ptx::read_ptx(source_dir() / "examples/cuda/histogram.ptx");
    host::device dev;
    const auto k = dev.prepare(m, "histogram");
    const auto r = host::run_launch(dev, k, spec);
    CHECK(r.cycles() > 0);

    const auto data = host::initial_contents(spec.buffers.at(0));
    std::vector<std::uint8_t> bytes(data.size());
    std::memcpy(bytes.data(), data.data(), data.size());
    const auto expected = test_ref::histogram(bytes, static_cast<int>(bytes.size()));
    std::ifstream f(out, std::ios::binary);
    const std::vector<char> raw{std::istreambuf_iterator<char>(f), {}};
    REQUIRE(raw.size() == 256 * 4);
    std::vector<std::uint32_t> bins(256);
    std::memcpy(bins.data(), raw.data(), raw.size());
    for (std::size_t i = 0; i < 256; ++i)
        CHECK(bins[i] == expected[i]);
    fs::remove(out);

    spec.params.pop_back();
    CHECK_THROWS_WITH_AS(host::run_launch(dev, k, spec), doctest::Contains("launch.params"),
                         config_error);
}
