#pragma once
/// \file
/// `ptx::kernel`: one `.entry` of a parsed module prepared for execution. Device-function
/// calls are inlined; every operand is resolved (registers to one flat register file,
/// variables to addresses in their state space, labels to pcs, immediates to the bits of
/// the type that reads them); each branch gets its reconvergence pc from the immediate
/// post-dominators of the kernel's control-flow graph; each instruction gets the
/// `isa::static_inst` a timing model sees, with register ids < 64 allocated by liveness.
///
/// State spaces after preparation (addresses documented here are what the executor uses):
/// - `.param` of the kernel: byte offsets in the launch's parameter buffer (function::params
///   offsets). Loads of kernel parameters are timed as constant-cache loads (kernel
///   parameters live in a constant bank on NVIDIA GPUs).
/// - `.shared`: byte offsets in the block's shared memory: the module's `.shared` variables
///   the kernel uses and the kernel's own (inlined functions' included) in declaration order,
///   each at its alignment; `.extern .shared` (dynamic shared memory) starts after them,
///   aligned to 16 bytes (or more if declared).
/// - `.local`: byte offsets in each thread's local memory (kernel and inlined-function
///   `.local` variables, then the `.param` slots of call sequences, which carry arguments
///   into inlined functions; their loads and stores are timed as register moves).
/// - `.const`: byte offsets in the constant bank holding the module's `.const` variables
///   (with their initialisers).
/// - `.global` variables: device addresses from `kernel_options::global_base` (default
///   `global_variable_base`) on (load_globals writes their initialisers).
///
/// Timing register ids: the kernel's virtual registers (predicates and the carry flag
/// included) get ids in [0, timing_registers) by greedy colouring of their interference
/// graph (liveness over the CFG), so the scoreboard sees true dependencies; registers the
/// colouring cannot fit fold modulo timing_registers (false dependencies only, counted in
/// folded_registers()).
///
/// Register footprint for occupancy: the most 32-bit registers live at once (a 64-bit
/// register counts 2, a predicate 0) plus `register_reserve`, capped at `max_registers`
/// (Fermi: 63) and at `.maxnreg`; `kernel_options::regs_per_thread` overrides it.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/semantics.hpp>
#include <warpkit/simt/fwd.hpp>
#include <warpkit/simt/ipdom.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::ptx {

/// Number of PTX opcodes (arrays indexed by op).
inline constexpr std::size_t op_count = static_cast<std::size_t>(op::tex) + 1;

/// Local memory a thread may have (CUDA: 512 KiB per thread since compute capability 2.0).
inline constexpr std::uint64_t max_local_bytes = 512 * 1024;

/// Device address of the first module `.global` variable.
inline constexpr std::uint64_t global_variable_base = 0x0000'6000'0000'0000ULL;
/// Highest `kernel_options::global_base` (module globals stay below the generic windows).
inline constexpr std::uint64_t max_global_base = 0x0000'6f00'0000'0000ULL;

/// The row of a warp's register storage that holds a virtual register: rows of 32-bit
/// values (registers of up to 32 bits, predicates included) and rows of 64-bit values are
/// numbered apart. Registers never live at once (by the liveness the timing ids use) share
/// a row, so a warp's storage is sized by what the kernel really keeps, not by how many
/// virtual registers nvcc declared.
struct register_storage {
    std::uint32_t row = 0;
    bool wide = false; ///< a 64-bit row
};

/// How a kernel is prepared.
struct kernel_options {
    /// Registers per thread for occupancy; 0: derived from liveness (see the file comment).
    std::uint32_t regs_per_thread = 0;
    /// Registers added to the most live at once (addresses, temporaries of the real code).
    std::uint32_t register_reserve = 2;
    /// Largest register footprint (Fermi: 63 per thread).
    std::uint32_t max_registers = 63;
    /// Register ids the timing model's scoreboard tracks (ids are < this).
    std::uint32_t timing_registers = 63;
    /// Device address of the module's first `.global` variable (a host loading several
    /// modules gives each its own range).
    std::uint64_t global_base = global_variable_base;
    void validate() const {
        check_range("regs_per_thread", regs_per_thread, 0U, 255U);
        check_range("register_reserve", register_reserve, 0U, 255U);
        check_range("max_registers", max_registers, 1U, 255U);
        check_range("timing_registers", timing_registers, 1U, 64U);
        check_range("global_base", global_base, std::uint64_t{1} << 32, max_global_base);
    }
    WARPKIT_FIELDS(kernel_options, regs_per_thread, register_reserve, max_registers,
                   timing_registers, global_base)
};

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

/// A value an instruction reads, resolved: a register, an immediate (already the bits of the
/// type reading it; a variable's address in its state space) or a special register.
struct value_ref {
    enum class kind : std::uint8_t { none, reg, imm, sreg };
    kind k = kind::none;
    bool negate = false; ///< `!p`: the predicate's complement
    std::uint32_t reg = no_index;
    std::uint64_t bits = 0;
    sreg special = sreg::tid;
    std::uint8_t dim = 0;
};

/// A memory operand, resolved: the state space accessed and `[reg + offset]` (reg may be
/// absent; a variable's address is folded into offset).
struct address_ref {
    space sp = space::none;
    std::uint32_t reg = no_index;
    std::uint64_t offset = 0;
};

