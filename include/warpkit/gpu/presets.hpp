#pragma once
/// \file
/// GPU presets: a Policies struct (which parts) plus default params (which numbers) for the
/// machines of the papers.

#include <warpkit/gating/no_gating.hpp>
#include <warpkit/gpu/fusion.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/mem/cc13_coalescer.hpp>
#include <warpkit/mem/line_coalescer.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <cstdint>

namespace warpkit::gpu {

/// NVIDIA GTX480 (Fermi) as in papers 001 and 003: 15 SMs at 700 MHz, 48 warps and 8 blocks
/// per SM, 32768 registers and 48 KB shared memory per SM, two GTO schedulers, SP0 / SP1 of
/// 16 double-clocked lanes, 4 SFUs, 16 LD/ST units, 32 shared-memory banks, 128-byte lines;
/// the memory hierarchy of gtx480_memory(): 16 KB L1 with 64 MSHRs and 8 KB constant cache per
/// SM, a crossbar, 6 partitions of 2 L2 slices of 64 KB and one GDDR5 channel at 924 MHz.
struct fermi_gtx480 {
    static constexpr std::size_t warp_size = 32;
    using stack = simt::pdom_stack<32>;
    using scheduler = issue::gto;
    using gating_policy = gating::no_gating;
    using coalescer = mem::line_coalescer<128>;

    [[nodiscard]] static gpu_params params() {
        gpu_params p;
        p.name = "fermi_gtx480";
        p.sms = 15;
        p.core_mhz = 700;
        p.schedulers = 2;
        p.registers = 32768;
        p.shared_bytes = 49152;
        p.default_block_shared_bytes = 0;
        p.sm.warp_slots = 48;
        p.sm.block_slots = 8;
        p.sm.issue_width = 2;
        p.sm.units.sp_count = 2;
        p.sm.units.sp_lanes = 16;
        p.sm.units.sfu_lanes = 4;
        p.sm.units.ldst_lanes = 16;
        p.sm.banks.banks = 32;
        p.memory = gtx480_memory();
        return p;
    }
};

/// The configurable Tesla-like GPGPU of paper 004, Table 5.1: 16 multiprocessors of 8 SPs,
/// 4 blocks and 16 warps each, warps of 32 executed in 4 rows of 8, one round-robin warp
/// scheduler, the SSY warp stack, one shared-memory bank per SP, 300 MHz (Table 5.2). The
/// register file is 8 partitions of 2^R_ADDR_WIDTH = 512 entries, shared memory
/// 2^L_ADDR_WIDTH = 1024 words. Compute capability 1.3 coalescing for global accesses. The
/// paper's design has no cache hierarchy and no DRAM (Section 4.1: data lives in block RAMs
/// loaded by the global scheduler), so this preset keeps the ideal fixed-latency memory.
struct tesla_seed004 {
    static constexpr std::size_t warp_size = 32;
    using stack = simt::ssy_stack<32>;
    using scheduler = issue::rr;
    using gating_policy = gating::no_gating;
    using coalescer = mem::cc13_coalescer;

    [[nodiscard]] static gpu_params params() {
        gpu_params p;
        p.name = "tesla_seed004";
        p.sms = 16;
        p.core_mhz = 300;
        p.schedulers = 1;
        p.registers = 8 * 512;
        p.shared_bytes = 1024 * 4;
        p.sm.warp_slots = 16;
        p.sm.block_slots = 4;
        p.sm.issue_width = 1;
        p.sm.units.sp_count = 1;
        p.sm.units.sp_lanes = 8;
        p.sm.units.sfu_lanes = 8;
        p.sm.units.ldst_lanes = 8;
        // A warp passes the 8 SPs in 4 rows: one warp instruction every 4 cycles per unit.
        for (auto* t :
             {&p.sm.units.timing.int_add, &p.sm.units.timing.int_mul, &p.sm.units.timing.fp_add,
              &p.sm.units.timing.fp_mul, &p.sm.units.timing.fp_mad, &p.sm.units.timing.ldst})
            t->initiation_interval = 4;
        p.sm.banks.banks = 8;
        // A row of 8 lanes meets the 8 banks at a time; conflicting lanes replay (4.3.2).
        p.sm.bank_group_lanes = 8;
        p.sm.shared_replay = true;
        p.memory = ideal_memory();
        return p;
    }
};

/// The 48-SM machine of paper 002 (AMOEBA), Table 1: 48 SMs, SIMD width 8, 1024 threads
/// (32 warps) and 8 CTAs per SM, 16384 registers, 48 KB shared memory, GTO scheduling; the
/// memory of amoeba_memory(): 8 memory controllers with 128 KB of L2 each on the 8 x 7 mesh.
struct amoeba_48 {
    static constexpr std::size_t warp_size = 32;
    using stack = simt::pdom_stack<32>;
    using scheduler = issue::gto;
    using gating_policy = gating::no_gating;
    using coalescer = mem::line_coalescer<128>;

    [[nodiscard]] static gpu_params params() {
        gpu_params p;
        p.name = "amoeba_48";
        p.sms = 48;
        p.core_mhz = 700;
        p.schedulers = 1;
        p.registers = 16384;
        p.shared_bytes = 49152;
        p.sm.warp_slots = 32;
        p.sm.block_slots = 8;
        p.sm.issue_width = 1;
        p.sm.units.sp_count = 1;
        p.sm.units.sp_lanes = 8;
        p.sm.units.sfu_lanes = 4;
        p.sm.units.ldst_lanes = 8;
        // SIMD width 8: a 32-thread warp takes 4 cycles on each pipeline.
        for (auto* t :
             {&p.sm.units.timing.int_add, &p.sm.units.timing.int_mul, &p.sm.units.timing.fp_add,
              &p.sm.units.timing.fp_mul, &p.sm.units.timing.fp_mad, &p.sm.units.timing.ldst})
            t->initiation_interval = 4;
        p.memory = amoeba_memory();
        return p;
    }
};

/// amoeba_48 with every two neighbouring SMs fused (paper 002 Sec. 4.2, "direct scale-up"):
/// 24 SMs of 64-thread warps, 32 warps and 16 CTAs each, 32768 registers and 96 KB shared
/// memory, SIMD width 16, L1 and constant caches of twice the ways and one more cycle, the
/// 8 x 7 mesh with the odd columns' routers bypassed (fuse_sm_pairs). Kernels run on it with
/// 64-thread warps.
struct amoeba_48_fused : fused<amoeba_48> {
    [[nodiscard]] static gpu_params params() { return fuse_sm_pairs(amoeba_48::params()); }
};

} // namespace warpkit::gpu
