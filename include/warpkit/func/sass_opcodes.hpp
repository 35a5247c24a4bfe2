#pragma once
/// \file
/// What the timing model needs to know about the opcodes of an Accel-Sim SASS trace: per
/// architecture family (Kepler, Pascal, Volta, Turing, Ampere) each opcode's base name (the
/// text before the first '.') maps to an `opcode_kind`, which says the unit class, latency
/// class, memory space and operation and the control flags (`static_inst_of`). The facts
/// follow NVIDIA's CUDA binary utilities instruction-set reference and Accel-Sim's public
/// opcode tables; modifiers refine a few (`BAR.ARV` arrives without waiting, a conversion
/// with `.F64` runs the double-precision pipeline).
///
/// The unit classes of the timing model are INT, FP, SFU, LD/ST, branch, control, DP and
/// tensor. Double precision (`DADD`, `DFMA`...) runs on the DP class with the double-precision
/// latency classes, the tensor cores' opcodes (`HMMA`, `IMMA`, `BMMA`, `DMMA`) on the tensor
/// class (an SM without such units runs both on its FP pipelines); Turing's and Ampere's
/// uniform datapath (`UIADD3`, `UMOV`...) runs on INT.
///
/// Opcodes the tables do not know can be given in an opcode table file: one `OPCODE kind`
/// per line (`#` starts a comment), the kind one of opcode_kind_names (the unit class names
/// int, fp, sfu, ldst, branch, ctrl, dp and tensor among them); an entry names a base opcode
/// (`LDGSTS`) or a full one with modifiers (`BAR.SYNC.DEFER_BLOCKING`), and wins over the
/// family's table.

#include <warpkit/core/error.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/isa/opcode.hpp>
#include <warpkit/isa/unit_class.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpkit::func::sass {

/// An architecture family: which opcode table applies. `ptx`: the PTX opcodes of the traces
/// the project writes itself (func/accelsim_trace_writer.hpp).
enum class family : std::uint8_t { kepler, pascal, volta, turing, ampere, ptx };

/// Names of the families (`--sass-family`), in enum order.
inline constexpr std::array<std::string_view, 6> family_names{"kepler", "pascal", "volta",
                                                              "turing", "ampere", "ptx"};

/// The name of family `f`.
[[nodiscard]] constexpr std::string_view name(family f) noexcept {
    return family_names[static_cast<std::size_t>(f)];
}

/// The family called `text`, or nullopt.
[[nodiscard]] constexpr std::optional<family> family_named(std::string_view text) noexcept {
    for (std::size_t i = 0; i < family_names.size(); ++i)
        if (family_names[i] == text) return static_cast<family>(i);
    return std::nullopt;
}

/// The family of a trace's `-binary version` (the SASS architecture, major * 10 + minor):
/// 30 to 37 Kepler, 50 to 62 Pascal (Maxwell's instruction set is Pascal's), 70 and 72
/// Volta, 75 Turing, 80 to 89 Ampere (Ada's instruction set is Ampere's); nullopt for any
/// other (0 among them: a trace the project wrote of a PTX kernel says so with
/// `-opcode set = ptx` instead).
[[nodiscard]] constexpr std::optional<family> family_of_binary_version(std::uint32_t v) noexcept {
    if (v >= 30 && v <= 37) return family::kepler;
    if (v >= 50 && v <= 62) return family::pascal;
    if (v == 70 || v == 72) return family::volta;
    if (v == 75) return family::turing;
    if (v >= 80 && v <= 89) return family::ampere;
    return std::nullopt;
}

