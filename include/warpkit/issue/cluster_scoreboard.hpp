#pragma once
/// \file
/// `cluster_scoreboard<Members>`: the enhanced scoreboard of a front-end sharing cluster's
/// master SM (paper 000 Sections II.A and IV.B). The master issues for all members of the
/// cluster; non-memory instructions have the same fixed latency everywhere, so their entries
/// track the master only and clear at the master's writeback. Memory instructions complete
/// at different times on different members, so their entries carry one ack bit per member
/// (one-hot by member id: master = 0, slaves 1..Members-1) and clear only when every member
/// has acked. The ack bits are extra storage the power model charges (paper 000 scales the
/// scoreboard's power by the ratio of added to original bits): see `storage_bits()`.

#include <warpkit/core/error.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::issue {

/// Counters of a cluster scoreboard.
struct cluster_scoreboard_stats {
    std::uint64_t memory_entries = 0;  ///< registers/predicates reserved with ack bits
    std::uint64_t fixed_entries = 0;   ///< registers/predicates reserved for the master only
    std::uint64_t acks = 0;            ///< ack bits set (one per member per memory entry)
    std::uint64_t cleared_by_acks = 0; ///< memory entries cleared by their last ack
    scoreboard_stats base{};           ///< the pending-bit accesses
    WARPKIT_FIELDS(cluster_scoreboard_stats, memory_entries, fixed_entries, acks, cleared_by_acks,
                   base)
};

/// Storage of the scoreboard for the power model: pending bits, and the ack bits added.
struct scoreboard_bits {
    std::uint64_t base = 0;  ///< one pending bit per warp and register/predicate
    std::uint64_t added = 0; ///< Members ack bits per such entry
};

} // namespace warpkit::issue

