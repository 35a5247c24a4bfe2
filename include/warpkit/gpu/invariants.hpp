#pragma once
/// \file
/// Conservation identities of a finished run, checked from its counters: nothing the GPU
/// moves (NoC packets and flits, memory requests and replies, MSHR entries, PRT entries,
/// blocks, warps, instructions) is lost or duplicated, and energy accounts add up.
///
///   check_run(run_stats, expectation)  blocks dispatched == retired == completed (== launched),
///                                      per SM: cycles, issued_by_unit, requests == replies,
///                                      PRT and L1 / constant MSHR balance; the network's
///                                      request and reply classes injected == ejected and
///                                      equal to what the SMs and L2 slices sent and took;
///                                      per L2 slice requests == lookups == replies, MSHR
///                                      balance; per DRAM channel L2 fetches == read
///                                      requests, commands >= requests
///   check_sm(sm)                       an SM after its run: every instruction its execution
///                                      units accepted left them once, and they accepted each
///                                      issued datapath instruction (and replay) once
///   check_network(network_stats)       a drained network: per-node and total packets and
///                                      flits in == out, no flit out of order
///   check_energy(energy_account)       finite, non-negative energies; SM energies add up to
///                                      the per-SM components; Fig. 12 groups add up
///
/// Each returns an invariant_report (the identities checked, the ones broken); `require`
/// throws sim_error naming the broken ones. Counters that only some builds have (warps started
/// and finished, instructions retired) are checked when sm_stats has them.

#include <warpkit/core/error.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/gpu/cta_dispatcher.hpp>
#include <warpkit/gpu/memory_stats.hpp>
#include <warpkit/noc/network_stats.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/report.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::gpu {

/// The identities a check looked at and the ones that did not hold.
class invariant_report {
public:
    /// Records identity `name`: `left` must equal `right`.
    void equal(std::string_view name, std::uint64_t left, std::uint64_t right) {
        ++checked_;
        if (left != right)
            failures_.push_back(std::string(name) + ": " + std::to_string(left) +
                                " != " + std::to_string(right));
    }
    /// Records condition `name`; `detail` says what was seen when it fails.
    void holds(std::string_view name, bool ok, std::string_view detail = {}) {
        ++checked_;
        if (!ok)
            failures_.push_back(std::string(name) + (detail.empty() ? "" : ": ") +
                                std::string(detail));
    }
    /// Records that `left` and `right` agree to a relative tolerance `rel`.
    void close(std::string_view name, double left, double right, double rel = 1e-9) {
        const double scale = std::max({std::fabs(left), std::fabs(right), 1e-300});
        holds(name, std::fabs(left - right) <= rel * scale,
              std::to_string(left) + " vs " + std::to_string(right));
    }
    /// Adds the identities of `other`, their names prefixed by `prefix`.
    void merge(const invariant_report& other, std::string_view prefix = {}) {
        checked_ += other.checked_;
        for (const auto& f : other.failures_)
            failures_.push_back(std::string(prefix) + f);
    }

    [[nodiscard]] bool ok() const noexcept { return failures_.empty(); }
    [[nodiscard]] std::size_t checked() const noexcept { return checked_; }
    [[nodiscard]] const std::vector<std::string>& failures() const noexcept { return failures_; }
    /// One line per broken identity (empty when all hold).
    [[nodiscard]] std::string describe() const {
        std::string s;
        for (const auto& f : failures_)
            s += f + "\n";
        return s;
    }

private:
    std::size_t checked_ = 0;
    std::vector<std::string> failures_;
};

/// Throws sim_error listing the broken identities of `r` (prefixed by `what`) unless all hold.
inline void require(const invariant_report& r, std::string_view what) {
    if (r.ok()) return;
    throw sim_error(std::string(what) + ": " + std::to_string(r.failures().size()) + " of " +
                    std::to_string(r.checked()) + " invariants broken\n" + r.describe());
}

/// What the run was given, for the identities that need it (0: not known, not checked).
struct run_expectation {
    std::uint64_t blocks = 0; ///< blocks the kernel launched
    std::uint32_t sms = 0;    ///< SMs of the GPU
};

