#pragma once
/// \file
/// ptx::module -> PTX text that parse_ptx accepts and reads back into an equal module
/// (positions aside): modifiers in the order PTX documents, register ranges folded back into
/// `%r<N>`, nested `{ }` call-sequence blocks restored. Also one instruction as text, for
/// messages.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/names.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::ptx {

namespace detail {

inline void append_dot(std::string& out, std::string_view w) {
    if (w.empty()) return;
    out += '.';
    out += w;
}
inline void append_hex(std::string& out, std::uint64_t v, int digits) {
    static constexpr char hex[] = "0123456789ABCDEF";
    for (int i = digits - 1; i >= 0; --i)
        out += hex[(v >> (4 * i)) & 15U];
}
inline void append_int(std::string& out, std::int64_t v) {
    if (v < 0) {
        out += '-';
        out += std::to_string(~static_cast<std::uint64_t>(v) + 1);
    } else {
        out += std::to_string(v);
    }
}
[[nodiscard]] inline bool memory_op(op o) noexcept {
    return o == op::ld || o == op::ldu || o == op::st || o == op::atom || o == op::red ||
           o == op::prefetch;
}

// The name printed for a label target: the first label at that index, or a made-up one.
[[nodiscard]] inline std::string label_name(const function& f, std::uint32_t index) {
    for (const auto& l : f.labels)
        if (l.index == index) return l.name;
    return "$L__index_" + std::to_string(index);
}

[[nodiscard]] inline std::string_view symbol_name(const module& m, const function& f, symbol_kind k,
                                                  std::uint32_t i) noexcept {
    switch (k) {
    case symbol_kind::module_var:
        return i < m.variables.size() ? std::string_view{m.variables[i].name} : "?";
    case symbol_kind::function_var:
        return i < f.variables.size() ? std::string_view{f.variables[i].name} : "?";
    case symbol_kind::param:
        return i < f.params.size() ? std::string_view{f.params[i].name} : "?";
    case symbol_kind::result:
        return i < f.results.size() ? std::string_view{f.results[i].name} : "?";
    case symbol_kind::function:
        return i < m.functions.size() ? std::string_view{m.functions[i].name} : "?";
    }
    return "?";
}

[[nodiscard]] inline std::string_view reg_name(const function& f, std::uint32_t r) noexcept {
    return r < f.registers.size() ? std::string_view{f.registers[r].name} : "?";
}

} // namespace detail

/// The mnemonic with its modifiers in PTX order, e.g. "ld.global.nc.v4.f32".
[[nodiscard]] inline std::string mnemonic(const instruction& in) {
    using detail::append_dot;
    std::string s(name(in.opcode));
    const op o = in.opcode;
    if (is_matrix(o)) return matrix_mnemonic(in, s);
    if (o == op::bar) {
        if (in.warp) s += ".warp";
        s += in.arrive ? ".arrive" : ".sync";
        return s;
    }
    if (o == op::tex) { // tex.geom.v4.dtype.ctype
        append_dot(s, name(in.geom));
        s += ".v4";
        append_dot(s, name(in.t));
        append_dot(s, name(in.t2));
        return s;
    }
    if (o == op::membar) {
        append_dot(s, in.sc == scope::gpu ? "gl" : name(in.sc));
        return s;
    }
    if (o == op::fence || detail::memory_op(o)) {
        append_dot(s, name(in.sem));
        append_dot(s, name(in.sc));
    }
    if (o == op::cvta && in.to) s += ".to";
    if (detail::memory_op(o) || o == op::cvta) append_dot(s, name(in.sp));
    if (in.nc) s += ".nc";
    append_dot(s, name(in.aop));
    if (o == op::shfl || o == op::vote) s += ".sync";
    append_dot(s, name(in.shfl));
    append_dot(s, name(in.vote));
    append_dot(s, name(in.compare));
    append_dot(s, name(in.combine));
    append_dot(s, name(in.mode));
    append_dot(s, name(in.test));
    if (in.shiftamt) s += ".shiftamt";
    if (o == op::shf) {
        s += in.shift_left ? ".l" : ".r";
        s += in.wrap ? ".wrap" : ".clamp";
    }
    append_dot(s, name(in.rnd));
    if (in.approx) s += ".approx";
    if (in.full) s += ".full";
    if (in.ftz) s += ".ftz";
    if (in.sat) s += ".sat";
    if (in.cc) s += ".cc";
    if (in.vec > 1) {
        s += ".v";
        s += std::to_string(in.vec);
    }
    if (in.uni) s += ".uni";
    if (o == op::prefetch) s += ".L2";
    append_dot(s, name(in.t));
    append_dot(s, name(in.t2));
    return s;
}

