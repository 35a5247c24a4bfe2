#pragma once
/// \file
/// Launch files: the host side of one kernel launch written as JSON (grid, block, dynamic
/// shared memory, the device buffers with their initial contents, the kernel's parameters and
/// the buffers to write back), read into a `launch_spec`.
///
/// ```json
/// {"grid": [64], "block": [256], "shared_bytes": 0,
///  "buffers": [{"name": "a", "type": "f32", "count": 16384,
///               "init": {"kind": "iota", "scale": 0.5, "offset": 0}},
///              {"name": "c", "type": "f32", "count": 16384}],
///  "params": [{"buffer": "a"}, {"buffer": "c"}, {"type": "i32", "value": 16384}],
///  "outputs": [{"buffer": "c", "file": "c.bin"}]}
/// ```
/// Keys: `grid`, `block` (1 to 3 positive integers; missing ones are 1) are required;
/// `shared_bytes`, `buffers`, `params`, `outputs` and a free-text `description` are optional.
/// A buffer has `name`, `type` (u8 i32 u32 i64 u64 f32 f64), `count` and an optional `init`
/// (zeros when absent):
/// - `{"kind": "zeros"}`
/// - `{"kind": "iota", "scale": s, "offset": o}`: element i = i*s + o (s = 1, o = 0 by default)
/// - `{"kind": "mod", "m": m, "scale": s, "offset": o}`: element i = (i % m)*s + o
/// - `{"kind": "random", "seed": n, "lo": a, "hi": b}`: element i is draw i of
///   warpkit::rng(n): integers uniform in [a, b] (lo + rng.between(0, b - a)), reals uniform
///   in [a, b) (lo + (b - a)*rng.uniform(), rounded to the type and kept below b)
/// - `{"kind": "file", "path": p}`: raw little-endian contents of exactly count*size bytes
/// For integer buffers, scale, offset, lo and hi must be integers within +-2^53 (exact as JSON
/// reals) and every generated value must fit the type; for reals they are any finite numbers.
/// A parameter is `{"buffer": name}` (the buffer's 8-byte device address) or
/// `{"type": T, "value": v}` (a scalar, kept as its little-endian bytes). An output is
/// `{"buffer": name, "file": path}`. Relative paths resolve against the launch file's folder.
/// Every error names the key path (`launch.buffers[1].init.kind`), the value and what is allowed.

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/host/value_type.hpp>
#include <warpkit/isa/program.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace warpkit::host {

/// How a buffer's initial contents are generated.
enum class init_kind : std::uint8_t { zeros, iota, mod, random, file };

} // namespace warpkit::host

/// Names used in launch files.
template <>
struct warpkit::enum_names<warpkit::host::init_kind> {
    static constexpr std::array<std::string_view, 5> names = {"zeros", "iota", "mod", "random",
                                                              "file"};
};

