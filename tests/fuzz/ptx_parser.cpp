// Fuzz target: the PTX parser (ptx::parse_ptx).
//
// Laws on every module that parses: parsing is a function of the text (a second parse gives
// an equal module), and every index the IR holds points into its table: scopes nest inside
// the code, labels and branch targets inside the code (or just past it), registers, vector
// elements and symbols into their declarations, guards into the registers.
#include "fuzz.hpp"

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/parser.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace warpkit;

void check_operand(const ptx::module& m, const ptx::function& f, const ptx::operand& o) {
    using K = ptx::operand::kind;
    const auto regs = f.registers.size();
    const auto symbol_ok = [&] {
        switch (o.symbol_of) {
        case ptx::symbol_kind::module_var:
            return o.index < m.variables.size();
        case ptx::symbol_kind::function_var:
            return o.index < f.variables.size();
        case ptx::symbol_kind::param:
            return o.index < f.params.size();
        case ptx::symbol_kind::result:
            return o.index < f.results.size();
        case ptx::symbol_kind::function:
            return o.index < m.functions.size();
        }
        return false;
    };
    switch (o.k) {
    case K::reg:
        WARPKIT_FUZZ_LAW(o.reg < regs);
        break;
    case K::symbol:
        WARPKIT_FUZZ_LAW(symbol_ok());
        break;
    case K::label:
        WARPKIT_FUZZ_LAW(o.index <= f.code.size());
        break;
    case K::memory:
        WARPKIT_FUZZ_LAW(o.reg == ptx::no_index || o.reg < regs);
        WARPKIT_FUZZ_LAW(o.index == ptx::no_index || symbol_ok());
        break;
    case K::vector:
        WARPKIT_FUZZ_LAW(o.count >= 1 && o.count <= ptx::max_vector_elements);
        for (std::size_t i = 0; i < o.count; ++i)
            WARPKIT_FUZZ_LAW(o.elements[i] == ptx::no_index || o.elements[i] < regs);
        break;
    case K::sreg:
        WARPKIT_FUZZ_LAW(o.dim < 3);
        break;
    default:
        break;
    }
}

void check_module(const ptx::module& m) {
    for (const auto& f : m.functions) {
        const auto n = f.code.size();
        for (const auto& l : f.labels)
            WARPKIT_FUZZ_LAW(l.index <= n);
        for (std::size_t b = 0; b < f.blocks.size(); ++b) {
            const auto& blk = f.blocks[b];
            WARPKIT_FUZZ_LAW(blk.begin <= blk.end && blk.end <= n);
            WARPKIT_FUZZ_LAW(blk.parent < f.blocks.size() && (b == 0 || blk.parent < b));
        }
        for (const auto& r : f.registers)
            WARPKIT_FUZZ_LAW(f.blocks.empty() || r.block < f.blocks.size());
        for (const auto& in : f.code) {
            WARPKIT_FUZZ_LAW(in.num_operands <= in.operands.size());
            WARPKIT_FUZZ_LAW(in.guard == ptx::no_index || in.guard < f.registers.size());
            for (std::size_t i = 0; i < in.num_operands; ++i)
                check_operand(m, f, in.operands[i]);
            for (const auto& o : in.call_args)
                check_operand(m, f, o);
            for (const auto& o : in.call_results)
                check_operand(m, f, o);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    ptx::module m;
    if (!fuzz::expect_errors([&] { m = ptx::parse_ptx(text, "<fuzz>"); })) return 0;
    check_module(m);
    ptx::module again;
    const bool twice = fuzz::expect_errors([&] { again = ptx::parse_ptx(text, "<fuzz>"); });
    WARPKIT_FUZZ_LAW(twice);
    WARPKIT_FUZZ_LAW(again == m);
    return 0;
}
