#pragma once
/// \file
/// GPU presets: a Policies struct (which parts) plus default params (which numbers) for the
/// machines of the papers.

#include <warpkit/gating/selectable.hpp>
#include <warpkit/gpu/fusion.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/issue/selectable.hpp>
#include <warpkit/mem/selectable_coalescer.hpp>
#include <warpkit/simt/selectable_stack.hpp>

#include <cstddef>
#include <cstdint>

namespace warpkit::gpu {

namespace detail {

/// The figures of a preset's cores, as its source's table gives them, in the order of a table
/// row: name, SMs, core MHz, schedulers, registers, shared bytes, warp slots, block slots,
/// issue width, SP pipelines, SP lanes, SFU lanes, LD/ST lanes.
struct core_figures {
    const char* name = "";
    std::uint32_t sms = 0;
    std::uint32_t core_mhz = 0;
    std::uint32_t schedulers = 0;   ///< warp schedulers per SM
    std::uint32_t registers = 0;    ///< 32-bit registers per SM
    std::uint32_t shared_bytes = 0; ///< shared memory per SM
    std::uint32_t warp_slots = 0;
    std::uint32_t block_slots = 0;
    std::uint32_t issue_width = 0;
    std::uint32_t sp_count = 0; ///< SP pipelines (clusters) per SM
    std::uint32_t sp_lanes = 0;
    std::uint32_t sfu_lanes = 0;
    std::uint32_t ldst_lanes = 0;
};

/// Default params with the preset's core figures set.
[[nodiscard]] inline gpu_params preset_core(const core_figures& f) {
    gpu_params p;
    p.name = f.name;
    p.sms = f.sms;
    p.core_mhz = f.core_mhz;
    p.schedulers = f.schedulers;
    p.registers = f.registers;
    p.shared_bytes = f.shared_bytes;
    p.sm.warp_slots = f.warp_slots;
    p.sm.block_slots = f.block_slots;
    p.sm.issue_width = f.issue_width;
    p.sm.units.sp_count = f.sp_count;
    p.sm.units.sp_lanes = f.sp_lanes;
    p.sm.units.sfu_lanes = f.sfu_lanes;
    p.sm.units.ldst_lanes = f.ldst_lanes;
    return p;
}

/// A 32-thread warp passes pipelines narrower than itself in `rows` rows: the SP and LD/ST
/// pipelines accept one warp instruction every `rows` cycles.
inline void warp_in_rows(exec::timing_params& t, std::uint32_t rows) {
    for (auto* op : {&t.int_add, &t.int_mul, &t.fp_add, &t.fp_mul, &t.fp_mad, &t.ldst})
        op->initiation_interval = rows;
}

/// The parts every preset names: 32-thread warps, power gating as the params choose
/// (sm.gating.policy, no_gating unless set), and its own warp stack, warp scheduler and
/// coalescer.
template <class Stack, class Scheduler, class Coalescer>
struct preset_parts {
    static constexpr std::size_t warp_size = 32;
    using stack = Stack;
    using scheduler = Scheduler;
    using gating_policy = gating::selectable;
    using coalescer = Coalescer;
};

/// The SM side Accel-Sim's tested RTX 2060 and RTX 3070 configurations share: four sub-cores,
/// each with a DP and a tensor unit (-gpgpu_num_dp_units 4, -gpgpu_num_tensor_core_units 4),
/// 32 shared-memory banks, sector coalescing, four warps fetched a cycle, loose round robin,
/// integer add / multiply / multiply-add 4 / 2 and divide 21 / 2, FP32 add / multiply /
/// multiply-add 4 / 2 and divide 39 / 4, FP64 64 / 64 and divide 330 / 130, tensor 64 / 64.
/// The DP cluster has one lane: the Turing and GA10x whitepapers give these SMs two FP64
/// units, which four sub-cores cannot split, and one warp per 64 cycles on each sub-core is
/// those two FP64 results a cycle. The tensor cluster takes a warp's 32 threads a pass.
inline void rtx_sm(gpu_params& p) {
    p.sm.units.sub_cores = 4;
    p.sm.units.dp_lanes = 1;
    p.sm.units.tensor_lanes = 32;
    p.sm.fetch_width = 4;
    p.sm.banks.banks = 32;
    p.sm.coalescer = mem::coalescer_kind::sector;
    p.scheduler.kind = issue::scheduler_kind::loose_round_robin;
    exec::timing_params& t = p.sm.units.timing;
    t.int_add = {4, 2};
    t.int_mul = {4, 2};
    t.int_mad = {4, 2};
    t.int_div = {21, 2};
    t.fp_add = {4, 2};
    t.fp_mul = {4, 2};
    t.fp_mad = {4, 2};
    t.fp_div = {39, 4};
    t.dp_add = {64, 64};
    t.dp_mul = {64, 64};
    t.dp_fma = {64, 64};
    t.dp_div = {330, 130};
    t.tensor = {64, 64};
}

} // namespace detail

/// NVIDIA GTX480 (Fermi) as in papers 001 and 003: 15 SMs at 700 MHz, 48 warps and 8 blocks
/// per SM, 32768 registers and 48 KB shared memory per SM, two GTO schedulers, SP0 / SP1 of
/// 16 double-clocked lanes, 4 SFUs, 16 LD/ST units, 32 shared-memory banks, 128-byte lines;
/// the memory hierarchy of gtx480_memory(): 16 KB L1 with 64 MSHRs and 8 KB constant cache per
/// SM, a crossbar, 6 partitions of 2 L2 slices of 64 KB and one GDDR5 channel at 924 MHz.
struct fermi_gtx480 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                           mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p =
            detail::preset_core({"fermi_gtx480", 15, 700, 2, 32768, 49152, 48, 8, 2, 2, 16, 4, 16});
        p.default_block_shared_bytes = 0;
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
struct tesla_seed004 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                            mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p = detail::preset_core(
            {"tesla_seed004", 16, 300, 1, 8 * 512, 1024 * 4, 16, 4, 1, 1, 8, 8, 8});
        // A warp passes the 8 SPs in 4 rows: one warp instruction every 4 cycles per unit.
        detail::warp_in_rows(p.sm.units.timing, 4);
        p.scheduler.kind = issue::scheduler_kind::round_robin;
        p.simt_stack = simt::stack_kind::ssy;
        p.sm.coalescer = mem::coalescer_kind::cc13;
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
struct amoeba_48 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                        mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p =
            detail::preset_core({"amoeba_48", 48, 700, 1, 16384, 49152, 32, 8, 1, 1, 8, 4, 8});
        // SIMD width 8: a 32-thread warp takes 4 cycles on each pipeline.
        detail::warp_in_rows(p.sm.units.timing, 4);
        p.memory = amoeba_memory();
        return p;
    }
};

