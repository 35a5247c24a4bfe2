#pragma once
/// \file
/// `host::device`: the host side of running real kernels, CUDA-style. Allocate device
/// buffers, copy data in and out, prepare a PTX entry, launch it with grid / block / dynamic
/// shared memory on a GPU preset chosen by name, and read what the run measured.
///
/// ```cpp
/// host::device dev("fermi_gtx480");
/// const auto m = ptx::read_ptx("vector_add.ptx");
/// const auto k = dev.prepare(m, "vector_add");
/// const auto a = dev.upload(xs), b = dev.upload(ys), c = dev.alloc<float>(n);
/// const auto r = dev.launch(k, {{n / 256}, {256}}, a, b, c, static_cast<std::int32_t>(n));
/// const auto sum = dev.download<float>(c);   // r.cycles(), r.ipc(), r.thread_instructions()
/// ```
/// Device buffers are 256-byte aligned (as cudaMalloc's) and placed from `heap_base` on,
/// below the addresses PTX `.global` variables and the generic windows use. Every global
/// access of a kernel is checked against the buffers and `.global` variables (a sim_error
/// naming the kernel, pc, lane, address and the nearest buffer); `check_bounds(false)` turns
/// the check off for speed. The host memory a device may hold is capped (`set_memory_cap`,
/// default half of the machine's, host/memory_cap.hpp): an allocation past the cap is refused
/// with a config_error naming the buffer, and a kernel writing more pages than the cap holds
/// (unchecked, outside every buffer) stops with a sim_error.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/func/ptx_source.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/scalability_sampling.hpp>
#include <warpkit/gpu/sm_counters.hpp>
#include <warpkit/host/memory_cap.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit::host {

/// First device address handed out by `device::alloc`.
inline constexpr std::uint64_t heap_base = 0x1000'0000ULL;
/// Alignment of every allocation (bytes).
inline constexpr std::uint64_t alloc_alignment = 256;

/// A device allocation: its address in device memory and its size in bytes.
struct buffer {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    friend bool operator==(const buffer&, const buffer&) = default;
};

/// Grid, block and dynamic shared memory of a launch (CUDA's <<<grid, block, shared>>>).
struct launch_config {
    ptx::dim3 grid{1, 1, 1};
    ptx::dim3 block{1, 1, 1};
    std::uint32_t shared_bytes = 0; ///< dynamic shared memory per block
};

/// What one launch measured: the GPU's run statistics and the PTX instruction counts.
struct launch_result {
    std::string preset;
    gpu::run_stats run{};
    func::ptx_source_stats ptx{}; ///< summed over the SMs
    double wall_seconds = 0;      ///< host time the simulation took (not a simulated figure)
    /// AMOEBA's predictor inputs (paper 002, Sec. 4.1) over block 0 on the SM that ran it, from
    /// its dispatch to its completion (gpu::first_cta_sampler); timed launches only.
    std::optional<reconfig::scalability_metrics> first_cta;

    [[nodiscard]] std::uint64_t cycles() const noexcept { return run.cycles; }
    /// Thread instructions counted as GPGPU-Sim's gpu_sim_insn.
    [[nodiscard]] std::uint64_t thread_instructions() const noexcept {
        return ptx.thread_instructions;
    }
    [[nodiscard]] std::uint64_t warp_instructions() const noexcept { return ptx.warp_instructions; }
    /// Thread instructions per core cycle (GPGPU-Sim's gpu_ipc).
    [[nodiscard]] double ipc() const noexcept {
        return run.cycles == 0
                   ? 0.0
                   : static_cast<double>(ptx.thread_instructions) / static_cast<double>(run.cycles);
    }
    /// Warp instructions per core cycle over the whole GPU.
    [[nodiscard]] double warp_ipc() const noexcept { return run.ipc(); }
    /// Simulated warp instructions per host second.
    [[nodiscard]] double warp_instructions_per_second() const noexcept {
        return wall_seconds > 0 ? static_cast<double>(ptx.warp_instructions) / wall_seconds : 0.0;
    }
};

