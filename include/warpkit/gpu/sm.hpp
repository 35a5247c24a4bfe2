#pragma once
/// \file
/// `sm<Policies, Source>`: the timing model of one streaming multiprocessor, assembled from
/// the parts: per-warp instruction buffers fed by a fetch stage, a scoreboard, a bank of warp
/// schedulers, the execution clusters with optional power gating, shared-memory banks, a
/// coalescer, and a fixed-latency ("ideal") memory behind the LD/ST unit. Instructions come
/// from an instruction source (functional execution at issue).

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gpu/instruction_source.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/warp_view.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>
#include <warpkit/mem/transaction.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::gpu {

/// Parameters of one SM. Defaults: GTX480 (paper 003 Section 2.1 / 6: 48 warps, 8 blocks,
/// two schedulers issuing one warp each per cycle); memory latencies are the microbenchmarked
/// Tesla-class figures of Wong et al. (ISPASS 2010: shared 38, global about 440 cycles)
/// until the memory-system parts replace the fixed latencies.
struct sm_params {
    std::uint32_t warp_slots = 48;   ///< resident warps
    std::uint32_t block_slots = 8;   ///< resident blocks
    std::uint32_t issue_width = 2;   ///< warp instructions issued per cycle
    std::uint32_t ibuffer_depth = 2; ///< decoded instructions buffered per warp
    std::uint32_t fetch_width = 1;   ///< warps fetched per cycle
    std::uint32_t fetch_latency = 1; ///< cycles from fetch to a filled instruction buffer
    std::uint32_t shared_latency = 38;
    std::uint32_t const_latency = 38;
    std::uint32_t global_latency = 440;
    exec::units_params units{};
    mem::bank_params banks{};
    gating::params gating{};
    void validate() const {
        check_range("warp_slots", warp_slots, 1U, 64U);
        check_range("block_slots", block_slots, 1U, 64U);
        check_range("issue_width", issue_width, 1U, 8U);
        check_range("ibuffer_depth", ibuffer_depth, 1U, 16U);
        check_range("fetch_width", fetch_width, 1U, 64U);
        check_range("fetch_latency", fetch_latency, 1U, 1000U);
        check_range("shared_latency", shared_latency, 1U, 100000U);
        check_range("const_latency", const_latency, 1U, 100000U);
        check_range("global_latency", global_latency, 1U, 100000U);
    }
    WARPKIT_FIELDS(sm_params, warp_slots, block_slots, issue_width, ibuffer_depth, fetch_width,
                   fetch_latency, shared_latency, const_latency, global_latency, units, banks,
                   gating)
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
    std::uint64_t global_accesses = 0;
    std::uint64_t global_transactions = 0;
    std::uint64_t const_accesses = 0;
    std::uint64_t barrier_releases = 0;
    WARPKIT_FIELDS(sm_stats, cycles, active_cycles, warp_instructions, thread_instructions,
                   issued_by_unit, stalls, fetches, ibuffer_flushes, blocks_completed,
                   shared_accesses, shared_bank_passes, global_accesses, global_transactions,
                   const_accesses, barrier_releases)
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

/// One SM. `Policies` names the parts: `warp_size`, `scheduler` (one scheduler; the SM runs
/// a bank of them), `gating_policy` (gating::no_gating to disable gating), `coalescer`.
/// `Source` supplies the warps (instruction_source).
template <class Policies, class Source>
requires instruction_source<Source, Policies::warp_size>
class sm {
public:
    static constexpr std::size_t warp_size = Policies::warp_size;
    using scheduler_bank_type = issue::scheduler_bank<typename Policies::scheduler>;
    using gating_controller = gating::controller<typename Policies::gating_policy>;
    using coalescer_type = typename Policies::coalescer;
    using params_type = sm_params;
    using stats_type = sm_stats;

    /// What travels down an execution pipeline: the warp and the registers it will write.
    struct payload {
        std::uint32_t slot = 0;
        issue::operands writes{};
    };

    sm(std::uint32_t id, const sm_params& p, const typename scheduler_bank_type::params_type& sched,
       Source source)
        : id_(id), p_(checked(p)), source_(std::move(source)), sched_(sched), units_(p_.units),
          scoreboard_(issue::scoreboard_params{p_.warp_slots}), banks_(p_.banks),
          warps_(p_.warp_slots), blocks_(p_.block_slots) {
        if (sched.schedulers > p_.issue_width)
            throw config_error("issue_width", std::to_string(p_.issue_width),
                               ">= the number of schedulers (" + std::to_string(sched.schedulers) +
                                   ")");
        for (auto& w : warps_)
            w.ibuf.reserve(p_.ibuffer_depth);
        for (std::size_t c = 0; c < 2 * std::size_t{p_.units.sp_count}; ++c)
            gates_.emplace_back(p_.gating);
        events_.reserve(std::size_t{p_.warp_slots} * 4);
        views_.resize(p_.warp_slots);
    }

