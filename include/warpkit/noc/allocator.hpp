#pragma once
/// \file
/// Separable allocators matching inputs to outputs (router switch and VC allocation, crossbar
/// arbitration): `islip` (request-grant-accept, pointers move only on accepted grants of the
/// first iteration, McKeown's iSLIP as BookSim's default `islip` allocator) and
/// `round_robin` (input-first separable allocation with round-robin arbiters).

#include <warpkit/core/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::noc {

namespace detail {
/// The first set bit of `m` at or after `from`, cyclically; `m` must not be 0.
[[nodiscard]] inline std::uint32_t first_from(std::uint64_t m, std::uint32_t from) noexcept {
    const std::uint64_t high = from >= 64 ? 0u : (m & (~std::uint64_t{0} << from));
    return static_cast<std::uint32_t>(std::countr_zero(high != 0 ? high : m));
}

/// Checks the shape shared by every allocator.
inline void check_allocator_shape(std::size_t inputs, std::size_t outputs,
                                  std::uint32_t iterations) {
    if (inputs == 0 || inputs > 4096)
        throw config_error("allocator.inputs", std::to_string(inputs), "[1, 4096]");
    if (outputs == 0 || outputs > 64)
        throw config_error("allocator.outputs", std::to_string(outputs), "[1, 64]");
    if (iterations == 0 || iterations > 32)
        throw config_error("allocator.iterations", std::to_string(iterations), "[1, 32]");
}

/// The state both allocators keep: a grant pointer per output and an accept pointer per
/// input (each the partner to try first), the shape, and the rounds per allocation.
class separable_allocator {
public:
    [[nodiscard]] std::size_t inputs() const noexcept { return n_in_; }
    [[nodiscard]] std::size_t outputs() const noexcept { return n_out_; }

protected:
    separable_allocator(std::size_t inputs, std::size_t outputs, std::uint32_t iterations)
        : gptr_(outputs, 0), aptr_(inputs, 0), n_in_(static_cast<std::uint32_t>(inputs)),
          n_out_(static_cast<std::uint32_t>(outputs)), iterations_(iterations) {
        check_allocator_shape(inputs, outputs, iterations);
    }
    /// The outputs free for this allocation: all of them but `taken_outputs`.
    [[nodiscard]] std::uint64_t free_outputs(std::uint64_t taken_outputs) const noexcept {
        const std::uint64_t all =
            n_out_ == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n_out_) - 1);
        return all & ~taken_outputs;
    }
    /// Moves input `i`'s accept pointer one past output `o` and `o`'s grant pointer one past `i`.
    void pass_pointers(std::uint32_t i, std::uint32_t o) noexcept {
        aptr_[i] = o + 1 == n_out_ ? 0 : o + 1;
        gptr_[o] = i + 1 == n_in_ ? 0 : i + 1;
    }

    std::vector<std::uint32_t> gptr_;
    std::vector<std::uint32_t> aptr_;
    std::uint32_t n_in_;
    std::uint32_t n_out_;
    std::uint32_t iterations_;
};
} // namespace detail

/// iSLIP: every free output grants the first requesting input at or after its grant pointer;
/// every input accepts the first granting output at or after its accept pointer; an accepted
/// grant in the first iteration moves both pointers one past the partner. Later iterations
/// only fill in unmatched pairs.
class islip : public detail::separable_allocator {
public:
    static constexpr std::string_view kind = "islip";

    /// An allocator for `inputs` x `outputs` (outputs <= 64) running `iterations` rounds.
    islip(std::size_t inputs, std::size_t outputs, std::uint32_t iterations = 1)
        : separable_allocator(inputs, outputs, iterations), active_(inputs), grants_(inputs) {}

