#pragma once
/// \file
/// `global_memory`: the functional contents of device memory, byte-addressed, sparse.

#include <warpkit/core/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace warpkit::gpu {

/// Device memory for functional execution: bytes at 64-bit addresses, held as little-endian
/// 32-bit words in 4 KiB pages allocated on first write; never-written bytes read as zero.
/// Words (`load` / `store`) need 4-byte alignment; values of 1, 2, 4 or 8 bytes
/// (`load_value` / `store_value`) their natural alignment; byte spans (`read_bytes` /
/// `write_bytes`) none. Functional state only (timing goes through the memory-system parts).
class global_memory {
public:
    static constexpr std::uint64_t page_bytes = 4096;

    global_memory() = default;
    global_memory(const global_memory& o) { copy_from_(o); }
    global_memory& operator=(const global_memory& o) {
        if (this != &o) copy_from_(o);
        return *this;
    }
    global_memory(global_memory&& o) noexcept : pages_(std::move(o.pages_)) { o.last_ = nullptr; }
    global_memory& operator=(global_memory&& o) noexcept {
        pages_ = std::move(o.pages_);
        last_ = nullptr;
        o.last_ = nullptr;
        return *this;
    }
    ~global_memory() = default;

    /// The 32-bit word at `addr` (4-byte aligned).
    [[nodiscard]] std::uint32_t load(std::uint64_t addr) const {
        check_(addr, 4);
        const page_type* p = find_(addr / page_bytes);
        return p == nullptr ? 0 : (*p)[word_(addr)];
    }
    /// Writes the 32-bit word at `addr` (4-byte aligned).
    void store(std::uint64_t addr, std::uint32_t value) {
        check_(addr, 4);
        page_(addr / page_bytes)[word_(addr)] = value;
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

    /// The little-endian value of `size` bytes (1, 2, 4 or 8) at `addr`, naturally aligned,
    /// zero-extended.
    [[nodiscard]] std::uint64_t load_value(std::uint64_t addr, unsigned size) const {
        check_(addr, size);
        const page_type* p = find_(addr / page_bytes);
        if (p == nullptr) return 0;
        const std::uint32_t w = (*p)[word_(addr)];
        switch (size) {
        case 1:
            return (w >> (8 * (addr % 4))) & 0xffU;
        case 2:
            return (w >> (8 * (addr % 4))) & 0xffffU;
        case 4:
            return w;
        default:
            return w | (std::uint64_t{(*p)[word_(addr) + 1]} << 32);
        }
    }
    /// Writes the low `size` bytes (1, 2, 4 or 8) of `value` at `addr`, naturally aligned.
    void store_value(std::uint64_t addr, unsigned size, std::uint64_t value) {
        check_(addr, size);
        page_type& p = page_(addr / page_bytes);
        std::uint32_t& w = p[word_(addr)];
        switch (size) {
        case 1:
        case 2: {
            const unsigned shift = 8 * static_cast<unsigned>(addr % 4);
            const std::uint32_t m = (size == 1 ? 0xffU : 0xffffU) << shift;
            w = (w & ~m) | ((static_cast<std::uint32_t>(value) << shift) & m);
            break;
        }
        case 4:
            w = static_cast<std::uint32_t>(value);
            break;
        default:
            w = static_cast<std::uint32_t>(value);
            p[word_(addr) + 1] = static_cast<std::uint32_t>(value >> 32);
            break;
        }
    }
    /// Writes `bytes` consecutively from `addr` (any alignment).
    void write_bytes(std::uint64_t addr, std::span<const std::uint8_t> bytes) {
        for (std::size_t i = 0; i < bytes.size(); ++i)
            store_value(addr + i, 1, bytes[i]);
    }
    /// Fills `out` with the bytes from `addr` on (any alignment).
    void read_bytes(std::uint64_t addr, std::span<std::uint8_t> out) const {
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<std::uint8_t>(load_value(addr + i, 1));
    }
    /// The `count` bytes from `addr` on (any alignment).
    [[nodiscard]] std::vector<std::uint8_t> read_bytes(std::uint64_t addr,
                                                       std::size_t count) const {
        std::vector<std::uint8_t> out(count);
        read_bytes(addr, std::span<std::uint8_t>(out));
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
    static void check_(std::uint64_t addr, unsigned size) {
        if ((size == 1 || size == 2 || size == 4 || size == 8) && addr % size == 0) [[likely]]
            return;
        fail_(addr, size);
    }
    [[noreturn]] static void fail_(std::uint64_t addr, unsigned size) {
        if (size != 1 && size != 2 && size != 4 && size != 8)
            throw sim_error("global memory: access of " + std::to_string(size) +
                            " bytes (1, 2, 4 or 8 allowed)");
        throw sim_error("global memory: address " + std::to_string(addr) + " is not " +
                        std::to_string(size) + "-byte aligned");
    }
    [[nodiscard]] static std::size_t word_(std::uint64_t addr) noexcept {
        return static_cast<std::size_t>((addr % page_bytes) / 4);
    }
    // The page, or nullptr when never written. One page is remembered: accesses cluster.
    [[nodiscard]] const page_type* find_(std::uint64_t page) const {
        if (last_ != nullptr && last_page_ == page) return last_;
        const auto it = pages_.find(page);
        if (it == pages_.end()) return nullptr;
        last_page_ = page;
        last_ = it->second.get();
        return last_;
    }
    [[nodiscard]] page_type& page_(std::uint64_t page) {
        if (last_ != nullptr && last_page_ == page) return *last_;
        auto& p = pages_[page];
        if (!p) p = std::make_unique<page_type>();
        last_page_ = page;
        last_ = p.get();
        return *p;
    }
    void copy_from_(const global_memory& o) {
        pages_.clear();
        for (const auto& [base, page] : o.pages_)
            pages_.emplace(base, std::make_unique<page_type>(*page));
        last_ = nullptr;
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
    mutable std::uint64_t last_page_ = 0;
    mutable page_type* last_ = nullptr; // pages never move: the map holds unique_ptrs
};

} // namespace warpkit::gpu
