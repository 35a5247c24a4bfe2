#pragma once
/// \file
/// `cluster_member`: what an SM keeps to take part in a front-end sharing cluster (paper
/// 000): its role, the cluster's sharing state as its controller last set it, and
/// - as the master: the enhanced scoreboard (issue::cluster_scoreboard, one ack bit per
///   member) that tracks the cluster's writes, the communicate stage that delays its own
///   results, the warps held while slaves compare a branch, the words the master-to-slave
///   links still carry this cycle, and the instructions and branches it issued for the
///   cluster this cycle;
/// - as a slave: the InstPackets waiting for their cycle, and the memory acks and branch
///   outcomes it produced this cycle.
/// The SM consults it at a few points of its pipeline; the GPU (gpu/sharing_clusters.hpp)
/// moves what it holds between members and drives the cluster's controller.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace warpkit::gpu {

/// An SM's part in a front-end sharing cluster.
enum class cluster_role : std::uint8_t {
    none,   ///< not in a sharing cluster (cluster_size 1, or sharing disabled)
    master, ///< member 0: its front-end issues for the cluster
    slave,  ///< members 1..S-1: front-end gated while grouped
};

/// An InstPacket as the simulator carries it: the warp slot, and the master's opcode and pc
/// so the slave can check it is in step (its own decoder state supplies the operands).
struct cluster_command {
    std::uint32_t slot = 0;
    std::uint32_t pc = 0;
    std::uint16_t opcode = 0;
    bool branch = false;   ///< a mask packet follows
    std::uint64_t due = 0; ///< first cycle the slave may execute it
};

/// A memory write a member completed: warp slot and destination registers (one MemPacket
/// per register).
struct cluster_ack {
    std::uint32_t slot = 0;
    std::uint64_t dsts = 0;
};

/// A branch a member executed and what it left the warp with.
struct branch_report {
    std::uint32_t slot = 0;
    std::uint32_t pc = 0; ///< the branch's pc (for the compiler hint)
    reconfig::branch_outcome outcome{};
};

/// Front-end sharing counters of one SM (zero outside a sharing cluster).
struct sm_sharing_stats {
    std::uint64_t cluster_issued = 0;         ///< master: warp instructions issued for the cluster
    std::uint64_t cluster_executed = 0;       ///< slave: warp instructions taken from InstPackets
    std::uint64_t front_end_gated_cycles = 0; ///< slave: cycles its front-end was power-gated
    std::uint64_t grouped_cycles = 0;         ///< cycles in a grouped cluster
    std::uint64_t ramp_down_cycles = 0;       ///< cycles in a cluster ramping down
    std::uint64_t held_warp_cycles = 0;       ///< master: warps x cycles held for branch compares
    std::uint64_t link_full_cycles = 0;       ///< master: cycles an issue found the links full
    std::uint64_t slave_stall_cycles = 0;     ///< slave: cycles a due InstPacket had to wait
    std::uint64_t acks_sent = 0;              ///< slave: MemPackets (one per register)
    std::uint64_t acks_received = 0;          ///< master: acks set in the enhanced scoreboard
    WARPKIT_FIELDS(sm_sharing_stats, cluster_issued, cluster_executed, front_end_gated_cycles,
                   grouped_cycles, ramp_down_cycles, held_warp_cycles, link_full_cycles,
                   slave_stall_cycles, acks_sent, acks_received)
};

/// issue::cluster_scoreboard for the member count chosen at run time (2..4).
class any_cluster_scoreboard {
    using variant_type = std::variant<issue::cluster_scoreboard<2>, issue::cluster_scoreboard<3>,
                                      issue::cluster_scoreboard<4>>;
    variant_type sb_;
    bool valid_ = false;

    template <class F>
    decltype(auto) visit_(F&& f) const {
        return std::visit(std::forward<F>(f), sb_);
    }
    template <class F>
    decltype(auto) visit_(F&& f) {
        return std::visit(std::forward<F>(f), sb_);
    }

public:
    /// An unused two-member scoreboard until reset().
    any_cluster_scoreboard() = default;
    /// A scoreboard for `members` members (2..4) with params `p`.
    void reset(std::uint32_t members, const issue::scoreboard_params& p) {
        WARPKIT_EXPECTS(members >= 2 && members <= 4);
        if (members == 2) sb_.emplace<issue::cluster_scoreboard<2>>(p);
        if (members == 3) sb_.emplace<issue::cluster_scoreboard<3>>(p);
        if (members == 4) sb_.emplace<issue::cluster_scoreboard<4>>(p);
        valid_ = true;
    }
    /// True once reset() chose the member count.
    [[nodiscard]] bool valid() const noexcept { return valid_; }

