#pragma once
/// \file
/// The parameters and counters of one SM (`sm_params`, `sm_stats`, `stall_stats`) and the
/// op_class an instruction runs as: the plain values every SM stage reads or counts into.

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/exec/execution_units.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/mem/selectable_coalescer.hpp>
#include <warpkit/mem/shared_memory_banks.hpp>
#include <warpkit/reconfig/sm_split.hpp>

#include <array>
#include <cstdint>

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
    /// How the LD/ST unit turns a warp access into transactions: line (128-byte lines, Fermi's
    /// L1 path, paper 001 Section 2.5), cc13 (compute capability 1.3 half-warp segments,
    /// paper 004) or sector (32-byte sectors), on an SM whose Policies::coalescer is
    /// mem::selectable_coalescer, as every preset's is. An SM with a static coalescer type
    /// reports that type's kind here.
    mem::coalescer_kind coalescer = mem::coalescer_kind::line;
    exec::units_params units{};
    mem::bank_params banks{};
    gating::params gating{};
    /// AMOEBA's dynamic split of a fused SM (paper 002 Sec. 4.3; off: the SM never splits).
    reconfig::sm_split_params split{};
    void validate() const {
        check_range("warp_slots", warp_slots, 1U, 64U);
        if (split.mode != reconfig::split_mode::off) {
            check(warp_slots <= 32, "warp_slots", warp_slots,
                  "<= 32 with split.mode on (a cut warp takes a second slot)");
            check(units.sub_cores == 1, "units.sub_cores", units.sub_cores,
                  "1 with split.mode on (AMOEBA splits a whole SM)");
        }
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
                   global_latency, coalescer, units, banks, gating, split)

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
    std::uint64_t warps_started =
        0; ///< warps of dispatched blocks with live threads, and cut parts
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
    // Divides, double precision and matrix instructions have timings of their own.
    case L::int_div:
    case L::fp_div:
    case L::dp_add:
    case L::dp_mul:
    case L::dp_fma:
    case L::dp_div:
    case L::tensor:
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

} // namespace warpkit::gpu
