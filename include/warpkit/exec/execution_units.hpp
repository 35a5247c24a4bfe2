#pragma once
/// \file
/// `execution_units<Payload>`: the execution clusters of one SM — an INT and an FP cluster per
/// SP, one SFU cluster and one LD/ST cluster (GTX480: SP0, SP1, 4 SFUs, 16 LD/ST units), and
/// where the SM has them a double-precision (DP) and a tensor-core cluster. An SM of sub-cores
/// (Volta onwards: four, each with its own scheduler and units) splits its SPs evenly among
/// them and gives each sub-core an SFU, an LD/ST, a DP and a tensor cluster of its own; a warp
/// issues to its sub-core's clusters only. Without DP (or tensor) clusters, FP64 (or matrix)
/// instructions run on the FP clusters with their own timing, as on GF100, whose SPs execute
/// FP64.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/exec/timing.hpp>
#include <warpkit/exec/unit_cluster.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::exec {

/// Shape of an SM's execution units; defaults are the GTX480 (Warped Gates Section 2.1).
struct units_params {
    std::uint32_t sp_count = 2;    ///< shader processors, each with an INT and an FP cluster
    std::uint32_t sp_lanes = 16;   ///< CUDA cores per SP (double-clocked)
    std::uint32_t sfu_lanes = 4;   ///< special-function units
    std::uint32_t ldst_lanes = 16; ///< load/store units
    /// Sub-cores (1: the whole SM is one; Volta, Turing and Ampere: 4). Each owns sp_count /
    /// sub_cores SPs, an SFU cluster of sfu_lanes and an LD/ST cluster of ldst_lanes.
    std::uint32_t sub_cores = 1;
    /// FP64 lanes of each sub-core's DP cluster (0: no DP units; FP64 runs on the FP
    /// clusters). Volta's 32 FP64 units per SM are 8 per sub-core.
    std::uint32_t dp_lanes = 0;
    /// Threads of a warp each sub-core's tensor cluster takes per pass (0: no tensor cores;
    /// matrix instructions run on the FP clusters). A sub-core's tensor cores work on one
    /// warp's fragments at a time: 32.
    std::uint32_t tensor_lanes = 0;
    timing_params timing{};

    void validate() const {
        check_range("sp_count", sp_count, 1u, 16u);
        check(sub_cores >= 1 && sub_cores <= 8 && sp_count % sub_cores == 0, "sub_cores",
              sub_cores, "1 to 8, a divisor of sp_count (" + std::to_string(sp_count) + ")");
        const auto divides = [](std::uint32_t l) { return l >= 1 && l <= 32 && 32 % l == 0; };
        const char* allowed = "a divisor of 32 (1, 2, 4, 8, 16, 32)";
        check(divides(sp_lanes), "sp_lanes", sp_lanes, allowed);
        check(divides(sfu_lanes), "sfu_lanes", sfu_lanes, allowed);
        check(divides(ldst_lanes), "ldst_lanes", ldst_lanes, allowed);
        const char* or_none = "0 (none) or a divisor of 32 (1, 2, 4, 8, 16, 32)";
        check(dp_lanes == 0 || divides(dp_lanes), "dp_lanes", dp_lanes, or_none);
        check(tensor_lanes == 0 || divides(tensor_lanes), "tensor_lanes", tensor_lanes, or_none);
    }
    WARPKIT_FIELDS(units_params, sp_count, sp_lanes, sfu_lanes, ldst_lanes, sub_cores, dp_lanes,
                   tensor_lanes, timing)
};

/// All execution clusters of an SM, indexed 0 .. size()-1: the INT clusters of SP0..SPn-1,
/// then their FP clusters, then the SFU cluster of each sub-core, then the LD/ST cluster of
/// each, then (where the SM has them) the DP cluster of each and the tensor cluster of each.
/// Sub-core k owns SPs k x n / sub_cores onwards. Each cluster is one gateable block;
/// `busy_mask()` reports which blocks hold work this cycle.
template <class Payload = std::uint32_t>
class execution_units {
public:
    using params_type = units_params;
    using payload_type = Payload;
    using cluster_type = unit_cluster<Payload>;

