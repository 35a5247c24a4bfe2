#pragma once
/// \file
/// `front_end_sharing`: the controller of one front-end sharing cluster (paper 000). S
/// adjacent SMs (S = 2..4; the lowest index is the master, member 0) group at every kernel
/// launch; while grouped the master's fetch, decode and schedulers issue for every member
/// and the slaves' front-ends are power-gated. After each branch the master broadcasts its
/// thread mask and every slave compares it with its own; a mismatch (or, for a branch the
/// compiler flagged as thread-id dependent, a different target) makes the slave send an
/// ungroup CtrlPacket. The cluster then ramps down (slave front-ends power up, the master's
/// scoreboard drains) and its SMs run independently until the kernel ends.
///
/// The controller is a pure part: it is told what happens (instructions issued, branch
/// outcomes, memory acks, the cycle) and answers with decisions and arrival times; whoever
/// owns the SMs carries them out. It also prices the cluster network of Section II.E: a
/// 64-bit master-to-slave and a 16-bit slave-to-master wire pair per slave, clocked at twice
/// the core clock, one link cycle per 5 mm SM pitch, low-swing wires at 50 fJ/bit/mm.
/// Members sit in rows of `grid_columns` SMs; a slave's wires run the Manhattan distance to
/// the master (2-SM: 5 mm; 4-SM in a 2 x 2 block: 5, 5 and 10 mm).

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warpkit::reconfig {

/// Where a cluster is in its per-kernel life.
enum class sharing_state : std::uint8_t {
    grouped,     ///< the master issues for every member; slave front-ends gated
    ramp_down,   ///< ungrouping: slave front-ends power up, the master's scoreboard drains
    independent, ///< every member runs on its own until the kernel ends
};

/// Why a cluster ungrouped.
enum class ungroup_cause : std::uint8_t {
    mask_mismatch,   ///< a slave's thread mask after a branch differed from the master's
    hinted_target,   ///< equal masks, different target at a branch flagged thread-id dependent
    hint,            ///< a flagged branch issued under hint_policy::ungroup
    uneven_dispatch, ///< the members were given different numbers of blocks
    /// Equal masks, different target at a branch NOT flagged: the compiler hint the paper
    /// relies on was missing. Hardware would go wrong; the simulator ungroups and counts it.
    unhinted_target,
};

/// Number of ungroup causes.
inline constexpr std::size_t ungroup_cause_count = 5;

/// What a branch the compiler flagged as thread-id dependent does (Section II.D).
enum class hint_policy : std::uint8_t {
    compare_target, ///< the hint is resolved at the branch: slaves compare targets too
    ungroup,        ///< the master ungroups the cluster as soon as it issues the branch
};

} // namespace warpkit::reconfig

template <>
struct warpkit::enum_names<warpkit::reconfig::sharing_state> {
    static constexpr std::array<std::string_view, 3> names = {"grouped", "ramp_down",
                                                              "independent"};
};
template <>
struct warpkit::enum_names<warpkit::reconfig::ungroup_cause> {
    static constexpr std::array<std::string_view, 5> names = {
        "mask_mismatch", "hinted_target", "hint", "uneven_dispatch", "unhinted_target"};
};
template <>
struct warpkit::enum_names<warpkit::reconfig::hint_policy> {
    static constexpr std::array<std::string_view, 2> names = {"compare_target", "ungroup"};
};

namespace warpkit::reconfig {

/// Parameters of front-end sharing. Defaults: paper 000 Sections II.A-E on the GTX480.
struct front_end_sharing_params {
    /// Share front-ends in clusters of a GPU's cluster_size SMs (false: the clusters only
    /// receive equal block shares).
    bool enabled = true;
    std::uint32_t link_clock_multiplier = 2; ///< cluster NoC at 1.4 GHz, cores at 700 MHz
    std::uint32_t hop_link_cycles = 1;       ///< link cycles across one SM pitch (0.7 ns)
    double sm_pitch_mm = 5.0;                ///< distance between adjacent SMs
    std::uint32_t grid_columns = 2;          ///< cluster members sit in rows of this many
    std::uint32_t down_width_bits = 64;      ///< master -> slave wires
    std::uint32_t up_width_bits = 16;        ///< slave -> master wires
    double wire_fj_per_bit_mm = 50.0;        ///< low-swing wire (CACTI 6.0)
    std::uint32_t inst_packet_bits = 64;     ///< InstPacket: a decoded instruction
    std::uint32_t mask_packet_bits = 32;     ///< a branch's extra packet: the master's mask
    std::uint32_t mem_packet_bits = 16;      ///< MemPacket: a slave's memory ack
    std::uint32_t ctrl_packet_bits = 4;      ///< CtrlPacket: ungroup
    /// Core cycles for a slave front-end to power up during ramp-down. The paper gives no
    /// figure; this is paper 003's wakeup delay of a power-gated unit.
    std::uint32_t wakeup_cycles = 3;
    hint_policy hint = hint_policy::compare_target;

