#include "runtime.hpp"

#include "../common/output.hpp"
#include "../common/params_cli.hpp"
#include "../common/ptxas_registers.hpp"
#include "../fs/energy.hpp"
#include "../power/gpu_activity.hpp"

#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gating/energy.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/power/report.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/reconfig/predictor.hpp>

#include <zstd.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stop_token>
#include <thread>

namespace warpkit::cudart {

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
}

bool env_flag(const char* name, bool fallback) {
    const std::string v = env(name);
    if (v.empty()) return fallback;
    return v != "0" && v != "false" && v != "off";
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        if (!cur.empty()) out.push_back(cur);
    return out;
}

std::string dims(const dim3& d) {
    return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}

// The device address a device pointer stands for.
std::uint64_t address(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p);
}

std::vector<std::uint8_t> zstd_decode(std::span<const std::uint8_t> in, std::uint64_t size) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n) != 0u) throw error(std::string("Zstandard: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

// Unmangled name of an entry for messages and filters ("saxpy" for "_Z5saxpyifPKfPf").
std::string plain_name(const std::string& mangled) {
    const std::string plain = ptx::module::callable_name(ptx::module::demangle(mangled));
    return plain.empty() ? mangled : plain; // extern "C" names stay as they are
}

// CUDA's launch limits (compute capability 2.0 and later): blocks of at most 1024 x 1024 x 64
// threads, 1024 in all; grids of at most (2^31 - 1) x 65535 x 65535 blocks.
bool within_launch_limits(const dim3& grid, const dim3& block) {
    return block.x <= 1024 && block.y <= 1024 && block.z <= 64 && grid.x <= 0x7fffffffU &&
           grid.y <= 65535 && grid.z <= 65535;
}

// The configuration file's settings, the GPGPU-Sim config's (its mapping report on stderr),
// then the --set ones (which win).
std::vector<std::string> all_overrides(const options& o) {
    std::vector<std::string> out;
    if (!o.config_file.empty()) out = example::config_file_settings(o.config_file);
    if (!o.gpgpusim_file.empty()) {
        const auto mapped = example::gpgpusim_settings(o.gpgpusim_file, o.preset, std::cerr);
        out.insert(out.end(), mapped.begin(), mapped.end());
    }
    out.insert(out.end(), o.overrides.begin(), o.overrides.end());
    return out;
}

// Prints "<what>: running, N s" on stderr every 5 s while alive, the first after 5 s.
class progress_line {
public:
    explicit progress_line(std::string what)
        : what_(std::move(what)), thread_([this](std::stop_token stop) { run_(stop); }) {}
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;
    ~progress_line() {
        thread_.request_stop();
        cv_.notify_all();
    }

private:
    void run_(const std::stop_token& stop) {
        const auto start = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> lock(m_);
        for (int n = 1;; ++n) {
            if (cv_.wait_until(lock, stop, start + std::chrono::seconds(5 * n),
                               [] { return false; }))
                return;
            if (stop.stop_requested()) return;
            std::cerr << "warpkit-cuda: " << what_ << ": running, " << 5 * n << " s" << std::endl;
        }
    }
    std::string what_;
    std::mutex m_;
    std::condition_variable_any cv_;
    std::jthread thread_; // last: it starts once the members it uses exist
};

// The power model's account of one launch from its sampled activity: energy per component
// and Fig. 12 group (power::to_json), the memory-stall share DVFS reads, and the outcome of
// processor-level DVFS with fine (on-chip regulator) and coarse (off-chip) epochs.
// With front-end sharing clusters (cluster_size > 1, sharing.enabled) the run's energy as
// paper 000 counts it (examples/fs/energy.hpp: slaves' front ends gated while grouped, the
// cluster network and the enhanced scoreboard added); alone, the same accounting without
// sharing, so runs of either kind compare.
nlohmann::json sharing_record(std::span<const gpu::sm_counters> sms, const gpu::gpu_params& p,
                              const host::launch_result& r) {
    const example::fs::energy_params ep;
    std::vector<example::fs::sm_record> records;
    records.reserve(sms.size());
    for (const auto& sm : sms)
        records.push_back(example::fs::record(sm, ep.mapping));
    const std::uint32_t members = p.cluster_size > 1 && p.sharing.enabled ? p.cluster_size : 1;
    const auto e = example::fs::energy(records, r.cycles(), r.run.sharing, p.sharing, members, ep);
    return {{"members", members},
            {"total_j", e.total},
            {"front_end_j", e.front_end},
            {"link_j", e.link},
            {"scoreboard_j", e.scoreboard},
            {"sharing_fraction", reconfig::sharing_fraction(r.run.sharing)}};
}

// The idle periods of a unit type by length (paper 003, Fig. 3): shorter than idle-detect (never
// gated), up to idle-detect + break-even (gated at a loss) and longer (gated at a gain).
nlohmann::json idle_periods_record(const gating::idle_period_stats& s) {
    return {{"below_idle_detect", s.below_idle_detect},
            {"up_to_break_even", s.up_to_break_even},
            {"beyond_break_even", s.beyond_break_even}};
}

// Power gating of the INT and FP clusters over one launch (paper 003), summed over the SMs:
// per type its clusters, their counters and their static energy in units of one cluster's
// leakage per cycle (gating::static_energy: cycles not gated plus break-even per gating event).
nlohmann::json gating_record(std::span<const gpu::sm_counters> sms, const gating::params& p) {
    nlohmann::json j;
    for (const std::size_t t : {std::size_t{0}, std::size_t{1}}) {
        gating::stats sum{};
        std::uint64_t clusters = 0;
        std::uint64_t static_energy = 0;
        for (const auto& sm : sms) {
            const std::size_t per_type = sm.gates.size() / 2; // INT clusters, then FP
            for (std::size_t k = 0; k < per_type; ++k) {
                const auto& g = sm.gates[t * per_type + k];
                static_energy += gating::static_energy(g, p);
                accumulate(sum, g);
                ++clusters;
            }
        }
        j[t == 0 ? "int" : "fp"] = {{"clusters", clusters},
                                    {"cycles", sum.cycles},
                                    {"static_energy", static_energy},
                                    {"gated_cycles", sum.gated_cycles()},
                                    {"compensated_cycles", sum.compensated_cycles},
                                    {"gating_events", sum.gating_events},
                                    {"wakeups", sum.wakeups},
                                    {"negative_events", sum.negative_events},
                                    {"critical_wakeups", sum.critical_wakeups},
                                    {"stall_cycles", sum.stall_cycles},
                                    {"idle_periods", idle_periods_record(sum.idle_periods)}};
    }
    return j;
}

// AMOEBA's decision for one launch (paper 002, Sec. 4.1): its first CTA's metrics, the logit,
// the probability of scale-up under Table 2's coefficients and the decision (1: fuse SMs).
// "weighted" holds each metric times the launch's cycles and "scale_up_cycles" the cycles of a
// launch predicted to scale up, so that sums over a program's launches, divided by its cycles,
// give its cycle-weighted metrics and the share of its time AMOEBA would run fused.
nlohmann::json amoeba_record(const reconfig::scalability_metrics& m, std::uint64_t cycles) {
    const auto p = reconfig::scalability_predictor::table2().predict(m);
    const bool up = p.decision == reconfig::scale_decision::scale_up;
    nlohmann::json weighted;
    for (std::size_t i = 0; i < reconfig::metric_count; ++i)
        weighted[std::string(reconfig::metric_names[i])] =
            m.*reconfig::metric_fields[i] * static_cast<double>(cycles);
    return {{"first_cta", stats_to_json(m)},      {"logit", p.logit},
            {"p_scale_up", p.probability},        {"scale_up", up ? 1 : 0},
            {"scale_up_cycles", up ? cycles : 0}, {"weighted", weighted}};
}

nlohmann::json power_record(const example::activity_sampler& s) {
    namespace wp = warpkit::power;
    const wp::model m;
    wp::energy_account e;
    wp::power_breakdown b;
    for (const auto& a : s.intervals()) {
        m.evaluate(a, b, m.nominal());
        e.add(b);
    }
    auto j = wp::to_json(e);
    std::uint64_t stall = 0;
    std::uint64_t active = 0;
    for (const auto& sm : s.total().sms) {
        stall += sm.memory_stall_cycles;
        active += sm.active_cycles;
    }
    j["memory_stall_cycles"] = stall;
    j["active_sm_cycles"] = active;
    const auto trace = wp::make_dvfs_trace(m, s.intervals(), 0);
    const auto outcome = [](const wp::dvfs_outcome& o) {
        // Time below the top P-state (all domains; one for processor-level DVFS).
        double slowed = 0;
        for (const auto& d : o.domains)
            for (std::size_t st = 1; st < d.state_seconds.size(); ++st)
                slowed += d.state_seconds[st];
        return nlohmann::json{{"seconds", o.seconds},
                              {"energy_j", o.energy_j},
                              {"baseline_seconds", o.baseline_seconds},
                              {"baseline_energy_j", o.baseline_energy_j},
                              {"energy_saving", o.energy_saving()},
                              {"slowdown", o.slowdown()},
                              {"slowed_seconds", slowed}};
    };
    // Intervals the stall-threshold policy would call memory bound at the top clock (the
    // policy steps down after such an epoch), and idle ones.
    const wp::stall_threshold_params thresholds;
    std::uint64_t memory_bound = 0;
    std::uint64_t idle = 0;
    for (const auto& d : trace.domains)
        for (const auto& x : d) {
            idle += x.idle ? 1 : 0;
            if (!x.idle && x.cycles > 0 &&
                static_cast<double>(x.memory_stall_cycles) >=
                    thresholds.memory_bound * static_cast<double>(x.cycles))
                ++memory_bound;
        }
    j["dvfs"] = {{"fine", outcome(wp::run_dvfs(trace, wp::dvfs_params::on_chip()))},
                 {"coarse", outcome(wp::run_dvfs(trace, wp::dvfs_params::off_chip()))},
                 {"intervals", s.intervals().size()},
                 {"memory_bound_intervals", memory_bound},
                 {"idle_intervals", idle}};
    return j;
}

// The positive integer in variable `name` (at most 2^log2_max), `fallback` when unset.
std::uint64_t env_count(const char* name, std::uint64_t fallback, unsigned log2_max) {
    const auto n = env(name);
    if (n.empty()) return fallback;
    const bool digits = n.size() <= 16 && std::all_of(n.begin(), n.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
    const std::uint64_t v = digits ? std::stoull(n) : 0;
    if (v < 1 || v > (std::uint64_t{1} << log2_max))
        throw config_error(name, n, "an integer in [1, 2^" + std::to_string(log2_max) + "]");
    return v;
}

} // namespace

options options::from_environment() {
    options o;
    if (const auto p = env("WARPKIT_CUDA_PRESET"); !p.empty()) o.preset = p;
    o.overrides = split(env("WARPKIT_CUDA_SET"), ';');
    o.config_file = env("WARPKIT_CUDA_CONFIG");
    o.gpgpusim_file = env("WARPKIT_CUDA_GPGPUSIM_CONFIG");
    o.stats_path = env("WARPKIT_CUDA_STATS");
    o.csv_path = env("WARPKIT_CUDA_CSV");
    o.functional = env_flag("WARPKIT_CUDA_FUNCTIONAL", false);
    o.kernels = env("WARPKIT_CUDA_KERNELS");
    o.quiet = env_flag("WARPKIT_CUDA_QUIET", false);
    o.bounds_check = env_flag("WARPKIT_CUDA_BOUNDS_CHECK", true);
    o.cold_memory = env_flag("WARPKIT_CUDA_COLD_MEMORY", false);
    o.power = env_flag("WARPKIT_CUDA_POWER", false);
    o.power_sample = env_count("WARPKIT_CUDA_POWER_SAMPLE", o.power_sample, 50);
    o.max_device_mb = env_count("WARPKIT_CUDA_MAX_DEVICE_MB", o.max_device_mb, 26);
    o.ptxas = env("WARPKIT_CUDA_PTXAS");
    return o;
}

runtime::runtime(options o)
    : opt_(std::move(o)), dev_(opt_.preset, all_overrides(opt_)), filter_(opt_.kernels) {
    dev_.check_bounds(opt_.bounds_check);
    dev_.set_memory_cap(host::max_device_bytes_of(opt_.max_device_mb));
    // One GPU per program: L2 and DRAM state carry over from launch to launch.
    dev_.keep_memory_warm(!opt_.cold_memory);
    if (!opt_.stats_path.empty()) {
        stats_.open(opt_.stats_path, std::ios::trunc);
        if (!stats_) throw error("cannot write '" + opt_.stats_path + "': " + std::strerror(errno));
    }
    if (!opt_.csv_path.empty()) {
        csv_.open(opt_.csv_path, std::ios::trunc);
        if (!csv_) throw error("cannot write '" + opt_.csv_path + "': " + std::strerror(errno));
        csv_ << "launch,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,shared_bytes,timed,"
                "cycles,cumulative_cycles,thread_instructions,warp_instructions,ipc_thread,"
                "ipc_warp,wall_seconds\n";
        csv_.flush();
    }
}

runtime::~runtime() {
    for (auto& [base, b] : host_blocks_)
        ::munmap(b.base, b.mapped);
}

void runtime::say(const std::string& message) {
    std::cerr << "warpkit-cuda: " << message << '\n';
}

cudaError_t runtime::unsupported(const char* call, const char* why) {
    if (said_.insert(call).second)
        say(std::string(call) + " is not supported (" + why +
            "); it returns cudaErrorNotSupported");
    return record(cudaErrorNotSupported);
}

// --- registration ---------------------------------------------------------------------------

void runtime::choose_ptx_(module_record& m, const void* wrapper) {
    struct wrapper_layout {
        std::uint32_t magic;
        std::uint32_t version;
        const std::uint8_t* data;
        const void* more;
    };
    wrapper_layout w{};
    std::memcpy(&w, wrapper, sizeof w);
    if (w.magic != host::fatbin_wrapper_magic || w.data == nullptr) {
        m.error = m.origin + ": not an nvcc fat binary wrapper";
        return;
    }
    const std::uint64_t size = host::fatbin_size(
        std::span<const std::uint8_t>(w.data, host::fatbin_header_bytes), m.origin);
    const auto entries = host::read_fatbin(
        std::span<const std::uint8_t>(w.data, static_cast<std::size_t>(size)), m.origin);
    std::vector<host::fatbin_entry> ptx;
    for (const auto& e : entries)
        if (e.kind == host::fatbin_kind::ptx) ptx.push_back(e);
    if (ptx.empty()) {
        m.error = m.origin +
                  ": the program holds no PTX, only machine code (cubin); rebuild it with PTX "
                  "embedded, e.g. nvcc -gencode arch=compute_75,code=compute_75 (or "
                  "-arch=compute_75)";
        return;
    }
    // The newest PTX the parser accepts.
    std::stable_sort(ptx.begin(), ptx.end(),
                     [](const auto& a, const auto& b) { return a.arch > b.arch; });
    std::string why;
    for (const auto& e : ptx) {
        try {
            const std::string origin = m.origin + " (compute_" + std::to_string(e.arch) + ")";
            std::string text = host::fatbin_ptx(e, origin, zstd_decode);
            m.ptx.emplace(ptx::parse_ptx(text, origin));
            m.ptx_text = std::move(text);
            m.error.clear();
            return;
        } catch (const error& ex) {
            why += std::string(why.empty() ? "" : "\n") + ex.what();
        }
    }
    m.error = why;
}

void** runtime::register_fatbin(const void* wrapper) {
    auto m = std::make_unique<module_record>();
    m->origin = "fat binary " + std::to_string(modules_.size());
    // Each module's `.global` variables get their own 64 GiB range.
    m->global_base = ptx::global_variable_base + (std::uint64_t{modules_.size()} << 36);
    try {
        choose_ptx_(*m, wrapper);
    } catch (const error& e) {
        m->error = e.what();
    }
    modules_.push_back(std::move(m));
    handles_.push_back(std::make_unique<void*>(
        reinterpret_cast<void*>(static_cast<std::uintptr_t>(modules_.size()))));
    return handles_.back().get();
}

module_record& runtime::module_of(void** handle) {
    for (const auto& h : handles_)
        if (h.get() == handle) {
            const auto index = reinterpret_cast<std::uintptr_t>(*handle) - 1;
            return *modules_.at(static_cast<std::size_t>(index));
        }
    throw error("unknown fat binary handle");
}

void runtime::register_function(void** handle, const void* host_fun, const char* name) {
    (void)module_of(handle); // an unknown handle throws
    auto f = std::make_unique<function_record>();
    f->module = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(*handle) - 1);
    f->name = name;
    functions_[host_fun] = std::move(f);
}

void runtime::register_variable(void** handle, const void* host_var, const char* name,
                                std::uint64_t bytes, bool constant) {
    (void)module_of(handle);
    variables_[host_var] =
        variable_record{static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(*handle) - 1),
                        name, bytes, constant};
}

