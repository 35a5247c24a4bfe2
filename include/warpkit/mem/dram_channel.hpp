#pragma once
/// \file
/// `dram_channel<Scheduler>`: one DRAM channel with its banks under an open-row policy (a row
/// stays open until a request for another row of the bank needs it closed), the timing
/// constraints of `dram_timing` per bank (tRCD, tRAS, tRP, tRC, tWR, tRTP), per bank group
/// (tCCDL) and per channel (tRRD, tFAW, tCCD, the data bus, read-to-write and write-to-read
/// turnarounds), refresh (all-bank or per-bank), a write queue drained in batches between
/// watermarks, one command per cycle chosen by `Scheduler` (FR-FCFS by default). A request
/// moves `bytes` in as many bursts as the channel's data path needs (a 128-byte line on the
/// GTX480's 64-bit channel: two bursts of 64 bytes, one column command each). A request's
/// latency runs from its arrival to the end of its last data burst, as in Ramulator and
/// DRAMSim3. Counters of precharges, activates, read and write commands feed the DRAM power
/// model (paper 001 eq. 2); the data-bus cycles lost while requests waited are counted by
/// the constraint that held the next burst back (refresh, turnaround, bank group, row
/// activation, other).

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/dram_params.hpp>
#include <warpkit/mem/dram_scheduler.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace warpkit::mem {

/// A request to a DRAM channel.
struct dram_request {
    std::uint64_t addr = 0;
    bool is_write = false;
    std::uint64_t id = 0;    ///< the caller's tag, returned with the response
    std::uint32_t bytes = 0; ///< bytes it moves (0: one burst)
};

/// A finished request.
struct dram_response {
    std::uint64_t addr = 0;
    bool is_write = false;
    std::uint64_t id = 0;
    std::uint64_t arrival = 0; ///< cycle it entered the queue
    std::uint64_t done = 0;    ///< cycle its data burst ended
    [[nodiscard]] constexpr std::uint64_t latency() const noexcept { return done - arrival; }
};

/// Counters of a DRAM channel (paper 001 eq. 2 takes precharges, activates and the read and
/// write commands, one per burst).
struct dram_stats {
    std::uint64_t precharges = 0; ///< by requests and by refresh
    std::uint64_t activates = 0;
    std::uint64_t reads = 0;            ///< read commands (one burst each)
    std::uint64_t writes = 0;           ///< write commands (one burst each)
    std::uint64_t read_requests = 0;    ///< read requests served
    std::uint64_t write_requests = 0;   ///< write requests served
    std::uint64_t row_hits = 0;         ///< requests whose first command was a read or write
    std::uint64_t row_misses = 0;       ///< requests that found their bank closed
    std::uint64_t row_conflicts = 0;    ///< requests that found another row open
    std::uint64_t rejected = 0;         ///< pushes refused: queue full
    std::uint64_t read_latency_sum = 0; ///< arrival to last data, over completed read requests
    std::uint64_t refreshes = 0;        ///< refresh commands (all-bank or per-bank)
    std::uint64_t cycles = 0;           ///< cycles ticked
    std::uint64_t busy_cycles = 0;      ///< cycles with a request queued or in flight
    std::uint64_t data_cycles = 0;      ///< data-bus cycles of the bursts issued
    /// Data-bus cycles left idle while a request waited (beyond its own CAS or write
    /// latency), by what held the burst that ended the idle time back: a refresh, a
    /// read/write turnaround, the same bank group's tCCDL, its row's precharge and activation
    /// (tRP, tRCD, tRAS, tRC, tRRD, tFAW), or anything else (command order, write batching).
    std::uint64_t lost_refresh = 0;
    std::uint64_t lost_turnaround = 0;
    std::uint64_t lost_bank_group = 0;
    std::uint64_t lost_row = 0;
    std::uint64_t lost_other = 0;
    WARPKIT_FIELDS(dram_stats, precharges, activates, reads, writes, read_requests, write_requests,
                   row_hits, row_misses, row_conflicts, rejected, read_latency_sum, refreshes,
                   cycles, busy_cycles, data_cycles, lost_refresh, lost_turnaround, lost_bank_group,
                   lost_row, lost_other)
};