    /// req[i]: bit o set when input i requests output o. Writes match[i] (output, or -1).
    /// Inputs whose match is already >= 0 on entry count as taken, and so do the outputs in
    /// `taken_outputs`: a second, lower-priority pass reuses the same state.
    void allocate(std::span<const std::uint64_t> req, std::span<std::int32_t> match,
                  std::uint64_t taken_outputs = 0) noexcept {
        std::uint32_t n_act = 0;
        for (std::uint32_t i = 0; i < n_in_; ++i)
            if (req[i] != 0 && match[i] < 0) active_[n_act++] = i;
        if (n_act == 0) return;
        std::uint64_t free_out = free_outputs(taken_outputs);
        if (n_act == 1) {
            // One requester: every free output it wants grants it; it accepts from its pointer.
            const std::uint32_t i = active_[0];
            const std::uint64_t g = req[i] & free_out;
            if (g == 0) return;
            const std::uint32_t o = detail::first_from(g, aptr_[i]);
            match[i] = static_cast<std::int32_t>(o);
            pass_pointers(i, o);
            return;
        }
        for (std::uint32_t it = 0; it < iterations_ && free_out != 0; ++it) {
            bool any = false;
            for (std::uint32_t k = 0; k < n_act; ++k)
                grants_[k] = 0;
            for (std::uint64_t f = free_out; f != 0; f &= f - 1) {
                const auto o = static_cast<std::uint32_t>(std::countr_zero(f));
                const std::uint64_t bit = std::uint64_t{1} << o;
                // Sorted inputs: the first eligible one at or after the pointer, else the first.
                std::uint32_t pick = n_act;
                std::uint32_t wrap = n_act;
                for (std::uint32_t k = 0; k < n_act; ++k) {
                    const std::uint32_t i = active_[k];
                    if (match[i] >= 0 || (req[i] & bit) == 0) continue;
                    if (i >= gptr_[o]) {
                        pick = k;
                        break;
                    }
                    if (wrap == n_act) wrap = k;
                }
                if (pick == n_act) pick = wrap;
                if (pick != n_act) {
                    grants_[pick] |= bit;
                    any = true;
                }
            }
            if (!any) break;
            for (std::uint32_t k = 0; k < n_act; ++k) {
                if (grants_[k] == 0) continue;
                const std::uint32_t i = active_[k];
                const std::uint32_t o = detail::first_from(grants_[k], aptr_[i]);
                match[i] = static_cast<std::int32_t>(o);
                free_out &= ~(std::uint64_t{1} << o);
                if (it == 0) {
                    pass_pointers(i, o);
                }
            }
        }
    }

private:
    std::vector<std::uint32_t> active_;
    std::vector<std::uint64_t> grants_;
};

/// Input-first separable allocation with round-robin arbiters: every input picks one of its
/// requested free outputs (round-robin from its pointer), every output picks one of the inputs
/// that picked it (round-robin from its pointer); winners move both pointers past each other.
class round_robin : public detail::separable_allocator {
public:
    static constexpr std::string_view kind = "round_robin";

    round_robin(std::size_t inputs, std::size_t outputs, std::uint32_t iterations = 1)
        : separable_allocator(inputs, outputs, iterations), pick_(inputs) {}

    /// Same contract as islip::allocate.
    void allocate(std::span<const std::uint64_t> req, std::span<std::int32_t> match,
                  std::uint64_t taken_outputs = 0) noexcept {
        std::uint64_t free_out = free_outputs(taken_outputs);
        for (std::uint32_t it = 0; it < iterations_ && free_out != 0; ++it) {
            // Input stage: one output per unmatched input.
            std::uint64_t wanted = 0;
            for (std::uint32_t i = 0; i < n_in_; ++i) {
                pick_[i] = -1;
                if (match[i] >= 0) continue;
                const std::uint64_t r = req[i] & free_out;
                if (r == 0) continue;
                const std::uint32_t o = detail::first_from(r, aptr_[i]);
                pick_[i] = static_cast<std::int32_t>(o);
                wanted |= std::uint64_t{1} << o;
            }
            if (wanted == 0) break;
            // Output stage: one input per output.
            for (std::uint64_t f = wanted; f != 0; f &= f - 1) {
                const auto o = static_cast<std::uint32_t>(std::countr_zero(f));
                std::uint32_t win = n_in_;
                for (std::uint32_t k = 0; k < n_in_; ++k) {
                    std::uint32_t i = gptr_[o] + k;
                    if (i >= n_in_) i -= n_in_;
                    if (pick_[i] == static_cast<std::int32_t>(o)) {
                        win = i;
                        break;
                    }
                }
                match[win] = static_cast<std::int32_t>(o);
                free_out &= ~(std::uint64_t{1} << o);
                pass_pointers(win, o);
            }
        }
    }

private:
    std::vector<std::int32_t> pick_;
};

} // namespace warpkit::noc
