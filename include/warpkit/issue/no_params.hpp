#pragma once
/// \file
/// `no_params`: the params struct of a policy that has nothing to configure. It is an empty
/// reflected struct, so generic params code (JSON, overrides, validation) handles it.

#include <warpkit/core/reflect.hpp>

#include <cstddef>

namespace warpkit::issue {

/// Params of a policy without parameters.
struct no_params {
    /// Nothing to check.
    void validate() const noexcept {}
    friend constexpr bool operator==(const no_params&, const no_params&) noexcept = default;

    // WARPKIT_FIELDS needs at least one field; an empty struct visits nothing.
    template <class Visitor, class... Objects>
    static constexpr void warpkit_visit_fields(Visitor&&, Objects&...) noexcept {}
    static constexpr std::size_t warpkit_field_count = 0;
};

} // namespace warpkit::issue
