#pragma once
/// \file
/// `gpu<Policies>`: a whole GPU from the parts: SMs (timing), the CTA dispatcher, the memory
/// hierarchy behind the SMs (or the fixed-latency ideal memory), front-end sharing clusters
/// (paper 000) when cluster_size > 1, device memory, a watchdog. Runs kernels to completion.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/core/tick_pool.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/func/isa_source.hpp>
#include <warpkit/gating/selectable.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/sharing_clusters.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/issue/selectable.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>
#include <warpkit/simt/concepts.hpp>
#include <warpkit/simt/selectable_stack.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpkit::gpu {

/// Whole-GPU parameters: the SM count and shape, per-SM limits, clock, watchdog.
struct gpu_params {
    std::string name = "gpu";
    std::uint32_t sms = 15;
    std::uint32_t core_mhz = 700;
    std::uint32_t schedulers = 2; ///< warp schedulers per SM
    /// The warp scheduling policy (kind) of every scheduler and its params, on a GPU whose
    /// Policies::scheduler is issue::selectable, as every preset's is. A GPU with a static
    /// scheduler type reports that type's kind here.
    issue::scheduler_choice scheduler{};
    /// The SIMT reconvergence stack of every warp: pdom (immediate post-dominators) or ssy
    /// (SSY sync points, paper 004), on a GPU whose Policies::stack is simt::selectable_stack,
    /// as every preset's is. A GPU with a static stack type reports that type's kind here.
    simt::stack_kind simt_stack = simt::stack_kind::pdom;
    /// SMs per cluster: equal block shares and, unless sharing.enabled is false, one
    /// front-end for the cluster (paper 000; 2 to 4 SMs).
    std::uint32_t cluster_size = 1;
    std::uint32_t registers = 32768;    ///< 32-bit registers per SM
    std::uint32_t shared_bytes = 49152; ///< shared memory per SM
    /// Shared memory a block gets when its kernel declares none (`.shared`).
    std::uint32_t default_block_shared_bytes = 0;
    /// Watchdog: stop when no warp instruction issues anywhere for this many cycles.
    std::uint64_t watchdog_cycles = 100000;
    std::uint64_t max_cycles = 1'000'000'000;
    /// Cycles between two calls of a run's `sample` hook (progress reports, power traces).
    std::uint64_t sample_cycles = 1'000'000;
    /// Device memory a host may allocate (MiB): the GTX480's 1536 MB of GDDR5. Papers 002 and
    /// 004 give no capacity; their presets keep this one.
    std::uint64_t device_memory_mb = 1536;
    sm_params sm{};
    /// The memory behind the SMs: the hierarchy (default) or the ideal fixed latencies.
    memory_params memory{};
    /// Front-end sharing in clusters of cluster_size SMs (paper 000).
    reconfig::front_end_sharing_params sharing{};
    /// Host threads that tick the SMs within a cycle (at most one per SM). Results are the
    /// same, byte for byte, for any count: the SMs' device-memory accesses of a cycle are
    /// performed after it in SM order (gpu::run). SMs tick on one thread whatever this says
    /// where they must see each other within a cycle: front-end sharing clusters, AMOEBA's
    /// dynamic split, warpkit-ISA kernels, PTX kernels with texture fetches or matrix loads
    /// and stores (gpu::threads_used says what the last run used).
    std::uint32_t threads = 1;
    void validate() const {
        check_range("sms", sms, 1U, 4096U);
        check_range("threads", threads, 1U, 256U);
        check_range("core_mhz", core_mhz, 1U, 100000U);
        check_range("schedulers", schedulers, 1U, 8U);
        check_range("watchdog_cycles", watchdog_cycles, std::uint64_t{1}, std::uint64_t{1} << 40);
        check_range("max_cycles", max_cycles, std::uint64_t{1}, std::uint64_t{1} << 50);
        check_range("sample_cycles", sample_cycles, std::uint64_t{1}, std::uint64_t{1} << 50);
        check_range("device_memory_mb", device_memory_mb, std::uint64_t{1}, std::uint64_t{1} << 26);
        check(cluster_size >= 1 && sms % cluster_size == 0, "cluster_size", cluster_size,
              "a divisor of sms");
        check(default_block_shared_bytes <= shared_bytes, "default_block_shared_bytes",
              default_block_shared_bytes, "<= shared_bytes");
        check(cluster_size <= reconfig::front_end_sharing::max_members || !sharing.enabled,
              "cluster_size", cluster_size, "<= 4 with front-end sharing enabled");
        check(sm.units.sub_cores == 1 || cluster_size == 1 || !sharing.enabled,
              "sm.units.sub_cores", sm.units.sub_cores,
              "1 with front-end sharing clusters (a master's commands go to one datapath)");
        check(sm.split.mode == reconfig::split_mode::off || cluster_size == 1 || !sharing.enabled,
              "sm.split.mode",
              std::string(
                  enum_names<reconfig::split_mode>::names[static_cast<std::size_t>(sm.split.mode)]),
              "off with front-end sharing clusters");
    }
    WARPKIT_FIELDS(gpu_params, name, sms, core_mhz, schedulers, scheduler, simt_stack, cluster_size,
                   registers, shared_bytes, default_block_shared_bytes, watchdog_cycles, max_cycles,
                   sample_cycles, device_memory_mb, sm, memory, sharing, threads)
};

