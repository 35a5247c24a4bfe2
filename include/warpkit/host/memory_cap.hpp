#pragma once
/// \file
/// The cap on the host memory a simulated device may hold: device buffers and the pages
/// kernels write. A launch file or program asking for more than the machine has would
/// otherwise run the host out of memory (three buffers of 2^30 floats take 12 GiB, and their
/// initial contents as much again); past the cap, `host::device` refuses the allocation
/// before touching any memory. Tools set it with `--max-device-mb N`.

#include <warpkit/core/error.hpp>
#include <warpkit/func/global_memory.hpp>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpkit::host {

/// Cap used where the machine's memory cannot be read (4 GiB).
inline constexpr std::uint64_t fallback_max_device_bytes = std::uint64_t{4} << 30;

/// The default cap: half of the machine's physical memory (sysconf's _SC_PHYS_PAGES times the
/// page size), leaving the other half to the simulator itself and everything else running.
[[nodiscard]] inline std::uint64_t default_max_device_bytes() noexcept {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return fallback_max_device_bytes;
    return static_cast<std::uint64_t>(pages) / 2 * static_cast<std::uint64_t>(page_size);
}

/// Largest `--max-device-mb` accepted (2^26 MiB = 64 TiB, as `device_memory_mb`).
inline constexpr std::uint64_t max_device_mb_limit = std::uint64_t{1} << 26;

/// The cap in bytes for `--max-device-mb megabytes` (0: the default cap). Throws config_error
/// naming the option above `max_device_mb_limit`.
[[nodiscard]] inline std::uint64_t max_device_bytes_of(std::uint64_t megabytes) {
    if (megabytes == 0) return default_max_device_bytes();
    if (megabytes > max_device_mb_limit)
        throw config_error("max_device_mb", std::to_string(megabytes),
                           "[1, " + std::to_string(max_device_mb_limit) + "] (0: the default)");
    return megabytes << 20;
}

/// How a message tells the user to raise the cap.
inline constexpr const char* raise_cap_hint = "raise it with --max-device-mb N";

/// Pages a memory capped at some bytes may hold beyond them: the module's `.global`
/// variables and the pages buffers share or only partly fill (4 MiB).
inline constexpr std::size_t spare_pages = 1024;

/// Caps the pages `memory` holds at `bytes` (plus `spare_pages`): a kernel writing beyond
/// stops with a sim_error instead of growing the host's memory.
inline void limit_memory(func::global_memory& memory, std::uint64_t bytes) noexcept {
    memory.limit_pages(static_cast<std::size_t>(bytes / func::global_memory::page_bytes) +
                       spare_pages);
}

} // namespace warpkit::host
