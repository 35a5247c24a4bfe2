#pragma once
/// \file
/// `ptx::kernel`: one `.entry` of a parsed module prepared for execution. Device-function
/// calls are inlined; every operand is resolved (registers to one flat register file,
/// variables to addresses in their state space, labels to pcs, immediates to the bits of
/// the type that reads them); each branch gets its reconvergence pc from the immediate
/// post-dominators of the kernel's control-flow graph; each instruction gets the
/// `isa::static_inst` a timing model sees, with register ids < 64 allocated by liveness.
///
/// The constructor runs the preparation passes of ptx/passes/ in this order, each a function
/// of explicit inputs that can be run and tested alone:
/// 1. passes::inline_calls (inline_calls.hpp): the entry's code with calls inlined;
/// 2. passes::lay_out_variables (layout.hpp): addresses of the variables (below);
/// 3. passes::prepare_operands (operands.hpp): operands resolved into `prepared_inst`s;
/// 4. passes::reconvergence_points (reconvergence.hpp): each branch's reconvergence pc;
/// 5. passes::allocate_registers (registers.hpp): timing ids, storage rows, live registers;
/// 6. passes::static_infos (static_info.hpp): the `isa::static_inst` of each instruction.
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
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/passes/inline_calls.hpp>
#include <warpkit/ptx/passes/layout.hpp>
#include <warpkit/ptx/passes/operands.hpp>
#include <warpkit/ptx/passes/prepared.hpp>
#include <warpkit/ptx/passes/reconvergence.hpp>
#include <warpkit/ptx/passes/registers.hpp>
#include <warpkit/ptx/passes/static_info.hpp>
#include <warpkit/simt/fwd.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::ptx {

/// Number of PTX opcodes (arrays indexed by op).
inline constexpr std::size_t op_count = static_cast<std::size_t>(op::mma) + 1;

/// Device address of the first module `.global` variable.
inline constexpr std::uint64_t global_variable_base = 0x0000'6000'0000'0000ULL;
/// Highest `kernel_options::global_base` (module globals stay below the generic windows).
inline constexpr std::uint64_t max_global_base = 0x0000'6f00'0000'0000ULL;

/// How a kernel is prepared.
struct kernel_options {
    /// Registers per thread for occupancy; 0: derived from liveness (see the file comment).
    std::uint32_t regs_per_thread = 0;
    /// Registers added to the most live at once (addresses, temporaries of the real code).
    std::uint32_t register_reserve = 2;
    /// Largest register footprint (Fermi: 63 per thread).
    std::uint32_t max_registers = 63;
    /// Register ids the timing model's scoreboard tracks (ids are < this): 63 for the SMs
    /// of the 64-register scoreboard (gpu::sm's default), up to 255 for one whose
    /// `scoreboard_registers` is 256 (then no kernel folds).
    std::uint32_t timing_registers = 63;
    /// Device address of the module's first `.global` variable (a host loading several
    /// modules gives each its own range).
    std::uint64_t global_base = global_variable_base;
    void validate() const {
        check_range("regs_per_thread", regs_per_thread, 0U, 255U);
        check_range("register_reserve", register_reserve, 0U, 255U);
        check_range("max_registers", max_registers, 1U, 255U);
        check_range("timing_registers", timing_registers, 1U, 255U);
        check_range("global_base", global_base, std::uint64_t{1} << 32, max_global_base);
    }
    WARPKIT_FIELDS(kernel_options, regs_per_thread, register_reserve, max_registers,
                   timing_registers, global_base)
};

