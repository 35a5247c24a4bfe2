#pragma once
/// \file
/// `sharing_clusters<Sm>`: front-end sharing (paper 000) carried out on a GPU's SMs. Every
/// `cluster_size` adjacent SMs form a cluster with a reconfig::front_end_sharing controller;
/// each core cycle, before the SMs tick, the controller takes the cycle (an ungroup request
/// that arrived starts the ramp-down, a drained ramp-down ends), every member learns the
/// cluster's state, acks that reached the master set their bits in its enhanced scoreboard,
/// and the master learns which warps wait for branch compares and how many InstPackets the
/// slaves can still take. After the SMs tick, the instructions the master issued travel to
/// every slave as InstPackets due after the communicate stage, the branch outcomes of the
/// master (broadcast) and of the slaves (compared) go to the controller, and the slaves'
/// completed memory writes leave as MemPackets. Block dispatch that gives a cluster's
/// members unequal shares ungroups it. The kernel's compiler hints (reconfig::
/// block_dependent_branches) say which branches the slaves compare by target as well.

#include <warpkit/core/error.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/special_register.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/reconfig/block_dependence.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace warpkit::gpu {

namespace detail {
// True when instruction `in` reads a value that differs between blocks or SMs: the block
// index, the SM id, the grid id or the clock (warpkit ISA: LDS of such a special register;
// PTX: such a special register among its operands). Nullopt for instructions of neither.
template <class In>
[[nodiscard]] std::optional<bool> reads_block_varying(const In& in) {
    if constexpr (requires {
                      in.op == isa::opcode::lds;
                      in.src1;
                  }) {
        using isa::special_register;
        if (in.op != isa::opcode::lds) return false;
        const auto r = static_cast<special_register>(in.src1);
        return r == special_register::ctaid_x || r == special_register::ctaid_y ||
               r == special_register::ctaid_z || r == special_register::smid ||
               r == special_register::clock;
    } else if constexpr (requires {
                             in.num_src;
                             in.src[0].k;
                             in.src[0].special;
                         }) {
        using value = std::decay_t<decltype(in.src[0])>;
        for (std::size_t i = 0; i < in.num_src; ++i) {
            const auto& v = in.src[i];
            if (v.k != value::kind::sreg) continue;
            if (v.special == ptx::sreg::ctaid || v.special == ptx::sreg::smid ||
                v.special == ptx::sreg::gridid || v.special == ptx::sreg::clock ||
                v.special == ptx::sreg::clock64)
                return true;
        }
        return false;
    } else {
        return std::nullopt;
    }
}
} // namespace detail

/// The compiler hint for every pc of kernel `k` (a PTX launch: of its prepared kernel): true
/// for a branch that may go different ways on different SMs with equal thread masks. The
/// sources are the instructions that read the block index, the SM id, the grid id or the
/// clock; for code whose instructions say nothing about special registers, every special-
/// register read. Kernels without static code (`size()`, `static_at(pc)`) get no hints.
template <class K>
[[nodiscard]] std::vector<bool> branch_hints(const K& k) {
    if constexpr (requires { k.prepared(); }) {
        return branch_hints(k.prepared());
    } else if constexpr (requires(std::size_t pc) {
                             { k.size() } -> std::convertible_to<std::size_t>;
                             { k.static_at(pc) } -> std::convertible_to<const isa::static_inst&>;
                         }) {
        std::vector<isa::static_inst> code(k.size());
        for (std::size_t pc = 0; pc < code.size(); ++pc)
            code[pc] = k.static_at(pc);
        const auto varies = [&](std::size_t pc) {
            if constexpr (requires { k.at(pc); }) {
                if (const auto v = detail::reads_block_varying(k.at(pc))) return *v;
            }
            return code[pc].latency == isa::latency_class::special_reg;
        };
        return reconfig::block_dependent_branches(std::span<const isa::static_inst>(code), varies);
    } else {
        return {};
    }
}

/// The front-end sharing clusters of one kernel run on `Sm`s (gpu::sm).
template <class Sm>
class sharing_clusters {
public:
    /// Clusters of `cluster_size` (2..4) adjacent SMs out of `sms`, each SM with
    /// `warp_slots` warps issuing up to `issue_width` per cycle; `hints` per pc.
    sharing_clusters(const reconfig::front_end_sharing_params& p, std::uint32_t sms,
                     std::uint32_t cluster_size, std::uint32_t warp_slots, std::vector<bool> hints)
        : size_(cluster_size), hints_(std::move(hints)) {
        if (cluster_size < 2 || cluster_size > reconfig::front_end_sharing::max_members ||
            sms % cluster_size != 0)
            throw config_error("cluster_size", std::to_string(cluster_size),
                               "2, 3 or 4 and a divisor of the SM count for front-end sharing");
        ctls_.reserve(sms / cluster_size);
        for (std::uint32_t c = 0; c < sms / cluster_size; ++c)
            ctls_.emplace_back(p, cluster_size, warp_slots);
        in_flight_.reserve(256);
    }

    /// A kernel launches on `sms`: every cluster groups; each SM joins its cluster.
    void launch(std::vector<Sm>& sms) {
        WARPKIT_EXPECTS(sms.size() == ctls_.size() * size_);
        for (std::size_t c = 0; c < ctls_.size(); ++c) {
            auto& ctl = ctls_[c];
            ctl.launch();
            for (std::uint32_t m = 0; m < size_; ++m)
                sms[c * size_ + m].join_cluster(m, size_, ctl.communicate_cycles(),
                                                ctl.down_words_per_cycle(), ctl.words(true));
        }
    }

