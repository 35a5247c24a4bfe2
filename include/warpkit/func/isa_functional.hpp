#pragma once
/// \file
/// Functional (untimed) execution of a whole warpkit-ISA kernel: every block, every warp,
/// barriers honoured, with a watchdog. The reference that timing runs must agree with.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/isa_executor.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/selectable_stack.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::func {

/// Options of a functional run.
struct isa_functional_params {
    /// Shared memory per block when the kernel does not declare `.shared` (bytes).
    std::uint32_t default_shared_bytes = 16384;
    /// Watchdog: a run executing more warp instructions than this stops with a sim_error.
    std::uint64_t max_warp_instructions = 1'000'000'000;
    /// The kind of stack the warps start with when the run's Stack is a
    /// simt::selectable_stack (a static stack type is its own kind).
    simt::stack_kind simt_stack = simt::stack_kind::pdom;
    void validate() const {
        check_range("default_shared_bytes", default_shared_bytes, 0U, 1U << 24);
        check_range("max_warp_instructions", max_warp_instructions, std::uint64_t{1},
                    std::uint64_t{1} << 50);
    }
    WARPKIT_FIELDS(isa_functional_params, default_shared_bytes, max_warp_instructions, simt_stack)
};

/// What a functional run executed.
struct isa_functional_stats {
    std::uint64_t blocks = 0;
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
    std::array<std::uint64_t, isa::unit_class_count> by_unit{}; ///< warp instructions per class
    std::uint64_t barriers = 0;                                 ///< barrier releases
    WARPKIT_FIELDS(isa_functional_stats, blocks, warp_instructions, thread_instructions, by_unit,
                   barriers)
};

/// Writes the kernel's `.data` words to global memory from byte address 0.
inline void load_data(const isa_kernel& k, global_memory& mem) {
    mem.write(0, k.config().data);
}

/// Block `linear` of the grid as (x, y, z).
[[nodiscard]] inline isa::dim3 block_index(const isa::dim3& grid, std::uint32_t linear) noexcept {
    return {linear % grid.x, (linear / grid.x) % grid.y, linear / (grid.x * grid.y)};
}

/// Runs every block of `k` to completion, one block at a time, its warps round-robin one
/// instruction each. Throws sim_error on a kernel fault, a deadlock (live warps that can
/// neither run nor be released from a barrier) or when the watchdog fires.
template <std::size_t WarpSize = 32, class Stack = simt::pdom_stack<WarpSize>>
isa_functional_stats run_functional(const isa_kernel& k, global_memory& mem,
                                    const isa_functional_params& p = {}) {
    validate(p);
    if (k.warp_size() != WarpSize)
        throw config_error("warp_size", std::to_string(k.warp_size()), std::to_string(WarpSize));
    isa_functional_stats st;
    const std::uint32_t shared_bytes =
        k.config().shared_bytes != 0 ? k.config().shared_bytes : p.default_shared_bytes;
    warp_context<WarpSize, Stack> first;
    first.stack = simt::make_stack<Stack>(p.simt_stack);
    std::vector<warp_context<WarpSize, Stack>> warps(k.warps_per_block(), first);
    for (std::uint32_t b = 0; b < k.blocks(); ++b) {
        cta_context cta;
        cta.id = block_index(k.config().grid, b);
        cta.shared.assign((shared_bytes + 3) / 4, 0);
        for (std::uint32_t i = 0; i < warps.size(); ++i) {
            warps[i].start(i, k.threads_per_block(), k.regs_per_thread());
            if (!warps[i].finished()) ++cta.live_warps;
        }
        ++st.blocks;
        while (cta.live_warps > 0) {
            bool progressed = false;
            for (auto& w : warps) {
                if (w.finished() || w.at_barrier) continue;
                const auto d = execute(k, w, cta, mem, exec_site{0, st.warp_instructions});
                progressed = true;
                ++st.warp_instructions;
                st.thread_instructions += d.active.count();
                ++st.by_unit[isa::index(d.si.unit)];
                if (w.finished()) --cta.live_warps;
                if (st.warp_instructions > p.max_warp_instructions)
                    throw sim_error("watchdog: more than " +
                                    std::to_string(p.max_warp_instructions) +
                                    " warp instructions (block " + std::to_string(b) + ", warp " +
                                    std::to_string(w.warp_in_cta) + " at pc " +
                                    std::to_string(w.stack.pc()) + ")");
            }
            if (cta.barrier_complete()) {
                for (auto& w : warps)
                    w.at_barrier = false;
                cta.arrived = 0;
                ++st.barriers;
                progressed = true;
            }
            if (!progressed && cta.live_warps > 0) {
                std::string state;
                for (const auto& w : warps)
                    state +=
                        "\n  warp " + std::to_string(w.warp_in_cta) +
                        (w.finished() ? ": exited"
                                      : std::string(w.at_barrier ? ": at barrier, pc " : ": pc ") +
                                            std::to_string(w.stack.pc()));
                throw sim_error("deadlock in block " + std::to_string(b) + state);
            }
        }
    }
    return st;
}

} // namespace warpkit::func
