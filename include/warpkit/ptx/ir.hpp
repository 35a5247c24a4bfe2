#pragma once
/// \file
/// The PTX module as the parser produces it and the kernel preparation and executor consume
/// it: functions with their declarations and instructions, every name resolved to an index
/// (registers, variables, parameters, labels, functions), every position kept for messages.

#include <cxxabi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::ptx {

/// A position in the PTX text (1-based line and column; 0 when unknown).
struct source_pos {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    friend bool operator==(const source_pos&, const source_pos&) = default;
};

/// PTX fundamental types (`.pred`, `.b8` ... `.f64`).
enum class type : std::uint8_t {
    none,
    pred,
    b8,
    b16,
    b32,
    b64,
    u8,
    u16,
    u32,
    u64,
    s8,
    s16,
    s32,
    s64,
    f16,
    f32,
    f64,
};

/// Width of a type in bits (`.pred`: 1, none: 0).
[[nodiscard]] constexpr unsigned bits(type t) noexcept {
    switch (t) {
    case type::none:
        return 0;
    case type::pred:
        return 1;
    case type::b8:
    case type::u8:
    case type::s8:
        return 8;
    case type::b16:
    case type::u16:
    case type::s16:
    case type::f16:
        return 16;
    case type::b32:
    case type::u32:
    case type::s32:
    case type::f32:
        return 32;
    case type::b64:
    case type::u64:
    case type::s64:
    case type::f64:
        return 64;
    }
    return 0;
}
/// Bytes a value of the type occupies in memory (`.pred`: 1).
[[nodiscard]] constexpr unsigned size_of(type t) noexcept {
    return t == type::pred ? 1 : bits(t) / 8;
}
/// `.s8` ... `.s64`.
[[nodiscard]] constexpr bool is_signed(type t) noexcept {
    return t == type::s8 || t == type::s16 || t == type::s32 || t == type::s64;
}
/// `.f16`, `.f32`, `.f64`.
[[nodiscard]] constexpr bool is_float(type t) noexcept {
    return t == type::f16 || t == type::f32 || t == type::f64;
}

/// State spaces. `reg` and `sreg` are registers; `generic` is an ld/st/atom without a space.
enum class space : std::uint8_t {
    none,
    reg,
    sreg,
    generic,
    global,
    shared,
    constant,
    param,
    local
};

/// Instructions of the supported subset (the parser rejects anything else).
enum class op : std::uint16_t {
    // integer and floating-point arithmetic
    add,
    addc,
    sub,
    subc,
    mul,
    mad,
    madc,
    mul24,
    mad24,
    fma,
    div,
    rem,
    abs,
    neg,
    min,
    max,
    sad,
    // bit manipulation
    popc,
    clz,
    bfind,
    brev,
    bfe,
    bfi,
    prmt,
    // logic and shift
    and_,
    or_,
    xor_,
    not_,
    cnot,
    lop3,
    shl,
    shr,
    shf,
    // comparison and selection
    setp,
    set,
    selp,
    slct,
    testp,
    copysign,
    // conversion and movement
    cvt,
    cvta,
    mov,
    // memory
    ld,
    ldu,
    st,
    atom,
    red,
    prefetch,
    // floating-point special functions
    rcp,
    sqrt,
    rsqrt,
    sin,
    cos,
    lg2,
    ex2,
    tanh,
    // warp-level
    shfl,
    vote,
    activemask,
    // synchronisation
    bar,
    membar,
    fence,
    // control
    bra,
    call,
    ret,
    exit,
    trap,
    // texture
    tex,
    // warp-level matrix multiply-accumulate (ptx/matrix.hpp): wmma.load, wmma.store,
    // wmma.mma and mma.sync, each executed by the whole warp at once
    wmma_load,
    wmma_store,
    wmma_mma,
    mma,
};

/// The warp-level matrix instructions (wmma.load / wmma.store / wmma.mma / mma.sync).
[[nodiscard]] constexpr bool is_matrix(op o) noexcept {
    return o == op::wmma_load || o == op::wmma_store || o == op::wmma_mma || o == op::mma;
}
/// Instructions whose lanes read other lanes' registers or the warp's active mask: shfl,
/// vote, activemask and the matrix instructions (a warp running them cannot be cut).
[[nodiscard]] constexpr bool warp_collective(op o) noexcept {
    return o == op::shfl || o == op::vote || o == op::activemask || is_matrix(o);
}