/// One instruction of a prepared kernel.
struct prepared_inst {
    instruction in;           ///< as parsed, registers and labels renumbered
    std::uint8_t num_dst = 0; ///< destination registers (vector elements included)
    std::array<std::uint32_t, 4> dst{no_index, no_index, no_index, no_index}; ///< no_index: `_`
    std::uint8_t num_src = 0;       ///< values read (memory operand excluded)
    std::array<value_ref, 6> src{}; ///< in the order written
    bool has_addr = false;
    address_ref addr;                ///< the memory operand of ld / st / atom / red
    std::uint32_t target = no_index; ///< bra: the target pc
    bool call_param = false;         ///< a ld / st of a call sequence's `.param` slot
    bool reads_carry = false;        ///< addc / subc / madc
    bool writes_carry = false;       ///< `.cc`
};

namespace detail::prep {

[[noreturn]] inline void reject(const module& m, const source_pos& pos, const std::string& what) {
    throw parse_error(m.file, pos.line, pos.column, what);
}

// The flat code of an entry with its calls inlined.
struct flat_code {
    std::vector<instruction> code;
    std::vector<register_decl> registers;
    std::vector<variable> variables;
};

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

    void call_(const instruction& in, std::uint32_t reg_base, std::uint32_t var_base,
               const context* ctx, std::vector<const function*>& stack) {
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

[[nodiscard]] inline std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

// Immediate bits as read by an operand of type t.
[[nodiscard]] inline std::uint64_t immediate_as(const operand& o, type t) {
    if (o.immediate == imm_kind::integer) return o.bits;
    if (o.immediate == imm_kind::f32) {
        if (t == type::f64) return bits_of(static_cast<double>(to_f32(o.bits)));
        if (t == type::f16) return double_to_half(static_cast<double>(to_f32(o.bits)));
        return o.bits & 0xffffffffU;
    }
    if (t == type::f32) return bits_of(static_cast<float>(to_f64(o.bits)));
    if (t == type::f16) return double_to_half(to_f64(o.bits));
    if (t == type::f64 || bits(t) == 64) return o.bits;
    return o.bits; // a double literal read as bits of a narrower non-float type: its low bits
}

} // namespace detail::prep

/// A `.entry` of a module prepared for execution and timing.
class kernel {
public:
    /// Prepares entry `entry_name` (exact or the base name of a mangled name) of `m`. Throws
    /// parse_error naming the file and line for anything the executor cannot run (a
    /// recursive or external call, an indirect call, an unresolvable operand), config_error
    /// for an unknown entry or bad options.
    kernel(const module& m, std::string_view entry_name, const kernel_options& opt = {})
        : opt_(checked(opt)), file_(m.file) {
        const function* f = m.find(entry_name);
        if (f == nullptr || !f->entry) {
            std::string names;
            for (const auto& g : m.functions)
                if (g.entry) names += (names.empty() ? "" : ", ") + g.name;
            throw config_error("entry", std::string(entry_name),
                               names.empty() ? "a .entry of the module (it has none)"
                                             : "one of: " + names);
        }
        name_ = f->name;
        params_ = f->params;
        param_bytes_ = f->param_bytes();
        maxnreg_ = f->maxnreg;
        reqntid_ = f->reqntid;
        maxntid_ = f->maxntid;
        detail::prep::flat_code flat;
        detail::prep::inliner(m, flat).entry(*f);
        registers_ = std::move(flat.registers);
        carry_reg_ = static_cast<std::uint32_t>(registers_.size());
        registers_.push_back(register_decl{"%cc", type::pred});
        place_variables_(m, flat);
        code_.reserve(flat.code.size());
        for (auto& in : flat.code)
            code_.push_back(prepare_(m, std::move(in)));
        if (code_.empty() || !ends_(code_.back().in)) {
            // Falling off the end of a kernel ends the thread.
            prepared_inst x;
            x.in.opcode = op::exit;
            x.in.pos = code_.empty() ? f->pos : code_.back().in.pos;
            code_.push_back(x);
        }
        reconvergence_();
        allocate_registers_();
        static_.reserve(code_.size());
        for (const auto& p : code_)
            static_.push_back(static_info_(p));
    }

    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    [[nodiscard]] std::size_t size() const noexcept { return code_.size(); }
    [[nodiscard]] const prepared_inst& at(std::size_t pc) const { return code_.at(pc); }
    [[nodiscard]] const isa::static_inst& static_at(std::size_t pc) const { return static_.at(pc); }
    /// Reconvergence pc of the branch at `pc` (simt::no_pc: the paths meet only at exit).
    [[nodiscard]] simt::pc_type reconvergence(std::size_t pc) const { return rpc_.at(pc); }
    /// Source line of the instruction at `pc` (0 when unknown).
    [[nodiscard]] std::uint32_t line(std::size_t pc) const { return code_.at(pc).in.pos.line; }
    /// "file:line" of the instruction at `pc`, for messages.
    [[nodiscard]] std::string where(std::size_t pc) const {
        return file_ + ":" + std::to_string(line(pc));
    }

