#pragma once
/// \file
/// `queue_bank<T>`: many bounded FIFOs of one capacity in one allocation (the channels and
/// virtual-channel buffers of a network).

#include <warpkit/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::noc::detail {

template <class T>
class queue_bank {
public:
    queue_bank() = default;
    queue_bank(std::size_t queues, std::size_t capacity)
        : buf_(queues * capacity), at_(queues), cap_(static_cast<std::uint32_t>(capacity)) {}

    [[nodiscard]] std::size_t queues() const noexcept { return at_.size(); }
    [[nodiscard]] std::uint32_t capacity() const noexcept { return cap_; }
    [[nodiscard]] std::uint32_t size(std::size_t q) const noexcept { return at_[q].size; }
    [[nodiscard]] bool empty(std::size_t q) const noexcept { return at_[q].size == 0; }
    [[nodiscard]] bool full(std::size_t q) const noexcept { return at_[q].size == cap_; }

    void push(std::size_t q, const T& v) {
        place& a = at_[q];
        WARPKIT_EXPECTS(a.size < cap_);
        buf_[q * cap_ + wrap(a.head + a.size)] = v;
        ++a.size;
    }
    [[nodiscard]] T& front(std::size_t q) noexcept { return buf_[q * cap_ + at_[q].head]; }
    [[nodiscard]] const T& front(std::size_t q) const noexcept {
        return buf_[q * cap_ + at_[q].head];
    }
    /// The i-th element of queue q from its front.
    [[nodiscard]] const T& at(std::size_t q, std::uint32_t i) const noexcept {
        return buf_[q * cap_ + wrap(at_[q].head + i)];
    }
    void pop(std::size_t q) {
        place& a = at_[q];
        WARPKIT_EXPECTS(a.size != 0);
        a.head = wrap(a.head + 1);
        --a.size;
    }

private:
    /// Where a queue stands in its slots, kept together so that an operation reads one place.
    struct place {
        std::uint32_t head = 0; ///< slot of the front element
        std::uint32_t size = 0;
    };
    /// A slot index in [0, 2 cap_) brought into [0, cap_) (a select, not a branch).
    [[nodiscard]] std::uint32_t wrap(std::uint32_t s) const noexcept {
        return s >= cap_ ? s - cap_ : s;
    }

    std::vector<T> buf_;
    std::vector<place> at_;
    std::uint32_t cap_ = 0;
};

} // namespace warpkit::noc::detail
