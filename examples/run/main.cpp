// warpkit-run: runs one kernel to completion on a GPU preset and reports what happened.
//
//   warpkit-run --preset P --kernel file.s|file.hex            a warpkit-ISA kernel
//   warpkit-run --preset P --ptx file.ptx --entry NAME --launch launch.json
//               [--registers-per-thread N | --ptxas PATH|off] [--no-bounds-check]
//                                                              a PTX kernel (host launch file)
//   warpkit-run --ptx file.ptx --entry NAME --launch launch.json --write-trace DIR
//                                                              no timing: the run as an
//                                                              Accel-Sim trace in DIR
//   warpkit-run --ptx file.ptx --list-entries                  the file's kernels
//   warpkit-run --trace kernelslist.g [--kernels FILTER] [--sass-family F] [--opcodes FILE]
//                                                              the kernels of an Accel-Sim
//                                                              trace, in order (trace.cpp)
//   warpkit-run --ptx file.ptx --check [--entry NAME]          parse and prepare, run nothing
//   common: [--config params.json] [--set key=value]... [--max-device-mb N] [--json stats.json]
//           [--print-params] [--quiet] [--progress]
//           a progress line (blocks done of the grid, ETA) on stderr when it is a terminal:
//           --quiet hides it, --progress shows it on a file or pipe too
//   warpkit-run --list-presets                                 the presets, a line each
//   warpkit-run [--preset P] [--config F] [--set k=v]... --dump-params
//                                                              the parameters as JSON, no run
#include "../common/command_line.hpp"
#include "../common/gpu_runner.hpp"
#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/ptxas_registers.hpp"
#include "../common/tool_main.hpp"
#include "report.hpp"
#include "trace.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/accelsim_trace_writer.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/parser.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace wk = warpkit;

// Prints every `.entry` of the file: its name, demangled signature and parameters.
void list_entries(const std::string& ptx_file) {
    const auto m = wk::ptx::read_ptx(ptx_file);
    std::size_t n = 0;
    for (const auto& f : m.functions) {
        if (!f.entry) continue;
        ++n;
        const std::string d = wk::ptx::module::demangle(f.name);
        std::printf("%s%s%s  (%zu parameters, %u bytes)\n", f.name.c_str(), d.empty() ? "" : "  ",
                    d.c_str(), f.params.size(), f.param_bytes());
    }
    std::fprintf(stderr, "%s: %zu entries\n", ptx_file.c_str(), n);
}

// Registers per thread: --registers-per-thread when given, else ptxas's count for each entry
// where ptxas is found (`ptxas` names it, "off" turns it off), else the liveness estimate.
struct register_counts {
    std::uint32_t given = 0;
    std::map<std::string, std::uint32_t> ptxas;
    std::string target;

    register_counts(const std::string& ptx_file, const wk::ptx::kernel_options& opt,
                    const std::string& ptxas_setting)
        : given(opt.regs_per_thread) {
        if (given != 0) return;
        const std::string ptxas_path = example::find_ptxas(ptxas_setting);
        if (ptxas_path.empty()) {
            if (!ptxas_setting.empty() && ptxas_setting != "off" && ptxas_setting != "0")
                throw wk::error("--ptxas: no program at '" + ptxas_setting + "'");
            return;
        }
        auto r = example::ptxas_registers(ptxas_path, wk::read_file(ptx_file));
        if (!r.error.empty())
            std::cerr << "warpkit-run: " << r.error << "; registers per thread are the liveness "
                      << "estimate\n";
        ptxas = std::move(r.registers);
        target = r.target;
    }
    // `opt` with the count for `entry`, and where the count came from.
    [[nodiscard]] std::pair<wk::ptx::kernel_options, std::string>
    for_entry(const std::string& entry, wk::ptx::kernel_options opt) const {
        if (given != 0) return {opt, "--registers-per-thread"};
        const auto it = ptxas.find(entry);
        if (it == ptxas.end()) return {opt, "estimate"};
        opt.regs_per_thread = it->second;
        return {opt, "ptxas " + target};
    }
};