namespace warpkit::host {

/// Largest buffer a launch file may describe, in bytes (4 GiB).
inline constexpr std::uint64_t max_buffer_bytes = std::uint64_t{1} << 32;

/// Initial contents of a buffer; only the fields of `kind` are meaningful.
struct init_spec {
    init_kind kind = init_kind::zeros;
    double scale = 1.0;         ///< iota, mod: multiplier of the index
    double offset = 0.0;        ///< iota, mod: added after scaling
    std::uint64_t m = 1;        ///< mod: modulus of the index (>= 1)
    std::uint64_t seed = 0;     ///< random: seed of warpkit::rng
    double lo = 0.0;            ///< random: lowest value
    double hi = 1.0;            ///< random: highest value (excluded for reals)
    std::filesystem::path path; ///< file: resolved against the launch file's folder
    friend bool operator==(const init_spec&, const init_spec&) = default;
};

/// One device buffer: name, element type, element count and initial contents.
struct buffer_spec {
    std::string name;
    value_type type = value_type::u8;
    std::uint64_t count = 0;
    init_spec init;
    /// Size in bytes.
    [[nodiscard]] std::uint64_t bytes() const noexcept { return count * size_of(type); }
    friend bool operator==(const buffer_spec&, const buffer_spec&) = default;
};

/// One kernel parameter: a buffer's device address or a typed scalar.
struct param_spec {
    std::string buffer;                ///< non-empty: the address of this buffer (8 bytes)
    value_type type = value_type::u64; ///< the scalar's type (u64 for a buffer address)
    std::vector<std::byte> value;      ///< the scalar, little-endian (empty for a buffer)
    /// True when the parameter is a buffer address.
    [[nodiscard]] bool is_buffer() const noexcept { return !buffer.empty(); }
    /// Size of the parameter in bytes.
    [[nodiscard]] std::size_t size() const noexcept { return is_buffer() ? 8 : value.size(); }
    friend bool operator==(const param_spec&, const param_spec&) = default;
};

/// A buffer written back to a raw little-endian file after the launch.
struct output_spec {
    std::string buffer;
    std::filesystem::path path; ///< resolved against the launch file's folder
    friend bool operator==(const output_spec&, const output_spec&) = default;
};

/// Everything the host does around one kernel launch.
struct launch_spec {
    isa::dim3 grid;
    isa::dim3 block;
    std::uint32_t shared_bytes = 0; ///< dynamic shared memory per block
    std::vector<buffer_spec> buffers;
    std::vector<param_spec> params;
    std::vector<output_spec> outputs;
    std::string description;

    /// The buffer called `name`, or nullptr.
    [[nodiscard]] const buffer_spec* find_buffer(std::string_view name) const noexcept {
        for (const auto& b : buffers)
            if (b.name == name) return &b;
        return nullptr;
    }
    friend bool operator==(const launch_spec&, const launch_spec&) = default;
};

namespace detail {

__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

/// The JSON value as short text for an error message.
inline std::string json_text(const nlohmann::json& j) {
    // A json value built in code may hold NaN or infinity, which dump() writes as null.
    if (j.is_number_float() && !std::isfinite(j.get<double>())) {
        const double v = j.get<double>();
        return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
    }
    std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

inline std::string index_path(std::string_view path, std::size_t i) {
    return std::string(path) + "[" + std::to_string(i) + "]";
}

inline std::string key_path(std::string_view path, std::string_view key) {
    return std::string(path) + "." + std::string(key);
}

[[noreturn]] inline void bad(std::string_view path, const nlohmann::json& j, std::string allowed) {
    throw config_error(std::string(path), json_text(j), std::move(allowed));
}

/// Throws on a key of `obj` that is not in `known`.
inline void check_keys(const nlohmann::json& obj, std::string_view path,
                       std::initializer_list<std::string_view> known) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (std::find(known.begin(), known.end(), it.key()) != known.end()) continue;
        std::string allowed = "one of the keys ";
        bool first = true;
        for (auto k : known) {
            if (!first) allowed += ", ";
            allowed += k;
            first = false;
        }
        bad(key_path(path, it.key()), it.value(), allowed);
    }
}

inline const nlohmann::json& object_at(const nlohmann::json& j, std::string_view path) {
    if (!j.is_object()) bad(path, j, "a JSON object");
    return j;
}

inline const nlohmann::json& array_at(const nlohmann::json& j, std::string_view path) {
    if (!j.is_array()) bad(path, j, "a JSON array");
    return j;
}

/// Member `key` of object `obj`; throws naming the path when it is missing.
inline const nlohmann::json& required(const nlohmann::json& obj, std::string_view path,
                                      std::string_view key, std::string_view allowed) {
    const auto it = obj.find(key);
    if (it == obj.end())
        throw config_error(key_path(path, key), "missing", "required: " + std::string(allowed));
    return *it;
}

inline const nlohmann::json* find_key(const nlohmann::json& obj, std::string_view key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

/// An integer in [lo, hi] (as uint64: every caller's range is non-negative).
inline std::uint64_t uint_at(const nlohmann::json& j, std::string_view path, std::uint64_t lo,
                             std::uint64_t hi) {
    const std::string allowed =
        "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!j.is_number_integer()) bad(path, j, allowed);
    if (j.is_number_unsigned()) {
        const auto v = j.get<std::uint64_t>();
        if (v < lo || v > hi) bad(path, j, allowed);
        return v;
    }
    const auto v = j.get<std::int64_t>();
    if (v < 0 || static_cast<std::uint64_t>(v) < lo || static_cast<std::uint64_t>(v) > hi)
        bad(path, j, allowed);
    return static_cast<std::uint64_t>(v);
}

inline std::string string_at(const nlohmann::json& j, std::string_view path,
                             std::string_view allowed) {
    if (!j.is_string() || j.get_ref<const std::string&>().empty())
        bad(path, j, std::string(allowed));
    return j.get<std::string>();
}

template <class E>
E enum_at(const nlohmann::json& j, std::string_view path) {
    std::string allowed = "one of ";
    const auto& names = enum_names<E>::names;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i != 0) allowed += ", ";
        allowed += names[i];
    }
    if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == s) return static_cast<E>(i);
    }
    bad(path, j, allowed);
}

