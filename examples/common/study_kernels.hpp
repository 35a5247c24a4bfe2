#pragma once
// The kernels a study runs: the bundled warpkit-ISA kernels (examples/kernels/*.s; the BFS
// kernel relaunched by its host loop until its frontier is empty) and the CUDA kernels
// (examples/cuda/*.ptx with their launch files), each run by a caller-supplied function on
// fresh device memory, which comes back so that configurations can be compared.

#include "gpu_runner.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace example {

/// One kernel of a study.
struct study_kernel {
    std::string name;
    std::string kind; // "isa" or "ptx"
    std::filesystem::path file;
    std::filesystem::path launch; // ptx only
    /// "bfs.s", "reduce.ptx": how tables name it.
    [[nodiscard]] std::string label() const { return name + (kind == "ptx" ? ".ptx" : ".s"); }
};

namespace detail {
/// Throws warpkit::error "cannot read <what> directory '<dir>': <reason>" unless `dir` is a
/// directory.
inline void require_directory(const std::string& dir, const std::string& what) {
    const auto fail = [&](const std::string& why) {
        throw warpkit::error("cannot read " + what + " directory '" + dir + "': " + why);
    };
    std::error_code ec;
    const bool is_dir = std::filesystem::is_directory(dir, ec);
    if (ec) fail(ec.message());
    if (!is_dir) fail("not a directory");
}
} // namespace detail

/// The *.s kernels of `isa_dir` and (with `ptx`) the *.ptx kernels of `cuda_dir` that have a
/// launch file, ISA kernels first, each group by name.
inline std::vector<study_kernel> find_kernels(const std::string& isa_dir,
                                              const std::string& cuda_dir, bool ptx) {
    namespace fs = std::filesystem;
    std::vector<study_kernel> out;
    detail::require_directory(isa_dir, "kernel");
    for (const auto& e : fs::directory_iterator(isa_dir))
        if (e.path().extension() == ".s")
            out.push_back({e.path().stem().string(), "isa", e.path(), {}});
    if (ptx) {
        detail::require_directory(cuda_dir, "CUDA kernel");
        for (const auto& e : fs::directory_iterator(cuda_dir)) {
            if (e.path().extension() != ".ptx") continue;
            fs::path launch = e.path();
            launch.replace_extension(".launch.json");
            if (fs::exists(launch))
                out.push_back({e.path().stem().string(), "ptx", e.path(), launch});
        }
    }
    std::sort(out.begin(), out.end(), [](const study_kernel& a, const study_kernel& b) {
        return a.kind != b.kind ? a.kind < b.kind : a.name < b.name;
    });
    if (out.empty()) throw warpkit::error("no kernels found in '" + isa_dir + "'");
    return out;
}

/// Runs `sk` with warps of `warp_size` threads: `launch(kernel, memory)` runs one launch (a
/// func::isa_kernel or a ptx::launch) on the device memory; BFS is launched until its
/// frontier stays empty. PTX buffers are laid out as on the preset `device_preset`. Returns
/// the device memory after the last launch.
template <class Launch>
warpkit::func::global_memory run_kernel(const study_kernel& sk, std::uint32_t warp_size,
                                       const std::string& device_preset, Launch&& launch) {
    if (sk.kind == "ptx") {
        const auto m = warpkit::ptx::read_ptx(sk.file);
        const auto spec = warpkit::host::read_launch(sk.launch);
        warpkit::host::device dev(device_preset);
        const auto k = dev.prepare(m, sk.name);
        const auto bufs = warpkit::host::allocate(dev, spec);
        auto params = warpkit::host::pack(k, spec, bufs);
        const warpkit::ptx::launch l(k, spec.grid, spec.block, std::move(params), spec.shared_bytes,
                                     warp_size);
        launch(l, dev.memory());
        return dev.memory();
    }
    const warpkit::func::isa_kernel k(load_program(sk.file.string()), warp_size);
    warpkit::func::global_memory mem;
    warpkit::func::load_data(k, mem);
    if (sk.name != "bfs") {
        launch(k, mem);
        return mem;
    }
    // The host loop of bfs.s: clear the changed flag (param 5), launch, until it stays 0.
    const std::uint32_t changed = k.config().params.at(5);
    for (int n = 0; n < 1000; ++n) {
        mem.store(changed, 0);
        launch(k, mem);
        if (mem.load(changed) == 0) return mem;
    }
    throw warpkit::sim_error("bfs.s: the frontier never emptied");
}

} // namespace example
