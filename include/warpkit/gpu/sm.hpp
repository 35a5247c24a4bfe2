#pragma once
/// \file
/// `sm<Policies, Source>`: the timing model of one streaming multiprocessor, assembled from
/// the parts: per-warp instruction buffers fed by a fetch stage, a scoreboard, a bank of warp
/// schedulers, the execution clusters with optional power gating, shared-memory banks, a
/// coalescer and pending request table, and behind the LD/ST unit either a fixed-latency
/// ("ideal") memory or, with the hierarchy memory model, an L1 data cache and a constant cache
/// with their MSHRs whose misses, writes and atomics leave through a request port and whose
/// replies come back through a reply port (the GPU connects both to its memory_system).
/// Instructions come from an instruction source (functional execution at issue).

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/gating/adaptive_idle_detect.hpp>
#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/idle_detect_tuner.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/warp_view.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/pending_request_table.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>
#include <warpkit/mem/transaction.hpp>
#include <warpkit/reconfig/sm_split.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit::gpu {

/// Parameters of one SM. Defaults: GTX480 (paper 003 Section 2.1 / 6: 48 warps, 8 blocks,
/// two schedulers issuing one warp each per cycle); memory latencies are the microbenchmarked
/// Tesla-class figures of Wong et al. (ISPASS 2010: shared 38, global about 440 cycles).
/// global_latency and const_latency apply to the ideal memory model only.
struct sm_params {
    std::uint32_t warp_slots = 48;   ///< resident warps
    std::uint32_t block_slots = 8;   ///< resident blocks
    std::uint32_t issue_width = 2;   ///< warp instructions issued per cycle
    std::uint32_t ibuffer_depth = 2; ///< decoded instructions buffered per warp
    std::uint32_t fetch_width = 1;   ///< warps fetched per cycle
    std::uint32_t fetch_latency = 1; ///< cycles from fetch to a filled instruction buffer
    std::uint32_t shared_latency = 38;
    /// Lanes that reach the shared-memory banks together (Fermi: a warp; paper 004: a row;
    /// a fused AMOEBA SM: its 64-thread warp).
    std::uint32_t bank_group_lanes = 32;
    /// Bank conflicts replay the unserved lanes through the warp (paper 004) instead of
    /// holding the LD/ST unit for the extra passes.
    bool shared_replay = false;
    std::uint32_t const_latency = 38;
    std::uint32_t global_latency = 440;
    exec::units_params units{};
    mem::bank_params banks{};
    gating::params gating{};
    /// AMOEBA's dynamic split of a fused SM (paper 002 Sec. 4.3; off: the SM never splits).
    reconfig::sm_split_params split{};
    void validate() const {
        check_range("warp_slots", warp_slots, 1U, 64U);
        if (split.mode != reconfig::split_mode::off)
            check(warp_slots <= 32, "warp_slots", warp_slots,
                  "<= 32 with split.mode on (a cut warp takes a second slot)");
        check_range("block_slots", block_slots, 1U, 64U);
        check_range("issue_width", issue_width, 1U, 8U);
        check_range("ibuffer_depth", ibuffer_depth, 1U, 16U);
        check_range("fetch_width", fetch_width, 1U, 64U);
        check_range("fetch_latency", fetch_latency, 1U, 1000U);
        check_range("shared_latency", shared_latency, 1U, 100000U);
        check(bank_group_lanes >= 1 && bank_group_lanes <= 64 && 64 % bank_group_lanes == 0,
              "bank_group_lanes", bank_group_lanes, "a divisor of 64");
        check_range("const_latency", const_latency, 1U, 100000U);
        check_range("global_latency", global_latency, 1U, 100000U);
    }
    WARPKIT_FIELDS(sm_params, warp_slots, block_slots, issue_width, ibuffer_depth, fetch_width,
                   fetch_latency, shared_latency, bank_group_lanes, shared_replay, const_latency,
                   global_latency, units, banks, gating, split)

    /// Warp contexts an SM needs: the warp slots, twice as many when it may split (a cut
    /// warp's second part lives in a slot of its own).
    [[nodiscard]] std::uint32_t contexts() const noexcept {
        return split.mode == reconfig::split_mode::off ? warp_slots : 2 * warp_slots;
    }
};

/// Why an issue cycle did not use all its slots: the most advanced obstacle among the warps.
struct stall_stats {
    std::uint64_t idle = 0;       ///< no resident warp
    std::uint64_t fetch = 0;      ///< instruction buffers empty
    std::uint64_t barrier = 0;    ///< warps wait at a barrier
    std::uint64_t scoreboard = 0; ///< operands not ready
    std::uint64_t unit = 0;       ///< the unit class is busy
    std::uint64_t gated = 0;      ///< the unit class is power gated or waking
    WARPKIT_FIELDS(stall_stats, idle, fetch, barrier, scoreboard, unit, gated)
};

/// Counters of one SM.
struct sm_stats {
    std::uint64_t cycles = 0;
    std::uint64_t active_cycles = 0; ///< cycles with at least one resident warp
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
    std::array<std::uint64_t, isa::unit_class_count> issued_by_unit{};
    stall_stats stalls{}; ///< cycles with fewer issues than issue_width, by cause
    std::uint64_t fetches = 0;
    std::uint64_t ibuffer_flushes = 0;
    std::uint64_t blocks_completed = 0;
    std::uint64_t shared_accesses = 0;
    std::uint64_t shared_bank_passes = 0;
    std::uint64_t shared_replays = 0; ///< extra issues of conflicting shared accesses
    std::uint64_t global_accesses = 0;
    std::uint64_t global_transactions = 0;
    std::uint64_t const_accesses = 0;
    std::uint64_t barrier_releases = 0;
    /// Resident blocks summed over cycles (over `cycles`: the mean concurrent CTAs).
    std::uint64_t block_cycles = 0;
    /// Threads launched into the issuing warp summed over issued warp instructions (with
    /// thread_instructions: the threads a warp instruction leaves idle).
    std::uint64_t warp_threads = 0;
    std::uint64_t global_loads = 0;  ///< warp loads from global or local memory
    std::uint64_t global_stores = 0; ///< warp stores to global or local memory
    /// Active threads of those loads and stores (the accesses before coalescing).
    std::uint64_t global_lane_accesses = 0;
    /// Network flits of the requests the SM sent (hierarchy model).
    std::uint64_t request_flits = 0;
    std::uint64_t warps_started = 0;  ///< warps of dispatched blocks with live threads, and cut parts
    std::uint64_t warps_finished = 0; ///< warps whose every thread exited (cut parts included)
    reconfig::sm_split_stats split{}; ///< AMOEBA's dynamic split (zero when off)
    std::uint64_t tex_accesses = 0;   ///< warp texture fetches (tex)
    WARPKIT_FIELDS(sm_stats, cycles, active_cycles, warp_instructions, thread_instructions,
                   issued_by_unit, stalls, fetches, ibuffer_flushes, blocks_completed,
                   shared_accesses, shared_bank_passes, shared_replays, global_accesses,
                   global_transactions, const_accesses, barrier_releases, block_cycles,
                   warp_threads, global_loads, global_stores, global_lane_accesses, request_flits,
                   warps_started, warps_finished, split, tex_accesses)
};

/// The op_class (latency / initiation interval group) of a static instruction.
[[nodiscard]] constexpr exec::op_class op_class_of(const isa::static_inst& s) noexcept {
    using L = isa::latency_class;
    switch (s.latency) {
    case L::int_mul:
    case L::int_mad:
        return exec::op_class::int_mul;
    case L::fp_add:
        return exec::op_class::fp_add;
    case L::fp_mul:
        return exec::op_class::fp_mul;
    case L::fp_mad:
        return exec::op_class::fp_mad;
    // Divides and double precision have pipelines of their own (PTX kernels use them).
    case L::int_div:
    case L::fp_div:
    case L::dp_add:
    case L::dp_mul:
    case L::dp_fma:
    case L::dp_div:
        return exec::op_class_of(s.latency, s.unit);
    case L::sfu:
        return exec::op_class::sfu;
    case L::shared_mem:
    case L::const_mem:
    case L::global_mem:
    case L::atomic:
        return exec::op_class::ldst;
    default:
        break;
    }
    switch (s.unit) {
    case isa::unit_class::fp:
        return exec::op_class::fp_add;
    case isa::unit_class::sfu:
        return exec::op_class::sfu;
    case isa::unit_class::ldst:
        return exec::op_class::ldst;
    default:
        return exec::op_class::int_add;
    }
}

/// `Base`'s gating decisions against an idle-detect register shared by all clusters of one
/// unit type: how an SM runs `gating::adaptive_idle_detect<Base>`. Warped Gates (Sections 5.1
/// and 6) keeps one critical-wakeup counter and one idle-detect register per type (INT, FP),
/// read by the idle-detect logic of both clusters of the type; the SM counts the type's
/// critical wakeups in its own idle_detect_tuner and loads the register after every cycle.
template <gating::policy Base>
class shared_idle_detect {
public:
    static constexpr bool blackout = Base::blackout;

