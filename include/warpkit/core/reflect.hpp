#pragma once
/// \file
/// Field reflection for params and stats structs. A struct lists its fields once, in its own
/// body: `struct p { int sets = 64; int ways = 4; WARPKIT_FIELDS(p, sets, ways) };` (in-class
/// defaults stay, the struct stays an aggregate, and it is usable by reflective code at once,
/// class templates included). `for_each_member` visits the fields in order, `for_each_leaf`
/// every scalar field with its dotted path ("l1.sets", "sm[3].issued").
///
/// The macro writes one plain function that calls a visitor on each field, so reflecting a
/// struct costs the compiler about what the struct's own body does (no tuple of accessors to
/// instantiate); a struct whose body cannot be edited is declared from outside with
/// `WARPKIT_REFLECT(ns::type, fields...)` at global namespace scope.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

/// Declares the fields of an aggregate for reflection from inside its body:
/// `struct p { int a = 1; int b = 2; WARPKIT_FIELDS(p, a, b) };` (at most 40 fields; nest
/// structs for more). `TYPE` is the struct's own name.
#define WARPKIT_FIELDS(TYPE, ...)                                                                  \
    template <class WarpkitVisitor_, class... WarpkitObjects_>                                     \
    static constexpr void warpkit_visit_fields(WarpkitVisitor_&& warpkit_visitor_,                 \
                                               WarpkitObjects_&... warpkit_objects_) {             \
        (WARPKIT_PP_FOR_EACH(WARPKIT_DETAIL_VISIT_FIELD, TYPE, __VA_ARGS__));                      \
    }                                                                                              \
    static constexpr ::std::size_t warpkit_field_count = WARPKIT_PP_NARG(__VA_ARGS__);

/// Declares the fields of an aggregate whose body cannot be edited (a type from another
/// library), at global namespace scope: `WARPKIT_REFLECT(their::params, sets, ways)`.
#define WARPKIT_REFLECT(TYPE, ...)                                                                 \
    template <>                                                                                    \
    struct warpkit::reflection<TYPE> {                                                             \
        template <class WarpkitVisitor_, class... WarpkitObjects_>                                 \
        static constexpr void visit(WarpkitVisitor_&& warpkit_visitor_,                            \
                                    WarpkitObjects_&... warpkit_objects_) {                        \
            (WARPKIT_PP_FOR_EACH(WARPKIT_DETAIL_VISIT_FIELD, TYPE, __VA_ARGS__));                  \
        }                                                                                          \
        static constexpr ::std::size_t field_count = WARPKIT_PP_NARG(__VA_ARGS__);                 \
    };

