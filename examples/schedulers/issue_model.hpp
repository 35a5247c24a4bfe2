// What the small issue-stage models share (the SM model of warpkit-schedulers and the replay
// machine of the scheduler tests, tests/issue/replay.hpp): the results in flight to the
// library scoreboard, and the warp views a scheduler picks from. Not part of the library.
#pragma once

#include <warpkit/issue/scoreboard.hpp>
#include <warpkit/issue/warp_view.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace issue_model {

/// Results on their way back: each releases its registers in the scoreboard when its cycle
/// comes.
class writebacks {
public:
    /// The result of warp `warp` writing `ops` comes back in cycle `at`.
    void add(std::uint64_t at, std::size_t warp, const warpkit::issue::operands& ops) {
        in_flight_.push_back({at, warp, ops});
    }
    /// Releases in `sb` every result due by cycle `now`.
    void release_due(warpkit::issue::scoreboard& sb, std::uint64_t now) {
        for (std::size_t i = 0; i < in_flight_.size();) {
            if (in_flight_[i].at <= now) {
                sb.release(in_flight_[i].warp, in_flight_[i].ops);
                in_flight_[i] = in_flight_.back();
                in_flight_.pop_back();
            } else {
                ++i;
            }
        }
    }

private:
    struct writeback {
        std::uint64_t at;
        std::size_t warp;
        warpkit::issue::operands ops;
    };
    std::vector<writeback> in_flight_;
};

/// Fills `views` (one per warp, warp id = index, the lower id the older) for warps running
/// `programs` (instructions with a `unit` and `ops`) at `pc`: a warp is ready when the
/// scoreboard sees no hazard on its next instruction's operands and `unit_free(instruction)`.
template <class Inst, class UnitFree>
void fill_views(std::vector<warpkit::issue::warp_view>& views,
                const std::vector<std::vector<Inst>>& programs, const std::vector<std::size_t>& pc,
                const warpkit::issue::scoreboard& sb, UnitFree unit_free) {
    for (std::size_t w = 0; w < programs.size(); ++w) {
        auto& v = views[w];
        v = {};
        v.id = static_cast<warpkit::issue::warp_id>(w);
        v.age = w;
        v.finished = pc[w] >= programs[w].size();
        if (v.finished) continue;
        const Inst& i = programs[w][pc[w]];
        v.unit = i.unit;
        const auto h = sb.peek(w, i.ops);
        v.ready = !h.any() && unit_free(i);
        v.long_latency = h.long_latency;
    }
}

} // namespace issue_model
