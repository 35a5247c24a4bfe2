#pragma once
/// \file
/// `controller_ref<Policies...>` and `controller_span<Policies...>`: read-only access to the
/// controllers of a block whose policy type is chosen at run time among `Policies` (an SM's
/// selectable power stage): what `controller<P>`'s const accessors give, whichever P it is.

#include <warpkit/gating/concepts.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/state.hpp>
#include <warpkit/gating/stats.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <variant>

namespace warpkit::gating {

/// One controller<P>, P one of `Policies`, seen through its const accessors (see controller).
/// A reference: it must not outlive the controller.
template <policy... Policies>
class controller_ref {
public:
    template <policy P>
    explicit controller_ref(const controller<P>& c) noexcept : controller_(&c) {}

    [[nodiscard]] power_state state() const noexcept {
        return visit([](const auto& c) { return c.state(); });
    }
    [[nodiscard]] bool can_issue() const noexcept {
        return visit([](const auto& c) { return c.can_issue(); });
    }
    [[nodiscard]] bool blocked() const noexcept {
        return visit([](const auto& c) { return c.blocked(); });
    }
    [[nodiscard]] bool gated() const noexcept {
        return visit([](const auto& c) { return c.gated(); });
    }
    [[nodiscard]] bool in_blackout() const noexcept {
        return visit([](const auto& c) { return c.in_blackout(); });
    }
    [[nodiscard]] std::uint32_t idle_detect() const noexcept {
        return visit([](const auto& c) { return c.idle_detect(); });
    }
    [[nodiscard]] std::uint32_t idle_count() const noexcept {
        return visit([](const auto& c) { return c.idle_count(); });
    }
    [[nodiscard]] std::uint32_t episode_gated_cycles() const noexcept {
        return visit([](const auto& c) { return c.episode_gated_cycles(); });
    }
    [[nodiscard]] const gating::params& params() const noexcept {
        return visit([](const auto& c) -> const gating::params& { return c.params(); });
    }
    [[nodiscard]] const gating::stats& stats() const noexcept {
        return visit([](const auto& c) -> const gating::stats& { return c.stats(); });
    }

    /// Calls `f` with the controller itself (`const controller<P>&`) and returns its result.
    template <class F>
    decltype(auto) visit(F&& f) const {
        return std::visit([&](const auto* c) -> decltype(auto) { return std::forward<F>(f)(*c); },
                          controller_);
    }

private:
    std::variant<const controller<Policies>*...> controller_;
};

/// The controllers of one block, all of one type controller<P>, P one of `Policies`: a range
/// of controller_ref (by value) over a contiguous sequence it does not own.
template <policy... Policies>
class controller_span {
public:
    using value_type = controller_ref<Policies...>;

    template <policy P>
    explicit controller_span(std::span<const controller<P>> controllers) noexcept
        : controllers_(controllers) {}

    [[nodiscard]] std::size_t size() const noexcept {
        return std::visit([](const auto& s) { return s.size(); }, controllers_);
    }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    /// The i-th controller (no bounds check, as a vector's operator[]).
    [[nodiscard]] value_type operator[](std::size_t i) const noexcept {
        return std::visit([i](const auto& s) { return value_type(s[i]); }, controllers_);
    }

    /// Walks the controllers in order; dereferencing gives a controller_ref by value.
    class iterator {
    public:
        using value_type = controller_ref<Policies...>;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        iterator(const controller_span* span, std::size_t index) noexcept
            : span_(span), index_(index) {}
        [[nodiscard]] value_type operator*() const noexcept { return (*span_)[index_]; }
        iterator& operator++() noexcept {
            ++index_;
            return *this;
        }
        iterator operator++(int) noexcept {
            iterator before = *this;
            ++index_;
            return before;
        }
        [[nodiscard]] bool operator==(const iterator& o) const noexcept {
            return index_ == o.index_;
        }

    private:
        const controller_span* span_ = nullptr;
        std::size_t index_ = 0;
    };
    [[nodiscard]] iterator begin() const noexcept { return iterator(this, 0); }
    [[nodiscard]] iterator end() const noexcept { return iterator(this, size()); }

private:
    std::variant<std::span<const controller<Policies>>...> controllers_;
};

} // namespace warpkit::gating
