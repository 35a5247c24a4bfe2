#pragma once
/// \file
/// `delay_line<T>`: a fixed-latency pipe accepting one element per cycle.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

namespace warpkit {

/// A pipe of fixed latency L: an element pushed in cycle t can be read from cycle t + L on.
/// At most one push per cycle. Elements leave in order; an element not popped stays at the
/// output and, once the pipe is full, blocks further pushes (back-pressure). `tick()` ends a
/// cycle. The default capacity, L + 1, never blocks a consumer that pops every cycle.
template <class T>
class delay_line {
public:
    explicit delay_line(std::uint32_t latency, std::size_t capacity = 0)
        : q_(capacity == 0 ? std::size_t{latency} + 1 : capacity), latency_(latency) {}

    /// True when nothing was pushed this cycle and there is room.
    [[nodiscard]] bool can_push() const noexcept { return !pushed_now_ && q_.can_push(); }
    void push(T v) {
        WARPKIT_EXPECTS(can_push());
        q_.push(entry{now_ + latency_, std::move(v)});
        pushed_now_ = true;
    }
    /// True when the oldest element has waited its latency.
    [[nodiscard]] bool ready() const noexcept { return !q_.empty() && q_.front().due <= now_; }
    [[nodiscard]] const T& front() const {
        WARPKIT_EXPECTS(ready());
        return q_.front().value;
    }
    [[nodiscard]] T& front() {
        WARPKIT_EXPECTS(ready());
        return q_.front().value;
    }
    void pop() {
        WARPKIT_EXPECTS(ready());
        q_.pop();
    }
    [[nodiscard]] T take() {
        WARPKIT_EXPECTS(ready());
        T v = std::move(q_.front().value);
        q_.pop();
        return v;
    }
    /// Ends the current cycle; true when an element was in flight or waiting.
    bool tick() noexcept {
        ++now_;
        pushed_now_ = false;
        return !q_.empty();
    }

    [[nodiscard]] std::uint32_t latency() const noexcept { return latency_; }
    /// Elements in flight, ready or not.
    [[nodiscard]] std::size_t size() const noexcept { return q_.size(); }
    [[nodiscard]] bool empty() const noexcept { return q_.empty(); }
    [[nodiscard]] std::size_t capacity() const noexcept { return q_.capacity(); }
    /// Cycles until the oldest element is ready (0 if ready now); max if empty.
    [[nodiscard]] std::uint64_t cycles_to_ready() const noexcept {
        if (q_.empty()) return std::numeric_limits<std::uint64_t>::max();
        return q_.front().due <= now_ ? 0 : q_.front().due - now_;
    }

private:
    struct entry {
        std::uint64_t due = 0;
        T value{};
    };
    fifo<entry> q_;
    std::uint64_t now_ = 0;
    std::uint32_t latency_;
    bool pushed_now_ = false;
};

} // namespace warpkit
