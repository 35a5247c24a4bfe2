#pragma once
/// \file
/// Reflection of class templates (params and stats of policies templated on an inner
/// policy): WARPKIT_REFLECT needs a concrete type, so these structs declare their Hana
/// accessors by partial specialisation, one WARPKIT_DETAIL_TEMPLATE_FIELD per member.

#include <boost/hana/accessors.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/tuple.hpp>

#include <utility>

/// One (name, accessor) pair of a Hana accessors tuple for member `name`.
#define WARPKIT_DETAIL_TEMPLATE_FIELD(name)                                                        \
    ::boost::hana::make_pair(BOOST_HANA_STRING(#name), [](auto&& obj) -> decltype(auto) {          \
        return (std::forward<decltype(obj)>(obj).name);                                            \
    })
