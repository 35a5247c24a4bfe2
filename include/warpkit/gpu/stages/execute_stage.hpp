#pragma once
/// \file
/// `execute_stage`: operand read and execute of an SM. It holds the execution units (a split
/// SM's second half has units of its own), answers whether an instruction's unit can start it
/// this cycle, and executes an issued instruction: the instruction source runs it, the
/// scoreboard (or the sharing cluster's) reserves its destinations, and it enters its pipeline
/// (INT, FP, SFU) or the LD/ST cluster, whose address generation hands the access to the LD/ST
/// stage. Control instructions flush the warp's instruction buffer.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/gpu/stages/writeback_stage.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <cstdint>
#include <string>

namespace warpkit::gpu::stages {

/// What executing one instruction reaches besides the units: the instruction source, the
/// sharing slot and scoreboard that track its writes, the LD/ST stage and the writeback port
/// its access goes to, the SM's counters and where it executes (SM and cycle).
template <class Source, class Sharing, class Ldst, class Scoreboard = issue::scoreboard,
          class Results = result_queue<>>
struct execute_context {
    Source& source;
    Sharing& sharing;
    Scoreboard& scoreboard;
    Ldst& ldst;
    Results& results;
    sm_stats& counts;
    func::exec_site site;
};

/// The execution units of an SM (and of a split SM's second half), each an `Units`.
template <class Units = exec::execution_units<payload>>
class execute_stage {
public:
    using units_type = Units;
    /// What travels down a pipeline (basic_payload of the SM's operands).
    using payload_type = typename Units::payload_type;
    using operands_type = decltype(payload_type{}.writes);

    explicit execute_stage(const exec::units_params& p) : units_(p), second_(p) {}

    /// The units of half `h` (the whole SM's while fused).
    [[nodiscard]] units_type& units(std::uint32_t h) noexcept {
        if (h == 0) return units_;
        second_used_ = true; // ticked every cycle from now on
        return second();
    }
    [[nodiscard]] const units_type& units(std::uint32_t h) const noexcept {
        return h == 0 ? units_ : second();
    }
    /// True once the second half's units have been asked for (a split SM); until then only
    /// the first half's pipelines can hold instructions.
    [[nodiscard]] bool second_used() const noexcept { return second_used_; }
    /// True when no pipeline of either half holds an instruction.
    [[nodiscard]] bool idle() const noexcept {
        return units_.busy_mask() == 0 && (!second_used_ || second_.busy_mask() == 0);
    }
    /// Advances every pipeline one cycle. The second half's units, empty until an SM first
    /// splits, count their idle cycles in one step when next looked at.
    void tick() {
        units_.tick();
        if (second_used_)
            second_.tick();
        else
            ++second_lag_;
    }
    void reset_stats() {
        units_.reset_stats();
        second().reset_stats();
    }

    /// True when sub-core `k`'s LD/ST cluster of half `h` and `ldst` (the memory stage all
    /// sub-cores share) take a new access at `now`.
    template <class Ldst>
    [[nodiscard]] bool ldst_free(const Ldst& ldst, std::uint32_t h, std::uint64_t now,
                                 std::uint32_t k = 0) const {
        return ldst.free(now) && units(h).find_free(exec::op_class::ldst, k).has_value();
    }
    /// Can an instruction of this class start on sub-core `k` of half `h` at `now` (structure
    /// and power)?
    template <class Ldst>
    [[nodiscard]] bool unit_free(const isa::static_inst& si, std::uint32_t h, const Ldst& ldst,
                                 std::uint64_t now, std::uint32_t k = 0) const {
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
        case isa::unit_class::dp:
        case isa::unit_class::tensor:
            return units(h).find_free(op_class_of(si), k).has_value();
        case isa::unit_class::ldst:
            return ldst_free(ldst, h, now, k) && ldst.can_take(si);
        default:
            return true;
        }
    }