    void validate() const {
        check_range("link_clock_multiplier", link_clock_multiplier, 1U, 16U);
        check_range("hop_link_cycles", hop_link_cycles, 1U, 64U);
        check(sm_pitch_mm > 0.0 && sm_pitch_mm < 100.0, "sm_pitch_mm", sm_pitch_mm, "(0, 100)");
        check_range("grid_columns", grid_columns, 1U, 4U);
        check_range("down_width_bits", down_width_bits, 1U, 1024U);
        check_range("up_width_bits", up_width_bits, 1U, 1024U);
        check(wire_fj_per_bit_mm >= 0.0 && wire_fj_per_bit_mm < 1e6, "wire_fj_per_bit_mm",
              wire_fj_per_bit_mm, "[0, 1e6)");
        check_range("inst_packet_bits", inst_packet_bits, 1U, 1024U);
        check_range("mask_packet_bits", mask_packet_bits, 1U, 1024U);
        check_range("mem_packet_bits", mem_packet_bits, 1U, 1024U);
        check_range("ctrl_packet_bits", ctrl_packet_bits, 1U, 1024U);
        check_range("wakeup_cycles", wakeup_cycles, 0U, 100000U);
    }
    WARPKIT_FIELDS(front_end_sharing_params, enabled, link_clock_multiplier, hop_link_cycles,
                   sm_pitch_mm, grid_columns, down_width_bits, up_width_bits, wire_fj_per_bit_mm,
                   inst_packet_bits, mask_packet_bits, mem_packet_bits, ctrl_packet_bits,
                   wakeup_cycles, hint)
};

/// Counters of one cluster (they add up over clusters and kernels).
struct front_end_sharing_stats {
    std::uint64_t kernels = 0;            ///< kernel launches seen
    std::uint64_t cycles = 0;             ///< core cycles ticked
    std::uint64_t grouped_cycles = 0;     ///< slave front-ends gated
    std::uint64_t ramp_down_cycles = 0;   ///< ungrouping
    std::uint64_t independent_cycles = 0; ///< members on their own
    /// The same three, counting only cycles with work resident on some member.
    std::uint64_t active_grouped_cycles = 0;
    std::uint64_t active_ramp_down_cycles = 0;
    std::uint64_t active_independent_cycles = 0;
    std::uint64_t instructions = 0; ///< warp instructions the master issued for the cluster
    std::uint64_t branches = 0;     ///< of them branches (masks broadcast)
    std::uint64_t hinted_branches = 0;
    std::uint64_t compares = 0; ///< slave mask comparisons
    std::uint64_t ungroups = 0;
    std::array<std::uint64_t, ungroup_cause_count> ungroup_causes{}; ///< by ungroup_cause
    std::uint64_t inst_packets = 0; ///< InstPackets, one per slave per instruction
    std::uint64_t mask_packets = 0; ///< thread-mask packets after branches
    std::uint64_t mem_packets = 0;  ///< MemPacket acks
    std::uint64_t ctrl_packets = 0; ///< CtrlPacket ungroup requests
    std::uint64_t down_bits = 0;    ///< master -> slave payload bits
    std::uint64_t up_bits = 0;      ///< slave -> master payload bits
    std::uint64_t bit_hops = 0;     ///< payload bits x SM pitches travelled
    WARPKIT_FIELDS(front_end_sharing_stats, kernels, cycles, grouped_cycles, ramp_down_cycles,
                   independent_cycles, active_grouped_cycles, active_ramp_down_cycles,
                   active_independent_cycles, instructions, branches, hinted_branches, compares,
                   ungroups, ungroup_causes, inst_packets, mask_packets, mem_packets, ctrl_packets,
                   down_bits, up_bits, bit_hops)
};

/// Share of the cycles with work that a cluster spent grouped (Fig. 5), in [0, 1]; 1 when
/// nothing ran.
[[nodiscard]] constexpr double sharing_fraction(const front_end_sharing_stats& s) noexcept {
    const std::uint64_t all =
        s.active_grouped_cycles + s.active_ramp_down_cycles + s.active_independent_cycles;
    return all == 0 ? 1.0 : static_cast<double>(s.active_grouped_cycles) / static_cast<double>(all);
}

/// Energy the cluster wires spent (pJ): bits x pitches x mm per pitch x fJ/bit/mm / 1000.
[[nodiscard]] constexpr double link_energy_pj(const front_end_sharing_params& p,
                                              const front_end_sharing_stats& s) noexcept {
    return static_cast<double>(s.bit_hops) * p.sm_pitch_mm * p.wire_fj_per_bit_mm / 1000.0;
}

/// What a branch left a warp with: the thread mask the warp continues with and where.
struct branch_outcome {
    std::uint64_t mask = 0;   ///< active lanes after the branch (lane i = bit i)
    std::uint32_t target = 0; ///< next pc
    friend constexpr bool operator==(const branch_outcome&, const branch_outcome&) = default;
};

/// The controller of one cluster of `members` SMs with `warp_slots` warps each. Times are
/// core cycles of the caller's clock; calls within a cycle may come in any order except
/// that tick(now) comes first.
class front_end_sharing {
public:
    using params_type = front_end_sharing_params;
    using stats_type = front_end_sharing_stats;