/// A simulated GPU seen from the host: device memory with an allocator, and launches on the
/// preset named at construction (with `key=value` overrides of its gpu_params).
class device {
public:
    /// Throws config_error for an unknown preset name or a bad override.
    explicit device(std::string preset = "fermi_gtx480", std::vector<std::string> overrides = {})
        : preset_(std::move(preset)), overrides_(std::move(overrides)) {
        params_ = gpu::visit_preset(preset_, [&](auto tag) {
            auto p = decltype(tag)::params();
            apply_overrides(p, overrides_);
            validate(p);
            return p;
        });
        warp_size_ = gpu::visit_preset(preset_, [](auto tag) {
            return static_cast<std::uint32_t>(decltype(tag)::type::warp_size);
        });
        mem_.check_bounds(true);
        set_memory_cap(default_max_device_bytes());
    }

    /// Caps the host memory the device holds at `bytes`: the live buffers (alloc) and the
    /// pages kernels write (host::limit_memory).
    void set_memory_cap(std::uint64_t bytes) noexcept {
        memory_cap_ = bytes;
        limit_memory(mem_, bytes);
    }
    /// The cap on the device's memory in bytes.
    [[nodiscard]] std::uint64_t memory_cap() const noexcept { return memory_cap_; }

    /// Whether launches share one memory system, so L2 and DRAM state carry over from launch
    /// to launch as on a real GPU (default off: every launch starts with a cold memory side;
    /// the SMs and their L1s start fresh either way, as a kernel boundary invalidates L1s).
    void keep_memory_warm(bool on) {
        warm_on_ = on;
        if (!on) warm_.reset();
    }
    [[nodiscard]] bool memory_kept_warm() const noexcept { return warm_on_; }

    /// Called during a timed launch with the cycle count and every SM's counters (cumulative
    /// since the launch began): every `sample_every` cycles and once more at the end
    /// (`done`). The counters are a copy; the hook cannot change the run.
    using sample_hook =
        std::function<void(std::uint64_t cycles, std::span<const gpu::sm_counters> sms, bool done)>;
    /// Samples the launches that follow with `hook` every `every` cycles (1 .. 2^50);
    /// an empty hook stops sampling.
    void sample(std::uint64_t every, sample_hook hook) {
        check_range("sample_every", every, std::uint64_t{1}, std::uint64_t{1} << 50);
        sample_every_ = every;
        sample_ = std::move(hook);
    }

    /// Whether kernels' global accesses are checked against the allocations (default on).
    void check_bounds(bool on) noexcept { mem_.check_bounds(on); }
    [[nodiscard]] bool bounds_checked() const noexcept { return mem_.bounds_checked(); }

    [[nodiscard]] const std::string& preset() const noexcept { return preset_; }
    /// The preset's parameters with the overrides applied.
    [[nodiscard]] const gpu::gpu_params& params() const noexcept { return params_; }
    [[nodiscard]] func::global_memory& memory() noexcept { return mem_; }
    [[nodiscard]] const func::global_memory& memory() const noexcept { return mem_; }

    /// Throws config_error naming buffer `name` unless `bytes` more, after the live buffers
    /// and `pending` bytes about to be allocated, fit the preset's `device_memory_mb` and
    /// the memory cap; touches nothing (a launch file's buffers are checked all at once).
    void check_fits(std::uint64_t bytes, std::string_view name, std::uint64_t pending = 0) const {
        const std::uint64_t capacity = params_.device_memory_mb << 20;
        const std::uint64_t used = live_bytes_ + std::min(pending, ~live_bytes_);
        const std::string what = std::to_string(bytes) + " for buffer '" + std::string(name) + "'";
        if (used > capacity || bytes > capacity - used)
            throw config_error("alloc.bytes", what,
                               "at most " + std::to_string(used > capacity ? 0 : capacity - used) +
                                   " (device memory left of device_memory_mb = " +
                                   std::to_string(params_.device_memory_mb) +
                                   "; raise it with --set device_memory_mb=N)");
        if (used > memory_cap_ || bytes > memory_cap_ - used)
            throw config_error(
                "alloc.bytes", what,
                "at most " + std::to_string(used > memory_cap_ ? 0 : memory_cap_ - used) +
                    " (left of the device-memory cap of " + std::to_string(memory_cap_ >> 20) +
                    " MiB, " + std::to_string(used) + " bytes taken; " + raise_cap_hint + ")");
    }

