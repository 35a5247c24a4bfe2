#pragma once
/// \file
/// The warpkit exception hierarchy: every error the library reports derives from
/// warpkit::error, so a caller can catch one type or tell the kinds apart.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace warpkit {

/// Base of every exception warpkit throws.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A parameter outside its allowed range, an unknown field, or a value of the wrong type.
/// Names the field (dotted path), the offending value and what is allowed.
class config_error : public error {
public:
    config_error(std::string field, std::string value, std::string allowed)
        : error(compose(field, value, allowed)), field_(std::move(field)), value_(std::move(value)),
          allowed_(std::move(allowed)) {}

    /// Dotted path of the field, e.g. "sm.l1.sets".
    [[nodiscard]] const std::string& field() const noexcept { return field_; }
    /// The rejected value as text.
    [[nodiscard]] const std::string& value() const noexcept { return value_; }
    /// A description of the allowed values, e.g. "[1, 1000]".
    [[nodiscard]] const std::string& allowed() const noexcept { return allowed_; }

    /// The same error for a field nested under `prefix` (used by nested params).
    [[nodiscard]] config_error with_prefix(std::string_view prefix) const {
        if (prefix.empty()) return *this;
        return {std::string(prefix) + "." + field_, value_, allowed_};
    }

private:
    static std::string compose(const std::string& f, const std::string& v, const std::string& a) {
        return "invalid parameter '" + f + "' = " + v + " (allowed: " + a + ")";
    }
    std::string field_;
    std::string value_;
    std::string allowed_;
};

/// A malformed input file or string; carries file, line and column (1-based).
class parse_error : public error {
public:
    parse_error(std::string file, std::size_t line, std::size_t column, std::string message)
        : error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message),
          file_(std::move(file)), line_(line), column_(column), message_(std::move(message)) {}

    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    [[nodiscard]] std::size_t line() const noexcept { return line_; }
    [[nodiscard]] std::size_t column() const noexcept { return column_; }
    /// The message without the location prefix.
    [[nodiscard]] const std::string& message() const noexcept { return message_; }

private:
    std::string file_;
    std::size_t line_;
    std::size_t column_;
    std::string message_;
};

/// A simulation that cannot go on: a broken invariant, a deadlock found by a watchdog.
class sim_error : public error {
public:
    using error::error;
};

/// A caller broke a documented precondition of a component (pushing into a full fifo...).
class contract_error : public error {
public:
    using error::error;
};

namespace detail {
[[noreturn]] inline void contract_failed(const char* what, const char* file, int line) {
    throw contract_error(std::string(file) + ":" + std::to_string(line) +
                         ": precondition failed: " + what);
}
} // namespace detail

} // namespace warpkit

/// Checks a cheap precondition; throws warpkit::contract_error naming it when it fails.
/// Define WARPKIT_NO_CHECKS to compile the checks out of measured builds.
#if defined(WARPKIT_NO_CHECKS)
#define WARPKIT_EXPECTS(cond) static_cast<void>(0)
#else
#define WARPKIT_EXPECTS(cond)                                                                      \
    ((cond) ? static_cast<void>(0) : ::warpkit::detail::contract_failed(#cond, __FILE__, __LINE__))
#endif
