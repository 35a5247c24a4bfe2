// The warp-level matrix instructions (wmma.load / wmma.store / wmma.mma, mma.sync): hand-written
// and nvcc-generated kernels run functionally and timed on fermi_gtx480, checked against a CPU
// matrix multiply of random matrices (exact where the inputs make every sum exact, within a
// rounding bound otherwise); the mma.sync fragments are packed on the host by the ISA's
// per-lane tables, written out here independently of ptx/matrix.hpp; parse errors.
#include "test_device.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/ptx/float_ops.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/matrix.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/ptx/printer.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace warpkit;

namespace {

using test_files::source_path;

// A dense row-major matrix of doubles (every value exactly an f16 / bf16 / f32).
struct matrix {
    unsigned rows = 0, cols = 0;
    std::vector<double> v;
    matrix(unsigned r, unsigned c) : rows(r), cols(c), v(std::size_t{r} * c, 0.0) {}
    double& at(unsigned r, unsigned c) { return v[std::size_t{r} * cols + c]; }
    [[nodiscard]] double at(unsigned r, unsigned c) const { return v[std::size_t{r} * cols + c]; }
};

// Random values that make every product and sum of a 16-deep dot product exact in f32 and
// in f16 (quarters from -2 to 2), or arbitrary values in [-1, 1) of `format` (`exact` false;
// "bf16": f32 values cut to their upper 16 bits, else f16).
matrix random_matrix(unsigned r, unsigned c, std::mt19937& rng, bool exact,
                     const std::string& format = "f16") {
    matrix m(r, c);
    std::uniform_int_distribution<int> quarter(-8, 8);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (auto& x : m.v) {
        const double u = unit(rng);
        if (exact)
            x = quarter(rng) / 4.0;
        else if (format == "bf16")
            x = ptx::to_f32(ptx::bits_of(static_cast<float>(u)) & 0xffff0000U);
        else
            x = ptx::half_to_double(ptx::double_to_half(u));
    }
    return m;
}

// A x B + C in double.
matrix multiply(const matrix& a, const matrix& b, const matrix& c) {
    matrix d = c;
    for (unsigned i = 0; i < a.rows; ++i)
        for (unsigned j = 0; j < b.cols; ++j)
            for (unsigned k = 0; k < a.cols; ++k)
                d.at(i, j) += a.at(i, k) * b.at(k, j);
    return d;
}
// Sum of |a_ik b_kj| + |c_ij|: the scale of the rounding error of element (i, j).
double magnitude(const matrix& a, const matrix& b, const matrix& c, unsigned i, unsigned j) {
    double s = std::fabs(c.at(i, j));
    for (unsigned k = 0; k < a.cols; ++k)
        s += std::fabs(a.at(i, k) * b.at(k, j));
    return s;
}

// Bits of x in an element format ("f16", "bf16", "f32"); x must be representable (bf16: its
// f32 bits end in 16 zeros).
std::uint32_t encode(const std::string& format, double x) {
    if (format == "f16") return static_cast<std::uint32_t>(ptx::double_to_half(x));
    const auto f = static_cast<std::uint32_t>(ptx::bits_of(static_cast<float>(x)));
    if (format == "bf16") {
        REQUIRE((f & 0xffffU) == 0);
        return f >> 16;
    }
    return f;
}
double decode(const std::string& format, std::uint32_t bits) {
    if (format == "f16") return ptx::half_to_double(bits & 0xffffU);
    return static_cast<double>(ptx::to_f32(bits));
}
unsigned element_size(const std::string& format) {
    return format == "f32" ? 4 : 2;
}

// A matrix in memory: `layout` "row" or "col", `stride` elements between rows (columns).
std::vector<std::uint8_t> store_matrix(const matrix& m, const std::string& format,
                                       const std::string& layout, unsigned stride) {
    const unsigned size = element_size(format);
    const unsigned lines = layout == "row" ? m.rows : m.cols;
    std::vector<std::uint8_t> out(std::size_t{lines} * stride * size, 0);
    for (unsigned r = 0; r < m.rows; ++r)
        for (unsigned c = 0; c < m.cols; ++c) {
            const std::size_t i =
                layout == "row" ? std::size_t{r} * stride + c : std::size_t{c} * stride + r;
            const std::uint32_t bits = encode(format, m.at(r, c));
            std::memcpy(out.data() + i * size, &bits, size);
        }
    return out;
}
matrix load_matrix(const std::vector<std::uint8_t>& raw, unsigned rows, unsigned cols,
                   const std::string& format, const std::string& layout, unsigned stride) {
    matrix m(rows, cols);
    const unsigned size = element_size(format);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) {
            const std::size_t i =
                layout == "row" ? std::size_t{r} * stride + c : std::size_t{c} * stride + r;
            std::uint32_t bits = 0;
            std::memcpy(&bits, raw.data() + i * size, size);
            m.at(r, c) = decode(format, bits);
        }
    return m;
}

