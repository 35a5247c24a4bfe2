#pragma once
/// \file
/// Forward declarations of the issue area.

#include <cstddef>

namespace warpkit::issue {
struct warp_view;
class unit_set;
struct issue_slot;
class issue_list;
struct no_params;
struct scheduler_stats;
template <std::size_t MaxWarps>
class basic_lrr;
template <std::size_t MaxWarps>
class basic_rr;
template <std::size_t MaxWarps>
class basic_gto;
using lrr = basic_lrr<64>;
using rr = basic_rr<64>;
using gto = basic_gto<64>;
template <class Inner, std::size_t MaxWarps = 64>
struct two_level_params;
template <class InnerStats>
struct two_level_stats;
template <class InnerParams>
struct gates_priority_params;
struct gates_priority_stats;
template <class SchedulerParams>
struct scheduler_bank_params;
template <class SchedulerStats>
struct scheduler_bank_stats;
template <std::size_t Registers, std::size_t Predicates>
struct basic_operands;
using operands = basic_operands<64, 64>;
struct hazard;
struct scoreboard_params;
struct scoreboard_stats;
template <std::size_t Registers, std::size_t Predicates>
class basic_scoreboard;
using scoreboard = basic_scoreboard<64, 64>;
struct cluster_scoreboard_stats;
struct scoreboard_bits;
class any_scheduler;
class scheduler_registry;
} // namespace warpkit::issue