inline isa::dim3 dim3_at(const nlohmann::json& j, std::string_view path) {
    constexpr std::uint64_t max_extent = std::numeric_limits<std::int32_t>::max();
    if (!j.is_array() || j.empty() || j.size() > 3)
        bad(path, j, "an array of 1 to 3 integers in [1, " + std::to_string(max_extent) + "]");
    std::array<std::uint32_t, 3> d{1, 1, 1};
    for (std::size_t i = 0; i < j.size(); ++i)
        d[i] = static_cast<std::uint32_t>(uint_at(j[i], index_path(path, i), 1, max_extent));
    return {d[0], d[1], d[2]};
}

/// Smallest and largest value of integer type `t`.
inline std::pair<i128, i128> int_range(value_type t) noexcept {
    switch (t) {
    case value_type::u8:
        return {0, 255};
    case value_type::i32:
        return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    case value_type::u32:
        return {0, std::numeric_limits<std::uint32_t>::max()};
    case value_type::i64:
        return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    case value_type::u64:
        return {0, std::numeric_limits<std::uint64_t>::max()};
    default:
        return {0, 0};
    }
}

inline std::string int128_text(i128 v) {
    if (v == 0) return "0";
    const bool neg = v < 0;
    // Magnitudes here stay far below 2^127, so negating cannot overflow.
    auto u = static_cast<u128>(neg ? -v : v);
    std::string s;
    while (u != 0) {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
        u /= 10;
    }
    return neg ? "-" + s : s;
}

inline std::string type_range_text(value_type t) {
    if (is_float(t)) return "finite " + std::string(name_of(t)) + " values";
    const auto [lo, hi] = int_range(t);
    return std::string(name_of(t)) + " values in [" + int128_text(lo) + ", " + int128_text(hi) +
           "]";
}

/// Largest integer a JSON real holds exactly.
inline constexpr double max_exact_int = 9007199254740992.0; // 2^53

/// A number for a buffer of type `t`: an integer within +-2^53 for integer types, a finite
/// value of the type for reals.
inline double number_for(const nlohmann::json& j, std::string_view path, value_type t) {
    if (is_float(t)) {
        const double limit = t == value_type::f32 ? double{std::numeric_limits<float>::max()}
                                                  : std::numeric_limits<double>::max();
        if (!j.is_number() || !(std::fabs(j.get<double>()) <= limit))
            bad(path, j, "a number within the range of " + std::string(name_of(t)));
        return j.get<double>();
    }
    const std::string allowed =
        "an integer in [-2^53, 2^53] (the buffer is " + std::string(name_of(t)) + ")";
    if (!j.is_number_integer()) bad(path, j, allowed);
    const double v = j.get<double>();
    if (std::fabs(v) > max_exact_int) bad(path, j, allowed);
    return v;
}

inline i128 as_int(double v) noexcept {
    return static_cast<i128>(static_cast<std::int64_t>(v));
}

/// Throws unless integer `v` (element `i` of the buffer at `path`) fits type `t`.
inline void check_int_fits(i128 v, value_type t, std::string_view path, std::uint64_t i) {
    const auto [lo, hi] = int_range(t);
    if (v < lo || v > hi)
        throw config_error(std::string(path),
                           "element " + std::to_string(i) + " = " + int128_text(v),
                           type_range_text(t));
}