    /// Most members a cluster may have (the enhanced scoreboard's four ack bits).
    static constexpr std::uint32_t max_members = 4;

    /// Throws config_error for bad params, members outside 1..4 or warp_slots outside 1..64.
    front_end_sharing(const params_type& p, std::uint32_t members, std::uint32_t warp_slots)
        : p_(validated(p)), members_(members), warp_slots_(warp_slots) {
        check_range("members", members, 1U, max_members);
        check_range("warp_slots", warp_slots, 1U, 64U);
        for (std::uint32_t m = 0; m < max_members; ++m) {
            const std::uint32_t x = m % p_.grid_columns;
            const std::uint32_t y = m / p_.grid_columns;
            hops_[m] = x + y;
            down_[m] = core_cycles_(p_.inst_packet_bits, p_.down_width_bits, hops_[m]);
            up_[m] = core_cycles_(p_.mem_packet_bits, p_.up_width_bits, hops_[m]);
        }
        for (std::uint32_t m = 1; m < members_; ++m)
            communicate_ = std::max(communicate_, down_[m]);
        state_ = sharing_state::independent;
    }

    [[nodiscard]] const params_type& params() const noexcept { return p_; }
    [[nodiscard]] const stats_type& stats() const noexcept { return s_; }
    /// Restarts the counters from zero; grouping state stays.
    void reset_stats() { reset_counters(s_); }
    [[nodiscard]] std::uint32_t members() const noexcept { return members_; }
    [[nodiscard]] std::uint32_t warp_slots() const noexcept { return warp_slots_; }

    /// SM pitches between the master and member `m`.
    [[nodiscard]] std::uint32_t hops(std::uint32_t m) const {
        WARPKIT_EXPECTS(m < members_);
        return hops_[m];
    }
    /// Core cycles for an InstPacket to reach member `m`.
    [[nodiscard]] std::uint32_t down_cycles(std::uint32_t m) const {
        WARPKIT_EXPECTS(m < members_);
        return down_[m];
    }
    /// Core cycles for a MemPacket from member `m` to reach the master (empty link).
    [[nodiscard]] std::uint32_t up_cycles(std::uint32_t m) const {
        WARPKIT_EXPECTS(m < members_);
        return up_[m];
    }
    /// Length of the communicate stage between issue and operand read (core cycles): the
    /// farthest slave's InstPacket latency, so every member executes in the same cycle.
    [[nodiscard]] std::uint32_t communicate_cycles() const noexcept { return communicate_; }
    /// InstPacket-sized words one master -> slave link carries per core cycle.
    [[nodiscard]] std::uint32_t down_words_per_cycle() const noexcept {
        return p_.link_clock_multiplier * std::max(1U, p_.down_width_bits / p_.inst_packet_bits);
    }
    /// Words a warp instruction takes on each master -> slave link: its InstPacket, and for
    /// a branch the packet with the master's thread mask.
    [[nodiscard]] std::uint32_t words(bool branch) const noexcept {
        return 1 + (branch ? div_up_(p_.mask_packet_bits, p_.down_width_bits) : 0);
    }

    [[nodiscard]] sharing_state state() const noexcept { return state_; }
    [[nodiscard]] bool grouped() const noexcept { return state_ == sharing_state::grouped; }
    [[nodiscard]] bool ramping_down() const noexcept { return state_ == sharing_state::ramp_down; }
    [[nodiscard]] bool independent() const noexcept { return state_ == sharing_state::independent; }
    /// Why the cluster ungrouped in this kernel (meaningful unless grouped).
    [[nodiscard]] ungroup_cause cause() const noexcept { return cause_; }