/// NVIDIA Quadro GV100 (Volta) as Accel-Sim's tested QV100 configuration and NVIDIA's Volta
/// whitepaper describe it: 80 SMs at 1132 MHz, each of four sub-cores with its own loose
/// round-robin scheduler issuing one warp instruction a cycle, one SP of 16 INT and 16 FP32
/// lanes, 8 FP64 lanes (the whitepaper's 32 FP64 units per SM), a tensor unit (the
/// configuration's four per SM; it takes a warp's 32 threads a pass), a 4-lane SFU and 8
/// LD/ST units; 64 warps and 32 blocks per SM, 65536 registers, up to 96 KB of shared memory
/// (per kernel, of the 128 KB L1 / shared array) in 32 banks (20-cycle accesses), sector
/// coalescing, four warps fetched a cycle; the memory of qv100_memory() (sectored L1 and L2, HBM2).
/// Timing, in core cycles (latency / initiation interval): the configuration's integer and FP32
/// add, multiply 4 / 2 and multiply-add 5 / 2 (16 lanes take a warp in two cycles; Jia et al.,
/// "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018, measure 4-cycle
/// dependent FP32 and INT adds), integer divide 145 / 8, FP32 divide 39 / 4, FP64 add, multiply and
/// FMA 8 / 4, FP64 divide 330 / 130, tensor (one wmma.mma or mma) 64 / 64, SFU 20 / 8 (the trace
/// configuration's SASS figure; its PTX configuration lumps transcendental PTX at 100). 32 GB
/// of HBM2.
struct volta_qv100 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                          mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p = detail::preset_core(
            {"volta_qv100", 80, 1132, 4, 65536, 98304, 64, 32, 4, 4, 16, 4, 8});
        p.sm.units.sub_cores = 4;
        p.sm.units.dp_lanes = 8;
        p.sm.units.tensor_lanes = 32;
        p.sm.fetch_width = 4;
        p.sm.shared_latency = 20;
        p.sm.banks.banks = 32;
        p.sm.coalescer = mem::coalescer_kind::sector;
        p.scheduler.kind = issue::scheduler_kind::loose_round_robin;
        exec::timing_params& t = p.sm.units.timing;
        t.int_add = {4, 2};
        t.int_mul = {4, 2};
        t.int_mad = {5, 2};
        t.int_div = {145, 8};
        t.fp_add = {4, 2};
        t.fp_mul = {4, 2};
        t.fp_mad = {5, 2};
        t.fp_div = {39, 4};
        t.dp_add = {8, 4};
        t.dp_mul = {8, 4};
        t.dp_fma = {8, 4};
        t.dp_div = {330, 130};
        t.tensor = {64, 64};
        t.sfu = {20, 8};
        p.memory = qv100_memory();
        p.device_memory_mb = 32768;
        return p;
    }
};

