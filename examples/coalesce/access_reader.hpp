#pragma once
// The input reader of warpkit-coalesce, kept in a header so the fuzz target reads exactly
// what the tool reads.
//
// Input: `size N` (bytes per lane: 1, 2, 4, 8 or 16), then one line per lane (lane 0 first,
// at most 32) holding a hex address (0x prefix optional) or `-` for an inactive lane; lanes
// without a line are inactive. Blank lines and `#` comments are ignored. Every defect is a
// warpkit::parse_error naming the source, line and column.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/transaction.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace example {

/// Lanes of the warp warpkit-coalesce reads.
inline constexpr std::size_t coalesce_warp = 32;

/// One warp memory access: bytes per lane, per-lane addresses, active lanes.
struct warp_access {
    std::uint32_t bytes = 0;
    warpkit::mem::lane_addresses<coalesce_warp> addr{};
    warpkit::warp_mask active{};
};

namespace detail {
// The part of `s` before any '#', without surrounding blanks, and the 0-based offset where it
// starts in `s`.
inline std::pair<std::string_view, std::size_t> trim(std::string_view s) noexcept {
    if (const auto hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {{}, 0};
    const auto e = s.find_last_not_of(" \t\r");
    return {s.substr(b, e - b + 1), b};
}
} // namespace detail

/// Reads one access from `in` (named `source` in errors).
inline warp_access read_access(std::istream& in, const std::string& source = "stdin") {
    warp_access a;
    std::string raw;
    std::size_t line = 0;
    bool have_size = false;
    std::size_t lane = 0;
    while (std::getline(in, raw)) {
        ++line;
        const auto [s, at] = detail::trim(raw);
        const std::size_t col = at + 1;
        const auto fail = [&](std::size_t c, const std::string& msg) {
            throw warpkit::parse_error(source, line, c, msg);
        };
        if (s.empty()) continue;
        if (!have_size) {
            if (s.substr(0, 4) != "size" || s.size() < 5 || (s[4] != ' ' && s[4] != '\t'))
                fail(col, "expected `size N` first, got '" + std::string(s) + "'");
            const auto [n, n_at] = detail::trim(s.substr(5));
            unsigned v = 0;
            const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
            if (ec != std::errc{} || p != n.data() + n.size() ||
                !warpkit::mem::valid_access_bytes(v))
                fail(col + 5 + n_at, "size must be 1, 2, 4, 8 or 16, got '" + std::string(n) + "'");
            a.bytes = v;
            have_size = true;
            continue;
        }
        if (lane == coalesce_warp) fail(col, "more than 32 lane lines");
        if (s != "-") {
            std::string_view h = s;
            if (h.size() > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
            std::uint64_t v = 0;
            const auto [p, ec] = std::from_chars(h.data(), h.data() + h.size(), v, 16);
            if (h.empty() || ec != std::errc{} || p != h.data() + h.size())
                fail(col, "lane " + std::to_string(lane) +
                              ": expected a hex address or '-', got '" + std::string(s) + "'");
            if (v % a.bytes != 0)
                fail(col, "lane " + std::to_string(lane) + ": address " + std::string(s) +
                              " is not aligned to " + std::to_string(a.bytes) + " bytes");
            a.addr[lane] = v;
            a.active.set(lane);
        }
        ++lane;
    }
    if (!have_size)
        throw warpkit::parse_error(source, line + 1, 1, "end of input: expected `size N`");
    return a;
}

} // namespace example
