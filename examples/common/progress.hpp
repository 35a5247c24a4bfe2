#pragma once
// Shared by the example tools that run for more than a few seconds: one progress line on
// stderr saying what is running, how far it got, how fast it goes and when it should finish.
// On a terminal the line is redrawn in place; with --progress on a file or pipe each update is
// a line of its own, so that logs stay readable. Progress never goes to stdout: a tool's
// output is the same with and without it.

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace example {

/// When a tool shows its progress line (the --quiet and --progress flags).
struct progress_options {
    bool quiet = false;  ///< --quiet: no progress line on a terminal
    bool forced = false; ///< --progress: a progress line even on a file or pipe
    /// On when forced, or when stderr is a terminal and the tool is not quiet.
    [[nodiscard]] bool enabled() const noexcept {
        return forced || (!quiet && isatty(STDERR_FILENO) != 0);
    }
};

/// How far a stage got: `done` of `total` `unit`s ("blocks 120/480", "cycle 400/1,000"), and
/// what its rate counts ("cycles", for "41,200 cycles/s"; empty: the unit).
struct progress_count {
    std::string_view unit;
    std::uint64_t done = 0;
    std::uint64_t total = 0;
    std::string_view rate_unit = {};
};

/// `n` with a comma every three digits (40,000), as the progress line prints counts.
[[nodiscard]] inline std::string grouped(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string text;
    text.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) text += ',';
        text += digits[i];
    }
    return text;
}

/// A span of seconds as the progress line prints it: "12 s", "3 min 05 s", "2 h 07 min".
[[nodiscard]] inline std::string duration_text(double seconds) {
    const auto s = static_cast<long long>(std::llround(seconds < 0 ? 0.0 : seconds));
    char text[48];
    if (s < 60)
        std::snprintf(text, sizeof text, "%lld s", s);
    else if (s < 3600)
        std::snprintf(text, sizeof text, "%lld min %02lld s", s / 60, s % 60);
    else
        std::snprintf(text, sizeof text, "%lld h %02lld min", s / 3600, s / 60 % 60);
    return text;
}

/// A rate as the progress line prints it: whole and grouped from 100 up ("41,200"), two
/// significant digits below ("0.35").
[[nodiscard]] inline std::string rate_text(double per_second) {
    if (per_second >= 100) return grouped(static_cast<std::uint64_t>(per_second));
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", per_second);
    return text;
}

/// Seconds left when `fraction` (0..1) of the work took `elapsed` seconds; negative while
/// nothing is done yet (no estimate).
[[nodiscard]] inline double seconds_left(double elapsed, double fraction) {
    if (!(fraction > 0)) return -1;
    return fraction >= 1 ? 0.0 : elapsed * (1 - fraction) / fraction;
}

/// The progress line of one tool. Updates are cheap when it is off and redraw it at most
/// every 0.2 s when it is on; finish() (or the destructor) leaves stderr on a fresh line.
class progress_line {
public:
    /// `tool` starts every line ("warpkit-run"); `enabled` as progress_options::enabled().
    progress_line(std::string tool, bool enabled)
        : tool_(std::move(tool)), enabled_(enabled), in_place_(isatty(STDERR_FILENO) != 0),
          start_(clock::now()), stage_start_(start_) {
        winsize size{};
        if (in_place_ && ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0) width_ = size.ws_col;
    }
    progress_line(std::string tool, const progress_options& o)
        : progress_line(std::move(tool), o.enabled()) {}
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;
    ~progress_line() { finish(); }

    [[nodiscard]] bool enabled() const noexcept { return enabled_; }
    /// Seconds since the line was made.
    [[nodiscard]] double elapsed() const { return seconds_since(start_); }

    /// A new stage begins: `what` names it in the lines that follow ("vadd on fermi_gtx480");
    /// its count's rate is measured from now on.
    void stage(std::string what) {
        what_ = std::move(what);
        stage_start_ = clock::now();
    }