    /// The flat register file: the entry's registers, inlined functions' registers, %cc.
    [[nodiscard]] const std::vector<register_decl>& registers() const noexcept {
        return registers_;
    }
    /// Index of the carry flag register (CC.CF of `.cc` / addc / subc / madc).
    [[nodiscard]] std::uint32_t carry_register() const noexcept { return carry_reg_; }
    /// Timing register id of virtual register r (< timing_registers).
    [[nodiscard]] isa::reg_id timing_id(std::uint32_t r) const { return timing_id_.at(r); }
    /// Virtual registers whose timing id was folded (false dependencies possible).
    [[nodiscard]] std::uint32_t folded_registers() const noexcept { return folded_; }
    /// Colours the register allocation needed (before folding).
    [[nodiscard]] std::uint32_t timing_ids_needed() const noexcept { return colours_; }
    /// The most 32-bit registers live at once.
    [[nodiscard]] std::uint32_t max_live_registers() const noexcept { return max_live_; }
    /// Where virtual register r lives in a warp's register storage (see register_storage).
    [[nodiscard]] register_storage storage(std::uint32_t r) const { return storage_.at(r); }
    /// Rows of 32-bit (`wide` false) or 64-bit (`wide` true) storage a warp needs: at least
    /// one each; registers that are never live at once share a row.
    [[nodiscard]] std::uint32_t storage_rows(bool wide) const noexcept {
        return storage_rows_[wide ? 1 : 0];
    }
    /// Registers per thread for occupancy (see the file comment).
    [[nodiscard]] std::uint32_t regs_per_thread() const noexcept {
        if (opt_.regs_per_thread != 0) return opt_.regs_per_thread;
        std::uint32_t r = max_live_ + opt_.register_reserve;
        r = std::min(r, opt_.max_registers);
        if (maxnreg_ != 0) r = std::min(r, maxnreg_);
        return std::max<std::uint32_t>(r, 1);
    }

    /// Kernel parameters (offsets in the parameter buffer) and the buffer's size.
    [[nodiscard]] const std::vector<param>& params() const noexcept { return params_; }
    [[nodiscard]] std::uint32_t param_bytes() const noexcept { return param_bytes_; }
    /// Static shared memory per block (bytes) and where dynamic shared memory starts.
    [[nodiscard]] std::uint32_t static_shared_bytes() const noexcept { return shared_static_; }
    [[nodiscard]] std::uint32_t dynamic_shared_offset() const noexcept { return shared_dynamic_; }
    /// True when the kernel declares `.extern .shared` (dynamic shared memory).
    [[nodiscard]] bool uses_dynamic_shared() const noexcept { return dynamic_used_; }
    /// Local memory per thread (bytes).
    [[nodiscard]] std::uint32_t local_bytes() const noexcept { return local_bytes_; }
    /// The constant bank: the module's `.const` variables with their initialisers.
    [[nodiscard]] const std::vector<std::uint8_t>& constant_bank() const noexcept {
        return const_bank_;
    }
    /// Replaces the constant bank's contents (a host writing `__constant__` data); throws
    /// config_error unless `bank` has the bank's size.
    void set_constant_bank(std::span<const std::uint8_t> bank) {
        if (bank.size() != const_bank_.size())
            throw config_error("constant_bank", std::to_string(bank.size()) + " bytes",
                               std::to_string(const_bank_.size()) +
                                   " bytes (the `.const` "
                                   "variables of `" +
                                   name_ + "`)");
        std::copy(bank.begin(), bank.end(), const_bank_.begin());
    }
    /// A module `.global` variable: its name, device address, size and initialiser.
    struct global_variable {
        std::string name;
        std::uint64_t address = 0;
        std::uint64_t bytes = 0;
        std::vector<std::uint8_t> init;
    };
    [[nodiscard]] const std::vector<global_variable>& globals() const noexcept { return globals_; }
    /// `.reqntid` / `.maxntid` of the entry (0: not given).
    [[nodiscard]] const std::array<std::uint32_t, 3>& reqntid() const noexcept { return reqntid_; }
    [[nodiscard]] const std::array<std::uint32_t, 3>& maxntid() const noexcept { return maxntid_; }
    [[nodiscard]] const kernel_options& options() const noexcept { return opt_; }

private:
    static const kernel_options& checked(const kernel_options& o) {
        validate(o);
        return o;
    }
    // No lane continues at the next pc.
    [[nodiscard]] static bool ends_(const instruction& in) noexcept {
        return in.guard == no_index &&
               (in.opcode == op::exit || in.opcode == op::trap || in.opcode == op::bra);
    }