    explicit shared_idle_detect(const gating::params& p) : base_(p), value_(p.idle_detect) {}
    [[nodiscard]] static std::string name() { return "adaptive_idle_detect<" + Base::name() + ">"; }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept { return value_; }
    [[nodiscard]] gating::decision decide(const gating::gate_view& v) const noexcept {
        return base_.decide(v);
    }
    gating::adaptation end_cycle(bool critical) noexcept {
        static_cast<void>(base_.end_cycle(critical));
        return gating::adaptation::none; // the type's tuner adapts, not the cluster
    }
    /// Loads the register (the one piece of the policy written from outside).
    void load(std::uint32_t idle_detect) noexcept { value_ = idle_detect; }

private:
    Base base_;
    std::uint32_t value_;
};

namespace detail {
/// The policy an SM gives each INT / FP cluster's controller for the policy `P` it is asked for.
template <class P>
struct cluster_policy {
    using type = P;
    static constexpr bool per_type_idle_detect = false;
};
template <class B>
struct cluster_policy<gating::adaptive_idle_detect<B>> {
    using type = shared_idle_detect<B>;
    static constexpr bool per_type_idle_detect = true;
};
} // namespace detail

/// Adaptive idle-detect counters of one unit type (kept by the SM for shared registers).
struct type_adaptation_stats {
    std::uint64_t epochs = 0;
    std::uint64_t critical_wakeups = 0; ///< of both clusters, as the type's counter saw them
    std::uint64_t idle_detect_increments = 0;
    std::uint64_t idle_detect_decrements = 0;
    WARPKIT_FIELDS(type_adaptation_stats, epochs, critical_wakeups, idle_detect_increments,
                   idle_detect_decrements)
};

/// One SM. `Policies` names the parts: `warp_size`, `scheduler` (one scheduler; the SM runs
/// a bank of them), `gating_policy` (gating::no_gating to disable gating), `coalescer`.
/// `Source` supplies the warps (func::instruction_source).
template <class Policies, class Source>
requires func::instruction_source<Source, Policies::warp_size>
class sm {
public:
    static constexpr std::size_t warp_size = Policies::warp_size;
    using scheduler_bank_type = issue::scheduler_bank<typename Policies::scheduler>;
    /// Controller of one INT or FP cluster (adaptive idle-detect runs as shared_idle_detect).
    using gating_controller =
        gating::controller<typename detail::cluster_policy<typename Policies::gating_policy>::type>;
    /// True when idle-detect adapts per unit type (one register for the clusters of a type).
    static constexpr bool per_type_idle_detect =
        detail::cluster_policy<typename Policies::gating_policy>::per_type_idle_detect;
    using coalescer_type = typename Policies::coalescer;
    using params_type = sm_params;
    using stats_type = sm_stats;

    /// What travels down an execution pipeline: the warp and the registers it will write.
    struct payload {
        std::uint32_t slot = 0;
        issue::operands writes{};
    };

    /// SM `id` running `source`'s warps; `memory` says what answers its LD/ST unit (the
    /// ideal fixed-latency memory unless a hierarchy is given; the L1 side comes from
    /// memory.l1).
    sm(std::uint32_t id, const sm_params& p, const typename scheduler_bank_type::params_type& sched,
       Source source, const memory_params& memory = ideal_memory())
        : id_(id), p_(checked(p)), source_(std::move(source)), sched_(sched), sched1_(sched),
          units_(p_.units), units1_(p_.units), scoreboard_(issue::scoreboard_params{p_.contexts()}),
          banks_(p_.banks), warps_(p_.contexts()), blocks_(p_.block_slots), split_(p_.split),
          uses_hierarchy_(memory.model == memory_model::hierarchy),
          l1_(uses_hierarchy_ ? checked_l1_(memory) : minimal_l1_()), prt_(l1_.prt), prt_pending_(l1_.prt.entries),
          l1d_(l1_.data), const_(l1_.constant), tex_(l1_.texture),
          write_bytes_(l1_.data.miss_queue), atomics_(l1_.atomic_queue), replies_(l1_.reply_queue),
          flit_bytes_(std::max(1U, memory.noc.flit_bytes())),
          header_bytes_(memory.noc.header_bytes) {
        if (sched.schedulers > p_.issue_width)
            throw config_error("issue_width", std::to_string(p_.issue_width),
                               ">= the number of schedulers (" + std::to_string(sched.schedulers) +
                                   ")");
        for (auto& w : warps_)
            w.ibuf.reserve(p_.ibuffer_depth);
        for (std::size_t c = 0; c < 2 * std::size_t{p_.units.sp_count}; ++c)
            gates_.emplace_back(p_.gating);
        if constexpr (per_type_idle_detect)
            for (std::size_t t = 0; t < 2; ++t)
                tuners_.emplace_back(p_.gating);
        events_.reserve(std::size_t{p_.contexts()} * 4);
        views_.resize(p_.contexts());
        if (split_.enabled()) check_split_();
    }

    /// Block slots free for a new block.
    [[nodiscard]] bool has_free_block_slot(std::uint32_t warps_needed) const {
        std::uint32_t free_warps = 0;
        for (std::uint32_t s = 0; s < p_.warp_slots; ++s)
            free_warps += warps_[s].resident ? 0 : 1;
        return free_warps >= warps_needed &&
               std::any_of(blocks_.begin(), blocks_.end(),
                           [](const block& b) { return !b.resident; });
    }

    /// Starts kernel block `index` with `warps` warps on this SM.
    void start_block(std::uint32_t index, std::uint32_t warps) {
        std::uint32_t bslot = 0;
        while (bslot < blocks_.size() && blocks_[bslot].resident)
            ++bslot;
        WARPKIT_EXPECTS(bslot < blocks_.size());
        slots_tmp_.clear();
        if (sharing_.role() == cluster_role::none) {
            for (std::uint32_t s = 0; s < p_.warp_slots && slots_tmp_.size() < warps; ++s)
                if (!warps_[s].resident) slots_tmp_.push_back(s);
        } else {
            // The members of a front-end sharing cluster run the same warps in the same slots.
            // A slave frees a warp's slot later than its master (it runs behind), so taking
            // the lowest free slots could differ between members; a block's warps take the
            // slots of its block slot instead (as GPGPU-Sim numbers a CTA's warps), and a
            // grouped cluster gets blocks only while its members have the same block slots
            // free (sharing_clusters::accepts_blocks).
            for (std::uint32_t s = bslot * warps; s < (bslot + 1) * warps && s < p_.warp_slots; ++s)
                if (!warps_[s].resident) slots_tmp_.push_back(s);
        }
        WARPKIT_EXPECTS(slots_tmp_.size() == warps);
        source_.start_block(bslot, index, std::span<const std::uint32_t>(slots_tmp_));
        blocks_[bslot] = block{true, index, warps};
        for (auto s : slots_tmp_) {
            auto& w = warps_[s];
            w = warp{};
            w.ibuf.reserve(p_.ibuffer_depth);
            w.resident = !source_.finished(s);
            w.block_slot = bslot;
            w.age = next_age_++;
            if (!w.resident)
                --blocks_[bslot].live_warps;
            else
                ++s_.warps_started;
        }
        ++resident_blocks_;
    }

    /// Advances one core cycle. Completed blocks are reported through `on_block_done(index)`.
    template <class OnBlockDone>
    void tick(OnBlockDone&& on_block_done) {
        ++s_.cycles;
        if (resident_blocks_ > 0) ++s_.active_cycles;
        s_.block_cycles += resident_blocks_;
        sharing_.begin_cycle();
        if (uses_hierarchy_) receive_();
        writeback_();
        if (uses_hierarchy_) access_();
        power_();
        // A slave of a sharing cluster executes the master's instructions; its own fetch,
        // decode and schedulers are gated until the cluster has ungrouped.
        if (sharing_.slave_shared()) {
            execute_commands_();
        } else {
            issue_(0);
            if (split_.split()) issue_(1);
        }
        gate_();
        if (split_.enabled()) split_step_();
        if (!sharing_.slave_shared()) fetch_();
        retire_blocks_(on_block_done);
        units_.tick();
        units1_.tick();
        ++now_;
    }

    /// True when no block is resident and nothing is in flight.
    [[nodiscard]] bool idle() const noexcept {
        return resident_blocks_ == 0 && events_.empty() && units_.busy_mask() == 0 &&
               units1_.busy_mask() == 0 &&
               (!uses_hierarchy_ || memory_idle_()) && sharing_.quiet();
    }
    /// True while a block is resident or anything is in flight.
    [[nodiscard]] bool busy() const noexcept { return !idle(); }

    // ---- front-end sharing (paper 000; gpu/sharing_clusters.hpp drives the cluster) ------

    /// Joins a sharing cluster of `members` SMs as member `member` (0: the master) whose
    /// InstPackets take `communicate` cycles; the links carry `words` InstPacket words per
    /// cycle, a branch takes `branch_words`.
    void join_cluster(std::uint32_t member, std::uint32_t members, std::uint32_t communicate,
                      std::uint32_t words, std::uint32_t branch_words) {
        sharing_.join(member, members, communicate, words, branch_words,
                 issue::scoreboard_params{p_.warp_slots});
    }
    /// The SM's part in its sharing cluster (role none outside one).
    [[nodiscard]] cluster_member& cluster() noexcept { return sharing_; }
    [[nodiscard]] const cluster_member& cluster() const noexcept { return sharing_; }

