#pragma once
/// \file
/// The GTX480 reference activity the default peak powers were derived against: a
/// Rodinia-like mix on all 15 SMs for 10,000 core cycles (per SM and cycle: 0.8 warp
/// instructions issued, 50 % INT, 30 % FP, 3 % SFU, 17 % LD/ST; 2 register reads and 0.875
/// writes per instruction; 0.12 L1 transactions; chip: 70 % of them miss L1, half of those
/// miss L2, 25 % of DRAM traffic is writes, half the DRAM requests open a row). At the
/// default params it draws about 88 W dynamic power split as in paper 001, Fig. 12.

#include <warpkit/power/activity.hpp>

#include <cstdint>

namespace warpkit::power {

/// The reference activity (all lanes active, nothing gated).
[[nodiscard]] inline activity gtx480_reference_activity() {
    constexpr std::uint64_t cycles = 10000;
    sm_activity s;
    s.active_cycles = cycles;
    s.decoded = 8500;
    s.icache_accesses = 4500;
    s.issued = 8000;
    s.rf_reads = 16000;
    s.rf_writes = 7000;
    s.collector_accesses = 16000;
    s.crossbar_transfers = 16000;
    s.shared_bank_accesses = 800;
    s.shared_transfers = 600;
    s.l1d_accesses = 1200;
    s.const_accesses = 300;
    s.tex_accesses = 100;
    s.prt_accesses = 800;
    s.int_ops = 4000;
    s.fp_ops = 2400;
    s.sfu_ops = 240;
    s.int_lanes = 32 * s.int_ops;
    s.fp_lanes = 32 * s.fp_ops;
    s.sfu_lanes = 32 * s.sfu_ops;
    s.operand_lanes = 32 * (s.rf_reads + s.rf_writes);
    activity a;
    a.cycles = cycles;
    a.sms.assign(15, s);
    a.chip.l2_accesses = 12600;
    a.chip.noc_flits = 63000;
    a.chip.mc_requests = 6300;
    a.chip.dram = {3150, 3150, 9450, 3150};
    return a;
}

} // namespace warpkit::power
