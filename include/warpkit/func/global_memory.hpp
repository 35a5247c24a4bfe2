#pragma once
/// \file
/// `global_memory`: the functional contents of device memory, byte-addressed, sparse, with
/// the allocations kernels may touch (for bounds checks).

#include <warpkit/core/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace warpkit::func {

/// A range of device memory a kernel may access, named for error messages (a buffer, a
/// module `.global` variable).
struct allocation {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    std::string name;
    /// True when [a, a + n) lies inside.
    [[nodiscard]] bool holds(std::uint64_t a, std::uint64_t n) const noexcept {
        return a >= address && a - address <= bytes && bytes - (a - address) >= n;
    }
};

/// Device memory for functional execution: bytes at 64-bit addresses, held as little-endian
/// 32-bit words in 4 KiB pages allocated on first write; never-written bytes read as zero.
/// Words (`load` / `store`) need 4-byte alignment; values of 1, 2, 4 or 8 bytes
/// (`load_value` / `store_value`) their natural alignment; byte spans (`read_bytes` /
/// `write_bytes`) none. Functional state only (timing goes through the memory-system parts).
///
/// Allocations (`allocate`) record which ranges exist; with `check_bounds(true)` the
/// instruction sources check every global access of a kernel against them and fault naming
/// the access and the nearest allocation. Host-side reads and writes are never checked.
class global_memory {
public:
    static constexpr std::uint64_t page_bytes = 4096;

    global_memory() = default;
    global_memory(const global_memory& o) { copy_from_(o); }
    global_memory& operator=(const global_memory& o) {
        if (this != &o) copy_from_(o);
        return *this;
    }
    global_memory(global_memory&& o) noexcept
        : pages_(std::move(o.pages_)), allocs_(std::move(o.allocs_)), checked_(o.checked_),
          page_limit_(o.page_limit_) {
        o.last_ = nullptr;
    }
    global_memory& operator=(global_memory&& o) noexcept {
        pages_ = std::move(o.pages_);
        allocs_ = std::move(o.allocs_);
        checked_ = o.checked_;
        page_limit_ = o.page_limit_;
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
        return value_in_(find_(addr / page_bytes), addr, size);
    }

    /// The page a reader looked at last (see the load_value taking one).
    struct read_cursor {
        std::uint64_t page = 0;
        const std::array<std::uint32_t, page_bytes / 4>* at = nullptr; ///< its words, or none
    };
    /// load_value for readers on several threads at once: the page remembered between calls
    /// is the caller's `cursor`, so the memory itself is only read. Safe while no thread
    /// writes the memory.
    [[nodiscard]] std::uint64_t load_value(std::uint64_t addr, unsigned size,
                                           read_cursor& cursor) const {
        check_(addr, size);
        const std::uint64_t page = addr / page_bytes;
        if (cursor.at == nullptr || cursor.page != page) {
            const auto it = pages_.find(page);
            if (it == pages_.end()) return 0;
            cursor = {page, it->second.get()};
        }
        return value_in_(cursor.at, addr, size);
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
        if constexpr (std::endian::native == std::endian::little) {
            // Page by page: a word's little-endian bytes are its bytes in host memory.
            std::size_t done = 0;
            while (done < bytes.size()) {
                const std::uint64_t a = addr + done;
                const std::size_t n = static_cast<std::size_t>(
                    std::min<std::uint64_t>(bytes.size() - done, page_bytes - a % page_bytes));
                std::memcpy(reinterpret_cast<std::uint8_t*>(page_(a / page_bytes).data()) +
                                a % page_bytes,
                            bytes.data() + done, n);
                done += n;
            }
        } else {
            for (std::size_t i = 0; i < bytes.size(); ++i)
                store_value(addr + i, 1, bytes[i]);
        }
    }
    /// Fills `out` with the bytes from `addr` on (any alignment).
    void read_bytes(std::uint64_t addr, std::span<std::uint8_t> out) const {
        if constexpr (std::endian::native == std::endian::little) {
            std::size_t done = 0;
            while (done < out.size()) {
                const std::uint64_t a = addr + done;
                const std::size_t n = static_cast<std::size_t>(
                    std::min<std::uint64_t>(out.size() - done, page_bytes - a % page_bytes));
                const page_type* p = find_(a / page_bytes);
                if (p == nullptr)
                    std::memset(out.data() + done, 0, n);
                else
                    std::memcpy(out.data() + done,
                                reinterpret_cast<const std::uint8_t*>(p->data()) + a % page_bytes,
                                n);
                done += n;
            }
        } else {
            for (std::size_t i = 0; i < out.size(); ++i)
                out[i] = static_cast<std::uint8_t>(load_value(addr + i, 1));
        }
    }
    /// The `count` bytes from `addr` on (any alignment).
    [[nodiscard]] std::vector<std::uint8_t> read_bytes(std::uint64_t addr,
                                                       std::size_t count) const {
        std::vector<std::uint8_t> out(count);
        read_bytes(addr, std::span<std::uint8_t>(out));
        return out;
    }

