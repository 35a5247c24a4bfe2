#pragma once
/// \file
/// Separable allocators matching inputs to outputs (router switch and VC allocation, crossbar
/// arbitration): `islip` (request-grant-accept, pointers move only on accepted grants of the
/// first iteration, McKeown's iSLIP as BookSim's default `islip` allocator) and
/// `round_robin` (input-first separable allocation with round-robin arbiters).

#include <warpkit/core/error.hpp>

#include <array>
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
    if (from >= 64) return static_cast<std::uint32_t>(std::countr_zero(m));
    // Rotated right by `from`, the search starts at bit 0 and wraps by itself (no branch on
    // whether a bit at or after `from` exists).
    const auto r =
        static_cast<std::uint32_t>(std::countr_zero(std::rotr(m, static_cast<int>(from))));
    return (r + from) & 63u;
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
/// input (each the partner to try first), the shape, and the rounds per allocation. A router
/// keeps many small allocators, so each is laid out to cost one cache line per allocation:
/// the shape and, up to near_ptrs of them, the pointers fill the object's first line.
class alignas(64) separable_allocator {
public:
    [[nodiscard]] std::size_t inputs() const noexcept { return n_in_; }
    [[nodiscard]] std::size_t outputs() const noexcept { return n_out_; }

protected:
    separable_allocator(std::size_t inputs, std::size_t outputs, std::uint32_t iterations)
        : all_(outputs >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << outputs) - 1)),
          n_in_(static_cast<std::uint16_t>(inputs)), n_out_(static_cast<std::uint16_t>(outputs)),
          iterations_(static_cast<std::uint16_t>(iterations)),
          far_(far_size(inputs, outputs, iterations), 0) {}
    /// The outputs free for this allocation: all of them but `taken_outputs`.
    [[nodiscard]] std::uint64_t free_outputs(std::uint64_t taken_outputs) const noexcept {
        return all_ & ~taken_outputs;
    }
    /// Output `o`'s grant pointer: the input it tries first.
    [[nodiscard]] std::uint32_t gptr(std::uint32_t o) const noexcept { return ptrs()[o]; }
    /// Input `i`'s accept pointer: the output it tries first.
    [[nodiscard]] std::uint32_t aptr(std::uint32_t i) const noexcept { return ptrs()[n_out_ + i]; }
    /// Moves input `i`'s accept pointer one past output `o` and `o`'s grant pointer one past `i`.
    void pass_pointers(std::uint32_t i, std::uint32_t o) noexcept {
        std::uint16_t* const p = ptrs();
        p[n_out_ + i] = static_cast<std::uint16_t>(o + 1 == n_out_ ? 0 : o + 1);
        p[o] = static_cast<std::uint16_t>(i + 1 == n_in_ ? 0 : i + 1);
    }

private:
    static constexpr std::size_t near_ptrs = 24;

    /// Checks the shape; the pointers kept outside the object (none when they fit in it).
    static std::size_t far_size(std::size_t inputs, std::size_t outputs, std::uint32_t iterations) {
        check_allocator_shape(inputs, outputs, iterations);
        return outputs + inputs <= near_ptrs ? 0 : outputs + inputs;
    }
    /// The pointers: n_out_ grant pointers, then n_in_ accept pointers.
    [[nodiscard]] const std::uint16_t* ptrs() const noexcept {
        return std::size_t{n_in_} + n_out_ <= near_ptrs ? near_.data() : far_.data();
    }
    [[nodiscard]] std::uint16_t* ptrs() noexcept {
        return std::size_t{n_in_} + n_out_ <= near_ptrs ? near_.data() : far_.data();
    }

    std::uint64_t all_; ///< mask of every output

protected:
    std::uint16_t n_in_;       ///< <= 4096
    std::uint16_t n_out_;      ///< <= 64
    std::uint16_t iterations_; ///< <= 32

private:
    std::array<std::uint16_t, near_ptrs> near_{}; ///< the pointers, when they fit
    std::vector<std::uint16_t> far_;              ///< the pointers, when they do not
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
        : separable_allocator(inputs, outputs, iterations) {
        if (inputs > stack_inputs) {
            active_.resize(inputs);
            grants_.resize(inputs);
        }
    }

    /// req[i]: bit o set when input i requests output o. Writes match[i] (output, or -1).
    /// Inputs whose match is already >= 0 on entry count as taken, and so do the outputs in
    /// `taken_outputs`: a second, lower-priority pass reuses the same state.
    void allocate(std::span<const std::uint64_t> req, std::span<std::int32_t> match,
                  std::uint64_t taken_outputs = 0) noexcept {
        std::array<std::uint32_t, stack_inputs> local; // scratch, written before it is read
        std::uint32_t* const active = n_in_ <= stack_inputs ? local.data() : active_.data();
        std::uint32_t n_act = 0;
        for (std::uint32_t i = 0; i < n_in_; ++i)
            if (req[i] != 0 && match[i] < 0) active[n_act++] = i;
        run({active, n_act}, req, match, taken_outputs);
    }
    /// allocate(req, match, taken_outputs) for a caller that knows which inputs request:
    /// `inputs` lists in ascending order every input whose req may be nonzero (req is 0 for
    /// all others). Same result and pointer moves, without a scan of every input.
    void allocate_among(std::span<const std::uint32_t> inputs, std::span<const std::uint64_t> req,
                        std::span<std::int32_t> match, std::uint64_t taken_outputs = 0) noexcept {
        run(inputs, req, match, taken_outputs);
    }

