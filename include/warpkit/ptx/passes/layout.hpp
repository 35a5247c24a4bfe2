#pragma once
/// \file
/// Preparation pass 2, variable layout: the address of every variable a kernel can name, in
/// its state space (the spaces and their addresses are described in ptx/kernel.hpp).
///
/// Reads: the module's variables, the flat code and variables of an entry (the output of
/// inline_calls), the device address of the module's first `.global` variable.
/// Produces: `variable_layout`, a place per module variable and per flat variable, the
/// constant bank, the `.global` variables, the shared and local memory sizes.
/// Guarantees: every variable is at a multiple of its alignment (`.global` of 16 bytes at
/// least, dynamic shared memory too); static `.shared` holds only the module variables the
/// code names, then the flat ones, in declaration order; `.local` holds the module's, then the
/// flat variables', then the call `.param` slots (which become `.local`). Throws config_error
/// when a thread's local memory exceeds `max_local_bytes` or shared memory 4 GiB.

#include <warpkit/core/error.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/passes/prepared.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::ptx {

/// Local memory a thread may have (CUDA: 512 KiB per thread since compute capability 2.0).
inline constexpr std::uint64_t max_local_bytes = 512 * 1024;

/// A module `.const` or `.global` variable where every kernel of the module finds it: a
/// constant-bank offset (`.const`) or a device address (`.global`), its size and initialiser.
struct module_variable {
    std::string name;
    space sp = space::global;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    std::vector<std::uint8_t> init;
};

/// Places the module's `.const` and `.global` variables as every kernel of it does: in
/// declaration order, each at its alignment (`.global` at 16 bytes at least), constants from
/// offset 0 of the constant bank, globals from `global_base`. One entry per module variable
/// (other state spaces keep address 0).
[[nodiscard]] inline std::vector<module_variable>
place_module_variables(const module& m, std::uint64_t global_base) {
    std::vector<module_variable> out;
    out.reserve(m.variables.size());
    std::uint64_t constant = 0, global = 0;
    for (const auto& v : m.variables) {
        module_variable mv{v.name, v.sp, 0, v.bytes, {}};
        const std::uint64_t a = v.align == 0 ? 1 : v.align;
        if (v.sp == space::constant) {
            constant = (constant + a - 1) / a * a;
            mv.address = constant;
            constant += v.bytes;
            mv.init = v.init;
        } else if (v.sp == space::global) {
            const std::uint64_t ga = std::max<std::uint64_t>(a, 16);
            global = (global + ga - 1) / ga * ga;
            mv.address = global_base + global;
            global += v.bytes;
            mv.init = v.init;
        }
        out.push_back(std::move(mv));
    }
    return out;
}

/// The constant bank of the module's placed variables, initialisers written.
[[nodiscard]] inline std::vector<std::uint8_t>
constant_bank_of(const std::vector<module_variable>& vars) {
    std::vector<std::uint8_t> bank;
    for (const auto& v : vars)
        if (v.sp == space::constant) {
            bank.resize(std::max<std::uint64_t>(bank.size(), v.address + v.bytes), 0);
            std::copy_n(v.init.begin(), std::min<std::size_t>(v.init.size(), v.bytes),
                        bank.begin() + static_cast<std::ptrdiff_t>(v.address));
        }
    return bank;
}

} // namespace warpkit::ptx

