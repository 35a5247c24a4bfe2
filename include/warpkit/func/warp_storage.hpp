#pragma once
/// \file
/// `warp_storage<W>`: the register files and local memory of the warps of one SM's PTX
/// source, held in a pool. Register storage follows the kernel's liveness allocation: a
/// virtual register lives in a row of 32-bit lanes (registers up to 32 bits) or of 64-bit
/// lanes; a warp holds one store (all rows and its threads' local memory) only while it runs,
/// so the pool grows to the most warps that ran at once, not to the warp slots.

#include <warpkit/core/error.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/kernel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::func {

template <std::size_t WarpSize>
class warp_storage {
public:
    /// A register's lanes in a warp's store: a row of 32-bit or of 64-bit values.
    struct row {
        std::uint32_t* narrow = nullptr;
        std::uint64_t* wide = nullptr;
        [[nodiscard]] std::uint64_t get(std::size_t l) const noexcept {
            return wide != nullptr ? wide[l] : narrow[l];
        }
        void set(std::size_t l, std::uint64_t v) const noexcept {
            if (wide != nullptr)
                wide[l] = v;
            else
                narrow[l] = static_cast<std::uint32_t>(v);
        }
    };

    /// Storage for the registers and local memory of kernel `k`, for `warp_slots` warp slots.
    warp_storage(const ptx::kernel& k, std::uint32_t warp_slots)
        : local_bytes_(k.local_bytes()),
          narrow_row_words_(std::size_t{k.storage_rows(false)} * WarpSize),
          wide_row_words_(std::size_t{k.storage_rows(true)} * WarpSize),
          home_(warp_slots, no_store) {
        const std::size_t n = k.registers().size();
        register_bits_.reserve(n);
        where_.reserve(n);
        for (std::uint32_t r = 0; r < n; ++r) {
            register_bits_.push_back(ptx::bits(k.registers()[r].t));
            const auto at = k.storage(r);
            where_.push_back({at.row * static_cast<std::uint32_t>(WarpSize), at.wide});
        }
    }

    /// Virtual registers of the kernel.
    [[nodiscard]] std::size_t registers() const noexcept { return where_.size(); }
    /// Width of virtual register r (bits).
    [[nodiscard]] unsigned register_bits(std::uint32_t r) const noexcept {
        return register_bits_[r];
    }
    /// Whether the warp in `slot` holds a store.
    [[nodiscard]] bool holds(std::uint32_t slot) const noexcept { return home_[slot] != no_store; }

    /// The lanes of register r of the warp in `slot` (which holds a store). The row is
    /// writable through a const pool: readers and writers share one accessor.
    [[nodiscard]] row lanes(std::uint32_t slot, std::uint32_t r) const noexcept {
        const place at = where_[r];
        const std::size_t s = home_[slot];
        auto* wide = const_cast<std::uint64_t*>(wide_.data());
        auto* narrow = const_cast<std::uint32_t*>(narrow_.data());
        if (at.wide) return {nullptr, wide + s * wide_row_words_ + at.offset};
        return {narrow + s * narrow_row_words_ + at.offset, nullptr};
    }

    /// Writes `v`, a value of type t, to register r of lane l of the warp in `slot`: extended
    /// per t's signedness and cut to the register's width.
    void put(std::uint32_t slot, std::uint32_t r, std::size_t l, std::uint64_t v,
             ptx::type t) const noexcept {
        lanes(slot, r).set(l, ptx::extend(t, v) & ptx::low_mask(register_bits_[r]));
    }

    /// Local memory of lane l of the warp in `slot` (local_bytes() bytes).
    [[nodiscard]] std::uint8_t* local(std::uint32_t slot, std::size_t l) noexcept {
        return local_.data() + (std::size_t{home_[slot]} * WarpSize + l) * local_bytes_;
    }
    [[nodiscard]] std::size_t local_bytes() const noexcept { return local_bytes_; }

    /// Gives the warp in `slot` a zeroed store from the pool.
    void acquire(std::uint32_t slot) {
        WARPKIT_EXPECTS(home_[slot] == no_store);
        std::size_t s = 0;
        if (!free_.empty()) {
            s = free_.back();
            free_.pop_back();
            std::fill_n(narrow_.begin() + offset(s, narrow_row_words_), narrow_row_words_, 0U);
            std::fill_n(wide_.begin() + offset(s, wide_row_words_), wide_row_words_, 0U);
            std::fill_n(local_.begin() + offset(s, local_words()), local_words(), std::uint8_t{0});
        } else {
            s = stores_++;
            narrow_.resize(stores_ * narrow_row_words_, 0U);
            wide_.resize(stores_ * wide_row_words_, 0U);
            local_.resize(stores_ * local_words(), 0U);
        }
        home_[slot] = static_cast<std::uint32_t>(s);
    }
    /// Returns the store of the warp in `slot` (if it holds one) to the pool.
    void release(std::uint32_t slot) {
        if (home_[slot] == no_store) return;
        free_.push_back(home_[slot]);
        home_[slot] = no_store;
    }
    /// Copies the registers and local memory of the warp in `from` to the one in `to` (both
    /// hold stores).
    void copy(std::uint32_t from, std::uint32_t to) {
        const std::size_t a = home_[from], b = home_[to];
        std::copy_n(narrow_.begin() + offset(a, narrow_row_words_), narrow_row_words_,
                    narrow_.begin() + offset(b, narrow_row_words_));
        std::copy_n(wide_.begin() + offset(a, wide_row_words_), wide_row_words_,
                    wide_.begin() + offset(b, wide_row_words_));
        std::copy_n(local_.begin() + offset(a, local_words()), local_words(),
                    local_.begin() + offset(b, local_words()));
    }

    /// Bytes the pool holds (one store for each of the most warps that held one at once).
    [[nodiscard]] std::size_t bytes() const noexcept {
        return narrow_.size() * sizeof(std::uint32_t) + wide_.size() * sizeof(std::uint64_t) +
               local_.size();
    }
    /// Bytes of one store.
    [[nodiscard]] std::size_t store_bytes() const noexcept {
        return narrow_row_words_ * sizeof(std::uint32_t) + wide_row_words_ * sizeof(std::uint64_t) +
               local_words();
    }

private:
    struct place {
        std::uint32_t offset = 0; ///< row * WarpSize
        bool wide = false;
    };
    static constexpr std::uint32_t no_store = 0xffffffffU;

    [[nodiscard]] std::size_t local_words() const noexcept { return WarpSize * local_bytes_; }
    [[nodiscard]] static std::ptrdiff_t offset(std::size_t store, std::size_t words) noexcept {
        return static_cast<std::ptrdiff_t>(store * words);
    }

    std::size_t local_bytes_;
    std::size_t narrow_row_words_;      // 32-bit values of one store
    std::size_t wide_row_words_;        // 64-bit values of one store
    std::vector<std::uint32_t> narrow_; // [store][row][lane]
    std::vector<std::uint64_t> wide_;   // [store][row][lane]
    std::vector<std::uint8_t> local_;   // [store][lane][byte]
    std::vector<std::uint32_t> home_;   // per warp slot: its store, or no_store
    std::vector<std::uint32_t> free_;   // stores no warp holds
    std::size_t stores_ = 0;
    std::vector<place> where_; // per virtual register
    std::vector<unsigned> register_bits_;
};

} // namespace warpkit::func
