#pragma once
/// \file
/// `gpu::sm_counters`: everything an SM has counted, as a plain value with no template
/// parameter, so code that is not built for one SM type (a power model's mapping, a host
/// runtime's sampler, a study) can read any preset's SMs: the SM's own counters, its memory
/// side's, each execution cluster's and gating controller's, and its front-end sharing part's.

#include <warpkit/exec/unit_cluster.hpp>
#include <warpkit/gating/stats.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/gpu/sm.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <cstdint>
#include <vector>

namespace warpkit::gpu {

/// The counters of one execution cluster.
struct cluster_counters {
    isa::unit_class kind = isa::unit_class::int_alu;
    /// True for the clusters of a split SM's second half (AMOEBA): the same hardware as the
    /// fused SM's clusters, counted apart.
    bool second_half = false;
    exec::cluster_stats stats{};
};

/// The counters of one SM, copied out of it.
struct sm_counters {
    std::uint32_t id = 0;
    sm_stats stats{};
    sm_memory_stats memory{};        ///< zero with the ideal memory
    std::vector<cluster_counters> clusters; ///< units() in order, then second_units()
    /// Gating controllers of the INT clusters then the FP clusters (sm::gates() order).
    std::vector<gating::stats> gates;
    sm_sharing_stats sharing{}; ///< its part in a front-end sharing cluster (zero alone)
};

/// Copies the counters out of `sm` (any gpu::sm<...>).
template <class Sm>
[[nodiscard]] sm_counters counters_of(const Sm& sm) {
    sm_counters c;
    c.id = sm.id();
    c.stats = sm.stats();
    c.memory = sm.memory_stats();
    const auto add = [&](const auto& units, bool second) {
        for (std::size_t i = 0; i < units.size(); ++i)
            c.clusters.push_back({units[i].kind(), second, units[i].stats()});
    };
    add(sm.units(), false);
    if constexpr (requires { sm.second_units(); }) add(sm.second_units(), true);
    if constexpr (requires { sm.gates(); }) {
        c.gates.reserve(sm.gates().size());
        for (const auto& g : sm.gates())
            c.gates.push_back(g.stats());
    }
    if constexpr (requires { sm.cluster().stats(); }) c.sharing = sm.cluster().stats();
    return c;
}

} // namespace warpkit::gpu
