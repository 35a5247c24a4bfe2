// Device memory for the PTX tests' buffers: a bump allocator over func::global_memory that
// puts host vectors in and reads them back. Test-only.
#pragma once

#include <warpkit/func/global_memory.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ptx_test {

/// Global memory and where the next buffer goes.
struct device {
    warpkit::func::global_memory mem;
    std::uint64_t next = 0x1000'0000;

    /// A buffer of `bytes`, 256-byte aligned with a 256-byte gap after it.
    std::uint64_t alloc(std::uint64_t bytes) {
        const std::uint64_t a = next;
        next += (bytes + 255) / 256 * 256 + 256;
        return a;
    }
    /// A new buffer holding the elements of `v`.
    template <class T>
    std::uint64_t put(const std::vector<T>& v) {
        const std::uint64_t a = alloc(v.size() * sizeof(T));
        std::vector<std::uint8_t> raw(v.size() * sizeof(T));
        std::memcpy(raw.data(), v.data(), raw.size());
        mem.write_bytes(a, raw);
        return a;
    }
    /// The `n` elements at `a`.
    template <class T>
    std::vector<T> get(std::uint64_t a, std::size_t n) const {
        const auto raw = mem.read_bytes(a, n * sizeof(T));
        std::vector<T> v(n);
        std::memcpy(v.data(), raw.data(), raw.size());
        return v;
    }
};

} // namespace ptx_test
