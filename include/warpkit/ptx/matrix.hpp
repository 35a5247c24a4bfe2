#pragma once
/// \file
/// Semantics of the warp-level matrix instructions: which matrix element each register of
/// each lane's fragment holds, where wmma.load / wmma.store find an element in memory, and
/// the multiply-accumulate D = A x B + C of wmma.mma and mma.sync, for the whole warp at once.
///
/// Supported forms (the parser refuses the others): wmma with .m16n16k16, .f16 A and B, .f16
/// or .f32 C and D (each either); mma.sync .m16n8k8 and .m16n8k16, `.row.col`, with .f16 A
/// and B and C and D both .f16 or both .f32, or .bf16 A and B with .f32 C and D.
///
/// Fragment layouts. mma.sync's are the PTX ISA's, lane by lane: with g = lane / 4 and
/// t = lane % 4, element e of A lies at row g + 8 * ((e / 2) % 2), column 2t + e % 2 +
/// 8 * (e / 4); of B at row 2t + e % 2 + 8 * (e / 2), column g; of C and D at row
/// g + 8 * (e / 2), column 2t + e % 2 (elements counted in register order, the lower half of
/// a register first). wmma's layout is implementation-defined in the ISA; here lane l's A or
/// B fragment (16 elements in 8 registers) holds instance l % 16 of the leading dimension of
/// the layout it was loaded with (the row for `.row`, the column for `.col`; lanes 16..31 hold
/// copies), so wmma.mma reads A and B by its `.alayout` / `.blayout`, which the ISA requires to
/// match the loads'. Lane l's C or D fragment (8 elements) holds row l / 2, columns
/// 8 * (l % 2) ... + 7, whatever the memory layout (the accumulators have no layout).
///
/// Arithmetic: f16 and bf16 inputs convert to f32 exactly, so every product is exact in f32;
/// each element of D starts from C (converted to f32) and adds the k products in order of k,
/// each addition rounded to nearest f32 (a product being exact, a fused multiply-add gives the
/// same sum); an f16 D rounds the f32 sum to nearest once at the end.

#include <warpkit/ptx/float_ops.hpp>
#include <warpkit/ptx/ir.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::ptx {

/// The extent of a matrix shape.
struct matrix_dims {
    unsigned m = 0;
    unsigned n = 0;
    unsigned k = 0;
};
/// m, n and k of `s`.
[[nodiscard]] constexpr matrix_dims dims_of(matrix_shape s) noexcept {
    switch (s) {
    case matrix_shape::m16n16k16:
        return {16, 16, 16};
    case matrix_shape::m16n8k8:
        return {16, 8, 8};
    case matrix_shape::m16n8k16:
        return {16, 8, 16};
    default:
        return {};
    }
}

/// PTX spellings of the matrix modifiers (without the dot; empty for none).
[[nodiscard]] constexpr std::string_view name(matrix_shape s) noexcept {
    constexpr std::array<std::string_view, 4> names{"", "m16n16k16", "m16n8k8", "m16n8k16"};
    return names[static_cast<std::size_t>(s) % names.size()];
}
[[nodiscard]] constexpr std::string_view name(matrix_role r) noexcept {
    constexpr std::array<std::string_view, 5> names{"", "a", "b", "c", "d"};
    return names[static_cast<std::size_t>(r) % names.size()];
}
[[nodiscard]] constexpr std::string_view name(matrix_layout l) noexcept {
    constexpr std::array<std::string_view, 3> names{"", "row", "col"};
    return names[static_cast<std::size_t>(l) % names.size()];
}
[[nodiscard]] constexpr std::string_view name(matrix_format f) noexcept {
    constexpr std::array<std::string_view, 4> names{"", "f16", "bf16", "f32"};
    return names[static_cast<std::size_t>(f) % names.size()];
}

/// The element format of the fragment of matrix `r`.
[[nodiscard]] constexpr matrix_format fragment_format(const matrix_form& f,
                                                      matrix_role r) noexcept {
    switch (r) {
    case matrix_role::a:
    case matrix_role::b:
        return f.ab;
    case matrix_role::c:
        return f.c;
    default:
        return f.d;
    }
}
/// Bytes of one element of format `f`.
[[nodiscard]] constexpr unsigned element_bytes(matrix_format f) noexcept {
    return f == matrix_format::f32 ? 4U : 2U;
}
/// Elements one 32-bit fragment register holds: two halves (the first in the low bits) or one
/// f32.
[[nodiscard]] constexpr unsigned elements_per_register(matrix_format f) noexcept {
    return 4U / element_bytes(f);
}

/// The 32-bit registers of each lane's fragment of matrix `r` in instruction `o` of form `f`.
[[nodiscard]] constexpr unsigned fragment_registers(op o, const matrix_form& f,
                                                    matrix_role r) noexcept {
    const bool input = r == matrix_role::a || r == matrix_role::b;
    const matrix_dims d = dims_of(f.shape);
    const unsigned elements = o == op::mma ? (r == matrix_role::a   ? d.m * d.k / 32
                                              : r == matrix_role::b ? d.k * d.n / 32
                                                                    : d.m * d.n / 32)
                                           : (input ? 16U : 8U); // wmma: A and B twice over
    return elements / elements_per_register(fragment_format(f, r));
}

