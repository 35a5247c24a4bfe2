// warpkit-demo: the bundled kernels on a GPU preset (default: the GTX480-class Fermi). Each
// kernel runs through the timing model; its device memory afterwards is compared with a
// functional run of the same kernel, and a short report per kernel follows. --csv FILE writes
// the table as CSV, a row per kernel.
#include "../common/command_line.hpp"
#include "../common/gpu_runner.hpp"
#include "../common/kernel_dir.hpp"
#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/gpu/preset_registry.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-demo: bundled kernels on a warpkit GPU preset"};
    example::preset_options presets;
    std::string dir; // empty: the bundled examples/kernels
    presets.add_to(app);
    std::string csv_file;
    app.add_option("--kernels", dir,
                   "directory of kernel assembly files (*.s; default: the bundled "
                   "examples/kernels)");
    app.add_option("--csv", csv_file, "write the table as CSV (a row per kernel) to this file");
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;

    try {
        if (presets.print_requested(std::cout)) return 0;
        const std::string& preset = presets.preset;
        const std::vector<std::string> overrides = presets.settings();
        const std::vector<std::string> files = example::assembly_files(dir);

        std::printf("warpkit-demo: %zu kernels on %s\n\n", files.size(), preset.c_str());
        std::printf("%-12s %7s %9s %9s %7s %8s  %s\n", "kernel", "blocks", "warp-ins", "cycles",
                    "IPC", "us", "result");
        std::ofstream csv;
        if (!csv_file.empty()) {
            csv = example::open_output_file(csv_file);
            csv.precision(10);
            csv << "kernel,preset,blocks,warp_instructions,thread_instructions,cycles,ipc_warp,"
                   "ipc_thread,microseconds,matches_functional\n";
        }
        std::string details;
        bool all_ok = true;
        for (const auto& f : files) {
            // Warps as wide as the preset's (64 threads on amoeba_48_fused).
            warpkit::func::isa_kernel k(example::load_program(f),
                                        warpkit::gpu::preset_warp_size(preset));
            warpkit::func::global_memory timed;
            presets.limit(timed);
            warpkit::func::load_data(k, timed);
            const auto r = example::run_preset(preset, k, timed, overrides);
            warpkit::func::global_memory reference;
            warpkit::func::load_data(k, reference);
            // The reference runs with the preset's warp width and SIMT stack.
            warpkit::func::isa_functional_params fp;
            fp.simt_stack = r.params.simt_stack;
            warpkit::gpu::visit_preset(preset, [&](auto tag) {
                using P = typename decltype(tag)::type;
                (void)warpkit::func::run_functional<P::warp_size, typename P::stack>(k, reference,
                                                                                     fp);
            });
            const bool ok = timed == reference;
            all_ok = all_ok && ok;
            const std::string name = std::filesystem::path(f).stem().string();
            std::printf("%-12s %7u %9llu %9llu %7.3f %8.2f  %s\n", name.c_str(), k.blocks(),
                        static_cast<unsigned long long>(r.stats.total.warp_instructions),
                        static_cast<unsigned long long>(r.stats.cycles), r.stats.ipc(),
                        static_cast<double>(r.stats.cycles) / r.params.core_mhz,
                        ok ? "memory matches functional run" : "MISMATCH");
            if (csv.is_open()) {
                const double cycles = static_cast<double>(r.stats.cycles);
                const auto threads = static_cast<double>(r.stats.total.thread_instructions);
                csv << name << ',' << preset << ',' << k.blocks() << ','
                    << r.stats.total.warp_instructions << ',' << r.stats.total.thread_instructions
                    << ',' << r.stats.cycles << ',' << r.stats.ipc() << ','
                    << (cycles == 0 ? 0.0 : threads / cycles) << ',' << cycles / r.params.core_mhz
                    << ',' << (ok ? 1 : 0) << '\n';
            }
            details += "\n" + example::report(name, r);
        }
        std::cout << details;
        if (csv.is_open() && !csv.flush()) throw example::write_error(csv_file, errno);
        return all_ok ? 0 : 1;
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-demo: " << e.what() << '\n';
        return 2;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-demo", [&] { return tool_main(argc, argv); });
}
