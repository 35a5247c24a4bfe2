#pragma once
/// \file
/// `ring<T>`: a FIFO over a power-of-two circular buffer that doubles when full. After the
/// largest occupancy has been reached once it never allocates again (unbounded queues of the
/// ideal network and of traffic sources).

#include <warpkit/core/error.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace warpkit::noc::detail {

template <class T>
class ring {
public:
    explicit ring(std::size_t initial = 16) : buf_(round_up(initial)) {}

    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    void push_back(T v) {
        if (size_ == buf_.size()) grow();
        buf_[(head_ + size_) & (buf_.size() - 1)] = std::move(v);
        ++size_;
    }
    [[nodiscard]] T& front() {
        WARPKIT_EXPECTS(size_ != 0);
        return buf_[head_];
    }
    [[nodiscard]] const T& front() const {
        WARPKIT_EXPECTS(size_ != 0);
        return buf_[head_];
    }
    /// The i-th element from the front.
    [[nodiscard]] const T& operator[](std::size_t i) const {
        WARPKIT_EXPECTS(i < size_);
        return buf_[(head_ + i) & (buf_.size() - 1)];
    }
    void pop_front() {
        WARPKIT_EXPECTS(size_ != 0);
        head_ = (head_ + 1) & (buf_.size() - 1);
        --size_;
    }
    [[nodiscard]] T take_front() {
        T v = std::move(front());
        pop_front();
        return v;
    }
    void clear() noexcept { head_ = size_ = 0; }

private:
    static std::size_t round_up(std::size_t n) {
        std::size_t c = 1;
        while (c < n)
            c *= 2;
        return c;
    }
    void grow() {
        std::vector<T> next(buf_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i)
            next[i] = std::move(buf_[(head_ + i) & (buf_.size() - 1)]);
        buf_ = std::move(next);
        head_ = 0;
    }

    std::vector<T> buf_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

} // namespace warpkit::noc::detail
