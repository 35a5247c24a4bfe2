#pragma once
/// \file
/// Functional (untimed) execution of a whole PTX launch: every block in order, its warps
/// interleaved in turns of a few instructions, barriers honoured, with a watchdog and a
/// deadlock report. It executes through func::ptx_source, the source the timed GPUs use, so
/// the results of a timed run must equal it for any race-free kernel.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/load_globals.hpp>
#include <warpkit/func/ptx_source.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/selectable_stack.hpp>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace warpkit::func {

/// Options of a functional run.
struct ptx_functional_params {
    /// Watchdog: a run executing more warp instructions than this stops with a sim_error.
    std::uint64_t max_warp_instructions = 10'000'000'000ULL;
    /// Instructions a warp executes before the next warp of its block gets a turn.
    std::uint32_t turn = 64;
    /// The kind of stack the warps start with when the run's Stack is a
    /// simt::selectable_stack (a static stack type is its own kind).
    simt::stack_kind simt_stack = simt::stack_kind::pdom;
    void validate() const {
        check_range("max_warp_instructions", max_warp_instructions, std::uint64_t{1},
                    std::uint64_t{1} << 50);
        check_range("turn", turn, 1U, 1U << 20);
    }
    WARPKIT_FIELDS(ptx_functional_params, max_warp_instructions, turn, simt_stack)
};

/// What a functional run reports as it goes: a block starts (its linear index), a warp (its
/// index in the block) executed an instruction, the block finished. The default observes
/// nothing; func/accelsim_trace_writer.hpp writes what it observes as a trace.
struct functional_observer {
    void block_started(std::uint32_t /*block*/) {}
    template <std::size_t WarpSize>
    void executed(std::uint32_t /*warp*/, const isa::dynamic_inst<WarpSize>& /*inst*/) {}
    void block_finished(std::uint32_t /*block*/) {}
};

/// Runs every block of `l` to completion on `mem`, telling `observer` what executes. Throws
/// sim_error on a kernel fault (naming the PTX line), a deadlock (live warps that can neither
/// run nor leave a barrier; the report lists every warp) or when the watchdog fires.
template <std::size_t WarpSize = 32, class Stack = simt::pdom_stack<WarpSize>,
          class Observer = functional_observer>
func::ptx_source_stats run_functional(const ptx::launch& l, func::global_memory& mem,
                                      const ptx_functional_params& p = {},
                                      Observer&& observer = Observer{}) {
    validate(p);
    const std::uint32_t warps = l.warps_per_block();
    func::ptx_source<WarpSize, Stack> src(l, mem, warps, 1, l.shared_bytes(),
                                          simt::make_stack<Stack>(p.simt_stack));
    std::vector<std::uint32_t> slots(warps);
    std::iota(slots.begin(), slots.end(), 0U);
    const auto& k = l.prepared();
    for (std::uint32_t b = 0; b < l.blocks(); ++b) {
        src.start_block(0, b, slots);
        observer.block_started(b);
        while (!src.block_finished(0)) {
            bool progressed = false;
            for (const std::uint32_t s : slots) {
                for (std::uint32_t i = 0; i < p.turn && !src.finished(s) && !src.at_barrier(s);
                     ++i) {
                    const std::uint64_t n = src.stats().warp_instructions;
                    observer.executed(s, src.execute(s, func::exec_site{0, n}));
                    progressed = true;
                    if (n + 1 > p.max_warp_instructions)
                        throw sim_error("watchdog: more than " +
                                        std::to_string(p.max_warp_instructions) +
                                        " warp instructions (kernel `" + k.name() + "`, block " +
                                        std::to_string(b) + ", warp " + std::to_string(s) + " at " +
                                        k.where(src.pc(s)) + ")");
                }
            }
            if (src.barrier_complete(0)) {
                src.release_barrier(0);
                progressed = true;
            }
            if (!progressed && !src.block_finished(0)) {
                std::string state;
                for (const std::uint32_t s : slots) {
                    state += "\n  warp " + std::to_string(s);
                    if (src.finished(s))
                        state += ": exited";
                    else
                        state += std::string(src.at_barrier(s) ? ": at barrier, " : ": ") +
                                 k.where(src.pc(s) == 0 ? 0 : src.pc(s) - 1) + " (pc " +
                                 std::to_string(src.pc(s)) + ")";
                }
                throw sim_error("deadlock in block " + std::to_string(b) + " of kernel `" +
                                k.name() + "`: warps wait at a barrier others never reach" + state);
            }
        }
        observer.block_finished(b);
    }
    return src.stats();
}

} // namespace warpkit::func
