#pragma once
/// \file
/// `dram_channel<Scheduler>`: one DRAM channel with its banks under an open-row policy (a row
/// stays open until a request for another row of the bank needs it closed), the timing
/// constraints of `dram_timing` per bank (tRCD, tRAS, tRP, tRC, tWR, tRTP) and per channel
/// (tRRD, tCCD, the data bus, read-to-write and write-to-read turnarounds), one command per
/// cycle chosen by `Scheduler` (FR-FCFS by default). A request's latency runs from its arrival
/// to the end of its data burst, as in Ramulator and DRAMSim3. Counters of precharges,
/// activates, reads and writes feed the DRAM power model (paper 001 eq. 2).

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/histogram.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/dram_params.hpp>
#include <warpkit/mem/dram_scheduler.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace warpkit::mem {

/// A request to a DRAM channel.
struct dram_request {
    std::uint64_t addr = 0;
    bool is_write = false;
    std::uint64_t id = 0; ///< the caller's tag, returned with the response
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

/// Counters of a DRAM channel (paper 001 eq. 2 takes precharges, activates, reads, writes).
struct dram_stats {
    std::uint64_t precharges = 0;
    std::uint64_t activates = 0;
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    std::uint64_t row_hits = 0;         ///< requests whose first command was a read or write
    std::uint64_t row_misses = 0;       ///< requests that found their bank closed
    std::uint64_t row_conflicts = 0;    ///< requests that found another row open
    std::uint64_t rejected = 0;         ///< pushes refused: queue full
    std::uint64_t read_latency_sum = 0; ///< arrival to data, over completed reads
    std::uint64_t cycles = 0;           ///< cycles ticked
    std::uint64_t busy_cycles = 0;      ///< cycles with a request queued or in flight
    std::uint64_t data_cycles = 0;      ///< data-bus cycles of the bursts issued
    WARPKIT_FIELDS(dram_stats, precharges, activates, reads, writes, row_hits, row_misses,
                   row_conflicts, rejected, read_latency_sum, cycles, busy_cycles, data_cycles)
};

/// Row hits over requests served; 0 before any.
[[nodiscard]] constexpr double row_buffer_hit_rate(const dram_stats& s) noexcept {
    const std::uint64_t n = s.row_hits + s.row_misses + s.row_conflicts;
    return n == 0 ? 0.0 : static_cast<double>(s.row_hits) / static_cast<double>(n);
}
/// Mean read latency in cycles; 0 before any read.
[[nodiscard]] constexpr double mean_read_latency(const dram_stats& s) noexcept {
    return s.reads == 0 ? 0.0
                        : static_cast<double>(s.read_latency_sum) / static_cast<double>(s.reads);
}

/// One DRAM channel with its scheduler queue.
template <dram_scheduler Scheduler = fr_fcfs>
class dram_channel {
public:
    using params_type = dram_params;
    using stats_type = dram_stats;

    explicit dram_channel(const dram_params& p = {}, Scheduler s = {})
        : p_((validate(p), p)), sched_(s), burst_(p.timing.burst_cycles()), banks_(p.map.banks),
          inflight_(p.queue + std::max(p.timing.tCL, p.timing.tWL) + p.timing.burst_cycles() + 1) {
        queue_.reserve(p.queue);
        cands_.reserve(p.queue);
    }

    [[nodiscard]] const dram_params& params() const noexcept { return p_; }
    /// Current cycle (the next one `tick` processes).
    [[nodiscard]] std::uint64_t now() const noexcept { return now_; }
    [[nodiscard]] bool can_accept() const noexcept { return queue_.size() < p_.queue; }
    [[nodiscard]] std::size_t queued() const noexcept { return queue_.size(); }
    /// True while a request is queued or its data is still on the way.
    [[nodiscard]] bool busy() const noexcept { return !queue_.empty() || !inflight_.empty(); }

    /// Queues a request arriving now; false (and a rejected count) when the queue is full.
    /// The address is decoded with params().map; its channel bits are ignored here.
    bool push(const dram_request& r) {
        if (!can_accept()) {
            ++stats_.rejected;
            return false;
        }
        const auto loc = p_.map.decode(r.addr);
        queue_.push_back(entry{r, now_, loc.bank, loc.row, false});
        wake_ = now_;
        return true;
    }