/// A matrix element's row and column.
struct matrix_position {
    unsigned row = 0;
    unsigned col = 0;
};

/// Where element `e` of lane `lane`'s fragment of matrix `r` lies (see the file comment);
/// `layout`: for wmma's A and B, the layout the fragment was loaded with.
[[nodiscard]] constexpr matrix_position fragment_position(op o, matrix_role r, matrix_layout layout,
                                                          unsigned lane, unsigned e) noexcept {
    const bool input = r == matrix_role::a || r == matrix_role::b;
    if (o != op::mma) {
        if (!input) return {lane / 2, 8 * (lane % 2) + e};
        return layout == matrix_layout::col ? matrix_position{e, lane % 16}
                                            : matrix_position{lane % 16, e};
    }
    const unsigned group = lane / 4;
    const unsigned thread = lane % 4;
    switch (r) {
    case matrix_role::a:
        return {group + 8 * ((e / 2) % 2), 2 * thread + e % 2 + 8 * (e / 4)};
    case matrix_role::b:
        return {2 * thread + e % 2 + 8 * (e / 2), group};
    default:
        return {group + 8 * (e / 2), 2 * thread + e % 2};
    }
}

/// What wmma.load / wmma.store move for each lane.
struct matrix_memory {
    matrix_role role = matrix_role::none; ///< the matrix moved
    unsigned element_bytes = 0;           ///< 2 (.f16) or 4 (.f32)
    unsigned registers = 0;               ///< fragment registers per lane
    unsigned fragment_bytes = 0;          ///< registers x 4: the ISA's alignment unit
    unsigned line_elements = 0;           ///< elements in an instance of the leading dimension
    std::uint64_t stride = 0;             ///< elements from one instance to the next
};

/// The access of wmma.load / wmma.store `in`; `stride`: the stride operand (elements), if any,
/// else the leading dimension's size (the ISA's default).
[[nodiscard]] constexpr matrix_memory matrix_memory_of(const instruction& in,
                                                       const std::uint64_t* stride) noexcept {
    const matrix_form& f = in.matrix;
    const matrix_dims d = dims_of(f.shape);
    matrix_memory mem;
    mem.role = f.role;
    mem.element_bytes = element_bytes(fragment_format(f, f.role));
    mem.registers = fragment_registers(in.opcode, f, f.role);
    mem.fragment_bytes = 4 * mem.registers;
    const unsigned rows = f.role == matrix_role::b ? d.k : d.m;
    const unsigned cols = f.role == matrix_role::a ? d.k : d.n;
    mem.line_elements = f.layout_a == matrix_layout::col ? rows : cols;
    mem.stride = stride != nullptr ? *stride : mem.line_elements;
    return mem;
}

/// Byte offset from the instruction's address of element `e` of lane `lane`'s fragment.
[[nodiscard]] constexpr std::uint64_t fragment_offset(const instruction& in,
                                                      const matrix_memory& mem, unsigned lane,
                                                      unsigned e) noexcept {
    const matrix_position at = fragment_position(in.opcode, mem.role, in.matrix.layout_a, lane, e);
    const bool col = in.matrix.layout_a == matrix_layout::col;
    const std::uint64_t line = col ? at.col : at.row;
    const std::uint64_t within = col ? at.row : at.col;
    return (line * mem.stride + within) * mem.element_bytes;
}

/// Bytes per lane the timing model sees for wmma.load / wmma.store (the coalescer's widest
/// access).
inline constexpr unsigned matrix_lane_access_bytes = 16;

/// The address offset the timing model sees for lane `lane`: the tile's footprint cut in 32
/// runs, lane l at the start of half l % 2 of leading-dimension instance l / 2. A/B and an
/// .f16 C/D are exactly 32 runs of 16 bytes; an .f32 C/D's runs are 32 bytes, of which the
/// lane names the first 16 (the same sectors). Independent of the fragment layout: the memory
/// system sees which bytes the warp moves, as a real tile load does.
[[nodiscard]] constexpr std::uint64_t matrix_timing_offset(const matrix_memory& mem,
                                                           unsigned lane) noexcept {
    return (lane / 2) * mem.stride * mem.element_bytes +
           (lane % 2) * (mem.line_elements * mem.element_bytes / 2);
}

/// An element of format `f` (its bits at the bottom of `bits`) as an f32 (exact).
[[nodiscard]] inline float matrix_element_value(matrix_format f, std::uint64_t bits) noexcept {
    switch (f) {
    case matrix_format::f16:
        return static_cast<float>(half_to_double(bits & 0xffffU));
    case matrix_format::bf16:
        return to_f32((bits & 0xffffU) << 16);
    default:
        return to_f32(bits & 0xffffffffU);
    }
}
/// An f32 result as the bits of an element of format `f` (f16: rounded to nearest; NaN
/// canonical).
[[nodiscard]] inline std::uint64_t matrix_element_bits(matrix_format f, float v) noexcept {
    if (f == matrix_format::f16) return double_to_half(static_cast<double>(v));
    return v != v ? f32_canonical_nan : bits_of(v);
}