// A `__managed__` variable: host memory the program reaches through `*host_pointer` (set
// here, before main runs), holding the module's initialiser, and copied to and from the
// variable's module global around every launch, as cudaMallocManaged memory is.
void runtime::register_managed_variable(void** handle, void** host_pointer, const char* name,
                                        std::uint64_t bytes) {
    auto& m = module_of(handle);
    void* p = nullptr;
    if (host_pointer == nullptr || malloc_host(&p, bytes, false) != cudaSuccess)
        throw error(std::string("cannot allocate __managed__ variable `") + name + "`");
    *host_pointer = p;
    load_(m);
    for (const auto& v : m.variables)
        if (v.name == name && v.sp == ptx::space::global) {
            // A variable without an initialiser has no bytes to copy (and init.data() may be
            // null); malloc_host's memory is zeroed.
            if (!v.init.empty())
                std::memcpy(p, v.init.data(), std::min<std::size_t>(v.init.size(), bytes));
            managed_variables_.push_back(
                {static_cast<std::uint8_t*>(p), v.address, std::min(v.bytes, bytes)});
            return;
        }
    // No PTX (the launch says why) or no such variable: the host copy still works.
    say(std::string("__managed__ variable `") + name + "` is not in the module's PTX" +
        (m.ptx ? "" : " (" + m.error + ")"));
}

