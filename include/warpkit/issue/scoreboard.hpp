#pragma once
/// \file
/// `scoreboard`: per-warp pending writes. An instruction may issue only when none of the
/// registers and predicates it reads (RAW) or writes (WAW) has a write in flight; its
/// destinations are reserved at issue and released at writeback. Destinations written by
/// long-latency (memory) instructions are flagged, so an SM can tell a two-level scheduler
/// that a warp waits on a long-latency event.

#include <warpkit/core/bit_set.hpp>
#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/issue/fwd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::issue {

/// The registers and predicates one instruction reads and writes, as bit sets of
/// `Registers` and `Predicates` members. Built fluently: `operands{}.read(1).read(2).write(3)
/// .guard(0)`.
template <std::size_t Registers, std::size_t Predicates>
struct basic_operands {
    static constexpr std::size_t registers = Registers;
    static constexpr std::size_t predicates = Predicates;
    using register_set = bit_set<Registers>;
    using predicate_set = bit_set<Predicates>;

    register_set srcs{};       ///< general registers read
    register_set dsts{};       ///< general registers written
    predicate_set pred_srcs{}; ///< predicates read (the guard predicate included)
    predicate_set pred_dsts{}; ///< predicates written (set-predicate instructions)

    /// Adds source register `r` (< Registers).
    [[nodiscard]] constexpr basic_operands read(unsigned r) const {
        return with_(&basic_operands::srcs, r);
    }
    /// Adds destination register `r` (< Registers).
    [[nodiscard]] constexpr basic_operands write(unsigned r) const {
        return with_(&basic_operands::dsts, r);
    }
    /// Adds predicate `p` (< Predicates) as the guard or another predicate source.
    [[nodiscard]] constexpr basic_operands guard(unsigned p) const {
        return with_(&basic_operands::pred_srcs, p);
    }
    /// Adds predicate `p` (< Predicates) as a destination.
    [[nodiscard]] constexpr basic_operands write_pred(unsigned p) const {
        return with_(&basic_operands::pred_dsts, p);
    }
    /// True when the instruction writes anything.
    [[nodiscard]] constexpr bool writes_any() const noexcept {
        return dsts.any() || pred_dsts.any();
    }
    /// Registers and predicates written.
    [[nodiscard]] constexpr std::size_t write_count() const noexcept {
        return dsts.count() + pred_dsts.count();
    }
    friend constexpr bool operator==(const basic_operands&,
                                     const basic_operands&) noexcept = default;

private:
    // A copy with `index` added to the set `member` names.
    template <class Set>
    [[nodiscard]] constexpr basic_operands with_(Set basic_operands::*member,
                                                 unsigned index) const {
        basic_operands o = *this;
        (o.*member).set(index);
        return o;
    }
};

/// The operands of a 64-register, 64-predicate scoreboard (Fermi's 63 registers and 7
/// predicates fit).
using operands = basic_operands<64, 64>;

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
    /// General registers per thread (Fermi: at most 63). At most the scoreboard's width
    /// (its `Registers` parameter: 64 for `scoreboard`).
    std::uint32_t registers = 63;
    /// Predicate registers per thread (Fermi: P0..P6). At most the `Predicates` width.
    std::uint32_t predicates = 7;

    /// Checks the ranges every width allows; the scoreboard checks its own width on top.
    void validate() const {
        check_range("warps", warps, std::uint32_t{1}, std::uint32_t{4096});
        check_range("registers", registers, std::uint32_t{1}, max_width);
        check_range("predicates", predicates, std::uint32_t{0}, max_width);
    }
    /// Widest scoreboard the params describe (registers and predicates).
    static constexpr std::uint32_t max_width = 4096;
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

/// Per-warp pending-write tracking for RAW and WAW hazards on registers and predicates: a
/// set of `Registers` register bits and one of `Predicates` predicate bits per warp (the
/// widths are template parameters so that a 255-register ISA is tracked without folding,
/// while the 64-wide `scoreboard` stays one word per set).
template <std::size_t Registers, std::size_t Predicates>
class basic_scoreboard {
public:
    using params_type = scoreboard_params;
    using stats_type = scoreboard_stats;
    using operands_type = basic_operands<Registers, Predicates>;
    static constexpr std::size_t register_width = Registers;
    static constexpr std::size_t predicate_width = Predicates;

    basic_scoreboard() : basic_scoreboard(params_type{}) {}
    /// Throws config_error when `p` is out of range (registers and predicates at most the
    /// widths).
    explicit basic_scoreboard(const params_type& p)
        : params_(checked(p)), warps_(p.warps),
          reg_mask_(operands_type::register_set::below(p.registers)),
          pred_mask_(operands_type::predicate_set::below(p.predicates)) {}

    /// The hazards `ops` of warp `w` would meet now (does not count).
    [[nodiscard]] hazard peek(std::size_t w, const operands_type& ops) const {
        const warp_state& s = at(w);
        hazard h;
        const auto raw_r = ops.srcs & s.pending;
        const auto raw_p = ops.pred_srcs & s.pending_preds;
        const auto waw_r = ops.dsts & s.pending;
        const auto waw_p = ops.pred_dsts & s.pending_preds;
        h.raw = raw_r.any() || raw_p.any();
        h.waw = waw_r.any() || waw_p.any();
        h.long_latency =
            (raw_r | waw_r).intersects(s.long_regs) || (raw_p | waw_p).intersects(s.long_preds);
        return h;
    }
    /// Like peek, and counts the check and its outcome.
    [[nodiscard]] hazard check(std::size_t w, const operands_type& ops) {
        const hazard h = peek(w, ops);
        ++stats_.checks;
        stats_.raw_hazards += h.raw ? 1 : 0;
        stats_.waw_hazards += h.waw ? 1 : 0;
        return h;
    }
    /// True when `ops` of warp `w` can issue now.
    [[nodiscard]] bool can_issue(std::size_t w, const operands_type& ops) const {
        return !peek(w, ops).any();
    }
    /// True when `ops` of warp `w` is blocked by a long-latency write in flight: the warp
    /// waits on a long-latency event (two-level scheduling demotes it).
    [[nodiscard]] bool waits_on_long_latency(std::size_t w, const operands_type& ops) const {
        return peek(w, ops).long_latency;
    }

