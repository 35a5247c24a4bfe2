#pragma once
/// \file
/// AMOEBA's SM fusion (paper 002, Sec. 4.2, Fig. 9): two neighbouring scale-out SMs become one
/// scale-up SM. `fuse_sm_pairs` turns a scale-out GPU's params into the fused GPU's; `fused<P>`
/// turns its Policies into the fused SM's (warps of twice the width, same parts).
///
/// What fusion does, field by field (the paper's words in quotes):
/// - "only one warp scheduler is kept, and it schedules all warps on both the SMs": the fused
///   SM has the scale-out SM's schedulers and issue width; each of its warps has twice the
///   threads ("since the warp size is doubled"), so it holds both SMs' threads in the same
///   number of warp slots, and both SMs' CTA slots.
/// - "Selected warps are then sent to the datapath of both SM0 and SM1": the SP, SFU and LD/ST
///   clusters have twice the lanes, so a warp of twice the width passes in the same cycles.
/// - register files "are not fused but can be accessed independently": registers add up; the
///   shared memories are fused (bytes and banks add up, a warp meets the banks together).
/// - "We fuse L1 caches by increasing the cache associativity ... one extra cycle in L1 cache
///   access": L1 data and constant caches keep their sets and double their ways, their hit
///   latency grows by `extra_l1_cycles` (1); the MSHRs, miss queues, pending request table and
///   atomic queue of both SMs serve the fused SM.
/// - "Each fused SM has one copy of the coalescing unit ... fusing the two coalescing units":
///   the coalescer sees the whole warp of twice the width (the Policies' coalescer at the new
///   width), so the accesses of both halves coalesce together.
/// - "AMOEBA combines the NoC routers of the two SMs into one by disabling one SM's router":
///   on a mesh, fused SM j sits at the node of scale-out SM 2j, and the routers of the odd
///   columns are bypassed (each served by its west neighbour; bypass_columns), which halves
///   the routers. SM 2j and 2j+1 must be horizontal neighbours, as on paper 002's mesh.

#include <warpkit/core/error.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/memory_params.hpp>
#include <warpkit/noc/mesh_params.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/selectable_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::gpu {

/// Extra L1 hit cycles of a fused SM (paper 002 Sec. 4.2: "conservatively added one").
inline constexpr std::uint32_t fused_l1_extra_cycles = 1;

namespace detail {
template <class Stack, std::size_t W>
struct widen_stack;
template <std::size_t N, std::size_t W>
struct widen_stack<simt::pdom_stack<N>, W> {
    using type = simt::pdom_stack<W>;
};
template <std::size_t N, std::size_t W>
struct widen_stack<simt::ssy_stack<N>, W> {
    using type = simt::ssy_stack<W>;
};
template <std::size_t N, std::size_t W>
struct widen_stack<simt::selectable_stack<N>, W> {
    using type = simt::selectable_stack<W>;
};

inline void fuse_cache(mem::cache_controller_params& c) {
    c.cache.ways *= 2;
    c.mshr.entries *= 2;
    c.miss_queue *= 2;
}
} // namespace detail

/// The Policies of a fused SM built from scale-out Policies `P`: warps of twice the width
/// with the same scheduler, gating policy and coalescer, and `P`'s SIMT stack widened.
template <class P>
struct fused {
    static_assert(2 * P::warp_size <= 64, "a fused SM's warp is at most 64 threads");
    static constexpr std::size_t warp_size = 2 * P::warp_size;
    using stack = typename detail::widen_stack<typename P::stack, warp_size>::type;
    using scheduler = typename P::scheduler;
    using gating_policy = typename P::gating_policy;
    using coalescer = typename P::coalescer;
    using scale_out = P;
};

/// The mesh of a fused GPU: nodes of the scale-out SMs `2j` host fused SM j and the routers of
/// the odd columns are bypassed. `scale_out_nodes[i]` is scale-out SM i's node. Throws
/// config_error when SM 2j+1 is not the east neighbour of SM 2j's column pair.
[[nodiscard]] inline std::vector<std::uint32_t>
fused_sm_nodes(const noc::mesh_params& mesh, const std::vector<std::uint32_t>& scale_out_nodes) {
    std::vector<std::uint32_t> out;
    for (std::size_t j = 0; j + 1 < scale_out_nodes.size(); j += 2) {
        const std::uint32_t a = scale_out_nodes[j];
        const std::uint32_t b = scale_out_nodes[j + 1];
        const bool neighbours = a / mesh.cols == b / mesh.cols && b == a + 1;
        if (!neighbours)
            throw config_error("sms", std::to_string(scale_out_nodes.size()),
                               "SMs in horizontally adjacent pairs on the mesh (SM " +
                                   std::to_string(j) + " at node " + std::to_string(a) + ", SM " +
                                   std::to_string(j + 1) + " at node " + std::to_string(b) + ")");
        out.push_back(a);
    }
    return out;
}

/// Params of the GPU whose SMs are `scale_out`'s SMs fused in neighbouring pairs (paper 002
/// Sec. 4.2; see the file comment for each field). Throws config_error for an odd SM count,
/// lanes or banks that cannot double, or (mesh) SM pairs that are not neighbours.
[[nodiscard]] inline gpu_params fuse_sm_pairs(gpu_params p) {
    validate(p);
    check(p.sms % 2 == 0, "sms", p.sms, "an even number (SMs fuse in pairs)");
    check(p.cluster_size == 1, "cluster_size", p.cluster_size,
          "1 (front-end sharing clusters do not fuse)");
    auto& u = p.sm.units;
    check(u.sp_lanes <= 16 && u.sfu_lanes <= 16 && u.ldst_lanes <= 16, "sm.units.sp_lanes",
          u.sp_lanes, "<= 16 (sp, sfu and ldst lanes double when SMs fuse)");
    check(p.sm.banks.banks <= 32, "sm.banks.banks", p.sm.banks.banks,
          "<= 32 (the banks double when SMs fuse)");
    check(p.sm.block_slots <= 32, "sm.block_slots", p.sm.block_slots,
          "<= 32 (the CTA slots double when SMs fuse)");
    // Where the mesh puts the scale-out SMs, before the count changes.
    std::vector<std::uint32_t> nodes;
    const bool mesh =
        p.memory.model == memory_model::hierarchy && p.memory.noc.model == network_model::mesh;
    if (mesh) nodes = sm_nodes_of(p.memory, p.sms);

    p.name += "_fused";
    p.sms /= 2;
    p.registers *= 2;
    p.shared_bytes *= 2;
    p.sm.block_slots *= 2;
    u.sp_lanes *= 2;
    u.sfu_lanes *= 2;
    u.ldst_lanes *= 2;
    p.sm.banks.banks *= 2;
    p.sm.bank_group_lanes *= 2;

    auto& l1 = p.memory.l1;
    detail::fuse_cache(l1.data);
    detail::fuse_cache(l1.constant);
    detail::fuse_cache(l1.texture);
    l1.data_latency += fused_l1_extra_cycles;
    l1.constant_latency += fused_l1_extra_cycles;
    l1.texture_latency += fused_l1_extra_cycles;
    l1.prt.entries *= 2;
    l1.atomic_queue *= 2;

    if (mesh) {
        auto& net = p.memory.noc;
        std::vector<std::uint32_t> odd;
        for (std::uint32_t x = 1; x < net.mesh.cols; x += 2)
            odd.push_back(x);
        net.sm_nodes = fused_sm_nodes(net.mesh, nodes);
        net.mesh = noc::bypass_columns(net.mesh, odd);
    }
    validate(p);
    return p;
}

} // namespace warpkit::gpu
