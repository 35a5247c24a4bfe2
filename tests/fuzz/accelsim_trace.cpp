// Fuzz target: the Accel-Sim trace readers (func::accelsim::read_kernel_list and
// kernel_trace_reader), on the same text as a kernel list and as a kernel trace.
//
// Laws on everything that reads: every command's line lies inside the text; every thread
// block lies inside the grid and holds distinct warps of the block; every instruction names
// an opcode the reader knows, at most 8 registers each way, no lane outside its warp's
// threads, and exactly one address per active lane for a memory access, inside the block's
// addresses; a block appears once.
#include "fuzz.hpp"

#include <warpkit/func/accelsim_trace.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>

namespace {

using namespace warpkit::func::accelsim;

std::size_t lines_of(std::string_view text) {
    std::size_t n = 1;
    for (const char c : text)
        n += c == '\n' ? 1 : 0;
    return n;
}

void check_block(const kernel_trace_reader& r, const block_trace& b) {
    const kernel_header& h = r.header();
    WARPKIT_FUZZ_LAW(b.index.x < h.grid.x && b.index.y < h.grid.y && b.index.z < h.grid.z);
    std::set<std::uint32_t> warps;
    std::size_t addresses = 0;
    for (const auto& w : b.warps) {
        WARPKIT_FUZZ_LAW(w.warp < h.warps_per_block());
        WARPKIT_FUZZ_LAW(warps.insert(w.warp).second);
        const std::uint64_t threads = h.block.count() - std::uint64_t{w.warp} * 32;
        for (const auto& i : w.instructions) {
            WARPKIT_FUZZ_LAW(i.opcode < r.opcodes().size());
            WARPKIT_FUZZ_LAW(i.dst_count <= max_trace_registers);
            WARPKIT_FUZZ_LAW(i.src_count <= max_trace_registers);
            WARPKIT_FUZZ_LAW(threads >= 32 || (i.mask >> threads) == 0);
            if (i.mem_width == 0) continue;
            WARPKIT_FUZZ_LAW(i.first_address == addresses);
            addresses += static_cast<std::size_t>(std::popcount(i.mask));
            WARPKIT_FUZZ_LAW(addresses <= b.addresses.size());
        }
    }
    WARPKIT_FUZZ_LAW(addresses == b.addresses.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(warpkit::fuzz::as_text(data, size));
    const std::size_t lines = lines_of(text);
    {
        std::istringstream in(text);
        std::vector<command> commands;
        if (warpkit::fuzz::expect_errors([&] { commands = read_kernel_list(in, "list"); }))
            for (const auto& c : commands)
                WARPKIT_FUZZ_LAW(c.line >= 1 && c.line <= lines);
    }
    std::istringstream in(text);
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> seen;
    warpkit::fuzz::expect_errors([&] {
        kernel_trace_reader r(in, "trace");
        block_trace b;
        while (r.next_block(b)) {
            check_block(r, b);
            WARPKIT_FUZZ_LAW(seen.emplace(b.index.x, b.index.y, b.index.z).second);
        }
    });
    return 0;
}