    /// Records [address, address + bytes) as allocated under `name`; an allocation at the
    /// same address is replaced. Overlapping another allocation is a contract_error.
    void allocate(std::uint64_t address, std::uint64_t bytes, std::string name) {
        WARPKIT_EXPECTS(bytes <= ~address);
        allocs_.erase(address);
        const auto next = allocs_.lower_bound(address);
        WARPKIT_EXPECTS(next == allocs_.end() || next->first - address >= bytes);
        WARPKIT_EXPECTS(next == allocs_.begin() ||
                        std::prev(next)->second.address + std::prev(next)->second.bytes <= address);
        allocs_.emplace(address, allocation{address, bytes, std::move(name)});
    }
    /// Forgets the allocation at `address` (if any).
    void release(std::uint64_t address) { allocs_.erase(address); }
    /// Returns the memory of [address, address + bytes) to zeros: whole pages are freed,
    /// the bytes of partly covered pages cleared (a freed allocation costs no memory).
    void discard(std::uint64_t address, std::uint64_t bytes) {
        WARPKIT_EXPECTS(bytes <= ~address);
        const std::uint64_t end = address + bytes;
        const std::uint64_t first = (address + page_bytes - 1) / page_bytes;
        const std::uint64_t last = end / page_bytes; // pages [first, last) lie inside
        last_ = nullptr;
        if (first >= last) {
            clear_(address, bytes);
            return;
        }
        clear_(address, first * page_bytes - address);
        clear_(last * page_bytes, end - last * page_bytes);
        if (last - first < pages_.size()) {
            for (std::uint64_t pg = first; pg < last; ++pg)
                pages_.erase(pg);
        } else {
            std::erase_if(pages_,
                          [&](const auto& kv) { return kv.first >= first && kv.first < last; });
        }
    }
    /// The allocations, by address.
    [[nodiscard]] const std::map<std::uint64_t, allocation>& allocations() const noexcept {
        return allocs_;
    }
    /// Whether kernels' global accesses are checked against the allocations.
    void check_bounds(bool on) noexcept { checked_ = on; }
    [[nodiscard]] bool bounds_checked() const noexcept { return checked_; }
    /// The allocation holding [addr, addr + size), or nullptr.
    [[nodiscard]] const allocation* allocation_at(std::uint64_t addr, std::uint64_t size) const {
        auto it = allocs_.upper_bound(addr);
        if (it == allocs_.begin()) return nullptr;
        --it;
        return it->second.holds(addr, size) ? &it->second : nullptr;
    }
    /// Where `addr` lies relative to the nearest allocation, for messages: "8 bytes past the
    /// end of `c` (0x10000200, 64 bytes)", or "no allocations".
    [[nodiscard]] std::string nearest_allocation(std::uint64_t addr) const {
        if (allocs_.empty()) return "no allocations";
        const auto after = allocs_.upper_bound(addr);
        const allocation* best = nullptr;
        std::uint64_t gap = ~std::uint64_t{0};
        bool past = false;
        if (after != allocs_.begin()) {
            const allocation& a = std::prev(after)->second;
            const std::uint64_t end = a.address + a.bytes;
            best = &a;
            gap = addr >= end ? addr - end : 0;
            past = true;
        }
        if (after != allocs_.end() && after->second.address - addr < gap) {
            best = &after->second;
            gap = after->second.address - addr;
            past = false;
        }
        return std::to_string(gap) + (past ? " bytes past the end of `" : " bytes before `") +
               best->name + "` (" + hex(best->address) + ", " + std::to_string(best->bytes) +
               " bytes)";
    }
    /// `v` as 0x-prefixed hexadecimal.
    [[nodiscard]] static std::string hex(std::uint64_t v) {
        static constexpr char digits[] = "0123456789abcdef";
        std::string s;
        do {
            s.insert(s.begin(), digits[v & 15]);
            v >>= 4;
        } while (v != 0);
        return "0x" + s;
    }

