#pragma once
/// \file
/// Preparation pass 1, call inlining: the code of a `.entry` with every call of a device
/// function replaced by the callee's body (recursively), so the later passes see one flat
/// function.
///
/// Reads: the module (its functions, for the callees) and the entry.
/// Produces: `flat_code`, the flat instructions, registers and variables (see its fields).
/// Guarantees: no `call` is left; every label operand is a pc of the flat code (at most its
/// size: a branch past the last instruction); every register operand indexes the flat
/// registers; a callee's parameters and results are function variables (`.param` slots).
/// Throws parse_error (file, line) for what cannot be inlined: an indirect, external,
/// recursive or kernel call, a call whose argument or result count does not match.

#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/passes/prepared.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace warpkit::ptx::passes {

/// The flat code of an entry with its calls inlined.
struct flat_code {
    /// The entry's instructions with each call replaced by: a branch around the body when the
    /// call is guarded, a `st.param` per register or immediate argument, the callee's body
    /// (its `ret` a branch to the instruction after the body), a `ld.param` per result
    /// register. The entry's own `ret` is an `exit`.
    std::vector<instruction> code;
    /// The entry's registers, then each inlined body's in the order the bodies are emitted.
    std::vector<register_decl> registers;
    /// Like registers: the entry's variables, each inlined body's, and between them the
    /// `.param` slots `%argN` created for register or immediate arguments and results.
    std::vector<variable> variables;
};

namespace detail {

// Emits a function's code into a flat_code, inlining its calls.
class inliner {
public:
    inliner(const module& m, flat_code& out) : m_(m), out_(out) {}

    void entry(const function& f) {
        std::vector<const function*> stack{&f};
        emit_(f, nullptr, stack);
    }

private:
    struct context {
        std::vector<operand> params;  // callee param i -> a flat function_var symbol
        std::vector<operand> results; // callee result i -> a flat function_var symbol
        std::vector<std::size_t>* returns = nullptr; // flat indices of `ret` branches
    };

    // A fresh `.param` slot for a register or immediate argument.
    std::uint32_t slot_(const param& p, const source_pos& pos) {
        variable v;
        v.name = "%arg" + std::to_string(out_.variables.size());
        v.sp = space::param;
        v.t = p.t;
        v.align = p.align == 0 ? 1 : p.align;
        v.bytes = p.bytes;
        v.pos = pos;
        out_.variables.push_back(v);
        return static_cast<std::uint32_t>(out_.variables.size() - 1);
    }
    static operand symbol_of_(std::uint32_t var) {
        operand o;
        o.k = operand::kind::symbol;
        o.symbol_of = symbol_kind::function_var;
        o.index = var;
        return o;
    }
    static instruction move_(bool store, type t, std::uint32_t var, const operand& value,
                             const source_pos& pos) {
        instruction x;
        x.opcode = store ? op::st : op::ld;
        x.sp = space::param;
        x.t = t;
        x.pos = pos;
        operand mem;
        mem.k = operand::kind::memory;
        mem.symbol_of = symbol_kind::function_var;
        mem.index = var;
        x.num_operands = 2;
        x.operands[store ? 0 : 1] = mem;
        x.operands[store ? 1 : 0] = value;
        return x;
    }

    void remap_(operand& o, std::uint32_t reg_base, std::uint32_t var_base, const context* ctx,
                const source_pos& pos) const {
        const auto reg = [&](std::uint32_t& r) {
            if (r != no_index) r += reg_base;
        };
        switch (o.k) {
        case operand::kind::reg:
            reg(o.reg);
            break;
        case operand::kind::vector:
            for (auto& e : o.elements)
                reg(e);
            break;
        case operand::kind::memory:
        case operand::kind::symbol:
            reg(o.reg);
            if (o.index == no_index) break;
            if (o.symbol_of == symbol_kind::function_var) {
                o.index += var_base;
            } else if (ctx != nullptr &&
                       (o.symbol_of == symbol_kind::param || o.symbol_of == symbol_kind::result)) {
                const auto& table = o.symbol_of == symbol_kind::param ? ctx->params : ctx->results;
                if (o.index >= table.size())
                    reject(m_, pos,
                           "parameter index " + std::to_string(o.index) +
                               " is not passed by the call");
                o.symbol_of = symbol_kind::function_var;
                o.index = table[o.index].index;
            } else if (o.symbol_of == symbol_kind::result) {
                reject(m_, pos, "a kernel has no return parameters");
            }
            break;
        default:
            break;
        }
    }

    void emit_(const function& f, const context* ctx, std::vector<const function*>& stack) {
        const auto reg_base = static_cast<std::uint32_t>(out_.registers.size());
        const auto var_base = static_cast<std::uint32_t>(out_.variables.size());
        out_.registers.insert(out_.registers.end(), f.registers.begin(), f.registers.end());
        out_.variables.insert(out_.variables.end(), f.variables.begin(), f.variables.end());
        std::vector<std::size_t> start(f.code.size() + 1, 0);
        struct fixup {
            std::size_t at;
            std::size_t operand;
            std::uint32_t target;
        };
        std::vector<fixup> labels;
        for (std::size_t i = 0; i < f.code.size(); ++i) {
            start[i] = out_.code.size();
            const instruction& in = f.code[i];
            if (in.opcode == op::call) {
                call_(in, reg_base, var_base, ctx, stack);
                continue;
            }
            instruction x = in;
            if (x.guard != no_index) x.guard += reg_base;
            for (std::size_t k = 0; k < x.num_operands; ++k) {
                remap_(x.operands[k], reg_base, var_base, ctx, x.pos);
                if (x.operands[k].k == operand::kind::label) {
                    if (x.operands[k].index > f.code.size())
                        reject(m_, x.pos, "branch target outside the function");
                    labels.push_back({out_.code.size(), k, x.operands[k].index});
                }
            }
            if (x.opcode == op::ret) {
                if (ctx == nullptr) {
                    x.opcode = op::exit; // ret in a kernel ends the thread
                } else {
                    x.opcode = op::bra;
                    x.num_operands = 1;
                    x.operands[0] = operand{};
                    x.operands[0].k = operand::kind::label;
                    ctx->returns->push_back(out_.code.size());
                }
            }
            out_.code.push_back(std::move(x));
        }
        start[f.code.size()] = out_.code.size();
        for (const auto& l : labels)
            out_.code[l.at].operands[l.operand].index = static_cast<std::uint32_t>(start[l.target]);
    }