namespace detail {

inline std::string indexed(std::string_view what, std::size_t i, std::string_view field) {
    return std::string(what) + "[" + std::to_string(i) + "]." + std::string(field);
}

// Every L1-side cache with MSHRs: entries filled and requests handed back once each.
inline void check_cache(invariant_report& r, const std::string& name,
                        const cache_controller_stats& c) {
    r.equal(name + ".mshr.fills == allocations", c.mshr.fills, c.mshr.allocations);
    r.equal(name + ".mshr.released == allocations + merges", c.mshr.released,
            c.mshr.allocations + c.mshr.merges);
}

inline void check_class(invariant_report& r, std::string_view name, const noc_class_stats& c) {
    const std::string n(name);
    r.equal(n + ".packets_ejected == packets_injected", c.packets_ejected, c.packets_injected);
    r.equal(n + ".flits_ejected == flits_injected", c.flits_ejected, c.flits_injected);
    r.holds(n + ".flits >= packets", c.flits_injected >= c.packets_injected,
            std::to_string(c.flits_injected) + " flits, " + std::to_string(c.packets_injected) +
                " packets");
}

} // namespace detail

/// The identities of a drained memory hierarchy (`m.sms` filled: the run's memory_stats).
[[nodiscard]] inline invariant_report check_memory(const memory_stats& m) {
    invariant_report r;
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
    for (std::size_t i = 0; i < m.sms.size(); ++i) {
        const auto& s = m.sms[i];
        const std::uint64_t out =
            s.reads_sent + s.const_reads_sent + s.tex_reads_sent + s.writes_sent + s.atomics_sent;
        sent += out;
        received += s.replies_received;
        r.equal(detail::indexed("sm", i, "replies_received == requests sent"), s.replies_received,
                out);
        r.equal(detail::indexed("sm", i, "prt.warps_satisfied == entries_written"),
                s.prt.warps_satisfied, s.prt.entries_written);
        r.equal(detail::indexed("sm", i, "prt.replies == requests_sent"), s.prt.replies,
                s.prt.requests_sent);
        detail::check_cache(r, detail::indexed("sm", i, "l1d"), s.l1d);
        detail::check_cache(r, detail::indexed("sm", i, "constant"), s.constant);
        detail::check_cache(r, detail::indexed("sm", i, "texture"), s.texture);
    }
    detail::check_class(r, "noc.request", m.noc.request);
    detail::check_class(r, "noc.reply", m.noc.reply);
    std::uint64_t slice_requests = 0;
    std::uint64_t slice_replies = 0;
    for (std::size_t i = 0; i < m.slices.size(); ++i) {
        const auto& s = m.slices[i];
        slice_requests += s.requests;
        slice_replies += s.replies;
        r.equal(detail::indexed("l2", i, "reads + writes + atomics == requests"),
                s.reads + s.writes + s.atomics, s.requests);
        r.equal(detail::indexed("l2", i, "replies == requests"), s.replies, s.requests);
        detail::check_cache(r, detail::indexed("l2", i, "cache"), s.cache);
    }
    if (!m.sms.empty()) {
        r.equal("noc.request.packets_injected == requests the SMs sent",
                m.noc.request.packets_injected, sent);
        r.equal("noc.reply.packets_ejected == replies the SMs received",
                m.noc.reply.packets_ejected, received);
    }
    if (!m.slices.empty()) {
        r.equal("noc.request.packets_ejected == requests the L2 slices took",
                m.noc.request.packets_ejected, slice_requests);
        r.equal("noc.reply.packets_injected == replies the L2 slices sent",
                m.noc.reply.packets_injected, slice_replies);
    }
    // A channel serves the slices next to each other in slices (slices / channels each).
    if (!m.channels.empty() && m.slices.size() % m.channels.size() == 0) {
        const std::size_t per = m.slices.size() / m.channels.size();
        for (std::size_t c = 0; c < m.channels.size(); ++c) {
            std::uint64_t reads = 0;
            std::uint64_t writes = 0;
            for (std::size_t k = 0; k < per; ++k) {
                reads += m.slices[c * per + k].dram_reads;
                writes += m.slices[c * per + k].dram_writes;
            }
            const auto& d = m.channels[c];
            r.equal(detail::indexed("dram", c, "read_requests == its slices' dram_reads"),
                    d.read_requests, reads);
            r.equal(detail::indexed("dram", c, "write_requests == its slices' dram_writes"),
                    d.write_requests, writes);
            r.equal(detail::indexed("dram", c, "row hits + misses + conflicts == requests"),
                    d.row_hits + d.row_misses + d.row_conflicts,
                    d.read_requests + d.write_requests);
            // Every request is one burst or more: a read or write command each.
            r.holds(detail::indexed("dram", c, "read commands >= read requests"),
                    d.reads >= d.read_requests,
                    std::to_string(d.reads) + " < " + std::to_string(d.read_requests));
            r.holds(detail::indexed("dram", c, "write commands >= write requests"),
                    d.writes >= d.write_requests,
                    std::to_string(d.writes) + " < " + std::to_string(d.write_requests));
        }
    }
    return r;
}

