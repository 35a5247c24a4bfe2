#pragma once
// warpkit-fs: the energy of a front-end sharing run through the power model (paper 001) and
// examples/power/gpu_activity.hpp's counter mapping, as paper 000 Sections III-IV count it:
// - a slave's fetch, decode, schedulers and I-cache are power-gated while its cluster is
//   grouped: the instructions it took from InstPackets were neither decoded nor scheduled
//   there, and those components leak nothing during the grouped cycles;
// - the overheads: the cluster network (bits x wire length x 50 fJ/bit/mm), the enhanced
//   scoreboard (the scoreboard's power scaled by added over original bits, Section III.B),
//   and the longer run time (every component's leakage and idle power, for more cycles).
// The power model prices scoreboard and warp selection together as `scheduler`; paper 000
// gives no split, so `scoreboard_share` of the scheduler's energy is taken as the
// scoreboard's (a parameter of the study).

#include "../power/gpu_activity.hpp"

#include <warpkit/core/params.hpp>
#include <warpkit/gpu/cluster_member.hpp>
#include <warpkit/gpu/sm_counters.hpp>
#include <warpkit/issue/cluster_scoreboard.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/model.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace example::fs {

namespace wp = warpkit::power;
namespace rc = warpkit::reconfig;

/// Numbers of the study's energy accounting.
struct energy_params {
    double scoreboard_share = 0.5; ///< of the scheduler component's power
    mapping_params mapping{};      ///< SM counters -> power-model activity
    wp::model_params model{};      ///< GTX480-class defaults (paper 001)
};

/// What one SM counted in a run.
struct sm_record {
    wp::sm_activity activity;               ///< mapped by gpu_activity.hpp
    warpkit::gpu::sm_sharing_stats sharing; ///< its part in a sharing cluster
};

/// Energy of a run (J). front_end includes the sharing overheads.
struct run_energy {
    double total = 0;
    double front_end = 0;  ///< fetch/decode + I-cache + schedulers, + link + scoreboard
    double link = 0;       ///< cluster network wires
    double scoreboard = 0; ///< enhanced-scoreboard ack bits
    run_energy& operator+=(const run_energy& o) {
        total += o.total;
        front_end += o.front_end;
        link += o.link;
        scoreboard += o.scoreboard;
        return *this;
    }
};

/// The record of an SM from its counters after a run.
inline sm_record record(const warpkit::gpu::sm_counters& sm, const mapping_params& m) {
    return {detail::map_sm(sm, m), sm.sharing};
}
/// The record of SM `sm` after a run.
template <class Sm>
requires(!std::same_as<Sm, warpkit::gpu::sm_counters>) sm_record record(const Sm& sm,
                                                                         const mapping_params& m) {
    return record(warpkit::gpu::counters_of(sm), m);
}

/// Ack bits the enhanced scoreboard adds per original bit in a cluster of `members`.
inline double scoreboard_bit_ratio(std::uint32_t members) {
    const auto ratio = [](auto sb) {
        const auto bits = sb.storage_bits();
        return static_cast<double>(bits.added) / static_cast<double>(bits.base);
    };
    switch (members) {
    case 2:
        return ratio(warpkit::issue::cluster_scoreboard<2>{});
    case 3:
        return ratio(warpkit::issue::cluster_scoreboard<3>{});
    case 4:
        return ratio(warpkit::issue::cluster_scoreboard<4>{});
    default:
        return 0.0;
    }
}

/// Energy of one kernel run of `cycles` core cycles whose SMs counted `sms`, in clusters of
/// `members` whose controllers counted `clusters` (members 1: no sharing).
inline run_energy energy(const std::vector<sm_record>& sms, std::uint64_t cycles,
                         const rc::front_end_sharing_stats& clusters,
                         const rc::front_end_sharing_params& sharing, std::uint32_t members,
                         const energy_params& ep) {
    using wp::component;
    wp::activity a;
    a.cycles = cycles;
    std::uint64_t shared_insts = 0; // executed by slaves, scheduled by their masters
    double master_sched_accesses = 0;
    std::uint64_t master_grouped = 0;
    for (const auto& r : sms) {
        wp::sm_activity s = r.activity;
        s.decoded -= std::min(s.decoded, r.sharing.cluster_executed);
        for (component c : {component::front_end, component::icache, component::scheduler})
            s.leakage_off_cycles[wp::index(c)] += r.sharing.front_end_gated_cycles;
        shared_insts += r.sharing.cluster_executed;
        master_sched_accesses += static_cast<double>(r.sharing.cluster_issued);
        // A master is grouped without its front-end gated; a slave's is gated while grouped.
        if (r.sharing.front_end_gated_cycles == 0) master_grouped += r.sharing.grouped_cycles;
        a.sms.push_back(s);
    }
    a.chip = detail::map_chip(a, ep.mapping);
    const wp::model model(ep.model);
    const auto b = model.evaluate(a);
    const double t = b.seconds;
    const double e_sched = model.energy_per_access_j(component::scheduler);
    // The power model charges the scheduler per issued instruction: a slave's were issued
    // by its master's schedulers.
    const double not_scheduled = static_cast<double>(shared_insts) * e_sched;

    run_energy e;
    for (component c : {component::front_end, component::icache, component::scheduler})
        e.front_end += b.component_w(c) * t;
    e.front_end -= not_scheduled;
    e.total = b.total_w() * t - not_scheduled;
    e.link = rc::link_energy_pj(sharing, clusters) * 1e-12;
    if (members > 1) {
        const double ratio = scoreboard_bit_ratio(members);
        const double sched_leak_j = ep.model.scheduler.leakage_w *
                                    static_cast<double>(master_grouped) /
                                    (ep.model.nominal_mhz * 1e6);
        e.scoreboard =
            ep.scoreboard_share * ratio * (master_sched_accesses * e_sched + sched_leak_j);
    }
    e.front_end += e.link + e.scoreboard;
    e.total += e.link + e.scoreboard;
    return e;
}

} // namespace example::fs
