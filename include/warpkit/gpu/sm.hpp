#pragma once
/// \file
/// `sm<Policies, Source>`: the timing model of one streaming multiprocessor, a composition of
/// stages (include/warpkit/gpu/stages/) that talk through ports passed to them each cycle:
/// - fetch/decode (fetch_stage) fills the per-warp instruction buffers;
/// - issue (issue_stage) lets a bank of warp schedulers pick ready warps and counts stalls;
/// - operand read and execute (execute_stage) runs the picks on the execution clusters;
/// - LD/ST (ldst_stage) with its memory port (memory_port): shared-memory banks, a coalescer
///   and either a fixed-latency ("ideal") memory or, with the hierarchy memory model, a
///   pending request table, an L1 data cache, a constant and a texture cache with their MSHRs
///   whose misses, writes and atomics leave through a request port and whose replies come
///   back through a reply port (the GPU connects both to its memory_system);
/// - writeback (writeback_stage) releases registers as results arrive;
/// - power gating and type adaptation (power_stage) of the INT and FP clusters.
/// Front-end sharing (sharing_slot.hpp) and AMOEBA's dynamic split (split_slot.hpp) are policy
/// slots: a preset whose policies leave them out (or cannot use them) gets an empty type and
/// the checks compile away. Instructions come from an instruction source (functional
/// execution at issue).

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gating/selectable.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/memory_message.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/stages/execute_stage.hpp>
#include <warpkit/gpu/stages/fetch_stage.hpp>
#include <warpkit/gpu/stages/issue_stage.hpp>
#include <warpkit/gpu/stages/ldst_stage.hpp>
#include <warpkit/gpu/stages/power_stage.hpp>
#include <warpkit/gpu/stages/selectable_power_stage.hpp>
#include <warpkit/gpu/stages/sharing_slot.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/split_slot.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/gpu/stages/writeback_stage.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/reconfig/sm_split.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit::gpu {

namespace detail {
/// Registers per warp the SM's scoreboard tracks: `Policies::scoreboard_registers` when
/// given, else 64 (one word per warp; Fermi's 63 registers fit).
template <class Policies>
consteval std::size_t scoreboard_registers() {
    if constexpr (requires { Policies::scoreboard_registers; })
        return Policies::scoreboard_registers;
    else
        return 64;
}
/// True unless `Policies::front_end_sharing` is false: the SM may join a sharing cluster.
/// Sharing needs the 64-register scoreboard (its acks carry one register word), so a wider
/// one leaves the slot empty unless the policies ask for sharing (a compile error then).
template <class Policies>
consteval bool wants_front_end_sharing() {
    if constexpr (requires { Policies::front_end_sharing; }) {
        static_assert(!Policies::front_end_sharing || scoreboard_registers<Policies>() == 64,
                      "front-end sharing runs the 64-register scoreboard");
        return Policies::front_end_sharing;
    } else {
        return scoreboard_registers<Policies>() == 64;
    }
}
/// True unless `Policies::dynamic_split` is false: the SM may split (AMOEBA).
template <class Policies>
consteval bool wants_dynamic_split() {
    if constexpr (requires { Policies::dynamic_split; })
        return Policies::dynamic_split;
    else
        return true;
}
} // namespace detail