/// The identities of a finished run (a gpu::run_stats or anything with its members).
template <class RunStats>
[[nodiscard]] invariant_report check_run(const RunStats& rs, const run_expectation& e = {}) {
    invariant_report r;
    if (e.sms != 0) r.equal("per_sm.size() == sms", rs.per_sm.size(), e.sms);
    std::uint64_t blocks = 0;
    std::uint64_t insts = 0;
    for (std::size_t i = 0; i < rs.per_sm.size(); ++i) {
        const auto& s = rs.per_sm[i];
        blocks += s.blocks_completed;
        insts += s.warp_instructions;
        r.equal(detail::indexed("sm", i, "cycles == run cycles"), s.cycles, rs.cycles);
        r.holds(detail::indexed("sm", i, "active_cycles <= cycles"), s.active_cycles <= s.cycles);
        std::uint64_t by_unit = 0;
        for (const auto n : s.issued_by_unit)
            by_unit += n;
        r.equal(detail::indexed("sm", i, "issued_by_unit summed == warp_instructions"), by_unit,
                s.warp_instructions);
        r.holds(detail::indexed("sm", i, "thread_instructions <= 64 x warp_instructions"),
                s.thread_instructions <= 64 * s.warp_instructions);
        if constexpr (requires { s.warps_started + s.warps_finished; })
            r.equal(detail::indexed("sm", i, "warps_finished == warps_started"), s.warps_finished,
                    s.warps_started);
        if constexpr (requires { s.instructions_retired; })
            r.equal(detail::indexed("sm", i, "instructions_retired == warp_instructions"),
                    s.instructions_retired, s.warp_instructions);
    }
    r.equal("total.blocks_completed == blocks completed per SM", rs.total.blocks_completed, blocks);
    r.equal("total.warp_instructions == per SM", rs.total.warp_instructions, insts);
    r.equal("dispatch.blocks_retired == blocks_dispatched", rs.dispatch.blocks_retired,
            rs.dispatch.blocks_dispatched);
    r.equal("total.blocks_completed == dispatch.blocks_retired", rs.total.blocks_completed,
            rs.dispatch.blocks_retired);
    if (e.blocks != 0)
        r.equal("dispatch.blocks_dispatched == blocks launched", rs.dispatch.blocks_dispatched,
                e.blocks);
    if constexpr (requires { rs.total.request_flits; })
        if (!rs.memory.sms.empty())
            r.equal("noc.request.flits_injected == flits the SMs sent",
                    rs.memory.noc.request.flits_injected, rs.total.request_flits);
    if (!rs.memory.sms.empty() && e.sms != 0)
        r.equal("memory.sms.size() == sms", rs.memory.sms.size(), e.sms);
    r.merge(check_memory(rs.memory));
    return r;
}

/// An SM after its run (the `observe` hook of gpu::run): every instruction its execution
/// unit clusters accepted left its pipeline once, and the clusters accepted each issued INT,
/// FP, SFU and LD/ST instruction and each shared-memory replay once.
template <class Sm>
[[nodiscard]] invariant_report check_sm(const Sm& sm) {
    invariant_report r;
    const std::string name = "sm[" + std::to_string(sm.id()) + "]";
    std::uint64_t accepted = 0;
    const auto count = [&](const auto& units, const std::string& which) {
        for (std::size_t c = 0; c < units.size(); ++c) {
            const auto& p = units[c].stats().pipeline;
            accepted += p.issued;
            r.equal(name + which + "[" + std::to_string(c) + "].completed == issued", p.completed,
                    p.issued);
        }
    };
    count(sm.units(), ".unit");
    // A split SM's second half (AMOEBA) has units of its own.
    if constexpr (requires { sm.second_units(); }) count(sm.second_units(), ".second_unit");
    // INT, FP, SFU, LD/ST, DP and tensor instructions go to a unit once, shared-memory
    // replays once more; branch and control instructions take none.
    const auto& s = sm.stats();
    std::uint64_t datapath = s.shared_replays;
    for (std::size_t u = 0; u < s.issued_by_unit.size(); ++u)
        if (exec::has_datapath(static_cast<isa::unit_class>(u))) datapath += s.issued_by_unit[u];
    r.equal(name + " units' issued == INT + FP + SFU + LDST + DP + tensor issues + shared "
                   "replays",
            accepted, datapath);
    return r;
}

