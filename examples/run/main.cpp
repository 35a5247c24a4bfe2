// warpkit-run: runs one kernel to completion on a GPU preset and reports what happened.
#include "../common/gpu_runner.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    CLI::App app{"warpkit-run: run a kernel on a warpkit GPU preset"};
    std::string preset = "fermi_gtx480";
    std::string kernel;
    std::vector<std::string> overrides;
    std::string json_out;
    bool print_params = false;
    app.add_option("--preset", preset, "fermi_gtx480, tesla_seed004 or amoeba_48");
    app.add_option("--kernel", kernel, "kernel assembly (.s) or image (.hex)")->required();
    app.add_option("--set", overrides, "override a preset parameter: key=value (repeatable)");
    app.add_option("--json", json_out, "write params and stats as JSON to this file");
    app.add_flag("--print-params", print_params, "print the preset's parameters");
    CLI11_PARSE(app, argc, argv);

    try {
        warpkit::gpu::isa_kernel k(example::load_program(kernel));
        warpkit::gpu::global_memory mem;
        warpkit::gpu::load_data(k, mem);
        std::cerr << "running " << kernel << " on " << preset << " (" << k.blocks() << " blocks of "
                  << k.threads_per_block() << " threads)\n";
        const auto r = example::run_preset(preset, k, mem, overrides, true);
        if (print_params) std::cout << warpkit::params_to_text(r.params) << '\n';
        std::cout << example::report(kernel, r);
        if (!json_out.empty()) {
            std::ofstream f(json_out);
            if (!f) throw warpkit::error("cannot write '" + json_out + "'");
            f << example::to_json(kernel, r).dump(2) << '\n';
        }
    } catch (const warpkit::error& e) {
        std::cerr << "warpkit-run: " << e.what() << '\n';
        return 2;
    }
    return 0;
}
