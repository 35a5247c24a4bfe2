#pragma once
/// \file
/// `global_memory`: the functional contents of device memory, byte-addressed, sparse.

#include <warpkit/core/error.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpkit::gpu {

/// Device memory for functional execution: 32-bit words at 4-byte-aligned byte addresses,
/// allocated in 4 KiB pages on first write; never-written words read as zero. Functional
/// state only (timing goes through the memory-system parts).
class global_memory {
public:
    static constexpr std::uint64_t page_bytes = 4096;

    [[nodiscard]] std::uint32_t load(std::uint64_t addr) const {
        check_(addr);
        const auto it = pages_.find(addr / page_bytes);
        return it == pages_.end() ? 0 : (*it->second)[word_(addr)];
    }
    void store(std::uint64_t addr, std::uint32_t value) {
        check_(addr);
        auto& page = pages_[addr / page_bytes];
        if (!page) page = std::make_unique<page_type>();
        (*page)[word_(addr)] = value;
    }
    /// Writes `words` consecutively from `addr`.
    void write(std::uint64_t addr, const std::vector<std::uint32_t>& words) {
        for (std::size_t i = 0; i < words.size(); ++i)
            store(addr + 4 * i, words[i]);
    }
    /// Reads `count` consecutive words from `addr`.
    [[nodiscard]] std::vector<std::uint32_t> read(std::uint64_t addr, std::size_t count) const {
        std::vector<std::uint32_t> out(count);
        for (std::size_t i = 0; i < count; ++i)
            out[i] = load(addr + 4 * i);
        return out;
    }
    /// Pages written so far.
    [[nodiscard]] std::size_t pages() const noexcept { return pages_.size(); }

    /// Same contents (a page never written equals a page of zeros).
    friend bool operator==(const global_memory& a, const global_memory& b) {
        return a.covers_(b) && b.covers_(a);
    }

private:
    using page_type = std::array<std::uint32_t, page_bytes / 4>;
    static void check_(std::uint64_t addr) {
        if (addr % 4 != 0)
            throw sim_error("global memory: address " + std::to_string(addr) +
                            " is not 4-byte aligned");
    }
    [[nodiscard]] static std::size_t word_(std::uint64_t addr) noexcept {
        return static_cast<std::size_t>((addr % page_bytes) / 4);
    }
    // Every page of *this reads the same in `o`.
    [[nodiscard]] bool covers_(const global_memory& o) const {
        for (const auto& [base, page] : pages_) {
            const auto it = o.pages_.find(base);
            for (std::size_t i = 0; i < page->size(); ++i)
                if ((*page)[i] != (it == o.pages_.end() ? 0 : (*it->second)[i])) return false;
        }
        return true;
    }

    std::unordered_map<std::uint64_t, std::unique_ptr<page_type>> pages_;
};

} // namespace warpkit::gpu