    /// Blocks placed in cycle `now`: a cluster whose members got unequal shares ungroups.
    void dispatched(std::span<const cta_dispatcher::placement> placed, std::uint64_t now) {
        if (placed.empty()) return;
        std::uint32_t counts[reconfig::front_end_sharing::max_members] = {};
        const std::uint32_t c = placed.front().sm / size_;
        for (const auto& pl : placed) {
            WARPKIT_EXPECTS(pl.sm / size_ == c);
            ++counts[pl.sm % size_];
        }
        for (std::uint32_t m = 1; m < size_; ++m)
            if (counts[m] != counts[0]) {
                ctls_[c].ungroup(reconfig::ungroup_cause::uneven_dispatch, now);
                return;
            }
    }

    /// True when cluster `c` may take blocks now: always once ungrouped; while grouped, only
    /// when every member has the same block slots resident. A slave runs behind its master and
    /// may retire blocks in another order (a block waits for its last loads to return, whose
    /// latencies differ between SMs); a block placed before they agree would take different
    /// slots on different members.
    [[nodiscard]] bool accepts_blocks(std::uint32_t c, const std::vector<Sm>& sms) const {
        if (c >= ctls_.size() || !ctls_[c].grouped()) return true;
        const Sm* first = &sms[std::size_t{c} * size_];
        const std::uint64_t master = first[0].resident_block_slots();
        for (std::uint32_t m = 1; m < size_; ++m)
            if (first[m].resident_block_slots() != master) return false;
        return true;
    }

    /// Start of core cycle `now`, before the SMs tick.
    void before_tick(std::vector<Sm>& sms, std::uint64_t now) {
        for (std::size_t c = 0; c < ctls_.size(); ++c) {
            auto& ctl = ctls_[c];
            Sm* first = &sms[c * size_];
            cluster_member& master = first[0].cluster();
            bool drained = master.drained() && !acks_pending_(c);
            bool active = false;
            for (std::uint32_t m = 0; m < size_; ++m) {
                drained = drained && first[m].cluster().quiet();
                active = active || first[m].busy();
            }
            ctl.tick(now, drained, active);
            for (std::uint32_t m = 0; m < size_; ++m)
                first[m].cluster().set_state(ctl.state());
            if (!ctl.grouped()) continue;
            std::uint64_t held = 0;
            for (std::uint32_t w = 0; w < ctl.warp_slots(); ++w)
                if (ctl.branch_pending(w, now)) held |= std::uint64_t{1} << w;
            std::uint32_t credit = ~std::uint32_t{0};
            for (std::uint32_t m = 1; m < size_; ++m)
                credit = std::min(credit, first[m].cluster().inbox_space());
            master.begin_master_cycle(held, credit);
        }
        // Acks that reach their master now set their bits before it issues.
        std::size_t keep = 0;
        for (std::size_t i = 0; i < in_flight_.size(); ++i) {
            const auto& a = in_flight_[i];
            if (a.at <= now)
                sms[a.cluster * size_].cluster().receive_ack(a.slot, a.dsts, a.member);
            else
                in_flight_[keep++] = a;
        }
        in_flight_.resize(keep);
    }

    /// End of core cycle `now`, after the SMs ticked.
    void after_tick(std::vector<Sm>& sms, std::uint64_t now) {
        for (std::size_t c = 0; c < ctls_.size(); ++c) {
            auto& ctl = ctls_[c];
            Sm* first = &sms[c * size_];
            const cluster_member& master = first[0].cluster();
            for (const auto& cmd : master.commands()) {
                ctl.on_issue(cmd.branch);
                for (std::uint32_t m = 1; m < size_; ++m)
                    first[m].cluster().deliver(cmd);
            }
            for (const auto& b : master.branches())
                (void)ctl.on_master_branch(b.slot, b.outcome, hinted_(b.pc), now);
            for (std::uint32_t m = 1; m < size_; ++m) {
                const cluster_member& slave = first[m].cluster();
                for (const auto& b : slave.branches())
                    (void)ctl.on_slave_branch(m, b.slot, b.outcome, now);
                for (const auto& a : slave.acks())
                    for (std::uint64_t d = a.dsts; d != 0; d &= d - 1) {
                        const std::uint64_t at = ctl.send_ack(m, now);
                        in_flight_.push_back(ack_in_flight{at, static_cast<std::uint32_t>(c), m,
                                                           a.slot, d & (~d + 1)});
                    }
            }
        }
    }

    /// True when no MemPacket is on its way.
    [[nodiscard]] bool idle() const noexcept { return in_flight_.empty(); }
    /// The clusters' controllers (cluster c: SMs c x cluster_size ...).
    [[nodiscard]] const std::vector<reconfig::front_end_sharing>& controllers() const noexcept {
        return ctls_;
    }
    /// The controllers' counters added up.
    [[nodiscard]] reconfig::front_end_sharing_stats stats() const {
        reconfig::front_end_sharing_stats s;
        for (const auto& c : ctls_)
            accumulate(s, c.stats());
        return s;
    }

private:
    struct ack_in_flight {
        std::uint64_t at;
        std::uint32_t cluster;
        std::uint32_t member;
        std::uint32_t slot;
        std::uint64_t dsts;
    };
    [[nodiscard]] bool hinted_(std::uint32_t pc) const noexcept {
        return pc < hints_.size() && hints_[pc];
    }
    [[nodiscard]] bool acks_pending_(std::size_t c) const noexcept {
        return std::any_of(in_flight_.begin(), in_flight_.end(),
                           [&](const ack_in_flight& a) { return a.cluster == c; });
    }

    std::uint32_t size_;
    std::vector<bool> hints_;
    std::vector<reconfig::front_end_sharing> ctls_;
    std::vector<ack_in_flight> in_flight_;
};

} // namespace warpkit::gpu
