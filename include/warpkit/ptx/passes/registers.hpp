#pragma once
/// \file
/// Preparation pass 5, register allocation: liveness of the kernel's virtual registers over
/// its control-flow graph, and from it the timing register ids the scoreboard sees, the rows
/// of a warp's register storage, and the most registers live at once.
///
/// Reads: the prepared code (prepare_operands), the flat registers' types, the carry flag's
/// register, how many timing ids the scoreboard tracks.
/// Produces: `register_allocation` (see its fields).
/// Guarantees: two registers live at once (one written while the other is live after the
/// write, or both live on entry) get different colours, so different timing ids unless the
/// colouring needed more ids than the scoreboard has (ids fold modulo timing_registers and
/// each folded register is counted), and different storage rows of their width. A write
/// under a guard leaves the old value live (lanes whose guard is false keep it). Registers
/// the code never names get timing id 0 and storage row 0.

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/passes/prepared.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::ptx {

/// The row of a warp's register storage that holds a virtual register: rows of 32-bit
/// values (registers of up to 32 bits, predicates included) and rows of 64-bit values are
/// numbered apart. Registers never live at once (by the liveness the timing ids use) share
/// a row, so a warp's storage is sized by what the kernel really keeps, not by how many
/// virtual registers nvcc declared.
struct register_storage {
    std::uint32_t row = 0;
    bool wide = false; ///< a 64-bit row
};

} // namespace warpkit::ptx

namespace warpkit::ptx::passes {

/// Registers `p` reads (sources, address register, guard, the carry flag of addc / subc /
/// madc, the source fragments of a matrix instruction) into `uses` and writes (destinations,
/// the carry flag of `.cc`, a matrix instruction's destination fragment) into `defs`, both
/// cleared first, in that order; `carry_register` is the carry flag's index.
inline void register_uses_defs(const prepared_inst& p, std::uint32_t carry_register,
                               std::vector<std::uint32_t>& uses, std::vector<std::uint32_t>& defs) {
    uses.clear();
    defs.clear();
    for (std::size_t i = 0; i < p.num_src; ++i)
        if (p.src[i].k == value_ref::kind::reg) uses.push_back(p.src[i].reg);
    if (p.has_addr && p.addr.reg != no_index) uses.push_back(p.addr.reg);
    if (p.in.guard != no_index) uses.push_back(p.in.guard);
    if (p.reads_carry) uses.push_back(carry_register);
    for (std::size_t i = 0; i < p.num_dst; ++i)
        if (p.dst[i] != no_index) defs.push_back(p.dst[i]);
    if (p.writes_carry) defs.push_back(carry_register);
    if (is_matrix(p.in.opcode))
        for_each_fragment_register(
            p.in, [&](std::uint32_t r, bool written) { (written ? defs : uses).push_back(r); });
}

/// A set of register indices: bit r % 64 of word r / 64.
using register_set = std::vector<std::uint64_t>;

/// Which registers each instruction reads and writes and which are live around it.
struct liveness {
    std::vector<std::vector<std::uint32_t>> uses; ///< per pc (register_uses_defs)
    std::vector<std::vector<std::uint32_t>> defs; ///< per pc
    std::vector<register_set> live_in;            ///< per pc: live before the instruction
    std::vector<register_set> live_out;           ///< per pc: live after it
};

namespace detail {

inline void insert(register_set& set, std::uint32_t r) {
    set[r / 64] |= std::uint64_t{1} << (r % 64);
}
inline void erase(register_set& set, std::uint32_t r) {
    set[r / 64] &= ~(std::uint64_t{1} << (r % 64));
}
// Calls f(r) for each register of the set, in increasing order.
template <class F>
void for_each_register(const register_set& set, F&& f) {
    for (std::size_t w = 0; w < set.size(); ++w)
        for (std::uint64_t x = set[w]; x != 0; x &= x - 1)
            f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(x))));
}

} // namespace detail