    // Addresses of the module's and the flat code's variables.
    void place_variables_(const module& m, const detail::prep::flat_code& flat) {
        std::vector<char> used(m.variables.size(), 0);
        for (const auto& in : flat.code)
            for (std::size_t k = 0; k < in.num_operands; ++k) {
                const auto& o = in.operands[k];
                if ((o.k == operand::kind::symbol || o.k == operand::kind::memory) &&
                    o.symbol_of == symbol_kind::module_var && o.index < m.variables.size())
                    used[o.index] = 1;
            }
        std::uint64_t shared = 0, local = 0;
        std::uint64_t dyn_align = 16;
        module_place_.assign(m.variables.size(), address_ref{});
        const auto placed = place_module_variables(m, opt_.global_base);
        const_bank_ = constant_bank_of(placed);
        for (std::size_t i = 0; i < m.variables.size(); ++i) {
            const auto& v = m.variables[i];
            auto& p = module_place_[i];
            p.sp = v.sp;
            const std::uint64_t a = v.align == 0 ? 1 : v.align;
            switch (v.sp) {
            case space::constant:
                p.offset = placed[i].address;
                break;
            case space::global:
                p.offset = placed[i].address;
                globals_.push_back({v.name, p.offset, v.bytes, v.init});
                break;
            case space::shared:
                if (v.is_extern) {
                    dynamic_used_ = dynamic_used_ || used[i] != 0;
                    dyn_align = std::max(dyn_align, a);
                } else if (used[i] != 0) {
                    shared = detail::prep::align_up(shared, a);
                    p.offset = shared;
                    shared += v.bytes;
                }
                break;
            default:
                break; // .local at module scope: placed per thread below
            }
        }
        for (std::size_t i = 0; i < m.variables.size(); ++i) {
            const auto& v = m.variables[i];
            if (v.sp == space::local) {
                local = detail::prep::align_up(local, v.align == 0 ? 1 : v.align);
                module_place_[i].offset = local;
                local += v.bytes;
            }
        }
        flat_place_.assign(flat.variables.size(), address_ref{});
        std::vector<std::size_t> slots;
        for (std::size_t i = 0; i < flat.variables.size(); ++i) {
            const auto& v = flat.variables[i];
            auto& p = flat_place_[i];
            const std::uint64_t a = v.align == 0 ? 1 : v.align;
            p.sp = v.sp;
            switch (v.sp) {
            case space::shared:
                if (v.is_extern) {
                    dynamic_used_ = true;
                    dyn_align = std::max(dyn_align, a);
                } else {
                    shared = detail::prep::align_up(shared, a);
                    p.offset = shared;
                    shared += v.bytes;
                }
                break;
            case space::local:
                local = detail::prep::align_up(local, a);
                p.offset = local;
                local += v.bytes;
                break;
            case space::param:
                slots.push_back(i);
                break;
            default:
                break; // .global / .const inside a function body: rejected when used
            }
        }
        for (const std::size_t i : slots) {
            const auto& v = flat.variables[i];
            local = detail::prep::align_up(local, std::max<std::uint64_t>(v.align, 1));
            flat_place_[i].sp = space::local;
            flat_place_[i].offset = local;
            local += std::max<std::uint64_t>(v.bytes, 1);
        }
        shared_dynamic_ = static_cast<std::uint32_t>(detail::prep::align_up(shared, dyn_align));
        for (std::size_t i = 0; i < m.variables.size(); ++i)
            if (m.variables[i].sp == space::shared && m.variables[i].is_extern)
                module_place_[i].offset = shared_dynamic_;
        for (std::size_t i = 0; i < flat.variables.size(); ++i)
            if (flat.variables[i].sp == space::shared && flat.variables[i].is_extern)
                flat_place_[i].offset = shared_dynamic_;
        // CUDA's limits: 512 KiB of local memory per thread; shared memory addresses are
        // 32-bit offsets (an SM's capacity is checked at launch).
        if (local > max_local_bytes)
            throw config_error("kernel.local_bytes", std::to_string(local),
                               "<= " + std::to_string(max_local_bytes) +
                                   " (local memory per thread)");
        if (shared > 0xffffffffULL)
            throw config_error("kernel.shared_bytes", std::to_string(shared),
                               "< 4 GiB (32-bit shared addresses)");
        shared_static_ = static_cast<std::uint32_t>(shared);
        local_bytes_ = static_cast<std::uint32_t>(local);
        slot_vars_.assign(flat.variables.size(), 0);
        for (const std::size_t i : slots)
            slot_vars_[i] = 1;
    }

    // Where a symbol lives: its space and address in it; `slot`: a call `.param` slot.
    [[nodiscard]] address_ref symbol_(const module& m, const instruction& in, const operand& o,
                                      bool& slot) const {
        slot = false;
        switch (o.symbol_of) {
        case symbol_kind::module_var:
            if (o.index >= module_place_.size())
                detail::prep::reject(m, in.pos, "unresolved module variable");
            if (module_place_[o.index].sp == space::constant ||
                module_place_[o.index].sp == space::global ||
                module_place_[o.index].sp == space::shared ||
                module_place_[o.index].sp == space::local)
                return module_place_[o.index];
            detail::prep::reject(m, in.pos,
                                 "variable `" + m.variables[o.index].name +
                                     "` is in an unsupported state space");
        case symbol_kind::function_var:
            if (o.index >= flat_place_.size())
                detail::prep::reject(m, in.pos, "unresolved variable");
            if (flat_place_[o.index].sp != space::shared &&
                flat_place_[o.index].sp != space::local && flat_place_[o.index].sp != space::param)
                detail::prep::reject(
                    m, in.pos, "variables of this state space cannot be declared in a function");
            slot = slot_vars_[o.index] != 0;
            return flat_place_[o.index];
        case symbol_kind::param:
            if (o.index >= params_.size()) detail::prep::reject(m, in.pos, "unresolved parameter");
            return address_ref{space::param, no_index, params_[o.index].offset};
        default:
            detail::prep::reject(m, in.pos, "a function name is not a value");
        }
    }

    [[nodiscard]] static unsigned destinations_(const instruction& in) noexcept {
        switch (in.opcode) {
        case op::st:
        case op::red:
        case op::bra:
        case op::bar:
        case op::membar:
        case op::fence:
        case op::exit:
        case op::ret:
        case op::trap:
        case op::prefetch:
        case op::call:
            return 0;
        case op::setp:
            return in.num_operands >= (in.combine != bool_op::none ? 5 : 4) ? 2 : 1;
        case op::shfl:
            return in.num_operands >= 6 ? 2 : 1;
        default:
            return in.num_operands == 0 ? 0 : 1;
        }
    }