/// What an opcode is to the timing model.
enum class opcode_kind : std::uint8_t {
    int_alu,        ///< integer add, logic, shift, compare, move (INT)
    int_mul,        ///< integer multiply (INT)
    int_mad,        ///< integer multiply-add (INT)
    fp_add,         ///< single-precision add, compare, min / max, select (FP)
    fp_mul,         ///< single-precision multiply (FP)
    fp_mad,         ///< single-precision fused multiply-add (FP)
    dp_add,         ///< double-precision add, compare (DP)
    dp_mul,         ///< double-precision multiply
    dp_fma,         ///< double-precision fused multiply-add
    conversion,     ///< F2F, F2I, I2F: FP, DP with a .F64 modifier
    sfu,            ///< MUFU: reciprocal, square root, transcendental functions (SFU)
    tensor,         ///< HMMA, IMMA, BMMA, DMMA: a tensor-core matrix instruction (tensor)
    special_reg,    ///< S2R, CS2R: a special register read (INT)
    uniform,        ///< the uniform datapath (INT)
    load_global,    ///< LDG
    load_shared,    ///< LDS
    load_local,     ///< LDL
    load_constant,  ///< LDC
    load_generic,   ///< LD: global unless the addresses fall in the shared or local window
    store_global,   ///< STG
    store_shared,   ///< STS
    store_local,    ///< STL
    store_generic,  ///< ST
    atomic_global,  ///< ATOMG, RED
    atomic_shared,  ///< ATOMS
    atomic_generic, ///< ATOM
    texture,        ///< TEX, TLD...: a texture fetch
    branch,         ///< may change the pc: BRA, BRX, JMP, CALL, RET, BSYNC, SYNC, WARPSYNC...
    branch_setup,   ///< control-flow bookkeeping that falls through: BSSY, SSY, PBK, BMOV...
    barrier,        ///< BAR: waits for the block's warps (BAR.ARV only arrives)
    exit,           ///< EXIT, KILL
    ctrl,           ///< no datapath: NOP, MEMBAR, DEPBAR, cache control
};

/// Number of opcode kinds.
inline constexpr std::size_t opcode_kind_count = static_cast<std::size_t>(opcode_kind::ctrl) + 1;

/// Names of the kinds in opcode table files, in enum order ("int", "fp", "sfu", "branch",
/// "ctrl", "dp" and "tensor" are the unit class names; "ldst" is accepted for load_generic).
inline constexpr std::array<std::string_view, opcode_kind_count> opcode_kind_names{
    "int",          "int_mul",       "int_mad",       "fp",           "fp_mul",
    "fp_mad",       "dp",            "dp_mul",        "dp_fma",       "conversion",
    "sfu",          "tensor",        "special_reg",   "uniform",      "load_global",
    "load_shared",  "load_local",    "load_constant", "load_generic", "store_global",
    "store_shared", "store_local",   "store_generic", "atomic_global", "atomic_shared",
    "atomic_generic", "texture",     "branch",        "branch_setup", "barrier",
    "exit",         "ctrl"};

/// The name of kind `k`.
[[nodiscard]] constexpr std::string_view name(opcode_kind k) noexcept {
    return opcode_kind_names[static_cast<std::size_t>(k)];
}

/// The kind called `text` (one of opcode_kind_names, or "ldst"), or nullopt.
[[nodiscard]] constexpr std::optional<opcode_kind> kind_named(std::string_view text) noexcept {
    if (text == "ldst") return opcode_kind::load_generic;
    for (std::size_t i = 0; i < opcode_kind_names.size(); ++i)
        if (opcode_kind_names[i] == text) return static_cast<opcode_kind>(i);
    return std::nullopt;
}

/// True for the kinds that access memory (their instructions carry addresses in a trace).
[[nodiscard]] constexpr bool accesses_memory(opcode_kind k) noexcept {
    return k >= opcode_kind::load_global && k <= opcode_kind::texture;
}

/// True for the kinds whose memory space the addresses decide (LD, ST, ATOM).
[[nodiscard]] constexpr bool generic_space(opcode_kind k) noexcept {
    return k == opcode_kind::load_generic || k == opcode_kind::store_generic ||
           k == opcode_kind::atomic_generic;
}

