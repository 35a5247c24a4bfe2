#pragma once
/// \file
/// `scheduler_bank<S>`: several warp schedulers of one SM, each owning a fixed share of the
/// warps: warp i belongs to scheduler i mod n (GTX480: two schedulers per SM, paper 003
/// Section 2.1, each issuing one warp per cycle). Each scheduler sees only its own warps,
/// renumbered i / n, and keeps its own state; the bank itself models warp_scheduler.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/concepts.hpp>
#include <warpkit/issue/issue_list.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace warpkit::issue {

/// Params of a scheduler bank: how many schedulers, and the params each one gets.
template <class SchedulerParams>
struct scheduler_bank_params {
    /// Schedulers per SM (GTX480: 2).
    std::uint32_t schedulers = 2;
    /// Params of every scheduler of the bank.
    SchedulerParams scheduler{};

    void validate() const {
        check_range("schedulers", schedulers, std::uint32_t{1},
                    static_cast<std::uint32_t>(max_issue_width));
    }
    WARPKIT_FIELDS(scheduler_bank_params, schedulers, scheduler)
};

/// Counters of a bank: one entry per scheduler (sum them with sum_stats for the SM).
template <class SchedulerStats>
struct scheduler_bank_stats {
    std::vector<SchedulerStats> scheduler;
    WARPKIT_FIELDS(scheduler_bank_stats, scheduler)
};

/// n schedulers of type S; warp i is scheduled by scheduler i mod n as its warp i / n.
template <class S>
requires warp_scheduler<S>
class scheduler_bank {
public:
    using scheduler_type = S;
    using params_type = scheduler_bank_params<typename S::params_type>;
    using stats_type = scheduler_bank_stats<typename S::stats_type>;
    /// Warps each scheduler of the bank tracks.
    static constexpr std::size_t warps_per_scheduler = max_warps_of<S>();

    /// Short name for reports.
    static constexpr std::string_view kind = "bank";

    scheduler_bank() : scheduler_bank(params_type{}) {}
    /// n schedulers built from p.scheduler. Throws config_error when `p` is out of range.
    explicit scheduler_bank(const params_type& p) : params_(validated(p)) {
        schedulers_.reserve(p.schedulers);
        for (std::uint32_t k = 0; k < p.schedulers; ++k)
            schedulers_.emplace_back(p.scheduler);
        init();
    }
    /// n schedulers made by `make(k)` (for schedulers that are not built from params alone).
    template <class Make>
    scheduler_bank(const params_type& p, Make&& make) : params_(validated(p)) {
        schedulers_.reserve(p.schedulers);
        for (std::uint32_t k = 0; k < p.schedulers; ++k)
            schedulers_.push_back(make(k));
        init();
    }

    /// Number of schedulers.
    [[nodiscard]] std::size_t size() const noexcept { return schedulers_.size(); }
    /// The scheduler that owns warp `w`.
    [[nodiscard]] std::size_t owner(std::size_t w) const noexcept { return w % size(); }

    /// Each scheduler picks among its own warps; `width` is the bank's total width, shared as
    /// evenly as possible: each gets width / n slots, and the width mod n extra slots go to
    /// the schedulers next in a rotation that advances every cycle (so a bank narrower than
    /// its scheduler count starves none of them). A scheduler whose issuable_only() holds is
    /// passed its issuable views alone.
    [[nodiscard]] issue_list select(std::span<const warp_view> views, std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        const std::size_t n = size();
        std::uint32_t all_views = 0; // bit k: scheduler k sees the views it cannot issue too
        for (std::size_t k = 0; k < n; ++k) {
            count_[k] = 0;
            if (!issuable_only_(k)) all_views |= 1U << k;
        }
        for (const auto& v : views) {
            WARPKIT_EXPECTS(v.id < owner_.size());
            const std::size_t k = owner_[v.id];
            if (((all_views >> k) & 1U) == 0 && !issuable(v)) continue;
            WARPKIT_EXPECTS(count_[k] < warps_per_scheduler);
            warp_view& l = local_[k][count_[k]++];
            l = v;
            l.id = local_id_[v.id];
        }
        issue_list out;
        for (std::size_t k = 0; k < n; ++k) {
            const issue_list picked = schedulers_[k].select(
                std::span<const warp_view>(local_[k].data(), count_[k]), share_(k, width));
            for (const auto& s : picked)
                out.push(static_cast<warp_id>(s.warp * n + k), s.unit);
        }
        return out;
    }