    /// Shows `count` of the current stage and `detail` after it ("cycle 40,000"). The estimate
    /// comes from `overall`, the share of the whole task done, over the time since the line
    /// was made; without it (negative), from the count over the stage's time.
    void update(const progress_count& count, std::string_view detail = {}, double overall = -1) {
        if (!due()) return;
        const double stage_seconds = seconds_since(stage_start_);
        double left = -1;
        if (overall >= 0)
            left = seconds_left(elapsed(), overall);
        else if (count.total != 0)
            left = seconds_left(stage_seconds,
                                static_cast<double>(count.done) / static_cast<double>(count.total));
        std::string text = tool_ + ": ";
        if (!what_.empty()) text += what_ + ": ";
        text += std::string(count.unit) + ' ' + grouped(count.done) + '/' + grouped(count.total);
        if (!detail.empty()) text += ", " + std::string(detail);
        if (stage_seconds > 0)
            text += ", " + rate_text(static_cast<double>(count.done) / stage_seconds) + ' ' +
                    std::string(count.rate_unit.empty() ? count.unit : count.rate_unit) + "/s";
        text += ", ETA " + (left < 0 ? std::string("--") : duration_text(left));
        show(text);
    }

    /// Draws `text` as the whole line, at most every 0.2 s unless `force`; nothing when off.
    void draw(std::string_view text, bool force = false) {
        if (due(force)) show(text);
    }

    /// Ends the line: on a terminal, clears what was drawn so that the next output starts at
    /// the line's beginning; in a log, where every update ended its own line, nothing.
    void finish() {
        if (drawn_ && in_place_) std::fputs("\r\033[K", stderr);
        if (drawn_) std::fflush(stderr);
        drawn_ = false;
    }

private:
    using clock = std::chrono::steady_clock;

    static double seconds_since(clock::time_point t) {
        return std::chrono::duration<double>(clock::now() - t).count();
    }

    // True when on and `force`d or the last draw is 0.2 s ago (or none was made): then it
    // counts as made.
    bool due(bool force = false) {
        if (!enabled_) return false;
        const auto now = clock::now();
        if (!force && drawn_once_ && now - last_draw_ < std::chrono::milliseconds(200))
            return false;
        last_draw_ = now;
        drawn_once_ = true;
        return true;
    }

    void show(std::string_view text) {
        // A line wider than the terminal would wrap, and \r would redraw only its last row.
        if (in_place_ && width_ > 1 && text.size() >= width_) text = text.substr(0, width_ - 1);
        if (in_place_)
            std::fprintf(stderr, "\r\033[K%.*s", static_cast<int>(text.size()), text.data());
        else
            std::fprintf(stderr, "%.*s\n", static_cast<int>(text.size()), text.data());
        std::fflush(stderr);
        drawn_ = true;
    }

    std::string tool_;
    std::string what_;
    bool enabled_ = false;
    bool in_place_ = false; ///< stderr is a terminal: redraw with \r
    std::size_t width_ = 0; ///< the terminal's columns (0: unknown)
    bool drawn_ = false;    ///< something is on the line since the last finish()
    bool drawn_once_ = false;
    clock::time_point start_;
    clock::time_point stage_start_;
    clock::time_point last_draw_;
};

/// The blocks the SMs of a GPU run's sample hook have completed: gpu::sm objects or their
/// gpu::sm_counters copies.
template <class Sms>
[[nodiscard]] std::uint64_t blocks_completed(const Sms& sms) {
    std::uint64_t blocks = 0;
    for (const auto& sm : sms) {
        if constexpr (requires { sm.stats().blocks_completed; })
            blocks += sm.stats().blocks_completed;
        else
            blocks += sm.stats.blocks_completed;
    }
    return blocks;
}

/// Shows a GPU run on `line`: `blocks` completed of the `grid`'s at `cycle`; `overall` as in
/// progress_line::update.
inline void show_blocks(progress_line& line, std::uint64_t cycle, std::uint64_t blocks,
                        std::uint64_t grid, double overall = -1) {
    if (line.enabled()) line.update({"blocks", blocks, grid}, "cycle " + grouped(cycle), overall);
}

/// Cycles between two progress updates of a GPU run (its sample hook's period while the line
/// is on): often enough for 0.2 s redraws, rare enough to cost nothing.
inline constexpr std::uint64_t progress_sample_cycles = 1000;

} // namespace example