/// Throws unless real `v` (element `i` of the buffer at `path`) is finite in type `t`.
inline void check_real_fits(double v, value_type t, std::string_view path, std::uint64_t i) {
    const double limit = t == value_type::f32 ? double{std::numeric_limits<float>::max()}
                                              : std::numeric_limits<double>::max();
    if (!(std::fabs(v) <= limit))
        throw config_error(std::string(path),
                           "element " + std::to_string(i) + " = " + std::to_string(v),
                           type_range_text(t));
}

/// Value of element `i` for iota / mod (index already reduced for mod), as integer.
inline i128 linear_int(std::uint64_t i, const init_spec& s) noexcept {
    return static_cast<i128>(i) * as_int(s.scale) + as_int(s.offset);
}

inline double linear_real(std::uint64_t i, const init_spec& s) noexcept {
    return static_cast<double>(i) * s.scale + s.offset;
}

/// Checks that every value iota / mod produces for buffer `b` fits its type. The values are
/// linear in the (reduced) index, so the two ends bound them all.
inline void check_linear(const buffer_spec& b, std::string_view path) {
    std::uint64_t last = b.count - 1;
    if (b.init.kind == init_kind::mod) last = std::min(last, b.init.m - 1);
    for (const std::uint64_t i : {std::uint64_t{0}, last}) {
        if (is_float(b.type))
            check_real_fits(linear_real(i, b.init), b.type, path, i);
        else
            check_int_fits(linear_int(i, b.init), b.type, path, i);
    }
}

/// Bytes of file `p`; throws warpkit::error naming it on any I/O failure.
inline std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
    const std::string text = read_file(p);
    std::vector<std::byte> out(text.size());
    if (!text.empty()) std::memcpy(out.data(), text.data(), text.size());
    return out;
}

inline std::filesystem::path resolve(const std::filesystem::path& base, const std::string& text) {
    std::filesystem::path p(text);
    return p.is_absolute() ? p : base / p;
}

inline init_spec init_at(const nlohmann::json& j, std::string_view path, const buffer_spec& b,
                         const std::filesystem::path& base) {
    object_at(j, path);
    init_spec s;
    s.kind = enum_at<init_kind>(required(j, path, "kind", "one of zeros, iota, mod, random, file"),
                                key_path(path, "kind"));
    const auto number = [&](std::string_view key, double fallback) {
        const auto* v = find_key(j, key);
        return v != nullptr ? number_for(*v, key_path(path, key), b.type) : fallback;
    };
    switch (s.kind) {
    case init_kind::zeros:
        check_keys(j, path, {"kind"});
        break;
    case init_kind::iota:
    case init_kind::mod:
        if (s.kind == init_kind::iota) {
            check_keys(j, path, {"kind", "scale", "offset"});
        } else {
            check_keys(j, path, {"kind", "m", "scale", "offset"});
            s.m = uint_at(required(j, path, "m", "a positive integer"), key_path(path, "m"), 1,
                          std::numeric_limits<std::uint64_t>::max());
        }
        s.scale = number("scale", 1.0);
        s.offset = number("offset", 0.0);
        break;
    case init_kind::random: {
        check_keys(j, path, {"kind", "seed", "lo", "hi"});
        s.seed = uint_at(required(j, path, "seed", "an integer seed"), key_path(path, "seed"), 0,
                         std::numeric_limits<std::uint64_t>::max());
        const auto& lo = required(j, path, "lo", "the lowest value");
        const auto& hi = required(j, path, "hi", "the highest value");
        s.lo = number_for(lo, key_path(path, "lo"), b.type);
        s.hi = number_for(hi, key_path(path, "hi"), b.type);
        if (is_float(b.type)) {
            // The interval must be non-empty in the buffer's own type, and its width finite.
            const bool empty = b.type == value_type::f32
                                   ? !(static_cast<float>(s.lo) < static_cast<float>(s.hi))
                                   : !(s.lo < s.hi);
            if (empty || !std::isfinite(s.hi - s.lo))
                bad(key_path(path, "hi"), hi,
                    "a value above lo = " + json_text(lo) + " (real values are drawn in [lo, hi))");
        } else {
            const auto [tlo, thi] = int_range(b.type);
            if (as_int(s.lo) < tlo || as_int(s.lo) > thi)
                bad(key_path(path, "lo"), lo, type_range_text(b.type));
            if (as_int(s.hi) < tlo || as_int(s.hi) > thi)
                bad(key_path(path, "hi"), hi, type_range_text(b.type));
            if (s.hi < s.lo)
                bad(key_path(path, "hi"), hi,
                    "a value >= lo = " + json_text(lo) + " (integers are drawn in [lo, hi])");
        }
        break;
    }
    case init_kind::file: {
        check_keys(j, path, {"kind", "path"});
        const auto pk = key_path(path, "path");
        s.path = resolve(
            base, string_at(required(j, path, "path", "a file name"), pk, "a non-empty file name"));
        std::error_code ec;
        const auto size = std::filesystem::file_size(s.path, ec);
        if (ec)
            throw error("cannot read '" + s.path.string() + "': " + ec.message() + " (" + pk + ")");
        if (size != b.bytes())
            throw config_error(pk,
                               "'" + s.path.string() + "' of " + std::to_string(size) + " bytes",
                               "a file of count * size_of(" + std::string(name_of(b.type)) +
                                   ") = " + std::to_string(b.bytes()) + " bytes");
        break;
    }
    }
    if (s.kind == init_kind::iota || s.kind == init_kind::mod) {
        buffer_spec checked = b;
        checked.init = s;
        check_linear(checked, path);
    }
    return s;
}