// Parses the file and prepares `entry` (every entry when empty) as a launch would.
void check_ptx(const std::string& ptx_file, const std::string& entry,
               const wk::ptx::kernel_options& opt, const std::string& ptxas) {
    const auto m = wk::ptx::read_ptx(ptx_file);
    const register_counts counts(ptx_file, opt, ptxas);
    std::size_t n = 0;
    for (const auto& f : m.functions) {
        if (!f.entry || (!entry.empty() && m.find(entry) != &f)) continue;
        const auto [o, source] = counts.for_entry(f.name, opt);
        const wk::ptx::kernel k(m, f.name, o);
        ++n;
        std::printf("%s: %zu instructions, %u registers per thread (%s; %u live at most), %u "
                    "bytes of shared and %u of local memory per thread\n",
                    f.name.c_str(), k.size(), k.regs_per_thread(), source.c_str(),
                    k.max_live_registers(), k.static_shared_bytes(), k.local_bytes());
    }
    if (!entry.empty() && n == 0) (void)wk::ptx::kernel(m, entry, opt); // names the entries
    std::printf("%s: parsed; %zu %s prepared\n", ptx_file.c_str(), n, n == 1 ? "entry" : "entries");
}

// Runs a PTX entry functionally as its launch file describes and writes the run as an
// Accel-Sim trace in `dir`: kernelslist.g (a MemcpyHtoD line for each buffer the launch file
// fills, then the kernel's trace) and kernel-1.traceg (func::write_accelsim_trace: PTX opcodes,
// 32-thread warps).
void write_trace(const std::string& preset, const std::string& ptx_file, const std::string& entry,
                 const std::string& launch_file, const std::string& dir,
                 const wk::ptx::kernel_options& opt, std::uint64_t memory_cap) {
    const auto m = wk::ptx::read_ptx(ptx_file);
    const auto spec = wk::host::read_launch(launch_file);
    wk::host::device dev(preset, {});
    dev.set_memory_cap(memory_cap);
    const auto k = dev.prepare(m, entry, opt);
    const auto bufs = wk::host::allocate(dev, spec);
    const wk::ptx::launch l(k, spec.grid, spec.block, wk::host::pack(k, spec, bufs),
                            spec.shared_bytes);
    const std::filesystem::path folder(dir);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) throw wk::error("cannot write '" + dir + "': " + ec.message());
    std::ofstream list = example::open_output_file(folder / "kernelslist.g");
    std::ofstream trace = example::open_output_file(folder / "kernel-1.traceg");
    for (std::size_t i = 0; i < spec.buffers.size(); ++i) {
        if (spec.buffers[i].init.kind == wk::host::init_kind::zeros) continue;
        const auto& b = bufs.list[i].second;
        char line[96];
        std::snprintf(line, sizeof line, "MemcpyHtoD,0x%016llx,%llu\n",
                      static_cast<unsigned long long>(b.address),
                      static_cast<unsigned long long>(b.bytes));
        list << line;
    }
    list << "kernel-1.traceg\n";
    const auto st = wk::func::write_accelsim_trace(l, dev.memory(), trace);
    list.close();
    trace.close();
    if (!list || !trace) throw wk::error("cannot write the trace in '" + dir + "'");
    wk::host::write_outputs(dev, spec, bufs);
    std::printf("%s: wrote %s/kernelslist.g and kernel-1.traceg (%u blocks, %llu warp "
                "instructions)\n",
                k.name().c_str(), dir.c_str(), l.blocks(),
                static_cast<unsigned long long>(st.warp_instructions));
}