    /// A replayed shared-memory pass of warp `s` (on sub-core `k` of half `h`) occupies its
    /// LD/ST cluster.
    void replay(std::uint32_t s, std::uint32_t h, std::uint32_t k = 0) {
        (void)units(h).issue(exec::op_class::ldst, payload_type{s, operands_type{}}, warp_mask{},
                             1, k);
    }

    /// Executes `si`, the next instruction of warp `w` (slot `s`), taking `passes` passes of
    /// its pipeline. Throws sim_error when the source executes another instruction than the
    /// one decoded.
    template <class Source, class Sharing, class Ldst, class Scoreboard, class Results>
    void execute(std::uint32_t s, const isa::static_inst& si, warp_context& w, std::uint32_t passes,
                 const execute_context<Source, Sharing, Ldst, Scoreboard, Results>& ctx) {
        const auto d = ctx.source.execute(s, ctx.site);
        // (The fetch stage decoded `si` onto the unit class that runs it here: dp and tensor
        // instructions become fp ones on an SM without DP or tensor units.)
        if (d.si.opcode != si.opcode || units(w.half).runs_on(d.si.unit) != si.unit ||
            d.si.mop != si.mop)
            throw_mismatch_(s, si, d.si, d.pc, ctx.site);
        auto& counts = ctx.counts;
        ++counts.warp_instructions;
        counts.thread_instructions += d.active.count();
        if (w.launched == 0) w.launched = static_cast<std::uint32_t>(d.active.count());
        counts.warp_threads += w.launched;
        ++counts.issued_by_unit[isa::index(si.unit)];
        if (!w.ibuf.empty()) w.ibuf.pop_front(); // empty on a sharing slave
        const auto writes = writes_of<operands_type>(si);
        ctx.sharing.issued(ctx.scoreboard, s, si, d, writes, ctx.source, ctx.site.clock);
        switch (si.unit) {
        case isa::unit_class::int_alu:
        case isa::unit_class::fp:
        case isa::unit_class::sfu:
        case isa::unit_class::dp:
        case isa::unit_class::tensor:
            (void)units(w.half).issue(op_class_of(si), payload_type{s, writes}, d.active, passes,
                                      w.sub_core);
            break;
        case isa::unit_class::ldst:
            // The LD/ST cluster generates addresses (its op_class timing); the memory stage
            // behind it answers.
            (void)units(w.half).issue(exec::op_class::ldst, payload_type{s, operands_type{}},
                                      d.active, passes, w.sub_core);
            ctx.ldst.issue(s, w, d, writes, ctx.site.clock, counts, ctx.results);
            break;
        default:
            break;
        }
        if (si.is_branch || si.is_barrier || si.is_exit) {
            if (!w.ibuf.empty()) ++counts.ibuffer_flushes;
            w.ibuf.clear();
            w.fetching = false;
        }
    }

private:
    [[noreturn]] static void throw_mismatch_(std::uint32_t s, const isa::static_inst& decoded,
                                             const isa::static_inst& executed, std::uint32_t pc,
                                             func::exec_site site) {
        throw sim_error("SM " + std::to_string(site.sm) + " warp slot " + std::to_string(s) +
                        " issued a decoded instruction (opcode " + std::to_string(decoded.opcode) +
                        ") that is not the one it executed (" + std::to_string(executed.opcode) +
                        " at pc " + std::to_string(pc) + ") in cycle " +
                        std::to_string(site.clock) +
                        ": the instruction source's peek ran past where the warp went");
    }

    units_type units_;
    // The second half's units with the idle cycles they have not counted yet.
    units_type& second() const noexcept {
        if (second_lag_ > 0) {
            second_.skip_idle(second_lag_);
            second_lag_ = 0;
        }
        return second_;
    }

    mutable units_type second_;            // a split SM's SM1 datapath
    mutable std::uint64_t second_lag_ = 0; // cycles second_ has not ticked (all idle)
    bool second_used_ = false;
};

} // namespace warpkit::gpu::stages