/// One SM. `Policies` names the parts: `warp_size`, `scheduler` (one scheduler; the SM runs
/// a bank of them), `gating_policy` (gating::no_gating to disable gating, gating::selectable
/// to gate as sm_params::gating.policy says), `coalescer`, and
/// optionally `front_end_sharing` and `dynamic_split` (bool, default true: false leaves the
/// slot empty) and `scoreboard_registers` (registers per warp the scoreboard tracks, default
/// 64; the SM tracks one fewer, the last id being the ISA's zero register in SASS and beyond
/// Fermi's 63 in PTX). `Source` supplies the warps (func::instruction_source).
template <class Policies, class Source>
requires func::instruction_source<Source, Policies::warp_size>
class sm {
public:
    static constexpr std::size_t warp_size = Policies::warp_size;
    using scheduler_bank_type = issue::scheduler_bank<typename Policies::scheduler>;
    using power_stage_type = stages::power_stage_for<typename Policies::gating_policy>;
    /// Controller of one INT or FP cluster (adaptive idle-detect runs as shared_idle_detect);
    /// with gating::selectable, a controller_ref to the chosen policy's controller.
    using gating_controller = typename power_stage_type::controller_type;
    /// True when idle-detect adapts per unit type (one register for the clusters of a type);
    /// with gating::selectable the kind decides at run time (false here).
    static constexpr bool per_type_idle_detect = power_stage_type::per_type_idle_detect;
    using coalescer_type = typename Policies::coalescer;
    using params_type = sm_params;
    using stats_type = sm_stats;
    /// The scoreboard: `Policies::scoreboard_registers` register bits per warp (default 64).
    using scoreboard_type = issue::basic_scoreboard<detail::scoreboard_registers<Policies>(), 64>;
    using operands_type = typename scoreboard_type::operands_type;
    /// Registers per thread the scoreboard tracks (63 with the default width).
    static constexpr std::uint32_t tracked_registers =
        static_cast<std::uint32_t>(scoreboard_type::register_width - 1);
    /// What travels down an execution pipeline: the warp and the registers it will write.
    using payload = stages::basic_payload<operands_type>;
    /// True when the source can cut warps (a split needs it).
    static constexpr bool splittable = stages::splittable_source<Source, warp_size>;
    /// True when the SM power-gates its clusters under a static policy (a split SM's second
    /// half is not gated); with gating::selectable its params decide (gates_clusters()).
    static constexpr bool gated =
        !std::is_same_v<typename Policies::gating_policy, gating::no_gating> &&
        !std::is_same_v<typename Policies::gating_policy, gating::selectable>;
    /// The front-end sharing slot.
    using sharing_type =
        std::conditional_t<detail::wants_front_end_sharing<Policies>(), stages::front_end_sharing<>,
                           stages::no_front_end_sharing>;
    /// The dynamic split slot (empty when the SM cannot or should not split).
    using split_type =
        std::conditional_t<detail::wants_dynamic_split<Policies>() && splittable && !gated,
                           stages::dynamic_split<scheduler_bank_type>,
                           stages::no_split<scheduler_bank_type>>;
    using ldst_type = stages::ldst_stage<warp_size, coalescer_type, operands_type>;

    /// SM `id` running `source`'s warps; `memory` says what answers its LD/ST unit (the
    /// ideal fixed-latency memory unless a hierarchy is given; the L1 side comes from
    /// memory.l1).
    sm(std::uint32_t id, const sm_params& p, const typename scheduler_bank_type::params_type& sched,
       Source source, const memory_params& memory = ideal_memory())
        : id_(id), p_(validated(p)), source_(std::move(source)), sched_(sched), split_(p_, sched),
          execute_(p_.units), scoreboard_(issue::scoreboard_params{.warps = p_.contexts(),
                                                                   .registers = tracked_registers}),
          ldst_(id, p_, memory), warps_(p_.contexts()), blocks_(p_.block_slots),
          issue_(p_.contexts(), checked_width_(p_, sched)), power_(p_.units.sp_count, p_.gating),
          fetch_(p_.ibuffer_depth, p_.fetch_latency) {
        for (auto& w : warps_)
            w.ibuf.reserve(p_.ibuffer_depth);
        // FP64 and matrix instructions issue to the FP pipelines of an SM without DP or
        // tensor units, and count as FP instructions there.
        for (const auto u : {isa::unit_class::dp, isa::unit_class::tensor})
            fetch_.route(u, execute_.units(0).runs_on(u));
        writeback_.results().reserve(std::size_t{p_.contexts()} * 4);
        if (p_.split.mode != reconfig::split_mode::off)
            stages::check_split<warp_size>(p_, splittable, gates_clusters(), split_type::available);
        // The gating controllers and the schedulers' view of powered units are the SM's.
        if (p_.units.sub_cores > 1 && gates_clusters())
            throw config_error("units.sub_cores", std::to_string(p_.units.sub_cores),
                               "1 with a power-gating policy (gating is modelled per SM)");
    }