// Runs a PTX entry as its launch file describes; prints a summary, optionally writes JSON
// (`record`: its header) to `json_out`.
void run_ptx(const std::string& preset, const std::string& ptx_file, const std::string& entry,
             const std::string& launch_file, const std::vector<std::string>& overrides,
             const std::string& json_out, nlohmann::json j, bool print_params,
             const wk::ptx::kernel_options& opt, const std::string& ptxas, bool bounds_check,
             std::uint64_t memory_cap, example::progress_line& progress) {
    const auto m = wk::ptx::read_ptx(ptx_file);
    const auto spec = wk::host::read_launch(launch_file);
    wk::host::device dev(preset, overrides);
    dev.check_bounds(bounds_check);
    dev.set_memory_cap(memory_cap);
    const auto* function = m.find(entry);
    const auto [entry_opt, register_source] =
        register_counts(ptx_file, opt, ptxas).for_entry(function ? function->name : entry, opt);
    const auto k = dev.prepare(m, entry, entry_opt);
    std::cerr << "running " << ptx_file << " entry " << k.name() << " on " << preset << " (grid "
              << spec.grid.x << "x" << spec.grid.y << "x" << spec.grid.z << ", block "
              << spec.block.x << "x" << spec.block.y << "x" << spec.block.z << ", "
              << k.regs_per_thread() << " registers per thread, " << register_source << ")\n";
    if (progress.enabled()) {
        const std::uint64_t blocks =
            std::uint64_t{spec.grid.x} * std::uint64_t{spec.grid.y} * std::uint64_t{spec.grid.z};
        progress.stage(k.name() + " on " + preset);
        // The device keeps the callback for the launch below: capture `blocks` by value.
        dev.sample(example::progress_sample_cycles,
                   [&progress, blocks](std::uint64_t cycle,
                                       std::span<const wk::gpu::sm_counters> sms, bool) {
                       example::show_blocks(progress, cycle, example::blocks_completed(sms),
                                            blocks);
                   });
    }
    const auto r = wk::host::run_launch(dev, k, spec);
    progress.finish();
    if (print_params) std::cout << wk::params_to_text(dev.params()) << '\n';
    run_report::print(k.name(), preset, dev.params().core_mhz, r);
    if (json_out.empty()) return;
    j["kernel"] = ptx_file;
    j["entry"] = k.name();
    j["preset"] = preset;
    run_report::add_fields(j, r);
    j["registers_per_thread"] = k.regs_per_thread();
    j["register_source"] = register_source;
    nlohmann::json ops = nlohmann::json::object();
    for (std::size_t i = 0; i < r.ptx.warp_by_opcode.size(); ++i)
        if (r.ptx.warp_by_opcode[i] != 0)
            ops[std::string(wk::ptx::name(static_cast<wk::ptx::op>(i)))] = {
                {"warp", r.ptx.warp_by_opcode[i]}, {"thread", r.ptx.thread_by_opcode[i]}};
    j["by_opcode"] = ops;
    j["params"] = wk::params_to_json(dev.params());
    example::write_json_file(json_out, j);
}

