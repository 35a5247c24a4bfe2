#pragma once
/// \file
/// The signals of a power-gating controller: its states, its per-cycle inputs, the view a
/// policy decides on, and the decisions and events they produce.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace warpkit::gating {

/// State of a gateable block during one cycle (Warped Gates Fig. 2c).
enum class power_state : std::uint8_t {
    on,            ///< powered; counts idle cycles (the paper's Idle_detect state)
    uncompensated, ///< gated for at most break_even cycles: savings do not yet cover the cost
    compensated,   ///< gated for more than break_even cycles: every further cycle is a gain
    waking,        ///< the sleep switch is closing; no execution for wakeup_delay cycles
};

/// What the owner tells the controller about one cycle.
struct cycle_input {
    bool demand = false;           ///< an instruction wanted this block this cycle
    bool busy = false;             ///< the block's pipeline held an instruction this cycle
    std::uint32_t type_active = 0; ///< warps of this type in the active subset (INT_ACTV/FP_ACTV)
    bool sibling_gated = false;    ///< the other cluster of this type was gated this cycle
};

/// What a policy sees at the end of a powered, idle cycle.
struct gate_view {
    std::uint32_t idle_cycles = 0; ///< consecutive idle cycles, this one included
    std::uint32_t idle_detect = 0; ///< the controller's current idle-detect threshold
    std::uint32_t type_active = 0; ///< as in cycle_input
    bool sibling_gated = false;    ///< as in cycle_input
};

/// A policy's answer for a powered, idle cycle.
enum class decision : std::uint8_t {
    stay_on,    ///< keep counting
    gate,       ///< gate now: the idle-detect window has passed
    gate_early, ///< gate now, before the idle-detect window has passed (coordinated Blackout)
    hold,       ///< the window has passed but gating is suppressed (coordinated Blackout)
};

/// What an adaptive policy did at the end of a cycle.
enum class adaptation : std::uint8_t {
    none,    ///< mid-epoch
    kept,    ///< an epoch ended; idle-detect unchanged
    raised,  ///< an epoch ended; idle-detect went up
    lowered, ///< an epoch ended; idle-detect went down
};

/// The transition a controller made at the end of a cycle.
enum class event : std::uint8_t {
    none,         ///< same state next cycle (or uncompensated -> uncompensated)
    gated,        ///< on -> uncompensated
    broke_even,   ///< uncompensated -> compensated
    wake_started, ///< a gated cycle became the first waking cycle
    powered_on,   ///< waking -> on
};

} // namespace warpkit::gating

/// Names of the power states in reports.
template <>
struct warpkit::enum_names<warpkit::gating::power_state> {
    static constexpr std::array<std::string_view, 4> names = {"on", "uncompensated", "compensated",
                                                              "waking"};
};
/// Names of policy decisions in reports.
template <>
struct warpkit::enum_names<warpkit::gating::decision> {
    static constexpr std::array<std::string_view, 4> names = {"stay_on", "gate", "gate_early",
                                                              "hold"};
};
/// Names of controller events in reports.
template <>
struct warpkit::enum_names<warpkit::gating::event> {
    static constexpr std::array<std::string_view, 5> names = {"none", "gated", "broke_even",
                                                              "wake_started", "powered_on"};
};