private:
    /// The allocation proper among `cand`, ascending inputs that may request (those that do
    /// not, or are matched already, are passed over).
    void run(std::span<const std::uint32_t> cand, std::span<const std::uint64_t> req,
             std::span<std::int32_t> match, std::uint64_t taken_outputs) noexcept {
        const auto n = static_cast<std::uint32_t>(cand.size());
        if (n == 0) return;
        std::uint64_t free_out = free_outputs(taken_outputs);
        if (n == 1) {
            // One requester: every free output it wants grants it; it accepts from its pointer
            // (what the rounds below come to, sooner).
            const std::uint32_t i = cand[0];
            const std::uint64_t g = match[i] < 0 ? req[i] & free_out : 0;
            if (g == 0) return;
            const std::uint32_t o = detail::first_from(g, aptr(i));
            match[i] = static_cast<std::int32_t>(o);
            pass_pointers(i, o);
            return;
        }
        std::array<std::uint64_t, stack_inputs> local; // scratch, written before it is read
        std::uint64_t* const grants = n <= stack_inputs ? local.data() : grants_.data();
        for (std::uint32_t it = 0; it < iterations_ && free_out != 0; ++it) {
            // Only the free outputs some unmatched input requests can grant.
            std::uint64_t wanted = 0;
            for (std::uint32_t k = 0; k < n; ++k) {
                grants[k] = 0;
                if (match[cand[k]] < 0) wanted |= req[cand[k]];
            }
            wanted &= free_out;
            if (wanted == 0) break;
            for (std::uint64_t f = wanted; f != 0; f &= f - 1) {
                const auto o = static_cast<std::uint32_t>(std::countr_zero(f));
                const std::uint64_t bit = std::uint64_t{1} << o;
                // Sorted inputs: the first eligible one at or after the pointer, else the first.
                std::uint32_t pick = n;
                std::uint32_t wrap = n;
                for (std::uint32_t k = 0; k < n; ++k) {
                    const std::uint32_t i = cand[k];
                    if (match[i] >= 0 || (req[i] & bit) == 0) continue;
                    if (i >= gptr(o)) {
                        pick = k;
                        break;
                    }
                    if (wrap == n) wrap = k;
                }
                if (pick == n) pick = wrap;
                grants[pick] |= bit; // some input wants o: pick < n
            }
            for (std::uint32_t k = 0; k < n; ++k) {
                if (grants[k] == 0) continue;
                const std::uint32_t i = cand[k];
                const std::uint32_t o = detail::first_from(grants[k], aptr(i));
                match[i] = static_cast<std::int32_t>(o);
                free_out &= ~(std::uint64_t{1} << o);
                if (it == 0) {
                    pass_pointers(i, o);
                }
            }
        }
    }

    /// Inputs up to which an allocation keeps its scratch on the stack.
    static constexpr std::size_t stack_inputs = 64;

    // Scratch of allocators with more than stack_inputs inputs (the others use the stack).
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

    /// As allocate() below, over the inputs listed in ascending order in `inputs` (req is 0
    /// for every input not listed): same result and pointer moves, without a scan of every
    /// input.
    void allocate_among(std::span<const std::uint32_t> inputs, std::span<const std::uint64_t> req,
                        std::span<std::int32_t> match, std::uint64_t taken_outputs = 0) noexcept {
        std::uint64_t free_out = free_outputs(taken_outputs);
        for (std::uint32_t it = 0; it < iterations_ && free_out != 0; ++it) {
            // Input stage: one output per unmatched input.
            std::uint64_t wanted = 0;
            for (const std::uint32_t i : inputs) {
                pick_[i] = -1;
                if (match[i] >= 0) continue;
                const std::uint64_t r = req[i] & free_out;
                if (r == 0) continue;
                const std::uint32_t o = detail::first_from(r, aptr(i));
                pick_[i] = static_cast<std::int32_t>(o);
                wanted |= std::uint64_t{1} << o;
            }
            if (wanted == 0) break;
            // Output stage: the first input that picked o at or after o's pointer, cyclically
            // (the inputs not listed picked nothing).
            for (std::uint64_t f = wanted; f != 0; f &= f - 1) {
                const auto o = static_cast<std::uint32_t>(std::countr_zero(f));
                std::uint32_t win = n_in_;
                std::uint32_t wrap = n_in_;
                for (const std::uint32_t i : inputs) {
                    if (pick_[i] != static_cast<std::int32_t>(o)) continue;
                    if (i >= gptr(o)) {
                        win = i;
                        break;
                    }
                    if (wrap == n_in_) wrap = i;
                }
                if (win == n_in_) win = wrap;
                match[win] = static_cast<std::int32_t>(o);
                free_out &= ~(std::uint64_t{1} << o);
                pass_pointers(win, o);
            }
        }
    }

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
                const std::uint32_t o = detail::first_from(r, aptr(i));
                pick_[i] = static_cast<std::int32_t>(o);
                wanted |= std::uint64_t{1} << o;
            }
            if (wanted == 0) break;
            // Output stage: one input per output.
            for (std::uint64_t f = wanted; f != 0; f &= f - 1) {
                const auto o = static_cast<std::uint32_t>(std::countr_zero(f));
                std::uint32_t win = n_in_;
                for (std::uint32_t k = 0; k < n_in_; ++k) {
                    std::uint32_t i = gptr(o) + k;
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