// A kernel's run: functional and on fermi_gtx480, both from the same memory.
struct run_result {
    std::vector<std::uint8_t> functional;
    std::vector<std::uint8_t> timed;
    std::uint64_t cycles = 0;
    std::uint64_t warp_instructions = 0;
};

// Runs entry `entry` of `text` on `blocks` x `threads` with the buffers `inputs` (each a
// pointer parameter, in order) and one output buffer of `out_bytes` last; returns the output.
// `scalars`: 32-bit parameters after the output.
run_result run_kernel(const ptx::module& m, const std::string& entry,
                      const std::vector<std::vector<std::uint8_t>>& inputs, std::size_t out_bytes,
                      unsigned blocks, unsigned threads, const std::vector<std::uint32_t>& scalars,
                      bool timed = true) {
    const ptx::kernel k(m, entry);
    ptx_test::device dev;
    ptx::param_pack pack(k);
    for (const auto& in : inputs)
        pack.add(dev.put(in));
    const std::uint64_t out = dev.put(std::vector<std::uint8_t>(out_bytes, 0));
    pack.add(out);
    for (const std::uint32_t v : scalars)
        pack.add(v);
    const ptx::launch l(k, {blocks, 1, 1}, {threads, 1, 1}, pack.bytes());
    run_result r;
    func::global_memory functional = dev.mem;
    (void)func::run_functional(l, functional);
    r.functional = functional.read_bytes(out, out_bytes);
    if (!timed) return r;
    func::global_memory mem = dev.mem;
    gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
    const auto stats = g.run(l, mem);
    r.timed = mem.read_bytes(out, out_bytes);
    r.cycles = stats.cycles;
    r.warp_instructions = stats.total.warp_instructions;
    CHECK(stats.total.blocks_completed == blocks);
    return r;
}
run_result run_kernel(const std::string& text, const std::string& entry,
                      const std::vector<std::vector<std::uint8_t>>& inputs, std::size_t out_bytes,
                      unsigned blocks, unsigned threads, bool timed = true) {
    return run_kernel(ptx::parse_ptx(text, "matrix.ptx"), entry, inputs, out_bytes, blocks, threads,
                      {}, timed);
}

// --- wmma -----------------------------------------------------------------------------------

// What a wmma kernel does: the layouts of A, B, C (load) and D (store), the types of C and D,
// the stride of every matrix ("" for none, else an immediate or "%r" for a register), and
// whether A goes through shared memory.
struct wmma_case {
    std::string a_layout = "row", b_layout = "col", c_layout = "row", d_layout = "row";
    std::string c_type = "f32", d_type = "f32";
    unsigned stride = 16;
    std::string stride_operand; // "", "16", "%r"
    bool shared_a = false;
};

std::string fragment(const char* prefix, unsigned first, unsigned count) {
    std::string s = "{";
    for (unsigned i = 0; i < count; ++i)
        s += (i ? ", " : "") + std::string(prefix) + std::to_string(first + i);
    return s + "}";
}