namespace warpkit::ptx::passes {

/// A module `.global` variable: its name, device address, size and initialiser.
struct global_variable {
    std::string name;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    std::vector<std::uint8_t> init;
};

/// Where the variables of a kernel live.
struct variable_layout {
    /// Per module variable: its state space and address (`reg` no_index). `.extern .shared`
    /// is at dynamic_shared_offset; a `.shared` variable the code never names keeps 0.
    std::vector<address_ref> module_places;
    /// Per flat variable (flat_code::variables): its space and address; call `.param` slots
    /// are in `.local`; `.global` / `.const` declared in a body keep their space, address 0.
    std::vector<address_ref> function_places;
    /// Per flat variable: 1 for a call `.param` slot (a `.param` variable of a body).
    std::vector<char> call_slots;
    std::vector<global_variable> globals;    ///< the module's `.global` variables, in order
    std::vector<std::uint8_t> constant_bank; ///< the module's `.const` variables, initialised
    std::uint32_t static_shared_bytes = 0;   ///< static shared memory per block
    std::uint32_t dynamic_shared_offset = 0; ///< where dynamic shared memory starts
    bool uses_dynamic_shared = false;        ///< the code can reach `.extern .shared`
    std::uint32_t local_bytes = 0;           ///< local memory per thread
};

namespace detail {

[[nodiscard]] inline std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

// Running ends of the spaces a kernel lays out itself.
struct layout_cursor {
    std::uint64_t shared = 0;
    std::uint64_t local = 0;
    std::uint64_t dynamic_align = 16;
};

// 1 for each module variable an instruction names.
[[nodiscard]] inline std::vector<char>
module_variables_named(const module& m, const std::vector<instruction>& code) {
    std::vector<char> used(m.variables.size(), 0);
    for (const auto& in : code)
        for (std::size_t k = 0; k < in.num_operands; ++k) {
            const auto& o = in.operands[k];
            if ((o.k == operand::kind::symbol || o.k == operand::kind::memory) &&
                o.symbol_of == symbol_kind::module_var && o.index < m.variables.size())
                used[o.index] = 1;
        }
    return used;
}

// The module's variables: constant bank and globals as place_module_variables puts them,
// the named `.shared` ones, then the `.local` ones.
inline void lay_out_module_variables(const module& m, const std::vector<instruction>& code,
                                     std::uint64_t global_base, variable_layout& out,
                                     layout_cursor& at) {
    const std::vector<char> used = module_variables_named(m, code);
    out.module_places.assign(m.variables.size(), address_ref{});
    const auto placed = ptx::place_module_variables(m, global_base);
    out.constant_bank = constant_bank_of(placed);
    for (std::size_t i = 0; i < m.variables.size(); ++i) {
        const auto& v = m.variables[i];
        auto& p = out.module_places[i];
        p.sp = v.sp;
        const std::uint64_t a = v.align == 0 ? 1 : v.align;
        switch (v.sp) {
        case space::constant:
            p.offset = placed[i].address;
            break;
        case space::global:
            p.offset = placed[i].address;
            out.globals.push_back({v.name, p.offset, v.bytes, v.init});
            break;
        case space::shared:
            if (v.is_extern) {
                out.uses_dynamic_shared = out.uses_dynamic_shared || used[i] != 0;
                at.dynamic_align = std::max(at.dynamic_align, a);
            } else if (used[i] != 0) {
                at.shared = align_up(at.shared, a);
                p.offset = at.shared;
                at.shared += v.bytes;
            }
            break;
        default:
            break; // .local at module scope: placed per thread below
        }
    }
    for (std::size_t i = 0; i < m.variables.size(); ++i) {
        const auto& v = m.variables[i];
        if (v.sp == space::local) {
            at.local = align_up(at.local, v.align == 0 ? 1 : v.align);
            out.module_places[i].offset = at.local;
            at.local += v.bytes;
        }
    }
}

// The flat variables: `.shared` and `.local` in order, then the call `.param` slots in
// `.local` (at least one byte each).
inline void lay_out_function_variables(const std::vector<variable>& variables, variable_layout& out,
                                       layout_cursor& at) {
    out.function_places.assign(variables.size(), address_ref{});
    out.call_slots.assign(variables.size(), 0);
    std::vector<std::size_t> slots;
    for (std::size_t i = 0; i < variables.size(); ++i) {
        const auto& v = variables[i];
        auto& p = out.function_places[i];
        const std::uint64_t a = v.align == 0 ? 1 : v.align;
        p.sp = v.sp;
        switch (v.sp) {
        case space::shared:
            if (v.is_extern) {
                out.uses_dynamic_shared = true;
                at.dynamic_align = std::max(at.dynamic_align, a);
            } else {
                at.shared = align_up(at.shared, a);
                p.offset = at.shared;
                at.shared += v.bytes;
            }
            break;
        case space::local:
            at.local = align_up(at.local, a);
            p.offset = at.local;
            at.local += v.bytes;
            break;
        case space::param:
            slots.push_back(i);
            break;
        default:
            break; // .global / .const inside a function body: rejected when used
        }
    }
    for (const std::size_t i : slots) {
        const auto& v = variables[i];
        at.local = align_up(at.local, std::max<std::uint64_t>(v.align, 1));
        out.function_places[i].sp = space::local;
        out.function_places[i].offset = at.local;
        at.local += std::max<std::uint64_t>(v.bytes, 1);
        out.call_slots[i] = 1;
    }
}

} // namespace detail

/// The layout of the module's variables and the flat variables of an entry (see the file
/// comment): `code` and `variables` are flat_code's, `global_base` the device address of the
/// module's first `.global` variable.
[[nodiscard]] inline variable_layout lay_out_variables(const module& m,
                                                       const std::vector<instruction>& code,
                                                       const std::vector<variable>& variables,
                                                       std::uint64_t global_base) {
    variable_layout out;
    detail::layout_cursor at;
    detail::lay_out_module_variables(m, code, global_base, out, at);
    detail::lay_out_function_variables(variables, out, at);
    out.dynamic_shared_offset =
        static_cast<std::uint32_t>(detail::align_up(at.shared, at.dynamic_align));
    for (std::size_t i = 0; i < m.variables.size(); ++i)
        if (m.variables[i].sp == space::shared && m.variables[i].is_extern)
            out.module_places[i].offset = out.dynamic_shared_offset;
    for (std::size_t i = 0; i < variables.size(); ++i)
        if (variables[i].sp == space::shared && variables[i].is_extern)
            out.function_places[i].offset = out.dynamic_shared_offset;
    // CUDA's limits: 512 KiB of local memory per thread; shared memory addresses are
    // 32-bit offsets (an SM's capacity is checked at launch).
    if (at.local > max_local_bytes)
        throw config_error("kernel.local_bytes", std::to_string(at.local),
                           "<= " + std::to_string(max_local_bytes) + " (local memory per thread)");
    if (at.shared > 0xffffffffULL)
        throw config_error("kernel.shared_bytes", std::to_string(at.shared),
                           "< 4 GiB (32-bit shared addresses)");
    out.static_shared_bytes = static_cast<std::uint32_t>(at.shared);
    out.local_bytes = static_cast<std::uint32_t>(at.local);
    return out;
}

} // namespace warpkit::ptx::passes
