// warpkit-coalesce: reads one warp memory access from standard input and prints the memory
// transactions a coalescer makes of it.
//
// Input:  `size N` (bytes per lane: 1, 2, 4, 8 or 16), then one line per lane (lane 0 first,
//         at most 32) holding a hex address (0x prefix optional) or `-` for an inactive lane;
//         lanes without a line are inactive. Blank lines and `#` comments are ignored.
// Output: one line `0xADDR SIZE` per transaction in issue order, then `transactions K`.
#include "access_reader.hpp"

#include "../common/command_line.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/mem/sector_coalescer.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

namespace {

constexpr std::size_t warp = example::coalesce_warp;
using example::warp_access;

template <class C>
warpkit::mem::transaction_list<warp> run(const warp_access& a) {
    warpkit::mem::transaction_list<warp> out;
    C{}.coalesce(a.addr, a.bytes, a.active, out);
    return out;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"Coalesce one warp access read from stdin into memory transactions"};
    std::string arch = "fermi";
    app.add_option("--arch", arch, "coalescing rules: cc13, fermi (128-B lines) or sector (32 B)")
        ->check(CLI::IsMember({"cc13", "fermi", "sector"}));
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    if (const auto code = example::refuse_terminal_input("warpkit-coalesce", "an access file"))
        return *code;
    try {
        const warp_access a = example::read_access(std::cin);
        const auto out = arch == "cc13"    ? run<warpkit::mem::cc13_coalescer>(a)
                         : arch == "fermi" ? run<warpkit::mem::fermi_coalescer>(a)
                                           : run<warpkit::mem::sector_coalescer>(a);
        for (const auto& t : out)
            std::printf("0x%llx %u\n", static_cast<unsigned long long>(t.addr), t.size);
        std::printf("transactions %zu\n", out.size());
        return 0;
    } catch (const warpkit::error& e) {
        std::fprintf(stderr, "warpkit-coalesce: error: %s\n", e.what());
        return 2;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-coalesce", [&] { return tool_main(argc, argv); });
}
