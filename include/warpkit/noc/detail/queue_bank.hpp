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
        : buf_(queues * capacity), head_(queues, 0), size_(queues, 0),
          cap_(static_cast<std::uint32_t>(capacity)) {}

    [[nodiscard]] std::size_t queues() const noexcept { return head_.size(); }
    [[nodiscard]] std::uint32_t capacity() const noexcept { return cap_; }
    [[nodiscard]] std::uint32_t size(std::size_t q) const noexcept { return size_[q]; }
    [[nodiscard]] bool empty(std::size_t q) const noexcept { return size_[q] == 0; }
    [[nodiscard]] bool full(std::size_t q) const noexcept { return size_[q] == cap_; }

    void push(std::size_t q, const T& v) {
        WARPKIT_EXPECTS(size_[q] < cap_);
        std::uint32_t s = head_[q] + size_[q];
        if (s >= cap_) s -= cap_;
        buf_[q * cap_ + s] = v;
        ++size_[q];
    }
    [[nodiscard]] T& front(std::size_t q) noexcept { return buf_[q * cap_ + head_[q]]; }
    [[nodiscard]] const T& front(std::size_t q) const noexcept { return buf_[q * cap_ + head_[q]]; }
    /// The i-th element of queue q from its front.
    [[nodiscard]] const T& at(std::size_t q, std::uint32_t i) const noexcept {
        std::uint32_t s = head_[q] + i;
        if (s >= cap_) s -= cap_;
        return buf_[q * cap_ + s];
    }
    void pop(std::size_t q) {
        WARPKIT_EXPECTS(size_[q] != 0);
        if (++head_[q] == cap_) head_[q] = 0;
        --size_[q];
    }

private:
    std::vector<T> buf_;
    std::vector<std::uint32_t> head_;
    std::vector<std::uint32_t> size_;
    std::uint32_t cap_ = 0;
};

} // namespace warpkit::noc::detail
