#pragma once
/// \file
/// Concepts of the memory-system area.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/mem/transaction.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::mem {

/// Turns one warp access (per-lane addresses, bytes per lane, active lanes) into transactions:
/// clears `out`, then covers every active lane's bytes by exactly one transaction; reads only
/// its inputs and never allocates.
template <class C, std::size_t W = 32>
concept coalescer = requires(const C& c, const lane_addresses<W>& addr, std::uint32_t bytes,
                             lane_mask<W> active, transaction_list<W>& out) {
    { c.coalesce(addr, bytes, active, out) } -> std::same_as<void>;
    { C::kind } -> std::convertible_to<std::string_view>;
};

} // namespace warpkit::mem
