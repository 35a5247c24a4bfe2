#pragma once
/// \file
/// `synthetic_source<W>`: a seeded synthetic instruction source for one SM. Every warp runs a
/// generated straight-line stream drawn from an instruction mix (INT / FP / SFU / LD/ST
/// fractions), with register dependences at a random distance (so the scoreboard stalls
/// warps), loads that are global (long latency) or shared, unit-stride addresses, and EXIT at
/// the end. Named mixes (int-heavy, fp-heavy, balanced, memory-bound, few-warps) give the
/// workloads of the Warped Gates study (paper 003 Section 7, Fig. 5 workload shapes).

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::func {

/// Shape of a synthetic workload. The four unit fractions are shares of the warp instructions
/// before EXIT and add up to 1; the other fractions are shares within a class.
struct synthetic_params {
    double int_fraction = 0.46;  ///< integer ALU instructions
    double fp_fraction = 0.30;   ///< floating-point instructions
    double sfu_fraction = 0.02;  ///< special-function instructions
    double ldst_fraction = 0.22; ///< loads and stores
    /// Chance that an instruction has the unit class of the one before it (otherwise the class
    /// is drawn from the mix): runs of one type, as in unrolled loops, with the mix unchanged.
    double type_repeat = 0.5;
    double int_mul_fraction = 0.1; ///< of INT: multiplies (initiation interval 2)
    double fp_mad_fraction = 0.5;  ///< of FP: fused multiply-adds (latency 5)
    double fp_mul_fraction = 0.2;  ///< of FP: multiplies (the rest are adds)
    /// Chance that a source operand reads a result produced earlier in the warp's stream
    /// (otherwise it reads a live-in register that is never written).
    double dependence = 0.6;
    /// Mean distance, in instructions, back to the producer (geometric distribution).
    double dep_distance_mean = 4.0;
    std::uint32_t dep_distance_max = 32; ///< longest producer distance
    double store_fraction = 0.25;        ///< of LD/ST: stores (no destination register)
    /// Of loads: global (long latency, the scoreboard flags the result); the rest are shared.
    double long_latency_fraction = 0.5;
    /// Bytes between consecutive lanes' addresses: 4 = unit stride (one 128-byte line per warp).
    std::uint32_t lane_stride = 4;
    std::uint32_t insts_per_warp = 1000; ///< warp instructions before EXIT (barriers excluded)
    /// A block-wide barrier (BAR) after every this many instructions; 0 = none. Barriers are
    /// extra instructions, outside the mix; every warp of a block meets the same ones.
    std::uint32_t barrier_interval = 0;
    /// Loop-body structure: each run of this many instructions has its loads first and its
    /// stores last, the arithmetic between (a warp waits for its loads, then computes);
    /// 0 or 1 = no structure.
    std::uint32_t iteration_length = 0;
    std::uint32_t warps_per_block = 8;
    std::uint32_t blocks = 48;
    /// Blocks resident on one SM at a time, as a kernel's register or shared-memory footprint
    /// would limit it; 0 = as many as the SM's block and warp slots allow.
    std::uint32_t max_blocks_per_sm = 0;

    /// Registers never written (thread index, base pointers) and the rotating destinations.
    static constexpr std::uint32_t live_in_registers = 4;
    static constexpr std::uint32_t destination_registers = 56;

    /// Sets the four unit fractions at once (INT, FP, SFU, LD/ST; they must add up to 1).
    void set_unit_mix(double int_share, double fp_share, double sfu_share,
                      double ldst_share) noexcept {
        int_fraction = int_share;
        fp_fraction = fp_share;
        sfu_fraction = sfu_share;
        ldst_fraction = ldst_share;
    }

    void validate() const {
        check_range("int_fraction", int_fraction, 0.0, 1.0);
        check_range("fp_fraction", fp_fraction, 0.0, 1.0);
        check_range("sfu_fraction", sfu_fraction, 0.0, 1.0);
        check_range("ldst_fraction", ldst_fraction, 0.0, 1.0);
        const double sum = int_fraction + fp_fraction + sfu_fraction + ldst_fraction;
        check(std::abs(sum - 1.0) <= 1e-6, "int_fraction", int_fraction,
              "int_fraction + fp_fraction + sfu_fraction + ldst_fraction = 1 (sum is " +
                  std::to_string(sum) + ")");
        check_range("type_repeat", type_repeat, 0.0, 0.99);
        check_range("int_mul_fraction", int_mul_fraction, 0.0, 1.0);
        check_range("fp_mad_fraction", fp_mad_fraction, 0.0, 1.0);
        check(fp_mul_fraction >= 0.0 && fp_mad_fraction + fp_mul_fraction <= 1.0 + 1e-9,
              "fp_mul_fraction", fp_mul_fraction, "[0, 1 - fp_mad_fraction]");
        check_range("dependence", dependence, 0.0, 1.0);
        check_range("dep_distance_max", dep_distance_max, 1U, destination_registers - 8);
        check(dep_distance_mean >= 1.0 && dep_distance_mean <= dep_distance_max,
              "dep_distance_mean", dep_distance_mean,
              "[1, dep_distance_max = " + std::to_string(dep_distance_max) + "]");
        check_range("store_fraction", store_fraction, 0.0, 1.0);
        check_range("long_latency_fraction", long_latency_fraction, 0.0, 1.0);
        check(lane_stride % 4 == 0 && lane_stride <= 4096, "lane_stride", lane_stride,
              "a multiple of 4 in [0, 4096]");
        check_range("insts_per_warp", insts_per_warp, 1U, 100000000U);
        check_range("barrier_interval", barrier_interval, 0U, 100000000U);
        check_range("iteration_length", iteration_length, 0U, 100000U);
        check_range("warps_per_block", warps_per_block, 1U, 64U);
        check_range("blocks", blocks, 1U, 1000000U);
        check_range("max_blocks_per_sm", max_blocks_per_sm, 0U, 64U);
    }
    WARPKIT_FIELDS(synthetic_params, int_fraction, fp_fraction, sfu_fraction, ldst_fraction,
                   type_repeat, int_mul_fraction, fp_mad_fraction, fp_mul_fraction, dependence,
                   dep_distance_mean, dep_distance_max, store_fraction, long_latency_fraction,
                   lane_stride, insts_per_warp, barrier_interval, iteration_length, warps_per_block,
                   blocks, max_blocks_per_sm)
};

/// Names of the built-in mixes, in report order.
[[nodiscard]] inline const std::array<std::string_view, 5>& synthetic_mix_names() noexcept {
    static constexpr std::array<std::string_view, 5> names = {"int-heavy", "fp-heavy", "balanced",
                                                              "memory-bound", "few-warps"};
    return names;
}

/// The params of a named mix; throws config_error("mix", name, names) for an unknown name.
/// Fractions follow the spread of paper 003 Fig. 5a (most kernels integer-dominated with a
/// floating-point share; a few nearly pure INT or FP-heavy); few-warps keeps fewer than ten
/// warps resident, like the 5 of 18 benchmarks of Fig. 5b.
[[nodiscard]] inline synthetic_params synthetic_mix(std::string_view name) {
    synthetic_params p;
    if (name == "int-heavy") {
        p.set_unit_mix(0.62, 0.08, 0.01, 0.29);
        p.int_mul_fraction = 0.15;
    } else if (name == "fp-heavy") {
        p.set_unit_mix(0.30, 0.50, 0.04, 0.16);
        p.fp_mad_fraction = 0.7;
        p.long_latency_fraction = 0.4;
    } else if (name == "balanced") {
        // the defaults
    } else if (name == "memory-bound") {
        p.set_unit_mix(0.42, 0.18, 0.01, 0.39);
        p.long_latency_fraction = 0.85;
        p.dependence = 0.7;
    } else if (name == "few-warps") {
        p.warps_per_block = 2;
        p.blocks = 16;
        p.max_blocks_per_sm = 4;
        p.insts_per_warp = 3000;
    } else {
        std::string allowed;
        for (auto n : synthetic_mix_names())
            allowed += (allowed.empty() ? "" : ", ") + std::string(n);
        throw config_error("mix", std::string(name), "one of: " + allowed);
    }
    return p;
}

/// Warp instructions in one warp's stream: the mix, its barriers and EXIT.
[[nodiscard]] constexpr std::size_t synthetic_stream_length(const synthetic_params& p) noexcept {
    const std::size_t n = p.insts_per_warp;
    const std::size_t bars = p.barrier_interval == 0 ? 0 : (n - 1) / p.barrier_interval;
    return n + bars + 1;
}

namespace detail {

[[nodiscard]] inline isa::static_inst synthetic_op(isa::opcode op) noexcept {
    const auto& info = isa::info(op);
    isa::static_inst s;
    s.opcode = static_cast<std::uint16_t>(op);
    s.unit = info.unit;
    s.latency = info.latency;
    return s;
}

// Distance back to a producer: geometric with the given mean, cut at `limit` (>= 1). Drawn by
// Bernoulli trials so that the sequence is the same on every platform (no libm).
[[nodiscard]] inline std::uint32_t synthetic_distance(rng& r, double mean, std::uint32_t limit) {
    const double stop = 1.0 / mean;
    std::uint32_t d = 1;
    while (d < limit && !r.bernoulli(stop))
        ++d;
    return d;
}

} // namespace detail

/// Generates one warp's stream into `out` (cleared first): `p.insts_per_warp` instructions
/// drawn with `r`, with BAR after every `p.barrier_interval` of them (none after the last),
/// then EXIT. Unit classes come from the mix (repeating the previous class with probability
/// type_repeat); with `p.iteration_length` set, each run of that many instructions is laid
/// out as a loop body: its loads first, then its arithmetic, then its stores. Destinations
/// rotate over registers live_in_registers .. live_in_registers + destination_registers - 1;
/// a source reads the result of an instruction at most dep_distance_max earlier (still held)
/// or a live-in register. `p` must be valid.
inline void synthetic_stream(const synthetic_params& p, rng& r,
                             std::vector<isa::static_inst>& out) {
    using isa::opcode;
    using isa::unit_class;
    const std::size_t n = p.insts_per_warp;
    out.clear();
    out.reserve(synthetic_stream_length(p));

    // Pass 1: the instructions without operands, in mix order.
    const std::array<double, 3> cumulative = {p.int_fraction, p.int_fraction + p.fp_fraction,
                                              p.int_fraction + p.fp_fraction + p.sfu_fraction};
    const auto draw = [&] {
        const double u = r.uniform();
        if (u < cumulative[0]) return unit_class::int_alu;
        if (u < cumulative[1]) return unit_class::fp;
        if (u < cumulative[2]) return unit_class::sfu;
        return unit_class::ldst;
    };
    std::vector<isa::static_inst> body;
    body.reserve(n);
    unit_class prev = unit_class::int_alu;
    for (std::size_t i = 0; i < n; ++i) {
        const unit_class u = (i > 0 && r.bernoulli(p.type_repeat)) ? prev : draw();
        prev = u;
        isa::static_inst s;
        switch (u) {
        case unit_class::int_alu:
            s = detail::synthetic_op(r.bernoulli(p.int_mul_fraction) ? opcode::mul : opcode::add);
            break;
        case unit_class::fp: {
            const double v = r.uniform();
            s = detail::synthetic_op(v < p.fp_mad_fraction                       ? opcode::fmad
                                     : v < p.fp_mad_fraction + p.fp_mul_fraction ? opcode::fmul
                                                                                 : opcode::fadd);
            break;
        }
        case unit_class::sfu: {
            static constexpr std::array<opcode, 4> ops = {opcode::rcp, opcode::sqrt, opcode::sin,
                                                          opcode::ex2};
            s = detail::synthetic_op(ops[r.below(ops.size())]);
            break;
        }
        default: {
            const bool store = r.bernoulli(p.store_fraction);
            const bool global = r.bernoulli(p.long_latency_fraction);
            s = detail::synthetic_op(store ? (global ? opcode::stg : opcode::st)
                                           : (global ? opcode::ldg : opcode::ld));
            s.mop = store ? isa::mem_op::store : isa::mem_op::load;
            s.space = global ? isa::mem_space::global : isa::mem_space::shared;
            s.access_bytes = 4;
            break;
        }
        }
        body.push_back(s);
    }
    if (p.iteration_length > 1) {
        const auto rank = [](const isa::static_inst& s) {
            return s.mop == isa::mem_op::load ? 0 : (s.mop == isa::mem_op::store ? 2 : 1);
        };
        for (std::size_t b = 0; b < n; b += p.iteration_length) {
            const auto first = body.begin() + static_cast<std::ptrdiff_t>(b);
            const auto last = body.begin() + static_cast<std::ptrdiff_t>(
                                                 std::min<std::size_t>(n, b + p.iteration_length));
            std::stable_sort(first, last,
                             [&](const isa::static_inst& x, const isa::static_inst& y) {
                                 return rank(x) < rank(y);
                             });
        }
    }

    // Pass 2: operands, then the stream with its barriers.
    std::uint32_t written = 0;
    const auto source = [&](std::size_t i) -> isa::reg_id {
        if (i > 0 && r.bernoulli(p.dependence)) {
            const auto limit = static_cast<std::uint32_t>(
                std::min<std::size_t>(i, std::size_t{p.dep_distance_max}));
            const auto& producer =
                body[i - detail::synthetic_distance(r, p.dep_distance_mean, limit)];
            if (producer.num_dst > 0) return producer.dst[0];
        }
        return static_cast<isa::reg_id>(r.below(synthetic_params::live_in_registers));
    };
    for (std::size_t i = 0; i < n; ++i) {
        auto& s = body[i];
        const bool store = s.mop == isa::mem_op::store;
        std::size_t srcs = 2; // INT, FP add / mul, store (address, data)
        if (s.latency == isa::latency_class::fp_mad) srcs = 3;
        if (s.unit == unit_class::sfu || s.mop == isa::mem_op::load) srcs = 1;
        for (std::size_t k = 0; k < srcs; ++k)
            s.src[s.num_src++] = source(i);
        if (!store) {
            s.num_dst = 1;
            s.dst[0] = static_cast<isa::reg_id>(synthetic_params::live_in_registers +
                                                written % synthetic_params::destination_registers);
            ++written;
        }
        out.push_back(s);
        if (p.barrier_interval != 0 && (i + 1) % p.barrier_interval == 0 && i + 1 < n) {
            auto bar = detail::synthetic_op(opcode::bar);
            bar.is_barrier = true;
            out.push_back(bar);
        }
    }
    auto exit = detail::synthetic_op(opcode::exit);
    exit.is_exit = true;
    out.push_back(exit);
}

/// The instruction source of one SM running a synthetic workload. Warp w of block b runs the
/// stream generated by `engine.fork(b * warps_per_block + w)`, so the workload does not depend
/// on where or when a block runs: every scheduler and gating policy sees the same instructions.
template <std::size_t WarpSize = 32>
class synthetic_source {
public:
    using params_type = synthetic_params;

    /// An SM with `warp_slots` warp slots and `block_slots` block slots running the workload
    /// `p` drawn from `engine`. Throws config_error when `p` is out of range.
    synthetic_source(const synthetic_params& p, const rng& engine, std::uint32_t warp_slots,
                     std::uint32_t block_slots)
        : p_(validated(p)), engine_(engine), warps_(warp_slots), blocks_(block_slots) {
        for (auto& w : warps_)
            w.code.reserve(synthetic_stream_length(p_));
    }

    [[nodiscard]] bool finished(std::uint32_t slot) const {
        const auto& w = warps_.at(slot);
        return w.pc >= w.code.size();
    }
    [[nodiscard]] bool at_barrier(std::uint32_t slot) const { return warps_.at(slot).at_barrier; }
    /// The i-th upcoming instruction of the warp in `slot`; nullptr past a BAR, EXIT or the end.
    [[nodiscard]] const isa::static_inst* peek(std::uint32_t slot, std::size_t i) const {
        const auto& w = warps_.at(slot);
        for (std::size_t k = 0; k < i; ++k)
            if (w.pc + k >= w.code.size() || w.code[w.pc + k].is_exit ||
                w.code[w.pc + k].is_barrier)
                return nullptr;
        return w.pc + i < w.code.size() ? &w.code[w.pc + i] : nullptr;
    }
    /// Executes the warp's next instruction: every lane active; memory lanes address
    /// consecutive `lane_stride`-byte elements of the warp's slice of one of eight arrays
    /// (global), or of the block's shared memory.
    isa::dynamic_inst<WarpSize> execute(std::uint32_t slot, exec_site) {
        auto& w = warps_.at(slot);
        WARPKIT_EXPECTS(w.pc < w.code.size() && !w.at_barrier);
        isa::dynamic_inst<WarpSize> d;
        d.si = w.code[w.pc];
        d.warp = slot;
        d.pc = static_cast<std::uint32_t>(w.pc);
        d.seq = w.pc;
        d.active = lane_mask<WarpSize>::full();
        if (d.si.mop != isa::mem_op::none) {
            const std::uint64_t stride = p_.lane_stride;
            if (d.si.space == isa::mem_space::global) {
                const std::uint64_t base =
                    (std::uint64_t{w.pc % 8} << 32) + w.global_warp * WarpSize * stride;
                for (std::size_t l = 0; l < WarpSize; ++l)
                    d.addr[l] = base + l * stride;
            } else {
                for (std::size_t l = 0; l < WarpSize; ++l)
                    d.addr[l] = (l * stride) % shared_window;
            }
        }
        ++w.pc;
        ++executed_;
        if (d.si.is_exit) --blocks_.at(w.block_slot).live;
        if (d.si.is_barrier) {
            w.at_barrier = true;
            ++blocks_.at(w.block_slot).arrived;
        }
        return d;
    }
    /// Starts block `block` in block slot `bslot` on the warp slots `slots` (one per warp of
    /// the block); returns how many warps are live (all of them).
    std::uint32_t start_block(std::uint32_t bslot, std::uint32_t block,
                              std::span<const std::uint32_t> slots) {
        WARPKIT_EXPECTS(slots.size() == p_.warps_per_block);
        WARPKIT_EXPECTS(block < p_.blocks);
        auto& b = blocks_.at(bslot);
        b.live = 0;
        b.arrived = 0;
        for (std::uint32_t i = 0; i < slots.size(); ++i) {
            auto& w = warps_.at(slots[i]);
            w.global_warp = std::uint64_t{block} * p_.warps_per_block + i;
            w.block_slot = bslot;
            w.pc = 0;
            w.at_barrier = false;
            rng r = engine_.fork(w.global_warp);
            synthetic_stream(p_, r, w.code);
            generated_ += w.code.size();
            ++b.live;
        }
        return b.live;
    }
    /// Every live warp of block slot `bslot` waits at the barrier.
    [[nodiscard]] bool barrier_complete(std::uint32_t bslot) const {
        const auto& b = blocks_.at(bslot);
        return b.arrived != 0 && b.arrived == b.live;
    }
    /// Lets the warps of block slot `bslot` past the barrier.
    void release_barrier(std::uint32_t bslot) {
        for (auto& w : warps_)
            if (w.block_slot == bslot) w.at_barrier = false;
        blocks_.at(bslot).arrived = 0;
    }
    /// Every warp of block slot `bslot` has executed EXIT.
    [[nodiscard]] bool block_finished(std::uint32_t bslot) const {
        return blocks_.at(bslot).live == 0;
    }
    /// Pc of the warp in `slot` (for deadlock reports).
    [[nodiscard]] std::uint32_t pc(std::uint32_t slot) const {
        return static_cast<std::uint32_t>(warps_.at(slot).pc);
    }

    [[nodiscard]] const synthetic_params& params() const noexcept { return p_; }
    /// Warp instructions (barriers and EXIT included) of the whole workload.
    [[nodiscard]] std::uint64_t total_instructions() const noexcept {
        return std::uint64_t{p_.blocks} * p_.warps_per_block * synthetic_stream_length(p_);
    }
    /// Warp instructions generated for the blocks started so far.
    [[nodiscard]] std::uint64_t generated() const noexcept { return generated_; }
    /// Warp instructions executed so far.
    [[nodiscard]] std::uint64_t executed() const noexcept { return executed_; }

private:
    // Shared-memory addresses stay within 16 KB (any block's allocation on Fermi).
    static constexpr std::uint64_t shared_window = 16384;

    struct warp_state {
        std::vector<isa::static_inst> code;
        std::size_t pc = 0;
        std::uint64_t global_warp = 0;
        std::uint32_t block_slot = 0;
        bool at_barrier = false;
    };
    struct block_state {
        std::uint32_t live = 0;
        std::uint32_t arrived = 0;
    };

    synthetic_params p_;
    rng engine_;
    std::vector<warp_state> warps_;
    std::vector<block_state> blocks_;
    std::uint64_t generated_ = 0;
    std::uint64_t executed_ = 0;
};

static_assert(instruction_source<synthetic_source<32>, 32>);

} // namespace warpkit::func