    /// Reserves the destinations of `ops` at issue; `long_latency` flags memory results.
    /// The instruction must be free of hazards (a WAW reserve is a contract_error).
    void reserve(std::size_t w, const operands_type& ops, bool long_latency = false) {
        warp_state& s = at(w);
        WARPKIT_EXPECTS(ops.dsts.subset_of(reg_mask_));
        WARPKIT_EXPECTS(ops.pred_dsts.subset_of(pred_mask_));
        WARPKIT_EXPECTS(!ops.dsts.intersects(s.pending) &&
                        !ops.pred_dsts.intersects(s.pending_preds));
        s.pending |= ops.dsts;
        s.pending_preds |= ops.pred_dsts;
        ++s.version;
        const auto n = static_cast<std::uint64_t>(ops.write_count());
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
        release_bit(s.pending, s.long_regs, r, params_.registers);
        ++s.version;
    }
    /// Releases predicate `p` of warp `w` (it must be pending).
    void release_pred(std::size_t w, unsigned p) {
        warp_state& s = at(w);
        release_bit(s.pending_preds, s.long_preds, p, params_.predicates);
        ++s.version;
    }
    /// Releases every destination of `ops` (the writeback of one instruction).
    void release(std::size_t w, const operands_type& ops) {
        ops.dsts.for_each([&](std::size_t r) { release(w, static_cast<unsigned>(r)); });
        ops.pred_dsts.for_each([&](std::size_t p) { release_pred(w, static_cast<unsigned>(p)); });
    }

    /// True when register `r` of warp `w` has a write in flight.
    [[nodiscard]] bool pending(std::size_t w, unsigned r) const { return at(w).pending.test(r); }
    /// True when predicate `p` of warp `w` has a write in flight.
    [[nodiscard]] bool pending_pred(std::size_t w, unsigned p) const {
        return at(w).pending_preds.test(p);
    }
    /// Writes in flight for warp `w` (registers and predicates).
    [[nodiscard]] std::size_t pending_count(std::size_t w) const {
        const warp_state& s = at(w);
        return s.pending.count() + s.pending_preds.count();
    }
    /// True when warp `w` has a long-latency write in flight.
    [[nodiscard]] bool has_long_latency(std::size_t w) const {
        const warp_state& s = at(w);
        return s.long_regs.any() || s.long_preds.any();
    }
    /// True when no warp has a write in flight.
    [[nodiscard]] bool empty() const noexcept {
        for (const auto& s : warps_)
            if (s.pending.any() || s.pending_preds.any()) return false;
        return true;
    }
    /// Forgets warp `w`'s pending writes (a new warp takes the slot).
    void clear(std::size_t w) {
        warp_state& s = at(w);
        s = warp_state{.version = s.version + 1};
    }
    /// A count of the changes to warp `w`'s writes in flight (reserve, release, clear): while
    /// it stays the same, peek(w, ops) gives the same answer for the same `ops`.
    [[nodiscard]] std::uint64_t version(std::size_t w) const { return at(w).version; }

    [[nodiscard]] const params_type& params() const noexcept { return params_; }
    [[nodiscard]] const stats_type& stats() const noexcept { return stats_; }
    /// Restarts the counters from zero (reservations stay).
    void reset_stats() noexcept { reset_counters(stats_); }

private:
    struct warp_state {
        typename operands_type::register_set pending{};
        typename operands_type::predicate_set pending_preds{};
        typename operands_type::register_set long_regs{};
        typename operands_type::predicate_set long_preds{};
        std::uint64_t version = 0;
    };

    static const params_type& checked(const params_type& p) {
        // The widths first: their messages name the ranges that apply to this scoreboard.
        check_range("registers", p.registers, std::uint32_t{1},
                    static_cast<std::uint32_t>(Registers));
        check_range("predicates", p.predicates, std::uint32_t{0},
                    static_cast<std::uint32_t>(Predicates));
        warpkit::validate(p);
        return p;
    }
    // Ends the write in flight to `bit` of one register file of a warp (registers or
    // predicates: its set of writes in flight, its set of long-latency ones and its size).
    template <class Set>
    void release_bit(Set& in_flight, Set& long_latency, unsigned bit, std::uint32_t count) {
        WARPKIT_EXPECTS(bit < count);
        WARPKIT_EXPECTS(in_flight.test(bit));
        in_flight.reset(bit);
        long_latency.reset(bit);
        ++stats_.releases;
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
    typename operands_type::register_set reg_mask_;   // registers below params().registers
    typename operands_type::predicate_set pred_mask_; // predicates below params().predicates
};

/// The scoreboard of 64 registers and 64 predicates per warp (one word per set).
using scoreboard = basic_scoreboard<64, 64>;

} // namespace warpkit::issue
