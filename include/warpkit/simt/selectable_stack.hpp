#pragma once
/// \file
/// `selectable_stack<WarpSize>`: a reconvergence stack whose kind is a value (`stack_kind`),
/// so a GPU built with it reconverges at immediate post-dominators (`pdom`, Fung et al.) or
/// at SSY sync points (`ssy`, paper 004 Section 4.3.1) as its params say: the presets use it,
/// and `--set simt_stack=ssy` changes any preset's stack at run time without another compiled
/// GPU type. The stack sits in a std::variant of the two static stacks and each call goes to
/// the chosen one, so a warp with kind K moves exactly as the static stack K moves. A
/// simulator that fixes its stack at compile time uses the static type and saves the
/// dispatch.
///
/// Executors ask `uses_sync_points(stack)` (simt/concepts.hpp) at run time: with kind `ssy`
/// they set the sync point from SSY instructions and branch without a reconvergence pc, as on
/// an `ssy_stack`; with kind `pdom` SSY instructions set nothing and every branch names its
/// immediate post-dominator, as on a `pdom_stack`.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>
#include <warpkit/simt/stats.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace warpkit::simt {

/// The reconvergence stacks `selectable_stack` can be, by the name each reports.
enum class stack_kind : std::uint8_t {
    pdom, ///< "pdom": immediate post-dominator reconvergence (pdom_stack)
    ssy   ///< "ssy": SSY sync points (ssy_stack, paper 004)
};

} // namespace warpkit::simt

template <>
struct warpkit::enum_names<warpkit::simt::stack_kind> {
    static constexpr std::array<std::string_view, 2> names = {"pdom", "ssy"};
};

namespace warpkit::simt {

/// The reconvergence stack of one warp, of the kind chosen at construction (see the file
/// comment). Fixed storage, no allocation; reset() keeps the kind.
template <std::size_t WarpSize>
class selectable_stack {
public:
    using mask_type = lane_mask<WarpSize>;
    static constexpr std::size_t warp_size = WarpSize;
    /// The larger of the two stacks' capacities.
    static constexpr std::size_t capacity =
        std::max(pdom_stack<WarpSize>::capacity, ssy_stack<WarpSize>::capacity);

    /// A finished (empty) warp with a PDOM stack.
    selectable_stack() = default;
    /// A finished (empty) warp with a stack of kind `k`.
    explicit selectable_stack(stack_kind k) {
        if (k == stack_kind::ssy) stack_.template emplace<ssy_stack<WarpSize>>();
    }

    /// Which stack this is.
    [[nodiscard]] stack_kind kind() const noexcept {
        return stack_.index() == 0 ? stack_kind::pdom : stack_kind::ssy;
    }
    /// True when divergent branches reconverge at the SSY sync point (kind ssy).
    [[nodiscard]] bool uses_sync_points() const noexcept { return stack_.index() == 1; }

    /// Starts a new warp at `start` with lanes `lanes`; keeps the kind and the stats.
    void reset(pc_type start, mask_type lanes) noexcept {
        visit_([&](auto& s) { s.reset(start, lanes); });
    }
    [[nodiscard]] pc_type pc() const noexcept {
        return visit_([](const auto& s) { return s.pc(); });
    }
    [[nodiscard]] mask_type active() const noexcept {
        return visit_([](const auto& s) { return s.active(); });
    }
    [[nodiscard]] mask_type live() const noexcept {
        return visit_([](const auto& s) { return s.live(); });
    }
    [[nodiscard]] std::size_t depth() const noexcept {
        return visit_([](const auto& s) { return s.depth(); });
    }
    [[nodiscard]] std::size_t max_depth() const noexcept {
        return visit_([](const auto& s) { return s.max_depth(); });
    }
    [[nodiscard]] bool converged() const noexcept {
        return visit_([](const auto& s) { return s.converged(); });
    }
    [[nodiscard]] bool finished() const noexcept {
        return visit_([](const auto& s) { return s.finished(); });
    }

    void advance(pc_type next_pc) {
        visit_([&](auto& s) { s.advance(next_pc); });
    }
    /// A branch reconverging at `reconvergence`: on kind ssy the same as
    /// `ssy(reconvergence)` then `branch(taken, target, fallthrough)`.
    void branch(mask_type taken, pc_type target, pc_type fallthrough, pc_type reconvergence) {
        visit_([&](auto& s) { s.branch(taken, target, fallthrough, reconvergence); });
    }
    /// The issued instruction was SSY `convergence`: kind ssy keeps it for later divergent
    /// branches; kind pdom has no sync point and ignores it.
    void ssy(pc_type convergence) noexcept {
        if (auto* s = std::get_if<1>(&stack_)) s->ssy(convergence);
    }
    /// A branch that reconverges at the last SSY point (kind ssy only).
    void branch(mask_type taken, pc_type target, pc_type fallthrough) {
        auto* s = std::get_if<1>(&stack_);
        WARPKIT_EXPECTS(s != nullptr);
        s->branch(taken, target, fallthrough);
    }
    /// The last SSY point (kind ssy), no_pc on kind pdom.
    [[nodiscard]] pc_type sync_point() const noexcept {
        const auto* s = std::get_if<1>(&stack_);
        return s != nullptr ? s->sync_point() : no_pc;
    }
    void exit(mask_type lanes) noexcept {
        visit_([&](auto& s) { s.exit(lanes); });
    }
    /// The warp keeps only `lanes` (AMOEBA's warp split, see pdom_stack::keep).
    void keep(mask_type lanes) noexcept {
        visit_([&](auto& s) { s.keep(lanes); });
    }
    void record_issue() noexcept {
        visit_([](auto& s) { s.record_issue(); });
    }
    [[nodiscard]] const stack_stats& stats() const noexcept {
        return visit_([](const auto& s) -> const stack_stats& { return s.stats(); });
    }
    void reset_stats() {
        visit_([](auto& s) { s.reset_stats(); });
    }

    /// Calls `f` with the static stack this one is (`const pdom_stack<W>&` or
    /// `const ssy_stack<W>&`) and returns what it returns.
    template <class F>
    decltype(auto) visit(F&& f) const {
        return visit_(std::forward<F>(f));
    }

private:
    // Two alternatives: an index test the branch predictor learns, no jump table.
    template <class F>
    decltype(auto) visit_(F&& f) {
        if (auto* s = std::get_if<1>(&stack_)) return std::forward<F>(f)(*s);
        return std::forward<F>(f)(*std::get_if<0>(&stack_));
    }
    template <class F>
    decltype(auto) visit_(F&& f) const {
        if (const auto* s = std::get_if<1>(&stack_)) return std::forward<F>(f)(*s);
        return std::forward<F>(f)(*std::get_if<0>(&stack_));
    }

    std::variant<pdom_stack<WarpSize>, ssy_stack<WarpSize>> stack_;
};

/// The stack of type S a warp starts with when params name kind `k`: a selectable_stack of
/// kind `k`, or a static stack as it is (its kind is its type's).
template <class S>
[[nodiscard]] S make_stack(stack_kind k) {
    if constexpr (std::is_same_v<S, selectable_stack<S::warp_size>>)
        return S(k);
    else
        return S{};
}

} // namespace warpkit::simt