/// rsqrt, sin, cos, lg2, ex2 and tanh: the special functions PTX has only as `.approx`, which
/// run on the SFU (rcp and sqrt, which also come exact, are not among them).
[[nodiscard]] constexpr bool approx_only_function(op o) noexcept {
    return o == op::rsqrt || o == op::sin || o == op::cos || o == op::lg2 || o == op::ex2 ||
           o == op::tanh;
}

/// Rounding modifiers (`.rn .rz .rm .rp` for floats, `.rni .rzi .rmi .rpi` to integral).
enum class rounding : std::uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };
/// Comparison operators of setp / set / slct (`.lo .ls .hi .hs` unsigned; `u` suffixes:
/// unordered floats compare true).
enum class cmp : std::uint8_t {
    none,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    lo,
    ls,
    hi,
    hs,
    equ,
    neu,
    ltu,
    leu,
    gtu,
    geu,
    num,
    nan,
};
/// The boolean combination of setp / set with a predicate (`.and .or .xor`).
enum class bool_op : std::uint8_t { none, and_, or_, xor_ };
/// Which part of a product mul / mad keep (`.lo .hi .wide`).
enum class mul_mode : std::uint8_t { none, lo, hi, wide };
/// Atomic and reduction operations.
enum class atom_op : std::uint8_t { none, add, min, max, inc, dec, exch, cas, and_, or_, xor_ };
/// shfl.sync modes.
enum class shfl_mode : std::uint8_t { none, up, down, bfly, idx };
/// vote.sync modes.
enum class vote_mode : std::uint8_t { none, all, any, uni, ballot };
/// prmt modes (`.f4e .b4e .rc8 .ecl .ecr .rc16`; none: the generic byte-selector form).
enum class prmt_mode : std::uint8_t { none, f4e, b4e, rc8, ecl, ecr, rc16 };
/// Memory-ordering semantics of ld / st / atom / red / fence (recorded, executed in order).
enum class order : std::uint8_t { none, weak, relaxed, acquire, release, acq_rel, sc, volatile_ };
/// Scope of a memory-ordering qualifier.
enum class scope : std::uint8_t { none, cta, gpu, sys };
/// Geometry of a texture fetch (`tex.1d`, `tex.2d`).
enum class tex_geom : std::uint8_t { none, d1, d2 };
/// What testp tests (`.finite .infinite .number .notanumber .normal .subnormal`).
enum class test_op : std::uint8_t { none, finite, infinite, number, notanumber, normal, subnormal };
/// Special registers (`%tid.x` is sreg::tid with dim 0).
enum class sreg : std::uint8_t {
    tid,
    ntid,
    ctaid,
    nctaid,
    laneid,
    warpid,
    nwarpid,
    smid,
    nsmid,
    gridid,
    clock,
    clock64,
    lanemask_eq,
    lanemask_le,
    lanemask_lt,
    lanemask_ge,
    lanemask_gt,
};

/// Matrix shapes of the matrix instructions (m x n x k: A is m x k, B k x n, C and D m x n).
enum class matrix_shape : std::uint8_t { none, m16n16k16, m16n8k8, m16n8k16 };
/// The matrix a wmma.load / wmma.store moves (`.a .b .c .d`).
enum class matrix_role : std::uint8_t { none, a, b, c, d };
/// How a matrix lies in memory (wmma) or which layout an operand has (mma: `.row.col`).
enum class matrix_layout : std::uint8_t { none, row, col };
/// Element formats of matrix fragments (`.bf16` exists only here, not among the types).
enum class matrix_format : std::uint8_t { none, f16, bf16, f32 };

/// The modifiers of a matrix instruction: its shape, the matrix it moves (wmma.load /
/// wmma.store), the layouts (wmma.load / wmma.store: `layout_a` is the memory layout; wmma.mma
/// and mma: the layouts of A and B) and the element formats of A and B (`ab`), C and D.
struct matrix_form {
    matrix_shape shape = matrix_shape::none;
    matrix_role role = matrix_role::none;
    matrix_layout layout_a = matrix_layout::none;
    matrix_layout layout_b = matrix_layout::none;
    matrix_format ab = matrix_format::none;
    matrix_format c = matrix_format::none;
    matrix_format d = matrix_format::none;
    friend bool operator==(const matrix_form&, const matrix_form&) = default;
};