    // The callee of a call, refused unless it is a body of the module the stack is not in.
    const function& callee_(const instruction& in, const std::vector<const function*>& stack) {
        const operand& callee_op = in.operands[0];
        if (in.num_operands == 0 || callee_op.k != operand::kind::symbol ||
            callee_op.symbol_of != symbol_kind::function || callee_op.index >= m_.functions.size())
            reject(m_, in.pos, "indirect calls are not supported (call through a register)");
        const function& callee = m_.functions[callee_op.index];
        if (callee.is_extern || callee.code.empty())
            reject(m_, in.pos,
                   "call of external function `" + callee.name +
                       "`: only functions defined in the module can be called");
        if (callee.entry) reject(m_, in.pos, "call of kernel `" + callee.name + "`");
        for (const function* f : stack)
            if (f == &callee)
                reject(m_, in.pos,
                       "recursive call of `" + callee.name +
                           "`: recursion is not supported (calls are inlined)");
        if (in.call_args.size() != callee.params.size())
            reject(m_, in.pos,
                   "call of `" + callee.name + "` passes " + std::to_string(in.call_args.size()) +
                       " arguments, it takes " + std::to_string(callee.params.size()));
        if (in.call_results.size() > callee.results.size())
            reject(m_, in.pos,
                   "call of `" + callee.name + "` expects " +
                       std::to_string(in.call_results.size()) + " results, it returns " +
                       std::to_string(callee.results.size()));
        return callee;
    }

    void call_(const instruction& in, std::uint32_t reg_base, std::uint32_t var_base,
               const context* ctx, std::vector<const function*>& stack) {
        const function& callee = callee_(in, stack);
        // A guarded call skips the inlined body in lanes whose guard is false.
        std::size_t skip = no_index;
        if (in.guard != no_index) {
            instruction b;
            b.opcode = op::bra;
            b.guard = in.guard + reg_base;
            b.guard_negated = !in.guard_negated;
            b.num_operands = 1;
            b.operands[0].k = operand::kind::label;
            b.pos = in.pos;
            skip = out_.code.size();
            out_.code.push_back(b);
        }
        context inner;
        std::vector<std::size_t> returns;
        inner.returns = &returns;
        for (std::size_t j = 0; j < in.call_args.size(); ++j) {
            operand a = in.call_args[j];
            remap_(a, reg_base, var_base, ctx, in.pos);
            if (a.k == operand::kind::symbol && a.symbol_of == symbol_kind::function_var) {
                inner.params.push_back(a);
            } else if (a.k == operand::kind::reg || a.k == operand::kind::imm) {
                const std::uint32_t v = slot_(callee.params[j], in.pos);
                out_.code.push_back(move_(true, callee.params[j].t, v, a, in.pos));
                inner.params.push_back(symbol_of_(v));
            } else {
                reject(m_, in.pos, "unsupported argument " + std::to_string(j) + " of a call");
            }
        }
        std::vector<std::pair<std::uint32_t, operand>> loads; // result slot -> register
        for (std::size_t j = 0; j < callee.results.size(); ++j) {
            if (j < in.call_results.size()) {
                operand r = in.call_results[j];
                remap_(r, reg_base, var_base, ctx, in.pos);
                if (r.k == operand::kind::symbol && r.symbol_of == symbol_kind::function_var) {
                    inner.results.push_back(r);
                    continue;
                }
                if (r.k != operand::kind::reg)
                    reject(m_, in.pos, "unsupported result " + std::to_string(j) + " of a call");
                const std::uint32_t v = slot_(callee.results[j], in.pos);
                loads.emplace_back(v, r);
                inner.results.push_back(symbol_of_(v));
            } else {
                inner.results.push_back(symbol_of_(slot_(callee.results[j], in.pos)));
            }
        }
        stack.push_back(&callee);
        emit_(callee, &inner, stack);
        stack.pop_back();
        const auto end = static_cast<std::uint32_t>(out_.code.size());
        for (const std::size_t r : returns)
            out_.code[r].operands[0].index = end;
        for (const auto& [v, r] : loads)
            out_.code.push_back(move_(false, out_.variables[v].t, v, r, in.pos));
        if (skip != no_index)
            out_.code[skip].operands[0].index = static_cast<std::uint32_t>(out_.code.size());
    }

    const module& m_;
    flat_code& out_;
};

} // namespace detail

/// The code of `entry` (a function of `m`) with its calls inlined (see the file comment).
[[nodiscard]] inline flat_code inline_calls(const module& m, const function& entry) {
    flat_code out;
    detail::inliner(m, out).entry(entry);
    return out;
}

} // namespace warpkit::ptx::passes