    /// Block slots free for a new block.
    [[nodiscard]] bool has_free_block_slot(std::uint32_t warps_needed) const {
        std::uint32_t free_warps = 0;
        for (const auto& w : warps_)
            free_warps += w.resident ? 0 : 1;
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
        for (std::uint32_t s = 0; s < warps_.size() && slots_tmp_.size() < warps; ++s)
            if (!warps_[s].resident) slots_tmp_.push_back(s);
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
            if (!w.resident) --blocks_[bslot].live_warps;
        }
        ++resident_blocks_;
    }

    /// Advances one core cycle. Completed blocks are reported through `on_block_done(index)`.
    template <class OnBlockDone>
    void tick(OnBlockDone&& on_block_done) {
        ++s_.cycles;
        if (resident_blocks_ > 0) ++s_.active_cycles;
        writeback_();
        gate_();
        issue_();
        fetch_();
        retire_blocks_(on_block_done);
        units_.tick();
        ++now_;
    }

    /// True when no block is resident and nothing is in flight.
    [[nodiscard]] bool idle() const noexcept {
        return resident_blocks_ == 0 && events_.empty() && units_.busy_mask() == 0;
    }
    [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
    [[nodiscard]] const sm_params& params() const noexcept { return p_; }
    [[nodiscard]] const sm_stats& stats() const noexcept { return s_; }
    [[nodiscard]] const exec::execution_units<payload>& units() const noexcept { return units_; }
    [[nodiscard]] const scheduler_bank_type& schedulers() const noexcept { return sched_; }
    [[nodiscard]] const issue::scoreboard& scoreboard() const noexcept { return scoreboard_; }
    /// Gating controllers of the INT clusters (0 .. sp_count-1) then the FP clusters.
    [[nodiscard]] const std::vector<gating_controller>& gates() const noexcept { return gates_; }
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
    };
    struct block {
        bool resident = false;
        std::uint32_t index = 0;
        std::uint32_t live_warps = 0;
    };
    struct event { // a memory result arriving at writeback
        std::uint64_t at;
        std::uint32_t slot;
        issue::operands writes;
        friend bool operator>(const event& a, const event& b) noexcept { return a.at > b.at; }
    };

