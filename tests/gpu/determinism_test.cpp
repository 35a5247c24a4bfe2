// Determinism: the same kernel on the same preset gives byte-identical stats JSON and device
// memory every time it runs (fresh GPU and memory each time), on every preset the registry
// knows, and whatever the number of threads the SMs tick on; the conservation identities of
// gpu/invariants.hpp hold for those runs and catch a counter that does not add up.
#include <warpkit/core/json.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/gpu/invariants.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include "../build_kind.hpp"
#include "../source_dir.hpp"
#include "bundled_kernels.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace warpkit;

namespace {

// Small bundled kernels that together reach loads, stores, atomics, shared memory, barriers,
// divergence and the SFU.
const std::vector<std::string> kernels = {"vadd.s", "reduce.s", "histogram.s", "sfu.s"};

struct outcome {
    std::string stats;           // stats_to_json(run_stats), dumped
    func::global_memory memory;  // device memory afterwards
    gpu::invariant_report check; // conservation identities of the run
};

template <class Preset>
outcome run_once(const gpu::gpu_params& p, const isa::program& prog) {
    const func::isa_kernel k(prog, static_cast<std::uint32_t>(Preset::warp_size));
    outcome o;
    func::load_data(k, o.memory);
    gpu::gpu<Preset> g(p);
    gpu::invariant_report units;
    const auto rs = g.run(k, o.memory, [&](const auto& sm) { units.merge(gpu::check_sm(sm)); });
    o.stats = stats_to_json(rs).dump();
    o.check = gpu::check_run(rs, {k.blocks(), p.sms});
    o.check.merge(units);
    return o;
}

outcome run_named(std::string_view preset, const std::string& kernel) {
    const isa::program prog = test::bundled_kernel(kernel);
    return gpu::visit_preset(preset, [&](auto tag) {
        return run_once<typename decltype(tag)::type>(decltype(tag)::params(), prog);
    });
}

} // namespace

TEST_CASE("every preset gives byte-identical stats and memory for the same kernel") {
    for (const auto preset : gpu::preset_names)
        for (const auto& kernel : kernels) {
            CAPTURE(preset);
            CAPTURE(kernel);
            const outcome a = run_named(preset, kernel);
            CHECK(a.stats.size() > 100);
            CHECK_MESSAGE(a.check.ok(), a.check.describe());
            CHECK(a.check.checked() > 20);
            // Under the sanitizers a preset runs its first kernel twice and the others once.
            if (test_build::sanitized && kernel != kernels.front()) continue;
            const outcome b = run_named(preset, kernel);
            CHECK(a.stats == b.stats);
            CHECK(a.memory == b.memory);
        }
}

namespace {

struct threaded_run {
    std::string stats;
    func::global_memory memory;
    unsigned threads = 0;
};

// One bundled CUDA kernel (examples/cuda/NAME.ptx and its launch file) on a GPU of `p`.
template <class Preset>
threaded_run run_ptx(const std::string& name, const gpu::gpu_params& p) {
    const std::string dir = test_files::source_path("examples/cuda") + "/";
    const auto m = ptx::read_ptx(dir + name + ".ptx");
    const auto spec = host::read_launch(dir + name + ".launch.json");
    host::device dev(std::string(Preset::params().name));
    const auto k = dev.prepare(m, name);
    const auto bufs = host::allocate(dev, spec);
    const ptx::launch l(k, spec.grid, spec.block, host::pack(k, spec, bufs), spec.shared_bytes,
                        static_cast<std::uint32_t>(Preset::warp_size));
    gpu::gpu<Preset> g(p);
    threaded_run r;
    r.stats = stats_to_json(g.run(l, dev.memory())).dump();
    r.memory = dev.memory();
    r.threads = g.threads_used();
    return r;
}

} // namespace

TEST_CASE("SMs on 1 to 4 threads: byte-identical stats and device memory") {
    // Loads, stores, shared memory and barriers (sgemm_tiled); global atomics (histogram);
    // threads racing to store to the same words (bfs); warp shuffles and votes (warp_reduce).
    for (const char* name : {"histogram", "bfs", "sgemm_tiled", "warp_reduce"}) {
        CAPTURE(name);
        auto p = gpu::fermi_gtx480::params();
        const threaded_run one = run_ptx<gpu::fermi_gtx480>(name, p);
        CHECK(one.threads == 1);
        for (std::uint32_t t : {2U, 4U}) {
            CAPTURE(t);
            p.threads = t;
            const threaded_run many = run_ptx<gpu::fermi_gtx480>(name, p);
            CHECK(many.threads == t);
            CHECK(many.stats == one.stats);
            CHECK(many.memory == one.memory);
        }
    }
    // More threads than SMs: one per SM.
    auto few = gpu::fermi_gtx480::params();
    few.sms = 2;
    const threaded_run two_sms = run_ptx<gpu::fermi_gtx480>("histogram", few);
    few.threads = 8;
    const threaded_run eight = run_ptx<gpu::fermi_gtx480>("histogram", few);
    CHECK(eight.threads == 2);
    CHECK(eight.stats == two_sms.stats);
    CHECK(eight.memory == two_sms.memory);
}

