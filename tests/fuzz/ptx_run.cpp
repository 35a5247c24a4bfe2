// Fuzz target: PTX kernels executed, functionally and timed.
//
// The input is PTX text. Every entry of a module that parses (the first two) is prepared and
// launched: 2 blocks of 32 or 64 threads (by the input's size), each 8-byte parameter a
// pointer to its own 16 KiB buffer, smaller ones the value 48. Device memory checks every
// global access against the buffers and the module's `.global` variables. The run goes
// functionally (bounded warp instructions) and on two SMs of amoeba_48 (its mesh with
// one-packet ejection queues and the credit law checked every cycle; short watchdog).
// Every run ends by completing or by a warpkit::error (fault, stray access, watchdog); nothing
// else may escape. Laws: an entry is found by its own name, and by its demangled signature
// unless another entry has the same one; a completed run finished every block; no SM's
// register storage outgrows its warp slots; the mesh's credit law holds in every cycle.
#include "fuzz.hpp"

#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit;

constexpr std::uint64_t buffer_bytes = 16384;

// Device memory with one buffer per pointer-sized parameter, and the packed parameters.
std::vector<std::uint8_t> arguments(const ptx::kernel& k, func::global_memory& mem) {
    ptx::param_pack pack(k);
    std::uint64_t next = 0x1000'0000;
    for (const auto& p : k.params()) {
        if (p.bytes == 8) {
            mem.allocate(next, buffer_bytes, p.name);
            pack.add(next);
            next += 2 * buffer_bytes;
        } else {
            std::vector<std::uint8_t> raw(p.bytes, 0);
            if (!raw.empty()) raw[0] = 48;
            pack.add_bytes(raw);
        }
    }
    return pack.bytes();
}

void run_entry(const ptx::module& m, const ptx::function& f, std::uint32_t threads) {
    // Names: the entry's own name finds it; so does its demangled signature, unless it is
    // shared (find then refuses to pick).
    WARPKIT_FUZZ_LAW(m.find(f.name) == &f);
    const std::string sig = ptx::module::demangle(f.name);
    if (!sig.empty()) {
        const ptx::function* by_sig = m.find(sig);
        WARPKIT_FUZZ_LAW(by_sig == nullptr || ptx::module::demangle(by_sig->name) == sig);
    }
    std::optional<ptx::kernel> k;
    if (!fuzz::expect_errors([&] { k.emplace(m, f.name); })) return;
    func::global_memory mem;
    mem.check_bounds(true);
    std::optional<ptx::launch> l;
    if (!fuzz::expect_errors([&] {
            func::load_globals(*k, mem);
            l.emplace(*k, ptx::dim3{2, 1, 1}, ptx::dim3{threads, 1, 1}, arguments(*k, mem));
        }))
        return;

    func::global_memory functional = mem;
    func::ptx_functional_params fp;
    fp.max_warp_instructions = 20000;
    func::ptx_source_stats fs;
    if (fuzz::expect_errors([&] { fs = func::run_functional(*l, functional, fp); }))
        WARPKIT_FUZZ_LAW(fs.blocks == l->blocks());

    auto p = gpu::amoeba_48::params();
    p.sms = 2;
    p.watchdog_cycles = 500;
    p.max_cycles = 20000;
    p.memory.noc.mesh.eject_queue_packets = 1;
    p.memory.noc.mesh.check_credits = true;
    gpu::run_stats rs;
    bool storage_ok = true;
    bool credits_ok = true;
    const bool done = fuzz::expect_errors([&] {
        try {
            gpu::gpu<gpu::amoeba_48> g(p);
            rs = g.run(*l, mem, [&](const auto& sm) {
                const auto& src = sm.source();
                storage_ok =
                    storage_ok && src.storage_bytes() <= p.sm.contexts() * src.warp_storage_bytes();
            });
        } catch (const sim_error& e) {
            credits_ok = std::string_view(e.what()).find("credit law") == std::string_view::npos;
            throw;
        }
    });
    WARPKIT_FUZZ_LAW(credits_ok);
    if (!done) return;
    WARPKIT_FUZZ_LAW(rs.total.blocks_completed == l->blocks());
    WARPKIT_FUZZ_LAW(storage_ok);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ptx::module m;
    if (!fuzz::expect_errors([&] { m = ptx::parse_ptx(fuzz::as_text(data, size), "<fuzz>"); }))
        return 0;
    std::size_t entries = 0;
    for (const auto& f : m.functions) {
        if (!f.entry) continue;
        if (++entries > 2) break;
        run_entry(m, f, size % 2 == 0 ? 32 : 64);
    }
    return 0;
}
