#pragma once
/// \file
/// `fifo<T>`: a bounded ring buffer, the queue between two components.

#include <warpkit/core/error.hpp>

#include <concepts>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace warpkit {

/// Bounded first-in first-out queue. Storage is allocated once at construction; push and pop
/// never allocate. Pushing into a full fifo or reading an empty one is a contract violation.
template <class T>
requires std::default_initializable<T> && std::movable<T>
class fifo {
public:
    using value_type = T;

    /// A fifo holding at most `capacity` (>= 1) elements.
    explicit fifo(std::size_t capacity) : buf_(check(capacity)) {}

    [[nodiscard]] bool can_push() const noexcept { return size_ < buf_.size(); }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] bool full() const noexcept { return size_ == buf_.size(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return buf_.size(); }
    /// Free slots.
    [[nodiscard]] std::size_t space() const noexcept { return buf_.size() - size_; }

    void push(const T& v) {
        WARPKIT_EXPECTS(can_push());
        buf_[slot(size_)] = v;
        ++size_;
    }
    void push(T&& v) {
        WARPKIT_EXPECTS(can_push());
        buf_[slot(size_)] = std::move(v);
        ++size_;
    }
    template <class... Args>
    T& emplace(Args&&... args) {
        WARPKIT_EXPECTS(can_push());
        T& dst = buf_[slot(size_)];
        dst = T(std::forward<Args>(args)...);
        ++size_;
        return dst;
    }

    [[nodiscard]] T& front() {
        WARPKIT_EXPECTS(!empty());
        return buf_[head_];
    }
    [[nodiscard]] const T& front() const {
        WARPKIT_EXPECTS(!empty());
        return buf_[head_];
    }
    [[nodiscard]] T& back() {
        WARPKIT_EXPECTS(!empty());
        return buf_[slot(size_ - 1)];
    }
    [[nodiscard]] const T& back() const {
        WARPKIT_EXPECTS(!empty());
        return buf_[slot(size_ - 1)];
    }
    /// The i-th element from the front (0 is the front).
    [[nodiscard]] T& operator[](std::size_t i) {
        WARPKIT_EXPECTS(i < size_);
        return buf_[slot(i)];
    }
    [[nodiscard]] const T& operator[](std::size_t i) const {
        WARPKIT_EXPECTS(i < size_);
        return buf_[slot(i)];
    }

    /// Removes the front element.
    void pop() {
        WARPKIT_EXPECTS(!empty());
        head_ = slot(1);
        --size_;
    }
    /// Removes and returns the front element.
    [[nodiscard]] T take() {
        WARPKIT_EXPECTS(!empty());
        T v = std::move(buf_[head_]);
        pop();
        return v;
    }
    void clear() noexcept {
        head_ = 0;
        size_ = 0;
    }

private:
    static std::size_t check(std::size_t capacity) {
        if (capacity == 0) throw config_error("fifo.capacity", "0", ">= 1");
        return capacity;
    }
    [[nodiscard]] std::size_t slot(std::size_t i) const noexcept {
        const std::size_t s = head_ + i;
        return s >= buf_.size() ? s - buf_.size() : s;
    }

    std::vector<T> buf_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

} // namespace warpkit