// Modules stay loaded until the process ends (nvcc's host code unregisters them from its
// atexit handler, when no launch can follow); only the handle is checked.
void runtime::unregister_fatbin(void** handle) {
    (void)module_of(handle);
}

function_record* runtime::function_of(const void* host_fun) {
    const auto it = functions_.find(host_fun);
    return it == functions_.end() ? nullptr : it->second.get();
}

// Places the module's variables and writes its `.global` initialisers, once.
std::uint32_t runtime::ptxas_registers_(module_record& m, const std::string& name) {
    if (!m.ptxas_registers) {
        m.ptxas_registers.emplace();
        const std::string ptxas = example::find_ptxas(opt_.ptxas);
        if (ptxas.empty()) {
            if (!opt_.ptxas.empty() && opt_.ptxas != "0" && opt_.ptxas != "off")
                say("WARPKIT_CUDA_PTXAS: no program at '" + opt_.ptxas +
                    "'; registers per thread are the liveness estimate");
            return 0;
        }
        auto r = example::ptxas_registers(ptxas, m.ptx_text);
        m.ptxas_target = r.target;
        if (!r.error.empty())
            say(m.origin + ": " + r.error + "; registers per thread are the liveness estimate");
        *m.ptxas_registers = std::move(r.registers);
    }
    const auto it = m.ptxas_registers->find(name);
    return it == m.ptxas_registers->end() ? 0 : it->second;
}

void runtime::load_(module_record& m) {
    if (m.loaded || !m.ptx) return;
    m.variables = ptx::place_module_variables(*m.ptx, m.global_base);
    m.constants = ptx::constant_bank_of(m.variables);
    auto& mem = dev_.memory();
    for (const auto& v : m.variables)
        if (v.sp == ptx::space::global) {
            std::vector<std::uint8_t> bytes(static_cast<std::size_t>(v.bytes), 0);
            std::copy_n(v.init.begin(), std::min<std::size_t>(v.init.size(), bytes.size()),
                        bytes.begin());
            mem.write_bytes(v.address, bytes);
            mem.allocate(v.address, v.bytes, v.name);
        }
    m.loaded = true;
}

const ptx::module_variable* runtime::placed_(const variable_record& v) {
    auto& m = *modules_.at(v.module);
    load_(m);
    for (const auto& pv : m.variables)
        if (pv.name == v.name && (pv.sp == ptx::space::global || pv.sp == ptx::space::constant))
            return &pv;
    return nullptr;
}

// --- memory ---------------------------------------------------------------------------------