    explicit execution_units(const units_params& p = {}) : p_(validated(p)) {
        clusters_.reserve(2 * (std::size_t{p_.sp_count} + p_.sub_cores) + dp_clusters_() +
                          tensor_clusters_());
        for (std::uint32_t i = 0; i < p_.sp_count; ++i)
            clusters_.emplace_back(
                cluster_params{isa::unit_class::int_alu, p_.sp_lanes, p_.timing});
        // The FP clusters run what has no unit of its own here.
        std::uint32_t fp_also = 0;
        if (p_.dp_lanes == 0) fp_also |= 1U << isa::index(isa::unit_class::dp);
        if (p_.tensor_lanes == 0) fp_also |= 1U << isa::index(isa::unit_class::tensor);
        for (std::uint32_t i = 0; i < p_.sp_count; ++i)
            clusters_.emplace_back(
                cluster_params{isa::unit_class::fp, p_.sp_lanes, p_.timing, fp_also});
        for (std::uint32_t k = 0; k < p_.sub_cores; ++k)
            clusters_.emplace_back(cluster_params{isa::unit_class::sfu, p_.sfu_lanes, p_.timing});
        for (std::uint32_t k = 0; k < p_.sub_cores; ++k)
            clusters_.emplace_back(
                cluster_params{isa::unit_class::ldst, p_.ldst_lanes, p_.timing});
        for (std::uint32_t k = 0; k < dp_clusters_(); ++k)
            clusters_.emplace_back(cluster_params{isa::unit_class::dp, p_.dp_lanes, p_.timing});
        for (std::uint32_t k = 0; k < tensor_clusters_(); ++k)
            clusters_.emplace_back(
                cluster_params{isa::unit_class::tensor, p_.tensor_lanes, p_.timing});
        for (std::size_t o = 0; o < op_class_count; ++o)
            for (std::uint32_t k = 0; k < p_.sub_cores; ++k) {
                const auto [first, count] = clusters_of(unit_of(static_cast<op_class>(o)), k);
                ranges_[o][k] = {static_cast<std::uint8_t>(first),
                                 static_cast<std::uint8_t>(first + count)};
            }
    }

    /// Number of clusters (2 x sp_count + 2 x sub_cores, plus sub_cores for DP and for tensor
    /// units where the SM has them).
    [[nodiscard]] std::size_t size() const noexcept { return clusters_.size(); }
    /// Sub-cores (1 unless params say otherwise).
    [[nodiscard]] std::uint32_t sub_cores() const noexcept { return p_.sub_cores; }
    /// Index of SP `sp`'s INT cluster.
    [[nodiscard]] std::size_t int_cluster(std::size_t sp) const {
        WARPKIT_EXPECTS(sp < p_.sp_count);
        return sp;
    }
    /// Index of SP `sp`'s FP cluster.
    [[nodiscard]] std::size_t fp_cluster(std::size_t sp) const {
        WARPKIT_EXPECTS(sp < p_.sp_count);
        return p_.sp_count + sp;
    }
    /// Index of sub-core `k`'s SFU and LD/ST clusters.
    [[nodiscard]] std::size_t sfu_cluster(std::size_t k = 0) const noexcept {
        return 2 * std::size_t{p_.sp_count} + k;
    }
    [[nodiscard]] std::size_t ldst_cluster(std::size_t k = 0) const noexcept {
        return sfu_cluster(p_.sub_cores) + k;
    }
    /// Index of sub-core `k`'s DP and tensor clusters (where the SM has them).
    [[nodiscard]] std::size_t dp_cluster(std::size_t k = 0) const noexcept {
        return ldst_cluster(p_.sub_cores) + k;
    }
    [[nodiscard]] std::size_t tensor_cluster(std::size_t k = 0) const noexcept {
        return dp_cluster(dp_clusters_()) + k;
    }
    /// First index and count of the clusters executing unit class `u` (count 0 if none); DP
    /// and tensor instructions on an SM without those units: the FP clusters.
    [[nodiscard]] std::pair<std::size_t, std::size_t>
    clusters_of(isa::unit_class u) const noexcept {
        switch (u) {
        case isa::unit_class::int_alu:
            return {0, p_.sp_count};
        case isa::unit_class::fp:
            return {p_.sp_count, p_.sp_count};
        case isa::unit_class::sfu:
            return {sfu_cluster(), p_.sub_cores};
        case isa::unit_class::ldst:
            return {ldst_cluster(), p_.sub_cores};
        case isa::unit_class::dp:
            if (p_.dp_lanes == 0) return {p_.sp_count, p_.sp_count};
            return {dp_cluster(), p_.sub_cores};
        case isa::unit_class::tensor:
            if (p_.tensor_lanes == 0) return {p_.sp_count, p_.sp_count};
            return {tensor_cluster(), p_.sub_cores};
        default:
            return {0, 0};
        }
    }
    /// The unit class whose clusters execute unit class `u`'s instructions here: `u` itself,
    /// or fp for DP and tensor instructions on an SM without those units.
    [[nodiscard]] isa::unit_class runs_on(isa::unit_class u) const noexcept {
        if ((u == isa::unit_class::dp && p_.dp_lanes == 0) ||
            (u == isa::unit_class::tensor && p_.tensor_lanes == 0))
            return isa::unit_class::fp;
        return u;
    }
    /// The part of clusters_of(u) that sub-core `k` owns (all of it with one sub-core).
    [[nodiscard]] std::pair<std::size_t, std::size_t>
    clusters_of(isa::unit_class u, std::uint32_t k) const noexcept {
        const auto [first, count] = clusters_of(u);
        const std::size_t per = count / p_.sub_cores;
        return {first + per * (k % p_.sub_cores), per};
    }
    /// Restarts every cluster's counters from zero.
    void reset_stats() noexcept {
        for (auto& c : clusters_)
            c.reset_stats();
    }
    /// "sp0.int", "sp1.fp", "sfu", "ldst", "dp", "tensor" (with sub-cores "sfu0", "ldst3",
    /// "dp1"...).
    [[nodiscard]] std::string name(std::size_t i) const {
        WARPKIT_EXPECTS(i < size());
        if (i < 2 * std::size_t{p_.sp_count}) {
            const bool fp = i >= p_.sp_count;
            return "sp" + std::to_string(fp ? i - p_.sp_count : i) + (fp ? ".fp" : ".int");
        }
        std::size_t first = tensor_cluster();
        std::string base = "tensor";
        if (i < ldst_cluster()) {
            first = sfu_cluster();
            base = "sfu";
        } else if (i < dp_cluster()) {
            first = ldst_cluster();
            base = "ldst";
        } else if (i < tensor_cluster()) {
            first = dp_cluster();
            base = "dp";
        }
        if (p_.sub_cores == 1) return base;
        return base + std::to_string(i - first);
    }

