#pragma once
/// \file
/// Power traces: the average power of every component over each sampling interval (default
/// 500 core cycles), written as CSV (one row per interval).

#include <warpkit/core/error.hpp>
#include <warpkit/power/activity.hpp>
#include <warpkit/power/component.hpp>
#include <warpkit/power/model.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace warpkit::power {

/// One interval of a power trace (W).
struct trace_row {
    std::uint64_t start_cycle = 0; ///< cycles since the start (of the intervals' own clocks)
    std::uint64_t cycles = 0;
    double start_seconds = 0;
    double seconds = 0;
    double mhz = 0;
    std::array<double, component_count> dynamic_w{};
    double idle_sm_w = 0;
    double gating_overhead_w = 0;
    double leakage_w = 0;
    std::uint32_t active_sms = 0;
    [[nodiscard]] double dynamic_total_w() const noexcept {
        return sum_from(idle_sm_w + gating_overhead_w, dynamic_w);
    }
    [[nodiscard]] double total_w() const noexcept { return dynamic_total_w() + leakage_w; }
};

/// A power trace: rows appended interval by interval, kept in memory or (stream_to) written
/// out as they come.
class power_trace {
public:
    /// A trace of intervals of `sample_cycles` core cycles (the last may be shorter).
    explicit power_trace(std::uint64_t sample_cycles = 500) : sample_cycles_(sample_cycles) {
        WARPKIT_EXPECTS(sample_cycles > 0);
    }

    [[nodiscard]] std::uint64_t sample_cycles() const noexcept { return sample_cycles_; }
    [[nodiscard]] const std::vector<trace_row>& rows() const noexcept { return rows_; }
    [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
    void reserve(std::size_t n) { rows_.reserve(n); }
    void clear() noexcept { rows_.clear(); }

    /// Writes the CSV header to `os` now and every row to it as add() makes it, keeping only
    /// the last row (rows() holds at most one): memory stays flat however long the trace.
    /// The text is write_csv's. `os` must outlive the trace's last add().
    void stream_to(std::ostream& os) {
        os << csv_header() << '\n';
        stream_ = &os;
        rows_.clear();
    }

    /// Appends the breakdown of the next interval (`active_sms`: SMs with work in it).
    void add(const power_breakdown& b, std::uint32_t active_sms = 0) {
        trace_row r;
        if (!rows_.empty()) {
            r.start_cycle = rows_.back().start_cycle + rows_.back().cycles;
            r.start_seconds = rows_.back().start_seconds + rows_.back().seconds;
        }
        r.cycles = b.cycles;
        r.seconds = b.seconds;
        r.mhz = b.op.mhz;
        r.dynamic_w = b.dynamic_w;
        r.idle_sm_w = b.idle_sm_w;
        r.gating_overhead_w = b.gating_overhead_w;
        r.leakage_w = b.leakage_total_w();
        r.active_sms = active_sms;
        if (stream_ != nullptr) {
            write_row(*stream_, r);
            rows_.clear();
        }
        rows_.push_back(r);
    }

    /// Evaluates the interval `a` with `m` at `op` and appends it.
    void record(const model& m, const activity& a, const operating_point& op) {
        m.evaluate(a, scratch_, op);
        add(scratch_, static_cast<std::uint32_t>(a.active_sms()));
    }
    /// Evaluates the interval `a` at the nominal point and appends it.
    void record(const model& m, const activity& a) { record(m, a, m.nominal()); }

    /// Total power of every row (W), e.g. for the RLC filter.
    [[nodiscard]] std::vector<double> total_w() const {
        std::vector<double> v;
        v.reserve(rows_.size());
        for (const auto& r : rows_)
            v.push_back(r.total_w());
        return v;
    }

    /// The CSV header: cycle, time_us, cycles, mhz, active_sms, one column per component
    /// (dynamic W), idle_sm, gating_overhead, leakage, dynamic, total.
    [[nodiscard]] static std::string csv_header() {
        std::string h = "cycle,time_us,cycles,mhz,active_sms";
        for (std::size_t i = 0; i < component_count; ++i) {
            h += ',';
            h += name(component_at(i));
        }
        h += ",idle_sm,gating_overhead,leakage,dynamic,total";
        return h;
    }

    /// Writes the header and one row per interval.
    void write_csv(std::ostream& os) const {
        os << csv_header() << '\n';
        for (const auto& r : rows_)
            write_row(os, r);
    }

    /// Writes one CSV row (nine significant digits).
    static void write_row(std::ostream& os, const trace_row& r) {
        const auto old = os.precision(9);
        os << r.start_cycle << ',' << r.start_seconds * 1e6 << ',' << r.cycles << ',' << r.mhz
           << ',' << r.active_sms;
        for (double v : r.dynamic_w)
            os << ',' << v;
        os << ',' << r.idle_sm_w << ',' << r.gating_overhead_w << ',' << r.leakage_w << ','
           << r.dynamic_total_w() << ',' << r.total_w() << '\n';
        os.precision(old);
    }

private:
    std::uint64_t sample_cycles_;
    std::vector<trace_row> rows_;
    std::ostream* stream_ = nullptr; ///< set by stream_to
    power_breakdown scratch_;
};

} // namespace warpkit::power
