#pragma once
// The state behind the CUDA runtime replacement (libcudart.so.13): the modules nvcc's host
// code registers, device memory, launches on a warpkit preset, streams and events, errors.
// cudart.cpp maps the C API onto it. Everything runs in the calling thread, in call order:
// streams execute in order, a launch completes before the call returns.

#include "../common/kernel_filter.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/fatbin.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/texture.hpp>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace warpkit::cudart {

/// Options from the environment (set by warpkit-cuda or by hand).
struct options {
    std::string preset = "fermi_gtx480";
    std::vector<std::string> overrides; ///< key=value, from WARPKIT_CUDA_SET (';'-separated)
    std::string config_file;            ///< WARPKIT_CUDA_CONFIG: a gpu_params JSON file
    std::string stats_path;             ///< WARPKIT_CUDA_STATS: JSON lines, one per launch
    std::string csv_path;               ///< WARPKIT_CUDA_CSV: one row per launch
    bool functional = false;            ///< WARPKIT_CUDA_FUNCTIONAL=1: no timing
    std::string kernels;                ///< WARPKIT_CUDA_KERNELS: which launches are timed
    bool quiet = false;                 ///< WARPKIT_CUDA_QUIET=1: no per-kernel summary
    bool bounds_check = true;           ///< WARPKIT_CUDA_BOUNDS_CHECK=0 turns it off
    bool cold_memory = false;           ///< WARPKIT_CUDA_COLD_MEMORY=1: no L2 / DRAM carry-over
    /// WARPKIT_CUDA_GPGPUSIM_CONFIG: a GPGPU-Sim gpgpusim.config, applied after config_file.
    std::string gpgpusim_file;
    /// WARPKIT_CUDA_POWER=1: the power model's energy breakdown and DVFS outcomes of every
    /// timed launch in its stats record (`power`).
    bool power = false;
    /// WARPKIT_CUDA_POWER_SAMPLE: cycles per power interval (the DVFS epoch is 500).
    std::uint64_t power_sample = 500;
    /// WARPKIT_CUDA_MAX_DEVICE_MB: cap on the host memory of the device's allocations, in
    /// MiB (0: half of the machine's memory; host/memory_cap.hpp).
    std::uint64_t max_device_mb = 0;
    /// WARPKIT_CUDA_PTXAS: the ptxas that gives kernels their registers per thread ("0" or
    /// "off": the liveness estimate; unset: ptxas from PATH or /usr/local/cuda/bin).
    std::string ptxas;
    static options from_environment();
};

/// Which launches are timed (examples/common/kernel_filter.hpp, shared with warpkit-run).
using kernel_filter = example::kernel_filter;

/// A fat binary registered by the host code: its parsed PTX (or why there is none), the
/// placement of its variables and its constant bank.
struct module_record {
    std::string origin;
    std::optional<ptx::module> ptx;
    std::string ptx_text; ///< the PTX `ptx` was parsed from (ptxas reads it)
    /// ptxas's registers per thread of the module's entries, once a launch asked.
    std::optional<std::map<std::string, std::uint32_t>> ptxas_registers;
    std::string ptxas_target; ///< what ptxas compiled for ("sm_75"), or why it did not run
    std::string error;        ///< why `ptx` is empty
    std::uint64_t global_base = 0;
    std::vector<ptx::module_variable> variables;
    std::vector<std::uint8_t> constants;
    bool loaded = false; ///< variables placed and globals written
};

/// A `__global__` function registered by the host code.
struct function_record {
    std::size_t module = 0;
    std::string name; ///< the PTX entry (mangled)
    std::unique_ptr<ptx::kernel> prepared;
    /// Where its registers per thread came from: "ptxas sm_75" or "estimate".
    std::string register_source;
    std::uint64_t cache_config_calls = 0;
};

/// A `__device__` or `__constant__` variable registered by the host code.
struct variable_record {
    std::size_t module = 0;
    std::string name;
    std::uint64_t bytes = 0;
    bool constant = false;
};

/// Memory the host reaches directly: cudaMallocHost (host only) or cudaMallocManaged (also
/// a device allocation at the same address, synchronised around every launch).
struct host_block {
    void* base = nullptr;
    std::size_t bytes = 0;
    std::size_t mapped = 0;
    bool managed = false;
};

/// One simulated GPU serving one program.
class runtime {
public:
    explicit runtime(options o);
    runtime(const runtime&) = delete;
    runtime& operator=(const runtime&) = delete;
    ~runtime();

    // Registration (nvcc's host stubs).
    void** register_fatbin(const void* wrapper);
    void register_function(void** handle, const void* host_fun, const char* name);
    void register_variable(void** handle, const void* host_var, const char* name,
                           std::uint64_t bytes, bool constant);
    void register_managed_variable(void** handle, void** host_pointer, const char* name,
                                   std::uint64_t bytes);
    void unregister_fatbin(void** handle);
    [[nodiscard]] function_record* function_of(const void* host_fun);

    // Launches.
    cudaError_t launch(function_record& f, dim3 grid, dim3 block, void** args, std::size_t shared,
                       cudaStream_t stream);
    struct call_config {
        dim3 grid, block;
        std::size_t shared = 0;
        cudaStream_t stream = nullptr;
    };
    /// The calling host thread's `<<<...>>>` configurations, pushed by nvcc's launch stub and
    /// popped by the launch it wraps (CUDA keeps them per host thread: two threads launching
    /// at once each launch with their own grid).
    [[nodiscard]] std::vector<call_config>& call_stack() { return here_().calls; }