    /// True when the SM power-gates its clusters: `gated`, or with gating::selectable a
    /// policy other than no_gating in its params.
    [[nodiscard]] bool gates_clusters() const noexcept {
        if constexpr (std::is_same_v<typename Policies::gating_policy, gating::selectable>)
            return p_.gating.policy != gating::policy_kind::no_gating;
        else
            return gated;
    }

    /// Block slots free for a new block.
    [[nodiscard]] bool has_free_block_slot(std::uint32_t warps_needed) const {
        std::uint32_t free_warps = 0;
        for (std::uint32_t s = 0; s < p_.warp_slots; ++s)
            free_warps += warps_[s].resident ? 0 : 1;
        return free_warps >= warps_needed &&
               std::any_of(blocks_.begin(), blocks_.end(),
                           [](const stages::block_context& b) { return !b.resident; });
    }

    /// Starts kernel block `index` with `warps` warps on this SM.
    void start_block(std::uint32_t index, std::uint32_t warps) {
        std::uint32_t bslot = 0;
        while (bslot < blocks_.size() && blocks_[bslot].resident)
            ++bslot;
        WARPKIT_EXPECTS(bslot < blocks_.size());
        slots_tmp_.clear();
        if (sharing_.lone()) {
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
        blocks_[bslot] = stages::block_context{true, index, warps};
        for (auto s : slots_tmp_) {
            auto& w = warps_[s];
            w = stages::warp_context{};
            w.ibuf.reserve(p_.ibuffer_depth);
            // Warp slot s is scheduler s mod n's; the scheduler is its sub-core's.
            w.sub_core = static_cast<std::uint8_t>(s % sched_.size() % p_.units.sub_cores);
            w.resident = !source_.finished(s);
            w.block_slot = bslot;
            w.age = next_age_++;
            if (!w.resident)
                --blocks_[bslot].live_warps;
            else
                ++s_.warps_started;
        }
        ++resident_blocks_;
        retire_due_ = true;
        fetch_.wake();
        for (auto s : slots_tmp_)
            issue_.touch(s);
    }

    /// Advances one core cycle. Completed blocks are reported through `on_block_done(index)`.
    template <class OnBlockDone>
    void tick(OnBlockDone&& on_block_done) {
        ++s_.cycles;
        if (resident_blocks_ > 0) ++s_.active_cycles;
        s_.block_cycles += resident_blocks_;
        sharing_.begin_cycle();
        const bool hierarchy = ldst_.port().uses_hierarchy();
        if (hierarchy) ldst_.port().receive_step(now_, release_fn_());
        writeback_step_();
        if (hierarchy) ldst_.port().access_step(now_, writeback_.results());
        power_step_();
        // A slave of a sharing cluster executes the master's instructions; its own fetch,
        // decode and schedulers are gated until the cluster has ungrouped.
        if (sharing_.slave_shared()) {
            execute_commands_();
        } else {
            issue_half_(sched_, 0);
            if constexpr (split_type::available)
                if (split_.split()) issue_half_(split_.second_bank(), 1);
        }
        power_.gate(execute_.units(0), p_.issue_width,
                    [this](isa::unit_class u) { return type_active_(u); });
        if constexpr (split_type::available)
            if (split_.enabled()) {
                split_.step(warps_, blocks_, source_, scoreboard_, s_);
                fetch_.wake(); // warps may have been cut, moved or binned
            }
        if (!sharing_.slave_shared())
            s_.fetches += fetch_.tick(warps_, source_, now_,
                                      split_.split() ? 2 * p_.fetch_width : p_.fetch_width,
                                      [this](std::uint32_t s) { issue_.touch(s); });
        retire_blocks_(on_block_done);
        execute_.tick();
        ++now_;
    }

    /// True when no block is resident and nothing is in flight.
    [[nodiscard]] bool idle() const noexcept {
        return resident_blocks_ == 0 && writeback_.idle() && execute_.idle() &&
               (!ldst_.port().uses_hierarchy() || ldst_.port().idle()) && sharing_.quiet();
    }
    /// True while a block is resident or anything is in flight.
    [[nodiscard]] bool busy() const noexcept { return !idle(); }

    // ---- front-end sharing (paper 000; gpu/sharing_clusters.hpp drives the cluster) ------

    /// Joins a sharing cluster of `members` SMs as member `member` (0: the master) whose
    /// InstPackets take `communicate` cycles; the links carry `words` InstPacket words per
    /// cycle, a branch takes `branch_words`.
    void join_cluster(std::uint32_t member, std::uint32_t members, std::uint32_t communicate,
                      std::uint32_t words,
                      std::uint32_t branch_words) requires sharing_type::enabled {
        sharing_.member().join(member, members, communicate, words, branch_words,
                               issue::scoreboard_params{p_.warp_slots});
    }
    /// The SM's part in its sharing cluster (role none outside one).
    [[nodiscard]] cluster_member& cluster() noexcept requires sharing_type::enabled {
        return sharing_.member();
    }
    [[nodiscard]] const cluster_member& cluster() const noexcept requires sharing_type::enabled {
        return sharing_.member();
    }

    // ---- memory ports (hierarchy model) -------------------------------------------------
    // Every core cycle the GPU may hand the SM one reply (before tick) and take one request
    // (after tick). Requests come from the L1 data cache's miss queue, the constant cache's,
    // the atomics queue and the texture cache's miss queue in turn.

    /// True when the SM uses the memory hierarchy (its ports are live).
    [[nodiscard]] bool uses_hierarchy() const noexcept { return ldst_.port().uses_hierarchy(); }
    /// True when a request waits to leave.
    [[nodiscard]] bool has_request() const noexcept { return ldst_.port().has_request(); }
    /// The request that leaves next (has_request() must hold).
    [[nodiscard]] mem_message request() const { return ldst_.port().request(now_); }
    /// Removes the request request() returned (it was sent).
    void pop_request() { s_.request_flits += ldst_.port().pop_request(now_); }
    /// True when the SM can take a reply this cycle.
    [[nodiscard]] bool can_receive() const noexcept { return ldst_.port().can_receive(); }
    /// A reply to one of the SM's requests (handled in the next tick, one per cycle).
    void receive(const mem_message& reply) { ldst_.port().receive(reply); }
    /// Counters of the SM's memory side (zero with the ideal memory).
    [[nodiscard]] sm_memory_stats memory_stats() const { return ldst_.port().stats(); }
    /// The L1 data cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& l1d() const noexcept {
        return ldst_.port().l1d();
    }
    /// The constant cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& constant_cache() const noexcept {
        return ldst_.port().constant_cache();
    }
    /// The texture cache with its MSHRs (hierarchy model).
    [[nodiscard]] const mem::cache_controller<std::uint32_t>& texture_cache() const noexcept {
        return ldst_.port().texture_cache();
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
        sched_.reset_stats();
        split_.reset_stats();
        execute_.reset_stats();
        scoreboard_.reset_stats();
        ldst_.reset_stats();
        power_.reset_stats();
        sharing_.reset_stats();
    }
    [[nodiscard]] const exec::execution_units<payload>& units() const noexcept {
        return execute_.units(0);
    }
    /// The execution units of a split SM's second half (SM1; idle unless split.mode is on).
    [[nodiscard]] const exec::execution_units<payload>& second_units() const noexcept {
        return execute_.units(1);
    }
    /// The switch controller of AMOEBA's dynamic split.
    [[nodiscard]] const reconfig::sm_split_controller&
    split_controller() const noexcept requires split_type::available {
        return split_.controller();
    }
    [[nodiscard]] const scheduler_bank_type& schedulers() const noexcept { return sched_; }
    [[nodiscard]] const scoreboard_type& scoreboard() const noexcept { return scoreboard_; }
    /// Gating controllers of the INT clusters (0 .. sp_count-1) then the FP clusters: a
    /// `const std::vector<gating_controller>&`, or with gating::selectable a
    /// gating::controller_span of them.
    [[nodiscard]] decltype(auto) gates() const noexcept { return power_.gates(); }
    /// The idle-detect threshold in force for unit type `u` (int_alu or fp).
    [[nodiscard]] std::uint32_t idle_detect(isa::unit_class u) const {
        return power_.idle_detect(u);
    }
    /// Adaptive idle-detect counters of unit type `u` (zero unless per_type_idle_detect).
    [[nodiscard]] const type_adaptation_stats& adaptation(isa::unit_class u) const {
        return power_.adaptation(u);
    }
    [[nodiscard]] const Source& source() const noexcept { return source_; }
    /// True when the instruction source can hold back its device-memory accesses until
    /// commit_memory() (func::ptx_source::defer_global), or touches no device memory (a
    /// trace): SMs may then tick on several threads within a cycle.
    [[nodiscard]] bool can_defer_memory() const noexcept {
        if constexpr (requires { source_.deferrable(); })
            return source_.deferrable();
        else
            return false;
    }
    /// Holds back (or not) the source's device-memory accesses until commit_memory().
    void defer_memory(bool on) {
        if constexpr (requires { source_.defer_global(on); }) source_.defer_global(on);
    }
    /// Performs the accesses held back since the last commit, in the order they executed.
    /// `loads_only`: no SM holds a write (holds_memory_writes() false on every SM), so the
    /// commit only reads device memory and SMs may commit at once on their own threads.
    void commit_memory(bool loads_only = false) {
        if constexpr (requires { source_.commit_global(loads_only); })
            source_.commit_global(loads_only);
    }
    /// True when an access held back since the last commit is a store or an atomic.
    [[nodiscard]] bool holds_memory_writes() const noexcept {
        if constexpr (requires { source_.holds_global_writes(); })
            return source_.holds_global_writes();
        else
            return false;
    }
    /// Accesses held back since the last commit (one per lane and vector element).
    [[nodiscard]] std::size_t memory_held() const noexcept {
        if constexpr (requires { source_.global_held(); })
            return source_.global_held();
        else
            return 0;
    }
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
            if constexpr (requires { source_.past_end(s); })
                if (source_.past_end(s))
                    out += "; it ran past the last instruction: no EXIT on its path";
        }
        return out;
    }

    /// Closes the open idle periods of the gating controllers (call once at the end).
    void finish() { power_.finish(); }