    // The type an operand at position k (after the destinations) is read as.
    [[nodiscard]] static type source_type_(const instruction& in, std::size_t k) noexcept {
        switch (in.opcode) {
        case op::cvt:
        case op::set:
            return in.t2 == type::none ? in.t : in.t2;
        case op::slct:
            return k == 2 ? (in.t2 == type::none ? type::s32 : in.t2) : in.t;
        case op::selp:
        case op::setp:
            return k == 2 ? type::pred : in.t;
        case op::shl:
        case op::shr:
            return k == 1 ? type::u32 : in.t;
        case op::shfl:
        case op::vote:
        case op::bar:
            return k == 0 && in.opcode == op::vote ? type::pred : type::b32;
        case op::mad:
            return k == 2 && in.mode == mul_mode::wide ? type::b64 : in.t;
        default:
            return in.t;
        }
    }

    [[nodiscard]] prepared_inst prepare_(const module& m, instruction in) {
        prepared_inst p;
        if (in.opcode == op::call)
            detail::prep::reject(m, in.pos, "internal: call left after inlining");
        const unsigned ndst = destinations_(in);
        std::size_t k = 0;
        for (; k < ndst && k < in.num_operands; ++k) {
            const operand& o = in.operands[k];
            if (o.k == operand::kind::reg) {
                p.dst[p.num_dst++] = o.reg;
            } else if (o.k == operand::kind::vector) {
                for (std::size_t e = 0; e < o.count && e < 4; ++e)
                    p.dst[p.num_dst++] = o.elements[e];
            } else if (o.k == operand::kind::sink) {
                p.dst[p.num_dst++] = no_index;
            } else {
                detail::prep::reject(m, in.pos, "the destination operand is not a register");
            }
        }
        for (std::size_t s = 0; k < in.num_operands; ++k, ++s) {
            const operand& o = in.operands[k];
            switch (o.k) {
            case operand::kind::memory: {
                bool slot = false;
                address_ref a;
                if (o.index != no_index) {
                    a = symbol_(m, in, o, slot);
                    if (slot && in.sp != space::param && in.sp != space::local)
                        detail::prep::reject(m, in.pos, "call parameter accessed outside .param");
                    if (!slot && in.sp != space::generic && in.sp != space::none && in.sp != a.sp)
                        detail::prep::reject(m, in.pos,
                                             "variable accessed in the wrong state space");
                    a.reg = o.reg;
                } else {
                    a.sp = in.sp;
                    a.reg = o.reg;
                }
                if (a.sp == space::none) a.sp = space::generic;
                a.offset += static_cast<std::uint64_t>(o.offset);
                p.addr = a;
                p.has_addr = true;
                p.call_param = slot;
                break;
            }
            case operand::kind::label:
                p.target = o.index;
                break;
            case operand::kind::vector:
                for (std::size_t e = 0; e < o.count && e < 4; ++e) {
                    if (p.num_src >= p.src.size())
                        detail::prep::reject(m, in.pos, "too many source operands");
                    value_ref v;
                    if (o.elements[e] == no_index) {
                        v.k = value_ref::kind::imm; // `_` in a source vector reads as 0
                    } else {
                        v.k = value_ref::kind::reg;
                        v.reg = o.elements[e];
                    }
                    p.src[p.num_src++] = v;
                }
                break;
            case operand::kind::reg:
            case operand::kind::imm:
            case operand::kind::sreg:
            case operand::kind::symbol: {
                if (p.num_src >= p.src.size())
                    detail::prep::reject(m, in.pos, "too many source operands");
                value_ref v;
                v.negate = o.negate;
                if (o.k == operand::kind::reg) {
                    v.k = value_ref::kind::reg;
                    v.reg = o.reg;
                } else if (o.k == operand::kind::imm) {
                    v.k = value_ref::kind::imm;
                    v.bits = detail::prep::immediate_as(o, source_type_(in, s));
                } else if (o.k == operand::kind::sreg) {
                    v.k = value_ref::kind::sreg;
                    v.special = o.special;
                    v.dim = o.dim;
                } else {
                    if (o.symbol_of == symbol_kind::function)
                        detail::prep::reject(m, in.pos, "a function name is not a value");
                    bool slot = false;
                    const address_ref a = symbol_(m, in, o, slot);
                    v.k = value_ref::kind::imm;
                    v.bits = a.offset + static_cast<std::uint64_t>(o.offset);
                }
                p.src[p.num_src++] = v;
                break;
            }
            case operand::kind::sink:
                break;
            default:
                detail::prep::reject(m, in.pos, "unsupported operand");
            }
        }
        p.reads_carry = in.opcode == op::addc || in.opcode == op::subc || in.opcode == op::madc;
        p.writes_carry = in.cc;
        if (in.opcode == op::bra && p.target == no_index)
            detail::prep::reject(m, in.pos,
                                 "bra needs a label (indirect branches are not supported)");
        if ((in.opcode == op::ld || in.opcode == op::st || in.opcode == op::atom ||
             in.opcode == op::red || in.opcode == op::ldu) &&
            !p.has_addr)
            detail::prep::reject(m, in.pos, "memory instruction without an address operand");
        if (p.has_addr && p.addr.sp == space::param && !p.call_param && in.opcode != op::ld &&
            in.opcode != op::ldu)
            detail::prep::reject(m, in.pos, "kernel parameters are read-only");
        p.in = std::move(in);
        return p;
    }

