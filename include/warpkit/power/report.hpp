#pragma once
/// \file
/// Energy and average power of a kernel, per component, per SM and for the Fig. 12 groups,
/// accumulated interval by interval (intervals may run at different operating points), and
/// written as JSON or CSV.

#include <warpkit/power/component.hpp>
#include <warpkit/power/model.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::power {

/// Energy of one SM (J).
struct sm_energy {
    double dynamic_j = 0; ///< components, without idle-SM energy
    double idle_j = 0;
    double leakage_j = 0;
    [[nodiscard]] double total_j() const noexcept { return dynamic_j + idle_j + leakage_j; }
};

/// Energies summed over intervals.
class energy_account {
public:
    /// Adds the interval `b` (its powers times its duration).
    void add(const power_breakdown& b) {
        cycles_ += b.cycles;
        seconds_ += b.seconds;
        for (std::size_t i = 0; i < component_count; ++i) {
            dynamic_j_[i] += b.dynamic_w[i] * b.seconds;
            leakage_j_[i] += b.leakage_w[i] * b.seconds;
        }
        idle_j_ += b.idle_sm_w * b.seconds;
        overhead_j_ += b.gating_overhead_w * b.seconds;
        if (sms_.size() < b.sms.size()) sms_.resize(b.sms.size());
        for (std::size_t s = 0; s < b.sms.size(); ++s) {
            sms_[s].dynamic_j += (b.sms[s].dynamic_total_w() - b.sms[s].idle_w) * b.seconds;
            sms_[s].idle_j += b.sms[s].idle_w * b.seconds;
            sms_[s].leakage_j += b.sms[s].leakage_total_w() * b.seconds;
        }
    }

    [[nodiscard]] std::uint64_t cycles() const noexcept { return cycles_; }
    [[nodiscard]] double seconds() const noexcept { return seconds_; }
    [[nodiscard]] double dynamic_j(component c) const noexcept { return dynamic_j_[index(c)]; }
    [[nodiscard]] double leakage_j(component c) const noexcept { return leakage_j_[index(c)]; }
    [[nodiscard]] double idle_sm_j() const noexcept { return idle_j_; }
    [[nodiscard]] double gating_overhead_j() const noexcept { return overhead_j_; }
    [[nodiscard]] const std::vector<sm_energy>& sms() const noexcept { return sms_; }

    /// Component dynamic energy + idle SMs + gating overhead.
    [[nodiscard]] double dynamic_total_j() const noexcept {
        return sum_from(idle_j_ + overhead_j_, dynamic_j_);
    }
    [[nodiscard]] double leakage_total_j() const noexcept { return sum_from(0.0, leakage_j_); }
    [[nodiscard]] double total_j() const noexcept { return dynamic_total_j() + leakage_total_j(); }
    /// Average power over the accumulated time (W).
    [[nodiscard]] double average_w() const noexcept {
        return seconds_ > 0 ? total_j() / seconds_ : 0.0;
    }

    /// Dynamic energy of each Fig. 12 group (components and idle SMs; the gating overhead and
    /// leakage are not part of the pie).
    [[nodiscard]] std::array<double, figure12_group_count> figure12_j() const noexcept {
        std::array<double, figure12_group_count> g{};
        for (std::size_t i = 0; i < component_count; ++i)
            g[static_cast<std::size_t>(group_of(component_at(i)))] += dynamic_j_[i];
        g[static_cast<std::size_t>(figure12_group::idle_sm)] += idle_j_;
        return g;
    }
    /// figure12_j() as shares of their sum.
    [[nodiscard]] std::array<double, figure12_group_count> figure12_shares() const noexcept {
        auto g = figure12_j();
        const double sum = sum_from(0.0, g);
        if (sum > 0)
            for (double& v : g)
                v /= sum;
        return g;
    }

private:
    std::uint64_t cycles_ = 0;
    double seconds_ = 0;
    std::array<double, component_count> dynamic_j_{};
    std::array<double, component_count> leakage_j_{};
    double idle_j_ = 0;
    double overhead_j_ = 0;
    std::vector<sm_energy> sms_;
};