inline buffer_spec buffer_at(const nlohmann::json& j, std::string_view path,
                             const std::filesystem::path& base) {
    object_at(j, path);
    check_keys(j, path, {"name", "type", "count", "init"});
    buffer_spec b;
    b.name = string_at(required(j, path, "name", "a buffer name"), key_path(path, "name"),
                       "a non-empty buffer name");
    b.type =
        enum_at<value_type>(required(j, path, "type", "one of u8, i32, u32, i64, u64, f32, f64"),
                            key_path(path, "type"));
    b.count = uint_at(required(j, path, "count", "a positive element count"),
                      key_path(path, "count"), 1, max_buffer_bytes / size_of(b.type));
    if (const auto* init = find_key(j, "init"))
        b.init = init_at(*init, key_path(path, "init"), b, base);
    return b;
}

inline param_spec param_at(const nlohmann::json& j, std::string_view path,
                           const std::vector<buffer_spec>& buffers) {
    object_at(j, path);
    param_spec p;
    if (const auto* name = find_key(j, "buffer")) {
        check_keys(j, path, {"buffer"});
        const auto bp = key_path(path, "buffer");
        p.buffer = string_at(*name, bp, "the name of a buffer");
        const bool known = std::any_of(buffers.begin(), buffers.end(),
                                       [&](const buffer_spec& b) { return b.name == p.buffer; });
        if (!known) bad(bp, *name, "the name of a buffer declared in launch.buffers");
        return p;
    }
    if (!j.contains("type") && !j.contains("value"))
        bad(path, j, "{\"buffer\": name} or {\"type\": T, \"value\": v}");
    check_keys(j, path, {"type", "value"});
    p.type =
        enum_at<value_type>(required(j, path, "type", "one of u8, i32, u32, i64, u64, f32, f64"),
                            key_path(path, "type"));
    const auto vp = key_path(path, "value");
    const auto& v = required(j, path, "value", "the scalar's value");
    p.value.resize(size_of(p.type));
    if (is_float(p.type)) {
        store_float(p.value.data(), p.type, number_for(v, vp, p.type));
    } else {
        const std::string allowed = "an integer: " + type_range_text(p.type);
        if (!v.is_number_integer()) bad(vp, v, allowed);
        const i128 x = v.is_number_unsigned() ? static_cast<i128>(v.get<std::uint64_t>())
                                              : static_cast<i128>(v.get<std::int64_t>());
        const auto [lo, hi] = int_range(p.type);
        if (x < lo || x > hi) bad(vp, v, allowed);
        store_int(p.value.data(), p.type, static_cast<std::uint64_t>(x));
    }
    return p;
}

} // namespace detail

