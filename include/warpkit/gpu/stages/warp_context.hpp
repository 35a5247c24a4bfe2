#pragma once
/// \file
/// What the stages of an SM share: the warp contexts (instruction buffer, fetch and replay
/// state, which half of a split SM a warp runs on), the block slots, the payload that travels
/// down an execution pipeline, the registers an instruction reads and writes, and
/// `type_demand`, the port between the issue stage and power gating (which unit types are on
/// or may wake, and what issue wanted of them this cycle).

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/issue/scoreboard.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::gpu::stages {

/// A warp's instruction buffer: decoded instructions in program order. `serial()` changes
/// whenever the instruction at the front changes (a fill of an empty buffer, an issue, a
/// flush), so what a stage worked out about the front instruction holds until it changes.
class instruction_buffer {
public:
    void reserve(std::size_t n) { v_.reserve(n); }
    [[nodiscard]] bool empty() const noexcept { return v_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return v_.size(); }
    [[nodiscard]] const isa::static_inst& front() const noexcept { return v_.front(); }
    [[nodiscard]] const isa::static_inst& back() const noexcept { return v_.back(); }
    /// Appends the next instruction in program order.
    void push_back(const isa::static_inst& si) {
        if (v_.empty()) ++serial_;
        v_.push_back(si);
    }
    /// Removes the front instruction (it issued); the buffer must not be empty.
    void pop_front() {
        v_.erase(v_.begin());
        ++serial_;
    }
    /// Empties the buffer (a flush).
    void clear() noexcept {
        if (!v_.empty()) ++serial_;
        v_.clear();
    }
    /// Changes whenever front() does (a new buffer starts at 0).
    [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }

private:
    std::vector<isa::static_inst> v_;
    std::uint64_t serial_ = 0;
};

/// The scoreboard's answer for a warp's front instruction, kept while neither the warp's
/// writes in flight (the scoreboard's version of the warp) nor its front instruction (the
/// buffer's serial) change.
struct hazard_memo {
    std::uint64_t version = ~std::uint64_t{0}; ///< none kept yet
    std::uint64_t serial = 0;
    issue::hazard answer{};
};

/// One warp context of an SM.
struct warp_context {
    bool resident = false;
    std::uint32_t block_slot = 0;
    std::uint64_t age = 0;
    instruction_buffer ibuf;
    hazard_memo hazards; ///< kept by the SM for its issue stage
    std::uint64_t fetch_ready = 0; ///< cycle a fetch in flight completes
    bool fetching = false;
    std::uint32_t replays = 0;       ///< shared-memory passes still to replay (paper 004)
    std::uint32_t launched = 0;      ///< threads launched (active at the first instruction)
    std::uint8_t half = 0;           ///< split SM: 0 on SM0, 1 on SM1
    std::uint8_t sub_core = 0;       ///< the sub-core whose units the slot's warps use
    bool narrow = false;             ///< a part of a cut warp: half the width
    bool binned = false;             ///< split SM: draining its writes before it moves
    bool uncut = false;              ///< moved to SM1 divergent and whole (no cuts allowed)
};

/// One block slot of an SM.
struct block_context {
    bool resident = false;
    std::uint32_t index = 0;
    std::uint32_t live_warps = 0;
};

/// What travels down an execution pipeline: the warp and the registers it will write, as
/// an `Operands` (issue::basic_operands of the SM's scoreboard width).
template <class Operands>
struct basic_payload {
    std::uint32_t slot = 0;
    Operands writes{};
};
/// The payload of an SM with the 64-register scoreboard.
using payload = basic_payload<issue::operands>;

/// The registers `si` reads and writes.
template <class Operands = issue::operands>
[[nodiscard]] Operands operands_of(const isa::static_inst& si) {
    Operands ops;
    for (std::size_t i = 0; i < si.num_src; ++i)
        ops = ops.read(si.src[i]);
    for (std::size_t i = 0; i < si.num_dst; ++i)
        ops = ops.write(si.dst[i]);
    return ops;
}
/// The registers `si` writes.
template <class Operands = issue::operands>
[[nodiscard]] Operands writes_of(const isa::static_inst& si) {
    Operands ops;
    for (std::size_t i = 0; i < si.num_dst; ++i)
        ops = ops.write(si.dst[i]);
    return ops;
}

/// The gated unit type (0: INT, 1: FP) of unit class `u`.
[[nodiscard]] constexpr std::size_t type_of(isa::unit_class u) noexcept {
    return u == isa::unit_class::fp ? 1 : 0;
}
/// The unit class of gated type `t`.
[[nodiscard]] constexpr isa::unit_class unit_of_type(std::size_t t) noexcept {
    return t == 0 ? isa::unit_class::int_alu : isa::unit_class::fp;
}
/// True for the unit classes whose clusters may be power gated (INT and FP).
[[nodiscard]] constexpr bool gated_type(isa::unit_class u) noexcept {
    return u == isa::unit_class::int_alu || u == isa::unit_class::fp;
}

/// Per gated unit type (INT, FP): what power gating tells issue at the start of a cycle and
/// what issue reports back for the controllers at its end.
struct type_demand {
    std::array<bool, 2> on{};                 ///< a cluster of the type is on
    std::array<bool, 2> wakeable{};           ///< a pick may start a wakeup
    std::array<std::uint32_t, 2> unplaced{};  ///< picks that found no free cluster on
    std::array<std::uint32_t, 2> ready_ops{}; ///< warps ready to issue to the type

    /// A pick of this class may wait for a wakeup it requests.
    [[nodiscard]] bool may_wake(isa::unit_class u) const noexcept {
        return gated_type(u) && wakeable[type_of(u)];
    }
    /// The class has no cluster on (an instruction of it waits for power).
    [[nodiscard]] bool powered_off(isa::unit_class u) const noexcept {
        return gated_type(u) && !on[type_of(u)];
    }
    /// Counts a pick of a gated type that found no free cluster on.
    void note_unplaced(isa::unit_class u) noexcept {
        if (gated_type(u)) ++unplaced[type_of(u)];
    }
    /// Counts a warp ready to issue to a gated type.
    void note_ready(isa::unit_class u) noexcept {
        if (gated_type(u)) ++ready_ops[type_of(u)];
    }
};

} // namespace warpkit::gpu::stages