    static const sm_params& checked(const sm_params& p) {
        validate(p);
        return p;
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

    void writeback_() {
        for (std::size_t c = 0; c < units_.size(); ++c) {
            auto& cl = units_[c];
            while (cl.ready()) {
                const payload pl = cl.take();
                if (pl.writes.dsts != 0) scoreboard_.release(pl.slot, pl.writes);
            }
        }
        while (!events_.empty() && events_.front().at <= now_) {
            std::pop_heap(events_.begin(), events_.end(), std::greater<>{});
            const event e = events_.back();
            events_.pop_back();
            if (e.writes.dsts != 0) scoreboard_.release(e.slot, e.writes);
        }
    }

    // Demand per unit class this cycle: warps whose next instruction has its operands ready.
    void gate_() {
        demand_ = {};
        for (std::uint32_t s = 0; s < warps_.size(); ++s) {
            const auto& w = warps_[s];
            if (!w.resident || w.ibuf.empty() || source_.at_barrier(s)) continue;
            const auto& si = w.ibuf.front();
            if (scoreboard_.can_issue(s, operands_of(si))) ++demand_[isa::index(si.unit)];
        }
        const std::size_t sps = p_.units.sp_count;
        issue::unit_set blocked;
        for (std::size_t t = 0; t < 2; ++t) {
            const auto unit = t == 0 ? isa::unit_class::int_alu : isa::unit_class::fp;
            const std::uint32_t d = demand_[isa::index(unit)];
            const std::uint32_t actv = type_active_(unit);
            bool all_blocked = true;
            std::uint32_t served = 0; // demand absorbed by lower-indexed clusters that are on
            for (std::size_t k = 0; k < sps; ++k) {
                const std::size_t c = t * sps + k;
                auto& g = gates_[c];
                auto& cl = units_[c];
                const bool wants = d > served;
                if (g.can_issue()) ++served;
                bool sibling_gated = false;
                for (std::size_t j = 0; j < sps; ++j)
                    if (j != k && gates_[t * sps + j].gated()) sibling_gated = true;
                (void)g.tick(gating::cycle_input{wants, cl.busy(), actv, sibling_gated});
                // The state decided for the next cycle applies from the issue stage on: the
                // controller's tick describes the current cycle, so use the state it held.
                cl.set_powered(!g.gated() || cl.busy());
                if (g.can_issue()) all_blocked = false;
            }
            if (all_blocked) blocked.set(unit);
        }
        blocked_ = blocked;
        if constexpr (requires(scheduler_bank_type & b) { b.set_blocked(blocked); })
            sched_.set_blocked(blocked);
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

    // Can an instruction of this class start this cycle (structure and power)?
    [[nodiscard]] bool unit_free_(const isa::static_inst& si) const {
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
            return units_.find_free(op_class_of(si)).has_value();
        case isa::unit_class::ldst:
            return now_ >= ldst_free_at_ && units_.find_free(exec::op_class::ldst).has_value();
        default:
            return true;
        }
    }

    void issue_() {
        std::uint32_t n = 0;
        enum cause { c_idle, c_fetch, c_barrier, c_scoreboard, c_unit, c_gated };
        int worst = c_idle;
        for (std::uint32_t s = 0; s < warps_.size(); ++s) {
            auto& v = views_[n];
            const auto& w = warps_[s];
            if (!w.resident) continue;
            v = issue::warp_view{};
            v.id = static_cast<issue::warp_id>(s);
            v.age = w.age;
            v.at_barrier = source_.at_barrier(s);
            v.valid = !w.ibuf.empty();
            if (v.at_barrier) {
                worst = std::max<int>(worst, c_barrier);
            } else if (!v.valid) {
                worst = std::max<int>(worst, c_fetch);
            } else {
                const auto& si = w.ibuf.front();
                v.unit = si.unit;
                const auto hz = scoreboard_.peek(s, operands_of(si));
                v.long_latency = hz.long_latency;
                if (hz.any()) {
                    worst = std::max<int>(worst, c_scoreboard);
                } else if (!unit_free_(si)) {
                    const bool gated =
                        (si.unit == isa::unit_class::int_alu || si.unit == isa::unit_class::fp) &&
                        blocked_.test(si.unit);
                    worst = std::max<int>(worst, gated ? c_gated : c_unit);
                } else {
                    v.ready = true;
                }
            }
            ++n;
        }
        const auto picks =
            sched_.select(std::span<const issue::warp_view>(views_.data(), n), p_.issue_width);
        issue::issue_list done;
        for (std::size_t i = 0; i < picks.size(); ++i) {
            const std::uint32_t s = picks[i].warp;
            auto& w = warps_[s];
            if (w.ibuf.empty() || source_.at_barrier(s)) continue;
            const isa::static_inst si = w.ibuf.front();
            // A second pick of the same class may find the unit taken by the first.
            if (!scoreboard_.can_issue(s, operands_of(si)) || !unit_free_(si)) continue;
            issue_one_(s, si);
            done.push(static_cast<issue::warp_id>(s), si.unit);
        }
        sched_.notify_issued(done);
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

    void issue_one_(std::uint32_t s, const isa::static_inst& si) {
        auto& w = warps_[s];
        const auto d = source_.execute(s, exec_site{id_, now_});
        ++s_.warp_instructions;
        s_.thread_instructions += d.active.count();
        ++s_.issued_by_unit[isa::index(si.unit)];
        w.ibuf.erase(w.ibuf.begin());
        const issue::operands writes = writes_of(si);
        const bool memory = si.mop != isa::mem_op::none;
        if (writes.dsts != 0)
            scoreboard_.reserve(s, writes, memory && si.space != isa::mem_space::shared);
        const exec::op_class oc = op_class_of(si);
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
            (void)units_.issue(oc, payload{s, writes}, d.active);
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
        }
    }

    void issue_memory_(std::uint32_t s, const isa::dynamic_inst<warp_size>& d,
                       const issue::operands& writes) {
        // The LD/ST cluster generates addresses (its op_class timing); the memory behind it
        // answers after a fixed latency, serialised per transaction or bank pass.
        (void)units_.issue(exec::op_class::ldst, payload{s, issue::operands{}}, d.active);
        const std::uint64_t agen = p_.units.timing.of(exec::op_class::ldst).latency;
        std::uint64_t occupancy = 1;
        std::uint64_t latency = p_.global_latency;
        switch (d.si.space) {
        case isa::mem_space::shared: {
            const auto a = banks_.access(d.addr, d.si.access_bytes, d.active);
            occupancy = std::max<std::uint64_t>(1, a.passes);
            latency = p_.shared_latency;
            ++s_.shared_accesses;
            s_.shared_bank_passes += a.passes;
            break;
        }
        case isa::mem_space::constant:
            latency = p_.const_latency;
            ++s_.const_accesses;
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
        for (std::uint32_t k = 0; k < n && started < p_.fetch_width; ++k) {
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
    exec::execution_units<payload> units_;
    issue::scoreboard scoreboard_;
    mem::shared_memory_banks banks_;
    coalescer_type coalescer_{};
    mem::transaction_list<warp_size> txns_{};
    std::vector<warp> warps_;
    std::vector<block> blocks_;
    std::vector<gating_controller> gates_;
    std::vector<event> events_; // a min-heap on arrival cycle
    std::vector<issue::warp_view> views_;
    std::vector<std::uint32_t> slots_tmp_;
    std::array<std::uint32_t, isa::unit_class_count> demand_{};
    issue::unit_set blocked_{};
    std::uint32_t resident_blocks_ = 0;
    std::uint32_t fetch_next_ = 0;
    std::uint64_t ldst_free_at_ = 0;
    std::uint64_t now_ = 0;
    std::uint64_t next_age_ = 0;
    sm_stats s_;
};

} // namespace warpkit::gpu
