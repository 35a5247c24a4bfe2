#pragma once
/// \file
/// DRAM command schedulers. Each cycle a channel describes every queued request (in arrival
/// order) by what its next command is and whether that command may issue now; the scheduler
/// picks one. `fr_fcfs`: first ready row hit, else first ready request (Rixner et al.'s
/// first-ready first-come-first-served), never closing a row that a queued request still hits;
/// `fcfs`: strictly in arrival order, for comparison.

#include <warpkit/mem/concepts.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace warpkit::mem {

/// The next command a queued request needs.
enum class dram_command : std::uint8_t { precharge, activate, read, write };

/// What the scheduler sees of one queued request.
struct dram_candidate {
    dram_command next = dram_command::activate;
    bool ready = false;      ///< the command may issue this cycle
    bool row_hit = false;    ///< its bank has its row open (next is a read or write)
    bool closes_hit = false; ///< next is a precharge closing a row another request hits
};

/// No request chosen.
inline constexpr std::size_t no_pick = ~std::size_t{0};

/// Picks the request (index into the arrival-ordered candidates) whose command issues this
/// cycle, or no_pick; it may only pick a ready candidate, and its answer depends on the
/// candidates alone (a channel skips cycles in which they cannot change).
template <class S>
concept dram_scheduler = requires(S& s, std::span<const dram_candidate> c) {
    { s.pick(c) } -> std::same_as<std::size_t>;
    { S::kind } -> std::convertible_to<std::string_view>;
};

/// First-ready, first-come first-served: row hits first, then the oldest ready request.
struct fr_fcfs {
    static constexpr std::string_view kind = "fr_fcfs";
    [[nodiscard]] std::size_t pick(std::span<const dram_candidate> c) const noexcept {
        for (std::size_t i = 0; i < c.size(); ++i)
            if (c[i].ready && c[i].row_hit) return i;
        for (std::size_t i = 0; i < c.size(); ++i)
            if (c[i].ready && !c[i].closes_hit) return i;
        return no_pick;
    }
};

/// In order: only the oldest request may issue.
struct fcfs {
    static constexpr std::string_view kind = "fcfs";
    [[nodiscard]] std::size_t pick(std::span<const dram_candidate> c) const noexcept {
        return !c.empty() && c[0].ready ? 0 : no_pick;
    }
};

} // namespace warpkit::mem
