// The cap on a device's host memory (host/memory_cap.hpp): its default, allocations past it
// refused naming the buffer, its size, the cap and the option that raises it, a launch file's
// buffers checked all at once before any memory is touched, and kernels' pages bounded.
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/host/memory_cap.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace warpkit;

namespace {

// The message of the config_error `f` throws (empty when it throws none).
template <class F>
std::string config_message(F&& f) {
    try {
        f();
    } catch (const config_error& e) {
        return e.what();
    }
    return {};
}

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

} // namespace

TEST_CASE("memory cap: the default is half of the machine's physical memory") {
    const auto physical = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                          static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t cap = host::default_max_device_bytes();
    CHECK(cap > 0);
    CHECK(cap <= physical / 2);
    CHECK(cap + static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) >= physical / 2);
    CHECK(host::device().memory_cap() == cap);
    CHECK(host::max_device_bytes_of(0) == cap);
    CHECK(host::max_device_bytes_of(512) == 512 * mib);
    CHECK(config_message([] {
              (void)host::max_device_bytes_of(host::max_device_mb_limit + 1);
          }).find("'max_device_mb'") != std::string::npos);
}

TEST_CASE("memory cap: an allocation past the cap names the buffer, its size, the cap and "
          "--max-device-mb") {
    host::device dev("fermi_gtx480");
    dev.set_memory_cap(4 * mib);
    const auto a = dev.alloc(3 * mib, "a");
    const std::string m = config_message([&] { (void)dev.alloc(2 * mib, "b"); });
    CHECK(m.find("2097152 for buffer 'b'") != std::string::npos);
    CHECK(m.find("at most 1048576") != std::string::npos);
    CHECK(m.find("cap of 4 MiB") != std::string::npos);
    CHECK(m.find("3145728 bytes taken") != std::string::npos);
    CHECK(m.find("--max-device-mb N") != std::string::npos);
    CHECK(dev.live_bytes() == 3 * mib); // the refused buffer took nothing
    // Freed memory counts no more; unnamed buffers are named by number.
    dev.free(a.address);
    CHECK(dev.alloc(4 * mib).bytes == 4 * mib);
    CHECK(config_message([&] { (void)dev.alloc(1); }).find("for buffer 'buffer 2'") !=
          std::string::npos);
    // The preset's device_memory_mb still applies below the cap, naming the buffer too.
    host::device small("fermi_gtx480", {"device_memory_mb=1"});
    const std::string d = config_message([&] { (void)small.alloc(2 * mib, "big"); });
    CHECK(d.find("for buffer 'big'") != std::string::npos);
    CHECK(d.find("device_memory_mb = 1") != std::string::npos);
}

TEST_CASE("memory cap: a launch file of three 2^30-float buffers fails before any memory is "
          "touched") {
    const nlohmann::json j = {
        {"grid", {1}},
        {"block", {32}},
        {"buffers",
         {{{"name", "a"}, {"type", "f32"}, {"count", 1U << 30}},
          {{"name", "b"}, {"type", "f32"}, {"count", 1U << 30}, {"init", {{"kind", "iota"}}}},
          {{"name", "c"}, {"type", "f32"}, {"count", 1U << 30}}}}};
    const auto spec = host::parse_launch(j, ".");
    host::device dev("fermi_gtx480", {"device_memory_mb=16384"});
    dev.set_memory_cap(8192 * mib);
    const std::string m = config_message([&] { (void)host::allocate(dev, spec); });
    CHECK(m.find("'launch.buffers[2].alloc.bytes' = 4294967296 for buffer 'c'") !=
          std::string::npos);
    CHECK(m.find("cap of 8192 MiB") != std::string::npos);
    CHECK(m.find("--max-device-mb N") != std::string::npos);
    CHECK(dev.live_bytes() == 0);
    CHECK(dev.memory().pages() == 0);
}

TEST_CASE("memory cap: zero-initialised buffers take no pages; other contents are written") {
    const nlohmann::json j = {
        {"grid", {1}},
        {"block", {32}},
        {"buffers",
         {{{"name", "z"}, {"type", "u32"}, {"count", 4096}},
          {{"name", "i"}, {"type", "u32"}, {"count", 4}, {"init", {{"kind", "iota"}}}}}}};
    host::device dev;
    const auto bufs = host::allocate(dev, host::parse_launch(j, "."));
    CHECK(dev.memory().pages() == 1); // the iota buffer's
    CHECK(dev.download<std::uint32_t>(bufs.at("z")) == std::vector<std::uint32_t>(4096, 0));
    CHECK(dev.download<std::uint32_t>(bufs.at("i")) == std::vector<std::uint32_t>{0, 1, 2, 3});
}

TEST_CASE("memory cap: writes needing more pages than the cap allows stop with a sim_error") {
    func::global_memory mem;
    mem.limit_pages(2);
    mem.store(0, 1);
    mem.store(func::global_memory::page_bytes, 2);
    mem.store(4, 3); // a page already held
    CHECK_THROWS_WITH_AS(mem.store(5 * func::global_memory::page_bytes, 4),
                         doctest::Contains("beyond the cap of 2 pages"), sim_error);
    CHECK(mem.pages() == 2);
    CHECK(mem.load(5 * func::global_memory::page_bytes) == 0);
    // Copies and moves keep the limit.
    func::global_memory copy = mem;
    CHECK(copy.page_limit() == 2);
    func::global_memory moved = std::move(copy);
    CHECK(moved.page_limit() == 2);
    // A device limits its memory by its cap, with room for .global variables.
    host::device dev;
    dev.set_memory_cap(mib);
    CHECK(dev.memory().page_limit() == mib / func::global_memory::page_bytes + host::spare_pages);
}
