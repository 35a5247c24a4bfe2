#pragma once
/// \file
/// The opcodes of the Accel-Sim traces the project writes of its PTX kernels
/// (func/accelsim_trace_writer.hpp: `ld.global.f32`, `mul.wide.s32`, `rcp.approx.f32`,
/// `cvt.f32.s32`, `bar.sync`) read back as the static_inst the PTX front end gives the same
/// instruction: the text becomes the fields of a PTX instruction (opcode, `.approx`, `.lo`
/// `.hi` `.wide`, state space, one or two types, `.arrive` / `.warp` of bar) and
/// ptx::passes::timing_class and the pass's memory access decide the unit, latency class,
/// memory operation and space, so a kernel runs from its trace on the units it runs on from
/// its PTX. What the text does not carry moves only latencies: a `mov` from a special
/// register is an INT move, a generic access is global.

#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/ptx/passes/static_info.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace warpkit::func::ptx_trace {

namespace detail {

// The value of enum E whose name (as ptx::name spells it) is `text`, or nullopt; empty names
// (ptx::space::generic's) never match. ptx::name spells "?" past the last value.
template <class E>
[[nodiscard]] constexpr std::optional<E> named(std::string_view text) noexcept {
    for (std::size_t i = 0; i < 256; ++i) {
        const std::string_view n = ptx::name(static_cast<E>(i));
        if (n == "?") break;
        if (!n.empty() && n == text) return static_cast<E>(i);
    }
    return std::nullopt;
}

} // namespace detail

/// The PTX instruction fields the opcode text `opcode` carries, or nullopt when its first
/// part is no PTX opcode. Unknown modifiers are skipped (rounding, comparison...).
[[nodiscard]] inline std::optional<ptx::instruction> parse_opcode(std::string_view opcode) {
    const std::size_t dot = opcode.find('.');
    const auto op = detail::named<ptx::op>(opcode.substr(0, dot));
    if (!op) return std::nullopt;
    ptx::instruction in;
    in.opcode = *op;
    std::string_view rest = dot == std::string_view::npos ? std::string_view{}
                                                          : opcode.substr(dot + 1);
    while (!rest.empty()) {
        const std::size_t next = rest.find('.');
        const std::string_view part = rest.substr(0, next);
        rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
        if (part == "approx") {
            in.approx = true;
        } else if (part == "arrive") {
            in.arrive = true;
        } else if (part == "warp") {
            in.warp = true;
        } else if (const auto m = detail::named<ptx::mul_mode>(part)) {
            in.mode = *m;
        } else if (const auto s = detail::named<ptx::space>(part)) {
            in.sp = *s;
        } else if (const auto t = detail::named<ptx::type>(part)) {
            (in.t == ptx::type::none ? in.t : in.t2) = *t;
        }
    }
    return in;
}

/// The static_inst (without registers) of the PTX instruction whose trace opcode is `in` and
/// that `has_addresses` (a ld or st without them is a call's `.param` move, as the writer
/// writes none for those).
[[nodiscard]] inline isa::static_inst static_inst_of(const ptx::instruction& in,
                                                     bool has_addresses) {
    ptx::prepared_inst p;
    p.in = in;
    p.addr.sp = in.sp == ptx::space::none ? ptx::space::generic : in.sp;
    const bool memory = in.opcode == ptx::op::ld || in.opcode == ptx::op::ldu ||
                        in.opcode == ptx::op::st || in.opcode == ptx::op::atom ||
                        in.opcode == ptx::op::red;
    p.call_param = memory && !has_addresses;
    isa::static_inst s;
    s.opcode = static_cast<std::uint16_t>(in.opcode);
    const auto [unit, latency] = ptx::passes::timing_class(p);
    s.unit = unit;
    s.latency = latency;
    ptx::passes::detail::memory_access(p, s);
    s.is_branch = in.opcode == ptx::op::bra;
    s.is_barrier = in.opcode == ptx::op::bar && !in.arrive && !in.warp;
    s.is_exit = in.opcode == ptx::op::exit || in.opcode == ptx::op::trap;
    return s;
}

} // namespace warpkit::func::ptx_trace