    [[nodiscard]] issue::hazard peek(std::size_t w, const issue::operands& ops) const {
        return visit_([&](const auto& s) { return s.peek(w, ops); });
    }
    [[nodiscard]] bool can_issue(std::size_t w, const issue::operands& ops) const {
        return visit_([&](const auto& s) { return s.can_issue(w, ops); });
    }
    /// Reserves the destinations of an instruction issued to the whole cluster.
    void reserve(std::size_t w, const issue::operands& ops, issue::latency_kind k) {
        visit_([&](auto& s) { s.reserve(w, ops, k); });
    }
    /// A fixed-latency result reached writeback (on every member at once).
    void release(std::size_t w, std::uint64_t dsts) {
        visit_([&](auto& s) {
            for (std::uint64_t d = dsts; d != 0; d &= d - 1)
                s.release(w, static_cast<unsigned>(std::countr_zero(d)));
        });
    }
    /// Member `m` completed the memory write of `dsts` of warp `w`; returns the acks set.
    std::uint64_t ack(std::size_t w, std::uint64_t dsts, std::size_t m) {
        return visit_([&](auto& s) {
            std::uint64_t n = 0;
            for (std::uint64_t d = dsts; d != 0; d &= d - 1) {
                const auto r = static_cast<unsigned>(std::countr_zero(d));
                if (s.awaiting_acks(w, r)) {
                    (void)s.ack(w, r, m);
                    ++n;
                }
            }
            return n;
        });
    }
    [[nodiscard]] bool empty() const noexcept {
        return visit_([](const auto& s) { return s.empty(); });
    }
    /// Pending and added ack bits, for the power model.
    [[nodiscard]] issue::scoreboard_bits storage_bits() const noexcept {
        return visit_([](const auto& s) { return s.storage_bits(); });
    }
    [[nodiscard]] issue::cluster_scoreboard_stats stats() const {
        return visit_([](const auto& s) { return s.stats(); });
    }
    void reset_stats() {
        visit_([](auto& s) { s.reset_stats(); });
    }
    [[nodiscard]] std::size_t pending_count(std::size_t w) const {
        return visit_([&](const auto& s) { return s.pending_count(w); });
    }
};

/// The sharing state of one SM. Outside a cluster (role none) every query answers as for a
/// lone SM and the SM behaves exactly as without front-end sharing.
class cluster_member {
public:
    cluster_member() = default;

    /// Joins a cluster of `members` SMs as member `member` (0: master) with a communicate
    /// stage of `communicate` cycles; the master-to-slave links carry `words` InstPacket
    /// words per cycle and a branch takes `branch_words` of them; `sb` shapes the enhanced
    /// scoreboard. The cluster starts grouped.
    void join(std::uint32_t member, std::uint32_t members, std::uint32_t communicate,
              std::uint32_t words, std::uint32_t branch_words, const issue::scoreboard_params& sb) {
        WARPKIT_EXPECTS(members >= 2 && members <= 4 && member < members && communicate >= 1);
        WARPKIT_EXPECTS(words >= 1 && branch_words >= 1);
        role_ = member == 0 ? cluster_role::master : cluster_role::slave;
        member_ = member;
        communicate_ = communicate;
        words_per_cycle_ = words;
        branch_words_ = branch_words;
        state_ = reconfig::sharing_state::grouped;
        if (role_ == cluster_role::master) {
            csb_.reset(members, sb);
            delayed_.assign(64, delayed{});
            commands_.reserve(16);
            branches_.reserve(16);
        } else {
            // The communicate stage's InstPackets and a few cycles of slip, at two per cycle.
            inbox_ = fifo<cluster_command>(std::size_t{words} * (communicate + 8));
            acks_.reserve(64);
            branches_.reserve(16);
        }
    }

    [[nodiscard]] cluster_role role() const noexcept { return role_; }
    [[nodiscard]] std::uint32_t member() const noexcept { return member_; }
    [[nodiscard]] std::uint32_t communicate_cycles() const noexcept { return communicate_; }
    /// Link words a branch (InstPacket and mask packet) takes.
    [[nodiscard]] std::uint32_t branch_words() const noexcept { return branch_words_; }
    [[nodiscard]] reconfig::sharing_state state() const noexcept { return state_; }
    /// Sets the cluster's state for this cycle (the GPU, from the controller).
    void set_state(reconfig::sharing_state s) noexcept { state_ = s; }