/// A network after every packet was ejected: packets and flits in == out, per node and in
/// total, and no flit arrived out of order.
[[nodiscard]] inline invariant_report check_network(const noc::network_stats& n) {
    invariant_report r;
    r.equal("network.packets_ejected == packets_injected", n.packets_ejected, n.packets_injected);
    r.equal("network.flits_ejected == flits_injected", n.flits_ejected, n.flits_injected);
    r.equal("network.order_errors == 0", n.order_errors, 0);
    std::uint64_t pin = 0;
    std::uint64_t pout = 0;
    std::uint64_t fin = 0;
    std::uint64_t fout = 0;
    for (const auto& node : n.nodes) {
        pin += node.packets_injected;
        pout += node.packets_ejected;
        fin += node.flits_injected;
        fout += node.flits_ejected;
    }
    if (!n.nodes.empty()) {
        r.equal("network nodes' packets_injected == packets_injected", pin, n.packets_injected);
        r.equal("network nodes' packets_ejected == packets_ejected", pout, n.packets_ejected);
        r.equal("network nodes' flits_injected == flits_injected", fin, n.flits_injected);
        r.equal("network nodes' flits_ejected == flits_ejected", fout, n.flits_ejected);
    }
    return r;
}

/// An energy account (power::energy_account): every energy finite and >= 0; total ==
/// dynamic + leakage; the SMs' dynamic + idle energy == the per-SM components' dynamic
/// energy + idle-SM energy; the SMs' leakage == the per-SM components' leakage; the Fig. 12
/// groups == dynamic energy without the gating overhead. `rel`: relative tolerance.
[[nodiscard]] inline invariant_report check_energy(const power::energy_account& e,
                                                   double rel = 1e-9) {
    invariant_report r;
    const auto finite = [&](std::string_view name, double v) {
        r.holds(std::string("energy.") + std::string(name) + " finite and >= 0",
                std::isfinite(v) && v >= 0, std::to_string(v));
    };
    finite("seconds", e.seconds());
    finite("total_j", e.total_j());
    finite("idle_sm_j", e.idle_sm_j());
    finite("gating_overhead_j", e.gating_overhead_j());
    double sm_components_dyn = 0;
    double sm_components_leak = 0;
    for (std::size_t i = 0; i < power::component_count; ++i) {
        const auto c = power::component_at(i);
        finite(power::name(c), e.dynamic_j(c));
        finite(power::name(c), e.leakage_j(c));
        if (power::per_sm(c)) {
            sm_components_dyn += e.dynamic_j(c);
            sm_components_leak += e.leakage_j(c);
        }
    }
    r.close("energy.total_j == dynamic + leakage", e.total_j(),
            e.dynamic_total_j() + e.leakage_total_j(), rel);
    if (!e.sms().empty()) {
        double sm_dyn = 0;
        double sm_leak = 0;
        for (const auto& s : e.sms()) {
            sm_dyn += s.dynamic_j + s.idle_j;
            sm_leak += s.leakage_j;
        }
        r.close("energy: SMs' dynamic + idle == per-SM components + idle SMs", sm_dyn,
                sm_components_dyn + e.idle_sm_j(), rel);
        r.close("energy: SMs' leakage == per-SM components' leakage", sm_leak, sm_components_leak,
                rel);
    }
    double groups = 0;
    for (const double g : e.figure12_j())
        groups += g;
    r.close("energy: Fig. 12 groups == dynamic - gating overhead", groups,
            e.dynamic_total_j() - e.gating_overhead_j(), rel);
    return r;
}

} // namespace warpkit::gpu