/// Row hits over requests served; 0 before any.
[[nodiscard]] constexpr double row_buffer_hit_rate(const dram_stats& s) noexcept {
    const std::uint64_t n = s.row_hits + s.row_misses + s.row_conflicts;
    return n == 0 ? 0.0 : static_cast<double>(s.row_hits) / static_cast<double>(n);
}
/// Mean read latency in cycles; 0 before any read.
[[nodiscard]] constexpr double mean_read_latency(const dram_stats& s) noexcept {
    return s.read_requests == 0
               ? 0.0
               : static_cast<double>(s.read_latency_sum) / static_cast<double>(s.read_requests);
}
/// Share of the cycles the data bus carried data.
[[nodiscard]] constexpr double data_bus_utilisation(const dram_stats& s) noexcept {
    return s.cycles == 0 ? 0.0 : static_cast<double>(s.data_cycles) / static_cast<double>(s.cycles);
}

/// One DRAM channel with its scheduler queues.
template <dram_scheduler Scheduler = fr_fcfs>
class dram_channel {
public:
    using params_type = dram_params;
    using stats_type = dram_stats;

    explicit dram_channel(const dram_params& p = {}, Scheduler s = {})
        : p_((validate(p), p)), sched_(s), decoder_(p.map), burst_(p.timing.burst_cycles()),
          banks_(p.map.banks), group_next_col_(p.map.bank_groups, 0),
          inflight_(p.queue + p.write_queue + std::max(p.timing.tCL, p.timing.tWL) +
                    p.timing.burst_cycles() + 1),
          next_refresh_(p.timing.tREFI) {
        queue_.reserve(p.queue + p.write_queue);
        cands_.reserve(p.queue + p.write_queue);
        if (p.refresh == refresh_mode::per_bank) next_refresh_ = refresh_step();
    }