#define WARPKIT_DETAIL_VISIT_FIELD(TYPE, m)                                                        \
    static_cast<void>(warpkit_visitor_(::std::string_view(#m), warpkit_objects_.m...))

// Preprocessor iteration over up to 40 field names (generated table).
#define WARPKIT_PP_CAT_(a, b) a##b
#define WARPKIT_PP_CAT(a, b) WARPKIT_PP_CAT_(a, b)
#define WARPKIT_PP_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,    \
                         _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30,     \
                         _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, N, ...)                 \
    N
#define WARPKIT_PP_NARG(...)                                                                       \
    WARPKIT_PP_NARG_(__VA_ARGS__, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25,  \
                     24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, \
                     3, 2, 1)
#define WARPKIT_PP_FE_1(M, T, a) M(T, a)
#define WARPKIT_PP_FE_2(M, T, a, ...) M(T, a), WARPKIT_PP_FE_1(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_3(M, T, a, ...) M(T, a), WARPKIT_PP_FE_2(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_4(M, T, a, ...) M(T, a), WARPKIT_PP_FE_3(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_5(M, T, a, ...) M(T, a), WARPKIT_PP_FE_4(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_6(M, T, a, ...) M(T, a), WARPKIT_PP_FE_5(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_7(M, T, a, ...) M(T, a), WARPKIT_PP_FE_6(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_8(M, T, a, ...) M(T, a), WARPKIT_PP_FE_7(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_9(M, T, a, ...) M(T, a), WARPKIT_PP_FE_8(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_10(M, T, a, ...) M(T, a), WARPKIT_PP_FE_9(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_11(M, T, a, ...) M(T, a), WARPKIT_PP_FE_10(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_12(M, T, a, ...) M(T, a), WARPKIT_PP_FE_11(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_13(M, T, a, ...) M(T, a), WARPKIT_PP_FE_12(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_14(M, T, a, ...) M(T, a), WARPKIT_PP_FE_13(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_15(M, T, a, ...) M(T, a), WARPKIT_PP_FE_14(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_16(M, T, a, ...) M(T, a), WARPKIT_PP_FE_15(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_17(M, T, a, ...) M(T, a), WARPKIT_PP_FE_16(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_18(M, T, a, ...) M(T, a), WARPKIT_PP_FE_17(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_19(M, T, a, ...) M(T, a), WARPKIT_PP_FE_18(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_20(M, T, a, ...) M(T, a), WARPKIT_PP_FE_19(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_21(M, T, a, ...) M(T, a), WARPKIT_PP_FE_20(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_22(M, T, a, ...) M(T, a), WARPKIT_PP_FE_21(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_23(M, T, a, ...) M(T, a), WARPKIT_PP_FE_22(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_24(M, T, a, ...) M(T, a), WARPKIT_PP_FE_23(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_25(M, T, a, ...) M(T, a), WARPKIT_PP_FE_24(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_26(M, T, a, ...) M(T, a), WARPKIT_PP_FE_25(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_27(M, T, a, ...) M(T, a), WARPKIT_PP_FE_26(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_28(M, T, a, ...) M(T, a), WARPKIT_PP_FE_27(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_29(M, T, a, ...) M(T, a), WARPKIT_PP_FE_28(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_30(M, T, a, ...) M(T, a), WARPKIT_PP_FE_29(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_31(M, T, a, ...) M(T, a), WARPKIT_PP_FE_30(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_32(M, T, a, ...) M(T, a), WARPKIT_PP_FE_31(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_33(M, T, a, ...) M(T, a), WARPKIT_PP_FE_32(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_34(M, T, a, ...) M(T, a), WARPKIT_PP_FE_33(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_35(M, T, a, ...) M(T, a), WARPKIT_PP_FE_34(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_36(M, T, a, ...) M(T, a), WARPKIT_PP_FE_35(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_37(M, T, a, ...) M(T, a), WARPKIT_PP_FE_36(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_38(M, T, a, ...) M(T, a), WARPKIT_PP_FE_37(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_39(M, T, a, ...) M(T, a), WARPKIT_PP_FE_38(M, T, __VA_ARGS__)
#define WARPKIT_PP_FE_40(M, T, a, ...) M(T, a), WARPKIT_PP_FE_39(M, T, __VA_ARGS__)
#define WARPKIT_PP_FOR_EACH(M, T, ...)                                                             \
    WARPKIT_PP_CAT(WARPKIT_PP_FE_, WARPKIT_PP_NARG(__VA_ARGS__))(M, T, __VA_ARGS__)

namespace warpkit {

/// How the fields of T are visited: `visit(f, objs...)` calls `f(name, objs.field...)` for each
/// field in declaration order, and `field_count`. Provided for every struct with
/// WARPKIT_FIELDS in its body; WARPKIT_REFLECT specialises it for other structs.
template <class T>
struct reflection {};

template <class T>
requires requires {
    T::warpkit_field_count;
}
struct reflection<T> {
    template <class F, class... Objs>
    static constexpr void visit(F&& f, Objs&... objs) {
        T::warpkit_visit_fields(f, objs...);
    }
    static constexpr std::size_t field_count = T::warpkit_field_count;
};

/// A struct whose fields were declared with WARPKIT_FIELDS or WARPKIT_REFLECT.
template <class T>
concept reflectable = requires {
    reflection<std::remove_cvref_t<T>>::field_count;
};

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
    reflection<std::remove_cvref_t<T>>::visit(f, obj);
}

/// Calls f(name, a.member, b.member) for each declared member of two objects of one type,
/// in declaration order (for walking two structs in step: sums, differences).
template <reflectable T, class F>
constexpr void for_each_member_pair(T& a, const T& b, F&& f) {
    reflection<T>::visit(f, a, b);
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