// One warp per tile: tile t of each matrix at t x (16 x stride) elements.
std::string wmma_kernel(const wmma_case& c) {
    const std::string stride = c.stride_operand.empty()   ? ""
                               : c.stride_operand == "%r" ? ", %r4"
                                                          : ", " + c.stride_operand;
    const auto accumulator = [](const std::string& type, unsigned first) {
        return type == "f32" ? fragment("%f", first, 8) : fragment("%r", 20 + first, 4);
    };
    const auto tile_bytes = [&](const std::string& type) {
        return std::to_string(16 * c.stride * element_size(type));
    };
    std::string s = ".version 9.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry wmma_tile(.param .u64 pa, .param .u64 pb, .param .u64 pc, "
                    ".param .u64 pd)\n{\n"
                    ".reg .b32 %r<48>; .reg .f32 %f<20>; .reg .b64 %rd<20>;\n";
    if (c.shared_a) s += ".shared .align 32 .b8 tile_a[512];\n";
    s += "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; "
         "ld.param.u64 %rd4, [pd];\n"
         "mov.u32 %r1, %tid.x; shr.u32 %r1, %r1, 5; mov.u32 %r2, %ctaid.x; "
         "mov.u32 %r3, %ntid.x; shr.u32 %r3, %r3, 5; mad.lo.s32 %r1, %r2, %r3, %r1;\n"
         "mov.u32 %r4, " +
         std::to_string(c.stride) +
         ";\n"
         "mul.wide.u32 %rd5, %r1, " +
         tile_bytes("f16") +
         "; add.s64 %rd6, %rd1, %rd5; "
         "add.s64 %rd7, %rd2, %rd5;\n"
         "mul.wide.u32 %rd8, %r1, " +
         tile_bytes(c.c_type) +
         "; add.s64 %rd9, %rd3, %rd8;\n"
         "mul.wide.u32 %rd10, %r1, " +
         tile_bytes(c.d_type) + "; add.s64 %rd11, %rd4, %rd10;\n";
    if (c.shared_a) { // the warp copies its A tile (16 x 16 halves, unit stride) to shared
        s += "mov.u32 %r5, %tid.x; and.b32 %r5, %r5, 31; mul.wide.u32 %rd12, %r5, 16;\n"
             "add.s64 %rd13, %rd6, %rd12; ld.global.v4.b32 {%r6, %r7, %r8, %r9}, [%rd13];\n"
             "cvt.u32.u64 %r10, %rd12; mov.u32 %r11, tile_a; add.s32 %r11, %r11, %r10;\n"
             "st.shared.v4.b32 [%r11], {%r6, %r7, %r8, %r9};\nbar.sync 0;\n"
             "mov.u32 %r11, tile_a;\n"
             "wmma.load.a.sync.aligned." +
             c.a_layout + ".m16n16k16.shared.f16 " + fragment("%r", 30, 8) + ", [%r11]" + stride +
             ";\n";
    } else {
        s += "wmma.load.a.sync.aligned." + c.a_layout + ".m16n16k16.global.f16 " +
             fragment("%r", 30, 8) + ", [%rd6]" + stride + ";\n";
    }
    s += "wmma.load.b.sync.aligned." + c.b_layout + ".m16n16k16.f16 " + fragment("%r", 38, 8) +
         ", [%rd7]" + stride + ";\n";
    s += "wmma.load.c.sync.aligned." + c.c_layout + ".m16n16k16.global." + c.c_type + " " +
         accumulator(c.c_type, 0) + ", [%rd9]" + stride + ";\n";
    s += "wmma.mma.sync.aligned." + c.a_layout + "." + c.b_layout + ".m16n16k16." + c.d_type + "." +
         c.c_type + " " + accumulator(c.d_type, c.d_type == c.c_type ? 8 : 0) + ", " +
         fragment("%r", 30, 8) + ", " + fragment("%r", 38, 8) + ", " + accumulator(c.c_type, 0) +
         ";\n";
    s += "wmma.store.d.sync.aligned." + c.d_layout + ".m16n16k16.global." + c.d_type +
         " [%rd11], " + accumulator(c.d_type, c.d_type == c.c_type ? 8 : 0) + stride + ";\n";
    return s + "ret;\n}\n";
}

// Runs `c` on `tiles` tiles (`blocks` blocks of `tiles / blocks` warps) and checks every
// element of D against the CPU product; returns the run.
run_result check_wmma(const wmma_case& c, unsigned tiles, unsigned blocks, bool exact,
                      std::mt19937& rng, bool timed = true) {
    CAPTURE(wmma_kernel(c));
    std::vector<matrix> a, b, cm;
    std::vector<std::uint8_t> ra, rb, rc;
    for (unsigned t = 0; t < tiles; ++t) {
        a.push_back(random_matrix(16, 16, rng, exact));
        b.push_back(random_matrix(16, 16, rng, exact));
        cm.push_back(random_matrix(16, 16, rng, exact));
        // A through shared memory is read with unit stride (the copy packs it).
        const auto pa = store_matrix(a.back(), "f16", c.a_layout, c.shared_a ? 16 : c.stride);
        const auto pb = store_matrix(b.back(), "f16", c.b_layout, c.stride);
        const auto pc = store_matrix(cm.back(), c.c_type, c.c_layout, c.stride);
        ra.insert(ra.end(), pa.begin(), pa.end());
        rb.insert(rb.end(), pb.begin(), pb.end());
        rc.insert(rc.end(), pc.begin(), pc.end());
    }
    const std::size_t d_tile = std::size_t{16} * c.stride * element_size(c.d_type);
    const run_result r = run_kernel(wmma_kernel(c), "wmma_tile", {ra, rb, rc}, d_tile * tiles,
                                    blocks, 32 * tiles / blocks, timed);
    if (timed) CHECK(r.timed == r.functional);
    for (unsigned t = 0; t < tiles; ++t) {
        const std::vector<std::uint8_t> raw(r.functional.begin() + static_cast<long>(t * d_tile),
                                            r.functional.begin() +
                                                static_cast<long>((t + 1) * d_tile));
        const matrix got = load_matrix(raw, 16, 16, c.d_type, c.d_layout, c.stride);
        const matrix want = multiply(a[t], b[t], cm[t]);
        for (unsigned i = 0; i < 16; ++i)
            for (unsigned j = 0; j < 16; ++j) {
                CAPTURE(t);
                CAPTURE(i);
                CAPTURE(j);
                if (exact) {
                    CHECK(got.at(i, j) == want.at(i, j));
                } else {
                    // 16 f32 additions, then (f16 D) one rounding to half precision.
                    const double bound =
                        17 * std::ldexp(magnitude(a[t], b[t], cm[t], i, j), -24) +
                        (c.d_type == "f16" ? std::ldexp(std::fabs(want.at(i, j)), -11) : 0.0);
                    CHECK(std::fabs(got.at(i, j) - want.at(i, j)) <= bound);
                }
            }
    }
    return r;
}