    // Memory.
    cudaError_t malloc(void** ptr, std::size_t bytes);
    cudaError_t free(void* ptr);
    cudaError_t malloc_host(void** ptr, std::size_t bytes, bool managed);
    cudaError_t free_host(void* ptr);
    cudaError_t memcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
    cudaError_t memcpy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                          std::size_t width, std::size_t height, cudaMemcpyKind kind);
    cudaError_t memset(void* dst, int value, std::size_t bytes);
    cudaError_t symbol_copy(const void* symbol, void* host, std::size_t bytes, std::size_t offset,
                            bool to_device);
    cudaError_t symbol_address(void** ptr, const void* symbol);
    cudaError_t symbol_size(std::size_t* size, const void* symbol);
    cudaError_t pointer_attributes(cudaPointerAttributes* a, const void* p);

    // Texture objects over linear and pitched 2D memory: a header in device memory (its
    // address is the handle), read by the PTX executor's tex.
    cudaError_t create_texture(cudaTextureObject_t* out, const cudaResourceDesc* res,
                               const cudaTextureDesc* tex, const cudaResourceViewDesc* view);
    cudaError_t destroy_texture(cudaTextureObject_t t);
    cudaError_t texture_descriptors(cudaTextureObject_t t, cudaResourceDesc* res,
                                    cudaTextureDesc* tex) const;
    [[nodiscard]] std::uint64_t live_bytes() const noexcept { return dev_.live_bytes(); }

    // Device description.
    void properties(cudaDeviceProp& p) const;
    cudaError_t attribute(int* value, cudaDeviceAttr attr) const;
    cudaError_t function_attributes(cudaFuncAttributes* a, const void* host_fun);
    cudaError_t occupancy(int* blocks, const void* host_fun, int block_size,
                          std::size_t dynamic_shared);
    [[nodiscard]] const gpu::gpu_params& params() const noexcept { return dev_.params(); }

    // Time: simulated core cycles since the program started.
    [[nodiscard]] std::uint64_t cycles() const noexcept { return cycles_; }
    [[nodiscard]] double cycles_to_ms(std::uint64_t c) const noexcept {
        return static_cast<double>(c) / (static_cast<double>(dev_.params().core_mhz) * 1e3);
    }

    /// cudaDeviceSetLimit values (kept and reported back; the simulated GPU needs none).
    std::map<int, std::size_t> limits{{cudaLimitStackSize, 1024},
                                      {cudaLimitPrintfFifoSize, 1 << 20},
                                      {cudaLimitMallocHeapSize, 8 << 20}};

    // Errors: the calling host thread's last error (cleared by reading) and sticky launch
    // failures, which every thread sees until the program ends.
    cudaError_t record(cudaError_t e) {
        if (e != cudaSuccess) here_().last = e;
        return e;
    }
    cudaError_t take_last() {
        if (sticky_ != cudaSuccess) return sticky_;
        auto& t = here_();
        const cudaError_t e = t.last;
        t.last = cudaSuccess;
        return e;
    }
    [[nodiscard]] cudaError_t peek_last() {
        return sticky_ != cudaSuccess ? sticky_ : here_().last;
    }
    [[nodiscard]] cudaError_t sticky() const noexcept { return sticky_; }
    /// Says once on stderr that `call` is not supported, and why.
    cudaError_t unsupported(const char* call, const char* why);
    /// Writes "warpkit-cuda: <message>" on stderr.
    static void say(const std::string& message);

private:
    /// What CUDA keeps per host thread.
    struct thread_state {
        std::vector<call_config> calls;
        cudaError_t last = cudaSuccess;
    };
    thread_state& here_() { return threads_[std::this_thread::get_id()]; }
    module_record& module_of(void** handle);
    /// ptxas's registers per thread for entry `name` of `m` (0: none, use the estimate).
    std::uint32_t ptxas_registers_(module_record& m, const std::string& name);
    void load_(module_record& m);
    void choose_ptx_(module_record& m, const void* wrapper);
    [[nodiscard]] bool is_device_(const void* p, std::size_t bytes) const;
    [[nodiscard]] host_block* host_block_of_(const void* p);
    void sync_managed_(bool to_device);
    void report_(const function_record& f, const host::launch_config& cfg,
                 const host::launch_result& r, bool timed, const nlohmann::json& power);
    [[nodiscard]] const ptx::module_variable* placed_(const variable_record& v);

    options opt_;
    host::device dev_;
    /// What every stats record starts with: the tool, the program's command line and the
    /// device's params (made at the first record).
    nlohmann::json record_start_;
    kernel_filter filter_;
    std::vector<std::unique_ptr<module_record>> modules_;
    std::vector<std::unique_ptr<void*>> handles_;
    std::unordered_map<const void*, std::unique_ptr<function_record>> functions_;
    std::unordered_map<const void*, variable_record> variables_;
    std::map<std::uintptr_t, host_block> host_blocks_;
    /// `__managed__` variables: the host's copy and the module global the kernels use.
    struct managed_variable {
        std::uint8_t* host = nullptr;
        std::uint64_t device = 0;
        std::uint64_t bytes = 0;
    };
    std::vector<managed_variable> managed_variables_;
    /// Live texture objects by handle, with the descriptors they were created from.
    struct texture_record {
        cudaResourceDesc res{};
        cudaTextureDesc tex{};
    };
    std::map<std::uint64_t, texture_record> textures_;
    std::set<std::string> said_;
    std::uint64_t launches_ = 0;
    std::uint64_t cycles_ = 0;
    std::unordered_map<std::thread::id, thread_state> threads_;
    cudaError_t sticky_ = cudaSuccess;
    std::ofstream stats_;
    std::ofstream csv_;
};

} // namespace warpkit::cudart
