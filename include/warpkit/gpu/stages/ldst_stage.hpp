#pragma once
/// \file
/// `ldst_stage`: the memory stage behind an SM's LD/ST clusters. After the LD/ST cluster has
/// generated the addresses, an access either goes to the memory hierarchy through the
/// `memory_port`, or meets the ideal memory: shared accesses pass the banks (1 + the conflict
/// degree passes per group of lanes, replayed through the warp or held in the unit),
/// constants answer after their latency, global and texture accesses after the global latency
/// serialised per coalesced transaction. Results go to writeback through a result_queue. The
/// stage stays shared when a fused SM splits.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/gpu/stages/memory_port.hpp>
#include <warpkit/gpu/stages/sm_params.hpp>
#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/gpu/stages/writeback_stage.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/mem/selectable_coalescer.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>
#include <warpkit/mem/transaction.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::gpu::stages {

/// The LD/ST memory stage of SM `id` with warps of `WarpSize` lanes coalesced by `Coalescer`;
/// the registers an access writes are an `Operands` (the SM scoreboard's
/// issue::basic_operands).
template <std::size_t WarpSize, class Coalescer, class Operands = issue::operands>
class ldst_stage {
public:
    using port_type = memory_port<WarpSize, Coalescer, Operands>;
    using result_type = typename port_type::result_type;
    using results_type = typename port_type::results_type;

    /// The stage of an SM with params `p` whose LD/ST unit `memory` answers.
    ldst_stage(std::uint32_t id, const sm_params& p, const memory_params& memory)
        : banks_(p.banks), coalescer_(mem::make_coalescer<Coalescer>(p.coalescer)),
          port_(id, checked_sectors_(p, memory), coalescer_), replay_writes_(p.contexts()),
          agen_(p.units.timing.of(exec::op_class::ldst).latency), shared_latency_(p.shared_latency),
          const_latency_(p.const_latency), global_latency_(p.global_latency),
          bank_group_lanes_(p.bank_group_lanes), shared_replay_(p.shared_replay) {}

    /// A sectored L1 data cache looks up one sector per transaction: the SM must coalesce
    /// into 32-byte sectors. Throws config_error naming sm.coalescer otherwise.
    static const memory_params& checked_sectors_(const sm_params& p, const memory_params& m) {
        const mem::coalescer_kind k = mem::kind_of<Coalescer>(p.coalescer);
        if (m.model == memory_model::hierarchy && m.l1.data.cache.sector_bytes != 0 &&
            k != mem::coalescer_kind::sector)
            throw config_error(
                "sm.coalescer",
                std::string(enum_names<mem::coalescer_kind>::names[static_cast<std::size_t>(k)]),
                "sector with a sectored L1 data cache (memory.l1.data.cache.sector_bytes " +
                    std::to_string(m.l1.data.cache.sector_bytes) + ")");
        return m;
    }

    /// The hierarchy side (request and reply ports, caches, PRT).
    [[nodiscard]] port_type& port() noexcept { return port_; }
    [[nodiscard]] const port_type& port() const noexcept { return port_; }
    [[nodiscard]] const mem::shared_memory_banks& banks() const noexcept { return banks_; }
    /// Restarts the counters of the banks, the port, its caches and its PRT.
    void reset_stats() {
        banks_.reset_stats();
        port_.reset_stats();
    }

    /// True when the stage takes a new access at `now` (the LD/ST cluster aside).
    [[nodiscard]] bool free(std::uint64_t now) const noexcept {
        return now >= free_at_ && (!port_.uses_hierarchy() || port_.access_free());
    }
    /// True when an access of `si` finds what it needs (a PRT entry on the hierarchy).
    [[nodiscard]] bool can_take(const isa::static_inst& si) const noexcept {
        return port_.can_take(si);
    }