namespace warpkit::issue {

/// Instruction kinds as the enhanced scoreboard tells them apart.
enum class latency_kind : std::uint8_t {
    fixed,  ///< same fixed latency on every member: tracks the master only
    memory, ///< variable latency per member: needs an ack from every member
};

/// Scoreboard of a cluster master with one ack bit per member (1 <= Members <= 4).
template <std::size_t Members = 4>
requires(Members >= 1 && Members <= 4) class cluster_scoreboard {
public:
    using params_type = scoreboard_params;
    using stats_type = cluster_scoreboard_stats;

    /// Cluster members tracked (master + slaves).
    static constexpr std::size_t members = Members;
    /// Ack bits each entry adds (one-hot, one per member).
    static constexpr std::size_t ack_bits_per_entry = Members;
    /// The ack mask of an entry every member has acknowledged.
    static constexpr std::uint8_t all_acked = static_cast<std::uint8_t>((1U << Members) - 1);

    cluster_scoreboard() : cluster_scoreboard(params_type{}) {}
    /// Throws config_error when `p` is out of range.
    explicit cluster_scoreboard(const params_type& p) : base_(p), warps_(p.warps) {}

    /// Hazards of `ops` for warp `w` on the master's view of the cluster (does not count).
    [[nodiscard]] hazard peek(std::size_t w, const operands& ops) const {
        return base_.peek(w, ops);
    }
    /// Like peek, and counts the check.
    [[nodiscard]] hazard check(std::size_t w, const operands& ops) { return base_.check(w, ops); }
    [[nodiscard]] bool can_issue(std::size_t w, const operands& ops) const {
        return base_.can_issue(w, ops);
    }
    /// True when `ops` waits on a memory entry some member has not acked yet.
    [[nodiscard]] bool waits_on_long_latency(std::size_t w, const operands& ops) const {
        return base_.waits_on_long_latency(w, ops);
    }

    /// Reserves the destinations of `ops` issued to the whole cluster. Memory entries start
    /// with no acks and count as long-latency writes.
    void reserve(std::size_t w, const operands& ops, latency_kind kind) {
        const bool memory = kind == latency_kind::memory;
        base_.reserve(w, ops, memory);
        const auto n = static_cast<std::uint64_t>(ops.write_count());
        if (!memory) {
            stats_.fixed_entries += n;
            return;
        }
        stats_.memory_entries += n;
        warp_acks& a = warps_[w];
        a.memory_regs |= ops.dsts;
        a.memory_preds |= ops.pred_dsts;
        ops.dsts.for_each([&](std::size_t r) { a.reg_acks[r] = 0; });
        ops.pred_dsts.for_each([&](std::size_t p) { a.pred_acks[p] = 0; });
    }

    /// Member `member` reports that the memory write of register `r` of warp `w` completed.
    /// Returns true when this was the last ack and the entry cleared.
    bool ack(std::size_t w, unsigned r, std::size_t member) {
        WARPKIT_EXPECTS(w < warps_.size() && r < 64);
        warp_acks& a = warps_[w];
        WARPKIT_EXPECTS(a.memory_regs.test(r));
        if (!set_ack(a.reg_acks[r], member)) return false;
        a.memory_regs.reset(r);
        base_.release(w, r);
        return true;
    }
    /// Like ack, for predicate `p`.
    bool ack_pred(std::size_t w, unsigned p, std::size_t member) {
        WARPKIT_EXPECTS(w < warps_.size() && p < 64);
        warp_acks& a = warps_[w];
        WARPKIT_EXPECTS(a.memory_preds.test(p));
        if (!set_ack(a.pred_acks[p], member)) return false;
        a.memory_preds.reset(p);
        base_.release_pred(w, p);
        return true;
    }
    /// Writeback of a fixed-latency result on the master: clears register `r` of warp `w`
    /// (a memory entry clears only through acks; releasing one is a contract_error).
    void release(std::size_t w, unsigned r) {
        WARPKIT_EXPECTS(w < warps_.size() && r < 64);
        WARPKIT_EXPECTS(!warps_[w].memory_regs.test(r));
        base_.release(w, r);
    }
    /// Like release, for predicate `p`.
    void release_pred(std::size_t w, unsigned p) {
        WARPKIT_EXPECTS(w < warps_.size() && p < 64);
        WARPKIT_EXPECTS(!warps_[w].memory_preds.test(p));
        base_.release_pred(w, p);
    }

    /// The ack bits of register `r` of warp `w` (bit m: member m acked); 0 if not a memory
    /// entry in flight.
    [[nodiscard]] std::uint8_t acks(std::size_t w, unsigned r) const {
        WARPKIT_EXPECTS(w < warps_.size() && r < 64);
        const warp_acks& a = warps_[w];
        return a.memory_regs.test(r) ? a.reg_acks[r] : std::uint8_t{0};
    }
    /// True when register `r` of warp `w` is a memory entry waiting for acks.
    [[nodiscard]] bool awaiting_acks(std::size_t w, unsigned r) const {
        WARPKIT_EXPECTS(w < warps_.size() && r < 64);
        return warps_[w].memory_regs.test(r);
    }
    [[nodiscard]] bool pending(std::size_t w, unsigned r) const { return base_.pending(w, r); }
    [[nodiscard]] bool pending_pred(std::size_t w, unsigned p) const {
        return base_.pending_pred(w, p);
    }
    [[nodiscard]] std::size_t pending_count(std::size_t w) const { return base_.pending_count(w); }
    [[nodiscard]] bool empty() const noexcept { return base_.empty(); }

    /// Storage bits: the base pending bits and the ack bits the cluster adds to them.
    [[nodiscard]] scoreboard_bits storage_bits() const noexcept {
        const auto& p = base_.params();
        const std::uint64_t entries =
            std::uint64_t{p.warps} * (std::uint64_t{p.registers} + p.predicates);
        return {entries, entries * Members};
    }

    [[nodiscard]] const params_type& params() const noexcept { return base_.params(); }
    /// Counters, the member scoreboard's nested (copied from it when asked).
    [[nodiscard]] stats_type stats() const {
        stats_type s = stats_;
        s.base = base_.stats();
        return s;
    }
    /// Restarts the counters (the member scoreboard's included) from zero.
    void reset_stats() noexcept {
        reset_counters(stats_);
        base_.reset_stats();
    }

private:
    struct warp_acks {
        operands::register_set memory_regs{};
        operands::predicate_set memory_preds{};
        std::array<std::uint8_t, 64> reg_acks{};
        std::array<std::uint8_t, 64> pred_acks{};
    };

    // Sets member's bit; true when all members have acked.
    bool set_ack(std::uint8_t& mask, std::size_t member) {
        WARPKIT_EXPECTS(member < Members);
        const auto bit = static_cast<std::uint8_t>(1U << member);
        WARPKIT_EXPECTS((mask & bit) == 0); // a member acks each access once
        mask = static_cast<std::uint8_t>(mask | bit);
        ++stats_.acks;
        if (mask != all_acked) return false;
        ++stats_.cleared_by_acks;
        return true;
    }

    scoreboard base_;
    stats_type stats_{}; // its `base` stays empty: stats() fills it from base_
    std::vector<warp_acks> warps_;
};

} // namespace warpkit::issue
