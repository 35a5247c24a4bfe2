#pragma once
// Shared helpers of the libFuzzer targets in tests/fuzz/.
//
// A target feeds its input to one reader and treats a warpkit::error (parse_error,
// config_error, sim_error...) as the expected answer to bad input. Anything else is a finding
// that libFuzzer records: another exception (uncaught: std::terminate), a crash, a sanitizer
// report, a hang (-timeout), or a broken law (WARPKIT_FUZZ_LAW aborts with the law's text).
//
// With WARPKIT_FUZZ_STRICT=1 in the environment a contract_error is a finding too: readers
// should turn bad input into parse or config errors, never into a broken internal precondition.

#include <warpkit/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace warpkit::fuzz {

/// The input bytes as text.
[[nodiscard]] inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
    return {reinterpret_cast<const char*>(data), size};
}

/// True when WARPKIT_FUZZ_STRICT=1 (read once).
[[nodiscard]] inline bool strict() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("WARPKIT_FUZZ_STRICT");
        return v != nullptr && v[0] == '1';
    }();
    return on;
}

/// Reports a broken law and aborts, so libFuzzer keeps the input.
[[noreturn]] inline void law_broken(const char* law, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: fuzz law broken: %s\n", file, line, law);
    std::fflush(stderr);
    std::abort();
}

/// Runs `f`; returns true when it finished, false when it threw a warpkit::error.
template <class F>
bool expect_errors(F&& f) {
    try {
        f();
        return true;
    } catch (const contract_error& e) {
        if (strict()) {
            std::fprintf(stderr, "contract_error from a reader: %s\n", e.what());
            std::fflush(stderr);
            std::abort();
        }
        return false;
    } catch (const error&) {
        return false;
    }
}

/// A deterministic cursor over the input bytes (zeros once they run out).
class byte_reader {
public:
    byte_reader(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
    [[nodiscard]] std::uint8_t u8() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
    [[nodiscard]] std::uint64_t bits(unsigned n) noexcept {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < (n + 7) / 8; ++i)
            v |= std::uint64_t{u8()} << (8 * i);
        return n >= 64 ? v : v & ((std::uint64_t{1} << n) - 1);
    }
    [[nodiscard]] std::size_t left() const noexcept { return size_ - pos_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

} // namespace warpkit::fuzz

/// Aborts with the condition's text when a law does not hold.
#define WARPKIT_FUZZ_LAW(cond)                                                                     \
    ((cond) ? static_cast<void>(0) : ::warpkit::fuzz::law_broken(#cond, __FILE__, __LINE__))