    /// A zero-filled device buffer of `bytes` bytes (at least one byte is reserved), named
    /// `name` in bounds-check messages (default: "buffer N", N counting from 0).
    /// Throws config_error (check_fits) when the live buffers would exceed the preset's
    /// `device_memory_mb` or the memory cap. Addresses are never reused, so a stale pointer
    /// to a freed buffer faults instead of reading another buffer.
    [[nodiscard]] buffer alloc(std::uint64_t bytes, std::string name = {}) {
        if (name.empty()) name = "buffer " + std::to_string(buffers_);
        check_fits(bytes, name);
        const std::uint64_t reserved = (std::max<std::uint64_t>(bytes, 1) + alloc_alignment - 1) /
                                       alloc_alignment * alloc_alignment;
        if (reserved > ptx::global_variable_base - next_)
            throw config_error("alloc.bytes", std::to_string(bytes) + " for buffer '" + name + "'",
                               "at most " + std::to_string(ptx::global_variable_base - next_) +
                                   " (device addresses left below the module variables)");
        const buffer b{next_, bytes};
        next_ += reserved;
        live_bytes_ += bytes;
        // Zeros even where an unchecked kernel wrote past another buffer (cheap: no pages).
        mem_.discard(b.address, b.bytes);
        mem_.allocate(b.address, b.bytes, std::move(name));
        ++buffers_;
        return b;
    }
    /// Frees the buffer at `address` (its memory returns to zeros); throws config_error
    /// unless `address` is a live buffer from `alloc`.
    void free(std::uint64_t address) {
        const auto& all = mem_.allocations();
        const auto it = all.find(address);
        if (it == all.end() || address < heap_base || address >= ptx::global_variable_base)
            throw config_error("free.address", func::global_memory::hex(address),
                               "the address of a live buffer");
        const std::uint64_t bytes = it->second.bytes;
        mem_.release(address);
        mem_.discard(address, bytes);
        live_bytes_ -= bytes;
    }
    /// Bytes held by live buffers.
    [[nodiscard]] std::uint64_t live_bytes() const noexcept { return live_bytes_; }
    /// A zero-filled buffer of `count` elements of T.
    template <class T>
    [[nodiscard]] buffer alloc(std::uint64_t count) {
        return alloc(count * sizeof(T));
    }
    /// A buffer holding a copy of `data`.
    template <class T>
    requires std::is_trivially_copyable_v<T>
    [[nodiscard]] buffer upload(std::span<const T> data) {
        const buffer b = alloc(data.size_bytes());
        write(b, data);
        return b;
    }
    template <class T>
    requires std::is_trivially_copyable_v<T>
    [[nodiscard]] buffer upload(const std::vector<T>& data) {
        return upload(std::span<const T>(data));
    }
    /// Copies `data` into `b` from byte `offset`; throws config_error past the buffer's end.
    template <class T>
    requires std::is_trivially_copyable_v<T>
    void write(const buffer& b, std::span<const T> data, std::uint64_t offset = 0) {
        if (offset > b.bytes || data.size_bytes() > b.bytes - offset)
            throw config_error("write",
                               std::to_string(data.size_bytes()) + " bytes at offset " +
                                   std::to_string(offset),
                               "within the buffer's " + std::to_string(b.bytes) + " bytes");
        // The bytes as they are, without a copy (a launch file's buffer may be gigabytes).
        mem_.write_bytes(b.address + offset, std::span<const std::uint8_t>(
                                                 reinterpret_cast<const std::uint8_t*>(data.data()),
                                                 data.size_bytes()));
    }
    /// The buffer's contents as elements of T (bytes / sizeof(T) of them).
    template <class T>
    requires std::is_trivially_copyable_v<T>
    [[nodiscard]] std::vector<T> download(const buffer& b) const {
        const auto raw = mem_.read_bytes(b.address, b.bytes);
        std::vector<T> out(b.bytes / sizeof(T));
        if (!out.empty()) std::memcpy(out.data(), raw.data(), out.size() * sizeof(T));
        return out;
    }

    /// Prepares entry `entry` of `m` (its exact or unmangled name) for this device's warp
    /// size and writes the module's `.global` initialisers to device memory.
    [[nodiscard]] ptx::kernel prepare(const ptx::module& m, std::string_view entry,
                                      const ptx::kernel_options& opt = {}) {
        ptx::kernel k(m, entry, opt);
        func::load_globals(k, mem_);
        return k;
    }

