#pragma once
/// \file
/// The seam between functional and timing simulation: `static_inst` (what the decoder
/// knows) and `dynamic_inst` (what one execution of it by one warp did). Every instruction
/// source (the warpkit-ISA executor, the PTX executor, trace readers, synthetic generators)
/// produces these; timing models consume them and never call functional code.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace warpkit::isa {

/// Memory a load, store or atomic touches.
enum class mem_space : std::uint8_t { none, shared, global, constant, local, param, texture };
/// Kind of memory access.
enum class mem_op : std::uint8_t { none, load, store, atomic };

/// A register name in a timing model: an index into one warp's register file (predicates of
/// other ISAs are registers too).
using reg_id = std::uint16_t;

/// Decoded facts about an instruction that the front end, scoreboard and schedulers need.
struct static_inst {
    // PTX needs the most: ld.v4 writes four registers; st.v4 reads an address, four values
    // and a guard predicate.
    static constexpr std::size_t max_dst = 4;
    static constexpr std::size_t max_src = 6;

    std::uint16_t opcode = 0; ///< source-specific opcode number (isa::opcode for warpkit ISA)
    unit_class unit = unit_class::ctrl;
    latency_class latency = latency_class::none;
    std::uint8_t num_dst = 0;
    std::uint8_t num_src = 0;
    std::array<reg_id, max_dst> dst{};
    std::array<reg_id, max_src> src{};
    mem_space space = mem_space::none;
    mem_op mop = mem_op::none;
    std::uint8_t access_bytes = 0; ///< bytes per lane of a memory access
    bool is_branch = false;        ///< may change the pc other than to pc + 1 (BEQ, BNE)
    bool is_barrier = false;
    bool is_exit = false;
};

/// One execution of an instruction by one warp.
template <std::size_t WarpSize = 32>
struct dynamic_inst {
    static_inst si;
    std::uint32_t warp = 0;                     ///< warp slot in its SM
    std::uint32_t pc = 0;                       ///< instruction index
    lane_mask<WarpSize> active;                 ///< lanes that executed it
    std::uint64_t seq = 0;                      ///< per-warp dynamic instruction number
    std::array<std::uint64_t, WarpSize> addr{}; ///< byte address per active lane (memory ops)
};

} // namespace warpkit::isa