/// The registers of the matrix instruction `in`'s fragments: `f(reg, written)` for each, the
/// registers it reads first, taking the source fragments element by element in turn (a0, b0,
/// c0, a1, ...) so that a timing model tracking only the first few still waits on each
/// fragment, then the destination fragment's.
template <class F>
void for_each_fragment_register(const instruction& in, F&& f) {
    const std::size_t first_source = in.opcode == op::wmma_store ? 0 : 1;
    std::size_t longest = 0;
    for (std::size_t i = first_source; i < in.num_operands; ++i)
        if (in.operands[i].k == operand::kind::vector && in.operands[i].count > longest)
            longest = in.operands[i].count;
    for (std::size_t e = 0; e < longest; ++e)
        for (std::size_t i = first_source; i < in.num_operands; ++i) {
            const operand& o = in.operands[i];
            if (o.k == operand::kind::vector && e < o.count && o.elements[e] != no_index)
                f(o.elements[e], false);
        }
    if (first_source == 1)
        for (std::size_t e = 0; e < in.operands[0].count; ++e)
            if (in.operands[0].elements[e] != no_index) f(in.operands[0].elements[e], true);
}

/// Executes wmma.mma / mma.sync `in` (operands {d}, {a}, {b}, {c}) for a whole warp of 32
/// lanes: `read(reg, lane)` gives a lane's register bits, `write(reg, lane, bits)` sets them.
/// Every input is gathered before any output is written, so D may reuse C's registers. Where
/// lanes hold copies of an element (wmma's A and B) the lowest lane's copy counts.
template <class Read, class Write>
void multiply_accumulate(const instruction& in, Read&& read, Write&& write) {
    constexpr unsigned lanes = 32;
    const matrix_form& f = in.matrix;
    const matrix_dims d = dims_of(f.shape);
    // Row-major copies of A (m x k), B (k x n) and C (m x n) as f32.
    std::array<std::vector<float>, 3> matrices{std::vector<float>(d.m * d.k),
                                               std::vector<float>(d.k * d.n),
                                               std::vector<float>(d.m * d.n)};
    const std::array<matrix_role, 3> roles{matrix_role::a, matrix_role::b, matrix_role::c};
    const std::array<matrix_layout, 3> layouts{f.layout_a, f.layout_b, matrix_layout::none};
    const std::array<unsigned, 3> columns{d.k, d.n, d.n};
    for (std::size_t m = 0; m < 3; ++m) {
        const matrix_format format = fragment_format(f, roles[m]);
        const unsigned per = elements_per_register(format);
        const operand& o = in.operands[m + 1];
        for (unsigned lane = lanes; lane-- > 0;)
            for (unsigned e = 0; e < o.count * per; ++e) {
                const std::uint64_t bits = read(o.elements[e / per], lane) >> (16 * (e % per));
                const matrix_position at =
                    fragment_position(in.opcode, roles[m], layouts[m], lane, e);
                matrices[m][at.row * columns[m] + at.col] = matrix_element_value(format, bits);
            }
    }
    const operand& out = in.operands[0];
    const unsigned per = elements_per_register(f.d);
    for (unsigned lane = 0; lane < lanes; ++lane)
        for (unsigned r = 0; r < out.count; ++r) {
            std::uint64_t bits = 0;
            for (unsigned h = 0; h < per; ++h) {
                const matrix_position at = fragment_position(
                    in.opcode, matrix_role::d, matrix_layout::none, lane, r * per + h);
                float sum = matrices[2][at.row * d.n + at.col];
                for (unsigned k = 0; k < d.k; ++k)
                    sum += matrices[0][at.row * d.k + k] * matrices[1][k * d.n + at.col];
                bits |= matrix_element_bits(f.d, sum) << (16 * h);
            }
            write(out.elements[r], lane, bits);
        }
}

/// The mnemonic of matrix instruction `in` with its modifiers in PTX order.
[[nodiscard]] inline std::string matrix_mnemonic(const instruction& in, std::string_view opcode) {
    const matrix_form& f = in.matrix;
    std::string s(opcode);
    const auto dot = [&s](std::string_view w) {
        if (w.empty()) return;
        s += '.';
        s += w;
    };
    if (in.opcode == op::wmma_load || in.opcode == op::wmma_store) dot(name(f.role));
    s += ".sync.aligned";
    if (in.opcode == op::mma) dot(name(f.shape));
    dot(name(f.layout_a));
    dot(name(f.layout_b));
    if (in.opcode != op::mma) dot(name(f.shape));
    switch (in.opcode) {
    case op::wmma_load:
    case op::wmma_store:
        if (in.sp == space::global || in.sp == space::shared)
            dot(in.sp == space::global ? "global" : "shared");
        dot(name(fragment_format(f, f.role)));
        break;
    case op::wmma_mma:
        dot(name(f.d));
        dot(name(f.c));
        break;
    default:
        dot(name(f.d));
        dot(name(f.ab));
        dot(name(f.ab));
        dot(name(f.c));
        break;
    }
    return s;
}

} // namespace warpkit::ptx