    /// Runs `k` on the preset to completion with arguments `args` (buffers become their
    /// device addresses; scalars keep their type's size, which must be the parameter's).
    template <class... Args>
    launch_result launch(const ptx::kernel& k, const launch_config& cfg, const Args&... args) {
        ptx::param_pack pack(k);
        (add_arg(pack, args), ...);
        return launch_packed(k, cfg, pack.bytes());
    }

    /// Runs `k` with an already packed parameter buffer.
    // launch_packed and launch_functional are templates (of one argument type) so that
    // including this header builds no GPU: only a translation unit that launches instantiates
    // the presets (about 4 s of compile time for all four).
    launch_result launch_packed(const std::same_as<ptx::kernel> auto& k, const launch_config& cfg,
                                std::vector<std::uint8_t> params) {
        const ptx::launch l(k, cfg.grid, cfg.block, std::move(params), cfg.shared_bytes,
                            warp_size_);
        return gpu::visit_preset(preset_, [&](auto tag) {
            using preset_type = typename decltype(tag)::type;
            auto p = params_;
            if (sample_) p.sample_cycles = sample_every_;
            gpu::gpu<preset_type> g(p);
            launch_result r;
            r.preset = preset_;
            gpu::memory_system* warm = nullptr;
            if (warm_on_ && params_.memory.model == gpu::memory_model::hierarchy) {
                if (!warm_) warm_.emplace(params_.memory, params_.sms, params_.core_mhz);
                warm = &*warm_;
            }
            const auto start = std::chrono::steady_clock::now();
            using sms_type =
                std::span<const typename gpu::gpu<preset_type>::template sm_for<ptx::launch>>;
            std::vector<gpu::sm_counters> counters;
            const auto sample = [&](std::uint64_t cycles, sms_type sms, bool done) {
                counters.clear();
                for (const auto& s : sms)
                    counters.push_back(gpu::counters_of(s));
                sample_(cycles, counters, done);
            };
            gpu::first_cta_sampler first;
            const typename gpu::gpu<preset_type>::template block_hook_for<ptx::launch> block_done =
                [&](std::uint32_t b, const auto& sm, std::uint64_t c) { first(b, sm, c); };
            r.run = g.run(
                l, mem_, [&](const auto& sm) { accumulate(r.ptx, sm.source().stats()); },
                sample_
                    ? typename gpu::gpu<preset_type>::template sample_hook_for<ptx::launch>(sample)
                    : nullptr,
                block_done, warm);
            r.first_cta = first.metrics();
            r.wall_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return r;
        });
    }

    /// Runs `k` functionally (no timing: every block in turn, as func::run_functional); the
    /// result has the instruction counts and zero cycles.
    launch_result launch_functional(const std::same_as<ptx::kernel> auto& k,
                                    const launch_config& cfg, std::vector<std::uint8_t> params,
                                    const func::ptx_functional_params& fp = {}) {
        const ptx::launch l(k, cfg.grid, cfg.block, std::move(params), cfg.shared_bytes,
                            warp_size_);
        return gpu::visit_preset(preset_, [&](auto tag) {
            using preset_type = typename decltype(tag)::type;
            launch_result r;
            r.preset = preset_;
            const auto start = std::chrono::steady_clock::now();
            auto with_stack = fp;
            with_stack.simt_stack = params_.simt_stack; // the functional run's stack is the GPU's
            r.ptx = func::run_functional<preset_type::warp_size, typename preset_type::stack>(
                l, mem_, with_stack);
            r.wall_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return r;
        });
    }

private:
    static void add_arg(ptx::param_pack& pack, const buffer& b) { pack.add(b.address); }
    template <class T>
    requires(std::integral<T> || std::floating_point<T>) static void add_arg(ptx::param_pack& pack,
                                                                             const T& v) {
        pack.add(v);
    }

    std::string preset_;
    std::vector<std::string> overrides_;
    gpu::gpu_params params_;
    std::uint32_t warp_size_ = 32;
    func::global_memory mem_;
    std::uint64_t buffers_ = 0;
    std::uint64_t next_ = heap_base;
    std::uint64_t live_bytes_ = 0;
    std::uint64_t memory_cap_ = 0;
    bool warm_on_ = false;
    std::uint64_t sample_every_ = 1;
    sample_hook sample_;
    std::optional<gpu::memory_system> warm_;
};

} // namespace warpkit::host
