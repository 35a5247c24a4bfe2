// warpkit-run --trace: the kernels of an Accel-Sim trace through a preset's timing model. The
// trace SMs (gpu::gpu<P>::sm_for<func::trace_kernel>, one per preset) are instantiated here
// only, so the rest of warpkit-run compiles as fast as before.
#include "trace.hpp"

#include "../common/kernel_filter.hpp"
#include "../common/output.hpp"
#include "report.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/func/accelsim_trace.hpp>
#include <warpkit/func/sass_opcodes.hpp>
#include <warpkit/func/trace_source.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/ptx/ir.hpp>

#if WARPKIT_RUN_COMPRESSED_TRACES
#include <warpkit/func/trace_file.hpp>
#endif

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace run_trace {

namespace {

namespace wk = warpkit;

// The entry name without its mangling ("saxpy" for "_Z5saxpyifPKfPf"), as warpkit-cuda's
// filter matches it.
std::string plain_name(const std::string& mangled) {
    const std::string plain = wk::ptx::module::callable_name(wk::ptx::module::demangle(mangled));
    return plain.empty() ? mangled : plain;
}

// How the kernels' traces are read: the family and extra opcodes given, xz and gzip files
// where the program was built with liblzma and zlib.
wk::func::trace_options trace_options_of(const options& o) {
    wk::func::trace_options t;
    if (!o.family.empty()) {
        t.family = wk::func::sass::family_named(o.family);
        if (!t.family) {
            std::string known;
            for (const auto n : wk::func::sass::family_names)
                known += (known.empty() ? "" : ", ") + std::string(n);
            throw wk::config_error("--sass-family", o.family, known);
        }
    }
    if (!o.opcodes.empty()) {
        std::istringstream in(wk::read_file(o.opcodes));
        t.extra_opcodes = wk::func::sass::read_opcode_table(in, o.opcodes);
    }
#if WARPKIT_RUN_COMPRESSED_TRACES
    t.open = [](const std::string& path) -> std::unique_ptr<std::istream> {
        return std::make_unique<wk::func::trace_file>(path);
    };
#endif
    return t;
}

// One kernel of the list on preset P: fresh SMs, `warm` the memory system that carries over
// (none with the ideal memory).
template <class P>
wk::host::launch_result run_kernel(const wk::func::trace_kernel& k, const wk::gpu::gpu_params& p,
                                   std::optional<wk::gpu::memory_system>& warm,
                                   example::progress_line& progress) {
    using gpu_type = wk::gpu::gpu<P>;
    using sm_type = typename gpu_type::template sm_for<wk::func::trace_kernel>;
    auto run_params = p;
    if (progress.enabled())
        run_params.sample_cycles = std::min(run_params.sample_cycles, example::progress_sample_cycles);
    gpu_type g(run_params);
    if (p.memory.model == wk::gpu::memory_model::hierarchy && !warm)
        warm.emplace(p.memory, p.sms, p.core_mhz);
    wk::func::global_memory mem; // a trace carries its addresses: no data to keep
    wk::host::launch_result r;
    r.preset = p.name;
    const auto show = [&](std::uint64_t cycle, std::span<const sm_type> sms, bool) {
        example::show_blocks(progress, cycle, example::blocks_completed(sms), k.blocks());
    };
    const auto start = std::chrono::steady_clock::now();
    r.run = g.run(
        k, mem,
        [&](const sm_type& sm) {
            r.ptx.warp_instructions += sm.source().stats().warp_instructions;
            r.ptx.thread_instructions += sm.source().stats().thread_instructions;
        },
        progress.enabled() ? typename gpu_type::template sample_hook_for<wk::func::trace_kernel>(show)
                           : nullptr,
        {}, warm ? &*warm : nullptr);
    r.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

} // namespace

void run(const options& o, nlohmann::json record, example::progress_line& progress) {
    std::istringstream list_text(wk::read_file(o.list));
    const auto commands = wk::func::accelsim::read_kernel_list(list_text, o.list);
    const std::filesystem::path folder = std::filesystem::path(o.list).parent_path();
    const example::kernel_filter filter(o.kernels);
    const auto base_options = trace_options_of(o);
    nlohmann::json kernels = nlohmann::json::array();
    wk::gpu::visit_preset(o.preset, [&](auto tag) {
        using P = typename decltype(tag)::type;
        auto p = decltype(tag)::params();
        wk::apply_overrides(p, o.overrides);
        wk::validate(p);
        if (o.print_params) std::cout << wk::params_to_text(p) << '\n';
        record["params"] = wk::params_to_json(p);
        auto topt = base_options;
        topt.timing_registers =
            wk::gpu::gpu<P>::template sm_for<wk::func::trace_kernel>::tracked_registers;
        std::optional<wk::gpu::memory_system> warm;
        std::uint64_t launch = 0;
        for (const auto& c : commands) {
            if (c.what != wk::func::accelsim::command::kind::kernel) continue;
            const std::uint64_t index = launch++;
            const wk::func::trace_kernel k((folder / c.trace).string(), topt);
            const auto& h = k.header();
            if (!filter.timed(h.name, plain_name(h.name), index)) continue;
            std::cerr << "running " << c.trace << " (launch " << index << ", " << h.name
                      << ") on " << o.preset << " (grid " << h.grid.x << "x" << h.grid.y << "x"
                      << h.grid.z << ", block " << h.block.x << "x" << h.block.y << "x"
                      << h.block.z << ", " << k.regs_per_thread() << " registers per thread, "
                      << wk::func::sass::name(k.family()) << " opcodes)\n";
            progress.stage(plain_name(h.name) + " on " + o.preset);
            const auto r = run_kernel<P>(k, p, warm, progress);
            progress.finish();
            run_report::print(plain_name(h.name), o.preset, p.core_mhz, r);
            nlohmann::json j;
            j["trace"] = c.trace;
            j["launch"] = index;
            j["kernel"] = h.name;
            j["kernel_id"] = h.id;
            j["sass_family"] = std::string(wk::func::sass::name(k.family()));
            j["preset"] = o.preset;
            run_report::add_fields(j, r);
            kernels.push_back(std::move(j));
        }
    });
    if (kernels.empty())
        std::cerr << "warpkit-run: no kernel of " << o.list << " passed --kernels '" << o.kernels
                  << "'\n";
    if (o.json_out.empty()) return;
    record["list"] = o.list;
    record["kernels"] = std::move(kernels);
    example::write_json_file(o.json_out, record);
}

} // namespace run_trace