    [[nodiscard]] cluster_type& operator[](std::size_t i) {
        WARPKIT_EXPECTS(i < size());
        return clusters_[i];
    }
    [[nodiscard]] const cluster_type& operator[](std::size_t i) const {
        WARPKIT_EXPECTS(i < size());
        return clusters_[i];
    }

    /// The lowest-indexed powered cluster of sub-core `k` that can take class `o` this cycle,
    /// if any.
    [[nodiscard]] std::optional<std::size_t> find_free(op_class o,
                                                       std::uint32_t k = 0) const noexcept {
        const auto [first, end] = ranges_[index(o)][k < p_.sub_cores ? k : k % p_.sub_cores];
        for (std::size_t i = first; i < end; ++i)
            if (clusters_[i].can_issue(o)) return i;
        return std::nullopt;
    }
    /// Issues to the first free cluster of class `o` of sub-core `k`; returns its index, or
    /// nothing if none. `active`: the warp's active threads (warps of up to max_warp_size
    /// threads); `passes`: times the pipeline takes it (unit_cluster::issue).
    template <std::size_t N>
    std::optional<std::size_t> issue(op_class o, Payload value, lane_mask<N> active,
                                     std::uint32_t passes = 1, std::uint32_t k = 0) {
        const auto i = find_free(o, k);
        if (i) clusters_[*i].issue(o, std::move(value), active, passes);
        return i;
    }

    /// Bit i set when cluster i holds an instruction this cycle.
    [[nodiscard]] std::uint64_t busy_mask() const noexcept {
        std::uint64_t m = 0;
        for (std::size_t i = 0; i < clusters_.size(); ++i)
            if (clusters_[i].busy()) m |= std::uint64_t{1} << i;
        return m;
    }

    /// `n` cycles at once of clusters whose pipelines are all empty (what n tick()s do then).
    void skip_idle(std::uint64_t n) noexcept {
        for (auto& c : clusters_)
            c.skip_idle(n);
    }
    /// Ends the current cycle for every cluster; true when any pipeline held an instruction.
    bool tick() noexcept {
        bool busy = false;
        std::uint64_t ready = 0;
        for (std::size_t i = 0; i < clusters_.size(); ++i) {
            busy = clusters_[i].tick() || busy;
            if (clusters_[i].ready()) ready |= std::uint64_t{1} << i;
        }
        ready_ = ready;
        return busy;
    }
    /// Bit i set when cluster i held a finished result at the end of the last tick(). Results
    /// arrive only in tick(), so a cluster whose bit is clear has none waiting now: a
    /// writeback visits the set bits instead of every cluster.
    [[nodiscard]] std::uint64_t ready_mask() const noexcept { return ready_; }

    [[nodiscard]] const units_params& params() const noexcept { return p_; }

private:
    [[nodiscard]] std::size_t dp_clusters_() const noexcept {
        return p_.dp_lanes == 0 ? 0 : p_.sub_cores;
    }
    [[nodiscard]] std::size_t tensor_clusters_() const noexcept {
        return p_.tensor_lanes == 0 ? 0 : p_.sub_cores;
    }

    units_params p_;
    std::vector<cluster_type> clusters_;
    std::uint64_t ready_ = 0; // see ready_mask()
    // clusters_of(unit_of(o), k) for each class and sub-core, as [first, end) (find_free runs
    // for every waiting warp every cycle).
    std::array<std::array<std::pair<std::uint8_t, std::uint8_t>, 8>, op_class_count> ranges_{};
};

} // namespace warpkit::exec