    /// True for a master whose cluster has not gone independent: its writes are tracked in
    /// the enhanced scoreboard and its results pass the communicate stage.
    [[nodiscard]] bool master_shared() const noexcept {
        return role_ == cluster_role::master && state_ != reconfig::sharing_state::independent;
    }
    /// True for a master issuing for its grouped cluster.
    [[nodiscard]] bool master_grouped() const noexcept {
        return role_ == cluster_role::master && state_ == reconfig::sharing_state::grouped;
    }
    /// True for a master that must not issue (its cluster ramps down).
    [[nodiscard]] bool master_paused() const noexcept {
        return role_ == cluster_role::master && state_ == reconfig::sharing_state::ramp_down;
    }
    /// True for a slave that takes its instructions from the master (not yet independent).
    [[nodiscard]] bool slave_shared() const noexcept {
        return role_ == cluster_role::slave && state_ != reconfig::sharing_state::independent;
    }

    // ---- master ---------------------------------------------------------------------------

    [[nodiscard]] any_cluster_scoreboard& scoreboard() noexcept { return csb_; }
    [[nodiscard]] const any_cluster_scoreboard& scoreboard() const noexcept { return csb_; }

    /// Before a master's cycle: warps `held` wait for branch compares; every slave's inbox
    /// has room for `credit` more InstPackets.
    void begin_master_cycle(std::uint64_t held, std::uint32_t credit) noexcept {
        held_ = held;
        credit_ = credit;
        s_.held_warp_cycles += static_cast<std::uint64_t>(std::popcount(held));
    }
    [[nodiscard]] bool held(std::uint32_t slot) const noexcept { return (held_ >> slot) & 1U; }
    /// True when the links (and the slaves' inboxes) take one more instruction of `words`
    /// words this cycle.
    [[nodiscard]] bool link_free(std::uint32_t words) const noexcept {
        return words <= words_left_ && credit_ > commands_.size();
    }
    /// Counts a pick that found the links full (once per cycle).
    void note_link_full() noexcept {
        if (!link_full_noted_) ++s_.link_full_cycles;
        link_full_noted_ = true;
    }
    /// The master issued `slot`'s instruction at `pc` for the cluster in cycle `now`.
    void issued(std::uint32_t slot, std::uint32_t pc, std::uint16_t opcode, bool branch,
                std::uint32_t words, std::uint64_t now) {
        WARPKIT_EXPECTS(words <= words_left_);
        words_left_ -= words;
        commands_.push_back(cluster_command{slot, pc, opcode, branch, now + communicate_});
        ++s_.cluster_issued;
    }
    /// Instructions the master issued for the cluster this cycle.
    [[nodiscard]] const std::vector<cluster_command>& commands() const noexcept {
        return commands_;
    }
    /// Reserves `ops` of `slot` in the enhanced scoreboard.
    void reserve(std::uint32_t slot, const issue::operands& ops, bool memory) {
        csb_.reserve(slot, ops, memory ? issue::latency_kind::memory : issue::latency_kind::fixed);
    }
    /// A result of the master left its pipeline in cycle `now`; the communicate stage holds
    /// it back `communicate_cycles()` cycles before the scoreboard sees it.
    void complete(std::uint32_t slot, std::uint64_t dsts, bool memory, std::uint64_t now) {
        if (dsts == 0) return;
        if (size_ == delayed_.size()) grow_();
        delayed_[(head_ + size_) % delayed_.size()] =
            delayed{now + communicate_, slot, dsts, memory};
        ++size_;
    }
    /// Applies the results whose communicate stage ends by `now`.
    void retire_delayed(std::uint64_t now) {
        while (size_ > 0 && delayed_[head_].at <= now) {
            const delayed d = delayed_[head_];
            head_ = (head_ + 1) % delayed_.size();
            --size_;
            if (d.memory)
                s_.acks_received += csb_.ack(d.slot, d.dsts, 0);
            else
                csb_.release(d.slot, d.dsts);
        }
    }
    /// Slave `m`'s ack of `dsts` of `slot` reached the master.
    void receive_ack(std::uint32_t slot, std::uint64_t dsts, std::uint32_t m) {
        s_.acks_received += csb_.ack(slot, dsts, m);
    }
    /// Nothing of the cluster waits in this SM: no result in the communicate stage, no
    /// InstPacket in the inbox.
    [[nodiscard]] bool quiet() const noexcept { return size_ == 0 && inbox_.empty(); }
    /// The master's part of the cluster is drained: no write in flight anywhere.
    [[nodiscard]] bool drained() const noexcept {
        return size_ == 0 && (!csb_.valid() || csb_.empty());
    }

