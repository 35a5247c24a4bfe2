#pragma once
/// \file
/// `scoreboard`: per-warp pending writes. An instruction may issue only when none of the
/// registers and predicates it reads (RAW) or writes (WAW) has a write in flight; its
/// destinations are reserved at issue and released at writeback. Destinations written by
/// long-latency (memory) instructions are flagged, so an SM can tell a two-level scheduler
/// that a warp waits on a long-latency event.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::issue {

/// The registers and predicates one instruction reads and writes, as bit sets (at most 64
/// of each). Built fluently: `operands{}.read(1).read(2).write(3).guard(0)`.
struct operands {
    std::uint64_t srcs = 0;      ///< general registers read
    std::uint64_t dsts = 0;      ///< general registers written
    std::uint64_t pred_srcs = 0; ///< predicates read (the guard predicate included)
    std::uint64_t pred_dsts = 0; ///< predicates written (set-predicate instructions)

    /// Adds source register `r` (< 64).
    [[nodiscard]] constexpr operands read(unsigned r) const {
        WARPKIT_EXPECTS(r < 64);
        operands o = *this;
        o.srcs |= std::uint64_t{1} << r;
        return o;
    }
    /// Adds destination register `r` (< 64).
    [[nodiscard]] constexpr operands write(unsigned r) const {
        WARPKIT_EXPECTS(r < 64);
        operands o = *this;
        o.dsts |= std::uint64_t{1} << r;
        return o;
    }
    /// Adds predicate `p` (< 64) as the guard or another predicate source.
    [[nodiscard]] constexpr operands guard(unsigned p) const {
        WARPKIT_EXPECTS(p < 64);
        operands o = *this;
        o.pred_srcs |= std::uint64_t{1} << p;
        return o;
    }
    /// Adds predicate `p` (< 64) as a destination.
    [[nodiscard]] constexpr operands write_pred(unsigned p) const {
        WARPKIT_EXPECTS(p < 64);
        operands o = *this;
        o.pred_dsts |= std::uint64_t{1} << p;
        return o;
    }
    friend constexpr bool operator==(const operands&, const operands&) noexcept = default;
};

/// Why an instruction cannot issue yet.
struct hazard {
    bool raw = false;          ///< a source or guard predicate has a write in flight
    bool waw = false;          ///< a destination has a write in flight
    bool long_latency = false; ///< one of the blocking writes is a long-latency one

    /// True when the instruction must wait.
    [[nodiscard]] constexpr bool any() const noexcept { return raw || waw; }
    constexpr explicit operator bool() const noexcept { return any(); }
};

/// Params of a scoreboard.
struct scoreboard_params {
    /// Warps tracked (GTX480: 48 per SM, paper 003 Section 2.1).
    std::uint32_t warps = 48;
    /// General registers per thread (Fermi: at most 63).
    std::uint32_t registers = 63;
    /// Predicate registers per thread (Fermi: P0..P6).
    std::uint32_t predicates = 7;

    void validate() const {
        check_range("warps", warps, std::uint32_t{1}, std::uint32_t{4096});
        check_range("registers", registers, std::uint32_t{1}, std::uint32_t{64});
        check_range("predicates", predicates, std::uint32_t{0}, std::uint32_t{64});
    }
    WARPKIT_FIELDS(scoreboard_params, warps, registers, predicates)
};

/// Counters of a scoreboard (each is one access the power model can charge).
struct scoreboard_stats {
    std::uint64_t checks = 0;                    ///< hazard checks made through `check`
    std::uint64_t raw_hazards = 0;               ///< checks that found a RAW hazard
    std::uint64_t waw_hazards = 0;               ///< checks that found a WAW hazard
    std::uint64_t reservations = 0;              ///< registers and predicates reserved
    std::uint64_t long_latency_reservations = 0; ///< of which long-latency
    std::uint64_t releases = 0;                  ///< registers and predicates released
    WARPKIT_FIELDS(scoreboard_stats, checks, raw_hazards, waw_hazards, reservations,
                   long_latency_reservations, releases)
};

} // namespace warpkit::issue

namespace warpkit::issue {

/// Per-warp pending-write tracking for RAW and WAW hazards on registers and predicates.
class scoreboard {
public:
    using params_type = scoreboard_params;
    using stats_type = scoreboard_stats;

    scoreboard() : scoreboard(params_type{}) {}
    /// Throws config_error when `p` is out of range.
    explicit scoreboard(const params_type& p) : params_(checked(p)), warps_(p.warps) {}

    /// The hazards `ops` of warp `w` would meet now (does not count).
    [[nodiscard]] hazard peek(std::size_t w, const operands& ops) const {
        const warp_state& s = at(w);
        hazard h;
        const std::uint64_t raw_r = ops.srcs & s.pending;
        const std::uint64_t raw_p = ops.pred_srcs & s.pending_preds;
        const std::uint64_t waw_r = ops.dsts & s.pending;
        const std::uint64_t waw_p = ops.pred_dsts & s.pending_preds;
        h.raw = (raw_r | raw_p) != 0;
        h.waw = (waw_r | waw_p) != 0;
        h.long_latency = (((raw_r | waw_r) & s.long_regs) | ((raw_p | waw_p) & s.long_preds)) != 0;
        return h;
    }
    /// Like peek, and counts the check and its outcome.
    [[nodiscard]] hazard check(std::size_t w, const operands& ops) {
        const hazard h = peek(w, ops);
        ++stats_.checks;
        stats_.raw_hazards += h.raw ? 1 : 0;
        stats_.waw_hazards += h.waw ? 1 : 0;
        return h;
    }
    /// True when `ops` of warp `w` can issue now.
    [[nodiscard]] bool can_issue(std::size_t w, const operands& ops) const {
        return !peek(w, ops).any();
    }
    /// True when `ops` of warp `w` is blocked by a long-latency write in flight: the warp
    /// waits on a long-latency event (two-level scheduling demotes it).
    [[nodiscard]] bool waits_on_long_latency(std::size_t w, const operands& ops) const {
        return peek(w, ops).long_latency;
    }