/// Which table a symbol operand names.
enum class symbol_kind : std::uint8_t {
    module_var,   ///< module::variables
    function_var, ///< function::variables (.shared / .local / .param declared in a body)
    param,        ///< function::params (kernel or device-function parameter)
    result,       ///< function::results (a device function's return parameters)
    function,     ///< module::functions
};

/// Kinds of immediate values.
enum class imm_kind : std::uint8_t {
    integer, ///< `bits` holds the two's-complement value
    f32,     ///< `bits` holds IEEE-754 single bits (`0fXXXXXXXX`)
    f64,     ///< `bits` holds IEEE-754 double bits (`0d...` or a decimal literal)
};

/// No register / index.
inline constexpr std::uint32_t no_index = 0xffffffffU;
/// The most registers a vector operand holds: 4 for ld / st / mov / tex, 8 for the fragments
/// of the matrix instructions.
inline constexpr std::size_t max_vector_elements = 8;

/// One operand as written.
struct operand {
    enum class kind : std::uint8_t {
        none,
        reg,    ///< register `reg` (a `!` prefix on a predicate sets `negate`)
        imm,    ///< immediate `bits` of `immediate`
        sreg,   ///< special register `special`, component `dim` (0..2; 0 for scalars)
        symbol, ///< address of a variable / parameter, or a function (`symbol_of`, `index`)
        label,  ///< branch target: `index` is the instruction index in the function's code
        memory, ///< `[base + offset]`: base is `reg`, or a symbol (`symbol_of`, `index`), or none
        vector, ///< `{a, b, ...}`: `elements` register indices (no_index for `_`)
        sink,   ///< `_`: a result nobody reads
    };
    kind k = kind::none;
    bool negate = false;
    std::uint32_t reg = no_index;
    std::uint64_t bits = 0;
    imm_kind immediate = imm_kind::integer;
    sreg special = sreg::tid;
    std::uint8_t dim = 0;
    symbol_kind symbol_of = symbol_kind::module_var;
    std::uint32_t index = no_index;
    std::int64_t offset = 0;
    std::uint8_t count = 0; ///< vector elements
    std::array<std::uint32_t, max_vector_elements> elements{no_index, no_index, no_index, no_index,
                                                            no_index, no_index, no_index, no_index};
    friend bool operator==(const operand&, const operand&) = default;
};

/// One PTX instruction: opcode, modifiers, guard, operands in the order written
/// (destinations first), and where it came from.
struct instruction {
    op opcode = op::mov;
    type t = type::none;  ///< the instruction type (cvt/set: destination type)
    type t2 = type::none; ///< cvt/set: source type; slct: the selector type
    space sp = space::none;
    rounding rnd = rounding::none;
    cmp compare = cmp::none;
    bool_op combine = bool_op::none;
    mul_mode mode = mul_mode::none;
    atom_op aop = atom_op::none;
    shfl_mode shfl = shfl_mode::none;
    vote_mode vote = vote_mode::none;
    order sem = order::none;
    scope sc = scope::none;
    std::uint8_t vec = 1; ///< .v2 / .v4
    bool ftz = false;
    bool sat = false;
    bool approx = false;
    bool full = false;       ///< div.full
    bool uni = false;        ///< bra.uni / call.uni
    bool nc = false;         ///< ld.global.nc
    bool to = false;         ///< cvta.to.<space> (generic -> space) rather than space -> generic
    bool cc = false;         ///< add.cc / sub.cc / mad.cc: writes the carry flag
    bool shift_left = false; ///< shf.l (else shf.r)
    bool wrap = false;       ///< shf.wrap (else clamp)
    bool arrive = false;     ///< bar.arrive (else bar.sync / bar.red)
    prmt_mode perm = prmt_mode::none; ///< prmt: the mode (none: the byte-selector form)
    bool warp = false;                ///< bar.warp.sync (operand: the member mask)
    bool shiftamt = false;        ///< bfind.shiftamt: the shift amount instead of the bit position
    test_op test = test_op::none; ///< testp: the property tested
    tex_geom geom = tex_geom::none; ///< tex: the geometry (operands: {d}, handle, {coords})
    matrix_form matrix{};           ///< the matrix instructions' shape, layouts and formats
    std::uint32_t guard = no_index; ///< guard predicate register (`@p`), no_index when none
    bool guard_negated = false;     ///< `@!p`
    std::uint8_t num_operands = 0;
    std::array<operand, 6> operands{};
    /// call: the argument and result operands (symbols of `.param` variables or registers).
    std::vector<operand> call_args{};
    std::vector<operand> call_results{};
    source_pos pos{};
    friend bool operator==(const instruction&, const instruction&) = default;
};