    // ---- slave ----------------------------------------------------------------------------

    [[nodiscard]] bool inbox_can_take() const noexcept { return inbox_.can_push(); }
    [[nodiscard]] std::uint32_t inbox_space() const noexcept {
        return static_cast<std::uint32_t>(inbox_.space());
    }
    [[nodiscard]] bool inbox_empty() const noexcept { return inbox_.empty(); }
    /// An InstPacket from the master.
    void deliver(const cluster_command& c) {
        WARPKIT_EXPECTS(inbox_.can_push());
        inbox_.push(c);
    }
    /// The oldest InstPacket, if its communicate stage is over by `now`.
    [[nodiscard]] const cluster_command* due(std::uint64_t now) const noexcept {
        return !inbox_.empty() && inbox_.front().due <= now ? &inbox_.front() : nullptr;
    }
    /// The oldest InstPacket was executed.
    void executed() {
        inbox_.pop();
        ++s_.cluster_executed;
    }
    void note_stall() noexcept { ++s_.slave_stall_cycles; }
    /// A memory write of the slave completed: one MemPacket per register goes to the master.
    void ack(std::uint32_t slot, std::uint64_t dsts) {
        if (dsts == 0) return;
        acks_.push_back(cluster_ack{slot, dsts});
        s_.acks_sent += static_cast<std::uint64_t>(std::popcount(dsts));
    }
    [[nodiscard]] const std::vector<cluster_ack>& acks() const noexcept { return acks_; }

    // ---- both -----------------------------------------------------------------------------

    /// Start of the SM's cycle: clears what the previous cycle produced, counts the cycle.
    void begin_cycle() noexcept {
        if (role_ == cluster_role::none) return;
        acks_.clear();
        commands_.clear();
        branches_.clear();
        link_full_noted_ = false;
        words_left_ = words_per_cycle_;
        switch (state_) {
        case reconfig::sharing_state::grouped:
            ++s_.grouped_cycles;
            if (role_ == cluster_role::slave) ++s_.front_end_gated_cycles;
            break;
        case reconfig::sharing_state::ramp_down:
            ++s_.ramp_down_cycles;
            break;
        case reconfig::sharing_state::independent:
            break;
        }
    }
    /// A branch executed in a shared cluster: the master broadcasts the outcome, a slave
    /// compares it.
    void branch(const branch_report& r) { branches_.push_back(r); }
    [[nodiscard]] const std::vector<branch_report>& branches() const noexcept { return branches_; }

    [[nodiscard]] const sm_sharing_stats& stats() const noexcept { return s_; }
    /// Restarts the counters (the shared scoreboard's included) from zero.
    void reset_stats() {
        reset_counters(s_);
        csb_.reset_stats();
    }

private:
    struct delayed {
        std::uint64_t at = 0;
        std::uint32_t slot = 0;
        std::uint64_t dsts = 0;
        bool memory = false;
    };
    void grow_() {
        std::vector<delayed> bigger(delayed_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i)
            bigger[i] = delayed_[(head_ + i) % delayed_.size()];
        delayed_ = std::move(bigger);
        head_ = 0;
    }

    cluster_role role_ = cluster_role::none;
    std::uint32_t member_ = 0;
    std::uint32_t communicate_ = 1;
    std::uint32_t words_per_cycle_ = 0;
    std::uint32_t branch_words_ = 1;
    reconfig::sharing_state state_ = reconfig::sharing_state::independent;
    // master
    any_cluster_scoreboard csb_;
    std::vector<delayed> delayed_; // ring: results in the communicate stage
    std::size_t head_ = 0;
    std::size_t size_ = 0;
    std::uint64_t held_ = 0;
    std::uint32_t credit_ = 0;
    std::uint32_t words_left_ = 0;
    bool link_full_noted_ = false;
    std::vector<cluster_command> commands_;
    // slave
    fifo<cluster_command> inbox_{1};
    std::vector<cluster_ack> acks_;
    // both
    std::vector<branch_report> branches_;
    sm_sharing_stats s_;
};

} // namespace warpkit::gpu