TEST_CASE("SMs that see each other within a cycle tick on one thread, whatever threads says") {
    // Front-end sharing clusters.
    auto shared = gpu::fermi_gtx480::params();
    shared.sms = 16;
    shared.cluster_size = 2;
    shared.threads = 4;
    CHECK(run_ptx<gpu::fermi_gtx480>("reduce", shared).threads == 1);
    // AMOEBA's dynamic split.
    auto split = gpu::amoeba_48_fused::params();
    split.sm.split.mode = reconfig::split_mode::direct;
    split.threads = 4;
    CHECK(run_ptx<gpu::amoeba_48_fused>("reduce", split).threads == 1);
    // A warpkit-ISA kernel (its executor writes device memory as it executes).
    const func::isa_kernel k(test::bundled_kernel("vadd.s"), 32);
    func::global_memory mem;
    func::load_data(k, mem);
    auto isa = gpu::fermi_gtx480::params();
    isa.threads = 4;
    gpu::gpu<gpu::fermi_gtx480> g(isa);
    static_cast<void>(g.run(k, mem));
    CHECK(g.threads_used() == 1);
}

TEST_CASE("the conservation identities catch a lost or duplicated item") {
    using P = gpu::fermi_gtx480;
    const func::isa_kernel k(test::bundled_kernel("vadd.s"));
    func::global_memory mem;
    func::load_data(k, mem);
    gpu::gpu<P> g(P::params());
    const auto rs = g.run(k, mem);
    const gpu::run_expectation e{k.blocks(), P::params().sms};
    const auto clean = gpu::check_run(rs, e);
    REQUIRE_MESSAGE(clean.ok(), clean.describe());
    CHECK_NOTHROW(gpu::require(clean, "vadd"));

    const auto broken = [&](auto&& tamper) {
        auto copy = rs;
        tamper(copy);
        return !gpu::check_run(copy, e).ok();
    };
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.noc.reply.flits_ejected; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.noc.request.packets_injected; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.sms.at(0).replies_received; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.sms.at(0).l1d.mshr.allocations; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.sms.at(1).prt.entries_written; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.slices.at(0).requests; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.slices.at(0).cache.mshr.merges; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.memory.channels.at(0).read_requests; }));
    CHECK(broken([](gpu::run_stats& s) { s.memory.channels.at(0).reads = 0; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.dispatch.blocks_dispatched; }));
    CHECK(broken([](gpu::run_stats& s) { --s.per_sm.at(0).cycles; }));
    CHECK(broken([](gpu::run_stats& s) { ++s.per_sm.at(2).issued_by_unit[0]; }));
    CHECK(broken([](gpu::run_stats& s) { s.per_sm.pop_back(); }));
    // The launch itself: one block fewer than the run saw.
    CHECK_FALSE(gpu::check_run(rs, {k.blocks() + 1, P::params().sms}).ok());
    auto copy = rs;
    ++copy.memory.noc.request.flits_ejected;
    CHECK_THROWS_AS(gpu::require(gpu::check_run(copy, e), "vadd"), sim_error);
}

TEST_CASE("network and energy identities") {
    noc::network_stats n;
    n.packets_injected = n.packets_ejected = 3;
    n.flits_injected = n.flits_ejected = 7;
    n.nodes.resize(2);
    n.nodes[0].packets_injected = 3;
    n.nodes[0].flits_injected = 7;
    n.nodes[1].packets_ejected = 3;
    n.nodes[1].flits_ejected = 7;
    CHECK(gpu::check_network(n).ok());
    n.nodes[1].flits_ejected = 6;
    CHECK_FALSE(gpu::check_network(n).ok());
    n.nodes[1].flits_ejected = 7;
    n.order_errors = 1;
    CHECK_FALSE(gpu::check_network(n).ok());

    power::power_breakdown b;
    b.cycles = 1000;
    b.seconds = 1e-6;
    b.sms.resize(2);
    for (std::size_t s = 0; s < 2; ++s) {
        b.sms[s].dynamic_w[0] = 1.0 + static_cast<double>(s);
        b.sms[s].leakage_w[0] = 0.5;
        b.dynamic_w[0] += b.sms[s].dynamic_w[0];
        b.leakage_w[0] += b.sms[s].leakage_w[0];
    }
    b.dynamic_w[power::component_count - 1] = 4.0; // a chip-level component
    power::energy_account acc;
    acc.add(b);
    acc.add(b);
    const auto good = gpu::check_energy(acc);
    CHECK_MESSAGE(good.ok(), good.describe());
    b.dynamic_w[0] += 1.0; // the SMs no longer add up to their component
    power::energy_account bad;
    bad.add(b);
    CHECK_FALSE(gpu::check_energy(bad).ok());
}