/// Liveness of `register_count` registers over `code`, iterated to the fixed point backwards
/// over the control-flow graph (`successors`).
[[nodiscard]] inline liveness compute_liveness(const std::vector<prepared_inst>& code,
                                               std::size_t register_count,
                                               std::uint32_t carry_register) {
    const std::size_t n = code.size();
    const std::size_t words = (register_count + 63) / 64;
    liveness live{std::vector<std::vector<std::uint32_t>>(n),
                  std::vector<std::vector<std::uint32_t>>(n),
                  std::vector<register_set>(n, register_set(words, 0)),
                  std::vector<register_set>(n, register_set(words, 0))};
    std::vector<std::vector<std::size_t>> succ(n);
    for (std::size_t pc = 0; pc < n; ++pc) {
        register_uses_defs(code[pc], carry_register, live.uses[pc], live.defs[pc]);
        succ[pc] = successors(code, pc);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t pc = n; pc-- > 0;) {
            register_set out(words, 0);
            for (const std::size_t s : succ[pc])
                for (std::size_t w = 0; w < words; ++w)
                    out[w] |= live.live_in[s][w];
            register_set in = out;
            if (code[pc].in.guard == no_index) // a guarded write leaves the old value in some lanes
                for (const auto r : live.defs[pc])
                    detail::erase(in, r);
            for (const auto r : live.uses[pc])
                detail::insert(in, r);
            if (in != live.live_in[pc] || out != live.live_out[pc]) {
                live.live_in[pc] = std::move(in);
                live.live_out[pc] = std::move(out);
                changed = true;
            }
        }
    }
    return live;
}

/// The result of register allocation, per flat register where it says so.
struct register_allocation {
    std::vector<isa::reg_id> timing_ids;   ///< per register: < timing_registers
    std::uint32_t folded = 0;              ///< registers whose colour was folded into the ids
    std::uint32_t colours = 0;             ///< timing ids the colouring needed (before folding)
    std::uint32_t max_live = 0;            ///< most 32-bit registers live at once (64-bit: 2)
    std::vector<register_storage> storage; ///< per register
    std::array<std::uint32_t, 2> storage_rows{1, 1}; ///< 32-bit rows, 64-bit rows (at least 1)
};

namespace detail {

// The interference graph: a definition conflicts with everything live after it and with the
// instruction's other definitions; registers live on entry (read before any write) conflict
// with each other. `referenced`: the registers the code names.
struct interference {
    std::vector<register_set> adjacent;
    std::vector<char> referenced;
};

[[nodiscard]] inline interference interference_of(const liveness& live,
                                                  std::size_t register_count) {
    const std::size_t words = (register_count + 63) / 64;
    interference g{std::vector<register_set>(register_count, register_set(words, 0)),
                   std::vector<char>(register_count, 0)};
    const auto edge = [&](std::uint32_t a, std::uint32_t b) {
        if (a == b) return;
        insert(g.adjacent[a], b);
        insert(g.adjacent[b], a);
    };
    for (std::size_t pc = 0; pc < live.defs.size(); ++pc) {
        for (const auto d : live.defs[pc]) {
            g.referenced[d] = 1;
            for_each_register(live.live_out[pc], [&](std::uint32_t r) { edge(d, r); });
            for (const auto d2 : live.defs[pc])
                edge(d, d2);
        }
        for (const auto u : live.uses[pc])
            g.referenced[u] = 1;
    }
    if (!live.live_in.empty()) {
        std::vector<std::uint32_t> entry_live;
        for_each_register(live.live_in[0], [&](std::uint32_t r) { entry_live.push_back(r); });
        for (const auto a : entry_live)
            for (const auto b : entry_live)
                edge(a, b);
    }
    return g;
}

// The most 32-bit registers live at once: before an instruction, or after it with its
// definitions (a definition nobody reads still takes a register).
[[nodiscard]] inline std::uint32_t most_live(const liveness& live,
                                             const std::vector<register_decl>& registers) {
    const auto weight = [&](const register_set& set) {
        std::uint32_t sum = 0;
        for_each_register(set, [&](std::uint32_t r) {
            const unsigned w = bits(registers[r].t);
            sum += w <= 1 ? 0 : (w > 32 ? 2 : 1);
        });
        return sum;
    };
    std::uint32_t most = 0;
    for (std::size_t pc = 0; pc < live.defs.size(); ++pc) {
        register_set at = live.live_out[pc];
        for (const auto d : live.defs[pc])
            insert(at, d);
        most = std::max({most, weight(live.live_in[pc]), weight(at)});
    }
    return most;
}

// The registers the code names, in order of first appearance (uses before definitions).
[[nodiscard]] inline std::vector<std::uint32_t> colouring_order(const liveness& live,
                                                                const interference& g) {
    std::vector<std::uint32_t> order;
    std::vector<char> seen(g.referenced.size(), 0);
    const auto visit = [&](std::uint32_t r) {
        if (seen[r] == 0 && g.referenced[r] != 0) {
            seen[r] = 1;
            order.push_back(r);
        }
    };
    for (std::size_t pc = 0; pc < live.defs.size(); ++pc) {
        for (const auto r : live.uses[pc])
            visit(r);
        for (const auto r : live.defs[pc])
            visit(r);
    }
    return order;
}

} // namespace detail

