// host::device: allocation, copies, presets by name, launches of real PTX kernels through the
// host API with hand-counted instruction totals, and launch files end to end.
#include "../ptx/references.hpp"

#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/ptx/parser.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

using namespace warpkit;
namespace fs = std::filesystem;

namespace {

using test_files::source_dir;

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

TEST_CASE("device: a timed launch samples AMOEBA's first-CTA metrics, by hand on vector_add") {
    // 1000 elements in 4 blocks of 256 threads: block 0 runs alone on its SM, every lane in
    // range. Per warp 22 instructions, 2 loads and 1 store, each of 32 consecutive floats on a
    // 128-byte boundary: one transaction for 32 lane accesses. Every thread skips the guarded
    // `@%p1 bra` (its predicate is false), so 1 of the 22 instructions has no thread active.
    // So: one CTA resident, idle lanes 1 / 22, coalescing 3 / 96, loads 2 / 22 and stores
    // 1 / 22 of the warp instructions.
    const int n = 1000;
    const std::vector<float> a(n, 1.0F), b(n, 2.0F);
    for (const char* name : {"fermi_gtx480", "amoeba_48"}) {
        CAPTURE(name);
        host::device dev{name};
        const auto k = dev.prepare(vector_add_module(), "vector_add");
        const auto da = dev.upload(a);
        const auto db = dev.upload(b);
        const auto dc = dev.alloc<float>(n);
        const auto r = dev.launch(k, {{4, 1, 1}, {256, 1, 1}}, da, db, dc, std::int32_t{n});
        REQUIRE(r.first_cta.has_value());
        const auto& m = *r.first_cta;
        CHECK(m.concurrent_cta == doctest::Approx(1.0));
        CHECK(m.control_divergent == doctest::Approx(1.0 / 22));
        CHECK(m.coalescing == doctest::Approx(1.0 / 32));
        CHECK(m.load_rate == doctest::Approx(2.0 / 22));
        CHECK(m.store_rate == doctest::Approx(1.0 / 22));
        // Every line is read once: all misses where the L1 caches global loads.
        CHECK((m.l1d_miss == 1.0 || m.l1d_miss == 0.0));
        ptx::param_pack args(k);
        args.add(da.address).add(db.address).add(dc.address).add(std::int32_t{n});
        const auto f = dev.launch_functional(k, {{4, 1, 1}, {256, 1, 1}}, args.bytes());
        CHECK_FALSE(f.first_cta.has_value());
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

TEST_CASE("device: a kernel writing past its buffer faults naming the access and the buffer") {
    // sgemm_naive told the matrices are 64 wide but given 16-float buffers: C[row * 64 + col]
    // lands past the end of C. With the check off the run "succeeds", writing past C.
    const auto m = ptx::read_ptx(source_dir() / "examples/cuda/sgemm_naive.ptx");
    for (const bool checked : {true, false}) {
        CAPTURE(checked);
        host::device dev;
        dev.check_bounds(checked);
        CHECK(dev.bounds_checked() == checked);
        const auto k = dev.prepare(m, "sgemm_naive");
        const auto a = dev.alloc(16 * 4, "A"), b = dev.alloc(16 * 4, "B"),
                   c = dev.alloc(16 * 4, "C");
        const std::int32_t n = 64;
        const host::launch_config cfg{{4, 4, 1}, {16, 16, 1}, 0};
        if (checked) {
            std::string what;
            try {
                (void)dev.launch(k, cfg, a, b, c, n);
            } catch (const sim_error& e) {
                what = e.what();
            }
            CAPTURE(what);
            CHECK(what.find("sgemm_naive") != std::string::npos);
            CHECK(what.find("is outside every allocation") != std::string::npos);
            CHECK(what.find("pc ") != std::string::npos);
            CHECK(what.find("lane ") != std::string::npos);
            // The first stray access is a load of A or B (row * 64 + k past 16 floats) or
            // the store to C; each names the nearest buffer.
            CHECK((what.find("bytes past the end of `A`") != std::string::npos ||
                   what.find("bytes past the end of `B`") != std::string::npos ||
                   what.find("bytes past the end of `C`") != std::string::npos ||
                   what.find("bytes before `") != std::string::npos));
        } else {
            CHECK_NOTHROW((void)dev.launch(k, cfg, a, b, c, n));
        }
    }
}

TEST_CASE("device: every example launch file runs clean under bounds checks") {
    for (const std::string name : {"vector_add", "reduce", "histogram", "bfs", "sgemm_naive",
                                   "sgemm_tiled", "scan", "sfu", "warp_reduce"}) {
        CAPTURE(name);
        auto spec = host::read_launch(source_dir() / ("examples/cuda/" + name + ".launch.json"));
        spec.outputs.clear();
        const auto m = ptx::read_ptx(source_dir() / ("examples/cuda/" + name + ".ptx"));
        host::device dev;
        REQUIRE(dev.bounds_checked());
        const auto k = dev.prepare(m, name);
        CHECK_NOTHROW((void)host::run_launch(dev, k, spec));
    }
}

TEST_CASE("device: allocations are named in device memory; .global variables too") {
    host::device dev;
    const auto a = dev.alloc(10, "in");
    const auto b = dev.alloc(3);
    const auto& allocs = dev.memory().allocations();
    REQUIRE(allocs.size() == 2);
    CHECK(allocs.at(a.address).name == "in");
    CHECK(allocs.at(a.address).bytes == 10);
    CHECK(allocs.at(b.address).name == "buffer 1");
    CHECK(dev.memory().allocation_at(a.address + 9, 1) != nullptr);
    CHECK(dev.memory().allocation_at(a.address + 9, 2) == nullptr);
    CHECK(dev.memory().nearest_allocation(a.address + 12) ==
          "2 bytes past the end of `in` (0x10000000, 10 bytes)");
    CHECK(dev.memory().nearest_allocation(a.address - 4) ==
          "4 bytes before `in` (0x10000000, 10 bytes)");
}

TEST_CASE("device: a block needing more registers than an SM has names the setting to change") {
    host::device dev("fermi_gtx480", {"registers=1024"});
    const auto k = dev.prepare(vector_add_module(), "vector_add");
    const auto a = dev.alloc<float>(256), b = dev.alloc<float>(256), c = dev.alloc<float>(256);
    const std::int32_t n = 256;
    std::string what;
    try {
        (void)dev.launch(k, {{1, 1, 1}, {256, 1, 1}, 0}, a, b, c, n);
    } catch (const config_error& e) {
        what = e.what();
        CHECK(e.field() == "block.registers");
        CHECK(e.value() == std::to_string(k.regs_per_thread() * 256));
    }
    CAPTURE(what);
    CHECK(what.find("--set registers=N, N >= " + std::to_string(k.regs_per_thread() * 256)) !=
          std::string::npos);
    CHECK(what.find(std::to_string(k.regs_per_thread()) + " per thread x 256 threads") !=
          std::string::npos);
    CHECK(what.find("estimate from the PTX's liveness") != std::string::npos);
}

TEST_CASE("device: a kernel prepared for more timing registers than the SM's scoreboard tracks "
          "is refused at launch") {
    host::device dev("fermi_gtx480");
    ptx::kernel_options wide;
    wide.timing_registers = 255; // for a 256-register scoreboard; the GTX480's tracks 63
    const auto k = dev.prepare(vector_add_module(), "vector_add", wide);
    const auto a = dev.alloc<float>(32), b = dev.alloc<float>(32), c = dev.alloc<float>(32);
    const std::int32_t n = 32;
    try {
        (void)dev.launch(k, {{1, 1, 1}, {32, 1, 1}, 0}, a, b, c, n);
        FAIL("the launch should be refused");
    } catch (const config_error& e) {
        CHECK(e.field() == "kernel.timing_registers");
        CHECK(e.value() == "255");
        CHECK(std::string(e.what()).find("<= 63") != std::string::npos);
    }
}

TEST_CASE("device: with warm memory, L2 and DRAM state carry over from launch to launch") {
    // vector_add over 16000 floats reads 128 KB: it fits the GTX480's 768 KB of L2, so a
    // second launch over the same buffers finds every line there and reads nothing from DRAM.
    const int n = 16000;
    std::vector<float> a(n, 1.0F), b(n, 2.0F);
    const auto dram_reads = [](const host::launch_result& r) {
        std::uint64_t sum = 0;
        for (const auto& s : r.run.memory.slices)
            sum += s.dram_reads;
        return sum;
    };
    host::device cold("fermi_gtx480");
    host::device warm("fermi_gtx480");
    warm.keep_memory_warm(true);
    CHECK(warm.memory_kept_warm());
    std::vector<host::launch_result> c, w;
    for (auto* dev : {&cold, &warm}) {
        const auto k = dev->prepare(vector_add_module(), "vector_add");
        const auto da = dev->upload(a);
        const auto db = dev->upload(b);
        const auto dc = dev->alloc<float>(n);
        auto& out = dev == &cold ? c : w;
        for (int i = 0; i < 2; ++i)
            out.push_back(dev->launch(k, {{63, 1, 1}, {256, 1, 1}}, da, db, dc, std::int32_t{n}));
        CHECK(dev->download<float>(dc) == std::vector<float>(n, 3.0F));
    }
    // Cold: both launches alike. Warm: the first is a cold launch, the second hits in L2.
    CHECK(c[0].cycles() == c[1].cycles());
    CHECK(w[0].cycles() == c[0].cycles());
    CHECK(dram_reads(w[0]) == dram_reads(c[0]));
    CHECK(dram_reads(c[0]) >= 2 * 16000 * 4 / 128);
    CHECK(dram_reads(w[1]) == 0);
    CHECK(w[1].cycles() < w[0].cycles());
    // Per-launch counters: the second launch's L2 requests are its own, not a running sum.
    std::uint64_t req0 = 0, req1 = 0;
    for (std::size_t s = 0; s < w[0].run.memory.slices.size(); ++s) {
        req0 += w[0].run.memory.slices[s].requests;
        req1 += w[1].run.memory.slices[s].requests;
    }
    CHECK(req0 == req1);
}

TEST_CASE("device: sampling hands out every SM's counters without changing the run") {
    // vector_add over 16000 floats on fermi_gtx480, every 100 cycles: the samples come at
    // 100, 200, ... and once more at the end; the last equals the run's own per-SM counters;
    // counters only grow; the run's cycles and results are those of an unsampled launch.
    const int n = 16000;
    std::vector<float> a(n, 1.0F), b(n, 2.0F);
    const auto launch = [&](host::device& dev) {
        const auto k = dev.prepare(vector_add_module(), "vector_add");
        const auto da = dev.upload(a);
        const auto db = dev.upload(b);
        const auto dc = dev.alloc<float>(n);
        auto r = dev.launch(k, {{63, 1, 1}, {256, 1, 1}}, da, db, dc, std::int32_t{n});
        CHECK(dev.download<float>(dc) == std::vector<float>(n, 3.0F));
        return r;
    };
    host::device plain("fermi_gtx480");
    const auto unsampled = launch(plain);

    host::device dev("fermi_gtx480");
    std::vector<std::uint64_t> at;
    std::vector<gpu::sm_counters> last;
    std::uint64_t done_calls = 0;
    std::uint64_t shrinking = 0;
    dev.sample(100, [&](std::uint64_t cycles, std::span<const gpu::sm_counters> sms, bool done) {
        REQUIRE(sms.size() == 15);
        if (!last.empty())
            for (std::size_t i = 0; i < sms.size(); ++i)
                if (sms[i].stats.warp_instructions < last[i].stats.warp_instructions ||
                    sms[i].memory.reads_sent < last[i].memory.reads_sent)
                    ++shrinking;
        at.push_back(cycles);
        last.assign(sms.begin(), sms.end());
        done_calls += done ? 1 : 0;
    });
    CHECK_THROWS_AS(dev.sample(0, {}), config_error);
    const auto r = launch(dev);
    CHECK(r.cycles() == unsampled.cycles());
    CHECK(r.warp_instructions() == unsampled.warp_instructions());
    REQUIRE(!at.empty());
    CHECK(done_calls == 1);
    CHECK(shrinking == 0);
    CHECK(at.back() == r.cycles());
    CHECK(at.size() == (r.cycles() + 99) / 100);
    for (std::size_t i = 0; i + 1 < at.size(); ++i)
        CHECK(at[i] == 100 * (i + 1));
    REQUIRE(last.size() == r.run.per_sm.size());
    std::uint64_t thread_ops = 0;
    for (std::size_t i = 0; i < last.size(); ++i) {
        CHECK(last[i].id == i);
        CHECK(last[i].stats.warp_instructions == r.run.per_sm[i].warp_instructions);
        CHECK(last[i].stats.cycles == r.run.per_sm[i].cycles);
        CHECK(last[i].memory.reads_sent == r.run.memory.sms[i].reads_sent);
        // SP0 / SP1 INT and FP, SFU, LD/ST; then the split half's, idle with split.mode off.
        REQUIRE(last[i].clusters.size() == 2 * (2 * 2 + 2));
        for (std::size_t c = 0; c < last[i].clusters.size(); ++c) {
            const auto& cl = last[i].clusters[c];
            CHECK(cl.second_half == (c >= 6));
            if (cl.second_half) CHECK(cl.stats.thread_ops == 0);
            thread_ops += cl.stats.thread_ops;
        }
    }
    // Every thread instruction ran on a cluster but the branches and control ones.
    CHECK(thread_ops > 0);
    CHECK(thread_ops <= r.thread_instructions());
    // Sampling stops when the hook is cleared.
    dev.sample(1, {});
    at.clear();
    launch(dev);
    CHECK(at.empty());
}
