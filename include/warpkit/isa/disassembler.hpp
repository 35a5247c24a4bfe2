#pragma once
/// \file
/// Disassembler for the warpkit ISA. Its output is the assembler's canonical text, so
/// words -> text -> words is the identity, and so is canonical text -> words -> text.

#include <warpkit/isa/encoding.hpp>
#include <warpkit/isa/instruction.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/program.hpp>
#include <warpkit/isa/special_register.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpkit::isa {

/// "0x" and eight lower-case hex digits.
[[nodiscard]] inline std::string hex_word(std::uint32_t w) {
    char buf[11];
    std::snprintf(buf, sizeof buf, "0x%08x", w);
    return buf;
}

/// Text of one instruction, e.g. "ADD r1, r2, r3"; branch targets print through
/// `target_name` (default: the instruction index).
template <class TargetName>
[[nodiscard]] std::string to_text(const instruction& in, TargetName&& target_name) {
    const auto& i = info(in.op);
    std::string s(i.mnemonic);
    for (std::uint8_t k = 0; k < i.operand_count; ++k) {
        s += k == 0 ? " " : ", ";
        switch (i.operands[k]) {
        case operand::dest:
            s += "r" + std::to_string(in.dest);
            break;
        case operand::src1:
            s += "r" + std::to_string(in.src1);
            break;
        case operand::src2:
            s += "r" + std::to_string(in.src2);
            break;
        case operand::src3:
            s += "r" + std::to_string(in.src3);
            break;
        case operand::sreg:
            s += special_register_name(in.src1);
            break;
        case operand::imm: {
            char buf[16];
            std::snprintf(buf, sizeof buf, "0x%x", in.imm);
            s += buf;
            break;
        }
        case operand::target:
            s += target_name(in.imm);
            break;
        }
    }
    return s;
}
[[nodiscard]] inline std::string to_text(const instruction& in) {
    return to_text(in, [](std::uint32_t t) { return std::to_string(t); });
}

/// One word as text, or `.word 0x...` when it is not a canonical encoding (unknown opcode,
/// non-zero don't-care bits, special register number out of range).
[[nodiscard]] inline std::string disassemble_word(std::uint32_t w, const encoding_params& p = {}) {
    const auto in = decode(w, p);
    if (!in || encode(*in, p) != w || (in->op == opcode::lds && in->src1 >= special_register_count))
        return ".word " + hex_word(w);
    return to_text(*in);
}

/// A code sequence as assembler text: one instruction per line, indented, with a label
/// line "L<n>:" before every branch target n inside (or just past) the code.
[[nodiscard]] inline std::string disassemble(std::span<const std::uint32_t> code,
                                             const encoding_params& p = {}) {
    std::vector<char> is_target(code.size() + 1, 0);
    std::vector<std::optional<instruction>> decoded(code.size());
    for (std::size_t k = 0; k < code.size(); ++k) {
        auto in = decode(code[k], p);
        if (in && encode(*in, p) == code[k] &&
            !(in->op == opcode::lds && in->src1 >= special_register_count)) {
            decoded[k] = in;
            if (in->uses(operand::target) && in->imm <= code.size()) is_target[in->imm] = 1;
        }
    }
    std::string out;
    const auto name = [&](std::uint32_t t) {
        return t <= code.size() ? "L" + std::to_string(t) : std::to_string(t);
    };
    for (std::size_t k = 0; k <= code.size(); ++k) {
        if (is_target[k]) out += "L" + std::to_string(k) + ":\n";
        if (k == code.size()) break;
        out += "    ";
        out += decoded[k] ? to_text(*decoded[k], name) : ".word " + hex_word(code[k]);
        out += '\n';
    }
    return out;
}

/// A whole program as canonical assembler text: directives, then the code.
[[nodiscard]] inline std::string disassemble(const program& prog, const encoding_params& p = {}) {
    std::string out;
    const auto& k = prog.kernel;
    const auto values = [&](const char* directive, const std::vector<std::uint32_t>& v) {
        for (std::size_t i = 0; i < v.size(); i += 8) {
            out += directive;
            for (std::size_t j = i; j < v.size() && j < i + 8; ++j)
                out += " " + hex_word(v[j]);
            out += '\n';
        }
    };
    if (!k.name.empty()) out += ".kernel " + k.name + "\n";
    out += ".grid " + std::to_string(k.grid.x) + " " + std::to_string(k.grid.y) + " " +
           std::to_string(k.grid.z) + "\n";
    out += ".block " + std::to_string(k.block.x) + " " + std::to_string(k.block.y) + " " +
           std::to_string(k.block.z) + "\n";
    if (k.warps_per_block != 0) out += ".warps " + std::to_string(k.warps_per_block) + "\n";
    if (k.regs_per_thread != 0) out += ".regs " + std::to_string(k.regs_per_thread) + "\n";
    if (k.shared_bytes != 0) out += ".shared " + std::to_string(k.shared_bytes) + "\n";
    values(".param", k.params);
    values(".const", k.consts);
    values(".data", k.data);
    out += disassemble(std::span<const std::uint32_t>(prog.code), p);
    return out;
}

} // namespace warpkit::isa
