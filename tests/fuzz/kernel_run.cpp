// Fuzz target: whole-kernel execution of warpkit-ISA programs on a small GPU.
//
// The input is assembler text; what does not assemble or is not a runnable kernel (a
// config_error from isa_kernel) is skipped. A kernel that does runs functionally (bounded
// warp instructions) and timed on a two-SM GPU (bounded cycles, short watchdog): odd input
// sizes on the Fermi preset (memory hierarchy, GTO, PDOM stack), even ones on the Tesla
// preset (ideal memory, round robin, SSY stack); sizes of 3 mod 4 also run with 64-thread
// warps on fused AMOEBA SMs that split at any divergent warp (direct split or regrouping,
// by the size's third bit). Every run ends, by completing or by a
// warpkit::error (kernel fault, watchdog, deadlock, max_cycles, a launch that cannot fit);
// nothing else may escape. Laws: a completed timed run finished every block within
// max_cycles; a completed functional run ran every block within its instruction budget; a
// completed split run lost no warp or cut part and keeps every conservation identity; the
// split runs' mesh (one-packet ejection queues) keeps its credit law in every cycle.
#include "fuzz.hpp"

#include <warpkit/func/isa_functional.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/invariants.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/simt/pdom_stack.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace {

using namespace warpkit;

constexpr std::uint64_t max_cycles = 20000;
constexpr std::uint64_t watchdog_cycles = 500;
constexpr std::uint64_t max_warp_instructions = 20000;

template <class Preset>
gpu::gpu_params small(gpu::gpu_params p = Preset::params()) {
    p.sms = 2;
    p.cluster_size = 1;
    p.watchdog_cycles = watchdog_cycles;
    p.max_cycles = max_cycles;
    return p;
}

template <class Preset>
void run_timed(const func::isa_kernel& k, const gpu::gpu_params& p = small<Preset>()) {
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::run_stats rs;
    bool sm_ok = true;
    bool credits_ok = true;
    const bool done = fuzz::expect_errors([&] {
        try {
            gpu::gpu<Preset> g(p);
            rs = g.run(k, mem, [&](const auto& sm) { sm_ok = sm_ok && gpu::check_sm(sm).ok(); });
        } catch (const sim_error& e) {
            credits_ok = std::string_view(e.what()).find("credit law") == std::string_view::npos;
            throw;
        }
    });
    WARPKIT_FUZZ_LAW(credits_ok);
    if (!done) return;
    WARPKIT_FUZZ_LAW(rs.cycles <= max_cycles);
    WARPKIT_FUZZ_LAW(rs.total.blocks_completed == k.blocks());
    WARPKIT_FUZZ_LAW(rs.per_sm.size() == p.sms);
    WARPKIT_FUZZ_LAW(rs.total.warps_finished == rs.total.warps_started);
    WARPKIT_FUZZ_LAW(sm_ok);
    WARPKIT_FUZZ_LAW(gpu::check_run(rs, {k.blocks(), p.sms}).ok());
}

// The program as a kernel of 64-thread warps on two fused AMOEBA SMs that split at the
// first divergent warp.
void run_split(const isa::program& prog, bool regroup) {
    std::optional<func::isa_kernel> k;
    if (!fuzz::expect_errors([&] { k.emplace(prog, 64); })) return;
    auto p = small<gpu::amoeba_48_fused>();
    p.sm.split.mode = regroup ? reconfig::split_mode::regroup : reconfig::split_mode::direct;
    p.sm.split.threshold = 0.0;
    p.sm.split.check_interval = 8;
    // The mesh under back-pressure: one-packet ejection queues at every node, and the
    // credit law checked after every network cycle.
    p.memory.noc.mesh.eject_queue_packets = 1;
    p.memory.noc.mesh.check_credits = true;
    run_timed<gpu::amoeba_48_fused>(*k, p);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    isa::program prog;
    if (!fuzz::expect_errors([&] { prog = isa::assemble(fuzz::as_text(data, size), "<fuzz>"); }))
        return 0;
    std::optional<func::isa_kernel> k;
    if (!fuzz::expect_errors([&] { k.emplace(prog); })) return 0;

    func::isa_functional_params fp;
    fp.max_warp_instructions = max_warp_instructions;
    func::global_memory mem;
    func::load_data(*k, mem);
    func::isa_functional_stats fs;
    if (fuzz::expect_errors([&] { fs = func::run_functional<32>(*k, mem, fp); })) {
        WARPKIT_FUZZ_LAW(fs.blocks == k->blocks());
        WARPKIT_FUZZ_LAW(fs.warp_instructions <= max_warp_instructions);
    }

    if (size % 2 == 1)
        run_timed<gpu::fermi_gtx480>(*k);
    else
        run_timed<gpu::tesla_seed004>(*k);
    if (size % 4 == 3) run_split(prog, (size & 4) != 0);
    return 0;
}