    /// The access `d` of warp `w` (slot `s`) writing `writes`, issued at `now`.
    void issue(std::uint32_t s, warp_context& w, const isa::dynamic_inst<WarpSize>& d,
               const Operands& writes, std::uint64_t now, sm_stats& counts, results_type& results) {
        if (d.si.space == isa::mem_space::global || d.si.space == isa::mem_space::local) {
            if (d.si.mop == isa::mem_op::load) ++counts.global_loads;
            if (d.si.mop == isa::mem_op::store) ++counts.global_stores;
            if (d.si.mop == isa::mem_op::load || d.si.mop == isa::mem_op::store)
                counts.global_lane_accesses += d.active.count();
        }
        if (port_.uses_hierarchy() && d.si.space != isa::mem_space::shared &&
            d.si.mop != isa::mem_op::none) {
            free_at_ = now + 1;
            port_.issue(s, d, writes, now, agen_, counts, results);
            return;
        }
        std::uint64_t occupancy = 1;
        std::uint64_t latency = global_latency_;
        switch (d.si.space) {
        case isa::mem_space::shared: {
            const std::uint64_t extra = shared_passes_(d, counts);
            latency = shared_latency_;
            ++counts.shared_accesses;
            if (shared_replay_ && extra > 0) {
                // Paper 004: the served lanes go on, the others replay through the warp.
                w.replays = static_cast<std::uint32_t>(extra);
                replay_writes_[s] = writes;
                free_at_ = now + 1;
                return;
            }
            occupancy = 1 + extra;
            break;
        }
        case isa::mem_space::constant:
            latency = const_latency_;
            ++counts.const_accesses;
            break;
        case isa::mem_space::texture: // the ideal memory: a fetch costs a global access
            coalescer_.coalesce(d.addr, d.si.access_bytes, d.active, txns_);
            occupancy = std::max<std::uint64_t>(1, txns_.size());
            ++counts.tex_accesses;
            break;
        default:
            coalescer_.coalesce(d.addr, d.si.access_bytes, d.active, txns_);
            occupancy = std::max<std::uint64_t>(1, txns_.size());
            ++counts.global_accesses;
            counts.global_transactions += txns_.size();
            break;
        }
        free_at_ = now + occupancy;
        results.push(result_type{now + agen_ + latency + (occupancy - 1), s, writes});
    }

    /// One more pass at `now` of warp `w`'s (slot `s`) shared access whose lanes lost a bank
    /// conflict: it occupies the stage like the first; the last pass's data completes the load.
    void replay(std::uint32_t s, warp_context& w, std::uint64_t now, sm_stats& counts,
                results_type& results) {
        free_at_ = now + 1;
        ++counts.shared_replays;
        if (--w.replays == 0)
            results.push(result_type{now + agen_ + shared_latency_, s, replay_writes_[s]});
    }

    /// The transactions the last ideal global or texture access coalesced into.
    [[nodiscard]] const mem::transaction_list<WarpSize>& transactions() const noexcept {
        return txns_;
    }

private:
    // Lanes reach the banks in groups (Fermi: the whole warp; paper 004: one row of SPs at a
    // time); each group needs 1 + its conflict degree passes. Returns the extra passes.
    std::uint64_t shared_passes_(const isa::dynamic_inst<WarpSize>& d, sm_stats& counts) {
        std::uint64_t extra = 0;
        for (std::size_t first = 0; first < WarpSize; first += bank_group_lanes_) {
            const auto group = d.active & lane_mask<WarpSize>::first_n(first + bank_group_lanes_)
                                              .minus(lane_mask<WarpSize>::first_n(first));
            if (group.none()) continue;
            const auto a = banks_.access(d.addr, d.si.access_bytes, group);
            extra += a.passes - 1;
            counts.shared_bank_passes += a.passes;
        }
        return extra;
    }

    mem::shared_memory_banks banks_;
    Coalescer coalescer_; // of the ideal memory; the port's PRT holds a copy
    mem::transaction_list<WarpSize> txns_{};
    port_type port_;
    std::vector<Operands> replay_writes_; // per warp slot: the replayed load's destinations
    std::uint64_t agen_;                  // address generation: the LD/ST op_class latency
    std::uint64_t shared_latency_;        // of the ideal shared memory
    std::uint64_t const_latency_;         // of the ideal constant memory
    std::uint64_t global_latency_;        // of the ideal global memory
    std::uint32_t bank_group_lanes_;
    bool shared_replay_;
    std::uint64_t free_at_ = 0; // first cycle the stage takes a new access
};

} // namespace warpkit::gpu::stages