/// Appends one operand as PTX text.
inline void print_operand(std::string& out, const module& m, const function& f, const operand& o) {
    switch (o.k) {
    case operand::kind::none:
        break;
    case operand::kind::reg:
        if (o.negate) out += '!';
        out += detail::reg_name(f, o.reg);
        break;
    case operand::kind::imm:
        if (o.immediate == imm_kind::f32) {
            out += "0f";
            detail::append_hex(out, o.bits & 0xffffffffU, 8);
        } else if (o.immediate == imm_kind::f64) {
            out += "0d";
            detail::append_hex(out, o.bits, 16);
        } else {
            detail::append_int(out, static_cast<std::int64_t>(o.bits));
        }
        break;
    case operand::kind::sreg:
        out += name(o.special);
        if (has_components(o.special)) {
            out += '.';
            out += static_cast<char>('x' + (o.dim < 3 ? o.dim : 0));
        }
        break;
    case operand::kind::symbol:
        out += detail::symbol_name(m, f, o.symbol_of, o.index);
        break;
    case operand::kind::label:
        out += detail::label_name(f, o.index);
        break;
    case operand::kind::memory: {
        out += '[';
        bool base = true;
        if (o.reg != no_index)
            out += detail::reg_name(f, o.reg);
        else if (o.index != no_index)
            out += detail::symbol_name(m, f, o.symbol_of, o.index);
        else
            base = false;
        if (!base) {
            detail::append_int(out, o.offset);
        } else if (o.offset != 0) {
            out += '+';
            detail::append_int(out, o.offset);
        }
        out += ']';
        break;
    }
    case operand::kind::vector:
        out += '{';
        for (std::uint8_t i = 0; i < o.count && i < o.elements.size(); ++i) {
            if (i != 0) out += ", ";
            out += o.elements[i] == no_index ? std::string_view{"_"}
                                             : detail::reg_name(f, o.elements[i]);
        }
        out += '}';
        break;
    case operand::kind::sink:
        out += '_';
        break;
    }
}

/// Appends one instruction as a line of PTX (no indentation, no newline).
inline void print_instruction(std::string& out, const module& m, const function& f,
                              const instruction& in) {
    if (in.guard != no_index) {
        out += in.guard_negated ? "@!" : "@";
        out += detail::reg_name(f, in.guard);
        out += ' ';
    }
    out += mnemonic(in);
    auto list = [&](const std::vector<operand>& ops) {
        out += '(';
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (i != 0) out += ", ";
            print_operand(out, m, f, ops[i]);
        }
        out += ')';
    };
    if (in.opcode == op::call) {
        out += ' ';
        if (!in.call_results.empty()) {
            list(in.call_results);
            out += ", ";
        }
        print_operand(out, m, f, in.operands[0]);
        if (!in.call_args.empty()) {
            out += ", ";
            list(in.call_args);
        }
        out += ';';
        return;
    }
    // Two predicate destinations are written `%p|%q`.
    const bool pair =
        (in.opcode == op::setp && in.num_operands == (in.combine != bool_op::none ? 5 : 4)) ||
        (in.opcode == op::shfl && in.num_operands == 6);
    for (std::uint8_t i = 0; i < in.num_operands && i < in.operands.size(); ++i) {
        out += i == 0 ? " " : (pair && i == 1 ? "|" : ", ");
        if (in.opcode == op::tex && i == 1) out += '['; // tex: [handle, {coordinates}]
        print_operand(out, m, f, in.operands[i]);
        if (in.opcode == op::tex && i == 2) out += ']';
    }
    out += ';';
}

/// One instruction as text, e.g. "@%p1 bra $L__BB0_2;" (for messages).
[[nodiscard]] inline std::string to_string(const module& m, const function& f,
                                           const instruction& in) {
    std::string s;
    print_instruction(s, m, f, in);
    return s;
}