    /// Reserves the destinations of `ops` at issue; `long_latency` flags memory results.
    /// The instruction must be free of hazards (a WAW reserve is a contract_error).
    void reserve(std::size_t w, const operands& ops, bool long_latency = false) {
        warp_state& s = at(w);
        WARPKIT_EXPECTS((ops.dsts & ~reg_mask()) == 0);
        WARPKIT_EXPECTS((ops.pred_dsts & ~pred_mask()) == 0);
        WARPKIT_EXPECTS((ops.dsts & s.pending) == 0 && (ops.pred_dsts & s.pending_preds) == 0);
        s.pending |= ops.dsts;
        s.pending_preds |= ops.pred_dsts;
        const auto n =
            static_cast<std::uint64_t>(std::popcount(ops.dsts) + std::popcount(ops.pred_dsts));
        stats_.reservations += n;
        if (long_latency) {
            s.long_regs |= ops.dsts;
            s.long_preds |= ops.pred_dsts;
            stats_.long_latency_reservations += n;
        }
    }
    /// Releases register `r` of warp `w` at writeback (it must be pending).
    void release(std::size_t w, unsigned r) {
        warp_state& s = at(w);
        WARPKIT_EXPECTS(r < params_.registers);
        const std::uint64_t b = std::uint64_t{1} << r;
        WARPKIT_EXPECTS((s.pending & b) != 0);
        s.pending &= ~b;
        s.long_regs &= ~b;
        ++stats_.releases;
    }
    /// Releases predicate `p` of warp `w` (it must be pending).
    void release_pred(std::size_t w, unsigned p) {
        warp_state& s = at(w);
        WARPKIT_EXPECTS(p < params_.predicates);
        const std::uint64_t b = std::uint64_t{1} << p;
        WARPKIT_EXPECTS((s.pending_preds & b) != 0);
        s.pending_preds &= ~b;
        s.long_preds &= ~b;
        ++stats_.releases;
    }
    /// Releases every destination of `ops` (the writeback of one instruction).
    void release(std::size_t w, const operands& ops) {
        for (std::uint64_t d = ops.dsts; d != 0; d &= d - 1)
            release(w, static_cast<unsigned>(std::countr_zero(d)));
        for (std::uint64_t d = ops.pred_dsts; d != 0; d &= d - 1)
            release_pred(w, static_cast<unsigned>(std::countr_zero(d)));
    }

    /// True when register `r` of warp `w` has a write in flight.
    [[nodiscard]] bool pending(std::size_t w, unsigned r) const {
        return r < 64 && ((at(w).pending >> r) & 1U) != 0;
    }
    /// True when predicate `p` of warp `w` has a write in flight.
    [[nodiscard]] bool pending_pred(std::size_t w, unsigned p) const {
        return p < 64 && ((at(w).pending_preds >> p) & 1U) != 0;
    }
    /// Writes in flight for warp `w` (registers and predicates).
    [[nodiscard]] std::size_t pending_count(std::size_t w) const {
        const warp_state& s = at(w);
        return static_cast<std::size_t>(std::popcount(s.pending) + std::popcount(s.pending_preds));
    }
    /// True when warp `w` has a long-latency write in flight.
    [[nodiscard]] bool has_long_latency(std::size_t w) const {
        const warp_state& s = at(w);
        return (s.long_regs | s.long_preds) != 0;
    }
    /// True when no warp has a write in flight.
    [[nodiscard]] bool empty() const noexcept {
        for (const auto& s : warps_)
            if ((s.pending | s.pending_preds) != 0) return false;
        return true;
    }
    /// Forgets warp `w`'s pending writes (a new warp takes the slot).
    void clear(std::size_t w) { at(w) = warp_state{}; }

    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    [[nodiscard]] const stats_type& stats() const noexcept { return stats_; }
    /// Restarts the counters from zero (reservations stay).
    void reset_stats() noexcept { reset_counters(stats_); }

private:
    struct warp_state {
        std::uint64_t pending = 0;
        std::uint64_t pending_preds = 0;
        std::uint64_t long_regs = 0;
        std::uint64_t long_preds = 0;
    };

    static const params_type& checked(const params_type& p) {
        warpkit::validate(p);
        return p;
    }
    [[nodiscard]] std::uint64_t reg_mask() const noexcept {
        return params_.registers >= 64 ? ~std::uint64_t{0}
                                       : (std::uint64_t{1} << params_.registers) - 1;
    }
    [[nodiscard]] std::uint64_t pred_mask() const noexcept {
        return params_.predicates >= 64 ? ~std::uint64_t{0}
                                        : (std::uint64_t{1} << params_.predicates) - 1;
    }
    [[nodiscard]] warp_state& at(std::size_t w) {
        WARPKIT_EXPECTS(w < warps_.size());
        return warps_[w];
    }
    [[nodiscard]] const warp_state& at(std::size_t w) const {
        WARPKIT_EXPECTS(w < warps_.size());
        return warps_[w];
    }

    params_type params_;
    stats_type stats_{};
    std::vector<warp_state> warps_;
};

} // namespace warpkit::issue