/// Allocates the registers of `code` (see the file comment): `registers` are the flat
/// registers (the carry flag's included, at `carry_register`), `timing_registers` the ids the
/// scoreboard tracks (> 0). Colours are given greedily in order of first appearance, each
/// the smallest one no neighbour in the interference graph has.
[[nodiscard]] inline register_allocation
allocate_registers(const std::vector<prepared_inst>& code,
                   const std::vector<register_decl>& registers, std::uint32_t carry_register,
                   std::uint32_t timing_registers) {
    const std::size_t nregs = registers.size();
    const liveness live = compute_liveness(code, nregs, carry_register);
    const detail::interference g = detail::interference_of(live, nregs);
    register_allocation out;
    out.max_live = detail::most_live(live, registers);
    constexpr std::uint32_t uncoloured = 0xffffffffU;
    std::vector<std::uint32_t> colour(nregs, uncoloured);
    // Storage rows: the same colouring within each width class (registers of up to 32
    // bits in 32-bit rows, 64-bit ones in 64-bit rows). Two registers share a row only
    // when no thread needs both at once, so every lane's row holds its thread's value.
    std::vector<std::uint32_t> row(nregs, uncoloured);
    const auto wide = [&](std::uint32_t r) { return bits(registers[r].t) > 32; };
    std::vector<char> taken, taken_row;
    for (const auto r : detail::colouring_order(live, g)) {
        taken.assign(nregs + 1, 0);
        taken_row.assign(nregs + 1, 0);
        detail::for_each_register(g.adjacent[r], [&](std::uint32_t q) {
            if (colour[q] != uncoloured) taken[colour[q]] = 1;
            if (row[q] != uncoloured && wide(q) == wide(r)) taken_row[row[q]] = 1;
        });
        std::uint32_t c = 0;
        while (taken[c] != 0)
            ++c;
        colour[r] = c;
        out.colours = std::max(out.colours, c + 1);
        std::uint32_t w = 0;
        while (taken_row[w] != 0)
            ++w;
        row[r] = w;
        out.storage_rows[wide(r) ? 1 : 0] = std::max(out.storage_rows[wide(r) ? 1 : 0], w + 1);
    }
    out.storage.assign(nregs, register_storage{});
    for (std::uint32_t r = 0; r < nregs; ++r)
        out.storage[r] = {row[r] == uncoloured ? 0 : row[r], wide(r)};
    out.timing_ids.assign(nregs, 0);
    for (std::size_t r = 0; r < nregs; ++r) {
        if (colour[r] == uncoloured) continue;
        if (colour[r] >= timing_registers) ++out.folded;
        out.timing_ids[r] = static_cast<isa::reg_id>(colour[r] % timing_registers);
    }
    return out;
}

} // namespace warpkit::ptx::passes