    // Basic blocks, their immediate post-dominators, the reconvergence pc of each branch.
    void reconvergence_() {
        const std::size_t n = code_.size();
        std::vector<char> leader(n + 1, 0);
        leader[0] = 1;
        for (std::size_t pc = 0; pc < n; ++pc) {
            const auto& p = code_[pc];
            if (p.in.opcode == op::bra) {
                if (p.target < n) leader[p.target] = 1;
                leader[pc + 1] = 1;
            } else if (ends_(p.in)) {
                leader[pc + 1] = 1;
            }
        }
        std::vector<std::size_t> block_of(n, 0);
        std::vector<simt::pc_type> block_pc;
        for (std::size_t pc = 0; pc < n; ++pc) {
            if (leader[pc]) block_pc.push_back(static_cast<simt::pc_type>(pc));
            block_of[pc] = block_pc.size() - 1;
        }
        std::vector<std::vector<std::size_t>> succ(block_pc.size());
        for (std::size_t b = 0; b < block_pc.size(); ++b) {
            const std::size_t last = (b + 1 < block_pc.size() ? block_pc[b + 1] : n) - 1;
            for (const std::size_t s : successors_(last))
                succ[b].push_back(block_of[s]);
        }
        const simt::post_dominator_tree tree(succ);
        const auto block_rpc = tree.reconvergence_pcs(block_pc);
        rpc_.assign(n, simt::no_pc);
        for (std::size_t pc = 0; pc < n; ++pc)
            if (code_[pc].in.opcode == op::bra) rpc_[pc] = block_rpc[block_of[pc]];
    }

    // Instruction-level successors (pcs < size()).
    [[nodiscard]] std::vector<std::size_t> successors_(std::size_t pc) const {
        std::vector<std::size_t> out;
        const auto& p = code_[pc];
        const bool guarded = p.in.guard != no_index;
        if (p.in.opcode == op::bra) {
            if (p.target < code_.size()) out.push_back(p.target);
            if (guarded && pc + 1 < code_.size() && pc + 1 != p.target) out.push_back(pc + 1);
            return out;
        }
        if ((p.in.opcode == op::exit || p.in.opcode == op::trap) && !guarded) return out;
        if (pc + 1 < code_.size()) out.push_back(pc + 1);
        return out;
    }

    // Registers an instruction reads (guard, carry, a guarded write's old value included)
    // and writes.
    void uses_defs_(const prepared_inst& p, std::vector<std::uint32_t>& uses,
                    std::vector<std::uint32_t>& defs) const {
        uses.clear();
        defs.clear();
        for (std::size_t i = 0; i < p.num_src; ++i)
            if (p.src[i].k == value_ref::kind::reg) uses.push_back(p.src[i].reg);
        if (p.has_addr && p.addr.reg != no_index) uses.push_back(p.addr.reg);
        if (p.in.guard != no_index) uses.push_back(p.in.guard);
        if (p.reads_carry) uses.push_back(carry_reg_);
        for (std::size_t i = 0; i < p.num_dst; ++i)
            if (p.dst[i] != no_index) defs.push_back(p.dst[i]);
        if (p.writes_carry) defs.push_back(carry_reg_);
    }

