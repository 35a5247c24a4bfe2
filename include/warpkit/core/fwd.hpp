#pragma once
/// \file
/// Forward declarations of the core types.

#include <concepts>
#include <cstddef>

namespace warpkit {
class cycle;
class clock_domains;
template <std::size_t N>
class lane_mask;
template <class T>
requires std::default_initializable<T> && std::movable<T>
class fifo;
template <class T>
class delay_line;
template <class T>
requires std::default_initializable<T> && std::movable<T>
class latch;
template <std::size_t Bins>
class histogram;
class rng;
class error;
class config_error;
class parse_error;
class sim_error;
class contract_error;
} // namespace warpkit