// --- mma.sync --------------------------------------------------------------------------------

// An mma.sync form: shape "m16n8k8" / "m16n8k16", input type, C and D types.
struct mma_case {
    std::string shape = "m16n8k16", input = "f16", c_type = "f32", d_type = "f32";
    [[nodiscard]] unsigned k() const { return shape == "m16n8k8" ? 8 : 16; }
    [[nodiscard]] unsigned a_registers() const { return k() == 8 ? 2 : 4; }
    [[nodiscard]] unsigned b_registers() const { return k() == 8 ? 1 : 2; }
    [[nodiscard]] static unsigned registers(const std::string& type) {
        return type == "f32" ? 4 : 2;
    }
};

// The PTX ISA's fragment tables ("Matrix Fragments for mma.m16n8k8 / mma.m16n8k16"), as
// written there: element i of lane `lane` (groupID = lane >> 2, threadID_in_group = lane % 4).
struct position {
    unsigned row, col;
};
position isa_a(unsigned k, unsigned lane, unsigned i) {
    const unsigned group = lane >> 2, tig = lane % 4;
    if (k == 8) return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};
    const unsigned row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
    const unsigned col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
    return {row, col};
}
position isa_b(unsigned k, unsigned lane, unsigned i) {
    const unsigned group = lane >> 2, tig = lane % 4;
    if (k == 8) return {tig * 2 + i, group};
    return {i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8, group};
}
position isa_c(unsigned lane, unsigned i) {
    const unsigned group = lane >> 2, tig = lane % 4;
    return {i < 2 ? group : group + 8, tig * 2 + (i & 1)};
}

// Each lane's fragment registers, lane after lane: element i of `elements` per lane packed
// in registers of 32 bits (two 16-bit elements per register, the first low).
template <class Position>
std::vector<std::uint8_t> pack_fragments(const matrix& m, const std::string& format,
                                         unsigned elements, Position where) {
    const unsigned per = format == "f32" ? 1 : 2;
    std::vector<std::uint32_t> regs(32 * elements / per, 0);
    for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned i = 0; i < elements; ++i) {
            const position p = where(lane, i);
            regs[lane * (elements / per) + i / per] |= encode(format, m.at(p.row, p.col))
                                                       << (16 * (i % per));
        }
    std::vector<std::uint8_t> raw(regs.size() * 4);
    std::memcpy(raw.data(), regs.data(), raw.size());
    return raw;
}

std::string vector_load(const std::string& dst, unsigned n, const std::string& addr) {
    // A one-register fragment `{%rN}` loads as a scalar.
    return n == 1 ? "ld.global.b32 " + dst.substr(1, dst.size() - 2) + ", [" + addr + "];\n"
                  : "ld.global.v" + std::to_string(n) + ".b32 " + dst + ", [" + addr + "];\n";
}