/// Reads a launch description from JSON; relative paths resolve against `base_dir`.
/// Throws config_error naming the key path, or warpkit::error when a `file` init is unreadable.
[[nodiscard]] inline launch_spec parse_launch(const nlohmann::json& j,
                                              const std::filesystem::path& base_dir) {
    using namespace detail;
    const std::string root = "launch";
    object_at(j, root);
    check_keys(j, root,
               {"description", "grid", "block", "shared_bytes", "buffers", "params", "outputs"});
    launch_spec s;
    if (const auto* d = find_key(j, "description")) {
        if (!d->is_string()) bad(key_path(root, "description"), *d, "a string");
        s.description = d->get<std::string>();
    }
    s.grid = dim3_at(required(j, root, "grid", "an array of 1 to 3 positive integers"),
                     key_path(root, "grid"));
    s.block = dim3_at(required(j, root, "block", "an array of 1 to 3 positive integers"),
                      key_path(root, "block"));
    if (const auto* sh = find_key(j, "shared_bytes"))
        s.shared_bytes = static_cast<std::uint32_t>(uint_at(
            *sh, key_path(root, "shared_bytes"), 0, std::numeric_limits<std::uint32_t>::max()));
    if (const auto* bs = find_key(j, "buffers")) {
        const auto path = key_path(root, "buffers");
        array_at(*bs, path);
        for (std::size_t i = 0; i < bs->size(); ++i) {
            const auto bp = index_path(path, i);
            auto b = buffer_at((*bs)[i], bp, base_dir);
            if (s.find_buffer(b.name) != nullptr)
                bad(key_path(bp, "name"), (*bs)[i]["name"], "a name not used by another buffer");
            s.buffers.push_back(std::move(b));
        }
    }
    if (const auto* ps = find_key(j, "params")) {
        const auto path = key_path(root, "params");
        array_at(*ps, path);
        for (std::size_t i = 0; i < ps->size(); ++i)
            s.params.push_back(param_at((*ps)[i], index_path(path, i), s.buffers));
    }
    if (const auto* os = find_key(j, "outputs")) {
        const auto path = key_path(root, "outputs");
        array_at(*os, path);
        for (std::size_t i = 0; i < os->size(); ++i) {
            const auto op = index_path(path, i);
            const auto& o = object_at((*os)[i], op);
            check_keys(o, op, {"buffer", "file"});
            output_spec out;
            const auto& name = required(o, op, "buffer", "the name of a buffer");
            out.buffer = string_at(name, key_path(op, "buffer"), "the name of a buffer");
            if (s.find_buffer(out.buffer) == nullptr)
                bad(key_path(op, "buffer"), name,
                    "the name of a buffer declared in launch.buffers");
            out.path = resolve(base_dir, string_at(required(o, op, "file", "a file name"),
                                                   key_path(op, "file"), "a non-empty file name"));
            s.outputs.push_back(std::move(out));
        }
    }
    return s;
}

