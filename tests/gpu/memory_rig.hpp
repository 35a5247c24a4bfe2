#pragma once
// Test helper: SMs running hand-written instruction lists whose memory instructions carry
// their own addresses, wired to a memory_system the way gpu::run wires them (one reply into
// each SM before its tick, one request out after it, then one core cycle of the memory side).

#include "scripted_source.hpp"
#include "sm_policies.hpp"

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/gpu/memory_system.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/mem/selectable_coalescer.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace test {

/// One instruction of a warp; lane l of a memory access touches base + l * stride.
struct step {
    warpkit::isa::static_inst si;
    std::uint64_t base = 0;
    std::uint64_t stride = 4;
};

/// Warps of hand-written steps; records the cycle each step issues at.
using addressed_source = step_source<step>;

inline warpkit::isa::static_inst mem_inst(warpkit::isa::mem_space space, warpkit::isa::mem_op op,
                                          warpkit::isa::reg_id dst) {
    warpkit::isa::static_inst s;
    s.unit = warpkit::isa::unit_class::ldst;
    s.space = space;
    s.mop = op;
    s.access_bytes = 4;
    s.latency = space == warpkit::isa::mem_space::constant
                    ? warpkit::isa::latency_class::const_mem
                    : warpkit::isa::latency_class::global_mem;
    if (op != warpkit::isa::mem_op::store) {
        s.num_dst = 1;
        s.dst[0] = dst;
    }
    return s;
}
/// A global load of one 128-byte line (32 lanes x 4 bytes from `addr`) into `dst`.
inline step load(warpkit::isa::reg_id dst, std::uint64_t addr) {
    return {mem_inst(warpkit::isa::mem_space::global, warpkit::isa::mem_op::load, dst), addr, 4};
}
/// A global store of one 128-byte line.
inline step store(std::uint64_t addr) {
    return {mem_inst(warpkit::isa::mem_space::global, warpkit::isa::mem_op::store, 0), addr, 4};
}
/// A global atomic on 32 consecutive words.
inline step atomic(warpkit::isa::reg_id dst, std::uint64_t addr) {
    auto s = mem_inst(warpkit::isa::mem_space::global, warpkit::isa::mem_op::atomic, dst);
    s.latency = warpkit::isa::latency_class::atomic;
    return {s, addr, 4};
}
/// A constant load by every lane of the same word.
inline step load_const(warpkit::isa::reg_id dst, std::uint64_t addr) {
    return {mem_inst(warpkit::isa::mem_space::constant, warpkit::isa::mem_op::load, dst), addr, 0};
}
/// An integer add writing `dst` and reading `src`.
inline step use(warpkit::isa::reg_id dst, warpkit::isa::reg_id src) {
    warpkit::isa::static_inst s;
    s.unit = warpkit::isa::unit_class::int_alu;
    s.latency = warpkit::isa::latency_class::int_alu;
    s.num_dst = 1;
    s.dst[0] = dst;
    s.num_src = 1;
    s.src[0] = src;
    return {s, 0, 0};
}
/// EXIT.
inline step exit_step() {
    warpkit::isa::static_inst s;
    s.unit = warpkit::isa::unit_class::ctrl;
    s.is_exit = true;
    return {s, 0, 0};
}

/// The SM params of a memory_rig: one scheduler issuing one warp instruction a cycle,
/// coalescing as `coalescer` says.
inline warpkit::gpu::sm_params rig_sm_params(
    warpkit::mem::coalescer_kind coalescer = warpkit::mem::coalescer_kind::line) {
    warpkit::gpu::sm_params p;
    p.issue_width = 1;
    p.coalescer = coalescer;
    return p;
}

/// SMs (one block each) and a memory system, run to completion. The SMs coalesce as their
/// params say (128-byte lines unless told).
class memory_rig {
public:
    using sm_type = warpkit::gpu::sm<
        sm_policies<warpkit::issue::lrr, warpkit::gating::no_gating,
                    warpkit::mem::selectable_coalescer>,
        addressed_source>;

    memory_rig(const warpkit::gpu::memory_params& mp,
               std::vector<std::vector<std::vector<step>>> sms, std::uint32_t core_mhz = 700,
               const warpkit::gpu::sm_params& p = rig_sm_params())
        : mem_(mp, static_cast<std::uint32_t>(sms.size()), core_mhz) {
        warpkit::issue::scheduler_bank_params<warpkit::issue::no_params> bank;
        bank.schedulers = 1;
        sms_.reserve(sms.size());
        for (std::uint32_t i = 0; i < sms.size(); ++i) {
            const auto warps = static_cast<std::uint32_t>(sms[i].size());
            sms_.emplace_back(i, p, bank, addressed_source(std::move(sms[i])), mp);
            sms_.back().start_block(0, warps);
        }
    }

    /// Runs until every SM and the memory system are idle; returns the core cycles.
    std::uint64_t run(std::uint64_t limit = 2'000'000) {
        std::uint64_t c = 0;
        for (; c < limit; ++c)
            if (step()) break;
        return c + 1;
    }
    /// One core cycle; true when every SM and the memory system are idle after it.
    bool step() {
        for (std::uint32_t i = 0; i < sms_.size(); ++i)
            if (mem_.has_reply(i) && sms_[i].can_receive()) sms_[i].receive(mem_.take_reply(i));
        for (auto& s : sms_)
            s.tick([](std::uint32_t) {});
        for (std::uint32_t i = 0; i < sms_.size(); ++i)
            if (sms_[i].has_request() && mem_.can_send(i)) {
                mem_.send(sms_[i].request());
                sms_[i].pop_request();
            }
        mem_.cycle();
        bool idle = mem_.idle();
        for (const auto& s : sms_)
            idle = idle && s.idle();
        return idle;
    }
    /// Restarts the counters of every SM and of the memory system.
    void reset_stats() {
        for (auto& s : sms_)
            s.reset_stats();
        mem_.reset_stats();
    }

    [[nodiscard]] std::size_t sms() const { return sms_.size(); }
    [[nodiscard]] const sm_type& sm(std::size_t i) const { return sms_[i]; }
    [[nodiscard]] const warpkit::gpu::memory_system& memory() const { return mem_; }

private:
    warpkit::gpu::memory_system mem_;
    std::vector<sm_type> sms_;
};

} // namespace test