namespace detail {

// The memory operation and space of a memory kind (generic ones: global).
[[nodiscard]] constexpr std::pair<isa::mem_op, isa::mem_space>
memory_of(opcode_kind k) noexcept {
    using K = opcode_kind;
    using O = isa::mem_op;
    using S = isa::mem_space;
    switch (k) {
    case K::load_shared:
        return {O::load, S::shared};
    case K::load_local:
        return {O::load, S::local};
    case K::load_constant:
        return {O::load, S::constant};
    case K::store_global:
    case K::store_generic:
        return {O::store, S::global};
    case K::store_shared:
        return {O::store, S::shared};
    case K::store_local:
        return {O::store, S::local};
    case K::atomic_global:
    case K::atomic_generic:
        return {O::atomic, S::global};
    case K::atomic_shared:
        return {O::atomic, S::shared};
    case K::texture:
        return {O::load, S::texture};
    default:
        return {O::load, S::global};
    }
}

// The unit and latency class of a kind that does not access memory.
[[nodiscard]] constexpr std::pair<isa::unit_class, isa::latency_class>
timing_of(opcode_kind k) noexcept {
    using K = opcode_kind;
    using U = isa::unit_class;
    using L = isa::latency_class;
    switch (k) {
    case K::int_mul:
        return {U::int_alu, L::int_mul};
    case K::int_mad:
        return {U::int_alu, L::int_mad};
    case K::fp_add:
    case K::conversion:
        return {U::fp, L::fp_add};
    case K::fp_mul:
        return {U::fp, L::fp_mul};
    case K::fp_mad:
        return {U::fp, L::fp_mad};
    case K::dp_add:
        return {U::dp, L::dp_add};
    case K::dp_mul:
        return {U::dp, L::dp_mul};
    case K::dp_fma:
        return {U::dp, L::dp_fma};
    case K::tensor:
        return {U::tensor, L::tensor};
    case K::sfu:
        return {U::sfu, L::sfu};
    case K::special_reg:
        return {U::int_alu, L::special_reg};
    case K::branch:
    case K::branch_setup:
        return {U::branch, L::branch};
    case K::barrier:
    case K::exit:
    case K::ctrl:
        return {U::ctrl, L::none};
    default:
        return {U::int_alu, L::int_alu};
    }
}

// True when the dot-separated modifiers of `opcode` (after its base name) include `m`.
[[nodiscard]] constexpr bool has_modifier(std::string_view opcode, std::string_view m) noexcept {
    std::size_t dot = opcode.find('.');
    while (dot != std::string_view::npos) {
        const std::size_t next = opcode.find('.', dot + 1);
        if (opcode.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1) == m)
            return true;
        dot = next;
    }
    return false;
}

} // namespace detail

/// The static_inst (without registers) of an instruction of kind `k` whose opcode text is
/// `opcode` and that `has_addresses` (memory kinds without addresses in the trace move no data
/// the timing model can see: they run on INT as Accel-Sim runs them). Generic spaces come out
/// global; the trace source narrows them by address.
[[nodiscard]] constexpr isa::static_inst static_inst_of(opcode_kind k, std::string_view opcode,
                                                        bool has_addresses) noexcept {
    isa::static_inst s;
    if (accesses_memory(k)) {
        if (!has_addresses) {
            s.unit = isa::unit_class::int_alu;
            s.latency = isa::latency_class::int_alu;
            return s;
        }
        const auto [op, space] = detail::memory_of(k);
        s.unit = isa::unit_class::ldst;
        s.mop = op;
        s.space = space;
        using L = isa::latency_class;
        s.latency = op == isa::mem_op::atomic       ? L::atomic
                    : space == isa::mem_space::shared   ? L::shared_mem
                    : space == isa::mem_space::constant ? L::const_mem
                                                        : L::global_mem;
        return s;
    }
    const auto [unit, latency] = detail::timing_of(k);
    s.unit = unit;
    s.latency = latency;
    if (k == opcode_kind::conversion && detail::has_modifier(opcode, "F64")) {
        s.unit = isa::unit_class::dp;
        s.latency = isa::latency_class::dp_add;
    }
    s.is_branch = k == opcode_kind::branch;
    // BAR.ARV arrives at the barrier without waiting: nothing to stop for.
    s.is_barrier = k == opcode_kind::barrier && !detail::has_modifier(opcode, "ARV");
    s.is_exit = k == opcode_kind::exit;
    return s;
}

/// One opcode of a table: its base name and kind.
struct opcode_entry {
    std::string_view opcode;
    opcode_kind kind;
};