bool runtime::is_device_(const void* p, std::size_t bytes) const {
    return dev_.memory().allocation_at(address(p), std::max<std::size_t>(bytes, 1)) != nullptr;
}

host_block* runtime::host_block_of_(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = host_blocks_.upper_bound(a);
    if (it == host_blocks_.begin()) return nullptr;
    --it;
    return a - it->first < std::max<std::size_t>(it->second.bytes, 1) ? &it->second : nullptr;
}

cudaError_t runtime::malloc(void** ptr, std::size_t bytes) {
    if (ptr == nullptr) return record(cudaErrorInvalidValue);
    if (bytes == 0) { // as the CUDA runtime: success and a null pointer
        *ptr = nullptr;
        return cudaSuccess;
    }
    try {
        const auto b = dev_.alloc(bytes);
        *ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.address));
        return cudaSuccess;
    } catch (const config_error& e) {
        *ptr = nullptr;
        // Past the cap the program gets what a full device gives, and the user the reason.
        if (bytes <= (dev_.params().device_memory_mb << 20) - dev_.live_bytes())
            say(std::string("cudaMalloc: ") + e.what() +
                " (WARPKIT_CUDA_MAX_DEVICE_MB for the bare library); it returns "
                "cudaErrorMemoryAllocation");
        return record(cudaErrorMemoryAllocation);
    }
}

cudaError_t runtime::free(void* ptr) {
    if (ptr == nullptr) return cudaSuccess;
    if (host_block* b = host_block_of_(ptr); b != nullptr && b->managed) return free_host(ptr);
    try {
        dev_.free(address(ptr));
        return cudaSuccess;
    } catch (const config_error&) {
        return record(cudaErrorInvalidValue);
    }
}

cudaError_t runtime::malloc_host(void** ptr, std::size_t bytes, bool managed) {
    if (ptr == nullptr) return record(cudaErrorInvalidValue);
    const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
    if (managed && bytes > (dev_.params().device_memory_mb << 20) - dev_.live_bytes())
        return record(cudaErrorMemoryAllocation);
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return record(cudaErrorMemoryAllocation);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // Managed memory is a device allocation at the host address: it must not fall into the
    // device heap, the module globals or the generic windows.
    if (managed && a < ptx::generic_param_base + ptx::generic_window_bytes) {
        ::munmap(p, mapped);
        say("cudaMallocManaged: the host placed the block at " + func::global_memory::hex(a) +
            ", inside the simulated device's address ranges");
        return record(cudaErrorMemoryAllocation);
    }
    host_blocks_[a] = host_block{p, bytes, mapped, managed};
    if (managed) dev_.memory().allocate(a, bytes, "managed " + func::global_memory::hex(a));
    *ptr = p;
    return cudaSuccess;
}

cudaError_t runtime::free_host(void* ptr) {
    if (ptr == nullptr) return cudaSuccess;
    const auto it = host_blocks_.find(reinterpret_cast<std::uintptr_t>(ptr));
    if (it == host_blocks_.end()) return record(cudaErrorInvalidValue);
    if (it->second.managed) {
        dev_.memory().release(it->first);
        dev_.memory().discard(it->first, it->second.bytes);
    }
    ::munmap(it->second.base, it->second.mapped);
    host_blocks_.erase(it);
    return cudaSuccess;
}

void runtime::sync_managed_(bool to_device) {
    auto& mem = dev_.memory();
    for (const auto& v : managed_variables_) {
        if (to_device)
            mem.write_bytes(v.device, std::span<const std::uint8_t>(v.host, v.bytes));
        else
            mem.read_bytes(v.device, std::span<std::uint8_t>(v.host, v.bytes));
    }
    for (auto& [a, b] : host_blocks_) {
        if (!b.managed) continue;
        auto* bytes = static_cast<std::uint8_t*>(b.base);
        if (to_device)
            mem.write_bytes(a, std::span<const std::uint8_t>(bytes, b.bytes));
        else
            mem.read_bytes(a, std::span<std::uint8_t>(bytes, b.bytes));
    }
}