    void allocate_registers_() {
        const std::size_t n = code_.size();
        const std::size_t nregs = registers_.size();
        const std::size_t words = (nregs + 63) / 64;
        using bitset = std::vector<std::uint64_t>;
        std::vector<bitset> in(n, bitset(words, 0)), out(n, bitset(words, 0));
        std::vector<std::vector<std::uint32_t>> use(n), def(n);
        std::vector<std::vector<std::size_t>> succ(n);
        std::vector<char> guarded(n, 0);
        for (std::size_t pc = 0; pc < n; ++pc) {
            uses_defs_(code_[pc], use[pc], def[pc]);
            succ[pc] = successors_(pc);
            guarded[pc] = code_[pc].in.guard != no_index ? 1 : 0;
        }
        const auto set = [](bitset& b, std::uint32_t r) {
            b[r / 64] |= std::uint64_t{1} << (r % 64);
        };
        const auto reset = [](bitset& b, std::uint32_t r) {
            b[r / 64] &= ~(std::uint64_t{1} << (r % 64));
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t pc = n; pc-- > 0;) {
                bitset o(words, 0);
                for (const std::size_t s : succ[pc])
                    for (std::size_t w = 0; w < words; ++w)
                        o[w] |= in[s][w];
                bitset i = o;
                if (guarded[pc] == 0) // a guarded write leaves the old value in some lanes
                    for (const auto r : def[pc])
                        reset(i, r);
                for (const auto r : use[pc])
                    set(i, r);
                if (i != in[pc] || o != out[pc]) {
                    in[pc] = std::move(i);
                    out[pc] = std::move(o);
                    changed = true;
                }
            }
        }
        // Interference: a definition conflicts with everything live after it; registers
        // live on entry (read before any write) conflict with each other.
        std::vector<bitset> adj(nregs, bitset(words, 0));
        const auto edge = [&](std::uint32_t a, std::uint32_t b) {
            if (a == b) return;
            set(adj[a], b);
            set(adj[b], a);
        };
        const auto each = [](const bitset& b, auto&& f) {
            for (std::size_t w = 0; w < b.size(); ++w)
                for (std::uint64_t x = b[w]; x != 0; x &= x - 1)
                    f(static_cast<std::uint32_t>(w * 64 +
                                                 static_cast<std::size_t>(std::countr_zero(x))));
        };
        const auto weight = [&](const bitset& b) {
            std::uint32_t sum = 0;
            each(b, [&](std::uint32_t r) {
                const unsigned w = bits(registers_[r].t);
                sum += w <= 1 ? 0 : (w > 32 ? 2 : 1);
            });
            return sum;
        };
        std::vector<char> referenced(nregs, 0);
        for (std::size_t pc = 0; pc < n; ++pc) {
            for (const auto d : def[pc]) {
                referenced[d] = 1;
                each(out[pc], [&](std::uint32_t r) { edge(d, r); });
                for (const auto d2 : def[pc])
                    edge(d, d2);
            }
            for (const auto u : use[pc])
                referenced[u] = 1;
            bitset at = out[pc];
            for (const auto d : def[pc])
                set(at, d);
            max_live_ = std::max({max_live_, weight(in[pc]), weight(at)});
        }
        if (n > 0) {
            std::vector<std::uint32_t> entry_live;
            each(in[0], [&](std::uint32_t r) { entry_live.push_back(r); });
            for (const auto a : entry_live)
                for (const auto b : entry_live)
                    edge(a, b);
        }
        // Greedy colouring in order of first appearance.
        std::vector<std::uint32_t> order;
        std::vector<char> seen(nregs, 0);
        const auto visit = [&](std::uint32_t r) {
            if (seen[r] == 0 && referenced[r] != 0) {
                seen[r] = 1;
                order.push_back(r);
            }
        };
        for (std::size_t pc = 0; pc < n; ++pc) {
            for (const auto r : use[pc])
                visit(r);
            for (const auto r : def[pc])
                visit(r);
        }
        constexpr std::uint32_t uncoloured = 0xffffffffU;
        std::vector<std::uint32_t> colour(nregs, uncoloured);
        // Storage rows: the same colouring within each width class (registers of up to 32
        // bits in 32-bit rows, 64-bit ones in 64-bit rows). Two registers share a row only
        // when no thread needs both at once, so every lane's row holds its thread's value.
        std::vector<std::uint32_t> row(nregs, uncoloured);
        const auto wide = [&](std::uint32_t r) { return bits(registers_[r].t) > 32; };
        std::vector<char> taken, taken_row;
        colours_ = 0;
        std::array<std::uint32_t, 2> rows{1, 1};
        for (const auto r : order) {
            taken.assign(nregs + 1, 0);
            taken_row.assign(nregs + 1, 0);
            each(adj[r], [&](std::uint32_t q) {
                if (colour[q] != uncoloured) taken[colour[q]] = 1;
                if (row[q] != uncoloured && wide(q) == wide(r)) taken_row[row[q]] = 1;
            });
            std::uint32_t c = 0;
            while (taken[c] != 0)
                ++c;
            colour[r] = c;
            colours_ = std::max(colours_, c + 1);
            std::uint32_t w = 0;
            while (taken_row[w] != 0)
                ++w;
            row[r] = w;
            rows[wide(r) ? 1 : 0] = std::max(rows[wide(r) ? 1 : 0], w + 1);
        }
        storage_rows_ = rows;
        storage_.assign(nregs, register_storage{});
        for (std::uint32_t r = 0; r < nregs; ++r)
            storage_[r] = {row[r] == uncoloured ? 0 : row[r], wide(r)};
        timing_id_.assign(nregs, 0);
        folded_ = 0;
        for (std::size_t r = 0; r < nregs; ++r) {
            if (colour[r] == uncoloured) continue;
            if (colour[r] >= opt_.timing_registers) ++folded_;
            timing_id_[r] = static_cast<isa::reg_id>(colour[r] % opt_.timing_registers);
        }
    }

    // Unit and latency class of an instruction.
    [[nodiscard]] static std::pair<isa::unit_class, isa::latency_class>
    timing_class_(const prepared_inst& p) noexcept {
        using U = isa::unit_class;
        using L = isa::latency_class;
        const instruction& in = p.in;
        const type ct = in.opcode == op::set || in.opcode == op::cvt ? in.t2 : in.t;
        const bool dbl = in.t == type::f64 || ct == type::f64;
        const bool fl = is_float(in.t) || is_float(ct);
        switch (in.opcode) {
        case op::ld:
        case op::ldu:
        case op::st:
        case op::atom:
        case op::red:
            if (p.call_param) return {U::int_alu, L::int_alu};
            if (in.opcode == op::atom || in.opcode == op::red) return {U::ldst, L::atomic};
            if (p.addr.sp == space::shared) return {U::ldst, L::shared_mem};
            if (p.addr.sp == space::constant || p.addr.sp == space::param)
                return {U::ldst, L::const_mem};
            return {U::ldst, L::global_mem};
        case op::tex: // through the texture cache; the ideal memory gives it the global latency
            return {U::ldst, L::global_mem};
        case op::bra:
            return {U::branch, L::branch};
        case op::exit:
        case op::ret:
        case op::trap:
        case op::bar:
        case op::membar:
        case op::fence:
        case op::prefetch:
        case op::call:
            return {U::ctrl, L::none};
        case op::mov:
            for (std::size_t i = 0; i < p.num_src; ++i)
                if (p.src[i].k == value_ref::kind::sreg) return {U::int_alu, L::special_reg};
            return {U::int_alu, L::int_alu};
        case op::rcp:
        case op::sqrt:
            if (in.approx && !dbl) return {U::sfu, L::sfu};
            return dbl ? std::pair{U::fp, L::dp_div} : std::pair{U::fp, L::fp_div};
        case op::rsqrt:
        case op::sin:
        case op::cos:
        case op::lg2:
        case op::ex2:
        case op::tanh:
            return {U::sfu, L::sfu};
        case op::div:
            if (!fl) return {U::int_alu, L::int_div};
            if (in.approx && !dbl) return {U::sfu, L::sfu};
            return dbl ? std::pair{U::fp, L::dp_div} : std::pair{U::fp, L::fp_div};
        case op::rem:
            return {U::int_alu, L::int_div};
        case op::mul:
            if (fl) return dbl ? std::pair{U::fp, L::dp_mul} : std::pair{U::fp, L::fp_mul};
            return {U::int_alu, L::int_mul};
        case op::mul24:
            return {U::int_alu, L::int_mul};
        case op::mad:
        case op::fma:
            if (fl) return dbl ? std::pair{U::fp, L::dp_fma} : std::pair{U::fp, L::fp_mad};
            return {U::int_alu, L::int_mad};
        case op::madc:
        case op::mad24:
            return {U::int_alu, L::int_mad};
        case op::add:
        case op::sub:
        case op::min:
        case op::max:
        case op::abs:
        case op::neg:
        case op::setp:
        case op::set:
        case op::selp:
        case op::slct:
        case op::copysign:
        case op::testp:
        case op::cvt:
            if (fl) return dbl ? std::pair{U::fp, L::dp_add} : std::pair{U::fp, L::fp_add};
            return {U::int_alu, L::int_alu};
        default:
            return {U::int_alu, L::int_alu};
        }
    }

