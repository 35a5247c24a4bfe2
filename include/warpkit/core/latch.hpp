#pragma once
/// \file
/// `latch<T>`: a two-phase pipeline register (written in cycle n, visible in cycle n + 1).

#include <warpkit/core/error.hpp>

#include <concepts>
#include <utility>

namespace warpkit {

/// A pipeline register with two phases. A writer fills the input side during cycle n; after
/// `tick()` the value is visible on the output side in cycle n + 1. If the reader has not
/// consumed the output, the register stalls: the input stays and `can_write()` is false.
/// Because writes are never visible in the cycle they happen, the order in which a simulator
/// ticks the writer and the reader does not change results.
template <class T>
requires std::default_initializable<T> && std::movable<T>
class latch {
public:
    [[nodiscard]] bool can_write() const noexcept { return !in_full_; }
    void write(T v) {
        WARPKIT_EXPECTS(can_write());
        in_ = std::move(v);
        in_full_ = true;
    }
    /// True when the output side holds a value.
    [[nodiscard]] bool valid() const noexcept { return out_full_; }
    [[nodiscard]] const T& read() const {
        WARPKIT_EXPECTS(valid());
        return out_;
    }
    /// Takes the output value, emptying the output side.
    [[nodiscard]] T take() {
        WARPKIT_EXPECTS(valid());
        out_full_ = false;
        return std::move(out_);
    }
    void consume() {
        WARPKIT_EXPECTS(valid());
        out_full_ = false;
    }
    /// Ends the cycle: the input moves to the output if the output is free. Returns whether
    /// the latch held a value (false: empty, the tick changed nothing).
    bool tick() {
        const bool held = in_full_ || out_full_;
        if (!out_full_ && in_full_) {
            out_ = std::move(in_);
            out_full_ = true;
            in_full_ = false;
        }
        return held;
    }
    /// True when neither side holds a value.
    [[nodiscard]] bool empty() const noexcept { return !in_full_ && !out_full_; }

private:
    T in_{};
    T out_{};
    bool in_full_ = false;
    bool out_full_ = false;
};

} // namespace warpkit