    /// Runs one cycle: issues at most one command. Returns false when the channel had nothing
    /// to do (no request queued or in flight).
    bool tick() {
        ++stats_.cycles;
        const bool was_busy = busy();
        if (!queue_.empty() && now_ >= wake_) issue_one();
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

    [[nodiscard]] const dram_stats& stats() const noexcept { return stats_; }
    void reset_stats() noexcept { stats_ = {}; }

private:
    struct entry {
        dram_request req;
        std::uint64_t arrival;
        std::uint32_t bank;
        std::uint64_t row;
        bool started; // a command was issued for it (its row-hit class is known)
    };
    struct bank_state {
        bool open = false;
        std::uint64_t row = 0;
        std::uint64_t next_act = 0;
        std::uint64_t next_pre = 0;
        std::uint64_t next_col = 0; // earliest read or write (tRCD)
    };

    [[nodiscard]] const bank_state& bank_at(std::uint32_t b) const {
        WARPKIT_EXPECTS(b < banks_.size());
        return banks_[b];
    }

    [[nodiscard]] dram_command next_command(const entry& e) const noexcept {
        const bank_state& b = banks_[e.bank];
        if (!b.open) return dram_command::activate;
        if (b.row != e.row) return dram_command::precharge;
        return e.req.is_write ? dram_command::write : dram_command::read;
    }
    // First cycle `c` may issue on bank `b` as things stand; never while the responses
    // waiting to be popped fill the in-flight buffer.
    [[nodiscard]] std::uint64_t ready_at(dram_command c, const bank_state& b) const noexcept {
        switch (c) {
        case dram_command::activate:
            return std::max(b.next_act, chan_next_act_);
        case dram_command::precharge:
            return b.next_pre;
        case dram_command::read:
            return inflight_.can_push() ? std::max(b.next_col, chan_next_read_) : never;
        case dram_command::write:
            return inflight_.can_push() ? std::max(b.next_col, chan_next_write_) : never;
        }
        return never;
    }

    void issue_one() {
        cands_.clear();
        std::uint64_t soonest = never;
        for (const entry& e : queue_) {
            dram_candidate c;
            c.next = next_command(e);
            const std::uint64_t at = ready_at(c.next, banks_[e.bank]);
            c.ready = at <= now_;
            if (at > now_) soonest = std::min(soonest, at);
            c.row_hit = c.next == dram_command::read || c.next == dram_command::write;
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
            // ready, a request arrives or a response leaves.
            wake_ = soonest;
            return;
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
        execute(c, e);
        if (c == dram_command::read || c == dram_command::write)
            queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(k));
    }

    void execute(dram_command c, const entry& e) {
        const dram_timing& t = p_.timing;
        bank_state& b = banks_[e.bank];
        const auto later = [](std::uint64_t& x, std::uint64_t v) { x = std::max(x, v); };
        switch (c) {
        case dram_command::activate:
            ++stats_.activates;
            b.open = true;
            b.row = e.row;
            later(b.next_col, now_ + t.tRCD);
            later(b.next_pre, now_ + t.tRAS);
            later(b.next_act, now_ + t.tRC);
            later(chan_next_act_, now_ + t.tRRD);
            return;
        case dram_command::precharge:
            ++stats_.precharges;
            b.open = false;
            later(b.next_act, now_ + t.tRP);
            return;
        case dram_command::read: {
            ++stats_.reads;
            const std::uint64_t done = now_ + t.tCL + burst_;
            later(chan_next_read_, now_ + std::max(t.tCCD, burst_));
            // Read-to-write: the write's data may follow the read's data after a turnaround.
            const std::uint64_t rtw = std::uint64_t{t.tCL} + burst_ + t.tRTRS;
            later(chan_next_write_, now_ + (rtw > t.tWL ? rtw - t.tWL : 0));
            later(b.next_pre, now_ + t.tRTP);
            stats_.data_cycles += burst_;
            stats_.read_latency_sum += done - e.arrival;
            inflight_.push(dram_response{e.req.addr, false, e.req.id, e.arrival, done});
            return;
        }
        case dram_command::write: {
            ++stats_.writes;
            const std::uint64_t done = now_ + t.tWL + burst_;
            later(chan_next_write_, now_ + std::max(t.tCCD, burst_));
            later(chan_next_read_, done + t.tWTR);
            later(b.next_pre, done + t.tWR);
            stats_.data_cycles += burst_;
            inflight_.push(dram_response{e.req.addr, true, e.req.id, e.arrival, done});
            return;
        }
        }
    }

    dram_params p_;
    Scheduler sched_;
    std::uint32_t burst_;
    std::vector<bank_state> banks_;
    std::vector<std::uint8_t> bank_hit_ = std::vector<std::uint8_t>(banks_.size());
    std::vector<entry> queue_;
    std::vector<dram_candidate> cands_;
    fifo<dram_response> inflight_;
    static constexpr std::uint64_t never = ~std::uint64_t{0};
    std::uint64_t now_ = 0;
    std::uint64_t wake_ = 0; // no command can issue before this cycle
    std::uint64_t chan_next_act_ = 0;
    std::uint64_t chan_next_read_ = 0;
    std::uint64_t chan_next_write_ = 0;
    dram_stats stats_{};
};

} // namespace warpkit::mem