cudaError_t runtime::memcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
    if (bytes == 0) return cudaSuccess;
    if (dst == nullptr || src == nullptr) return record(cudaErrorInvalidValue);
    // Managed memory is host memory between launches: copies reach it as host memory, from
    // either direction, as unified addressing allows.
    const auto managed = [&](const void* p) {
        const host_block* b = host_block_of_(p);
        return b != nullptr && b->managed &&
               reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(b->base) <=
                   b->bytes - std::min(b->bytes, bytes) &&
               bytes <= b->bytes;
    };
    const bool dst_managed = managed(dst);
    const bool src_managed = managed(src);
    const bool dst_dev = !dst_managed && host_block_of_(dst) == nullptr && is_device_(dst, 1);
    const bool src_dev = !src_managed && host_block_of_(src) == nullptr && is_device_(src, 1);
    if (kind == cudaMemcpyDefault)
        kind = dst_dev ? (src_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                       : (src_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    if (kind != cudaMemcpyHostToHost && kind != cudaMemcpyHostToDevice &&
        kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
        return record(cudaErrorInvalidMemcpyDirection);
    const bool to_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool from_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    // Each side is device memory (a device allocation holding the whole range) or host memory
    // (managed memory on a device side, any pointer on a host side).
    const bool dst_in_device = to_device && !dst_managed;
    const bool src_in_device = from_device && !src_managed;
    if ((dst_in_device && !is_device_(dst, bytes)) || (src_in_device && !is_device_(src, bytes)))
        return record(cudaErrorInvalidValue);
    auto& mem = dev_.memory();
    const auto* from = static_cast<const std::uint8_t*>(src);
    auto* to = static_cast<std::uint8_t*>(dst);
    if (dst_in_device && src_in_device) {
        const auto tmp = mem.read_bytes(address(src), bytes);
        mem.write_bytes(address(dst), tmp);
    } else if (dst_in_device) {
        mem.write_bytes(address(dst), std::span<const std::uint8_t>(from, bytes));
    } else if (src_in_device) {
        mem.read_bytes(address(src), std::span<std::uint8_t>(to, bytes));
    } else {
        std::memmove(dst, src, bytes);
    }
    return cudaSuccess;
}

cudaError_t runtime::memcpy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                               std::size_t width, std::size_t height, cudaMemcpyKind kind) {
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    for (std::size_t row = 0; row < height; ++row) {
        const cudaError_t e =
            memcpy(static_cast<std::uint8_t*>(dst) + row * dpitch,
                   static_cast<const std::uint8_t*>(src) + row * spitch, width, kind);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

cudaError_t runtime::memset(void* dst, int value, std::size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    if (host_block* b = host_block_of_(dst); b != nullptr && b->managed) {
        const std::size_t at =
            reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(b->base);
        if (bytes > b->bytes - at) return record(cudaErrorInvalidValue);
        std::memset(dst, value, bytes);
        return cudaSuccess;
    }
    if (!is_device_(dst, bytes)) return record(cudaErrorInvalidValue);
    const std::vector<std::uint8_t> fill(bytes, static_cast<std::uint8_t>(value));
    dev_.memory().write_bytes(address(dst), fill);
    return cudaSuccess;
}

cudaError_t runtime::symbol_copy(const void* symbol, void* host, std::size_t bytes,
                                 std::size_t offset, bool to_device) {
    const auto it = variables_.find(symbol);
    if (it == variables_.end()) return record(cudaErrorInvalidSymbol);
    const ptx::module_variable* v = placed_(it->second);
    if (v == nullptr) return record(cudaErrorInvalidSymbol);
    if (offset > v->bytes || bytes > v->bytes - offset) return record(cudaErrorInvalidValue);
    if (bytes == 0) return cudaSuccess;
    if (host == nullptr) return record(cudaErrorInvalidValue);
    auto* h = static_cast<std::uint8_t*>(host);
    if (v->sp == ptx::space::constant) {
        auto& bank = modules_.at(it->second.module)->constants;
        auto* at = bank.data() + v->address + offset;
        if (to_device)
            std::memcpy(at, h, bytes);
        else
            std::memcpy(h, at, bytes);
    } else if (to_device) {
        dev_.memory().write_bytes(v->address + offset, std::span<const std::uint8_t>(h, bytes));
    } else {
        dev_.memory().read_bytes(v->address + offset, std::span<std::uint8_t>(h, bytes));
    }
    return cudaSuccess;
}

cudaError_t runtime::symbol_address(void** ptr, const void* symbol) {
    if (ptr == nullptr) return record(cudaErrorInvalidValue);
    const auto it = variables_.find(symbol);
    if (it == variables_.end()) return record(cudaErrorInvalidSymbol);
    const ptx::module_variable* v = placed_(it->second);
    if (v == nullptr) return record(cudaErrorInvalidSymbol);
    if (v->sp == ptx::space::constant)
        return unsupported("cudaGetSymbolAddress of a __constant__ variable",
                           "the constant bank has no global address in warpkit");
    *ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(v->address));
    return cudaSuccess;
}

cudaError_t runtime::symbol_size(std::size_t* size, const void* symbol) {
    if (size == nullptr) return record(cudaErrorInvalidValue);
    const auto it = variables_.find(symbol);
    if (it == variables_.end()) return record(cudaErrorInvalidSymbol);
    const ptx::module_variable* v = placed_(it->second);
    if (v == nullptr) return record(cudaErrorInvalidSymbol);
    *size = static_cast<std::size_t>(v->bytes);
    return cudaSuccess;
}

namespace {

// The value a guest stored in an enum field, read as its int (a guest may store any int there;
// loading the enum itself would be undefined for values outside its enumerators' range).
template <class E>
int raw_enum(const E& e) {
    static_assert(sizeof(E) == sizeof(int));
    int v = 0;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

// The texel format of a channel descriptor: equal widths of 8, 16 or 32 bits on the first
// 1, 2 or 4 channels, signed, unsigned or float; nullopt for anything else.
std::optional<std::pair<std::uint8_t, std::uint8_t>> texel_format(const cudaChannelFormatDesc& d) {
    const std::array<int, 4> bits{d.x, d.y, d.z, d.w};
    std::uint8_t channels = 0;
    while (channels < 4 && bits[channels] != 0)
        ++channels;
    for (std::size_t c = channels; c < 4; ++c)
        if (bits[c] != 0) return std::nullopt;
    if (channels == 0 || channels == 3) return std::nullopt;
    for (std::size_t c = 1; c < channels; ++c)
        if (bits[c] != bits[0]) return std::nullopt;
    if (bits[0] != 8 && bits[0] != 16 && bits[0] != 32) return std::nullopt;
    const int kind = raw_enum(d.f);
    if (kind != cudaChannelFormatKindSigned && kind != cudaChannelFormatKindUnsigned &&
        kind != cudaChannelFormatKindFloat)
        return std::nullopt;
    if (kind == cudaChannelFormatKindFloat && bits[0] == 8) return std::nullopt;
    return std::pair{channels, static_cast<std::uint8_t>(bits[0])};
}

} // namespace

cudaError_t runtime::create_texture(cudaTextureObject_t* out, const cudaResourceDesc* res,
                                    const cudaTextureDesc* tex, const cudaResourceViewDesc* view) {
    if (out == nullptr || res == nullptr || tex == nullptr) return record(cudaErrorInvalidValue);
    const int type = raw_enum(res->resType);
    if (type == cudaResourceTypeArray || type == cudaResourceTypeMipmappedArray)
        return unsupported("cudaCreateTextureObject on a CUDA array",
                           "CUDA arrays are not simulated; textures read linear or pitched 2D "
                           "memory");
    if (type != cudaResourceTypeLinear && type != cudaResourceTypePitch2D)
        return record(cudaErrorInvalidValue);
    if (view != nullptr) return record(cudaErrorInvalidValue); // views apply to arrays only
    if (tex->sRGB != 0)
        return unsupported("cudaCreateTextureObject with sRGB", "sRGB conversion is not simulated");
    const bool linear = type == cudaResourceTypeLinear;
    const cudaChannelFormatDesc& fmt = linear ? res->res.linear.desc : res->res.pitch2D.desc;
    const auto format = texel_format(fmt);
    if (!format) return record(cudaErrorInvalidChannelDescriptor);
    ptx::texture_header h;
    h.channels = format->first;
    h.channel_bits = format->second;
    h.kind = static_cast<ptx::texture_kind>(raw_enum(fmt.f));
    const std::uint64_t texel = h.texel_bytes();
    void* base = linear ? res->res.linear.devPtr : res->res.pitch2D.devPtr;
    h.base = address(base);
    if (linear) {
        const std::size_t bytes = res->res.linear.sizeInBytes;
        // CUDA's maxTexture1DLinear on compute capability 2.x: 2^27 texels.
        if (bytes == 0 || bytes % texel != 0 || bytes / texel > (std::uint64_t{1} << 27))
            return record(cudaErrorInvalidValue);
        h.resource = ptx::texture_resource::linear;
        h.width = bytes / texel;
        h.height = 1;
        h.pitch = bytes;
    } else {
        const auto& p2 = res->res.pitch2D;
        // maxTexture2DLinear on compute capability 2.x: 65000 x 65000 texels, pitch up to 2^20.
        if (p2.width == 0 || p2.height == 0 || p2.width > 65000 || p2.height > 65000 ||
            p2.pitchInBytes % 32 != 0 || p2.pitchInBytes < p2.width * texel ||
            p2.pitchInBytes > (std::size_t{1} << 20))
            return record(cudaErrorInvalidValue);
        h.resource = ptx::texture_resource::pitch2d;
        h.width = p2.width;
        h.height = p2.height;
        h.pitch = p2.pitchInBytes;
    }
    // The texels must lie in one live device allocation that starts aligned (textureAlignment).
    const std::uint64_t span = (h.height - 1) * h.pitch + h.width * texel;
    if (base == nullptr || h.base % 256 != 0 ||
        dev_.memory().allocation_at(h.base, span) == nullptr)
        return record(cudaErrorInvalidValue);
    for (std::size_t a = 0; a < 2; ++a) {
        const int m = raw_enum(tex->addressMode[a]);
        if (m < 0 || m > 3) return record(cudaErrorInvalidValue);
        h.address[a] = static_cast<ptx::texture_address>(m);
    }
    const int filter = raw_enum(tex->filterMode);
    const int read = raw_enum(tex->readMode);
    if (filter != cudaFilterModePoint && filter != cudaFilterModeLinear)
        return record(cudaErrorInvalidValue);
    if (read != cudaReadModeElementType && read != cudaReadModeNormalizedFloat)
        return record(cudaErrorInvalidValue);
    h.filter = static_cast<ptx::texture_filter>(filter);
    h.read = static_cast<ptx::texture_read>(read);
    h.normalized_coords = tex->normalizedCoords != 0;
    for (std::size_t c = 0; c < 4; ++c)
        h.border[c] = tex->borderColor[c];
    // Filtering needs float results; the normalised-float read mode needs 8- or 16-bit integers.
    if (!h.problem().empty()) return record(cudaErrorInvalidValue);
    try {
        const auto b = dev_.alloc(ptx::texture_header::bytes,
                                  "texture object " + std::to_string(textures_.size()));
        const auto bytes = h.encode();
        dev_.memory().write_bytes(b.address, bytes);
        textures_[b.address] = texture_record{*res, *tex};
        *out = b.address;
        return cudaSuccess;
    } catch (const config_error&) {
        return record(cudaErrorMemoryAllocation);
    }
}

cudaError_t runtime::destroy_texture(cudaTextureObject_t t) {
    const auto it = textures_.find(t);
    if (it == textures_.end()) return record(cudaErrorInvalidValue);
    dev_.free(t);
    textures_.erase(it);
    return cudaSuccess;
}

cudaError_t runtime::texture_descriptors(cudaTextureObject_t t, cudaResourceDesc* res,
                                         cudaTextureDesc* tex) const {
    const auto it = textures_.find(t);
    if (it == textures_.end() || (res == nullptr && tex == nullptr)) return cudaErrorInvalidValue;
    if (res != nullptr) *res = it->second.res;
    if (tex != nullptr) *tex = it->second.tex;
    return cudaSuccess;
}

cudaError_t runtime::pointer_attributes(cudaPointerAttributes* a, const void* p) {
    if (a == nullptr) return record(cudaErrorInvalidValue);
    std::memset(a, 0, sizeof *a);
    a->device = 0;
    if (host_block* b = host_block_of_(p); b != nullptr) {
        a->type = b->managed ? cudaMemoryTypeManaged : cudaMemoryTypeHost;
        a->hostPointer = const_cast<void*>(p);
        a->devicePointer = b->managed ? const_cast<void*>(p) : nullptr;
    } else if (is_device_(p, 1)) {
        a->type = cudaMemoryTypeDevice;
        a->devicePointer = const_cast<void*>(p);
    } else {
        a->type = cudaMemoryTypeUnregistered;
        a->device = -2;
    }
    return cudaSuccess;
}

// --- launches -------------------------------------------------------------------------------

cudaError_t runtime::launch(function_record& f, dim3 grid, dim3 block, void** args,
                            std::size_t shared, cudaStream_t stream) {
    (void)stream; // streams run in order
    if (sticky_ != cudaSuccess) return record(sticky_);
    auto& m = *modules_.at(f.module);
    if (!m.ptx) {
        say("cannot launch `" + plain_name(f.name) + "`: " + m.error);
        return record(cudaErrorInvalidPtx);
    }
    load_(m);
    if (!f.prepared) {
        try {
            ptx::kernel_options ko;
            ko.global_base = m.global_base;
            ko.regs_per_thread = ptxas_registers_(m, f.name);
            f.register_source = ko.regs_per_thread != 0 ? "ptxas " + m.ptxas_target : "estimate";
            f.prepared = std::make_unique<ptx::kernel>(*m.ptx, f.name, ko);
        } catch (const error& e) {
            say("cannot prepare `" + plain_name(f.name) + "`: " + e.what());
            return record(cudaErrorInvalidPtx);
        }
    }
    ptx::kernel& k = *f.prepared;
    k.set_constant_bank(m.constants);
    // shfl, vote and activemask take 32-bit lane masks and the matrix instructions spread a
    // tile over 32 lanes: CUDA defines them for 32-thread warps, and on a preset with wider
    // warps (amoeba_48_fused: 64) their results would be wrong.
    if (const std::uint32_t width = gpu::preset_warp_size(opt_.preset); width != 32)
        for (std::size_t pc = 0; pc < k.size(); ++pc) {
            const ptx::op o = k.at(pc).in.opcode;
            if (ptx::warp_collective(o)) {
                say("cannot launch `" + plain_name(f.name) + "` on " + opt_.preset + ": it uses " +
                    std::string(ptx::name(o)) +
                    ", defined for 32-thread warps, and this preset runs warps of " +
                    std::to_string(width) + " threads");
                return record(cudaErrorInvalidDeviceFunction);
            }
        }
    if (!within_launch_limits(grid, block)) {
        say("launch of `" + plain_name(f.name) + "` with grid " + dims(grid) + " and block " +
            dims(block) +
            ": outside CUDA's limits (blocks up to [1024,1024,64], grids up to "
            "[2147483647,65535,65535])");
        return record(cudaErrorInvalidConfiguration);
    }
    if (shared > 0xffffffffULL) return record(cudaErrorInvalidValue);
    std::vector<std::uint8_t> params(k.param_bytes(), 0);
    for (std::size_t i = 0; i < k.params().size(); ++i) {
        const auto& p = k.params()[i];
        if (args == nullptr || args[i] == nullptr) return record(cudaErrorInvalidValue);
        std::memcpy(params.data() + p.offset, args[i], p.bytes);
    }
    const host::launch_config cfg{
        {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, static_cast<std::uint32_t>(shared)};
    // Launches the configuration check rejects get no number: indices count launches that ran.
    const std::uint64_t index = launches_;
    const std::string plain = plain_name(f.name);
    const bool timed = !opt_.functional && filter_.timed(f.name, plain, index);
    sync_managed_(true);
    host::launch_result r;
    // On a terminal, a kernel running longer than a few seconds says so every few seconds
    // (from a watcher thread that only prints: the simulation is untouched).
    std::optional<progress_line> progress;
    if (!opt_.quiet && ::isatty(STDERR_FILENO) != 0)
        progress.emplace("launch " + std::to_string(index) + " " + plain + " grid " + dims(grid) +
                         " block " + dims(block) + (timed ? "" : " (functional)"));
    // The power model samples the timed launch's counters (stopped again on every way out).
    std::optional<example::activity_sampler> sampler;
    std::vector<gpu::sm_counters> final_counters;
    if (opt_.power && timed) {
        sampler.emplace(dev_.params().sms, example::mapping_params{},
                        dev_.params().memory.model == gpu::memory_model::hierarchy);
        dev_.sample(opt_.power_sample,
                    [&](std::uint64_t cycles, std::span<const gpu::sm_counters> sms, bool done) {
                        sampler->add(cycles, sms);
                        if (done) final_counters.assign(sms.begin(), sms.end());
                    });
    }
    struct stop_sampling {
        host::device& dev;
        ~stop_sampling() { dev.sample(1, {}); }
    } stop{dev_};
    try {
        r = timed ? dev_.launch_packed(k, cfg, std::move(params))
                  : dev_.launch_functional(k, cfg, std::move(params));
    } catch (const config_error& e) {
        say("launch " + std::to_string(index) + " of `" + plain + "`: " + e.what());
        const std::string field = e.what();
        return record(field.find("registers") != std::string::npos ? cudaErrorLaunchOutOfResources
                                                                   : cudaErrorInvalidConfiguration);
    } catch (const error& e) {
        ++launches_;
        sync_managed_(false);
        say("kernel `" + plain + "` (launch " + std::to_string(index) + ", grid " + dims(grid) +
            ", block " + dims(block) + ") failed: " + e.what());
        sticky_ = cudaErrorLaunchFailure;
        return record(cudaErrorLaunchFailure);
    }
    ++launches_;
    sync_managed_(false);
    cycles_ += r.cycles();
    nlohmann::json power;
    if (sampler) {
        sampler->finish(r.cycles(), r.run.memory);
        power = power_record(*sampler);
        power["front_end_sharing"] = sharing_record(final_counters, dev_.params(), r);
        // Only a GPU that gates reports it, so runs without gating keep their records.
        if (dev_.params().sm.gating.policy != gating::policy_kind::no_gating)
            power["gating"] = gating_record(final_counters, dev_.params().sm.gating);
    }
    report_(f, cfg, r, timed, power);
    return cudaSuccess;
}

namespace {
// The start of a stats record (examples/common/output.hpp's schema): "tool" and the
// "command_line" of the program the library runs in, from /proc/self/cmdline (empty when the
// system does not say).
nlohmann::json program_record_start() {
    std::vector<std::string> args;
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    for (std::string a; std::getline(f, a, '\0');)
        args.push_back(a);
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (const auto& a : args)
        argv.push_back(a.c_str());
    return example::record_header("warpkit-cuda", static_cast<int>(argv.size()), argv.data());
}
} // namespace

void runtime::report_(const function_record& f, const host::launch_config& cfg,
                      const host::launch_result& r, bool timed, const nlohmann::json& power) {
    const std::string plain = plain_name(f.name);
    const std::uint64_t index = launches_ - 1;
    const dim3 grid{cfg.grid.x, cfg.grid.y, cfg.grid.z};
    const dim3 block{cfg.block.x, cfg.block.y, cfg.block.z};
    if (!opt_.quiet) {
        std::ostringstream line;
        line << "launch " << index << " " << plain << " grid " << dims(grid) << " block "
             << dims(block) << ": ";
        if (timed)
            line << r.cycles() << " cycles, ";
        else
            line << "functional, ";
        line << r.warp_instructions() << " warp instructions, ipc " << r.ipc() << " ("
             << r.wall_seconds << " s)";
        say(line.str());
    }
    if (stats_.is_open()) {
        if (record_start_.is_null()) {
            record_start_ = program_record_start();
            record_start_["params"] = params_to_json(dev_.params());
        }
        nlohmann::json j = record_start_;
        j["launch"] = index;
        j["kernel"] = plain;
        j["entry"] = f.name;
        j["preset"] = opt_.preset;
        j["grid"] = {grid.x, grid.y, grid.z};
        j["block"] = {block.x, block.y, block.z};
        j["shared_bytes"] = cfg.shared_bytes;
        j["registers_per_thread"] = f.prepared->regs_per_thread();
        j["register_source"] = f.register_source;
        j["timed"] = timed;
        j["cycles"] = r.cycles();
        j["cumulative_cycles"] = cycles_;
        j["thread_instructions"] = r.thread_instructions();
        j["warp_instructions"] = r.warp_instructions();
        j["ipc_thread"] = r.ipc();
        j["ipc_warp"] = r.warp_ipc();
        j["wall_seconds"] = r.wall_seconds;
        if (timed) j["run"] = stats_to_json(r.run);
        if (!power.is_null()) j["power"] = power;
        if (r.first_cta) j["amoeba"] = amoeba_record(*r.first_cta, r.cycles());
        j["ptx"] = stats_to_json(r.ptx);
        stats_ << j.dump() << '\n';
        stats_.flush();
    }
    if (csv_.is_open()) {
        csv_ << index << ',' << plain << ',' << grid.x << ',' << grid.y << ',' << grid.z << ','
             << block.x << ',' << block.y << ',' << block.z << ',' << cfg.shared_bytes << ','
             << (timed ? 1 : 0) << ',' << r.cycles() << ',' << cycles_ << ','
             << r.thread_instructions() << ',' << r.warp_instructions() << ',' << r.ipc() << ','
             << r.warp_ipc() << ',' << r.wall_seconds << '\n';
        csv_.flush();
    }
}

// --- device description ---------------------------------------------------------------------

namespace {
// Compute capability the preset models: Fermi GF100 is 2.0; the Tesla-like GPGPU of paper
// 004 follows compute capability 1.3 (its coalescing rules); AMOEBA's machine is GTX480-like.
std::pair<int, int> compute_capability(const std::string& preset) {
    if (preset == "tesla_seed004") return {1, 3};
    return {2, 0};
}
} // namespace

void runtime::properties(cudaDeviceProp& p) const {
    std::memset(&p, 0, sizeof p);
    const auto& g = dev_.params();
    const std::string name = "warpkit " + opt_.preset;
    std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
    p.totalGlobalMem = static_cast<std::size_t>(g.device_memory_mb << 20);
    p.sharedMemPerBlock = g.shared_bytes;
    p.regsPerBlock = static_cast<int>(g.registers);
    p.warpSize = 32;
    p.memPitch = std::size_t{1} << 31;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim[0] = 1024;
    p.maxThreadsDim[1] = 1024;
    p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 0x7fffffff;
    p.maxGridSize[1] = 65535;
    p.maxGridSize[2] = 65535;
    p.totalConstMem = 65536;
    std::tie(p.major, p.minor) = compute_capability(opt_.preset);
    p.textureAlignment = 256; // cudaMalloc's alignment here
    p.texturePitchAlignment = 32;
    p.maxTexture2DLinear[0] = 65000;
    p.maxTexture2DLinear[1] = 65000;
    p.maxTexture2DLinear[2] = 1 << 20;
    p.multiProcessorCount = static_cast<int>(g.sms);
    p.canMapHostMemory = 0;
    p.unifiedAddressing = 1;
    p.memoryBusWidth = 384;
    {
        // The L2 of the hierarchy: every slice's sets x ways x line (0 on the ideal memory).
        const auto& m = g.memory;
        const auto& c = m.partition.l2.cache;
        const std::uint64_t l2 = m.model == gpu::memory_model::hierarchy
                                     ? std::uint64_t{m.slices()} * c.sets * c.ways * c.line_bytes
                                     : 0;
        p.l2CacheSize = static_cast<int>(std::min<std::uint64_t>(l2, 0x7fffffff));
    }
    p.maxThreadsPerMultiProcessor = static_cast<int>(g.sm.warp_slots * 32);
    p.sharedMemPerMultiprocessor = g.shared_bytes;
    p.regsPerMultiprocessor = static_cast<int>(g.registers);
    p.managedMemory = 1;
    p.sharedMemPerBlockOptin = g.shared_bytes;
    p.maxBlocksPerMultiProcessor = static_cast<int>(g.sm.block_slots);
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
}

cudaError_t runtime::attribute(int* value, cudaDeviceAttr attr) const {
    if (value == nullptr) return cudaErrorInvalidValue;
    cudaDeviceProp p;
    properties(p);
    const auto& g = dev_.params();
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
        *value = p.maxThreadsPerBlock;
        break;
    case cudaDevAttrMaxBlockDimX:
        *value = p.maxThreadsDim[0];
        break;
    case cudaDevAttrMaxBlockDimY:
        *value = p.maxThreadsDim[1];
        break;
    case cudaDevAttrMaxBlockDimZ:
        *value = p.maxThreadsDim[2];
        break;
    case cudaDevAttrMaxGridDimX:
        *value = p.maxGridSize[0];
        break;
    case cudaDevAttrMaxGridDimY:
        *value = p.maxGridSize[1];
        break;
    case cudaDevAttrMaxGridDimZ:
        *value = p.maxGridSize[2];
        break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
        *value = static_cast<int>(p.sharedMemPerBlock);
        break;
    case cudaDevAttrTotalConstantMemory:
        *value = static_cast<int>(p.totalConstMem);
        break;
    case cudaDevAttrWarpSize:
        *value = p.warpSize;
        break;
    case cudaDevAttrMaxRegistersPerBlock:
        *value = p.regsPerBlock;
        break;
    case cudaDevAttrClockRate:
        *value = static_cast<int>(g.core_mhz * 1000);
        break;
    case cudaDevAttrMultiProcessorCount:
        *value = p.multiProcessorCount;
        break;
    case cudaDevAttrComputeCapabilityMajor:
        *value = p.major;
        break;
    case cudaDevAttrComputeCapabilityMinor:
        *value = p.minor;
        break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        *value = p.maxThreadsPerMultiProcessor;
        break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
        *value = static_cast<int>(p.sharedMemPerMultiprocessor);
        break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
        *value = p.regsPerMultiprocessor;
        break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
        *value = p.maxBlocksPerMultiProcessor;
        break;
    case cudaDevAttrGlobalMemoryBusWidth:
        *value = p.memoryBusWidth;
        break;
    case cudaDevAttrL2CacheSize:
        *value = p.l2CacheSize;
        break;
    case cudaDevAttrMemoryClockRate: {
        // CUDA's memory clock is half the data rate per pin (peak bandwidth = 2 x clock x bus
        // width): a GDDR5 command clock of 924 MHz moving four beats a cycle is 1848 MHz.
        const auto& t = g.memory.partition.dram.timing;
        *value = static_cast<int>(g.memory.clocks.dram_mhz * 1000ull * t.beats_per_cycle / 2);
        break;
    }
    case cudaDevAttrManagedMemory:
        *value = 1;
        break;
    case cudaDevAttrUnifiedAddressing:
        *value = 1;
        break;
    case cudaDevAttrConcurrentKernels:
        *value = 0;
        break;
    case cudaDevAttrIntegrated:
        *value = 0;
        break;
    case cudaDevAttrCanMapHostMemory:
        *value = 0;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t runtime::function_attributes(cudaFuncAttributes* a, const void* host_fun) {
    if (a == nullptr) return record(cudaErrorInvalidValue);
    function_record* f = function_of(host_fun);
    if (f == nullptr) return record(cudaErrorInvalidDeviceFunction);
    auto& m = *modules_.at(f->module);
    if (!m.ptx) return record(cudaErrorInvalidPtx);
    load_(m);
    if (!f->prepared) {
        try {
            ptx::kernel_options ko;
            ko.global_base = m.global_base;
            f->prepared = std::make_unique<ptx::kernel>(*m.ptx, f->name, ko);
        } catch (const error& e) {
            say("cannot prepare `" + plain_name(f->name) + "`: " + e.what());
            return record(cudaErrorInvalidPtx);
        }
    }
    const ptx::kernel& k = *f->prepared;
    std::memset(a, 0, sizeof *a);
    a->sharedSizeBytes = k.static_shared_bytes();
    a->constSizeBytes = k.constant_bank().size();
    a->localSizeBytes = k.local_bytes();
    a->numRegs = static_cast<int>(k.regs_per_thread());
    // CUDA's limit for this function on this device: 1024 threads, fewer where one SM's
    // register file holds fewer of its threads (whole warps), as a launch would be refused.
    const std::uint64_t fit =
        k.regs_per_thread() == 0 ? 1024 : dev_.params().registers / k.regs_per_thread() / 32 * 32;
    a->maxThreadsPerBlock = static_cast<int>(std::min<std::uint64_t>(1024, fit));
    a->ptxVersion = static_cast<int>(m.ptx->version_major * 10 + m.ptx->version_minor);
    a->binaryVersion = a->ptxVersion;
    a->maxDynamicSharedSizeBytes =
        static_cast<int>(dev_.params().shared_bytes - k.static_shared_bytes());
    return cudaSuccess;
}

cudaError_t runtime::occupancy(int* blocks, const void* host_fun, int block_size,
                               std::size_t dynamic_shared) {
    if (blocks == nullptr || block_size <= 0) return record(cudaErrorInvalidValue);
    cudaFuncAttributes a;
    if (const cudaError_t e = function_attributes(&a, host_fun); e != cudaSuccess) return e;
    const auto& g = dev_.params();
    const std::uint32_t warps = (static_cast<std::uint32_t>(block_size) + 31) / 32;
    // What gpu::run holds an SM to: the same limits and footprint.
    const gpu::sm_limits lim{g.sm.block_slots, g.sm.warp_slots, g.registers, g.shared_bytes};
    const std::uint64_t regs = std::uint64_t{static_cast<std::uint32_t>(a.numRegs)} * warps * 32;
    const std::uint64_t shared = std::uint64_t{a.sharedSizeBytes} + dynamic_shared;
    constexpr std::uint64_t most = ~std::uint32_t{0};
    const gpu::block_footprint fp{warps, static_cast<std::uint32_t>(std::min(regs, most)),
                                  static_cast<std::uint32_t>(std::min(shared, most))};
    *blocks = static_cast<int>(gpu::blocks_per_sm(lim, fp));
    return cudaSuccess;
}

} // namespace warpkit::cudart
