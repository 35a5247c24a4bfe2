#pragma once
/// \file
/// `functional_unit<Payload>`: one pipelined execution pipeline (INT, FP, SFU or LD/ST) with a
/// latency and an initiation interval per opcode class.

#include <warpkit/core/error.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/exec/op_class.hpp>
#include <warpkit/exec/timing.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::exec {

/// Counters of one functional unit.
struct functional_unit_stats {
    std::uint64_t cycles = 0;      ///< cycles ticked
    std::uint64_t busy_cycles = 0; ///< cycles with at least one instruction in the pipeline
    std::uint64_t idle_cycles = 0; ///< cycles with an empty pipeline (nothing issued either)
    std::uint64_t issued = 0;      ///< instructions accepted
    std::uint64_t completed = 0;   ///< results that left the pipeline
    /// Completions held back one cycle because the result buffer was full.
    std::uint64_t result_stall_cycles = 0;
    std::array<std::uint64_t, op_class_count> issued_by_class{}; ///< indexed by op_class
    WARPKIT_FIELDS(functional_unit_stats, cycles, busy_cycles, idle_cycles, issued, completed,
                   result_stall_cycles, issued_by_class)
};

/// A pipeline executing the opcode classes of one unit class. Cycle protocol: during cycle t
/// the owner may issue one instruction (`can_issue`, `issue`) and read results (`ready`,
/// `front`, `pop`); `tick()` ends the cycle. An instruction of latency L issued in cycle t
/// occupies the pipeline in cycles t .. t+L-1 (`busy()`) and its result is readable from
/// cycle t+L; the next issue is allowed from cycle t + initiation_interval. Results leave in
/// order of readiness (issue order among equal ready cycles) into a result buffer; if the
/// owner does not drain it, finished instructions stay in the pipeline and issue stalls.
template <class Payload = std::uint32_t>
class functional_unit {
public:
    using params_type = timing_params;
    using stats_type = functional_unit_stats;
    using payload_type = Payload;

    /// A unit of class `kind` (int_alu, fp, sfu, ldst, dp or tensor) with the given timing;
    /// `also`: bit u set when it also executes unit class u's opcode classes (the FP pipeline
    /// of an SM without DP or tensor units runs theirs).
    explicit functional_unit(isa::unit_class kind, const timing_params& timing = {},
                             std::uint32_t also = 0)
        : timing_(checked(kind, timing)), kind_(kind), runs_(runs_of(kind, also)),
          slots_(std::size_t{max_latency_(timing_, runs_)}), done_(slots_.size()) {}

    /// The unit class this pipeline executes.
    [[nodiscard]] isa::unit_class kind() const noexcept { return kind_; }
    /// True if opcode class `o` runs on this unit.
    [[nodiscard]] bool accepts(op_class o) const noexcept {
        return ((runs_ >> isa::index(unit_of(o))) & 1U) != 0;
    }
    /// True if an instruction could enter the pipeline this cycle (interval and space).
    [[nodiscard]] bool can_issue() const noexcept {
        return !issued_now_ && now_ >= next_issue_ && in_flight_ < slots_.size();
    }
    /// True if an instruction of class `o` can be issued this cycle.
    [[nodiscard]] bool can_issue(op_class o) const noexcept { return accepts(o) && can_issue(); }

    /// Issues `value` as an instruction of class `o` in this cycle. An instruction of
    /// `passes` > 1 passes (a warp wider than the datapath it runs on) enters the pipeline
    /// again every initiation interval: the next issue waits passes x the interval and the
    /// result is ready (passes - 1) intervals later.
    void issue(op_class o, Payload value, std::uint32_t passes = 1) {
        WARPKIT_EXPECTS(can_issue(o) && passes >= 1);
        const op_timing& t = timing_.of(o);
        const std::uint64_t extra = std::uint64_t{passes - 1} * t.initiation_interval;
        // Keep the ring ordered by ready cycle; equal ready cycles keep issue order.
        const std::uint64_t due = now_ + t.latency + extra;
        std::size_t pos = in_flight_;
        while (pos > 0 && slot(pos - 1).due > due) {
            slot(pos) = std::move(slot(pos - 1));
            --pos;
        }
        slot(pos) = entry{due, std::move(value)};
        ++in_flight_;
        next_issue_ = now_ + t.initiation_interval + extra;
        issued_now_ = true;
        ++stats_.issued;
        ++stats_.issued_by_class[index(o)];
    }