/// A `.reg` declaration: one virtual register.
struct register_decl {
    std::string name;
    type t = type::b32;
    std::uint32_t block = 0; ///< the `{ }` scope that declares it (function::blocks)
    friend bool operator==(const register_decl&, const register_decl&) = default;
};

/// A variable in an addressable state space (.global .const .shared .local .param).
struct variable {
    std::string name;
    space sp = space::global;
    type t = type::b8;              ///< element type
    std::uint32_t align = 1;        ///< bytes
    std::uint64_t bytes = 0;        ///< total size (elements x element size x vector width)
    bool is_extern = false;         ///< `.extern .shared` (dynamic shared memory; bytes 0)
    std::vector<std::uint8_t> init; ///< initialiser bytes (little-endian), empty when none
    std::uint32_t block = 0;        ///< function variables: the declaring `{ }` scope
    source_pos pos;
    friend bool operator==(const variable&, const variable&) = default;
};

/// A kernel or device-function parameter (`.param .u64 name`, `.param .align 4 .b8 a[16]`).
struct param {
    std::string name;
    type t = type::b32;
    std::uint32_t align = 1;
    std::uint32_t bytes = 0;
    std::uint32_t offset = 0; ///< byte offset in the function's parameter space
    source_pos pos;
    friend bool operator==(const param&, const param&) = default;
};

/// A label: its name and the index of the instruction it precedes.
struct label {
    std::string name;
    std::uint32_t index = 0;
    friend bool operator==(const label&, const label&) = default;
};

/// A `{ }` scope of a function body. Block 0 is the body itself; call sequences open nested
/// blocks that declare their own `.param` / `.reg` (names may repeat in sibling blocks).
struct block {
    std::uint32_t parent = 0; ///< the enclosing block (block 0: itself)
    std::uint32_t begin = 0;  ///< index of the first instruction inside
    std::uint32_t end = 0;    ///< one past the last instruction inside
    friend bool operator==(const block&, const block&) = default;
};

/// A `.entry` kernel or a `.func` device function.
struct function {
    std::string name;
    bool entry = false;
    bool is_extern = false; ///< a declaration without a body (`.extern .func`)
    std::vector<param> params;
    std::vector<param> results;
    std::vector<register_decl> registers;
    std::vector<variable> variables;
    std::vector<instruction> code;
    std::vector<label> labels;
    std::vector<block> blocks;              ///< block 0 is the body (empty for a declaration)
    std::array<std::uint32_t, 3> maxntid{}; ///< 0: not given
    std::array<std::uint32_t, 3> reqntid{}; ///< 0: not given
    std::uint32_t minnctapersm = 0;
    std::uint32_t maxnreg = 0;
    bool noreturn = false; ///< `.noreturn`
    source_pos pos;
    friend bool operator==(const function&, const function&) = default;

    /// Bytes of the parameter space.
    [[nodiscard]] std::uint32_t param_bytes() const noexcept {
        std::uint32_t end = 0;
        for (const auto& p : params)
            end = p.offset + p.bytes > end ? p.offset + p.bytes : end;
        return end;
    }
};

/// A parsed PTX file.
struct module {
    std::string file; ///< name used in messages
    std::uint32_t version_major = 0;
    std::uint32_t version_minor = 0;
    std::string target;
    std::uint32_t address_size = 64;
    std::vector<variable> variables; ///< module-scope .global / .const / .shared
    std::vector<function> functions;
    friend bool operator==(const module&, const module&) = default;