// One warp: each lane loads its fragments (packed by the host), runs one mma.sync and stores
// its D fragment.
std::string mma_kernel(const mma_case& c) {
    const unsigned na = c.a_registers(), nb = c.b_registers();
    const unsigned nc = mma_case::registers(c.c_type), nd = mma_case::registers(c.d_type);
    const auto regs = [](unsigned first, unsigned n) { return fragment("%r", first, n); };
    std::string s = ".version 9.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry mma_tile(.param .u64 pa, .param .u64 pb, .param .u64 pc, "
                    ".param .u64 pd)\n{\n"
                    ".reg .b32 %r<48>; .reg .b64 %rd<20>;\n"
                    "ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; "
                    "ld.param.u64 %rd4, [pd];\nmov.u32 %r1, %tid.x;\n";
    s += "mul.wide.u32 %rd5, %r1, " + std::to_string(4 * na) + "; add.s64 %rd5, %rd1, %rd5;\n" +
         vector_load(regs(10, na), na, "%rd5");
    s += "mul.wide.u32 %rd6, %r1, " + std::to_string(4 * nb) + "; add.s64 %rd6, %rd2, %rd6;\n" +
         vector_load(regs(14, nb), nb, "%rd6");
    s += "mul.wide.u32 %rd7, %r1, " + std::to_string(4 * nc) + "; add.s64 %rd7, %rd3, %rd7;\n" +
         vector_load(regs(20, nc), nc, "%rd7");
    s += "mma.sync.aligned." + c.shape + ".row.col." + c.d_type + "." + c.input + "." + c.input +
         "." + c.c_type + " " + regs(30, nd) + ", " + regs(10, na) + ", " + regs(14, nb) + ", " +
         regs(20, nc) + ";\n";
    s += "mul.wide.u32 %rd8, %r1, " + std::to_string(4 * nd) + "; add.s64 %rd8, %rd4, %rd8;\n" +
         "st.global.v" + std::to_string(nd) + ".b32 [%rd8], " + regs(30, nd) + ";\n";
    return s + "ret;\n}\n";
}

run_result check_mma(const mma_case& c, bool exact, std::mt19937& rng) {
    CAPTURE(mma_kernel(c));
    const unsigned k = c.k();
    const matrix a = random_matrix(16, k, rng, exact, c.input);
    const matrix b = random_matrix(k, 8, rng, exact, c.input);
    const matrix cm = random_matrix(16, 8, rng, exact);
    const auto ra = pack_fragments(a, c.input, 2 * c.a_registers(),
                                   [&](unsigned lane, unsigned i) { return isa_a(k, lane, i); });
    const auto rb = pack_fragments(b, c.input, 2 * c.b_registers(),
                                   [&](unsigned lane, unsigned i) { return isa_b(k, lane, i); });
    const auto rc = pack_fragments(cm, c.c_type, 4, isa_c);
    const unsigned d_regs = mma_case::registers(c.d_type);
    const run_result r =
        run_kernel(mma_kernel(c), "mma_tile", {ra, rb, rc}, 32 * 4 * d_regs, 1, 32);
    CHECK(r.timed == r.functional);
    const matrix want = multiply(a, b, cm);
    const unsigned per = c.d_type == "f32" ? 1 : 2;
    for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned i = 0; i < 4; ++i) {
            std::uint32_t reg = 0;
            std::memcpy(&reg, r.functional.data() + 4 * (lane * d_regs + i / per), 4);
            const position p = isa_c(lane, i);
            const double got = decode(c.d_type, reg >> (16 * (i % per)));
            CAPTURE(lane);
            CAPTURE(i);
            if (exact) {
                CHECK(got == want.at(p.row, p.col));
            } else {
                const double bound =
                    (k + 1) * std::ldexp(magnitude(a, b, cm, p.row, p.col), -24) +
                    (c.d_type == "f16" ? std::ldexp(std::fabs(want.at(p.row, p.col)), -11) : 0.0);
                CHECK(std::fabs(got - want.at(p.row, p.col)) <= bound);
            }
        }
    return r;
}

} // namespace

TEST_CASE("wmma: a 16x16x16 GEMM for every layout and accumulator type, exact") {
    std::mt19937 rng(1);
    for (const char* al : {"row", "col"})
        for (const char* bl : {"row", "col"})
            for (const char* cl : {"row", "col"})
                for (const char* ct : {"f32", "f16"})
                    for (const char* dt : {"f32", "f16"}) {
                        wmma_case c;
                        c.a_layout = al;
                        c.b_layout = bl;
                        c.c_layout = cl;
                        c.d_layout = cl == std::string("row") ? "col" : "row";
                        c.c_type = ct;
                        c.d_type = dt;
                        check_wmma(c, 2, 1, true, rng, false);
                    }
}

