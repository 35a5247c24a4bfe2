#pragma once
/// \file
/// `issue_port`: what the issue stage (and a sharing slave's command execution) asks of the
/// rest of an SM, as a narrow interface passed to it each cycle: whether a warp waits at a
/// barrier, an instruction's register hazards, whether the LD/ST path or an instruction's unit
/// of a warp's half (and sub-core) can take it now, and the two actions: replay a conflicting
/// shared access, execute an instruction (operand read and dispatch to its unit).

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <concepts>
#include <cstdint>

namespace warpkit::gpu::stages {

/// The SM as its issue stage sees it (s: a warp slot, whose sub-core's units answer; h: the
/// half of a split SM, 0 while fused).
template <class P>
concept issue_port = requires(P& p, const P& cp, std::uint32_t s, std::uint32_t h,
                              const isa::static_inst& si) {
    { cp.at_barrier(s) } -> std::same_as<bool>;
    { cp.hazard(s, si) } -> std::same_as<issue::hazard>;
    { cp.ldst_free(s, h) } -> std::same_as<bool>;
    { cp.unit_free(s, si, h) } -> std::same_as<bool>;
    p.replay(s);
    p.execute(s, si);
};

} // namespace warpkit::gpu::stages