    /// A kernel launches: a cluster of two or more members groups (Section II.C).
    void launch() {
        ++s_.kernels;
        state_ = members_ > 1 && p_.enabled ? sharing_state::grouped : sharing_state::independent;
        ungroup_at_ = never_;
        ramp_start_ = 0;
        std::fill(outstanding_.begin(), outstanding_.end(), 0);
        std::fill(resolved_at_.begin(), resolved_at_.end(), 0);
        up_free_.fill(0);
        warps_.fill(pending_branch{});
    }

    /// Start of core cycle `now`: an ungroup request that has reached the master starts the
    /// ramp-down; a ramp-down ends once `drained` (the master's scoreboard is clear and no
    /// instruction is on its way to or waiting in a slave) and the slave front-ends are up.
    /// `active`: some member has work (for the active_* counters). Returns the state the
    /// cluster is in for this cycle.
    sharing_state tick(std::uint64_t now, bool drained, bool active) {
        if (state_ == sharing_state::grouped && now >= ungroup_at_) {
            state_ = sharing_state::ramp_down;
            ramp_start_ = now;
        }
        if (state_ == sharing_state::ramp_down && drained && now >= ramp_start_ + p_.wakeup_cycles)
            state_ = sharing_state::independent;
        ++s_.cycles;
        switch (state_) {
        case sharing_state::grouped:
            ++s_.grouped_cycles;
            s_.active_grouped_cycles += active ? 1 : 0;
            break;
        case sharing_state::ramp_down:
            ++s_.ramp_down_cycles;
            s_.active_ramp_down_cycles += active ? 1 : 0;
            break;
        case sharing_state::independent:
            ++s_.independent_cycles;
            s_.active_independent_cycles += active ? 1 : 0;
            break;
        }
        return state_;
    }

    /// The master issued a warp instruction to the cluster: an InstPacket to every slave.
    void on_issue(bool branch) {
        WARPKIT_EXPECTS(grouped());
        ++s_.instructions;
        for (std::uint32_t m = 1; m < members_; ++m)
            send_down_(m, p_.inst_packet_bits, s_.inst_packets);
        if (branch)
            for (std::uint32_t m = 1; m < members_; ++m)
                send_down_(m, p_.mask_packet_bits, s_.mask_packets);
    }

    /// The master executed a branch of warp `w` in cycle `now` with `outcome` and sends its
    /// mask along. `hinted`: the compiler flagged the branch as thread-id dependent. Under
    /// hint_policy::ungroup a flagged branch ungroups the cluster at once; returns true then.
    bool on_master_branch(std::uint32_t w, const branch_outcome& outcome, bool hinted,
                          std::uint64_t now) {
        WARPKIT_EXPECTS(w < warp_slots_);
        if (!grouped()) return false;
        ++s_.branches;
        s_.hinted_branches += hinted ? 1 : 0;
        if (hinted && p_.hint == hint_policy::ungroup) {
            ungroup(ungroup_cause::hint, now);
            return true;
        }
        warps_[w] = pending_branch{outcome, hinted};
        outstanding_[w] = static_cast<std::uint8_t>(members_ - 1);
        resolved_at_[w] = now;
        return false;
    }

    /// Slave `m` executed warp `w`'s pending branch in cycle `now` and compares its outcome
    /// with the master's mask (and, for a flagged branch, its target). A mismatch sends an
    /// ungroup CtrlPacket; returns true then.
    bool on_slave_branch(std::uint32_t m, std::uint32_t w, const branch_outcome& outcome,
                         std::uint64_t now) {
        WARPKIT_EXPECTS(m >= 1 && m < members_ && w < warp_slots_);
        if (!grouped() || outstanding_[w] == 0) return false;
        --outstanding_[w];
        ++s_.compares;
        const pending_branch& b = warps_[w];
        const std::uint64_t back = up_arrival_(m, p_.ctrl_packet_bits, now);
        resolved_at_[w] = std::max(resolved_at_[w], back);
        if (b.outcome == outcome) return false;
        const ungroup_cause c = b.outcome.mask != outcome.mask ? ungroup_cause::mask_mismatch
                                : b.hinted                     ? ungroup_cause::hinted_target
                                                               : ungroup_cause::unhinted_target;
        send_up_(m, p_.ctrl_packet_bits, s_.ctrl_packets);
        request_(c, back);
        return true;
    }