    /// A cycle with no views (see issue::idle_cycle): each scheduler's, with its share of
    /// `width` as select() gives it, and the rotation advanced as notify_issued() does.
    void idle_cycle(std::size_t width) {
        WARPKIT_EXPECTS(width <= max_issue_width);
        const std::size_t n = size();
        for (std::size_t k = 0; k < n; ++k)
            issue::idle_cycle(schedulers_[k], share_(k, width));
        extra_ = (extra_ + 1) % n;
    }

    /// Tells every scheduler which of its warps issued (each is told, even of nothing).
    void notify_issued(const issue_list& done) {
        const std::size_t n = size();
        for (std::size_t k = 0; k < n; ++k) {
            issue_list mine;
            for (const auto& s : done) {
                WARPKIT_EXPECTS(s.warp < owner_.size());
                if (owner_[s.warp] == k) mine.push(local_id_[s.warp], s.unit);
            }
            schedulers_[k].notify_issued(mine);
        }
        extra_ = (extra_ + 1) % n;
    }

    /// Passes the power-gating blocked classes to every scheduler (GATES banks).
    void set_blocked(unit_set blocked) requires requires(S& s) { s.set_blocked(blocked); }
    {
        for (auto& s : schedulers_)
            s.set_blocked(blocked);
    }
    /// Active-subset count of class `u` over all schedulers (the SM's INT_ACTV, FP_ACTV...).
    [[nodiscard]] std::uint32_t actv(isa::unit_class u) const requires requires(const S& s) {
        s.actv(u);
    }
    {
        std::uint32_t n = 0;
        for (const auto& s : schedulers_)
            n += s.actv(u);
        return n;
    }

    /// Scheduler k.
    [[nodiscard]] S& operator[](std::size_t k) {
        WARPKIT_EXPECTS(k < size());
        return schedulers_[k];
    }
    [[nodiscard]] const S& operator[](std::size_t k) const {
        WARPKIT_EXPECTS(k < size());
        return schedulers_[k];
    }
    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    /// Per-scheduler counters (copied from the schedulers when asked).
    [[nodiscard]] stats_type stats() const {
        stats_type s;
        s.scheduler.reserve(size());
        for (const auto& one : schedulers_)
            s.scheduler.push_back(one.stats());
        return s;
    }
    /// Restarts every scheduler's counters from zero.
    void reset_stats() {
        for (auto& s : schedulers_)
            s.reset_stats();
    }
    /// The counters of all schedulers added up.
    [[nodiscard]] typename S::stats_type total_stats() const {
        return sum_stats(stats().scheduler);
    }

    /// True when every scheduler picks from the issuable views alone (issuable_only()): a
    /// caller may pass those alone.
    [[nodiscard]] bool issuable_only() const noexcept {
        for (std::size_t k = 0; k < size(); ++k)
            if (!issuable_only_(k)) return false;
        return true;
    }

private:
    // Scheduler k's slots of a bank width `width` this cycle.
    [[nodiscard]] std::size_t share_(std::size_t k, std::size_t width) const noexcept {
        const std::size_t n = size();
        return width / n + ((k + n - extra_) % n < width % n ? 1 : 0);
    }

    // True when scheduler k picks from the issuable views alone (the
    // bank leaves the other views out of its span).
    [[nodiscard]] bool issuable_only_(std::size_t k) const noexcept {
        if constexpr (requires(const S& s) { s.issuable_only(); })
            return schedulers_[k].issuable_only();
        else
            return false;
    }

    // Owner and local id of every warp id, so that splitting the views divides nothing.
    void init() {
        const std::size_t n = schedulers_.size();
        owner_.resize(warps_per_scheduler * n);
        local_id_.resize(warps_per_scheduler * n);
        for (std::size_t w = 0; w < owner_.size(); ++w) {
            owner_[w] = static_cast<std::uint8_t>(w % n);
            local_id_[w] = static_cast<warp_id>(w / n);
        }
        local_.resize(n);
        count_.resize(n);
    }

    params_type params_;
    std::vector<S> schedulers_;
    std::size_t extra_ = 0; // scheduler that gets the first extra slot this cycle
    std::vector<std::uint8_t> owner_;
    std::vector<warp_id> local_id_;
    std::vector<std::array<warp_view, warps_per_scheduler>> local_;
    std::vector<std::size_t> count_;
};

} // namespace warpkit::issue
