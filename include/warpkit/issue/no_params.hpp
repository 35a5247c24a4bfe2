#pragma once
/// \file
/// `no_params`: the params struct of a policy that has nothing to configure. It is an empty
/// reflected struct, so generic params code (JSON, overrides, validation) handles it.

#include <warpkit/core/reflect.hpp>

#include <boost/hana/tuple.hpp>

namespace warpkit::issue {

/// Params of a policy without parameters.
struct no_params {
    /// Nothing to check.
    void validate() const noexcept {}
    friend constexpr bool operator==(const no_params&, const no_params&) noexcept = default;
};

} // namespace warpkit::issue

// WARPKIT_REFLECT needs at least one field; an empty struct declares its (empty) accessors.
template <>
struct boost::hana::accessors_impl<warpkit::issue::no_params> {
    static constexpr auto apply() { return boost::hana::make_tuple(); }
};