    [[nodiscard]] const dram_params& params() const noexcept { return p_; }
    /// Current cycle (the next one `tick` processes).
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }
    /// True when a request of that kind finds room (writes have their own queue when
    /// params().write_queue > 0).
    [[nodiscard]] bool can_accept(bool is_write = false) const noexcept {
        if (p_.write_queue == 0) return queue_.size() < p_.queue;
        return is_write ? writes_queued_ < p_.write_queue : reads_queued_ < p_.queue;
    }
    [[nodiscard]] std::size_t queued() const noexcept { return queue_.size(); }
    /// True while a request is queued or its data is still on the way.
    [[nodiscard]] bool busy() const noexcept { return !queue_.empty() || !inflight_.empty(); }

    /// Queues a request arriving now; false (and a rejected count) when its queue is full.
    /// The address is decoded with params().map; its channel bits are ignored here.
    bool push(const dram_request& r) {
        if (!can_accept(r.is_write)) {
            ++stats_.rejected;
            return false;
        }
        const auto loc = decoder_.decode(r.addr);
        const std::uint64_t per = p_.burst_bytes();
        const auto bursts =
            static_cast<std::uint32_t>(r.bytes == 0 ? 1 : (std::uint64_t{r.bytes} + per - 1) / per);
        queue_.push_back(entry{r, now_, loc.bank, loc.row, false, bursts});
        ++(r.is_write ? writes_queued_ : reads_queued_);
        wake_ = now_;
        return true;
    }

    /// Runs one cycle: a refresh step when one is due, else at most one command. Returns
    /// false when the channel had nothing to do (no request queued or in flight).
    bool tick() {
        ++stats_.cycles;
        const bool was_busy = busy();
        const bool refreshing = p_.refresh != refresh_mode::none && now_ >= next_refresh_;
        if (refreshing && refresh_one()) {
            wake_ = now_ + 1; // a bank closed or a refresh ended: candidates change
        } else if (!queue_.empty() && now_ >= wake_ &&
                   !(refreshing && p_.refresh == refresh_mode::all_bank)) {
            issue_one();
        }
        ++now_;
        if (was_busy) ++stats_.busy_cycles;
        return was_busy;
    }

    /// True when a request's data burst has ended.
    [[nodiscard]] bool has_response() const noexcept {
        return !inflight_.empty() && inflight_.front().done <= now_;
    }
    /// The next finished request, in completion order.
    dram_response pop_response() {
        WARPKIT_EXPECTS(has_response());
        wake_ = now_;
        return inflight_.take();
    }

    /// True when bank `b` has a row open, and which.
    [[nodiscard]] bool row_open(std::uint32_t b) const { return bank_at(b).open; }
    [[nodiscard]] std::uint64_t open_row(std::uint32_t b) const { return bank_at(b).row; }
    /// True while the write queue is being drained (params().write_queue > 0).
    [[nodiscard]] bool draining_writes() const noexcept { return draining_; }

    [[nodiscard]] const dram_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    struct entry {
        dram_request req;
        std::uint64_t arrival;
        std::uint32_t bank;
        std::uint64_t row;
        bool started;         // a command was issued for it (its row-hit class is known)
        std::uint32_t bursts; // column commands still to issue
    };
    struct bank_state {
        bool open = false;
        std::uint64_t row = 0;
        std::uint64_t next_act = 0;
        std::uint64_t next_pre = 0;
        std::uint64_t next_col = 0; // earliest read or write (tRCD)
        // The last refresh that closed this bank: from when it was due to when it ended.
        std::uint64_t refresh_due = 0;
        std::uint64_t refresh_end = 0;
    };

    [[nodiscard]] const bank_state& bank_at(std::uint32_t b) const {
        WARPKIT_EXPECTS(b < banks_.size());
        return banks_[b];
    }
    [[nodiscard]] std::uint64_t refresh_step() const noexcept {
        return p_.refresh == refresh_mode::per_bank
                   ? std::max<std::uint64_t>(1, p_.timing.tREFI / p_.map.banks)
                   : p_.timing.tREFI;
    }
    [[nodiscard]] std::uint32_t group_of(std::uint32_t bank) const noexcept {
        return bank % p_.map.bank_groups;
    }
    // True while bank `b` waits for a refresh that is due (it takes no activate or column
    // command until the refresh has run).
    [[nodiscard]] bool refresh_holds(std::uint32_t b) const noexcept {
        return p_.refresh != refresh_mode::none && now_ >= next_refresh_ &&
               (p_.refresh == refresh_mode::all_bank || b == refresh_bank_);
    }

    // One step of the refresh that is due: close an open bank it covers, or, once they are
    // all closed and precharged, refresh. True when it issued a command.
    bool refresh_one() {
        const dram_timing& t = p_.timing;
        const bool all = p_.refresh == refresh_mode::all_bank;
        const std::uint32_t first = all ? 0 : refresh_bank_;
        const std::uint32_t last = all ? p_.map.banks : refresh_bank_ + 1;
        bool closed = true;
        for (std::uint32_t k = first; k < last; ++k) {
            bank_state& b = banks_[k];
            if (!b.open) continue;
            closed = false;
            if (b.next_pre <= now_) {
                ++stats_.precharges;
                b.open = false;
                b.next_act = std::max(b.next_act, now_ + t.tRP);
                return true;
            }
        }
        if (!closed) return false;
        for (std::uint32_t k = first; k < last; ++k)
            if (banks_[k].next_act > now_) return false;
        const std::uint64_t end = now_ + (all ? t.tRFC : t.tRFCpb);
        for (std::uint32_t k = first; k < last; ++k) {
            banks_[k].next_act = end;
            banks_[k].refresh_due = next_refresh_;
            banks_[k].refresh_end = end;
        }
        ++stats_.refreshes;
        next_refresh_ += refresh_step();
        if (!all) refresh_bank_ = (refresh_bank_ + 1) % p_.map.banks;
        return true;
    }

    [[nodiscard]] dram_command next_command(const entry& e) const noexcept {
        const bank_state& b = banks_[e.bank];
        if (!b.open) return dram_command::activate;
        if (b.row != e.row) return dram_command::precharge;
        return e.req.is_write ? dram_command::write : dram_command::read;
    }
    // The four-activate window: the earliest cycle a fifth activate may follow the last four.
    [[nodiscard]] std::uint64_t faw_ready() const noexcept {
        if (p_.timing.tFAW == 0 || activates_seen_ < 4) return 0;
        return recent_activates_[activates_seen_ % 4] + p_.timing.tFAW;
    }
    // Earliest cycle of a column command of `write` kind to bank `bank` from the channel's
    // and bank group's spacing alone.
    [[nodiscard]] std::uint64_t column_spacing(bool write, std::uint32_t bank) const noexcept {
        const std::uint64_t same = write ? next_write_ : next_read_;
        const std::uint64_t turn = write ? write_turn_ : read_turn_;
        const std::uint64_t group = p_.map.bank_groups > 1 ? group_next_col_[group_of(bank)] : 0;
        return std::max({same, turn, group});
    }
    // First cycle `c` may issue to bank `bank` as things stand; never while the responses waiting
    // to be popped fill the in-flight buffer or a due refresh holds the bank.
    [[nodiscard]] std::uint64_t ready_at(dram_command c, std::uint32_t bank) const noexcept {
        const bank_state& b = banks_[bank];
        switch (c) {
        case dram_command::activate:
            if (refresh_holds(bank)) return never;
            return std::max({b.next_act, chan_next_act_, faw_ready()});
        case dram_command::precharge:
            return b.next_pre;
        case dram_command::read:
        case dram_command::write:
            if (!inflight_.can_push() || refresh_holds(bank)) return never;
            return std::max(b.next_col, column_spacing(c == dram_command::write, bank));
        }
        return never;
    }
    // Whether the write-batching policy lets `e` go now.
    [[nodiscard]] bool eligible(const entry& e) const noexcept {
        return p_.write_queue == 0 || e.req.is_write == draining_;
    }
    // Drain writes from write_high of them (or when no read waits) down to write_low.
    void choose_direction() noexcept {
        if (p_.write_queue == 0) return;
        if (!draining_)
            draining_ =
                writes_queued_ >= p_.write_high || (reads_queued_ == 0 && writes_queued_ > 0);
        else
            draining_ = writes_queued_ > 0 && (reads_queued_ == 0 || writes_queued_ > p_.write_low);
    }

    // Which commands a pass of issue_one may pick: any, or (the second pass of a dual command
    // bus) only row or only column commands.
    enum class command_bus : std::uint8_t { any, row, column };
    [[nodiscard]] static bool is_column(dram_command c) noexcept {
        return c == dram_command::read || c == dram_command::write;
    }

    // One command; with a dual command bus (HBM: row and column commands on buses of their
    // own), a second one of the other kind in the same cycle, chosen after the first took
    // effect (so it sees the bank and bus state the first left).
    void issue_one() {
        const std::optional<dram_command> first = issue_pass(command_bus::any);
        if (first && p_.dual_command_bus && !queue_.empty())
            static_cast<void>(
                issue_pass(is_column(*first) ? command_bus::row : command_bus::column));
    }

    std::optional<dram_command> issue_pass(command_bus only) {
        choose_direction();
        cands_.clear();
        // The entries of one bank needing one command wait for the same cycle: ready_at is
        // computed once per pass for each bank and command some entry needs.
        ++pass_;
        std::uint64_t soonest = never;
        for (const entry& e : queue_) {
            dram_candidate c;
            if (eligible(e)) {
                c.next = next_command(e);
                bank_times& bt = times_[e.bank];
                if (bt.pass != pass_) {
                    bt.pass = pass_;
                    bt.known = 0;
                }
                const auto ci = static_cast<unsigned>(c.next);
                if ((bt.known & (1U << ci)) == 0) {
                    bt.known |= 1U << ci;
                    bt.at[ci] = ready_at(c.next, e.bank);
                }
                const std::uint64_t at = bt.at[ci];
                c.ready = at <= now_ && (only == command_bus::any ||
                                         is_column(c.next) == (only == command_bus::column));
                if (at > now_) soonest = std::min(soonest, at);
                c.row_hit = is_column(c.next);
            }
            cands_.push_back(c);
        }
        // A precharge that would close a row some queued request still hits.
        std::fill(bank_hit_.begin(), bank_hit_.end(), std::uint8_t{0});
        for (std::size_t i = 0; i < queue_.size(); ++i)
            if (cands_[i].row_hit) bank_hit_[queue_[i].bank] = 1;
        for (std::size_t i = 0; i < queue_.size(); ++i)
            cands_[i].closes_hit =
                cands_[i].next == dram_command::precharge && bank_hit_[queue_[i].bank] != 0;
        const std::size_t k = sched_.pick(std::span<const dram_candidate>(cands_));
        if (k == no_pick) {
            // The candidates (so the scheduler's answer) stay the same until a command becomes
            // ready, a request arrives, a response leaves or a refresh falls due. (A second
            // pass follows a command: the channel looks again next cycle.)
            if (only == command_bus::any)
                wake_ = std::min(soonest, p_.refresh == refresh_mode::none ? never : next_refresh_);
            return std::nullopt;
        }
        wake_ = now_ + 1;
        WARPKIT_EXPECTS(k < queue_.size() && cands_[k].ready);
        entry& e = queue_[k];
        const dram_command c = cands_[k].next;
        if (!e.started) {
            e.started = true;
            if (c == dram_command::precharge)
                ++stats_.row_conflicts;
            else if (c == dram_command::activate)
                ++stats_.row_misses;
            else
                ++stats_.row_hits;
        }
        if (is_column(c)) {
            column(e);
            if (--e.bursts == 0) {
                --(e.req.is_write ? writes_queued_ : reads_queued_);
                if (writes_queued_ == 0) draining_ = false; // a drain ends with its queue
                queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
            }
        } else {
            row_command(c, e);
        }
        return c;
    }

    void row_command(dram_command c, const entry& e) {
        const dram_timing& t = p_.timing;
        bank_state& b = banks_[e.bank];
        if (c == dram_command::activate) {
            ++stats_.activates;
            b.open = true;
            b.row = e.row;
            later(b.next_col, now_ + t.tRCD);
            later(b.next_pre, now_ + t.tRAS);
            later(b.next_act, now_ + t.tRC);
            later(chan_next_act_, now_ + t.tRRD);
            recent_activates_[activates_seen_ % 4] = now_;
            ++activates_seen_;
        } else {
            ++stats_.precharges;
            b.open = false;
            later(b.next_act, now_ + t.tRP);
        }
    }

    // One burst of `e`: counts the idle data-bus time it ends, then updates the spacing.
    void column(const entry& e) {
        const dram_timing& t = p_.timing;
        const bool write = e.req.is_write;
        bank_state& b = banks_[e.bank];
        const std::uint64_t latency = write ? t.tWL : t.tCL;
        const std::uint64_t start = now_ + latency;
        const std::uint64_t done = start + burst_;
        count_lost(e, start, latency);
        bus_end_ = std::max(bus_end_, done);
        stats_.data_cycles += burst_;
        later(write ? next_write_ : next_read_, now_ + std::max(t.tCCD, burst_));
        if (p_.map.bank_groups > 1)
            later(group_next_col_[group_of(e.bank)], now_ + std::max(t.tCCDL, burst_));
        if (write) {
            ++stats_.writes;
            later(read_turn_, done + t.tWTR);
            later(b.next_pre, done + t.tWR);
        } else {
            ++stats_.reads;
            // Read-to-write: the write's data may follow the read's data after a turnaround.
            const std::uint64_t rtw = std::uint64_t{t.tCL} + burst_ + t.tRTRS;
            later(write_turn_, now_ + (rtw > t.tWL ? rtw - t.tWL : 0));
            later(b.next_pre, now_ + t.tRTP);
        }
        if (e.bursts > 1) return;
        if (write) {
            ++stats_.write_requests;
        } else {
            ++stats_.read_requests;
            stats_.read_latency_sum += done - e.arrival;
        }
        inflight_.push(dram_response{e.req.addr, write, e.req.id, e.arrival, done});
    }

    // The data bus idles from bus_end_ (or from when `e`'s data could first have come) to
    // `start`: the part inside the bank's last refresh (shifted by the activate and CAS
    // latency that follow it) is refresh's, the rest goes to the latest constraint this
    // command waited for.
    void count_lost(const entry& e, std::uint64_t start, std::uint64_t latency) {
        const std::uint64_t from = std::max(bus_end_, e.arrival + latency);
        if (start <= from) return;
        const bank_state& b = banks_[e.bank];
        const std::uint64_t refresh_from = b.refresh_due + latency;
        const std::uint64_t refresh_to = b.refresh_end + p_.timing.tRCD + latency;
        std::uint64_t in_refresh = 0;
        if (b.refresh_end > 0 && refresh_to > from && refresh_from < start)
            in_refresh = std::min(start, refresh_to) - std::max(from, refresh_from);
        stats_.lost_refresh += in_refresh;
        const std::uint64_t rest = start - from - in_refresh;
        if (rest == 0) return;
        const bool write = e.req.is_write;
        const std::uint64_t turn = write ? write_turn_ : read_turn_;
        const std::uint64_t group = p_.map.bank_groups > 1 ? group_next_col_[group_of(e.bank)] : 0;
        const std::uint64_t row = b.next_col;
        const std::uint64_t same = write ? next_write_ : next_read_;
        const std::uint64_t bound = std::max({turn, group, row, same});
        // Constraints met before the idle time began did not cause it.
        if (bound + latency <= from || bound == same)
            stats_.lost_other += rest;
        else if (bound == turn)
            stats_.lost_turnaround += rest;
        else if (bound == group)
            stats_.lost_bank_group += rest;
        else
            stats_.lost_row += rest;
    }

    static void later(std::uint64_t& x, std::uint64_t v) noexcept { x = std::max(x, v); }

    dram_params p_;
    Scheduler sched_;
    address_decoder decoder_;
    std::uint32_t burst_;
    std::vector<bank_state> banks_;
    std::vector<std::uint64_t> group_next_col_; // tCCDL per bank group
    std::vector<std::uint8_t> bank_hit_ = std::vector<std::uint8_t>(banks_.size());
    struct bank_times {
        std::uint64_t pass = 0;
        unsigned known = 0;                // bit c: at[c] holds ready_at(c) of this pass
        std::array<std::uint64_t, 4> at{}; // ready_at by dram_command
    };
    std::vector<bank_times> times_ = std::vector<bank_times>(banks_.size());
    std::uint64_t pass_ = 0;
    std::vector<entry> queue_;
    std::vector<dram_candidate> cands_;
    fifo<dram_response> inflight_;
    static constexpr std::uint64_t never = ~std::uint64_t{0};
    std::uint64_t now_ = 0;
    std::uint64_t wake_ = 0; // no command can issue before this cycle
    std::uint64_t chan_next_act_ = 0;
    std::uint64_t next_read_ = 0;  // read after read (tCCD, the burst)
    std::uint64_t next_write_ = 0; // write after write
    std::uint64_t read_turn_ = 0;  // read after write (tWTR)
    std::uint64_t write_turn_ = 0; // write after read (the read's data, tRTRS)
    std::uint64_t bus_end_ = 0;    // end of the last burst on the data bus
    std::array<std::uint64_t, 4> recent_activates_{};
    std::uint64_t activates_seen_ = 0;
    std::uint64_t next_refresh_;
    std::uint32_t refresh_bank_ = 0;
    std::size_t reads_queued_ = 0;
    std::size_t writes_queued_ = 0;
    bool draining_ = false;
    dram_stats stats_{};
};

} // namespace warpkit::mem