namespace tables {

using K = opcode_kind;

// clang-format off
/// Opcodes of every family from Kepler to Ampere.
inline constexpr opcode_entry common[] = {
    {"FADD", K::fp_add}, {"FADD32I", K::fp_add}, {"FCHK", K::fp_add}, {"FFMA", K::fp_mad},
    {"FFMA32I", K::fp_mad}, {"FMNMX", K::fp_add}, {"FMUL", K::fp_mul}, {"FMUL32I", K::fp_mul},
    {"FSET", K::fp_add}, {"FSETP", K::fp_add}, {"MUFU", K::sfu},
    {"DADD", K::dp_add}, {"DFMA", K::dp_fma}, {"DMUL", K::dp_mul}, {"DSETP", K::dp_add},
    {"IADD", K::int_alu}, {"IADD32I", K::int_alu}, {"IMAD", K::int_mad}, {"IMUL", K::int_mul},
    {"IMUL32I", K::int_mul}, {"ISCADD", K::int_alu}, {"ISCADD32I", K::int_alu},
    {"IMNMX", K::int_alu}, {"SHF", K::int_alu}, {"SHR", K::int_alu}, {"LOP32I", K::int_alu},
    {"FLO", K::int_alu}, {"ISETP", K::int_alu}, {"POPC", K::int_alu},
    {"F2F", K::conversion}, {"F2I", K::conversion}, {"I2F", K::conversion}, {"I2I", K::int_alu},
    {"MOV", K::int_alu}, {"MOV32I", K::int_alu}, {"SEL", K::int_alu}, {"PRMT", K::int_alu},
    {"SHFL", K::int_alu}, {"P2R", K::int_alu}, {"R2P", K::int_alu}, {"PSETP", K::int_alu},
    {"LD", K::load_generic}, {"LDC", K::load_constant}, {"LDG", K::load_global},
    {"LDL", K::load_local}, {"LDS", K::load_shared}, {"ST", K::store_generic},
    {"STL", K::store_local}, {"STS", K::store_shared}, {"ATOM", K::atomic_generic},
    {"RED", K::atomic_global}, {"CCTL", K::ctrl}, {"CCTLL", K::ctrl}, {"MEMBAR", K::ctrl},
    {"TEX", K::texture}, {"TLD", K::texture}, {"TLD4", K::texture}, {"TXQ", K::texture},
    {"BRA", K::branch}, {"BRX", K::branch}, {"JMP", K::branch}, {"JMX", K::branch},
    {"RET", K::branch}, {"BPT", K::branch_setup}, {"EXIT", K::exit},
    {"NOP", K::ctrl}, {"S2R", K::special_reg}, {"B2R", K::int_alu}, {"BAR", K::barrier},
    {"VOTE", K::int_alu},
};

/// Kepler's and Pascal's (Maxwell's) opcodes that Volta dropped: the SSY / PBK / PCNT
/// reconvergence stack, CAL, XMAD's predecessors.
inline constexpr opcode_entry kepler_pascal[] = {
    {"RRO", K::fp_add}, {"DMNMX", K::dp_add}, {"DSET", K::dp_add}, {"ISET", K::int_alu},
    {"ICMP", K::int_alu}, {"BFE", K::int_alu}, {"BFI", K::int_alu}, {"SHL", K::int_alu},
    {"IMADSP", K::int_mad}, {"CSET", K::int_alu}, {"CSETP", K::int_alu}, {"PSET", K::int_alu},
    {"CAL", K::branch}, {"JCAL", K::branch}, {"PRET", K::branch_setup}, {"BRK", K::branch},
    {"PBK", K::branch_setup}, {"CONT", K::branch}, {"PCNT", K::branch_setup},
    {"SSY", K::branch_setup}, {"SYNC", K::branch},
};

/// Kepler only.
inline constexpr opcode_entry kepler[] = {
    {"FCMP", K::fp_add}, {"FSWZ", K::fp_add}, {"ISUB", K::int_alu}, {"ISAD", K::int_alu},
    {"LDSLK", K::load_shared}, {"STSCUL", K::store_shared}, {"SUCLAMP", K::int_alu},
    {"SUBFM", K::int_alu}, {"SUEAU", K::int_alu}, {"SULDGA", K::load_global},
    {"SUSTGA", K::store_global},
};

/// From Pascal (Maxwell) on.
inline constexpr opcode_entry pascal_on[] = {
    {"FSEL", K::fp_add}, {"FSWZADD", K::fp_add}, {"HADD2", K::fp_add}, {"HFMA2", K::fp_mad},
    {"HMUL2", K::fp_mul}, {"HSET2", K::fp_add}, {"HSETP2", K::fp_add},
    {"BMSK", K::int_alu}, {"BREV", K::int_alu}, {"IABS", K::int_alu}, {"IADD3", K::int_alu},
    {"IDP", K::int_mul}, {"IDP4A", K::int_mul}, {"LEA", K::int_alu}, {"LOP", K::int_alu},
    {"LOP3", K::int_alu}, {"VABSDIFF", K::int_alu}, {"VABSDIFF4", K::int_alu},
    {"I2IP", K::int_alu}, {"FRND", K::conversion}, {"SGXT", K::int_alu}, {"PLOP3", K::int_alu},
    {"STG", K::store_global}, {"MATCH", K::int_alu}, {"QSPC", K::int_alu},
    {"ATOMS", K::atomic_shared}, {"ATOMG", K::atomic_global}, {"ERRBAR", K::ctrl},
    {"CCTLT", K::ctrl}, {"TMML", K::texture}, {"TXD", K::texture},
    {"BMOV", K::branch_setup}, {"BREAK", K::branch}, {"BSSY", K::branch_setup},
    {"BSYNC", K::branch}, {"CALL", K::branch}, {"KILL", K::exit}, {"NANOSLEEP", K::ctrl},
    {"RPCMOV", K::branch_setup}, {"RTT", K::branch}, {"WARPSYNC", K::branch},
    {"YIELD", K::branch_setup}, {"CS2R", K::special_reg}, {"CSMTEST", K::int_alu},
    {"DEPBAR", K::ctrl}, {"GETLMEMBASE", K::int_alu}, {"LEPC", K::int_alu}, {"PMTRIG", K::ctrl},
    {"R2B", K::int_alu}, {"SETCTAID", K::int_alu}, {"SETLMEMBASE", K::int_alu},
    {"VOTE_VTG", K::int_alu}, {"IMMA", K::tensor},
};

/// Pascal (Maxwell) only.
inline constexpr opcode_entry pascal[] = {
    {"XMAD", K::int_mad}, {"VMNMX", K::int_alu}, {"TEXS", K::texture}, {"TLD4S", K::texture},
    {"TLDS", K::texture}, {"PEXIT", K::branch_setup},
};

/// From Volta on.
inline constexpr opcode_entry volta_on[] = {
    {"HADD2_32I", K::fp_add}, {"HFMA2_32I", K::fp_mad}, {"HMUL2_32I", K::fp_mul},
    {"HMMA", K::tensor},
};

/// From Turing on: the uniform datapath, the matrix loads, surface access.
inline constexpr opcode_entry turing_on[] = {
    {"BMMA", K::tensor}, {"MOVM", K::int_alu}, {"LDSM", K::load_shared}, {"SHL", K::int_alu},
    {"BRXU", K::branch}, {"JMXU", K::branch}, {"R2UR", K::uniform}, {"S2UR", K::special_reg},
    {"UBMSK", K::uniform}, {"UBREV", K::uniform}, {"UCLEA", K::uniform}, {"UFLO", K::uniform},
    {"UIADD3", K::uniform}, {"UIMAD", K::uniform}, {"UISETP", K::uniform}, {"ULDC", K::uniform},
    {"ULEA", K::uniform}, {"ULOP", K::uniform}, {"ULOP3", K::uniform}, {"ULOP32I", K::uniform},
    {"UMOV", K::uniform}, {"UP2UR", K::uniform}, {"UPLOP3", K::uniform}, {"UPOPC", K::uniform},
    {"UPRMT", K::uniform}, {"UPSETP", K::uniform}, {"UR2UP", K::uniform}, {"USEL", K::uniform},
    {"USGXT", K::uniform}, {"USHF", K::uniform}, {"USHL", K::uniform}, {"USHR", K::uniform},
    {"VOTEU", K::uniform}, {"SUATOM", K::atomic_global}, {"SULD", K::load_global},
    {"SURED", K::atomic_global}, {"SUST", K::store_global},
};

/// From Ampere on: asynchronous global-to-shared copies, double-precision matrix multiply,
/// warp reductions.
inline constexpr opcode_entry ampere_on[] = {
    {"LDGSTS", K::load_global}, {"LDGDEPBAR", K::ctrl}, {"ARRIVES", K::ctrl},
    {"DMMA", K::tensor}, {"REDUX", K::int_alu}, {"F2FP", K::conversion}, {"HMNMX2", K::fp_add},
};
// clang-format on

} // namespace tables

