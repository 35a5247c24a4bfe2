#pragma once
/// \file
/// Contracts of the execution area.

#include <warpkit/exec/op_class.hpp>

#include <concepts>

namespace warpkit::exec {

/// A pipeline taking at most one instruction per cycle; `busy()` reads only its own state.
template <class U>
concept pipeline = requires(U& u, const U& cu, op_class o, typename U::payload_type v) {
    { cu.accepts(o) } -> std::convertible_to<bool>;
    { cu.can_issue(o) } -> std::convertible_to<bool>;
    { cu.busy() } -> std::convertible_to<bool>;
    { cu.ready() } -> std::convertible_to<bool>;
    u.pop();
    u.tick();
};

/// A pipeline that can be power gated as one block; power_off requires an empty pipeline.
template <class U>
concept gateable_block = pipeline<U> && requires(U& u, const U& cu) {
    { cu.powered() } -> std::convertible_to<bool>;
    u.power_off();
    u.power_on();
};

} // namespace warpkit::exec