TEST_CASE("wmma: strides (none, immediate, register, wider than the tile), shared memory, "
          "functional equals timed on fermi_gtx480") {
    std::mt19937 rng(2);
    wmma_case c;
    for (const char* operand : {"", "16", "%r"}) {
        c.stride_operand = operand;
        const run_result r = check_wmma(c, 4, 2, true, rng);
        CHECK(r.cycles > 0);
        CHECK(r.warp_instructions == 4 * 24);
    }
    c.stride = 48;
    c.stride_operand = "%r";
    c.a_layout = "col";
    c.c_layout = "col";
    (void)check_wmma(c, 4, 2, true, rng);
    wmma_case s;
    s.shared_a = true;
    s.stride_operand = "16";
    (void)check_wmma(s, 2, 2, true, rng);
    s.a_layout = "col";
    (void)check_wmma(s, 2, 2, true, rng);
}

TEST_CASE("wmma: arbitrary f16 inputs within the f32 accumulation bound") {
    std::mt19937 rng(3);
    wmma_case c;
    (void)check_wmma(c, 4, 2, false, rng);
    c.d_type = "f16";
    c.c_type = "f16";
    (void)check_wmma(c, 2, 1, false, rng);
}

TEST_CASE("mma.sync: m16n8k8 and m16n8k16 tiles with the ISA's fragment layouts") {
    std::mt19937 rng(4);
    const mma_case cases[] = {
        {"m16n8k8", "f16", "f32", "f32"},  {"m16n8k8", "bf16", "f32", "f32"},
        {"m16n8k16", "f16", "f32", "f32"}, {"m16n8k16", "bf16", "f32", "f32"},
        {"m16n8k16", "f16", "f16", "f16"}, {"m16n8k8", "f16", "f16", "f16"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.shape);
        CAPTURE(c.input);
        const run_result r = check_mma(c, true, rng);
        CHECK(r.cycles > 0);
        (void)check_mma(c, false, rng);
    }
}

TEST_CASE("wmma: the kernel nvcc compiles from nvcuda::wmma runs and matches the CPU") {
    // tests/ptx/data/wmma_gemm.cu: A row-major, B column-major, C and D row-major f32; one
    // warp per tile, the last block's second warp past the 5 tiles leaves at once.
    const ptx::module m = ptx::read_ptx(source_path("tests/ptx/data/wmma_gemm.ptx"));
    std::mt19937 rng(5);
    constexpr unsigned tiles = 5;
    std::vector<matrix> a, b, c;
    std::vector<std::uint8_t> ra, rb, rc;
    for (unsigned t = 0; t < tiles; ++t) {
        a.push_back(random_matrix(16, 16, rng, true));
        b.push_back(random_matrix(16, 16, rng, true));
        c.push_back(random_matrix(16, 16, rng, true));
        for (auto [raw, bytes] : {std::pair{&ra, store_matrix(a.back(), "f16", "row", 16)},
                                  std::pair{&rb, store_matrix(b.back(), "f16", "col", 16)},
                                  std::pair{&rc, store_matrix(c.back(), "f32", "row", 16)}})
            raw->insert(raw->end(), bytes.begin(), bytes.end());
    }
    const run_result r = run_kernel(m, "wmma_gemm", {ra, rb, rc}, tiles * 1024, 3, 64, {tiles});
    CHECK(r.timed == r.functional);
    CHECK(r.cycles > 0);
    for (unsigned t = 0; t < tiles; ++t) {
        const std::vector<std::uint8_t> raw(r.functional.begin() + t * 1024,
                                            r.functional.begin() + (t + 1) * 1024);
        CHECK(load_matrix(raw, 16, 16, "f32", "row", 16).v == multiply(a[t], b[t], c[t]).v);
    }
}