    /// Pages written so far.
    [[nodiscard]] std::size_t pages() const noexcept { return pages_.size(); }
    /// Caps the pages held at once: a write that needs one more throws sim_error instead of
    /// growing the host's memory without bound (default: no cap).
    void limit_pages(std::size_t pages) noexcept { page_limit_ = pages; }
    [[nodiscard]] std::size_t page_limit() const noexcept { return page_limit_; }

    /// Same contents (a page never written equals a page of zeros).
    friend bool operator==(const global_memory& a, const global_memory& b) {
        return a.covers_(b) && b.covers_(a);
    }

private:
    using page_type = std::array<std::uint32_t, page_bytes / 4>;
    // The value of `size` bytes at `addr` in page `p` (none: never written, zero).
    [[nodiscard]] static std::uint64_t value_in_(const page_type* p, std::uint64_t addr,
                                                 unsigned size) noexcept {
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
        if (!p) {
            if (pages_.size() > page_limit_) {
                pages_.erase(page);
                fail_limit_(page);
            }
            p = std::make_unique<page_type>();
        }
        last_page_ = page;
        last_ = p.get();
        return *p;
    }
    [[noreturn]] void fail_limit_(std::uint64_t page) const {
        throw sim_error(
            "global memory: a write to " + hex(page * page_bytes) +
            " needs a page beyond the cap of " + std::to_string(page_limit_) + " pages (" +
            std::to_string((page_limit_ * page_bytes) >> 20) +
            " MiB) of device memory; raise the device-memory cap with --max-device-mb N");
    }
    // Zeros over [addr, addr + n) where pages exist (absent pages read as zero already).
    void clear_(std::uint64_t addr, std::uint64_t n) {
        while (n > 0) {
            const std::uint64_t in_page = std::min(n, page_bytes - addr % page_bytes);
            const auto it = pages_.find(addr / page_bytes);
            if (it != pages_.end())
                std::memset(reinterpret_cast<std::uint8_t*>(it->second->data()) + addr % page_bytes,
                            0, static_cast<std::size_t>(in_page));
            addr += in_page;
            n -= in_page;
        }
    }
    void copy_from_(const global_memory& o) {
        pages_.clear();
        for (const auto& [base, page] : o.pages_)
            pages_.emplace(base, std::make_unique<page_type>(*page));
        allocs_ = o.allocs_;
        checked_ = o.checked_;
        page_limit_ = o.page_limit_;
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
    std::map<std::uint64_t, allocation> allocs_;
    bool checked_ = false;
    std::size_t page_limit_ = ~std::size_t{0};
    mutable std::uint64_t last_page_ = 0;
    mutable page_type* last_ = nullptr; // pages never move: the map holds unique_ptrs
};

} // namespace warpkit::func
