#pragma once
/// \file
/// Field reflection for params and stats structs: `WARPKIT_REFLECT(type, fields...)` declares
/// the fields of a plain aggregate (keeping its in-class defaults), and `for_each_leaf` walks
/// every scalar field with its dotted path ("l1.sets", "sm[3].issued").

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/concept/struct.hpp>
#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

/// Declares the fields of an aggregate for reflection. Use at global namespace scope with the
/// fully qualified type: `WARPKIT_REFLECT(my::params, sets, ways, line_bytes)`. Members keep
/// their default initialisers (at most 40 fields; nest structs for more).
#define WARPKIT_REFLECT(TYPE, ...) BOOST_HANA_ADAPT_STRUCT(TYPE, __VA_ARGS__)

namespace warpkit {

/// A struct whose fields were declared with WARPKIT_REFLECT (or any Hana Struct).
template <class T>
concept reflectable = boost::hana::Struct<std::remove_cvref_t<T>>::value;

/// Names a scoped enum's values for parsing and printing: specialise with
/// `static constexpr std::array<std::string_view, K> names` indexed by the underlying value.
template <class E>
struct enum_names;

/// An enum whose values have names through enum_names<E>.
template <class E>
concept named_enum = std::is_enum_v<E> && requires {
    enum_names<E>::names;
};

namespace detail {
template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class T>
struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};

inline std::string join_path(std::string_view prefix, std::string_view name) {
    if (prefix.empty()) return std::string(name);
    std::string s(prefix);
    s += '.';
    s += name;
    return s;
}
inline std::string index_path(std::string_view prefix, std::size_t i) {
    std::string s(prefix);
    s += '[';
    s += std::to_string(i);
    s += ']';
    return s;
}
} // namespace detail

/// std::array or std::vector: walked element by element ("name[i]").
template <class T>
concept sequence_field = detail::is_std_array<std::remove_cvref_t<T>>::value ||
    detail::is_std_vector<std::remove_cvref_t<T>>::value;

/// Calls f(name, member) for each declared member of `obj`, in declaration order.
template <reflectable T, class F>
constexpr void for_each_member(T&& obj, F&& f) {
    namespace hana = boost::hana;
    hana::for_each(hana::accessors<std::remove_cvref_t<T>>(), [&](auto pair) {
        f(std::string_view(hana::to<char const*>(hana::first(pair))), hana::second(pair)(obj));
    });
}

/// Calls f(path, leaf) for every field that is not itself a reflectable struct or a sequence:
/// nested structs add "name.", arrays and vectors add "[i]"; anything else (numbers, enums,
/// strings, histograms) is a leaf.
template <class T, class F>
void for_each_leaf(T&& obj, F&& f, std::string_view prefix = {}) {
    using V = std::remove_cvref_t<T>;
    if constexpr (reflectable<V>) {
        for_each_member(obj, [&](std::string_view name, auto&& member) {
            for_each_leaf(member, f, detail::join_path(prefix, name));
        });
    } else if constexpr (sequence_field<V>) {
        for (std::size_t i = 0; i < obj.size(); ++i)
            for_each_leaf(obj[i], f, detail::index_path(prefix, i));
    } else {
        f(std::string(prefix), obj);
    }
}

} // namespace warpkit