/// The tables of family `f`, most specific first (empty for ptx).
[[nodiscard]] inline std::vector<std::span<const opcode_entry>> tables_of(family f) {
    using namespace tables;
    switch (f) {
    case family::kepler:
        return {kepler, kepler_pascal, common};
    case family::pascal:
        return {pascal, pascal_on, kepler_pascal, common};
    case family::volta:
        return {volta_on, pascal_on, common};
    case family::turing:
        return {turing_on, volta_on, pascal_on, common};
    case family::ampere:
        return {ampere_on, turing_on, volta_on, pascal_on, common};
    case family::ptx:
        break;
    }
    return {};
}

/// The base name of an opcode: the text before its first '.' ("LDG" of "LDG.E.64").
[[nodiscard]] constexpr std::string_view base_name(std::string_view opcode) noexcept {
    return opcode.substr(0, opcode.find('.'));
}

/// An `OPCODE kind` line of an opcode table file.
struct extra_opcode {
    std::string opcode; ///< a base name or a full opcode with modifiers
    opcode_kind kind = opcode_kind::int_alu;
    std::size_t line = 0;
};

/// Reads an opcode table file from `in` (`file` names it in errors): `OPCODE kind` lines,
/// blank lines and `#` comments. A missing or unknown kind, a third field or an opcode that
/// is not a word of letters, digits, '_' and '.' is a parse_error at its file:line:column.
[[nodiscard]] inline std::vector<extra_opcode> read_opcode_table(std::istream& in,
                                                                 const std::string& file) {
    std::vector<extra_opcode> out;
    std::string line;
    std::size_t number = 0;
    const auto fail = [&](std::size_t column, const std::string& what) {
        throw parse_error(file, number, column, what);
    };
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (std::getline(in, line)) {
        ++number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::vector<std::pair<std::size_t, std::string_view>> fields; // column, text
        const std::string_view text(line);
        for (std::size_t i = 0; i < text.size();) {
            if (is_space(text[i])) {
                ++i;
                continue;
            }
            std::size_t end = i;
            while (end < text.size() && !is_space(text[end]))
                ++end;
            fields.emplace_back(i + 1, text.substr(i, end - i));
            i = end;
        }
        if (fields.empty()) continue;
        const auto [opcode_column, opcode] = fields[0];
        const bool word = std::all_of(opcode.begin(), opcode.end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.';
        });
        if (!word || opcode.front() == '.')
            fail(opcode_column, "expected an opcode (letters, digits, '_' and '.'), found '" +
                                    std::string(opcode) + "'");
        if (fields.size() == 1)
            fail(text.find_last_not_of(" \t\r") + 2, "the line ends where the kind of '" +
                                                         std::string(opcode) + "' should be");
        const auto kind = kind_named(fields[1].second);
        if (!kind) {
            std::string known;
            for (const auto n : opcode_kind_names)
                known += (known.empty() ? "" : ", ") + std::string(n);
            fail(fields[1].first, "unknown kind '" + std::string(fields[1].second) +
                                      "' (known: " + known + ", ldst)");
        }
        if (fields.size() > 2)
            fail(fields[2].first, "unexpected field '" + std::string(fields[2].second) +
                                      "' after the kind (one 'OPCODE kind' per line)");
        out.push_back({std::string(opcode), *kind, number});
    }
    return out;
}

