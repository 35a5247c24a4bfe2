#pragma once
/// \file
/// `scheduler_stats`: the counters every warp scheduler keeps (issue cycles, offered and
/// empty issue slots, instructions issued per unit class).

#include <warpkit/core/reflect.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/issue_list.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace warpkit::issue {

/// Issue counters common to all schedulers; derived rates are computed when reported.
struct scheduler_stats {
    std::uint64_t cycles = 0;       ///< issue cycles (notify_issued calls)
    std::uint64_t slots = 0;        ///< issue slots offered (sum of the widths asked for)
    std::uint64_t idle_slots = 0;   ///< offered slots nothing issued in
    std::uint64_t empty_cycles = 0; ///< cycles in which nothing issued
    std::array<std::uint64_t, isa::unit_class_count> issued{}; ///< per unit class

    /// Records one cycle offering `width` slots in which `done` issued.
    constexpr void record(std::size_t width, const issue_list& done) noexcept {
        ++cycles;
        slots += width;
        idle_slots += width > done.size() ? width - done.size() : 0;
        if (done.empty()) ++empty_cycles;
        for (const auto& s : done)
            ++issued[isa::index(s.unit)];
    }
    /// Instructions issued over all classes.
    [[nodiscard]] constexpr std::uint64_t total_issued() const noexcept {
        std::uint64_t n = 0;
        for (auto v : issued)
            n += v;
        return n;
    }
    WARPKIT_FIELDS(scheduler_stats, cycles, slots, idle_slots, empty_cycles, issued)
};

} // namespace warpkit::issue