    // ---- memory ports (hierarchy model) -------------------------------------------------
    // Every core cycle the GPU may hand the SM one reply (before tick) and take one request
    // (after tick). Requests come from the L1 data cache's miss queue, the constant cache's,
    // the atomics queue and the texture cache's miss queue in turn.

    /// True when the SM uses the memory hierarchy (its ports are live).
    [[nodiscard]] bool uses_hierarchy() const noexcept { return uses_hierarchy_; }
    /// True when a request waits to leave.
    [[nodiscard]] bool has_request() const noexcept { return port_pick_() != no_port_; }
    /// The request that leaves next (has_request() must hold).
    [[nodiscard]] mem_message request() const {
        const std::uint32_t k = port_pick_();
        WARPKIT_EXPECTS(k != no_port_);
        if (k == 2) {
            mem_message m = atomics_.front();
            m.sent = now_;
            return m;
        }
        const auto& c = cache_of_port_(k);
        const mem::mem_request& r = c.miss_queue().front();
        mem_message m;
        m.addr = r.addr;
        m.sm = id_;
        m.sectors = r.sectors;
        m.sent = now_;
        const std::uint32_t line = c.params().cache.line_bytes;
        switch (r.kind) {
        case mem::mem_request_kind::read:
            m.kind = k == 0 ? mem_kind::read : (k == 1 ? mem_kind::const_read : mem_kind::tex_read);
            m.reply_bytes = line;
            break;
        case mem::mem_request_kind::write:
            m.kind = mem_kind::write;
            m.data_bytes = write_bytes_.front();
            break;
        case mem::mem_request_kind::writeback:
            m.kind = mem_kind::write;
            m.data_bytes = line;
            break;
        }
        return m;
    }
    /// Removes the request request() returned (it was sent).
    void pop_request() {
        const std::uint32_t k = port_pick_();
        WARPKIT_EXPECTS(k != no_port_);
        s_.request_flits += flits_(wire_bytes(request(), header_bytes_));
        if (k == 2) {
            atomics_.pop();
            ++ms_.atomics_sent;
        } else {
            auto& q = cache_of_port_(k).miss_queue();
            switch (q.front().kind) {
            case mem::mem_request_kind::read:
                ++(k == 0 ? ms_.reads_sent : (k == 1 ? ms_.const_reads_sent : ms_.tex_reads_sent));
                break;
            case mem::mem_request_kind::write:
                write_bytes_.pop();
                [[fallthrough]];
            case mem::mem_request_kind::writeback:
                ++ms_.writes_sent;
                ++writes_pending_;
                break;
            }
            q.pop();
        }
        port_next_ = (k + 1) % ports_;
    }
    /// True when the SM can take a reply this cycle.
    [[nodiscard]] bool can_receive() const noexcept { return uses_hierarchy_ && replies_.can_push(); }
    /// A reply to one of the SM's requests (handled in the next tick, one per cycle).
    void receive(const mem_message& reply) {
        WARPKIT_EXPECTS(can_receive() && reply.reply && reply.sm == id_);
        replies_.push(reply);
    }
    /// Counters of the SM's memory side (zero with the ideal memory).
    [[nodiscard]] sm_memory_stats memory_stats() const {
        sm_memory_stats m = ms_;
        if (uses_hierarchy_) {
            m.l1d = l1d_.stats();
            m.constant = const_.stats();
            m.texture = tex_.stats();
            m.prt = prt_.stats();
        }
        return m;
    }
    /// The L1 data cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& l1d() const noexcept { return l1d_; }
    /// The constant cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& constant_cache() const noexcept {
        return const_;
    }
    /// The texture cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& texture_cache() const noexcept {
        return tex_;
    }
    [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
    /// Bit b set while block slot b holds a block.
    [[nodiscard]] std::uint64_t resident_block_slots() const noexcept {
        std::uint64_t m = 0;
        for (std::size_t b = 0; b < blocks_.size(); ++b)
            if (blocks_[b].resident) m |= std::uint64_t{1} << b;
        return m;
    }
    [[nodiscard]] const sm_params& params() const noexcept { return p_; }
    [[nodiscard]] const sm_stats& stats() const noexcept { return s_; }
    /// Restarts the counters of the SM and of every part in it (schedulers, scoreboard,
    /// execution units, shared-memory banks, gating controllers, split and sharing
    /// controllers, L1 caches, PRT) from zero, so a warm-up can be left out; warps, queues,
    /// cache contents and power states stay. The instruction source keeps its own counts.
    void reset_stats() {
        reset_counters(s_);
        reset_counters(ms_);
        adaptation_ = {};
        sched_.reset_stats();
        sched1_.reset_stats();
        units_.reset_stats();
        units1_.reset_stats();
        scoreboard_.reset_stats();
        banks_.reset_stats();
        split_.reset_stats();
        for (auto& g : gates_)
            g.reset_stats();
        sharing_.reset_stats();
        prt_.reset_stats();
        l1d_.reset_stats();
        const_.reset_stats();
        tex_.reset_stats();
    }
    [[nodiscard]] const exec::execution_units<payload>& units() const noexcept { return units_; }
    /// The execution units of a split SM's second half (SM1; idle unless split.mode is on).
    [[nodiscard]] const exec::execution_units<payload>& second_units() const noexcept {
        return units1_;
    }
    /// The switch controller of AMOEBA's dynamic split.
    [[nodiscard]] const reconfig::sm_split_controller& split_controller() const noexcept {
        return split_;
    }
    [[nodiscard]] const scheduler_bank_type& schedulers() const noexcept { return sched_; }
    [[nodiscard]] const issue::scoreboard& scoreboard() const noexcept { return scoreboard_; }
    /// Gating controllers of the INT clusters (0 .. sp_count-1) then the FP clusters.
    [[nodiscard]] const std::vector<gating_controller>& gates() const noexcept { return gates_; }
    /// The idle-detect threshold in force for unit type `u` (int_alu or fp).
    [[nodiscard]] std::uint32_t idle_detect(isa::unit_class u) const {
        WARPKIT_EXPECTS(u == isa::unit_class::int_alu || u == isa::unit_class::fp);
        return gates_[type_of_(u) * p_.units.sp_count].idle_detect();
    }
    /// Adaptive idle-detect counters of unit type `u` (zero unless per_type_idle_detect).
    [[nodiscard]] const type_adaptation_stats& adaptation(isa::unit_class u) const {
        WARPKIT_EXPECTS(u == isa::unit_class::int_alu || u == isa::unit_class::fp);
        return adaptation_[type_of_(u)];
    }
    [[nodiscard]] const Source& source() const noexcept { return source_; }
    [[nodiscard]] std::uint64_t warp_instructions() const noexcept { return s_.warp_instructions; }

    /// One line per resident warp: slot, pc-independent state (for deadlock reports).
    [[nodiscard]] std::string describe_warps() const {
        std::string out;
        for (std::uint32_t s = 0; s < warps_.size(); ++s) {
            const auto& w = warps_[s];
            if (!w.resident) continue;
            out += "\n  sm " + std::to_string(id_) + " warp slot " + std::to_string(s) +
                   ": block " + std::to_string(blocks_[w.block_slot].index);
            if constexpr (requires { source_.pc(s); })
                out += ", pc " + std::to_string(source_.pc(s));
            out += std::string(source_.at_barrier(s) ? ", at barrier" : "") + ", buffered " +
                   std::to_string(w.ibuf.size()) + ", pending writes " +
                   std::to_string(scoreboard_.pending_count(s));
        }
        return out;
    }

    /// Closes the open idle periods of the gating controllers (call once at the end).
    void finish() {
        for (auto& g : gates_)
            g.finish();
    }

private:
    struct warp {
        bool resident = false;
        std::uint32_t block_slot = 0;
        std::uint64_t age = 0;
        std::vector<isa::static_inst> ibuf;
        std::uint64_t fetch_ready = 0; ///< cycle a fetch in flight completes
        bool fetching = false;
        std::uint32_t replays = 0;       ///< shared-memory passes still to replay (paper 004)
        issue::operands replay_writes{}; ///< the replayed load's destinations
        std::uint32_t launched = 0;      ///< threads launched (active at the first instruction)
        std::uint8_t half = 0;           ///< split SM: 0 on SM0, 1 on SM1
        bool narrow = false;             ///< a part of a cut warp: half the width
        bool binned = false;             ///< split SM: draining its writes before it moves
        bool uncut = false;              ///< moved to SM1 divergent and whole (no cuts allowed)
    };
    struct block {
        bool resident = false;
        std::uint32_t index = 0;
        std::uint32_t live_warps = 0;
    };
    static constexpr std::uint32_t no_entry_ = ~std::uint32_t{0};
    struct event { // a memory result arriving at writeback
        std::uint64_t at;
        std::uint32_t slot;
        issue::operands writes;
        std::uint32_t entry = no_entry_; // or: one data return of this PRT entry (L1 hit)
        friend bool operator>(const event& a, const event& b) noexcept { return a.at > b.at; }
    };
    // What a pending-request-table entry is (hierarchy model).
    enum class access_kind : std::uint8_t { load, constant, texture, store, atomic };
    struct pending {
        issue::operands writes{};
        access_kind kind = access_kind::load;
    };
    // Request sources: 0 L1 data, 1 constant, 2 atomics, 3 texture.
    static constexpr std::uint32_t ports_ = 4;
    static constexpr std::uint32_t no_port_ = ports_;

    static const sm_params& checked(const sm_params& p) {
        validate(p);
        return p;
    }
    // The SM's part of the memory params (the network and partitions are the GPU's).
    static const l1_params& checked_l1_(const memory_params& m) {
        try {
            validate(m.l1);
        } catch (const config_error& e) {
            throw e.with_prefix("l1");
        }
        return m.l1;
    }
    // The smallest L1 side, for SMs on the ideal memory (the parts exist but stay unused).
    static l1_params minimal_l1_() {
        l1_params l;
        l.data.cache.sets = 1;
        l.data.cache.ways = 1;
        l.data.mshr = mem::mshr_params{1, 1};
        l.data.miss_queue = 2;
        l.constant = l.data;
        l.texture = l.data;
        l.prt.entries = 1;
        l.reply_queue = 1;
        l.atomic_queue = 1;
        return l;
    }

    [[nodiscard]] static issue::operands operands_of(const isa::static_inst& si) {
        issue::operands ops;
        for (std::size_t i = 0; i < si.num_src; ++i)
            ops = ops.read(si.src[i]);
        for (std::size_t i = 0; i < si.num_dst; ++i)
            ops = ops.write(si.dst[i]);
        return ops;
    }
    [[nodiscard]] static issue::operands writes_of(const isa::static_inst& si) {
        issue::operands ops;
        for (std::size_t i = 0; i < si.num_dst; ++i)
            ops = ops.write(si.dst[i]);
        return ops;
    }

    // A result reaches writeback. A sharing master's results pass the communicate stage
    // first and clear its enhanced scoreboard (memory results as the master's ack); a
    // sharing slave acks its memory results to the master.
    void release_(std::uint32_t slot, const issue::operands& writes, bool memory) {
        if (sharing_.master_shared()) {
            sharing_.complete(slot, writes.dsts, memory, now_);
            return;
        }
        scoreboard_.release(slot, writes);
        if (memory && sharing_.slave_shared()) sharing_.ack(slot, writes.dsts);
    }

    void writeback_() {
        if (sharing_.master_shared()) sharing_.retire_delayed(now_);
        for (auto* u : {&units_, &units1_})
            for (std::size_t c = 0; c < u->size(); ++c) {
                auto& cl = (*u)[c];
                while (cl.ready()) {
                    const payload pl = cl.take();
                    if (pl.writes.dsts != 0) release_(pl.slot, pl.writes, false);
                }
            }
        while (!events_.empty() && events_.front().at <= now_) {
            std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
            const event e = events_.back();
            events_.pop_back();
            if (e.entry != no_entry_)
                prt_reply_(e.entry);
            else if (e.writes.dsts != 0)
                release_(e.slot, e.writes, true);
        }
        // Fills release the requests merged in their MSHR, one per cache per cycle.
        if (uses_hierarchy_) {
            if (l1d_.has_ready()) prt_reply_(l1d_.pop_ready());
            if (const_.has_ready()) prt_reply_(const_.pop_ready());
            if (tex_.has_ready()) prt_reply_(tex_.pop_ready());
        }
    }

    // ---- the hierarchy's LD/ST path --------------------------------------------------------

    // A data return for PRT entry `id`: the last one completes the warp's access.
    void prt_reply_(std::uint32_t id) {
        const std::uint32_t slot = prt_.warp(id);
        const issue::operands writes = prt_pending_[id].writes;
        if (prt_.reply(id) && writes.dsts != 0) release_(slot, writes, true);
    }

    // One reply from the reply port per cycle: fills, atomic data, write acknowledgements.
    void receive_() {
        if (replies_.empty()) return;
        const mem_message& m = replies_.front();
        switch (m.kind) {
        case mem_kind::read:
        case mem_kind::const_read:
        case mem_kind::tex_read: {
            auto& c = m.kind == mem_kind::read         ? l1d_
                      : m.kind == mem_kind::const_read ? const_
                                                       : tex_;
            const mem::mem_request r{m.addr, m.sectors, mem::mem_request_kind::read};
            if (!c.can_fill(r)) return;
            c.fill(r);
            ms_.fill_latency_sum += now_ - m.sent;
            break;
        }
        case mem_kind::atomic:
            prt_reply_(m.tag);
            break;
        case mem_kind::write:
            WARPKIT_EXPECTS(writes_pending_ > 0);
            --writes_pending_;
            break;
        }
        ++ms_.replies_received;
        replies_.pop();
    }

    // The access stage: one transaction of the current warp access per cycle meets its cache
    // (loads: the L1 data cache, constants: the constant cache; stores write the L1, which
    // forwards them; atomics bypass the L1). A transaction that cannot proceed (no way free,
    // MSHRs full, miss queue full) retries the next cycle and holds the LD/ST unit.
    void access_() {
        if (cur_ == no_entry_ || now_ < cur_at_) return;
        const std::uint32_t id = cur_;
        const auto& t = prt_.requests(id)[prt_.sent(id)];
        const bool last = prt_.sent(id) + 1 == prt_.requests(id).size();
        switch (prt_pending_[id].kind) {
        case access_kind::load:
        case access_kind::constant:
        case access_kind::texture: {
            const access_kind kind = prt_pending_[id].kind;
            auto& c =
                kind == access_kind::load ? l1d_ : (kind == access_kind::constant ? const_ : tex_);
            const auto st = c.read(t.addr, t.size, id);
            if (stalled_(st)) {
                ++ms_.access_stalls;
                return;
            }
            static_cast<void>(prt_.send(id));
            if (st == mem::access_status::hit) {
                const std::uint64_t lat = kind == access_kind::load       ? l1_.data_latency
                                          : kind == access_kind::constant ? l1_.constant_latency
                                                                          : l1_.texture_latency;
                events_.push_back(event{now_ + lat, prt_.warp(id), issue::operands{}, id});
                std::push_heap(events_.begin(), events_.end(), std::greater<>{});
            }
            break;
        }
        case access_kind::store: {
            auto& q = l1d_.miss_queue();
            const std::size_t before = q.size();
            const auto st = l1d_.write(t.addr, t.size);
            if (stalled_(st)) {
                ++ms_.access_stalls;
                return;
            }
            // Writes leave in miss-queue order: their data sizes queue alongside.
            if (q.size() > before && q.back().kind == mem::mem_request_kind::write)
                write_bytes_.push(t.bytes.count());
            static_cast<void>(prt_.send(id));
            static_cast<void>(prt_.reply(id)); // a store retires once the L1 took it
            break;
        }
        case access_kind::atomic: {
            if (!atomics_.can_push()) {
                ++ms_.access_stalls;
                return;
            }
            mem_message m;
            m.addr = t.addr;
            m.sm = id_;
            m.tag = id;
            m.data_bytes = t.bytes.count();
            m.reply_bytes = t.bytes.count();
            m.kind = mem_kind::atomic;
            atomics_.push(m);
            static_cast<void>(prt_.send(id));
            break;
        }
        }
        if (last) cur_ = no_entry_;
    }

    [[nodiscard]] static bool stalled_(mem::access_status st) noexcept {
        return st == mem::access_status::stall_reservation ||
               st == mem::access_status::stall_mshr || st == mem::access_status::stall_queue;
    }

    // The port the next request leaves from: the three sources in turn.
    [[nodiscard]] std::uint32_t port_pick_() const noexcept {
        if (!uses_hierarchy_) return no_port_;
        for (std::uint32_t k = 0; k < ports_; ++k) {
            const std::uint32_t j = (port_next_ + k) % ports_;
            const bool any = j == 2 ? !atomics_.empty() : !cache_of_port_(j).miss_queue().empty();
            if (any) return j;
        }
        return no_port_;
    }
    // The cache behind request source k (0, 1 or 3).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>&
    cache_of_port_(std::uint32_t k) const noexcept {
        return k == 0 ? l1d_ : (k == 1 ? const_ : tex_);
    }
    [[nodiscard]] mem::cache_controller<std::uint32_t>& cache_of_port_(std::uint32_t k) noexcept {
        return k == 0 ? l1d_ : (k == 1 ? const_ : tex_);
    }

    [[nodiscard]] bool memory_idle_() const noexcept {
        return cur_ == no_entry_ && prt_.occupancy() == 0 && writes_pending_ == 0 && replies_.empty() &&
               atomics_.empty() && l1d_.miss_queue().empty() && const_.miss_queue().empty() &&
               tex_.miss_queue().empty() && l1d_.mshrs().occupancy() == 0 &&
               const_.mshrs().occupancy() == 0 && tex_.mshrs().occupancy() == 0;
    }

    // Issues a global, local, constant or atomic access to the hierarchy: its PRT entry
    // holds the coalesced transactions, which the access stage takes from the next cycle on
    // (after address generation).
    void issue_hierarchy_(std::uint32_t s, const isa::dynamic_inst<warp_size>& d,
                          const issue::operands& writes) {
        const std::uint64_t agen = p_.units.timing.of(exec::op_class::ldst).latency;
        pending pe;
        pe.writes = writes;
        std::uint64_t base = 0;
        switch (d.si.space) {
        case isa::mem_space::constant:
        case isa::mem_space::param:
            pe.kind = access_kind::constant;
            base = constant_space_base;
            ++s_.const_accesses;
            break;
        case isa::mem_space::texture: // texels are global memory, through the texture cache
            pe.kind = access_kind::texture;
            ++s_.tex_accesses;
            break;
        case isa::mem_space::local:
            base = local_space_base;
            [[fallthrough]];
        default:
            pe.kind = d.si.mop == isa::mem_op::store    ? access_kind::store
                      : d.si.mop == isa::mem_op::atomic ? access_kind::atomic
                                                        : access_kind::load;
            ++s_.global_accesses;
            break;
        }
        const mem::lane_addresses<warp_size>* addr = &d.addr;
        if (base != 0) {
            addr_tmp_ = d.addr;
            d.active.for_each([&](std::size_t l) { addr_tmp_[l] += base; });
            addr = &addr_tmp_;
        }
        const std::uint32_t bytes = d.si.access_bytes == 0 ? 4u : d.si.access_bytes;
        ldst_free_at_ = now_ + 1;
        const auto id = prt_.insert(s, *addr, bytes, d.active);
        if (!id) { // no active lane: nothing to fetch
            if (writes.dsts != 0) {
                events_.push_back(event{now_ + agen, s, writes});
                std::push_heap(events_.begin(), events_.end(), std::greater<>{});
            }
            return;
        }
        if (pe.kind != access_kind::constant && pe.kind != access_kind::texture)
            s_.global_transactions += prt_.requests(*id).size();
        prt_pending_[*id] = pe;
        cur_ = *id;
        cur_at_ = now_ + agen;
    }

    // Power gating of the INT and FP clusters (Warped Gates Sections 2.2, 4.1, 5, 5.1, 6).
    // Per cycle: power_() (before issue) powers each cluster by its controller's state for
    // this cycle and tells the scheduler which types are blocked; issue_() lets a scheduler
    // pick an instruction whose type has no cluster on but one a wakeup may start from (the
    // pick is the wakeup request, the instruction waits); gate_() (after issue) describes the
    // cycle to every controller: busy = the cluster's pipeline held an instruction, demand =
    // an instruction of the type wanted a cluster that was not on.

    [[nodiscard]] static constexpr std::size_t type_of_(isa::unit_class u) noexcept {
        return u == isa::unit_class::fp ? 1 : 0;
    }
    [[nodiscard]] static constexpr isa::unit_class unit_of_type_(std::size_t t) noexcept {
        return t == 0 ? isa::unit_class::int_alu : isa::unit_class::fp;
    }
    [[nodiscard]] static constexpr bool gated_type_(isa::unit_class u) noexcept {
        return u == isa::unit_class::int_alu || u == isa::unit_class::fp;
    }

    void power_() {
        const std::size_t sps = p_.units.sp_count;
        issue::unit_set blocked;
        for (std::size_t t = 0; t < 2; ++t) {
            bool on = false;
            bool waking = false;
            bool may_wake = false;
            for (std::size_t k = 0; k < sps; ++k) {
                const auto& g = gates_[t * sps + k];
                units_[t * sps + k].set_powered(g.can_issue());
                on = on || g.can_issue();
                waking = waking || g.state() == gating::power_state::waking;
                may_wake = may_wake || (g.gated() && !g.in_blackout());
            }
            type_on_[t] = on;
            // One wakeup at a time per type: while a cluster wakes, instructions wait for it.
            type_wakeable_[t] = may_wake && !waking;
            // GATES gives up the priority of a type whose clusters are all in blackout (paper
            // 003 Section 5); a waking cluster serves within wakeup_delay cycles.
            if (!on && !waking && !may_wake) blocked.set(unit_of_type_(t));
        }
        blocked_ = blocked;
        if constexpr (requires(scheduler_bank_type & b) { b.set_blocked(blocked); })
            sched_.set_blocked(blocked);
        unplaced_ = {};
        ready_ops_ = {};
    }

    void gate_() {
        const std::size_t sps = p_.units.sp_count;
        for (std::size_t t = 0; t < 2; ++t) {
            const auto unit = unit_of_type_(t);
            // Instructions that wanted a cluster that was not on: picks that found no free
            // cluster on (wakeup requests, or waits for a waking or blacked-out cluster), or,
            // while no cluster is on and none may wake, the instructions ready to issue to it.
            std::uint32_t want = unplaced_[t];
            if (!type_on_[t] && !type_wakeable_[t]) want = std::min(ready_ops_[t], p_.issue_width);
            std::array<bool, 16> demand{};
            std::array<bool, 16> gated{};
            for (std::size_t k = 0; k < sps; ++k)
                gated[k] = gates_[t * sps + k].gated();
            // A waking cluster serves first, then one a wakeup may start from (lowest index
            // first), then one in blackout (the demand only stalls there).
            for (int pass = 0; pass < 3 && want > 0; ++pass)
                for (std::size_t k = 0; k < sps && want > 0; ++k) {
                    const auto& g = gates_[t * sps + k];
                    if (g.can_issue() || demand[k]) continue;
                    const int rank = g.state() == gating::power_state::waking ? 0
                                     : g.in_blackout()                        ? 2
                                                                              : 1;
                    if (rank != pass) continue;
                    demand[k] = true;
                    --want;
                }
            const std::uint32_t actv = type_active_(unit);
            std::uint64_t critical = 0;
            for (std::size_t k = 0; k < sps; ++k) {
                auto& g = gates_[t * sps + k];
                bool sibling_gated = false;
                for (std::size_t j = 0; j < sps; ++j)
                    sibling_gated = sibling_gated || (j != k && gated[j]);
                const std::uint64_t before = g.stats().critical_wakeups;
                (void)g.tick(gating::cycle_input{demand[k], units_[t * sps + k].busy(), actv,
                                                 sibling_gated});
                critical += g.stats().critical_wakeups - before;
            }
            if constexpr (per_type_idle_detect) adapt_(t, critical);
        }
    }

    // The type's idle-detect register: one critical-wakeup counter for both clusters.
    void adapt_(std::size_t t, std::uint64_t critical) {
        auto& tuner = tuners_[t];
        auto& a = adaptation_[t];
        a.critical_wakeups += critical;
        for (std::uint64_t i = 0; i < critical; ++i)
            tuner.record_critical();
        switch (tuner.end_cycle()) {
        case gating::adaptation::none:
            return;
        case gating::adaptation::kept:
            break;
        case gating::adaptation::raised:
            ++a.idle_detect_increments;
            break;
        case gating::adaptation::lowered:
            ++a.idle_detect_decrements;
            break;
        }
        ++a.epochs;
        const std::size_t sps = p_.units.sp_count;
        for (std::size_t k = 0; k < sps; ++k)
            gates_[t * sps + k].policy().load(tuner.value());
    }

    [[nodiscard]] std::uint32_t type_active_(isa::unit_class u) const {
        if constexpr (requires(const scheduler_bank_type& b) { b.actv(u); }) {
            return sched_.actv(u);
        } else {
            std::uint32_t n = 0;
            for (std::uint32_t s = 0; s < warps_.size(); ++s)
                if (warps_[s].resident && !warps_[s].ibuf.empty() &&
                    warps_[s].ibuf.front().unit == u)
                    ++n;
            return n;
        }
    }

    // May the scheduler pick an instruction of this class: a cluster can start it, or (INT,
    // FP) none is on and free but a wakeup may start, which picking it requests.
    [[nodiscard]] bool unit_available_(const isa::static_inst& si, std::uint32_t h) const {
        return unit_free_(si, h) ||
               (gated_type_(si.unit) && type_wakeable_[type_of_(si.unit)]);
    }

    // Can an instruction of this class start this cycle (structure and power)?
    [[nodiscard]] bool unit_free_(const isa::static_inst& si, std::uint32_t h) const {
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
            return units_of_(h).find_free(op_class_of(si)).has_value();
        case isa::unit_class::ldst:
            // The hierarchy needs a PRT entry for every access but a shared one.
            return ldst_free_(h) && (!uses_hierarchy_ || si.space == isa::mem_space::shared ||
                                     si.mop == isa::mem_op::none || !prt_.full());
        default:
            return true;
        }
    }
    // The memory stage behind the LD/ST units (coalescer, L1 access) stays shared when the
    // SM splits; each half has its own LD/ST cluster.
    [[nodiscard]] bool ldst_free_(std::uint32_t h) const {
        return now_ >= ldst_free_at_ && (!uses_hierarchy_ || cur_ == no_entry_) &&
               units_of_(h).find_free(exec::op_class::ldst).has_value();
    }
    // The units of half `h` (the whole SM's while fused).
    [[nodiscard]] exec::execution_units<payload>& units_of_(std::uint32_t h) noexcept {
        return h == 0 ? units_ : units1_;
    }
    [[nodiscard]] const exec::execution_units<payload>& units_of_(std::uint32_t h) const noexcept {
        return h == 0 ? units_ : units1_;
    }
    // Passes of warp `s` through its pipelines: a warp of the full width takes two on a split
    // SM's half datapath.
    [[nodiscard]] std::uint32_t passes_(std::uint32_t s) const noexcept {
        return split_.split() && !warps_[s].narrow ? 2U : 1U;
    }

    // One more pass of a shared-memory access whose lanes lost a bank conflict: it occupies
    // the LD/ST unit like the first; the last pass's data completes the load.
    void replay_(std::uint32_t s) {
        auto& w = warps_[s];
        (void)units_of_(w.half).issue(exec::op_class::ldst, payload{s, issue::operands{}},
                                      warp_mask{});
        ldst_free_at_ = now_ + 1;
        ++s_.shared_replays;
        if (--w.replays == 0) {
            const std::uint64_t agen = p_.units.timing.of(exec::op_class::ldst).latency;
            events_.push_back(event{now_ + agen + p_.shared_latency, s, w.replay_writes});
            std::push_heap(events_.begin(), events_.end(), std::greater<>{});
        }
    }

    // The issue stage of half `h` (0: the whole SM while fused; a split SM runs SM0's and
    // SM1's, each with its own scheduler and units, over its own warps).
    void issue_(std::uint32_t h) {
        if (sharing_.master_paused()) return; // the cluster ramps down: nothing issues
        auto& sched = h == 0 ? sched_ : sched1_;
        std::uint32_t n = 0;
        enum cause { c_idle, c_fetch, c_barrier, c_scoreboard, c_unit, c_gated };
        int worst = c_idle;
        for (std::uint32_t s = 0; s < warps_.size(); ++s) {
            auto& v = views_[n];
            const auto& w = warps_[s];
            if (!w.resident || w.half != h) continue;
            v = issue::warp_view{};
            v.id = static_cast<issue::warp_id>(s);
            v.age = w.age;
            v.at_barrier = source_.at_barrier(s);
            v.valid = (!w.ibuf.empty() || w.replays > 0) && !w.binned;
            if (w.replays > 0) {
                // The lanes a bank conflict left out re-enter the pipeline first.
                v.unit = isa::unit_class::ldst;
                v.ready = ldst_free_(h);
                if (!v.ready) worst = std::max<int>(worst, c_unit);
            } else if (v.at_barrier) {
                worst = std::max<int>(worst, c_barrier);
            } else if (!v.valid || (sharing_.master_grouped() && sharing_.held(s))) {
                // A warp held while the slaves compare its branch waits like one refetching.
                worst = std::max<int>(worst, c_fetch);
            } else {
                const auto& si = w.ibuf.front();
                v.unit = si.unit;
                const auto hz = peek_(s, operands_of(si));
                v.long_latency = hz.long_latency;
                if (hz.any()) {
                    worst = std::max<int>(worst, c_scoreboard);
                } else {
                    if (gated_type_(si.unit)) ++ready_ops_[type_of_(si.unit)];
                    if (!unit_available_(si, h)) {
                        const bool gated = gated_type_(si.unit) && !type_on_[type_of_(si.unit)];
                        worst = std::max<int>(worst, gated ? c_gated : c_unit);
                    } else {
                        v.ready = true;
                    }
                }
            }
            ++n;
        }
        // A scheduler picks from the views alone, so two picks may want one unit (two LD/ST
        // instructions, or two of a type with one cluster on). Such a pick gives its slot back
        // and the scheduler fills it again from what can still issue this cycle, as an issue
        // stage that checks each pick's unit in turn does (GATES fills its N slots in priority
        // order, paper 003 Section 6). A pick of a type with no cluster free but one a wakeup
        // may start is that type's wakeup request and keeps its slot.
        issue::issue_list done;
        std::uint64_t issued_warps = 0;
        for (std::uint32_t round = 0; round < p_.issue_width && done.size() < p_.issue_width;
             ++round) {
            const auto picks = sched.select(std::span<const issue::warp_view>(views_.data(), n),
                                            p_.issue_width - done.size());
            bool refill = false;
            for (std::size_t i = 0; i < picks.size(); ++i) {
                const std::uint32_t s = picks[i].warp;
                auto& w = warps_[s];
                if (w.resident && w.replays > 0) {
                    if (!ldst_free_(h)) {
                        refill = true;
                        continue;
                    }
                    replay_(s);
                    issued_warps |= std::uint64_t{1} << s;
                    done.push(static_cast<issue::warp_id>(s), isa::unit_class::ldst);
                    continue;
                }
                if (!w.resident || w.binned || w.ibuf.empty() || source_.at_barrier(s)) continue;
                const isa::static_inst si = w.ibuf.front();
                if (peek_(s, operands_of(si)).any()) continue;
                if (sharing_.master_grouped() && (sharing_.held(s) || !sharing_.link_free(si_words_(si)))) {
                    if (!sharing_.held(s)) sharing_.note_link_full();
                    refill = true;
                    continue;
                }
                if (!unit_free_(si, h)) {
                    const bool wake =
                        gated_type_(si.unit) && type_wakeable_[type_of_(si.unit)] && round == 0;
                    if (gated_type_(si.unit)) ++unplaced_[type_of_(si.unit)];
                    refill = refill || !wake;
                    continue;
                }
                issue_one_(s, si);
                issued_warps |= std::uint64_t{1} << s;
                done.push(static_cast<issue::warp_id>(s), si.unit);
            }
            if (!refill) break;
            for (std::uint32_t k = 0; k < n; ++k) {
                auto& v = views_[k];
                if (!v.ready) continue;
                if ((issued_warps >> v.id) & 1U) {
                    v.ready = false;
                    continue;
                }
                const auto& w = warps_[v.id];
                v.ready = w.resident && !w.binned && (w.replays > 0 ? ldst_free_(h)
                                                       : !w.ibuf.empty() && unit_free_(w.ibuf.front(), h));
            }
        }
        sched.notify_issued(done);
        if (h == 1) second_issued_ = done.size() > 0;
        if (done.size() < p_.issue_width) {
            switch (worst) {
            case c_idle:
                ++s_.stalls.idle;
                break;
            case c_fetch:
                ++s_.stalls.fetch;
                break;
            case c_barrier:
                ++s_.stalls.barrier;
                break;
            case c_scoreboard:
                ++s_.stalls.scoreboard;
                break;
            case c_unit:
                ++s_.stalls.unit;
                break;
            default:
                ++s_.stalls.gated;
                break;
            }
        }
    }

    // ---- AMOEBA's dynamic split (paper 002 Sec. 4.3) ----------------------------------------
    // While fused, every warp is on SM0 (half 0) and the SM issues as one. A split action
    // moves divergent warps to SM1 (half 1): a direct split cuts each in the middle and sends
    // both parts there; regrouping keeps the fast part on SM0 and sends the slow part. Each
    // half then issues from its own warps with its own scheduler and units; a warp of the
    // full width takes two passes of a half datapath, a part of a cut warp one. The memory
    // stage, L1s, registers and NoC port stay shared. When SM1 holds no more divergent part,
    // its warps return to SM0 and the SM fuses again.

    static constexpr bool splittable_ =
        requires(Source& src, const Source& cs, std::uint32_t s, lane_mask<warp_size> m) {
            src.split(s, s, m);
            cs.stack(s).live();
            cs.stack(s).active();
            cs.stack(s).converged();
        };

    // False when the source holds a kernel whose warps must not be cut (PTX with
    // warp-collective instructions): divergent warps then move to SM1 whole.
    [[nodiscard]] bool can_cut_() const {
        if constexpr (requires { source_.can_cut(); })
            return source_.can_cut();
        else
            return true;
    }

    void check_split_() const {
        const std::string mode(enum_names<reconfig::split_mode>::names[static_cast<std::size_t>(
            p_.split.mode)]);
        if constexpr (!splittable_)
            throw config_error("split.mode", mode,
                               "off (this kernel's instruction source cannot cut warps; "
                               "warpkit-ISA and PTX kernels can)");
        if constexpr (!std::is_same_v<typename Policies::gating_policy, gating::no_gating>)
            throw config_error("split.mode", mode,
                               "off with a power-gating policy (a split SM's second half is "
                               "not gated)");
        check(warp_size >= 2 && (warp_size / 2) % p_.split.group_lanes == 0, "split.group_lanes",
              p_.split.group_lanes, "a divisor of half the warp size");
    }

    // A divergent warp SM0 may hand to SM1: of the full width, not replaying, not at a
    // barrier. It goes into the bin, stops issuing, and moves once its register writes in
    // flight have landed (a context moves whole).
    [[nodiscard]] bool divergent_(std::uint32_t s) const {
        if constexpr (splittable_) {
            const auto& w = warps_[s];
            return w.resident && w.half == 0 && !w.narrow && !w.binned && w.replays == 0 &&
                   !source_.at_barrier(s) && !source_.stack(s).converged();
        } else {
            return false;
        }
    }

    void split_step_() {
        if constexpr (splittable_) {
            reconfig::split_observation o;
            o.second_issued = second_issued_;
            second_issued_ = false;
            for (std::uint32_t s = 0; s < warps_.size(); ++s) {
                const auto& w = warps_[s];
                if (!w.resident) continue;
                if (w.half == 1 || w.binned) {
                    if (w.narrow || w.binned || (w.uncut && !source_.stack(s).converged()))
                        ++o.second_divergent;
                    if (w.half == 1) {
                        ++o.second_warps;
                        continue;
                    }
                }
                ++o.warps;
                if (divergent_(s)) ++o.divergent;
            }
            const auto action = split_.tick(o);
            switch (action) {
            case reconfig::split_action::split:
                split_.split_done(bin_());
                break;
            case reconfig::split_action::refuse:
                for (auto& w : warps_) {
                    w.half = 0;
                    w.uncut = false;
                }
                split_.refused();
                break;
            case reconfig::split_action::rebalance:
                // Regrouping: SM1 idles; the first converged full-width warp of SM0 goes
                // there (no cut: its writes in flight land in the shared register file).
                for (std::uint32_t s = 0; s < warps_.size(); ++s) {
                    auto& w = warps_[s];
                    if (w.resident && w.half == 0 && !w.narrow && !w.binned &&
                        source_.stack(s).converged()) {
                        w.half = 1;
                        split_.rebalanced();
                        break;
                    }
                }
                break;
            case reconfig::split_action::none:
                // While split, warps that diverge later join the bin.
                if (split_.split() && o.divergent > 0) (void)bin_();
                break;
            }
            move_binned_();
            s_.split = split_.stats();
        }
    }

    // Puts every divergent warp of SM0 in the bin; returns how many.
    std::uint32_t bin_() {
        std::uint32_t n = 0;
        for (std::uint32_t s = 0; s < warps_.size(); ++s)
            if (divergent_(s)) {
                warps_[s].binned = true;
                ++n;
            }
        return n;
    }

    // Cuts or moves every binned warp whose writes have landed (a cut needs a free slot above
    // the warp slots; without one the warp waits in the bin).
    void move_binned_() {
        if constexpr (splittable_) {
            std::uint32_t moved = 0;
            std::uint32_t cut = 0;
            const bool regroup = p_.split.mode == reconfig::split_mode::regroup;
            const bool cut_ok = can_cut_();
            for (std::uint32_t s = 0; s < warps_.size(); ++s) {
                auto& w = warps_[s];
                if (!w.resident || !w.binned || scoreboard_.pending_count(s) != 0) continue;
                if (!cut_ok) { // a warp that must not be cut moves whole, at the full width
                    w.binned = false;
                    w.half = 1;
                    w.uncut = true;
                    ++moved;
                    continue;
                }
                const auto& st = source_.stack(s);
                const auto c = regroup ? reconfig::regroup(st.live(), st.active(),
                                                           p_.split.group_lanes)
                                       : reconfig::direct_split(st.live());
                // One part without threads: the warp already fits half a datapath; it moves
                // whole (regrouping found no fast group, or a direct split's half is empty).
                if (c.first.none() || c.second.none()) {
                    w.binned = false;
                    w.half = 1;
                    w.narrow = true;
                    ++moved;
                    continue;
                }
                std::uint32_t t = p_.warp_slots;
                while (t < warps_.size() && warps_[t].resident)
                    ++t;
                if (t == warps_.size()) break; // no slot for a second part yet
                source_.split(s, t, c.first);
                w.binned = false;
                w.ibuf.clear();
                w.fetching = false;
                w.narrow = true;
                w.half = regroup ? 0 : 1;
                auto& n = warps_[t];
                n = warp{};
                n.ibuf.reserve(p_.ibuffer_depth);
                n.resident = true;
                n.block_slot = w.block_slot;
                n.age = w.age;
                n.narrow = true;
                n.half = 1;
                ++blocks_[w.block_slot].live_warps;
                ++s_.warps_started;
                moved += regroup ? 1 : 2;
                ++cut;
            }
            if (moved > 0) split_.moved(moved, cut);
        }
    }

    // ---- front-end sharing ------------------------------------------------------------------

    // Hazards of `ops` on the scoreboard that tracks this SM's writes: the enhanced one of a
    // sharing master, else its own.
    [[nodiscard]] issue::hazard peek_(std::uint32_t s, const issue::operands& ops) const {
        return sharing_.master_shared() ? sharing_.scoreboard().peek(s, ops) : scoreboard_.peek(s, ops);
    }
    // Branches, and exits that may leave a warp with fewer lanes, have their masks compared.
    [[nodiscard]] static constexpr bool control_(const isa::static_inst& si) noexcept {
        return si.is_branch || si.is_exit;
    }
    [[nodiscard]] std::uint32_t si_words_(const isa::static_inst& si) const noexcept {
        return control_(si) ? sharing_.branch_words() : 1U;
    }
    // What a control instruction left warp `s` with: its lanes and its next pc.
    [[nodiscard]] reconfig::branch_outcome outcome_(std::uint32_t s,
                                                    const isa::dynamic_inst<warp_size>& d) const {
        reconfig::branch_outcome o;
        if constexpr (requires { source_.stack(s).active().bits(); })
            o.mask = source_.finished(s) ? 0 : source_.stack(s).active().bits();
        else
            o.mask = d.active.bits();
        if constexpr (requires { source_.pc(s); })
            o.target = source_.finished(s) ? ~std::uint32_t{0} : source_.pc(s);
        return o;
    }

    // A sharing slave: its own bank-conflict replays first, then the master's instructions
    // in order once their communicate stage is over, as many as the issue width allows. The
    // oldest waits while its warp is at a barrier, replaying, has an operand in flight or
    // finds its unit busy: the slave's back end may slip behind the master, never ahead.
    void execute_commands_() {
        if (ldst_free_(0))
            for (std::uint32_t s = 0; s < warps_.size(); ++s)
                if (warps_[s].resident && warps_[s].replays > 0) {
                    replay_(s);
                    break;
                }
        for (std::uint32_t k = 0; k < p_.issue_width; ++k) {
            const cluster_command* c = sharing_.due(now_);
            if (c == nullptr) return;
            const std::uint32_t s = c->slot;
            auto& w = warps_[s];
            const isa::static_inst* next = w.resident ? source_.peek(s, 0) : nullptr;
            bool in_step = next != nullptr && next->opcode == c->opcode;
            if constexpr (requires { source_.pc(s); }) in_step = in_step && source_.pc(s) == c->pc;
            if (!in_step)
                throw sim_error("front-end sharing: SM " + std::to_string(id_) + " warp slot " +
                                std::to_string(s) + " is not at the master's instruction (pc " +
                                std::to_string(c->pc) + ") in cycle " + std::to_string(now_));
            const isa::static_inst si = *next;
            if (source_.at_barrier(s) || w.replays > 0 ||
                !scoreboard_.can_issue(s, operands_of(si)) || !unit_free_(si, 0)) {
                if (gated_type_(si.unit) && !unit_free_(si, 0)) ++unplaced_[type_of_(si.unit)];
                sharing_.note_stall();
                return;
            }
            issue_one_(s, si);
            sharing_.executed();
        }
    }

    void issue_one_(std::uint32_t s, const isa::static_inst& si) {
        auto& w = warps_[s];
        const auto d = source_.execute(s, func::exec_site{id_, now_});
        if (d.si.opcode != si.opcode || d.si.unit != si.unit || d.si.mop != si.mop)
            throw sim_error("SM " + std::to_string(id_) + " warp slot " + std::to_string(s) +
                            " issued a decoded instruction (opcode " + std::to_string(si.opcode) +
                            ") that is not the one it executed (" + std::to_string(d.si.opcode) +
                            " at pc " + std::to_string(d.pc) + ") in cycle " +
                            std::to_string(now_) +
                            ": the instruction source's peek ran past where the warp went");
        ++s_.warp_instructions;
        s_.thread_instructions += d.active.count();
        if (w.launched == 0) w.launched = static_cast<std::uint32_t>(d.active.count());
        s_.warp_threads += w.launched;
        ++s_.issued_by_unit[isa::index(si.unit)];
        if (!w.ibuf.empty()) w.ibuf.erase(w.ibuf.begin()); // empty on a sharing slave
        const issue::operands writes = writes_of(si);
        const bool memory = si.mop != isa::mem_op::none;
        if (sharing_.master_grouped()) {
            // Every member's memory write is tracked until its ack (paper 000 II.A).
            if (writes.dsts != 0) sharing_.reserve(s, writes, memory);
            sharing_.issued(s, d.pc, si.opcode, control_(si), si_words_(si), now_);
        } else if (writes.dsts != 0) {
            scoreboard_.reserve(s, writes, memory && si.space != isa::mem_space::shared);
        }
        if (control_(si) && (sharing_.master_grouped() || sharing_.slave_shared()))
            sharing_.branch(branch_report{s, d.pc, outcome_(s, d)});
        const exec::op_class oc = op_class_of(si);
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
            (void)units_of_(w.half).issue(oc, payload{s, writes}, d.active, passes_(s));
            break;
        case isa::unit_class::ldst:
            issue_memory_(s, d, writes);
            break;
        default:
            break;
        }
        if (si.is_branch || si.is_barrier || si.is_exit) {
            if (!w.ibuf.empty()) ++s_.ibuffer_flushes;
            w.ibuf.clear();
            w.fetching = false;
        }
        if (source_.finished(s)) {
            w.resident = false;
            w.ibuf.clear();
            --blocks_[w.block_slot].live_warps;
            ++s_.warps_finished;
        }
    }

    void issue_memory_(std::uint32_t s, const isa::dynamic_inst<warp_size>& d,
                       const issue::operands& writes) {
        // The LD/ST cluster generates addresses (its op_class timing); the memory behind it
        // answers after a fixed latency, serialised per transaction or bank pass.
        (void)units_of_(warps_[s].half)
            .issue(exec::op_class::ldst, payload{s, issue::operands{}}, d.active, passes_(s));
        if (d.si.space == isa::mem_space::global || d.si.space == isa::mem_space::local) {
            if (d.si.mop == isa::mem_op::load) ++s_.global_loads;
            if (d.si.mop == isa::mem_op::store) ++s_.global_stores;
            if (d.si.mop == isa::mem_op::load || d.si.mop == isa::mem_op::store)
                s_.global_lane_accesses += d.active.count();
        }
        if (uses_hierarchy_ && d.si.space != isa::mem_space::shared && d.si.mop != isa::mem_op::none) {
            issue_hierarchy_(s, d, writes);
            return;
        }
        const std::uint64_t agen = p_.units.timing.of(exec::op_class::ldst).latency;
        std::uint64_t occupancy = 1;
        std::uint64_t latency = p_.global_latency;
        switch (d.si.space) {
        case isa::mem_space::shared: {
            // Lanes reach the banks in groups (Fermi: the whole warp; paper 004: one row of
            // SPs at a time); each group needs 1 + its conflict degree passes.
            std::uint64_t extra = 0;
            for (std::size_t first = 0; first < warp_size; first += p_.bank_group_lanes) {
                const auto group =
                    d.active & lane_mask<warp_size>::first_n(first + p_.bank_group_lanes)
                                   .minus(lane_mask<warp_size>::first_n(first));
                if (group.none()) continue;
                const auto a = banks_.access(d.addr, d.si.access_bytes, group);
                extra += a.passes - 1;
                s_.shared_bank_passes += a.passes;
            }
            latency = p_.shared_latency;
            ++s_.shared_accesses;
            if (p_.shared_replay && extra > 0) {
                // Paper 004: the served lanes go on, the others replay through the warp.
                warps_[s].replays = static_cast<std::uint32_t>(extra);
                warps_[s].replay_writes = writes;
                ldst_free_at_ = now_ + 1;
                return;
            }
            occupancy = 1 + extra;
            break;
        }
        case isa::mem_space::constant:
            latency = p_.const_latency;
            ++s_.const_accesses;
            break;
        case isa::mem_space::texture: // the ideal memory: a fetch costs a global access
            coalescer_.coalesce(d.addr, d.si.access_bytes, d.active, txns_);
            occupancy = std::max<std::uint64_t>(1, txns_.size());
            ++s_.tex_accesses;
            break;
        default: {
            coalescer_.coalesce(d.addr, d.si.access_bytes, d.active, txns_);
            occupancy = std::max<std::uint64_t>(1, txns_.size());
            ++s_.global_accesses;
            s_.global_transactions += txns_.size();
            break;
        }
        }
        ldst_free_at_ = now_ + occupancy;
        const std::uint64_t at = now_ + agen + latency + (occupancy - 1);
        events_.push_back(event{at, s, writes});
        std::push_heap(events_.begin(), events_.end(), std::greater<>{});
    }

    void fetch_() {
        // Complete fetches in flight.
        for (std::uint32_t s = 0; s < warps_.size(); ++s) {
            auto& w = warps_[s];
            if (!w.fetching || w.fetch_ready > now_) continue;
            w.fetching = false;
            while (w.ibuf.size() < p_.ibuffer_depth) {
                const auto* si = source_.peek(s, w.ibuf.size());
                if (si == nullptr) break;
                w.ibuf.push_back(*si);
            }
        }
        // Start new fetches, round robin over warps with room in their buffers.
        std::uint32_t started = 0;
        const auto n = static_cast<std::uint32_t>(warps_.size());
        const std::uint32_t width = split_.split() ? 2 * p_.fetch_width : p_.fetch_width;
        for (std::uint32_t k = 0; k < n && started < width; ++k) {
            const std::uint32_t s = (fetch_next_ + k) % n;
            auto& w = warps_[s];
            if (!w.resident || w.fetching || source_.at_barrier(s)) continue;
            if (w.ibuf.size() >= p_.ibuffer_depth) continue;
            if (!w.ibuf.empty()) {
                const auto& last = w.ibuf.back();
                if (last.is_branch || last.is_barrier || last.is_exit) continue;
            }
            if (source_.peek(s, w.ibuf.size()) == nullptr) continue;
            w.fetching = true;
            w.fetch_ready = now_ + p_.fetch_latency;
            ++s_.fetches;
            ++started;
            fetch_next_ = (s + 1) % n;
        }
    }

    [[nodiscard]] std::uint64_t flits_(std::uint32_t bytes) const noexcept {
        return bytes == 0 ? 1 : (bytes + flit_bytes_ - 1) / flit_bytes_;
    }

    template <class OnBlockDone>
    void retire_blocks_(OnBlockDone& on_block_done) {
        for (std::uint32_t b = 0; b < blocks_.size(); ++b) {
            auto& blk = blocks_[b];
            if (!blk.resident) continue;
            if (source_.barrier_complete(b)) {
                source_.release_barrier(b);
                ++s_.barrier_releases;
            }
            if (blk.live_warps == 0 && source_.block_finished(b)) {
                blk.resident = false;
                --resident_blocks_;
                ++s_.blocks_completed;
                on_block_done(blk.index);
            }
        }
    }

    std::uint32_t id_;
    sm_params p_;
    Source source_;
    scheduler_bank_type sched_;
    scheduler_bank_type sched1_; // a split SM's SM1 (its own scheduler comes back)
    exec::execution_units<payload> units_;
    exec::execution_units<payload> units1_; // a split SM's SM1 datapath
    issue::scoreboard scoreboard_;
    mem::shared_memory_banks banks_;
    coalescer_type coalescer_{};
    mem::transaction_list<warp_size> txns_{};
    std::vector<warp> warps_;
    std::vector<block> blocks_;
    reconfig::sm_split_controller split_;
    bool second_issued_ = false;
    std::vector<gating_controller> gates_;
    std::vector<event> events_; // a min-heap on arrival cycle
    std::vector<issue::warp_view> views_;
    std::vector<std::uint32_t> slots_tmp_;
    std::vector<gating::idle_detect_tuner> tuners_;     // per type, if per_type_idle_detect
    std::array<type_adaptation_stats, 2> adaptation_{}; // per type: INT, FP
    std::array<bool, 2> type_on_{};                     // a cluster of the type is on
    std::array<bool, 2> type_wakeable_{};               // a pick may start a wakeup
    std::array<std::uint32_t, 2> unplaced_{};           // picks that found no free cluster on
    std::array<std::uint32_t, 2> ready_ops_{};          // warps ready to issue to the type
    issue::unit_set blocked_{};
    std::uint32_t resident_blocks_ = 0;
    std::uint32_t fetch_next_ = 0;
    std::uint64_t ldst_free_at_ = 0;
    std::uint64_t now_ = 0;
    std::uint64_t next_age_ = 0;
    sm_stats s_;
    cluster_member sharing_; // front-end sharing (role none: not in a cluster)
    // The hierarchy's LD/ST side (minimal and unused with the ideal memory).
    bool uses_hierarchy_;
    l1_params l1_;
    mem::pending_request_table<warp_size, coalescer_type> prt_;
    std::vector<pending> prt_pending_; // per PRT entry
    mem::cache_controller<std::uint32_t> l1d_;
    mem::cache_controller<std::uint32_t> const_;
    mem::cache_controller<std::uint32_t> tex_;
    fifo<std::uint32_t> write_bytes_; // data bytes of the writes in l1d_'s miss queue
    fifo<mem_message> atomics_;       // atomics waiting for the request port
    fifo<mem_message> replies_;       // replies taken from the reply port
    std::uint32_t flit_bytes_;        // of the network (request_flits)
    std::uint32_t header_bytes_;      // of every request
    mem::lane_addresses<warp_size> addr_tmp_{};
    std::uint32_t cur_ = no_entry_; // PRT entry in the access stage
    std::uint64_t cur_at_ = 0;      // first cycle it may meet its cache
    std::uint64_t writes_pending_ = 0;
    std::uint32_t port_next_ = 0;
    sm_memory_stats ms_{};
};

} // namespace warpkit::gpu
