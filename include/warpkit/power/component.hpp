#pragma once
/// \file
/// The microarchitectural components the power model prices (GPUWattch, paper 001, Table 2):
/// sixteen per SM, four shared by the chip, and the groups Fig. 12 reports them in.

#include <warpkit/core/reflect.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpkit::power {

/// A component with its own peak power and activity count. SM components come first.
enum class component : std::uint8_t {
    front_end,          ///< instruction fetch, decode and the per-warp instruction buffers
    icache,             ///< instruction cache
    scheduler,          ///< warp schedulers (one decision per issued warp instruction)
    rf_banks,           ///< register-file banks (1024-bit rows)
    operand_collectors, ///< operand collector units
    rf_crossbar,        ///< bank-to-collector crossbar
    shared_memory,      ///< shared-memory banks
    shared_crossbar,    ///< lane-to-bank crossbar of shared memory
    l1d,                ///< L1 data cache
    const_cache,        ///< constant cache
    tex_cache,          ///< texture cache
    coalescer,          ///< memory-coalescing logic (pending request table)
    int_alu,            ///< integer lanes
    fp,                 ///< floating-point (FMA) lanes
    sfu,                ///< special-function units
    pipeline,           ///< pipeline registers and control of the SIMD pipeline
    l2,                 ///< L2 cache (chip)
    noc,                ///< interconnect between SMs and L2 / memory partitions (chip)
    mem_ctrl,           ///< memory controllers (chip)
    dram,               ///< GDDR DRAM (chip, eq. 2)
};

/// Number of components.
inline constexpr std::size_t component_count = 20;

/// `start` plus each of `values`, added first to last: the power and energy totals all add in
/// this order, so that totals of the same figures agree to the last bit.
template <std::size_t N>
[[nodiscard]] constexpr double sum_from(double start,
                                        const std::array<double, N>& values) noexcept {
    for (const double v : values)
        start += v;
    return start;
}

/// Components replicated in every SM: component values 0 .. sm_component_count - 1.
inline constexpr std::size_t sm_component_count = 16;

/// Index of a component for arrays indexed by component.
[[nodiscard]] constexpr std::size_t index(component c) noexcept {
    return static_cast<std::size_t>(c);
}

/// True for the components replicated per SM.
[[nodiscard]] constexpr bool per_sm(component c) noexcept {
    return index(c) < sm_component_count;
}

/// The component with index `i` (< component_count).
[[nodiscard]] constexpr component component_at(std::size_t i) noexcept {
    return static_cast<component>(i);
}

/// snake_case name ("rf_banks") used in CSV headers, JSON keys and calibration files.
[[nodiscard]] constexpr std::string_view name(component c) noexcept {
    constexpr std::array<std::string_view, component_count> n = {"front_end",
                                                                 "icache",
                                                                 "scheduler",
                                                                 "rf_banks",
                                                                 "operand_collectors",
                                                                 "rf_crossbar",
                                                                 "shared_memory",
                                                                 "shared_crossbar",
                                                                 "l1d",
                                                                 "const_cache",
                                                                 "tex_cache",
                                                                 "coalescer",
                                                                 "int_alu",
                                                                 "fp",
                                                                 "sfu",
                                                                 "pipeline",
                                                                 "l2",
                                                                 "noc",
                                                                 "mem_ctrl",
                                                                 "dram"};
    return n[index(c)];
}

/// The slices of the GTX480 pie of Fig. 12 (dynamic power), plus idle SMs.
enum class figure12_group : std::uint8_t {
    execution_units, ///< INT, FP, SFU (paper: 20.1 %)
    register_file,   ///< banks, operand collectors, their crossbar (paper: about 13 %)
    pipeline,        ///< paper: 11.4 %
    front_end,       ///< fetch / decode / I-buffer, instruction cache, schedulers
    l2,
    noc,
    mem_ctrl, ///< paper: 4.8 %
    dram,     ///< paper: 17.8 %
    other,    ///< shared memory, L1 data, constant and texture caches, coalescing logic
    idle_sm,  ///< SMs without work
};

/// Number of figure12_group values.
inline constexpr std::size_t figure12_group_count = 10;

/// The Fig. 12 slice a component belongs to.
[[nodiscard]] constexpr figure12_group group_of(component c) noexcept {
    using C = component;
    using G = figure12_group;
    switch (c) {
    case C::int_alu:
    case C::fp:
    case C::sfu:
        return G::execution_units;
    case C::rf_banks:
    case C::operand_collectors:
    case C::rf_crossbar:
        return G::register_file;
    case C::pipeline:
        return G::pipeline;
    case C::front_end:
    case C::icache:
    case C::scheduler:
        return G::front_end;
    case C::l2:
        return G::l2;
    case C::noc:
        return G::noc;
    case C::mem_ctrl:
        return G::mem_ctrl;
    case C::dram:
        return G::dram;
    default:
        return G::other;
    }
}

/// Name of a Fig. 12 slice ("execution_units", ...).
[[nodiscard]] constexpr std::string_view name(figure12_group g) noexcept {
    constexpr std::array<std::string_view, figure12_group_count> n = {
        "execution_units", "register_file", "pipeline", "front_end", "l2", "noc",
        "mem_ctrl",        "dram",          "other",    "idle_sm"};
    return n[static_cast<std::size_t>(g)];
}

} // namespace warpkit::power