namespace detail {

inline void print_param(std::string& out, const param& p) {
    out += ".param";
    const unsigned size = size_of(p.t);
    if (p.align > size) out += " .align " + std::to_string(p.align);
    out += " .";
    out += name(p.t);
    out += ' ';
    out += p.name;
    if (size == 0 || p.bytes != size) out += "[" + std::to_string(size ? p.bytes / size : 0) + "]";
}

inline void print_params(std::string& out, const std::vector<param>& ps) {
    out += '(';
    for (std::size_t i = 0; i < ps.size(); ++i) {
        out += i == 0 ? "\n\t" : ",\n\t";
        print_param(out, ps[i]);
    }
    out += ps.empty() ? ")" : "\n)";
}

[[nodiscard]] constexpr std::uint32_t f16_to_f32_bits(std::uint16_t h) noexcept {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
    std::uint32_t exp = (h >> 10) & 0x1fU;
    std::uint32_t man = h & 0x3ffU;
    if (exp == 0x1f) return sign | 0x7f800000U | (man << 13);
    if (exp == 0) {
        if (man == 0) return sign;
        exp = 127 - 15 + 1;
        while ((man & 0x400U) == 0) {
            man <<= 1;
            --exp;
        }
        return sign | (exp << 23) | ((man & 0x3ffU) << 13);
    }
    return sign | ((exp + 127 - 15) << 23) | (man << 13);
}

inline void print_init(std::string& out, const variable& v) {
    const unsigned size = size_of(v.t);
    if (size == 0 || v.init.empty()) return;
    const std::size_t n = v.init.size() / size;
    auto element = [&](std::size_t e) {
        std::uint64_t bits = 0;
        for (unsigned b = 0; b < size; ++b)
            bits |= static_cast<std::uint64_t>(v.init[e * size + b]) << (8 * b);
        if (v.t == type::f32) {
            out += "0f";
            append_hex(out, bits, 8);
        } else if (v.t == type::f16) {
            out += "0f"; // exact: every half is a float
            append_hex(out, f16_to_f32_bits(static_cast<std::uint16_t>(bits)), 8);
        } else if (v.t == type::f64) {
            out += "0d";
            append_hex(out, bits, 16);
        } else {
            out += std::to_string(bits);
        }
    };
    out += " = ";
    if (n == 1 && v.bytes == size) {
        element(0);
        return;
    }
    out += '{';
    for (std::size_t e = 0; e < n; ++e) {
        if (e != 0) out += ", ";
        element(e);
    }
    out += '}';
}

inline void print_variable(std::string& out, const variable& v) {
    if (v.is_extern) out += ".extern ";
    out += '.';
    out += name(v.sp);
    out += " .align " + std::to_string(v.align);
    out += " .";
    out += name(v.t);
    out += ' ';
    out += v.name;
    const unsigned size = size_of(v.t);
    if (v.is_extern && v.bytes == 0)
        out += "[]";
    else if (v.bytes != size)
        out += "[" + std::to_string(size ? v.bytes / size : 0) + "]";
    print_init(out, v);
    out += ';';
}

// Registers of one block, consecutive `P0 .. P(n-1)` of one type folded into `P<n>`.
inline void print_registers(std::string& out, const function& f, std::uint32_t b,
                            std::string_view indent) {
    const auto& regs = f.registers;
    auto split = [](std::string_view n, std::string_view& prefix, std::uint64_t& k) {
        std::size_t i = n.size();
        while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
            --i;
        if (i == 0 || i == n.size() || n.size() - i > 9 || (n.size() - i > 1 && n[i] == '0'))
            return false;
        prefix = n.substr(0, i);
        k = 0;
        for (std::size_t j = i; j < n.size(); ++j)
            k = k * 10 + static_cast<std::uint64_t>(n[j] - '0');
        return true;
    };
    for (std::size_t i = 0; i < regs.size();) {
        if (regs[i].block != b) {
            ++i;
            continue;
        }
        std::string_view prefix;
        std::uint64_t k = 0;
        std::size_t j = i + 1;
        if (split(regs[i].name, prefix, k) && k == 0) {
            std::string_view p2;
            std::uint64_t k2 = 0;
            while (j < regs.size() && regs[j].block == b && regs[j].t == regs[i].t &&
                   split(regs[j].name, p2, k2) && p2 == prefix && k2 == j - i)
                ++j;
        }
        out += indent;
        out += ".reg .";
        out += name(regs[i].t);
        out += ' ';
        if (j - i > 1 || (split(regs[i].name, prefix, k) && k == 0)) {
            out += prefix;
            out += '<' + std::to_string(j - i) + '>';
        } else {
            out += regs[i].name;
        }
        out += ";\n";
        i = j;
    }
}

struct body_printer {
    const module& m;
    const function& f;
    std::string& out;
    std::size_t label_cursor = 0;
    std::vector<std::vector<std::uint32_t>> children;
    std::vector<label> labels; ///< the function's labels plus made-up ones for bare targets