TEST_CASE("wmma: volta_qv100's tensor units run wmma.mma; the GTX480 runs it on its FP pipes") {
    // The nvcc kernel of the test above: 5 tiles, one wmma.mma each (K = 16 is one step).
    const ptx::module m = ptx::read_ptx(source_path("tests/ptx/data/wmma_gemm.ptx"));
    const ptx::kernel k(m, "wmma_gemm");
    std::mt19937 rng(7);
    constexpr unsigned tiles = 5;
    ptx_test::device dev;
    ptx::param_pack pack(k);
    for (const auto& [rows, layout, type] :
         {std::tuple{16U, "row", "f16"}, {16U, "col", "f16"}, {16U, "row", "f32"}}) {
        std::vector<std::uint8_t> raw;
        for (unsigned t = 0; t < tiles; ++t) {
            const auto bytes = store_matrix(random_matrix(rows, 16, rng, true), type, layout, 16);
            raw.insert(raw.end(), bytes.begin(), bytes.end());
        }
        pack.add(dev.put(raw));
    }
    const std::uint64_t out = dev.put(std::vector<std::uint8_t>(tiles * 1024, 0));
    pack.add(out);
    pack.add(std::uint32_t{tiles});
    const ptx::launch l(k, {3, 1, 1}, {64, 1, 1}, pack.bytes());
    func::global_memory want = dev.mem;
    (void)func::run_functional(l, want);
    std::array<gpu::sm_stats, 2> totals;
    const std::array<gpu::gpu_params, 2> params{gpu::fermi_gtx480::params(),
                                                gpu::volta_qv100::params()};
    for (std::size_t i = 0; i < params.size(); ++i) {
        func::global_memory mem = dev.mem;
        gpu::gpu<gpu::fermi_gtx480> g(params[i]); // the presets share their parts
        totals[i] = g.run(l, mem).total;
        CHECK(mem.read_bytes(out, tiles * 1024) == want.read_bytes(out, tiles * 1024));
    }
    const auto issued = [&](std::size_t i, isa::unit_class u) {
        return totals[i].issued_by_unit[isa::index(u)];
    };
    CHECK(issued(0, isa::unit_class::tensor) == 0);
    CHECK(issued(1, isa::unit_class::tensor) == tiles);
    CHECK(issued(0, isa::unit_class::fp) == issued(1, isa::unit_class::fp) + tiles);
    CHECK(totals[0].warp_instructions == totals[1].warp_instructions);
}

TEST_CASE("wmma / mma.sync: only a whole warp runs them; addresses must be aligned") {
    wmma_case c;
    c.stride_operand = "%r";
    std::string text = wmma_kernel(c);
    const std::vector<std::uint8_t> tile(512, 0), acc(1024, 0);
    // 16 threads: half a warp.
    CHECK_THROWS_WITH_AS(run_kernel(text, "wmma_tile", {tile, tile, acc}, 1024, 1, 16),
                         doctest::Contains("needs all 32 lanes of a 32-thread warp; 16 lanes"),
                         sim_error);
    // A stride of 12 halves (24 bytes) is not a multiple of the 32-byte fragment.
    c.stride = 12;
    CHECK_THROWS_WITH_AS(run_kernel(wmma_kernel(c), "wmma_tile", {tile, tile, acc}, 1024, 1, 32),
                         doctest::Contains("aligned to the fragment's 32 bytes"), sim_error);
}