    /// True while an instruction occupies the pipeline this cycle (one issued now included).
    [[nodiscard]] bool busy() const noexcept { return in_flight_ > 0; }
    /// Instructions in the pipeline.
    [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_; }
    /// True when a finished result waits in the result buffer.
    [[nodiscard]] bool ready() const noexcept { return !done_.empty(); }
    [[nodiscard]] const Payload& front() const {
        WARPKIT_EXPECTS(ready());
        return done_.front();
    }
    void pop() {
        WARPKIT_EXPECTS(ready());
        done_.pop();
    }
    [[nodiscard]] Payload take() {
        WARPKIT_EXPECTS(ready());
        return done_.take();
    }
    /// Results waiting in the result buffer.
    [[nodiscard]] std::size_t results() const noexcept { return done_.size(); }
    /// Cycles until the unit's initiation interval allows another issue (0: now).
    [[nodiscard]] std::uint64_t cycles_to_issue() const noexcept {
        return next_issue_ > now_ ? next_issue_ - now_ : 0;
    }

    /// `n` cycles of an empty pipeline at once: what n tick()s do when nothing is in flight
    /// and no result waits (the pipeline must be empty).
    void skip_idle(std::uint64_t n) noexcept {
        WARPKIT_EXPECTS(in_flight_ == 0);
        stats_.cycles += n;
        stats_.idle_cycles += n;
        now_ += n;
        if (n > 0) issued_now_ = false;
    }

    /// Ends the current cycle: counts it busy or idle and moves finished results out. Returns
    /// whether the pipeline held an instruction this cycle (false: idle, nothing changed but
    /// the clock).
    bool tick() noexcept {
        ++stats_.cycles;
        const bool busy = in_flight_ > 0;
        if (busy)
            ++stats_.busy_cycles;
        else
            ++stats_.idle_cycles;
        ++now_;
        issued_now_ = false;
        while (in_flight_ > 0 && slot(0).due <= now_) {
            if (!done_.can_push()) {
                ++stats_.result_stall_cycles;
                break;
            }
            done_.push(std::move(slot(0).value));
            head_ = head_ + 1 == slots_.size() ? 0 : head_ + 1;
            --in_flight_;
            ++stats_.completed;
        }
        return busy;
    }

    [[nodiscard]] const timing_params& params() const noexcept { return timing_; }
    [[nodiscard]] const functional_unit_stats& stats() const noexcept { return stats_; }
    /// Restarts the counters from zero (the pipeline's contents stay).
    void reset_stats() noexcept { reset_counters(stats_); }

private:
    struct entry {
        std::uint64_t due = 0;
        Payload value{};
    };

    static const timing_params& checked(isa::unit_class kind, const timing_params& t) {
        check(has_datapath(kind), "kind", static_cast<int>(kind),
              "int_alu, fp, sfu, ldst, dp or tensor");
        return validated(t);
    }
    static std::uint32_t runs_of(isa::unit_class kind, std::uint32_t also) {
        check(also < (1U << isa::unit_class_count), "also", also,
              "a set of unit classes (bits 0 to " + std::to_string(isa::unit_class_count - 1) +
                  ")");
        return also | (1U << isa::index(kind));
    }
    // The longest latency among the opcode classes of the unit classes in `runs`.
    static std::uint32_t max_latency_(const timing_params& t, std::uint32_t runs) noexcept {
        std::uint32_t m = 0;
        for (std::size_t u = 0; u < isa::unit_class_count; ++u)
            if (((runs >> u) & 1U) != 0)
                m = std::max(m, t.max_latency(static_cast<isa::unit_class>(u)));
        return m;
    }
    [[nodiscard]] entry& slot(std::size_t i) noexcept {
        const std::size_t j = head_ + i;
        return slots_[j >= slots_.size() ? j - slots_.size() : j];
    }

    timing_params timing_;
    isa::unit_class kind_;
    std::uint32_t runs_; // bit u: executes unit class u's opcode classes
    // An instruction stays at most max_latency cycles and one enters per cycle, so max_latency
    // slots never limit issue while the result buffer is drained.
    std::vector<entry> slots_;
    fifo<Payload> done_;
    std::size_t head_ = 0;
    std::size_t in_flight_ = 0;
    std::uint64_t now_ = 0;
    std::uint64_t next_issue_ = 0;
    bool issued_now_ = false;
    functional_unit_stats stats_{};
};

} // namespace warpkit::exec
