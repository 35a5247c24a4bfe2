#pragma once
/// \file
/// Forward declarations of the SIMT reconvergence types, and the program-counter type they
/// share.

#include <cstddef>
#include <cstdint>
#include <limits>

namespace warpkit::simt {

/// An instruction address (an index into the kernel's instruction stream).
using pc_type = std::uint32_t;

/// "No pc": an unknown reconvergence point, an unset SSY register, or the pc of a finished
/// warp.
inline constexpr pc_type no_pc = std::numeric_limits<pc_type>::max();

template <std::size_t WarpSize = 32>
class pdom_stack;
template <std::size_t WarpSize = 32>
class ssy_stack;
struct stack_stats;
class post_dominator_tree;

} // namespace warpkit::simt
