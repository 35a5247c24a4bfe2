#pragma once
/// \file
/// Writes what a PTX launch executes as an Accel-Sim kernel trace (the layout
/// func/accelsim_trace.hpp reads, tracer version 4 with line numbers): a functional run of
/// the launch (func::run_functional) whose every warp instruction becomes one line, block by
/// block, so a kernel of the project can be run later from its trace and from its PTX with the
/// same instructions. The columns hold PTX, not SASS: the opcode is the PTX instruction's
/// (`ld.global.f32`, `add.s32`, `bra`), the PC the instruction's index in the kernel, the
/// registers the kernel's timing register ids (`R<n>`), the line number the PTX source line;
/// the header says so with `-opcode set = ptx`. Memory addresses use the tracer's
/// compressions: a base and a stride when the active lanes are consecutive and evenly spaced,
/// else a base and the difference of each next active lane's address.

#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/simt/pdom_stack.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace warpkit::func {

namespace detail {

// Writes each block of a functional run to a stream in the trace layout.
template <std::size_t WarpSize>
class accelsim_trace_observer {
public:
    accelsim_trace_observer(const ptx::launch& l, std::ostream& out)
        : l_(l), out_(out), warps_(l.warps_per_block()), counts_(l.warps_per_block()) {}

    void block_started(std::uint32_t /*block*/) {
        for (auto& w : warps_)
            w.clear();
        std::fill(counts_.begin(), counts_.end(), 0);
    }
    void executed(std::uint32_t warp, const isa::dynamic_inst<WarpSize>& d) {
        std::string& t = warps_.at(warp);
        const auto& k = l_.prepared();
        const auto& in = k.at(d.pc).in;
        char head[64];
        std::snprintf(head, sizeof head, "%u %04x %08x ", k.line(d.pc),
                      static_cast<unsigned>(d.pc), static_cast<unsigned>(d.active.bits()));
        t += head;
        t += std::to_string(d.si.num_dst);
        for (std::size_t i = 0; i < d.si.num_dst; ++i)
            t += " R" + std::to_string(d.si.dst[i]);
        t += ' ';
        t += opcode_text(in);
        t += ' ' + std::to_string(d.si.num_src);
        for (std::size_t i = 0; i < d.si.num_src; ++i)
            t += " R" + std::to_string(d.si.src[i]);
        const bool memory = d.si.mop != isa::mem_op::none && d.si.access_bytes != 0;
        t += ' ' + std::to_string(memory ? d.si.access_bytes : 0);
        if (memory) append_addresses(t, d);
        t += '\n';
        ++counts_.at(warp);
    }
    void block_finished(std::uint32_t block) {
        const auto& g = l_.grid();
        out_ << "#BEGIN_TB\nthread block = " << block % g.x << ',' << (block / g.x) % g.y << ','
             << block / (g.x * g.y) << '\n';
        for (std::size_t w = 0; w < warps_.size(); ++w)
            out_ << "warp = " << w << "\ninsts = " << counts_[w] << '\n' << warps_[w];
        out_ << "#END_TB\n";
    }

    // "op[.approx][.mode][.space][.type][.type2]", bar as "bar.sync", "bar.arrive" or
    // "bar.warp.sync": the PTX opcode as the trace's opcode column (mul.wide.s32,
    // ld.global.f32, rcp.approx.f32, cvt.f32.s32), with what the unit and latency class of the
    // instruction depend on (func/ptx_trace_opcodes.hpp reads it back).
    static std::string opcode_text(const ptx::instruction& in) {
        std::string s(ptx::name(in.opcode));
        if (in.opcode == ptx::op::bar)
            return s + (in.warp ? ".warp.sync" : in.arrive ? ".arrive" : ".sync");
        if (in.approx) s += ".approx";
        if (in.mode != ptx::mul_mode::none) s += "." + std::string(ptx::name(in.mode));
        if (!ptx::name(in.sp).empty()) s += "." + std::string(ptx::name(in.sp)); // not generic
        if (in.t != ptx::type::none) s += "." + std::string(ptx::name(in.t));
        if (in.t2 != ptx::type::none) s += "." + std::string(ptx::name(in.t2));
        return s;
    }

private:
    // The tracer's compressions: base and stride over one run of lanes with one spacing, else
    // base and the differences (format 1, else 2); no lane: an empty list (format 0).
    static void append_addresses(std::string& t, const isa::dynamic_inst<WarpSize>& d) {
        std::vector<std::uint64_t> a;
        for (std::size_t lane = 0; lane < WarpSize; ++lane)
            if (d.active.test(lane)) a.push_back(d.addr[lane]);
        if (a.empty()) {
            t += " 0";
            return;
        }
        char hex[32];
        std::snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(a[0]));
        const std::uint64_t bits = d.active.bits();
        const bool consecutive = std::countr_one(bits >> std::countr_zero(bits)) ==
                                 static_cast<int>(a.size());
        const auto diff = [&](std::size_t i) {
            return static_cast<std::int64_t>(a[i] - a[i - 1]);
        };
        bool even = true;
        for (std::size_t i = 2; i < a.size() && even; ++i)
            even = diff(i) == diff(1);
        if (consecutive && even) {
            t += std::string(" 1") + hex + ' ' + std::to_string(a.size() > 1 ? diff(1) : 0);
            return;
        }
        t += std::string(" 2") + hex;
        for (std::size_t i = 1; i < a.size(); ++i)
            t += ' ' + std::to_string(diff(i));
    }

    const ptx::launch& l_;
    std::ostream& out_;
    std::vector<std::string> warps_;
    std::vector<std::uint64_t> counts_;
};

} // namespace detail

/// Runs `l` functionally on `mem` (as run_functional does) and writes what it executes to
/// `out` as an Accel-Sim kernel trace with id `kernel_id`. Returns the run's statistics.
template <std::size_t WarpSize = 32, class Stack = simt::pdom_stack<WarpSize>>
ptx_source_stats write_accelsim_trace(const ptx::launch& l, global_memory& mem, std::ostream& out,
                                      std::uint32_t kernel_id = 1,
                                      const ptx_functional_params& p = {}) {
    const auto& k = l.prepared();
    const auto& g = l.grid();
    const auto& b = l.block();
    out << "-kernel name = " << k.name() << "\n-kernel id = " << kernel_id << "\n-grid dim = ("
        << g.x << ',' << g.y << ',' << g.z << ")\n-block dim = (" << b.x << ',' << b.y << ','
        << b.z << ")\n-shmem = " << l.shared_bytes() << "\n-nregs = " << k.regs_per_thread()
        << "\n-binary version = 0\n-cuda stream id = 0\n-shmem base_addr = 0x0\n"
           "-local mem base_addr = 0x0\n-nvbit version = none\n-accelsim tracer version = 4\n"
           "-enable lineinfo = 1\n-opcode set = ptx\n\n"
           "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
           "mem_width [adrrescompress?] [mem_addresses]\n\n";
    detail::accelsim_trace_observer<WarpSize> observer(l, out);
    return run_functional<WarpSize, Stack>(l, mem, p, observer);
}

} // namespace warpkit::func
