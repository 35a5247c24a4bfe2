#pragma once
/// \file
/// `any_scheduler`: a type-erased warp scheduler, so an example can pick a policy by name at
/// run time. It costs a virtual call per select; simulators that care about speed use the
/// static types directly. The GATES inputs and outputs (blocked classes, INT_ACTV, FP_ACTV)
/// pass through when the held scheduler has them.

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

namespace warpkit::issue {

namespace detail {
template <class S>
concept has_blocked_input = requires(S& s, unit_set u) {
    s.set_blocked(u);
};
template <class S>
concept has_actv_output = requires(const S& s, isa::unit_class u) {
    { s.actv(u) } -> std::convertible_to<std::uint32_t>;
};
template <class S>
concept has_priority_output = requires(const S& s) {
    { s.high_priority() } -> std::convertible_to<isa::unit_class>;
};
} // namespace detail

/// A warp scheduler of any type modelling warp_scheduler, held by value.
class any_scheduler {
public:
    any_scheduler() = default;
    /// Holds `s`; `name` is what reports call it.
    template <class S>
    requires warp_scheduler<std::remove_cvref_t<S>>
    explicit any_scheduler(std::string name, S&& s)
        : self_(std::make_unique<model<std::remove_cvref_t<S>>>(std::forward<S>(s))),
          name_(std::move(name)) {}

    any_scheduler(any_scheduler&&) noexcept = default;
    any_scheduler& operator=(any_scheduler&&) noexcept = default;
    any_scheduler(const any_scheduler& o)
        : self_(o.self_ ? o.self_->clone() : nullptr), name_(o.name_) {}
    any_scheduler& operator=(const any_scheduler& o) {
        if (this != &o) *this = any_scheduler(o);
        return *this;
    }
    ~any_scheduler() = default;

    /// True when a scheduler is held.
    [[nodiscard]] explicit operator bool() const noexcept { return self_ != nullptr; }
    /// The name given at construction.
    [[nodiscard]] const std::string& name() const noexcept { return name_; }

    /// See warp_scheduler.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->select(views, width);
    }
    /// See warp_scheduler.
    void notify_issued(const issue_list& done) {
        WARPKIT_EXPECTS(self_ != nullptr);
        self_->notify_issued(done);
    }
    /// Passes the blocked unit classes to a GATES scheduler; false (ignored) for others.
    bool set_blocked(unit_set blocked) {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->set_blocked(blocked);
    }
    /// Active-subset count of class `u` (INT_ACTV, FP_ACTV...) for GATES, else nothing.
    [[nodiscard]] std::optional<std::uint32_t> actv(isa::unit_class u) const {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->actv(u);
    }
    /// Current highest-priority type for GATES, else nothing.
    [[nodiscard]] std::optional<isa::unit_class> high_priority() const {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->high_priority();
    }
    /// The held scheduler's params as JSON.
    [[nodiscard]] nlohmann::json params_json() const {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->params_json();
    }
    /// The held scheduler's stats as JSON.
    [[nodiscard]] nlohmann::json stats_json() const {
        WARPKIT_EXPECTS(self_ != nullptr);
        return self_->stats_json();
    }
    /// The held scheduler if it is an S, else nullptr.
    template <class S>
    [[nodiscard]] S* target() noexcept {
        auto* m = dynamic_cast<model<S>*>(self_.get());
        return m != nullptr ? &m->s : nullptr;
    }

private:
    struct concept_t {
        virtual ~concept_t() = default;
        virtual issue_list select(std::span<const warp_view> views, std::size_t width) = 0;
        virtual void notify_issued(const issue_list& done) = 0;
        virtual bool set_blocked(unit_set blocked) = 0;
        [[nodiscard]] virtual std::optional<std::uint32_t> actv(isa::unit_class u) const = 0;
        [[nodiscard]] virtual std::optional<isa::unit_class> high_priority() const = 0;
        [[nodiscard]] virtual nlohmann::json params_json() const = 0;
        [[nodiscard]] virtual nlohmann::json stats_json() const = 0;
        [[nodiscard]] virtual std::unique_ptr<concept_t> clone() const = 0;
    };
    template <class S>
    struct model final : concept_t {
        explicit model(S x) : s(std::move(x)) {}
        issue_list select(std::span<const warp_view> views, std::size_t width) override {
            return s.select(views, width);
        }
        void notify_issued(const issue_list& done) override { s.notify_issued(done); }
        bool set_blocked(unit_set blocked) override {
            if constexpr (detail::has_blocked_input<S>) {
                s.set_blocked(blocked);
                return true;
            } else {
                (void)blocked;
                return false;
            }
        }
        [[nodiscard]] std::optional<std::uint32_t> actv(isa::unit_class u) const override {
            if constexpr (detail::has_actv_output<S>) {
                return s.actv(u);
            } else {
                (void)u;
                return std::nullopt;
            }
        }
        [[nodiscard]] std::optional<isa::unit_class> high_priority() const override {
            if constexpr (detail::has_priority_output<S>)
                return s.high_priority();
            else
                return std::nullopt;
        }
        [[nodiscard]] nlohmann::json params_json() const override {
            return warpkit::params_to_json(s.params());
        }
        [[nodiscard]] nlohmann::json stats_json() const override {
            return warpkit::stats_to_json(s.stats());
        }
        [[nodiscard]] std::unique_ptr<concept_t> clone() const override {
            return std::make_unique<model>(s);
        }
        S s;
    };

    std::unique_ptr<concept_t> self_;
    std::string name_;
};

} // namespace warpkit::issue
