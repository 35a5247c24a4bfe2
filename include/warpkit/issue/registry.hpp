#pragma once
/// \file
/// `scheduler_registry`: warp schedulers by name for examples and command-line tools
/// ("gto", "gates", ...), each built from its params defaults plus "key=value" overrides.
/// A plain value (no global registry): `builtin_schedulers()` returns one filled with the
/// library's schedulers, and callers may add their own.

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/issue/any_scheduler.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/gates.hpp>
#include <warpkit/issue/gto.hpp>
#include <warpkit/issue/lrr.hpp>
#include <warpkit/issue/rr.hpp>
#include <warpkit/issue/scheduler_bank.hpp>
#include <warpkit/issue/two_level.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::issue {

/// Named factories of type-erased schedulers.
class scheduler_registry {
public:
    /// Builds a scheduler from JSON params (may be null), "key=value" overrides and a number
    /// of schedulers per SM (more than one: a scheduler_bank of them).
    using factory = std::function<any_scheduler(const nlohmann::json&,
                                                const std::vector<std::string>&, std::uint32_t)>;

    /// Registers `make` under `name` (replacing an entry of the same name).
    void add(std::string name, std::string description, factory make) {
        for (auto& e : entries_)
            if (e.name == name) {
                e.description = std::move(description);
                e.make = std::move(make);
                return;
            }
        entries_.push_back({std::move(name), std::move(description), std::move(make)});
    }
    /// Registers scheduler type S under `name`, built from S::params_type; the JSON and the
    /// overrides address S's params, also when a bank of several is built.
    template <class S>
    requires warp_scheduler<S>
    void add(std::string name, std::string description) {
        std::string n = name;
        add(std::move(name), std::move(description),
            [n](const nlohmann::json& j, const std::vector<std::string>& overrides,
                std::uint32_t schedulers) {
                auto p = make_params<typename S::params_type>(j, overrides);
                if (schedulers == 1) return any_scheduler(n, S(p));
                typename scheduler_bank<S>::params_type b;
                b.schedulers = schedulers;
                b.scheduler = p;
                return any_scheduler(n, scheduler_bank<S>(b));
            });
    }

    /// True when `name` is registered.
    [[nodiscard]] bool contains(std::string_view name) const noexcept {
        for (const auto& e : entries_)
            if (e.name == name) return true;
        return false;
    }
    /// The registered names, in registration order.
    [[nodiscard]] std::vector<std::string> names() const {
        std::vector<std::string> out;
        out.reserve(entries_.size());
        for (const auto& e : entries_)
            out.push_back(e.name);
        return out;
    }
    /// The one-line description of `name` (empty if unknown).
    [[nodiscard]] std::string description(std::string_view name) const {
        for (const auto& e : entries_)
            if (e.name == name) return e.description;
        return {};
    }

    /// A new scheduler `name` with its params defaults, then `j`, then `overrides` applied;
    /// with `schedulers` > 1, a bank of that many (warp i on scheduler i mod n). Throws
    /// config_error for an unknown name or a bad parameter.
    [[nodiscard]] any_scheduler make(std::string_view name, const nlohmann::json& j = nullptr,
                                     const std::vector<std::string>& overrides = {},
                                     std::uint32_t schedulers = 1) const {
        check_range("schedulers", schedulers, std::uint32_t{1},
                    static_cast<std::uint32_t>(max_issue_width));
        for (const auto& e : entries_)
            if (e.name == name) return e.make(j, overrides, schedulers);
        std::string known;
        for (const auto& e : entries_)
            known += (known.empty() ? "" : ", ") + e.name;
        throw config_error("scheduler", "'" + std::string(name) + "'", "one of: " + known);
    }

private:
    struct entry {
        std::string name;
        std::string description;
        factory make;
    };
    std::vector<entry> entries_;
};

/// A registry holding lrr, rr, gto, two_level (over lrr) and gates (over lrr). A template so
/// that only a translation unit that calls it instantiates the five schedulers' type-erased
/// models (their JSON included): including the header costs about 1 s of CPU less.
template <class Registry = scheduler_registry>
[[nodiscard]] Registry builtin_schedulers() {
    Registry r;
    r.template add<lrr>("lrr", "loose round robin: first ready warp after the last issued");
    r.template add<rr>("rr",
                       "strict round robin: one turn per warp, lost if the warp cannot issue");
    r.template add<gto>("gto",
                        "greedy then oldest: keep the last warp while ready, else oldest ready");
    r.template add<two_level<lrr>>(
        "two_level", "two-level: active set (lrr) + pending FIFO for long-latency waits");
    r.template add<gates<lrr>>("gates", "GATES: two-level with INT/FP-at-the-ends type priority");
    return r;
}

} // namespace warpkit::issue