TEST_CASE("wmma / mma.sync: parse errors at file:line:column") {
    const auto body = [](const std::string& line) {
        return ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 "
               "p)\n{\n"
               ".reg .b32 %r<20>; .reg .f32 %f<20>; .reg .b64 %rd<4>; .reg .b16 %h<4>;\n" +
               line + "\nret;\n}\n";
    };
    struct refusal {
        std::string text;
        std::size_t column;
        std::string message;
    };
    const std::string a8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
    const std::string f8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";
    const refusal table[] = {
        {"wmma.load.a.sync.aligned.row.m16n16k16.s8 " + a8 + ", [%rd1];", 39,
         "unsupported instruction 'wmma.load.a.sync.aligned.row.m16n16k16.s8': '.s8' as the "
         "type (supported: .f16)"},
        {"wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 " + a8 + ", [%rd1];", 46,
         "unsupported instruction 'wmma.load.a.sync.aligned.row.m16n16k16.global.bf16': '.bf16' "
         "as the type (supported: .f16)"},
        {"wmma.load.d.sync.aligned.row.m16n16k16.f32 " + f8 + ", [%rd1];", 10,
         "unsupported instruction 'wmma.load.d.sync.aligned.row.m16n16k16.f32': '.d' as the "
         "matrix (supported: .a, .b, .c)"},
        {"wmma.load.a.aligned.row.m16n16k16.f16 " + a8 + ", [%rd1];", 12,
         "unsupported instruction 'wmma.load.a.aligned.row.m16n16k16.f16': '.aligned' as "
         "'.sync' (supported: .sync)"},
        {"wmma.load.c.sync.aligned.row.m16n16k16", 1,
         "'wmma.load.c.sync.aligned.row.m16n16k16' needs the type (.f16, .f32)"},
        {"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite " + f8 + ", " + a8 + ", " + a8 +
             ", " + f8 + ";",
         48,
         "unsupported instruction 'wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite': "
         "unexpected '.satfinite'"},
        {"wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3}, [%rd1];", 44,
         "'wmma.load.a.sync.aligned.row.m16n16k16.f16': the fragment of A has 8 registers, found "
         "4"},
        {"wmma.load.c.sync.aligned.row.m16n16k16.f32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %h1}, "
         "[%rd1];",
         44,
         "operand 1 of 'wmma.load.c.sync.aligned.row.m16n16k16.f32': element '%h1' is .b16; an "
         ".f32 fragment needs .f32 or .b32 registers"},
        {"wmma.load.a.sync.aligned.row.m16n16k16.f16 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %h0}, "
         "[%rd1];",
         44,
         "operand 1 of 'wmma.load.a.sync.aligned.row.m16n16k16.f16': element '%h0' is .b16; a "
         "fragment of .f16 pairs needs 32-bit registers"},
        {"wmma.load.a.sync.aligned.row.m16n16k16.f16 " + a8 + ", [%rd1], %f1;", 94,
         "operand 3 of 'wmma.load.a.sync.aligned.row.m16n16k16.f16' (the stride) must be a "
         "32-bit integer register or integer immediate"},
        {"wmma.store.d.sync.aligned.row.m16n16k16.f32 " + f8 + ", [%rd1];", 45,
         "operand 1 of 'wmma.store.d.sync.aligned.row.m16n16k16.f32' must be an address [...], "
         "found '{'"},
        {"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " + f8 + ", " + a8 + ", " + a8 + ";", 1,
         "'wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32' expects 4 operands, found 3"},
        {"mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, "
         "%r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};",
         26,
         "unsupported instruction 'mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32': '.col' as "
         "the layout of A (supported: .row)"},
        {"mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r0, %r1}, {%r0, %r1, %r2, %r3}, "
         "{%r4, %r5}, {%r6, %r7};",
         1,
         "unsupported instruction 'mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16': .bf16 "
         "inputs accumulate in .f32 (D and C)"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, "
         "%r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};",
         42,
         "unsupported instruction 'mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32': A and B "
         "of different types"},
        {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, "
         "{%r4}, {%f4, %f5, %f6, %f7};",
         37,
         "unsupported instruction 'mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32': '.tf32' "
         "as the type of A (supported: .f16, .bf16)"},
        {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, "
         "%r3}, {%r4}, {%f4, %f5, %f6, %f7};",
         72,
         "'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32': the fragment of A has 2 registers, "
         "found 4"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f0, %f1, %f2, %f3}, {%r0, %r1, "
         "%r2, %r3}, {%r4, %r5}, {%r6, %r7};",
         46,
         "'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16': D and C have different types "
         "(.f32, .f16); .m16n8k16 needs one type"},
    };
    for (const auto& r : table) {
        CAPTURE(r.text);
        try {
            (void)ptx::parse_ptx(body(r.text), "bad.ptx");
            FAIL("parsed");
        } catch (const parse_error& e) {
            CHECK(e.message() == r.message);
            CHECK(e.line() == 7);
            CHECK(e.column() == r.column);
        }
    }
}

TEST_CASE("wmma: the state space is optional; .shared::cta is .shared") {
    wmma_case c;
    std::string text = wmma_kernel(c);
    const std::string global_load = ".m16n16k16.global.f16 {%r30";
    text.replace(text.find(global_load), global_load.size(), ".m16n16k16.shared::cta.f16 {%r30");
    const ptx::module m = ptx::parse_ptx(text, "spaces.ptx");
    std::vector<ptx::space> spaces;
    for (const auto& in : m.functions[0].code)
        if (in.opcode == ptx::op::wmma_load || in.opcode == ptx::op::wmma_store)
            spaces.push_back(in.sp);
    CHECK(spaces == std::vector<ptx::space>{ptx::space::shared, ptx::space::generic,
                                            ptx::space::global, ptx::space::global});
}

TEST_CASE("wmma / mma.sync: printed instructions parse back to the same instructions") {
    std::string text = wmma_kernel(wmma_case{});
    mma_case bf;
    bf.input = "bf16";
    for (const std::string& t :
         {text, mma_kernel(bf), mma_kernel(mma_case{"m16n8k8", "f16", "f16", "f16"})}) {
        const ptx::module a = ptx::parse_ptx(t, "a.ptx");
        const ptx::module b = ptx::parse_ptx(ptx::print_ptx(a), "b.ptx");
        REQUIRE(a.functions.size() == b.functions.size());
        REQUIRE(a.functions[0].code.size() == b.functions[0].code.size());
        for (std::size_t i = 0; i < a.functions[0].code.size(); ++i) {
            ptx::instruction x = a.functions[0].code[i], y = b.functions[0].code[i];
            x.pos = y.pos = {};
            CHECK(x == y);
        }
    }
}