private:
    // The SM as its issue stage and a sharing slave's command execution see it.
    struct issue_wiring {
        sm& m;
        [[nodiscard]] bool at_barrier(std::uint32_t s) const { return m.source_.at_barrier(s); }
        [[nodiscard]] issue::hazard hazard(std::uint32_t s, const isa::static_inst& si) const {
            return m.hazard_(s, si);
        }
        [[nodiscard]] bool ldst_free(std::uint32_t s, std::uint32_t h) const {
            return m.execute_.ldst_free(m.ldst_, h, m.now_, m.warps_[s].sub_core);
        }
        [[nodiscard]] bool unit_free(std::uint32_t s, const isa::static_inst& si,
                                     std::uint32_t h) const {
            return m.execute_.unit_free(si, h, m.ldst_, m.now_, m.warps_[s].sub_core);
        }
        void replay(std::uint32_t s) { m.replay_(s); }
        void execute(std::uint32_t s, const isa::static_inst& si) { m.execute_one_(s, si); }
    };

    // The issue width, which must take one warp of every scheduler.
    static std::uint32_t checked_width_(const sm_params& p,
                                        const typename scheduler_bank_type::params_type& sched) {
        if (p.units.sub_cores > 1 && sched.schedulers % p.units.sub_cores != 0)
            throw config_error("units.sub_cores", std::to_string(p.units.sub_cores),
                               "a divisor of the number of schedulers (" +
                                   std::to_string(sched.schedulers) +
                                   "): each scheduler feeds one sub-core");
        if (sched.schedulers > p.issue_width)
            throw config_error("issue_width", std::to_string(p.issue_width),
                               ">= the number of schedulers (" + std::to_string(sched.schedulers) +
                                   ")");
        return p.issue_width;
    }

    // The hazards of warp `s`'s front instruction `si`. The issue stage asks for every
    // resident warp every cycle, mostly about an instruction that waits for the same
    // operands as in the cycle before: outside a sharing cluster the answer is kept with the
    // warp (stages::hazard_memo) until the scoreboard's version of the warp or its front
    // instruction changes. In a cluster the sharing slot answers each time (a master's
    // answer comes from the cluster's enhanced scoreboard; a slave asks about the master's
    // instructions, not its own buffer).
    [[nodiscard]] issue::hazard hazard_(std::uint32_t s, const isa::static_inst& si) {
        const auto ops = [&] { return stages::operands_of<operands_type>(si); };
        if (!sharing_.lone()) return sharing_.hazard(scoreboard_, s, ops());
        auto& w = warps_[s];
        stages::hazard_memo& k = w.hazards;
        const std::uint64_t version = scoreboard_.version(s);
        if (k.version != version || k.serial != w.ibuf.serial()) {
            k.version = version;
            k.serial = w.ibuf.serial();
            k.answer = scoreboard_.peek(s, ops());
        }
#ifndef NDEBUG
        // Debug builds (the tests under the sanitizers) check every kept answer against the
        // scoreboard, and with it that the question was about the front instruction.
        const issue::hazard fresh = scoreboard_.peek(s, ops());
        WARPKIT_EXPECTS(fresh.raw == k.answer.raw && fresh.waw == k.answer.waw &&
                        fresh.long_latency == k.answer.long_latency);
#endif
        return k.answer;
    }

    // A result reaches writeback: the sharing slot decides which scoreboard it clears.
    [[nodiscard]] auto release_fn_() {
        return [this](std::uint32_t slot, const operands_type& writes, bool memory) {
            sharing_.release(scoreboard_, slot, writes, memory, now_);
            issue_.touch(slot);
        };
    }

    void writeback_step_() {
        sharing_.retire_delayed(now_);
        auto release = release_fn_();
        const auto data_return = [&](std::uint32_t entry) {
            ldst_.port().data_return(entry, release);
        };
        if (execute_.second_used())
            writeback_.tick({&execute_.units(0), &execute_.units(1)}, now_, release, data_return);
        else
            writeback_.tick({&execute_.units(0)}, now_, release, data_return);
        if (ldst_.port().uses_hierarchy()) ldst_.port().drain_fills(release);
    }

    void power_step_() {
        const issue::unit_set blocked = power_.power(execute_.units(0));
        if constexpr (requires(scheduler_bank_type & b) { b.set_blocked(blocked); })
            sched_.set_blocked(blocked);
    }

    // The issue stage of half `h` (0: the whole SM while fused; a split SM runs SM0's and
    // SM1's, each with its own scheduler and units, over its own warps).
    void issue_half_(scheduler_bank_type& bank, std::uint32_t h) {
        if (sharing_.master_paused()) return; // the cluster ramps down: nothing issues
        // The issue stage tracks what stops each warp (and describes only the warps that can
        // issue) where that is exact: one half, no sharing cluster, and schedulers that pick
        // from the issuable warps alone.
        issue_.track(sharing_.lone() && !split_.enabled() && bank.issuable_only());
        issue_wiring port{*this};
        const std::size_t issued =
            issue_.tick(h, bank, std::span<const stages::warp_context>(warps_), sharing_, port,
                        power_.demand(), s_.stalls);
        if constexpr (split_type::available)
            if (h == 1) split_.note_second_issued(issued > 0);
    }

    void execute_commands_() {
        if constexpr (sharing_type::enabled) {
            issue_wiring port{*this};
            sharing_.execute_commands(port, std::span<const stages::warp_context>(warps_), source_,
                                      power_.demand(), p_.issue_width, id_, now_);
        }
    }

    [[nodiscard]] std::uint32_t type_active_(isa::unit_class u) const {
        if constexpr (requires(const scheduler_bank_type& b) { b.actv(u); }) {
            // A selectable scheduler counts them only while it runs GATES.
            if constexpr (requires(const scheduler_bank_type& b) { b[0].counts_active(); }) {
                if (sched_[0].counts_active()) return sched_.actv(u);
            } else {
                return sched_.actv(u);
            }
        }
        std::uint32_t n = 0;
        for (std::uint32_t s = 0; s < warps_.size(); ++s)
            if (warps_[s].resident && !warps_[s].ibuf.empty() && warps_[s].ibuf.front().unit == u)
                ++n;
        return n;
    }

    // Passes of warp `s` through its pipelines: a warp of the full width takes two on a split
    // SM's half datapath.
    [[nodiscard]] std::uint32_t passes_(std::uint32_t s) const noexcept {
        return split_.split() && !warps_[s].narrow ? 2U : 1U;
    }

    // One more pass of a shared-memory access whose lanes lost a bank conflict.
    void replay_(std::uint32_t s) {
        auto& w = warps_[s];
        issue_.touch(s);
        execute_.replay(s, w.half, w.sub_core);
        ldst_.replay(s, w, now_, s_, writeback_.results());
    }

    // Executes warp `s`'s next instruction `si`; a warp whose every thread exited leaves.
    void execute_one_(std::uint32_t s, const isa::static_inst& si) {
        auto& w = warps_[s];
        const stages::execute_context<Source, sharing_type, ldst_type, scoreboard_type,
                                      typename ldst_type::results_type>
            ctx{source_,
                sharing_,
                scoreboard_,
                ldst_,
                writeback_.results(),
                s_,
                func::exec_site{id_, now_}};
        execute_.execute(s, si, w, passes_(s), ctx);
        retire_due_ = true;
        fetch_.wake(s); // the warp's buffer, pc or barrier state changed
        issue_.touch(s);
        if (source_.finished(s)) {
            w.resident = false;
            w.ibuf.clear();
            --blocks_[w.block_slot].live_warps;
            ++s_.warps_finished;
        }
    }

    // Barriers complete and blocks finish only through what an executed instruction, a
    // block start or a split move changed (retire_due_); other cycles have nothing to retire.
    template <class OnBlockDone>
    void retire_blocks_(OnBlockDone& on_block_done) {
        if (!retire_due_ && !split_.enabled()) {
#ifndef NDEBUG
            for (std::uint32_t b = 0; b < blocks_.size(); ++b)
                WARPKIT_EXPECTS(!blocks_[b].resident ||
                                (!source_.barrier_complete(b) &&
                                 !(blocks_[b].live_warps == 0 && source_.block_finished(b))));
#endif
            return;
        }
        retire_due_ = false;
        for (std::uint32_t b = 0; b < blocks_.size(); ++b) {
            auto& blk = blocks_[b];
            if (!blk.resident) continue;
            if (source_.barrier_complete(b)) {
                source_.release_barrier(b);
                ++s_.barrier_releases;
                fetch_.wake();
                issue_.touch_all();
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
    [[no_unique_address]] split_type split_; // AMOEBA's split and SM1's schedulers
    stages::execute_stage<exec::execution_units<payload>> execute_;
    scoreboard_type scoreboard_;
    ldst_type ldst_;
    std::vector<stages::warp_context> warps_;
    std::vector<stages::block_context> blocks_;
    stages::issue_stage<scheduler_bank_type> issue_;
    power_stage_type power_;
    stages::writeback_stage<typename ldst_type::results_type> writeback_;
    stages::fetch_stage fetch_;
    [[no_unique_address]] sharing_type sharing_; // front-end sharing (role none: alone)
    std::vector<std::uint32_t> slots_tmp_;
    std::uint32_t resident_blocks_ = 0;
    bool retire_due_ = false; // see retire_blocks_
    std::uint64_t now_ = 0;
    std::uint64_t next_age_ = 0;
    sm_stats s_;
};

} // namespace warpkit::gpu
