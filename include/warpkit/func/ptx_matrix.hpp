#pragma once
/// \file
/// The warp-level matrix instructions on a `ptx_source`'s warps (wmma.load, wmma.store,
/// wmma.mma, mma.sync; their semantics and fragment layouts are in ptx/matrix.hpp). Each is
/// executed by the whole warp at once, and only by a whole warp: a 32-thread warp with all
/// 32 lanes active and their guard true (the ISA's `.sync.aligned`; anything else faults).
/// wmma.load / wmma.store move every element of each lane's fragment through the lane's
/// address (the ISA requires the same address and stride in every lane), checked as ld / st
/// are (bounds, the fragment alignment of the address and of the stride); the timing model
/// sees one 16-byte access per lane covering the tile's footprint (ptx::matrix_timing_offset).

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/ptx/integer_ops.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace warpkit::func {

/// Executes matrix instructions on the warps of a ptx_source, whose friend it is.
struct ptx_matrix_execution {
    /// Executes matrix instruction `p` for the lanes `exec` of the warp in `slot` of `src`,
    /// filling the timing model's view of it in `d`.
    template <class Source, class Mask, class Dynamic>
    static void execute(Source& src, std::uint32_t slot, const ptx::prepared_inst& p, Mask exec,
                        Dynamic& d) {
        if (exec.none()) return;
        if (Source::warp_size != 32 || exec.count() != 32)
            src.fault_(src.cur_pc_, std::string(ptx::name(p.in.opcode)) +
                                        " needs all 32 lanes of a 32-thread warp; " +
                                        std::to_string(exec.count()) + " lanes executed it");
        if (p.in.opcode == ptx::op::wmma_mma || p.in.opcode == ptx::op::mma) {
            ptx::multiply_accumulate(
                p.in, [&](std::uint32_t r, unsigned lane) { return src.row_(slot, r).get(lane); },
                [&](std::uint32_t r, unsigned lane, std::uint64_t bits) {
                    src.put_(slot, r, lane, bits, ptx::type::b32);
                });
            return;
        }
        move(src, slot, p, exec, d);
    }

private:
    // wmma.load / wmma.store: every lane's fragment, element by element.
    template <class Source, class Mask, class Dynamic>
    static void move(Source& src, std::uint32_t slot, const ptx::prepared_inst& p, Mask exec,
                     Dynamic& d) {
        const ptx::instruction& in = p.in;
        const bool load = in.opcode == ptx::op::wmma_load;
        std::uint64_t stride = 0;
        if (p.num_src > 0) stride = src.read_(slot, p.src[0], exec.first()) & 0xffffffffU;
        const ptx::matrix_memory mem = ptx::matrix_memory_of(in, p.num_src > 0 ? &stride : nullptr);
        const ptx::operand& fragment = in.operands[load ? 0 : 1];
        const bool generic = p.addr.sp == ptx::space::generic;
        if (generic) ++src.st_.generic_accesses;
        const unsigned per = 4 / mem.element_bytes;
        const auto locate = [&](std::uint64_t a) {
            return generic ? ptx::decode_generic(a) : ptx::space_address{p.addr.sp, a};
        };
        for (const std::size_t l : exec) {
            const std::uint64_t base = src.address_(slot, p, l);
            if (base % mem.fragment_bytes != 0 ||
                mem.stride * mem.element_bytes % mem.fragment_bytes != 0)
                src.fault_(src.cur_pc_, std::string(ptx::name(in.opcode)) + " at " +
                                            src.hex_(base) + " with a stride of " +
                                            std::to_string(mem.stride) +
                                            " elements: each row or column must start aligned "
                                            "to the fragment's " +
                                            std::to_string(mem.fragment_bytes) + " bytes");
            const auto lane = static_cast<unsigned>(l);
            for (unsigned r = 0; r < mem.registers; ++r) {
                const std::uint32_t reg = fragment.elements[r];
                std::uint64_t bits = load || reg == ptx::no_index ? 0 : src.row_(slot, reg).get(l);
                for (unsigned h = 0; h < per; ++h) {
                    const auto at = locate(base + ptx::fragment_offset(in, mem, lane, r * per + h));
                    if (at.sp == ptx::space::global && src.mem_->bounds_checked())
                        src.check_bounds_(at.addr, mem.element_bytes, l);
                    const unsigned shift = 16 * h;
                    if (load)
                        bits |= src.load_(slot, at, l, mem.element_bytes) << shift;
                    else
                        src.store_(slot, at, l, mem.element_bytes,
                                   (bits >> shift) & ptx::low_mask(8 * mem.element_bytes));
                }
                if (load) src.put_(slot, reg, l, bits, ptx::type::b32);
            }
            const auto timed = locate(base + ptx::matrix_timing_offset(mem, lane));
            d.addr[l] = src.timing_address_(slot, timed, l, ptx::matrix_lane_access_bytes);
            if (generic && l == exec.first()) src.report_generic_space_(timed.sp, d);
        }
    }
};

} // namespace warpkit::func