/// The account as JSON: totals, per component (dynamic / leakage energy, average power,
/// share of dynamic energy), the Fig. 12 groups, per SM.
[[nodiscard]] inline nlohmann::json to_json(const energy_account& e, std::string_view kernel = {}) {
    nlohmann::json j;
    if (!kernel.empty()) j["kernel"] = std::string(kernel);
    const double t = e.seconds();
    const auto avg = [t](double joules) { return t > 0 ? joules / t : 0.0; };
    const double dyn = e.dynamic_total_j();
    j["cycles"] = e.cycles();
    j["seconds"] = t;
    j["energy_j"] = e.total_j();
    j["average_w"] = e.average_w();
    j["dynamic_j"] = dyn;
    j["leakage_j"] = e.leakage_total_j();
    j["idle_sm_j"] = e.idle_sm_j();
    j["gating_overhead_j"] = e.gating_overhead_j();
    nlohmann::json comps = nlohmann::json::object();
    for (std::size_t i = 0; i < component_count; ++i) {
        const component c = component_at(i);
        comps[std::string(name(c))] = {{"dynamic_j", e.dynamic_j(c)},
                                       {"leakage_j", e.leakage_j(c)},
                                       {"dynamic_w", avg(e.dynamic_j(c))},
                                       {"leakage_w", avg(e.leakage_j(c))},
                                       {"dynamic_share", dyn > 0 ? e.dynamic_j(c) / dyn : 0.0}};
    }
    j["components"] = comps;
    nlohmann::json groups = nlohmann::json::object();
    const auto gj = e.figure12_j();
    const auto gs = e.figure12_shares();
    for (std::size_t g = 0; g < figure12_group_count; ++g)
        groups[std::string(name(static_cast<figure12_group>(g)))] = {
            {"dynamic_j", gj[g]}, {"dynamic_w", avg(gj[g])}, {"share", gs[g]}};
    j["figure12"] = groups;
    nlohmann::json sms = nlohmann::json::array();
    for (const auto& s : e.sms())
        sms.push_back({{"dynamic_j", s.dynamic_j},
                       {"idle_j", s.idle_j},
                       {"leakage_j", s.leakage_j},
                       {"energy_j", s.total_j()},
                       {"average_w", avg(s.total_j())}});
    j["sms"] = sms;
    return j;
}

/// The account as CSV rows `kernel,scope,name,dynamic_j,leakage_j,energy_j,average_w`
/// (scope: total, component, group, sm), with a header line.
[[nodiscard]] inline std::string to_csv(const energy_account& e, std::string_view kernel = {}) {
    std::ostringstream os;
    os.precision(9);
    const double t = e.seconds();
    const auto row = [&](std::string_view scope, std::string_view n, double dyn, double leak) {
        os << kernel << ',' << scope << ',' << n << ',' << dyn << ',' << leak << ',' << dyn + leak
           << ',' << (t > 0 ? (dyn + leak) / t : 0.0) << '\n';
    };
    os << "kernel,scope,name,dynamic_j,leakage_j,energy_j,average_w\n";
    row("total", "gpu", e.dynamic_total_j(), e.leakage_total_j());
    for (std::size_t i = 0; i < component_count; ++i) {
        const component c = component_at(i);
        row("component", name(c), e.dynamic_j(c), e.leakage_j(c));
    }
    row("component", "idle_sm", e.idle_sm_j(), 0);
    row("component", "gating_overhead", e.gating_overhead_j(), 0);
    const auto g = e.figure12_j();
    for (std::size_t k = 0; k < figure12_group_count; ++k)
        row("group", name(static_cast<figure12_group>(k)), g[k], 0);
    for (std::size_t s = 0; s < e.sms().size(); ++s) {
        const auto& x = e.sms()[s];
        row("sm", std::to_string(s), x.dynamic_j + x.idle_j, x.leakage_j);
    }
    return os.str();
}

} // namespace warpkit::power
