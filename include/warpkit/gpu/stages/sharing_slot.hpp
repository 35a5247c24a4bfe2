#pragma once
/// \file
/// The front-end sharing slot of an SM (paper 000), a policy of gpu::sm:
/// - `front_end_sharing` keeps the SM's cluster_member and carries out what sharing changes
///   in the pipeline: a master's writes go to the cluster's enhanced scoreboard and its
///   results through the communicate stage, its issue waits for held warps and full links and
///   reports what it issued; a slave's memory results are acked to the master and, while
///   grouped, it executes the master's InstPackets instead of issuing (execute_commands).
/// - `no_front_end_sharing` is an empty type for SMs that never join a cluster: every
///   question answers as for a lone SM at compile time, so the checks compile away.
/// Both take the SM's scoreboard and an issue port (see issue_port.hpp) as arguments.

#include <warpkit/core/error.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/stages/issue_port.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace warpkit::gpu::stages {

/// Branches, and exits that may leave a warp with fewer lanes, have their masks compared.
[[nodiscard]] constexpr bool control_instruction(const isa::static_inst& si) noexcept {
    return si.is_branch || si.is_exit;
}

/// An SM that never takes part in a front-end sharing cluster.
struct no_front_end_sharing {
    static constexpr bool enabled = false;

    [[nodiscard]] static constexpr bool lone() noexcept { return true; }
    [[nodiscard]] static constexpr bool master_shared() noexcept { return false; }
    [[nodiscard]] static constexpr bool master_grouped() noexcept { return false; }
    [[nodiscard]] static constexpr bool master_paused() noexcept { return false; }
    [[nodiscard]] static constexpr bool slave_shared() noexcept { return false; }
    [[nodiscard]] static constexpr bool quiet() noexcept { return true; }
    [[nodiscard]] static constexpr bool held(std::uint32_t) noexcept { return false; }
    [[nodiscard]] static constexpr bool link_free(const isa::static_inst&) noexcept { return true; }
    static constexpr void note_link_full() noexcept {}
    static constexpr void begin_cycle() noexcept {}
    static constexpr void retire_delayed(std::uint64_t) noexcept {}
    static constexpr void reset_stats() noexcept {}

    /// Hazards of `ops` of warp `s`: the SM's own scoreboard (an issue::basic_scoreboard of
    /// any width).
    template <class Scoreboard>
    [[nodiscard]] static issue::hazard hazard(const Scoreboard& sb, std::uint32_t s,
                                              const typename Scoreboard::operands_type& ops) {
        return sb.peek(s, ops);
    }
    /// A result of warp `slot` reached writeback.
    template <class Scoreboard>
    static void release(Scoreboard& sb, std::uint32_t slot,
                        const typename Scoreboard::operands_type& writes, bool, std::uint64_t) {
        sb.release(slot, writes);
    }
    /// Warp `s` issued `si` writing `writes`.
    template <class Scoreboard, class Source, class Dynamic>
    static void issued(Scoreboard& sb, std::uint32_t s, const isa::static_inst& si,
                       const Dynamic&, const typename Scoreboard::operands_type& writes,
                       const Source&, std::uint64_t) {
        if (writes.dsts.any())
            sb.reserve(s, writes,
                       si.mop != isa::mem_op::none && si.space != isa::mem_space::shared);
    }
};

/// An SM that may be a member of a front-end sharing cluster (role none until it joins),
/// keeping its part in a `Member`. The cluster's enhanced scoreboard and the acks between
/// members carry one 64-register word (the Fermi SMs of paper 000), so a sharing SM runs the
/// 64-register issue::scoreboard.
template <class Member = cluster_member>
class front_end_sharing {
public:
    static constexpr bool enabled = true;

    /// The SM's part in its cluster.
    [[nodiscard]] Member& member() noexcept { return member_; }
    [[nodiscard]] const Member& member() const noexcept { return member_; }

    /// True outside a cluster.
    [[nodiscard]] bool lone() const noexcept { return member_.role() == cluster_role::none; }
    [[nodiscard]] bool master_shared() const noexcept { return member_.master_shared(); }
    [[nodiscard]] bool master_grouped() const noexcept { return member_.master_grouped(); }
    [[nodiscard]] bool master_paused() const noexcept { return member_.master_paused(); }
    [[nodiscard]] bool slave_shared() const noexcept { return member_.slave_shared(); }
    [[nodiscard]] bool quiet() const noexcept { return member_.quiet(); }
    /// True while a grouped master holds warp `s` for a branch compare.
    [[nodiscard]] bool held(std::uint32_t s) const noexcept {
        return member_.master_grouped() && member_.held(s);
    }
    /// True when the links take `si` this cycle.
    [[nodiscard]] bool link_free(const isa::static_inst& si) const noexcept {
        return member_.link_free(words_(si));
    }
    void note_link_full() noexcept { member_.note_link_full(); }
    void begin_cycle() noexcept { member_.begin_cycle(); }
    /// A master's results whose communicate stage is over reach its enhanced scoreboard.
    void retire_delayed(std::uint64_t now) {
        if (member_.master_shared()) member_.retire_delayed(now);
    }
    void reset_stats() { member_.reset_stats(); }