/// What one kernel run measured.
struct run_stats {
    std::uint64_t cycles = 0;
    sm_stats total{};             ///< all SMs added up
    std::vector<sm_stats> per_sm; ///< indexed by SM
    dispatch_stats dispatch{};
    memory_stats memory{}; ///< the hierarchy's counters (empty with the ideal memory)
    /// The front-end sharing clusters' counters, added up (zero without sharing).
    reconfig::front_end_sharing_stats sharing{};
    /// How the SMs' unified L1 / shared arrays were split for the kernel (zero without one:
    /// memory.l1.unified_bytes 0).
    unified_split l1_split{};
    WARPKIT_FIELDS(run_stats, cycles, total, per_sm, dispatch, memory, sharing, l1_split)

    /// Warp instructions per core cycle over the whole GPU.
    [[nodiscard]] double ipc() const noexcept {
        return cycles == 0
                   ? 0.0
                   : static_cast<double>(total.warp_instructions) / static_cast<double>(cycles);
    }
};

/// A GPU whose SMs are assembled per `Policies` (see sm<>): `Policies::stack` is the SIMT
/// stack of the functional executor. Each `run` launches one kernel (any func::launchable_kernel:
/// a warpkit-ISA kernel, a PTX launch) on fresh SMs; device memory persists in the caller's
/// func::global_memory.
template <class Policies>
class gpu {
public:
    static constexpr std::size_t warp_size = Policies::warp_size;
    /// The SM type that runs kernels of type K.
    template <class K>
    using sm_for = sm<Policies, func::source_of_t<K, warp_size, typename Policies::stack>>;
    using source_type = func::source_of_t<func::isa_kernel, warp_size, typename Policies::stack>;
    using sm_type = sm_for<func::isa_kernel>;
    using scheduler_params = typename Policies::scheduler::params_type;
    /// True when the scheduling policy is a parameter (gpu_params::scheduler).
    static constexpr bool selectable_scheduler =
        std::is_same_v<typename Policies::scheduler, issue::selectable>;
    using stack_type = typename Policies::stack;
    /// True when the SIMT stack's kind is a parameter (gpu_params::simt_stack).
    static constexpr bool selectable_stack =
        std::is_same_v<stack_type, simt::selectable_stack<warp_size>>;

    /// A GPU of params `p`; its schedulers' params are p.scheduler with issue::selectable,
    /// else the static scheduler type's defaults.
    explicit gpu(const gpu_params& p)
        : p_(reported(validated(p))), sched_(scheduler_params_of(p_)) {}
    /// A GPU of params `p` whose static scheduler type gets params `sp`.
    gpu(const gpu_params& p, const scheduler_params& sp) requires(!selectable_scheduler)
        : p_(reported(validated(p))), sched_(sp) {}

    [[nodiscard]] const gpu_params& params() const noexcept { return p_; }

    /// Called with the cycle count, every SM and whether the run is over.
    template <class K>
    using sample_hook_for = std::function<void(std::uint64_t, std::span<const sm_for<K>>, bool)>;
    using sample_hook = sample_hook_for<func::isa_kernel>;
    /// Called with the kernel block index, the SM that ran it and the cycle it completed in.
    template <class K>
    using block_hook_for = std::function<void(std::uint32_t, const sm_for<K>&, std::uint64_t)>;
    using block_hook = block_hook_for<func::isa_kernel>;

