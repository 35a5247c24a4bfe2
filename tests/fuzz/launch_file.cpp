// Fuzz target: the launch-file reader (host::parse_launch_text) and the buffer contents it
// describes (host::initial_contents).
//
// Laws on every launch that reads: buffers have distinct names, params and outputs name
// declared buffers; every buffer's contents (small ones, not read from files) have
// count * size bytes; iota / mod values are the exact linear values and fit the type; random
// values lie in [lo, hi] (integers) or [lo, hi) (reals, in the buffer's type).
#include "fuzz.hpp"

#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/value_type.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit;
using host::value_type;
using host::detail::i128;

i128 int_at(const std::vector<std::byte>& v, std::size_t i, value_type t) {
    const std::size_t n = host::size_of(t);
    const std::uint64_t bits = host::load_le(v.data() + i * n, n);
    switch (t) {
    case value_type::i32:
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
    case value_type::i64:
        return static_cast<std::int64_t>(bits);
    default:
        return bits;
    }
}

double real_at(const std::vector<std::byte>& v, std::size_t i, value_type t) {
    if (t == value_type::f32)
        return std::bit_cast<float>(static_cast<std::uint32_t>(host::load_le(v.data() + 4 * i, 4)));
    return std::bit_cast<double>(host::load_le(v.data() + 8 * i, 8));
}

void check_contents(const host::buffer_spec& b) {
    std::vector<std::byte> c;
    const bool made = fuzz::expect_errors([&] { c = host::initial_contents(b); });
    WARPKIT_FUZZ_LAW(made);
    WARPKIT_FUZZ_LAW(c.size() == b.bytes());
    const auto& s = b.init;
    const auto [tlo, thi] = host::detail::int_range(b.type);
    for (std::uint64_t i = 0; i < b.count; ++i) {
        const bool real = host::is_float(b.type);
        const double r = real ? real_at(c, i, b.type) : 0.0;
        const i128 n = real ? 0 : int_at(c, i, b.type);
        switch (s.kind) {
        case host::init_kind::zeros:
            WARPKIT_FUZZ_LAW(real ? r == 0.0 : n == 0);
            break;
        case host::init_kind::iota:
        case host::init_kind::mod: {
            const std::uint64_t k = s.kind == host::init_kind::mod ? i % s.m : i;
            if (real) {
                WARPKIT_FUZZ_LAW(std::isfinite(r));
            } else {
                const i128 want = host::detail::linear_int(k, s);
                WARPKIT_FUZZ_LAW(want >= tlo && want <= thi && n == want);
            }
            break;
        }
        case host::init_kind::random:
            if (real) {
                const double lo =
                    b.type == value_type::f32 ? double{static_cast<float>(s.lo)} : s.lo;
                const double hi =
                    b.type == value_type::f32 ? double{static_cast<float>(s.hi)} : s.hi;
                WARPKIT_FUZZ_LAW(r >= lo && r < hi);
            } else {
                WARPKIT_FUZZ_LAW(n >= host::detail::as_int(s.lo) &&
                                 n <= host::detail::as_int(s.hi));
            }
            break;
        case host::init_kind::file:
            break;
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    // Relative file names resolve into a folder that does not exist.
    const std::filesystem::path file = "/nonexistent/warpkit-fuzz/fuzz.launch.json";
    host::launch_spec s;
    if (!fuzz::expect_errors([&] { s = host::parse_launch_text(text, file); })) return 0;
    WARPKIT_FUZZ_LAW(s.grid.count() > 0 && s.block.count() > 0);
    for (std::size_t i = 0; i < s.buffers.size(); ++i) {
        const auto& b = s.buffers[i];
        WARPKIT_FUZZ_LAW(!b.name.empty() && s.find_buffer(b.name) == &b);
        WARPKIT_FUZZ_LAW(b.bytes() <= host::max_buffer_bytes);
        if (b.init.kind != host::init_kind::file && b.bytes() <= 65536) check_contents(b);
    }
    for (const auto& p : s.params) {
        if (p.is_buffer())
            WARPKIT_FUZZ_LAW(s.find_buffer(p.buffer) != nullptr);
        else
            WARPKIT_FUZZ_LAW(p.value.size() == host::size_of(p.type));
    }
    for (const auto& o : s.outputs)
        WARPKIT_FUZZ_LAW(s.find_buffer(o.buffer) != nullptr);
    return 0;
}