/// The opcodes of one family plus the extra ones a user gives.
class opcode_table {
public:
    /// The table of family `f` (ptx: none; the PTX opcodes are classified by
    /// func/ptx_trace_opcodes.hpp) with `extra` entries, which win.
    explicit opcode_table(family f, std::vector<extra_opcode> extra = {})
        : family_(f), tables_(tables_of(f)), extra_(std::move(extra)) {}

    [[nodiscard]] family which() const noexcept { return family_; }

    /// The kind of `opcode` ("LDG.E.64"): an extra entry naming it in full, else one naming
    /// its base, else the family's table; nullopt when none knows it.
    [[nodiscard]] std::optional<opcode_kind> find(std::string_view opcode) const {
        if (const auto k = find_extra(opcode)) return k;
        const std::string_view base = base_name(opcode);
        for (const auto& t : tables_)
            for (const auto& e : t)
                if (e.opcode == base) return e.kind;
        return std::nullopt;
    }
    /// The kind an extra entry gives `opcode` (in full, else its base), or nullopt.
    [[nodiscard]] std::optional<opcode_kind> find_extra(std::string_view opcode) const {
        for (const auto& e : extra_)
            if (e.opcode == opcode) return e.kind;
        const std::string_view base = base_name(opcode);
        for (const auto& e : extra_)
            if (e.opcode == base) return e.kind;
        return std::nullopt;
    }

private:
    family family_;
    std::vector<std::span<const opcode_entry>> tables_;
    std::vector<extra_opcode> extra_;
};

} // namespace warpkit::func::sass