    [[nodiscard]] isa::static_inst static_info_(const prepared_inst& p) const {
        isa::static_inst s;
        const instruction& in = p.in;
        s.opcode = static_cast<std::uint16_t>(in.opcode);
        const auto [u, l] = timing_class_(p);
        s.unit = u;
        s.latency = l;
        const auto add_src = [&](std::uint32_t r) {
            const isa::reg_id id = timing_id_[r];
            for (std::size_t i = 0; i < s.num_src; ++i)
                if (s.src[i] == id) return;
            if (s.num_src < s.src.size()) s.src[s.num_src++] = id;
        };
        const auto add_dst = [&](std::uint32_t r) {
            const isa::reg_id id = timing_id_[r];
            for (std::size_t i = 0; i < s.num_dst; ++i)
                if (s.dst[i] == id) return;
            if (s.num_dst < s.dst.size()) s.dst[s.num_dst++] = id;
        };
        std::vector<std::uint32_t> uses, defs;
        uses_defs_(p, uses, defs);
        for (const auto r : uses)
            add_src(r);
        for (const auto r : defs)
            add_dst(r);
        if (!p.call_param) {
            switch (in.opcode) {
            case op::ld:
            case op::ldu:
                s.mop = isa::mem_op::load;
                break;
            case op::st:
                s.mop = isa::mem_op::store;
                break;
            case op::atom:
            case op::red:
                s.mop = isa::mem_op::atomic;
                break;
            default:
                break;
            }
        }
        if (in.opcode == op::tex) {
            // The executor gives each fetch its texel size (access_bytes) and addresses.
            s.mop = isa::mem_op::load;
            s.space = isa::mem_space::texture;
            s.access_bytes = 4;
        } else if (s.mop != isa::mem_op::none) {
            switch (p.addr.sp) {
            case space::shared:
                s.space = isa::mem_space::shared;
                break;
            case space::constant:
            case space::param:
                s.space = isa::mem_space::constant;
                break;
            case space::local:
                s.space = isa::mem_space::local;
                break;
            default: // global, and generic until the executor sees the addresses
                s.space = isa::mem_space::global;
                break;
            }
            s.access_bytes = static_cast<std::uint8_t>(size_of(in.t) * (in.vec == 0 ? 1 : in.vec));
        }
        s.is_branch = in.opcode == op::bra;
        s.is_barrier = in.opcode == op::bar && !in.arrive && !in.warp;
        s.is_exit = in.opcode == op::exit || in.opcode == op::trap;
        return s;
    }

    kernel_options opt_;
    std::string file_;
    std::string name_;
    std::vector<param> params_;
    std::uint32_t param_bytes_ = 0;
    std::uint32_t maxnreg_ = 0;
    std::array<std::uint32_t, 3> reqntid_{};
    std::array<std::uint32_t, 3> maxntid_{};
    std::vector<register_decl> registers_;
    std::uint32_t carry_reg_ = 0;
    std::vector<address_ref> module_place_;
    std::vector<address_ref> flat_place_;
    std::vector<char> slot_vars_;
    std::vector<global_variable> globals_;
    std::vector<std::uint8_t> const_bank_;
    std::uint32_t shared_static_ = 0;
    std::uint32_t shared_dynamic_ = 0;
    bool dynamic_used_ = false;
    std::uint32_t local_bytes_ = 0;
    std::vector<prepared_inst> code_;
    std::vector<isa::static_inst> static_;
    std::vector<simt::pc_type> rpc_;
    std::vector<isa::reg_id> timing_id_;
    std::uint32_t folded_ = 0;
    std::uint32_t colours_ = 0;
    std::uint32_t max_live_ = 0;
    std::vector<register_storage> storage_;
    std::array<std::uint32_t, 2> storage_rows_{1, 1};
};

} // namespace warpkit::ptx