    /// Hazards of `ops` of warp `s` on the scoreboard that tracks this SM's writes: the
    /// enhanced one of a sharing master, else its own.
    [[nodiscard]] issue::hazard hazard(const issue::scoreboard& sb, std::uint32_t s,
                                       const issue::operands& ops) const {
        return member_.master_shared() ? member_.scoreboard().peek(s, ops) : sb.peek(s, ops);
    }
    /// A result reaches writeback at `now`. A sharing master's results pass the communicate
    /// stage first and clear its enhanced scoreboard (memory results as the master's ack); a
    /// sharing slave acks its memory results to the master.
    void release(issue::scoreboard& sb, std::uint32_t slot, const issue::operands& writes,
                 bool memory, std::uint64_t now) {
        if (member_.master_shared()) {
            member_.complete(slot, writes.dsts.word(0), memory, now);
            return;
        }
        sb.release(slot, writes);
        if (memory && member_.slave_shared()) member_.ack(slot, writes.dsts.word(0));
    }
    /// Warp `s` issued `si` (executed as `d`, writing `writes`) at `now`: a grouped master
    /// tracks the writes of every member until their acks (paper 000 II.A) and sends the
    /// InstPacket; a shared member reports its branches.
    template <class Source, class Dynamic>
    void issued(issue::scoreboard& sb, std::uint32_t s, const isa::static_inst& si,
                const Dynamic& d, const issue::operands& writes, const Source& source,
                std::uint64_t now) {
        const bool memory = si.mop != isa::mem_op::none;
        if (member_.master_grouped()) {
            if (writes.dsts.any()) member_.reserve(s, writes, memory);
            member_.issued(s, d.pc, si.opcode, control_instruction(si), words_(si), now);
        } else if (writes.dsts.any()) {
            sb.reserve(s, writes, memory && si.space != isa::mem_space::shared);
        }
        if (control_instruction(si) && (member_.master_grouped() || member_.slave_shared()))
            member_.branch(branch_report{s, d.pc, outcome_(s, d, source)});
    }

    /// A sharing slave's cycle at `now` in place of issue: its own bank-conflict replays
    /// first, then the master's instructions in order once their communicate stage is over,
    /// as many as `issue_width` allows. The oldest waits while its warp is at a barrier,
    /// replaying, has an operand in flight or finds its unit busy: the slave's back end may
    /// slip behind the master, never ahead. Throws sim_error when the slave's warp is not at
    /// the master's instruction.
    template <class Port, class Source>
    requires issue_port<Port>
    void execute_commands(Port& port, std::span<const warp_context> warps, const Source& source,
                          type_demand& demand, std::uint32_t issue_width, std::uint32_t sm,
                          std::uint64_t now) {
        for (std::uint32_t s = 0; s < warps.size(); ++s)
            if (warps[s].resident && warps[s].replays > 0) {
                if (port.ldst_free(s, 0)) port.replay(s);
                break;
            }
        for (std::uint32_t k = 0; k < issue_width; ++k) {
            const cluster_command* c = member_.due(now);
            if (c == nullptr) return;
            const std::uint32_t s = c->slot;
            const auto& w = warps[s];
            const isa::static_inst* next = w.resident ? source.peek(s, 0) : nullptr;
            bool in_step = next != nullptr && next->opcode == c->opcode;
            if constexpr (requires { source.pc(s); }) in_step = in_step && source.pc(s) == c->pc;
            if (!in_step)
                throw sim_error("front-end sharing: SM " + std::to_string(sm) + " warp slot " +
                                std::to_string(s) + " is not at the master's instruction (pc " +
                                std::to_string(c->pc) + ") in cycle " + std::to_string(now));
            const isa::static_inst si = *next;
            if (source.at_barrier(s) || w.replays > 0 || port.hazard(s, si).any() ||
                !port.unit_free(s, si, 0)) {
                if (!port.unit_free(s, si, 0)) demand.note_unplaced(si.unit);
                member_.note_stall();
                return;
            }
            port.execute(s, si);
            member_.executed();
        }
    }

private:
    [[nodiscard]] std::uint32_t words_(const isa::static_inst& si) const noexcept {
        return control_instruction(si) ? member_.branch_words() : 1U;
    }
    // What a control instruction left warp `s` with: its lanes and its next pc.
    template <class Source, class Dynamic>
    [[nodiscard]] static reconfig::branch_outcome outcome_(std::uint32_t s, const Dynamic& d,
                                                           const Source& source) {
        reconfig::branch_outcome o;
        if constexpr (requires { source.stack(s).active().bits(); })
            o.mask = source.finished(s) ? 0 : source.stack(s).active().bits();
        else
            o.mask = d.active.bits();
        if constexpr (requires { source.pc(s); })
            o.target = source.finished(s) ? ~std::uint32_t{0} : source.pc(s);
        return o;
    }

    Member member_;
};

} // namespace warpkit::gpu::stages
