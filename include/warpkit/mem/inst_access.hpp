#pragma once
/// \file
/// Glue from the functional/timing seam (`isa::dynamic_inst`) to the coalescers: coalesce the
/// access of one executed memory instruction.

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/mem/concepts.hpp>
#include <warpkit/mem/transaction.hpp>

#include <cstddef>
#include <cstdint>

namespace warpkit::mem {

/// True when the instruction touches memory through a coalescer (a load, store or atomic to
/// global, local, constant or param space; shared memory goes through the banks instead).
template <std::size_t W>
[[nodiscard]] constexpr bool needs_coalescing(const isa::dynamic_inst<W>& inst) noexcept {
    return inst.si.mop != isa::mem_op::none && inst.si.space != isa::mem_space::none &&
           inst.si.space != isa::mem_space::shared && inst.si.access_bytes != 0;
}

/// Coalesces the per-lane addresses of `inst` (its active lanes, si.access_bytes each).
template <std::size_t W, coalescer<W> C>
constexpr void coalesce_inst(const C& c, const isa::dynamic_inst<W>& inst,
                             transaction_list<W>& out) {
    c.coalesce(inst.addr, inst.si.access_bytes, inst.active, out);
}

} // namespace warpkit::mem