/// NVIDIA GeForce RTX 2060 (Turing) as Accel-Sim's tested RTX 2060 configuration gives it: 30
/// SMs at 1365 MHz of four sub-cores (one LRR scheduler, 16 INT and 16 FP32 lanes, a 4-lane
/// SFU and 4 LD/ST units each), 32 warps and 16 blocks per SM, 65536 registers, up to 64 KB of
/// shared memory in 32 banks (30-cycle accesses), sector coalescing, four warps fetched a cycle;
/// the memory of rtx2060_memory() (sectored L1 and L2, 12 GDDR6 channels). Timing (latency /
/// initiation interval): integer add, multiply and multiply-add 4 / 2, divide 21 / 2; FP32
/// add, multiply and multiply-add 4 / 2, divide 39 / 4; FP64 64 / 64 (two FP64 units per SM),
/// divide 330 / 130; tensor 64 / 64; SFU 21 / 8 (its trace configuration's figure, the PTX
/// one's too). 6 GB.
struct turing_rtx2060 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                             mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p = detail::preset_core(
            {"turing_rtx2060", 30, 1365, 4, 65536, 65536, 32, 16, 4, 4, 16, 4, 4});
        detail::rtx_sm(p);
        p.sm.shared_latency = 30;
        p.sm.units.timing.sfu = {21, 8};
        p.memory = rtx2060_memory();
        p.device_memory_mb = 6144;
        return p;
    }
};

/// NVIDIA GeForce RTX 3070 (Ampere) as Accel-Sim's tested RTX 3070 configuration gives it: 46
/// SMs at 1132 MHz of four sub-cores as turing_rtx2060's, whose FP32 pipelines take a warp
/// every cycle (initiation interval 1: Ampere's second FP32 datapath), 48 warps and 32 blocks
/// per SM, 65536 registers, up to 100 KB of shared memory (29-cycle accesses); the memory of
/// rtx3070_memory() (a 128 KB sectored L1, 4 MB of sectored L2, 16 GDDR6 channels); SFU 20 / 8
/// (its trace configuration's figure). 8 GB.
struct ampere_rtx3070 : detail::preset_parts<simt::selectable_stack<32>, issue::selectable,
                                             mem::selectable_coalescer> {
    [[nodiscard]] static gpu_params params() {
        gpu_params p = detail::preset_core(
            {"ampere_rtx3070", 46, 1132, 4, 65536, 102400, 48, 32, 4, 4, 16, 4, 4});
        detail::rtx_sm(p);
        p.sm.shared_latency = 29;
        exec::timing_params& t = p.sm.units.timing;
        t.fp_add.initiation_interval = 1;
        t.fp_mul.initiation_interval = 1;
        t.fp_mad.initiation_interval = 1;
        t.fp_div.initiation_interval = 2;
        t.sfu = {20, 8};
        p.memory = rtx3070_memory();
        p.device_memory_mb = 8192;
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