// --trace and the options that go with it; returns --trace.
CLI::Option* add_trace_options(CLI::App& app, run_trace::options& trace) {
    auto* trace_list = app.add_option("--trace", trace.list,
                                      "an Accel-Sim trace's kernelslist.g: run its kernels in "
                                      "order (SASS opcodes of the family its -binary version "
                                      "names, or the PTX ones --write-trace writes)");
    app.add_option("--kernels", trace.kernels,
                   "with --trace: run only these kernels: names (mangled or plain) and launch "
                   "indices or ranges counted from 0 in the list, e.g. 0,3-5 (as warpkit-cuda)")
        ->needs(trace_list);
    app.add_option("--sass-family", trace.family,
                   "with --trace: the opcode table (kepler, pascal, volta, turing, ampere, ptx) "
                   "instead of the one each trace's header names")
        ->needs(trace_list);
    app.add_option("--opcodes", trace.opcodes,
                   "with --trace: an opcode table file, 'OPCODE kind' lines, for opcodes the "
                   "family's table lacks (kinds: int, fp, sfu, ldst, branch, ctrl, load_global, "
                   "store_shared, atomic_global, barrier, exit...)")
        ->needs(trace_list);
    return trace_list;
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-run: run a kernel on a warpkit GPU preset"};
    example::preset_options presets;
    std::string kernel;
    std::string ptx_file;
    std::string entry;
    std::string launch_file;
    std::string json_out;
    bool print_params = false;
    example::progress_options progress_flags;
    presets.add_to(app);
    auto* isa =
        app.add_option("--kernel", kernel, "warpkit-ISA kernel: assembly (.s) or image (.hex)");
    auto* ptx = app.add_option("--ptx", ptx_file, "PTX file (nvcc -ptx output)");
    app.add_option("--entry", entry,
                   "the PTX entry: its mangled name, demangled signature, qualified name "
                   "(ns::kernel<float> or ns::kernel) or plain name")
        ->needs(ptx);
    app.add_option("--launch", launch_file,
                   "launch file (JSON: grid, block, buffers, params, outputs)")
        ->needs(ptx);
    bool list = false;
    bool check = false;
    bool no_bounds_check = false;
    std::string trace_dir;
    wk::ptx::kernel_options opt;
    app.add_flag("--list-entries", list, "list the PTX file's entries and exit")->needs(ptx);
    app.add_flag("--check", check,
                 "parse the PTX file and prepare its entries (or --entry), run nothing")
        ->needs(ptx);
    std::string ptxas;
    auto* regs = app.add_option("--registers-per-thread", opt.regs_per_thread,
                                "registers per thread for occupancy (as nvcc -maxrregcount; "
                                "default: ptxas's count for sm_75 where the CUDA toolkit is "
                                "installed, else estimated from the PTX's liveness)")
                     ->needs(ptx)
                     ->check(CLI::Range(1, 255));
    app.add_option("--ptxas", ptxas,
                   "the ptxas that counts registers per thread (default: from PATH or "
                   "/usr/local/cuda/bin; 'off': the liveness estimate)")
        ->needs(ptx)
        ->excludes(regs);
    app.add_flag("--no-bounds-check", no_bounds_check,
                 "do not check global accesses against the launch file's buffers (faster)")
        ->needs(ptx);
    app.add_option("--write-trace", trace_dir,
                   "no timing: run the kernel functionally and write it as an Accel-Sim trace "
                   "(kernelslist.g, kernel-1.traceg; PTX opcodes) in this folder")
        ->needs(ptx);
    run_trace::options trace;
    auto* trace_list = add_trace_options(app, trace);
    app.add_option("--json", json_out, "write params and stats as JSON to this file");
    app.add_flag("--print-params", print_params, "print the preset's parameters");
    example::add_progress_flags(app, progress_flags);
    isa->excludes(ptx);
    trace_list->excludes(ptx)->excludes(isa);
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;

    try {
        example::progress_line progress("warpkit-run", progress_flags);
        if (presets.print_requested(std::cout)) return 0;
        const std::string& preset = presets.preset;
        const std::vector<std::string> overrides = presets.settings();
        if (!trace.list.empty()) {
            trace.preset = preset;
            trace.overrides = overrides;
            trace.json_out = json_out;
            trace.print_params = print_params;
            run_trace::run(trace, example::record_header("warpkit-run", argc, argv), progress);
            return 0;
        }
        if (!ptx_file.empty()) {
            if (list) {
                list_entries(ptx_file);
                return 0;
            }
            if (check) {
                check_ptx(ptx_file, entry, opt, ptxas);
                return 0;
            }
            if (entry.empty() || launch_file.empty())
                throw wk::error("--ptx needs --entry NAME and --launch FILE (or --list-entries "
                                "or --check)");
            if (!trace_dir.empty()) {
                write_trace(preset, ptx_file, entry, launch_file, trace_dir, opt,
                            presets.memory_cap());
                return 0;
            }
            run_ptx(preset, ptx_file, entry, launch_file, overrides, json_out,
                    example::record_header("warpkit-run", argc, argv), print_params, opt, ptxas,
                    !no_bounds_check, presets.memory_cap(), progress);
            return 0;
        }
        if (kernel.empty())
            throw wk::error("give --kernel FILE, --ptx FILE or --trace kernelslist.g (see --help)");
        wk::func::isa_kernel k(example::load_program(kernel), wk::gpu::preset_warp_size(preset));
        wk::func::global_memory mem;
        presets.limit(mem);
        wk::func::load_data(k, mem);
        std::cerr << "running " << kernel << " on " << preset << " (" << k.blocks() << " blocks of "
                  << k.threads_per_block() << " threads)\n";
        progress.stage(kernel + " on " + preset);
        const auto r = example::run_preset(preset, k, mem, overrides, &progress);
        progress.finish();
        if (print_params) std::cout << wk::params_to_text(r.params) << '\n';
        std::cout << example::report(kernel, r);
        if (!json_out.empty()) {
            auto j = example::record_header("warpkit-run", argc, argv);
            j.update(example::to_json(kernel, r));
            example::write_json_file(json_out, j);
        }
    } catch (const wk::error& e) {
        std::cerr << "warpkit-run: " << e.what() << '\n';
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-run", [&] { return tool_main(argc, argv); });
}