    /// The function `name` names: its exact (mangled) name, else its demangled signature
    /// (`void ns::scale<float>(float*, int)` or without the return type), its qualified name
    /// with template arguments (`ns::scale<float>`) or without (`ns::scale`), or the base
    /// name of a `_Z<len><name>` mangling (`vecAdd` for `_Z6vecAddPfS_i`), tried in that
    /// order; nullptr when none matches or a form matches several functions.
    [[nodiscard]] const function* find(std::string_view name) const {
        for (const auto& f : functions)
            if (f.name == name) return &f;
        std::vector<std::array<std::string, 4>> forms;
        forms.reserve(functions.size());
        for (const auto& f : functions) {
            const std::string full = demangle(f.name);
            const std::string qualified = callable_name(full);
            forms.push_back({full, signature_without_return(full), qualified,
                             without_template_args(qualified)});
        }
        for (std::size_t form = 0; form <= 4; ++form) { // the four demangled forms, then base
            const function* found = nullptr;
            for (std::size_t i = 0; i < functions.size(); ++i) {
                const bool match = form < 4 ? !forms[i][form].empty() && forms[i][form] == name
                                            : base_name(functions[i].name) == name;
                if (!match) continue;
                if (found != nullptr) return nullptr;
                found = &functions[i];
            }
            if (found != nullptr) return found;
        }
        return nullptr;
    }

    /// The demangled form of an Itanium-mangled name (`_ZN2ns5scaleIfEEvPT_i` gives
    /// `void ns::scale<float>(float*, int)`); empty when `name` is not mangled.
    [[nodiscard]] static std::string demangle(std::string_view name) {
        if (name.size() < 3 || name[0] != '_' || name[1] != 'Z') return {};
        const std::string z(name);
        int status = 0;
        char* out = abi::__cxa_demangle(z.c_str(), nullptr, nullptr, &status);
        std::string r = status == 0 && out != nullptr ? std::string(out) : std::string();
        std::free(out); // NOLINT(cppcoreguidelines-no-malloc): __cxa_demangle's buffer
        return r;
    }
    /// A demangled signature without its leading return type (function templates carry
    /// one): `void ns::f<int>(int*)` gives `ns::f<int>(int*)`.
    [[nodiscard]] static std::string signature_without_return(const std::string& sig) {
        const std::size_t open = params_start(sig);
        const std::size_t space = last_top_level_space(sig, open);
        return space == std::string::npos ? sig : sig.substr(space + 1);
    }
    /// A demangled signature's qualified name: `void ns::f<int>(int*)` gives `ns::f<int>`.
    [[nodiscard]] static std::string callable_name(const std::string& sig) {
        const std::string s = signature_without_return(sig);
        const std::size_t open = params_start(s);
        return open == std::string::npos ? s : s.substr(0, open);
    }
    /// `ns::f<int>` without template argument lists: `ns::f`.
    [[nodiscard]] static std::string without_template_args(const std::string& n) {
        std::string out;
        int depth = 0;
        for (const char c : n) {
            if (c == '<') ++depth;
            if (depth == 0) out += c;
            if (c == '>' && depth > 0) --depth;
        }
        return out;
    }

    /// The source-level name of an Itanium-mangled function name (`_Z<len><name>...`), or
    /// the name itself.
    [[nodiscard]] static std::string_view base_name(std::string_view mangled) noexcept {
        if (mangled.size() < 3 || mangled[0] != '_' || mangled[1] != 'Z') return mangled;
        std::size_t i = 2, len = 0;
        while (i < mangled.size() && mangled[i] >= '0' && mangled[i] <= '9')
            len = len * 10 + static_cast<std::size_t>(mangled[i++] - '0');
        if (len == 0 || i + len > mangled.size()) return mangled;
        return mangled.substr(i, len);
    }

private:
    // Where the parameter list of a demangled signature opens (its last top-level '(').
    [[nodiscard]] static std::size_t params_start(const std::string& sig) noexcept {
        if (sig.empty() || sig.back() != ')') return std::string::npos;
        int depth = 0;
        for (std::size_t i = sig.size(); i-- > 0;) {
            if (sig[i] == ')') ++depth;
            if (sig[i] == '(' && --depth == 0) return i;
        }
        return std::string::npos;
    }
    // The last space before `end` outside template argument lists and parentheses.
    [[nodiscard]] static std::size_t last_top_level_space(const std::string& sig,
                                                          std::size_t end) noexcept {
        std::size_t found = std::string::npos;
        int depth = 0;
        for (std::size_t i = 0; i < sig.size() && i < end; ++i) {
            const char c = sig[i];
            if (c == '<' || c == '(') ++depth;
            if ((c == '>' || c == ')') && depth > 0) --depth;
            if (c == ' ' && depth == 0) found = i;
        }
        return found;
    }
};

} // namespace warpkit::ptx
