#pragma once
/// \file
/// `writeback_stage`: where an SM's results release their registers. Each cycle it takes
/// every result leaving an execution pipeline (the clusters of both halves, in order), then
/// every memory result due by now from its `result_queue`, the port the LD/ST stage and the
/// memory port schedule into: a register write of a finished access, or one data return of a
/// pending-request-table entry (an L1 hit), which the memory port resolves.

#include <warpkit/gpu/stages/warp_context.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace warpkit::gpu::stages {

/// A memory result on its way to writeback; `Operands` is the SM's issue::basic_operands.
template <class Operands>
struct basic_memory_result {
    using operands_type = Operands;
    static constexpr std::uint32_t no_entry = ~std::uint32_t{0};
    std::uint64_t at;               ///< cycle it arrives
    std::uint32_t slot;             ///< warp slot
    Operands writes;                ///< registers it writes
    std::uint32_t entry = no_entry; ///< or: one data return of this PRT entry (L1 hit)
    friend bool operator>(const basic_memory_result& a, const basic_memory_result& b) noexcept {
        return a.at > b.at;
    }
};
/// The memory result of an SM with the 64-register scoreboard.
using memory_result = basic_memory_result<issue::operands>;

/// `Result`s (memory_result) in flight, earliest first (a min-heap on arrival cycle).
template <class Result = memory_result>
class result_queue {
public:
    using value_type = Result;
    /// Room for `expected` results without reallocation.
    void reserve(std::size_t expected) { heap_.reserve(expected); }
    /// Schedules `r`.
    void push(const Result& r) {
        heap_.push_back(r);
        std::push_heap(heap_.begin(), heap_.end(), later{});
    }
    /// True when a result arrives by `now`.
    [[nodiscard]] bool due(std::uint64_t now) const noexcept {
        return !heap_.empty() && heap_.front().at <= now;
    }
    /// Removes and returns the earliest result.
    Result pop() {
        std::pop_heap(heap_.begin(), heap_.end(), later{});
        const Result r = heap_.back();
        heap_.pop_back();
        return r;
    }
    [[nodiscard]] bool empty() const noexcept { return heap_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return heap_.size(); }

private:
    // The heap order: the later arrival sinks (a min-heap; <functional> is not needed).
    struct later {
        bool operator()(const Result& a, const Result& b) const noexcept { return a > b; }
    };
    std::vector<Result> heap_;
};

/// The writeback stage. `release(slot, writes, memory)` frees registers in the scoreboard
/// (memory: the result came from memory); `data_return(entry)` is one data return of a PRT
/// entry.
template <class Queue = result_queue<>>
class writeback_stage {
public:
    /// The port memory results arrive through.
    [[nodiscard]] Queue& results() noexcept { return results_; }
    [[nodiscard]] const Queue& results() const noexcept { return results_; }
    /// True when no memory result is in flight.
    [[nodiscard]] bool idle() const noexcept { return results_.empty(); }

    /// One cycle at `now`: the results leaving the pipelines of `units` (each an
    /// exec::execution_units<payload>; the clusters its ready_mask() names), then the memory
    /// results due.
    template <class Units, class Release, class DataReturn>
    void tick(std::initializer_list<Units*> units, std::uint64_t now, Release&& release,
              DataReturn&& data_return) {
        for (auto* u : units)
            for (std::uint64_t m = u->ready_mask(); m != 0; m &= m - 1) {
                auto& cluster = (*u)[static_cast<std::size_t>(std::countr_zero(m))];
                while (cluster.ready()) {
                    const auto pl = cluster.take();
                    if (pl.writes.dsts.any()) release(pl.slot, pl.writes, false);
                }
            }
        while (results_.due(now)) {
            const auto r = results_.pop();
            if (r.entry != Queue::value_type::no_entry)
                data_return(r.entry);
            else if (r.writes.dsts.any())
                release(r.slot, r.writes, true);
        }
    }

private:
    Queue results_;
};

} // namespace warpkit::gpu::stages
