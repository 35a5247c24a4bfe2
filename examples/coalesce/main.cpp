// warpkit-coalesce: reads one warp memory access from standard input and prints the memory
// transactions a coalescer makes of it.
//
// Input:  `size N` (bytes per lane: 1, 2, 4, 8 or 16), then one line per lane (lane 0 first,
//         at most 32) holding a hex address (0x prefix optional) or `-` for an inactive lane;
//         lanes without a line are inactive. Blank lines and `#` comments are ignored.
// Output: one line `0xADDR SIZE` per transaction in issue order, then `transactions K`.
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace {

constexpr std::size_t warp = 32;

struct input_error : std::runtime_error {
    input_error(std::size_t line, const std::string& msg)
        : std::runtime_error("stdin:" + std::to_string(line) + ": " + msg) {}
};

std::string_view trim(std::string_view s) {
    if (const auto hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

struct warp_access {
    std::uint32_t bytes = 0;
    warpkit::mem::lane_addresses<warp> addr{};
    warpkit::warp_mask active{};
};

warp_access read_access(std::istream& in) {
    warp_access a;
    std::string raw;
    std::size_t line = 0;
    bool have_size = false;
    std::size_t lane = 0;
    while (std::getline(in, raw)) {
        ++line;
        const std::string_view s = trim(raw);
        if (s.empty()) continue;
        if (!have_size) {
            if (s.substr(0, 4) != "size" || s.size() < 5 || (s[4] != ' ' && s[4] != '\t'))
                throw input_error(line, "expected `size N` first, got '" + std::string(s) + "'");
            const std::string_view n = trim(s.substr(5));
            unsigned v = 0;
            const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
            if (ec != std::errc{} || p != n.data() + n.size() ||
                !warpkit::mem::valid_access_bytes(v))
                throw input_error(line,
                                  "size must be 1, 2, 4, 8 or 16, got '" + std::string(n) + "'");
            a.bytes = v;
            have_size = true;
            continue;
        }
        if (lane == warp) throw input_error(line, "more than 32 lane lines");
        if (s != "-") {
            std::string_view h = s;
            if (h.size() > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
            std::uint64_t v = 0;
            const auto [p, ec] = std::from_chars(h.data(), h.data() + h.size(), v, 16);
            if (h.empty() || ec != std::errc{} || p != h.data() + h.size())
                throw input_error(line, "lane " + std::to_string(lane) +
                                            ": expected a hex address or '-', got '" +
                                            std::string(s) + "'");
            if (v % a.bytes != 0)
                throw input_error(line, "lane " + std::to_string(lane) + ": address " +
                                            std::string(s) + " is not aligned to " +
                                            std::to_string(a.bytes) + " bytes");
            a.addr[lane] = v;
            a.active.set(lane);
        }
        ++lane;
    }
    if (!have_size) throw input_error(line + 1, "end of input: expected `size N`");
    return a;
}

template <class C>
warpkit::mem::transaction_list<warp> run(const warp_access& a) {
    warpkit::mem::transaction_list<warp> out;
    C{}.coalesce(a.addr, a.bytes, a.active, out);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"Coalesce one warp access read from stdin into memory transactions"};
    std::string arch = "fermi";
    app.add_option("--arch", arch, "coalescing rules: cc13, fermi (128-B lines) or sector (32 B)")
        ->check(CLI::IsMember({"cc13", "fermi", "sector"}));
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    try {
        const warp_access a = read_access(std::cin);
        const auto out = arch == "cc13"    ? run<warpkit::mem::cc13_coalescer>(a)
                         : arch == "fermi" ? run<warpkit::mem::fermi_coalescer>(a)
                                           : run<warpkit::mem::sector_coalescer>(a);
        for (const auto& t : out)
            std::printf("0x%llx %u\n", static_cast<unsigned long long>(t.addr), t.size);
        std::printf("transactions %zu\n", out.size());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warpkit-coalesce: error: %s\n", e.what());
        return 2;
    }
}