/// Reads a launch description from JSON text that came from `file` (named in parse errors;
/// relative paths inside resolve against its folder).
/// Throws parse_error (file:line:column) on malformed JSON, config_error on a bad description.
[[nodiscard]] inline launch_spec parse_launch_text(std::string_view text,
                                                   const std::filesystem::path& file) {
    nlohmann::json j;
    // A parse_error at byte index `at` (0-based) of the text.
    const auto fail_at = [&](std::size_t at, const std::string& msg) {
        at = std::min(at, text.size());
        const auto newlines =
            std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
        const std::size_t line = 1 + static_cast<std::size_t>(newlines);
        const std::size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
        const std::size_t column = nl == std::string_view::npos ? at + 1 : at - nl;
        throw parse_error(file.string(), line, column, msg);
    };
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann reports the byte index (1-based) of the last character it read.
        std::string msg = e.what();
        // Keep nlohmann's description, drop its own "[json.exception...] ... column n: " prefix.
        if (const auto c = msg.find("column "); c != std::string::npos) {
            if (const auto colon = msg.find(": ", c); colon != std::string::npos)
                msg = msg.substr(colon + 2);
        }
        fail_at(e.byte == 0 ? 0 : e.byte - 1, msg);
    } catch (const nlohmann::json::exception& e) {
        // A number too large for a double ("number overflow parsing '1e999'") is an
        // out_of_range without a position: point at the first occurrence of the token.
        std::string msg = e.what();
        if (const auto close = msg.find("] "); close != std::string::npos)
            msg = msg.substr(close + 2);
        std::size_t at = 0;
        const auto q1 = msg.find('\'');
        const auto q2 = q1 == std::string::npos ? q1 : msg.find('\'', q1 + 1);
        if (q2 != std::string::npos && q2 > q1 + 1)
            at = text.find(std::string_view(msg).substr(q1 + 1, q2 - q1 - 1));
        fail_at(at == std::string_view::npos ? 0 : at, msg);
    }
    return parse_launch(j, file.parent_path());
}

/// Reads the launch file `file` (relative paths inside resolve against its folder).
/// Throws parse_error (file:line:column) on malformed JSON, warpkit::error when the file cannot
/// be read, config_error on a bad description.
[[nodiscard]] inline launch_spec read_launch(const std::filesystem::path& file) {
    const auto bytes = detail::read_bytes(file);
    return parse_launch_text(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file);
}

/// The initial contents of buffer `b` (count * size_of(type) bytes, little-endian).
/// Throws warpkit::error when a `file` init cannot be read or no longer has the right size.
[[nodiscard]] inline std::vector<std::byte> initial_contents(const buffer_spec& b) {
    using namespace detail;
    const std::size_t size = size_of(b.type);
    const auto n = static_cast<std::size_t>(b.count);
    const auto& s = b.init;
    switch (s.kind) {
    case init_kind::zeros:
        return std::vector<std::byte>(n * size);
    case init_kind::file: {
        auto data = read_bytes(s.path);
        if (data.size() != n * size)
            throw error("cannot read '" + s.path.string() + "': it holds " +
                        std::to_string(data.size()) + " bytes, buffer '" + b.name + "' needs " +
                        std::to_string(n * size));
        return data;
    }
    default:
        break;
    }
    std::vector<std::byte> out(n * size);
    std::byte* p = out.data();
    if (s.kind == init_kind::random) {
        rng r(s.seed);
        if (is_float(b.type)) {
            const bool f32 = b.type == value_type::f32;
            // Draw in double, round to the type, and keep the result below hi in that type.
            const double lo = f32 ? double{static_cast<float>(s.lo)} : s.lo;
            const double hi = f32 ? double{static_cast<float>(s.hi)} : s.hi;
            for (std::size_t i = 0; i < n; ++i, p += size) {
                const double v = lo + (hi - lo) * r.uniform();
                if (f32) {
                    auto f = static_cast<float>(v);
                    if (f >= static_cast<float>(hi))
                        f = std::nextafter(static_cast<float>(hi), static_cast<float>(lo));
                    store_float(p, b.type, double{f});
                } else {
                    store_float(p, b.type, v >= hi ? std::nextafter(hi, lo) : v);
                }
            }
        } else {
            const i128 lo = as_int(s.lo);
            const auto width = static_cast<std::uint64_t>(as_int(s.hi) - lo);
            for (std::size_t i = 0; i < n; ++i, p += size)
                store_int(p, b.type, static_cast<std::uint64_t>(lo + r.between(0, width)));
        }
        return out;
    }
    // iota and mod
    for (std::size_t i = 0; i < n; ++i, p += size) {
        const std::uint64_t k = s.kind == init_kind::mod ? i % s.m : i;
        if (is_float(b.type))
            store_float(p, b.type, linear_real(k, s));
        else
            store_int(p, b.type, static_cast<std::uint64_t>(linear_int(k, s)));
    }
    return out;
}

} // namespace warpkit::host