    void collect_labels() {
        labels = f.labels;
        for (const auto& in : f.code)
            for (std::uint8_t k = 0; k < in.num_operands && k < in.operands.size(); ++k) {
                const operand& o = in.operands[k];
                if (o.k != operand::kind::label) continue;
                bool named = false;
                for (const auto& l : labels)
                    named = named || l.index == o.index;
                if (!named) labels.push_back(label{label_name(f, o.index), o.index});
            }
        std::stable_sort(labels.begin(), labels.end(),
                         [](const label& a, const label& b) { return a.index < b.index; });
    }
    void labels_upto(std::uint32_t i) {
        while (label_cursor < labels.size() && labels[label_cursor].index <= i) {
            out += labels[label_cursor].name;
            out += ":\n";
            ++label_cursor;
        }
    }
    void print(std::uint32_t b, int depth) {
        const std::string indent(static_cast<std::size_t>(depth) + 1, '\t');
        const block& blk = f.blocks[b];
        if (b != 0) {
            out.append(indent.begin(), indent.end() - 1);
            out += "{\n";
        }
        print_registers(out, f, b, indent);
        for (const auto& v : f.variables) {
            if (v.block != b) continue;
            out += indent;
            print_variable(out, v);
            out += '\n';
        }
        std::uint32_t i = blk.begin;
        auto upto = [&](std::uint32_t end) {
            for (; i < end && i < f.code.size(); ++i) {
                labels_upto(i);
                out += indent;
                print_instruction(out, m, f, f.code[i]);
                out += '\n';
            }
        };
        for (std::uint32_t c : children[b]) {
            upto(f.blocks[c].begin);
            labels_upto(f.blocks[c].begin);
            print(c, depth + 1);
            i = f.blocks[c].end;
        }
        upto(blk.end);
        if (b == 0) {
            labels_upto(static_cast<std::uint32_t>(f.code.size()));
            out += "}\n";
        } else {
            out.append(indent.begin(), indent.end() - 1);
            out += "}\n";
        }
    }
};

inline void print_header(std::string& out, const function& f) {
    out += f.entry ? ".entry " : ".func ";
    if (!f.entry && !f.results.empty()) {
        print_params(out, f.results);
        out += ' ';
    }
    out += f.name;
    print_params(out, f.params);
    out += '\n';
    auto dims = [&](const char* d, const std::array<std::uint32_t, 3>& v) {
        if (v[0] == 0) return;
        out += d;
        out += ' ' + std::to_string(v[0]);
        if (v[1] != 0 || v[2] != 0) out += ", " + std::to_string(v[1]);
        if (v[2] != 0) out += ", " + std::to_string(v[2]);
        out += '\n';
    };
    dims(".maxntid", f.maxntid);
    dims(".reqntid", f.reqntid);
    if (f.minnctapersm != 0) out += ".minnctapersm " + std::to_string(f.minnctapersm) + "\n";
    if (f.maxnreg != 0) out += ".maxnreg " + std::to_string(f.maxnreg) + "\n";
    if (f.noreturn) out += ".noreturn\n";
}

} // namespace detail

/// Prints a whole module as PTX.
[[nodiscard]] inline std::string print_ptx(const module& m) {
    std::string out;
    out.reserve(4096);
    out += ".version " + std::to_string(m.version_major) + "." + std::to_string(m.version_minor);
    out += "\n.target " + m.target;
    out += "\n.address_size " + std::to_string(m.address_size) + "\n\n";
    for (const auto& v : m.variables) {
        detail::print_variable(out, v);
        out += '\n';
    }
    // A body calling a function that comes later needs that function declared first. Then
    // every .func is declared in index order (so indices stay as they are) and defined after
    // the kernels; a kernel can only call functions with lower indices (it is its own first
    // appearance), so it is printed at its place.
    bool forward = false;
    for (std::size_t fi = 0; fi < m.functions.size(); ++fi)
        for (const auto& in : m.functions[fi].code)
            if (in.opcode == op::call && in.num_operands > 0 && in.operands[0].index > fi)
                forward = true;
    auto define = [&](const function& f) {
        out += '\n';
        if (f.entry) out += ".visible ";
        detail::print_header(out, f);
        if (f.blocks.empty()) {
            out += ";\n";
            return;
        }
        out += "{\n";
        detail::body_printer p{m, f, out, 0, {}, {}};
        p.collect_labels();
        p.children.resize(f.blocks.size());
        for (std::uint32_t b = 1; b < f.blocks.size(); ++b)
            if (f.blocks[b].parent < f.blocks.size()) p.children[f.blocks[b].parent].push_back(b);
        p.print(0, 0);
    };
    for (const auto& f : m.functions) {
        if (forward && !f.entry) {
            out += '\n';
            detail::print_header(out, f);
            out += ";\n";
        } else {
            define(f);
        }
    }
    if (forward)
        for (const auto& f : m.functions)
            if (!f.entry && !f.blocks.empty()) define(f);
    return out;
}

} // namespace warpkit::ptx
