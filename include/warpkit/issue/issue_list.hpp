#pragma once
/// \file
/// `issue_list`: the warps a scheduler picks in one cycle, in slot order, with the unit class
/// of each one's instruction. Fixed capacity (max_issue_width): selecting never allocates.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace warpkit::issue {

/// One issue slot: which warp and which unit class its instruction needs.
struct issue_slot {
    warp_id warp = 0;
    isa::unit_class unit = isa::unit_class::int_alu;
    friend constexpr bool operator==(const issue_slot&, const issue_slot&) noexcept = default;
};

/// Up to max_issue_width issue slots, filled in priority order.
class issue_list {
public:
    using value_type = issue_slot;
    using const_iterator = const issue_slot*;

    constexpr issue_list() noexcept = default;

    /// Appends a slot; the list must not be full.
    constexpr void push(issue_slot s) {
        WARPKIT_EXPECTS(size_ < max_issue_width);
        slots_[size_++] = s;
    }
    /// Appends warp `w` issuing to `u`.
    constexpr void push(warp_id w, isa::unit_class u) { push(issue_slot{w, u}); }
    /// Appends the slots of `other` (the list must have room for them).
    constexpr void append(const issue_list& other) {
        for (const auto& s : other)
            push(s);
    }

    [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
    [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] constexpr bool full() const noexcept { return size_ == max_issue_width; }
    [[nodiscard]] constexpr const issue_slot& operator[](std::size_t i) const {
        WARPKIT_EXPECTS(i < size_);
        return slots_[i];
    }
    /// True when warp `w` holds a slot.
    [[nodiscard]] constexpr bool contains(warp_id w) const noexcept {
        for (std::size_t i = 0; i < size_; ++i)
            if (slots_[i].warp == w) return true;
        return false;
    }
    [[nodiscard]] constexpr const_iterator begin() const noexcept { return slots_.data(); }
    [[nodiscard]] constexpr const_iterator end() const noexcept { return slots_.data() + size_; }
    constexpr void clear() noexcept { size_ = 0; }

    friend constexpr bool operator==(const issue_list& a, const issue_list& b) noexcept {
        if (a.size_ != b.size_) return false;
        for (std::size_t i = 0; i < a.size_; ++i)
            if (!(a.slots_[i] == b.slots_[i])) return false;
        return true;
    }

private:
    std::array<issue_slot, max_issue_width> slots_{};
    std::size_t size_ = 0;
};

} // namespace warpkit::issue