/// A `.entry` of a module prepared for execution and timing.
class kernel {
public:
    /// Prepares entry `entry_name` (exact or the base name of a mangled name) of `m`. Throws
    /// parse_error naming the file and line for anything the executor cannot run (a
    /// recursive or external call, an indirect call, an unresolvable operand), config_error
    /// for an unknown entry or bad options.
    kernel(const module& m, std::string_view entry_name, const kernel_options& opt = {})
        : opt_(validated(opt)), file_(m.file) {
        const function& f = entry_(m, entry_name);
        name_ = f.name;
        params_ = f.params;
        param_bytes_ = f.param_bytes();
        maxnreg_ = f.maxnreg;
        reqntid_ = f.reqntid;
        maxntid_ = f.maxntid;
        passes::flat_code flat = passes::inline_calls(m, f);
        registers_ = std::move(flat.registers);
        carry_reg_ = static_cast<std::uint32_t>(registers_.size());
        registers_.push_back(register_decl{"%cc", type::pred});
        layout_ = passes::lay_out_variables(m, flat.code, flat.variables, opt_.global_base);
        code_ = passes::prepare_operands(m, f, std::move(flat.code), layout_);
        rpc_ = passes::reconvergence_points(code_);
        allocation_ =
            passes::allocate_registers(code_, registers_, carry_reg_, opt_.timing_registers);
        static_ = passes::static_infos(code_, allocation_.timing_ids, carry_reg_);
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
    [[nodiscard]] isa::reg_id timing_id(std::uint32_t r) const {
        return allocation_.timing_ids.at(r);
    }
    /// Virtual registers whose timing id was folded (false dependencies possible).
    [[nodiscard]] std::uint32_t folded_registers() const noexcept { return allocation_.folded; }
    /// Colours the register allocation needed (before folding).
    [[nodiscard]] std::uint32_t timing_ids_needed() const noexcept { return allocation_.colours; }
    /// The most 32-bit registers live at once.
    [[nodiscard]] std::uint32_t max_live_registers() const noexcept { return allocation_.max_live; }
    /// Where virtual register r lives in a warp's register storage (see register_storage).
    [[nodiscard]] register_storage storage(std::uint32_t r) const {
        return allocation_.storage.at(r);
    }
    /// Rows of 32-bit (`wide` false) or 64-bit (`wide` true) storage a warp needs: at least
    /// one each; registers that are never live at once share a row.
    [[nodiscard]] std::uint32_t storage_rows(bool wide) const noexcept {
        return allocation_.storage_rows[wide ? 1 : 0];
    }
    /// Registers per thread for occupancy (see the file comment).
    [[nodiscard]] std::uint32_t regs_per_thread() const noexcept {
        if (opt_.regs_per_thread != 0) return opt_.regs_per_thread;
        std::uint32_t r = allocation_.max_live + opt_.register_reserve;
        r = std::min(r, opt_.max_registers);
        if (maxnreg_ != 0) r = std::min(r, maxnreg_);
        return std::max<std::uint32_t>(r, 1);
    }

    /// Kernel parameters (offsets in the parameter buffer) and the buffer's size.
    [[nodiscard]] const std::vector<param>& params() const noexcept { return params_; }
    [[nodiscard]] std::uint32_t param_bytes() const noexcept { return param_bytes_; }
    /// Static shared memory per block (bytes) and where dynamic shared memory starts.
    [[nodiscard]] std::uint32_t static_shared_bytes() const noexcept {
        return layout_.static_shared_bytes;
    }
    [[nodiscard]] std::uint32_t dynamic_shared_offset() const noexcept {
        return layout_.dynamic_shared_offset;
    }
    /// True when the kernel declares `.extern .shared` (dynamic shared memory).
    [[nodiscard]] bool uses_dynamic_shared() const noexcept { return layout_.uses_dynamic_shared; }
    /// Local memory per thread (bytes).
    [[nodiscard]] std::uint32_t local_bytes() const noexcept { return layout_.local_bytes; }
    /// The constant bank: the module's `.const` variables with their initialisers.
    [[nodiscard]] const std::vector<std::uint8_t>& constant_bank() const noexcept {
        return layout_.constant_bank;
    }
    /// Replaces the constant bank's contents (a host writing `__constant__` data); throws
    /// config_error unless `bank` has the bank's size.
    void set_constant_bank(std::span<const std::uint8_t> bank) {
        auto& constants = layout_.constant_bank;
        if (bank.size() != constants.size())
            throw config_error("constant_bank", std::to_string(bank.size()) + " bytes",
                               std::to_string(constants.size()) +
                                   " bytes (the `.const` "
                                   "variables of `" +
                                   name_ + "`)");
        std::copy(bank.begin(), bank.end(), constants.begin());
    }
    /// A module `.global` variable: its name, device address, size and initialiser.
    using global_variable = passes::global_variable;
    [[nodiscard]] const std::vector<global_variable>& globals() const noexcept {
        return layout_.globals;
    }
    /// `.reqntid` / `.maxntid` of the entry (0: not given).
    [[nodiscard]] const std::array<std::uint32_t, 3>& reqntid() const noexcept { return reqntid_; }
    [[nodiscard]] const std::array<std::uint32_t, 3>& maxntid() const noexcept { return maxntid_; }
    [[nodiscard]] const kernel_options& options() const noexcept { return opt_; }

private:
    // The `.entry` of `m` that `name` names; config_error listing the entries otherwise.
    static const function& entry_(const module& m, std::string_view name) {
        const function* f = m.find(name);
        if (f == nullptr || !f->entry) {
            std::string names;
            for (const auto& g : m.functions)
                if (g.entry) names += (names.empty() ? "" : ", ") + g.name;
            throw config_error("entry", std::string(name),
                               names.empty() ? "a .entry of the module (it has none)"
                                             : "one of: " + names);
        }
        return *f;
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
    passes::variable_layout layout_;
    std::vector<prepared_inst> code_;
    std::vector<simt::pc_type> rpc_;
    passes::register_allocation allocation_;
    std::vector<isa::static_inst> static_;
};

} // namespace warpkit::ptx