    /// True while the master must hold warp `w` in cycle `now`: a slave has not compared the
    /// warp's last branch yet, or its answer could still be on its way.
    [[nodiscard]] bool branch_pending(std::uint32_t w, std::uint64_t now) const {
        WARPKIT_EXPECTS(w < warp_slots_);
        return grouped() && (outstanding_[w] != 0 || now < resolved_at_[w]);
    }

    /// Slave `m` completed a memory access in cycle `now` and acks it with a MemPacket;
    /// returns the cycle the ack reaches the master (after any acks queued before it).
    std::uint64_t send_ack(std::uint32_t m, std::uint64_t now) {
        WARPKIT_EXPECTS(m >= 1 && m < members_);
        const std::uint64_t at = up_arrival_(m, p_.mem_packet_bits, now);
        send_up_(m, p_.mem_packet_bits, s_.mem_packets);
        return at;
    }

    /// Ungroups for `cause` decided at the master in cycle `now` (uneven dispatch, a hint):
    /// the ramp-down starts at the next tick. Does nothing unless grouped.
    void ungroup(ungroup_cause cause, std::uint64_t now) { request_(cause, now); }

private:
    struct pending_branch {
        branch_outcome outcome{};
        bool hinted = false;
    };
    static constexpr std::uint64_t never_ = ~std::uint64_t{0};

    [[nodiscard]] static constexpr std::uint32_t div_up_(std::uint32_t a,
                                                         std::uint32_t b) noexcept {
        return (a + b - 1) / b;
    }
    // Core cycles from sending a `bits` packet at the start of a core cycle to holding it:
    // serialisation plus the wire's link cycles, rounded up to whole core cycles.
    [[nodiscard]] std::uint32_t core_cycles_(std::uint32_t bits, std::uint32_t width,
                                             std::uint32_t hops) const noexcept {
        const std::uint32_t link = div_up_(bits, width) + hops * p_.hop_link_cycles - 1;
        return std::max(1U, div_up_(link, p_.link_clock_multiplier));
    }
    // The cycle a `bits` packet sent by slave `m` in core cycle `now` reaches the master,
    // behind the packets already on the slave's 16-bit link (which it then occupies).
    std::uint64_t up_arrival_(std::uint32_t m, std::uint32_t bits, std::uint64_t now) {
        const std::uint64_t mult = p_.link_clock_multiplier;
        const std::uint64_t start = std::max<std::uint64_t>(now * mult, up_free_[m]);
        const std::uint64_t ser = div_up_(bits, p_.up_width_bits);
        up_free_[m] = start + ser;
        const std::uint64_t done = start + ser + std::uint64_t{hops_[m]} * p_.hop_link_cycles - 1;
        return std::max(now + 1, (done + mult - 1) / mult);
    }
    void send_down_(std::uint32_t m, std::uint32_t bits, std::uint64_t& packets) {
        ++packets;
        s_.down_bits += bits;
        s_.bit_hops += std::uint64_t{bits} * hops_[m];
    }
    void send_up_(std::uint32_t m, std::uint32_t bits, std::uint64_t& packets) {
        ++packets;
        s_.up_bits += bits;
        s_.bit_hops += std::uint64_t{bits} * hops_[m];
    }
    // Several requests may be on their way; the ramp-down starts with the first to arrive.
    void request_(ungroup_cause c, std::uint64_t at) {
        if (!grouped()) return;
        if (ungroup_at_ == never_) {
            ++s_.ungroups;
        } else {
            if (at >= ungroup_at_) return;
            --s_.ungroup_causes[static_cast<std::size_t>(cause_)];
        }
        ungroup_at_ = at;
        cause_ = c;
        ++s_.ungroup_causes[static_cast<std::size_t>(c)];
    }

    params_type p_;
    std::uint32_t members_;
    std::array<std::uint32_t, max_members> hops_{};
    std::array<std::uint32_t, max_members> down_{};
    std::array<std::uint32_t, max_members> up_{};
    std::uint32_t communicate_ = 1;
    sharing_state state_;
    ungroup_cause cause_ = ungroup_cause::mask_mismatch;
    std::uint64_t ungroup_at_ = never_;
    std::uint64_t ramp_start_ = 0;
    std::uint32_t warp_slots_;
    std::array<pending_branch, 64> warps_{};
    std::array<std::uint8_t, 64> outstanding_{};
    std::array<std::uint64_t, 64> resolved_at_{};
    std::array<std::uint64_t, max_members> up_free_{}; // next free link cycle, per slave
    stats_type s_;
};

} // namespace warpkit::reconfig