    /// Runs `k` to completion. Throws sim_error on a kernel fault, when the watchdog sees no
    /// progress (with every warp's state), or past max_cycles. `observe(sm)` is called for
    /// each SM after the run (stats of the parts); `sample(cycles, sms, done)` every
    /// sample_cycles cycles and once more at the end (done: the SMs are finished);
    /// `block_done(block, sm, cycle)` when a block completes (AMOEBA samples its first CTA).
    /// `warm`: a memory system (built for this GPU's params and SM count) that the run uses
    /// instead of a fresh one and leaves as it is, so L2 and DRAM state carry over from run to
    /// run as on a real GPU; the run's memory counters are what this run added.
    template <func::launchable_kernel K>
    run_stats run(const K& k, func::global_memory& mem,
                  const std::function<void(const sm_for<K>&)>& observe = {},
                  const sample_hook_for<K>& sample = {}, const block_hook_for<K>& block_done = {},
                  memory_system* warm = nullptr) {
        using sm_k = sm_for<K>;
        using source_k = func::source_of_t<K, warp_size, typename Policies::stack>;
        if (k.warp_size() != warp_size)
            throw config_error("kernel.warp_size", std::to_string(k.warp_size()),
                               std::to_string(warp_size));
        const std::uint32_t block_shared =
            k.shared_bytes() != 0 ? k.shared_bytes() : p_.default_block_shared_bytes;
        sm_limits lim;
        lim.max_blocks = p_.sm.block_slots;
        lim.max_warps = p_.sm.warp_slots;
        lim.registers = p_.registers;
        lim.shared_bytes = p_.shared_bytes;
        block_footprint fp;
        fp.warps = k.warps_per_block();
        fp.registers =
            k.regs_per_thread() * k.warps_per_block() * static_cast<std::uint32_t>(warp_size);
        fp.shared_bytes = block_shared;
        if (fp.registers > lim.registers) {
            // Say where the count comes from and which setting makes room.
            std::string from = std::to_string(k.regs_per_thread()) + " per thread x " +
                               std::to_string(fp.registers / k.regs_per_thread()) + " threads";
            if constexpr (requires { k.prepared().max_live_registers(); })
                if (k.prepared().options().regs_per_thread == 0)
                    from += "; the per-thread count is warpkit's estimate from the PTX's " +
                            std::string("liveness (") +
                            std::to_string(k.prepared().max_live_registers()) +
                            " 32-bit registers live at once + " +
                            std::to_string(k.prepared().options().register_reserve) +
                            " reserved), not ptxas's";
            throw config_error(
                "block.registers", std::to_string(fp.registers),
                "<= " + std::to_string(lim.registers) + ", one SM's register file (" + from +
                    "): raise it with --set registers=N, N >= " + std::to_string(fp.registers) +
                    ", or give fewer registers per thread "
                    "(warpkit-run --registers-per-thread N; "
                    "ptx::kernel_options::regs_per_thread)");
        }
        if constexpr (requires { k.prepared().options().timing_registers; })
            if (k.prepared().options().timing_registers > sm_k::tracked_registers)
                throw config_error(
                    "kernel.timing_registers",
                    std::to_string(k.prepared().options().timing_registers),
                    "<= " + std::to_string(sm_k::tracked_registers) +
                        ", the registers the SM's scoreboard tracks (Policies::" +
                        "scoreboard_registers - 1): prepare the kernel for this GPU");
        // A unified L1 / shared array splits for this kernel: shared memory for the blocks
        // an SM can hold, the L1 data cache the rest.
        memory_params memory = p_.memory;
        run_stats rs;
        if (p_.memory.l1.unified_bytes > 0) {
            const std::uint64_t blocks = blocks_per_sm(lim, fp);
            if (blocks > 0) {
                rs.l1_split = unified_split_for(p_.memory.l1, blocks * fp.shared_bytes);
                lim.shared_bytes = rs.l1_split.shared_bytes;
                // The SMs see an L1 of the split's size (no array left to split).
                memory.l1.data.cache.ways = rs.l1_split.l1_ways;
                memory.l1.unified_bytes = 0;
                memory.l1.shared_options_kb.clear();
            }
        }
        cta_dispatcher disp(p_.sms, lim, p_.cluster_size);
        disp.launch(k.blocks(), fp);

        typename sm_k::scheduler_bank_type::params_type bank;
        bank.schedulers = p_.schedulers;
        bank.scheduler = sched_;
        std::vector<sm_k> sms;
        sms.reserve(p_.sms);
        for (std::uint32_t i = 0; i < p_.sms; ++i)
            sms.emplace_back(i, p_.sm, bank,
                             source_k(k, mem, p_.sm.contexts(), p_.sm.block_slots, block_shared,
                                      stack_prototype()),
                             memory);
        // SM i talks to the memory system as its SM i: every core cycle one reply in before
        // the SM's tick, one request out after it, then one core cycle of the memory side.
        std::optional<memory_system> fresh;
        memory_system* msys = nullptr;
        memory_stats before{};
        if (p_.memory.model == memory_model::hierarchy) {
            if (warm != nullptr) {
                if (warm->sms() != p_.sms)
                    throw config_error("warm memory system", std::to_string(warm->sms()) + " SMs",
                                       std::to_string(p_.sms) + " SMs (this GPU's)");
                msys = warm;
                before = warm->stats();
            } else {
                msys = &fresh.emplace(p_.memory, p_.sms, p_.core_mhz);
            }
        }

        // Front-end sharing: the clusters group at launch, before any block arrives.
        std::optional<sharing_clusters<sm_k>> fs;
        if (p_.cluster_size > 1 && p_.sharing.enabled) {
            fs.emplace(p_.sharing, p_.sms, p_.cluster_size, p_.sm.warp_slots, branch_hints(k));
            fs->launch(sms);
        }

        // SMs on several threads: each ticks on its thread, holding its device-memory
        // accesses and completed blocks back; after the cycle they are performed SM by SM,
        // in the order one thread would have.
        const unsigned threads = threads_for_(sms, fs.has_value());
        threads_used_ = threads;
        std::optional<tick_pool> pool;
        std::vector<std::vector<std::uint32_t>> finished(threads > 1 ? sms.size() : 0);
        if (threads > 1) {
            pool.emplace(threads - 1);
            for (auto& s : sms)
                s.defer_memory(true);
        }
        // Thread t of the pool works on SMs [n t / threads, n (t + 1) / threads).
        const auto share = [&sms, threads](unsigned t, auto&& each) {
            const std::size_t n = sms.size();
            for (std::size_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
                each(i);
        };
        const auto tick_share = [&](unsigned t) {
            share(t, [&](std::size_t i) {
                sms[i].tick([&finished, i](std::uint32_t b) { finished[i].push_back(b); });
            });
        };
        // A cycle whose held accesses are loads alone commits each SM's on the SM's thread
        // (nothing writes device memory, so the order cannot matter).
        const auto commit_share = [&](unsigned t) {
            share(t, [&](std::size_t i) { sms[i].commit_memory(true); });
        };

        std::vector<cta_dispatcher::placement> placed;
        placed.reserve(p_.cluster_size);
        std::uint64_t last_progress = 0;
        std::uint64_t last_count = 0;
        for (std::uint64_t cycle = 0;; ++cycle) {
            if (disp.dispatch(placed, [&](std::uint32_t c) {
                    return !fs || fs->accepts_blocks(c, sms);
                }) > 0) {
                for (const auto& pl : placed)
                    sms[pl.sm].start_block(pl.block, fp.warps);
                if (fs) fs->dispatched(placed, cycle);
            }
            if (msys)
                for (std::uint32_t i = 0; i < p_.sms; ++i)
                    if (sms[i].can_receive() && msys->has_reply(i))
                        sms[i].receive(msys->take_reply(i));
            if (fs) fs->before_tick(sms, cycle);
            std::uint64_t issued = 0;
            if (pool) {
                pool->run(tick_share);
                bool writes = false;
                std::size_t held = 0;
                for (const auto& s : sms) {
                    writes = writes || s.holds_memory_writes();
                    held += s.memory_held();
                }
                // Loads alone commit on their SMs' threads, which hold those SMs' registers in
                // their caches (even a few: committing them here costs more than the fork and
                // join); a cycle that holds none needs neither.
                const bool parallel = !writes && held > 0;
                if (parallel) pool->run(commit_share);
                for (std::size_t i = 0; i < sms.size(); ++i) {
                    auto& s = sms[i];
                    if (!parallel) s.commit_memory();
                    for (const std::uint32_t b : finished[i]) {
                        disp.retire(s.id());
                        if (block_done) block_done(b, s, cycle);
                    }
                    finished[i].clear();
                    issued += s.warp_instructions();
                }
            } else {
                for (auto& s : sms) {
                    s.tick([&](std::uint32_t b) {
                        disp.retire(s.id());
                        if (block_done) block_done(b, s, cycle);
                    });
                    issued += s.warp_instructions();
                }
            }
            if (fs) fs->after_tick(sms, cycle);
            if (msys) {
                for (std::uint32_t i = 0; i < p_.sms; ++i)
                    if (sms[i].has_request() && msys->can_send(i)) {
                        msys->send(sms[i].request());
                        sms[i].pop_request();
                    }
                msys->cycle();
            }
            rs.cycles = cycle + 1;
            const bool done =
                disp.done() &&
                std::all_of(sms.begin(), sms.end(), [](const sm_k& s) { return s.idle(); }) &&
                (!msys || msys->idle()) && (!fs || fs->idle());
            if (done)
                for (auto& s : sms)
                    s.finish();
            if (sample && (done || rs.cycles % p_.sample_cycles == 0))
                sample(rs.cycles, std::span<const sm_k>(sms), done);
            if (done) break;
            if (issued != last_count) {
                last_count = issued;
                last_progress = cycle;
            } else if (cycle - last_progress >= p_.watchdog_cycles) {
                std::string state;
                for (const auto& s : sms)
                    state += s.describe_warps();
                throw sim_error("watchdog: no warp instruction issued for " +
                                std::to_string(p_.watchdog_cycles) + " cycles (cycle " +
                                std::to_string(cycle) + ", " + std::to_string(disp.pending()) +
                                " blocks not yet dispatched)" + state);
            }
            if (rs.cycles >= p_.max_cycles) {
                std::string state;
                for (const auto& s : sms)
                    state += s.describe_warps();
                throw sim_error("max_cycles: kernel still running after " +
                                std::to_string(p_.max_cycles) + " cycles" + state);
            }
        }
        for (auto& s : sms) {
            rs.per_sm.push_back(s.stats());
            if (observe) observe(s);
        }
        rs.total = sum_stats(rs.per_sm);
        rs.dispatch = disp.stats();
        if (fs) rs.sharing = fs->stats();
        if (msys) {
            rs.memory = msys->stats();
            if (msys == warm) subtract(rs.memory, before);
            rs.memory.sms.reserve(sms.size());
            for (const auto& s : sms)
                rs.memory.sms.push_back(s.memory_stats());
        }
        return rs;
    }

    /// The host threads the last run ticked its SMs on: params().threads, at most one per
    /// SM, and one where the SMs must see each other within a cycle (gpu_params::threads).
    [[nodiscard]] unsigned threads_used() const noexcept { return threads_used_; }

private:
    template <class Sms>
    [[nodiscard]] unsigned threads_for_(const Sms& sms, bool sharing) const {
        const bool defer =
            std::all_of(sms.begin(), sms.end(), [](const auto& s) { return s.can_defer_memory(); });
        return threads_of_(defer, sharing);
    }
    [[nodiscard]] unsigned threads_of_(bool defer, bool sharing) const noexcept {
        if (!defer || sharing || p_.sm.split.mode != reconfig::split_mode::off) return 1;
        return std::min(p_.threads, p_.sms);
    }
    // The params as this GPU runs them: a static scheduler type's kind replaces p.scheduler's
    // where it is one of the selectable kinds, a static stack type's kind p.simt_stack, a
    // static coalescer type's kind p.sm.coalescer and a static gating policy's kind
    // p.sm.gating.policy (params() then says what really schedules, reconverges, coalesces
    // and gates).
    [[nodiscard]] static gpu_params reported(gpu_params p) {
        if constexpr (!selectable_scheduler) {
            const auto& names = enum_names<issue::scheduler_kind>::names;
            for (std::size_t i = 0; i < names.size(); ++i)
                if (names[i] == Policies::scheduler::kind)
                    p.scheduler.kind = static_cast<issue::scheduler_kind>(i);
        }
        p.sm.coalescer = mem::kind_of<typename Policies::coalescer>(p.sm.coalescer);
        p.sm.gating.policy = gating::kind_of<typename Policies::gating_policy>(p.sm.gating.policy);
        if constexpr (!selectable_stack)
            p.simt_stack =
                simt::sync_point_stack<stack_type> ? simt::stack_kind::ssy : simt::stack_kind::pdom;
        return p;
    }
    // The stack every warp starts with: of kind p_.simt_stack on a selectable_stack.
    [[nodiscard]] stack_type stack_prototype() const {
        return simt::make_stack<stack_type>(p_.simt_stack);
    }
    [[nodiscard]] static scheduler_params scheduler_params_of(const gpu_params& p) {
        if constexpr (selectable_scheduler)
            return p.scheduler;
        else
            return scheduler_params{};
    }

    gpu_params p_;
    scheduler_params sched_;
    unsigned threads_used_ = 1;
};

} // namespace warpkit::gpu
