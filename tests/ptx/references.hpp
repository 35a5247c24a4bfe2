#pragma once
/// \file
/// Host reference results of the kernels in examples/cuda/, for checking a simulated run of
/// their PTX. Each function mirrors its kernel's arithmetic in the kernel's order (tree order
/// for reduce, one fused multiply-add per step for the SGEMMs), so float results compare
/// exactly; integer results are exact in any order (two's complement wrap-around). Only the
/// SFU kernel, whose .approx instructions have no single correct result, compares with a
/// tolerance (see sfu_tolerance).

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace warpkit::test_ref {

/// Threads per block the reduce and scan kernels are written for (their shared arrays).
inline constexpr unsigned block_256 = 256;

/// vector_add: c[i] = a[i] + b[i] for i < n.
[[nodiscard]] inline std::vector<float> vector_add(std::span<const float> a,
                                                   std::span<const float> b, int n) {
    std::vector<float> c(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < c.size(); ++i)
        c[i] = a[i] + b[i];
    return c;
}

/// reduce: one sum per block of `block` (a power of two, at most 256) consecutive inputs,
/// inputs at or past n counting as 0, added in the kernel's tree order: at each stride
/// s = block/2, block/4, ..., 1, element t < s becomes s[t + s] + s[t].
[[nodiscard]] inline std::vector<float> reduce(std::span<const float> in, int n, unsigned grid,
                                               unsigned block = block_256) {
    std::vector<float> out(grid);
    std::vector<float> s(block);
    for (unsigned g = 0; g < grid; ++g) {
        for (unsigned t = 0; t < block; ++t) {
            const std::size_t i = std::size_t{g} * block + t;
            s[t] = i < static_cast<std::size_t>(n) ? in[i] : 0.0F;
        }
        for (unsigned stride = block / 2; stride > 0; stride >>= 1)
            for (unsigned t = 0; t < stride; ++t)
                s[t] = s[t + stride] + s[t];
        out[g] = s[0];
    }
    return out;
}

/// histogram: bins[b] = number of the first n bytes equal to b (added to `initial` bins).
[[nodiscard]] inline std::array<std::uint32_t, 256>
histogram(std::span<const std::uint8_t> data, int n, std::array<std::uint32_t, 256> initial = {}) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
        ++initial[data[i]];
    return initial;
}

/// Levels after one launch of bfs, and the launch's `changed` flag.
struct bfs_step {
    std::vector<int> levels;
    bool changed = false;
};

/// bfs, one launch: every vertex v < num_vertices with levels[v] == level gives each
/// neighbour u with levels[u] == -1 the level level + 1. Vertices labelled during the launch
/// are not expanded in it (their level is level + 1), so the result does not depend on the
/// order in which threads run.
[[nodiscard]] inline bfs_step bfs_level(std::span<const int> row_offsets,
                                        std::span<const int> columns, std::span<const int> levels,
                                        int num_vertices, int level) {
    bfs_step r{std::vector<int>(levels.begin(), levels.end()), false};
    for (std::size_t v = 0; v < static_cast<std::size_t>(num_vertices); ++v) {
        if (levels[v] != level) continue;
        const auto begin = static_cast<std::size_t>(row_offsets[v]);
        const auto end = static_cast<std::size_t>(row_offsets[v + 1]);
        for (std::size_t e = begin; e < end; ++e) {
            auto& u = r.levels[static_cast<std::size_t>(columns[e])];
            if (u == -1) {
                u = level + 1;
                r.changed = true;
            }
        }
    }
    return r;
}

/// A whole breadth-first search as the host runs it.
struct bfs_run {
    std::vector<int> levels; ///< distance from the source, -1 where unreachable
    int launches = 0;        ///< kernel launches, the last one changing nothing
};

/// bfs, host loop: levels start at -1 with the source at 0; launch with level = 0, 1, ...
/// (each after clearing `changed`) until a launch leaves `changed` at 0.
[[nodiscard]] inline bfs_run bfs(std::span<const int> row_offsets, std::span<const int> columns,
                                 int num_vertices, int source = 0) {
    bfs_run r{std::vector<int>(static_cast<std::size_t>(num_vertices), -1), 0};
    r.levels[static_cast<std::size_t>(source)] = 0;
    for (int level = 0;; ++level) {
        auto step = bfs_level(row_offsets, columns, r.levels, num_vertices, level);
        r.levels = std::move(step.levels);
        ++r.launches;
        if (!step.changed) break;
    }
    return r;
}

/// a * b + c in one rounding (fma) or two.
[[nodiscard]] inline float multiply_add(float a, float b, float c, bool fused) {
    if (fused) return std::fma(a, b, c);
    const volatile float p = a * b; // rounded to float before the add
    return p + c;
}

/// sgemm_naive: C = A * B (row-major n x n); element (row, col) accumulates
/// fma(A[row][k], B[k][col], acc) for k = 0 .. n-1 from acc = 0, as the kernel's fma.rn.f32
/// (`fused` false: a rounded multiply, then a rounded add, as nvcc -G compiles it).
[[nodiscard]] inline std::vector<float>
sgemm_naive(std::span<const float> A, std::span<const float> B, int n, bool fused = true) {
    const auto m = static_cast<std::size_t>(n);
    std::vector<float> C(m * m);
    for (std::size_t row = 0; row < m; ++row)
        for (std::size_t col = 0; col < m; ++col) {
            float acc = 0.0F;
            for (std::size_t k = 0; k < m; ++k)
                acc = multiply_add(A[row * m + k], B[k * m + col], acc, fused);
            C[row * m + col] = acc;
        }
    return C;
}

/// sgemm_tiled: as sgemm_naive, but k runs over whole 16-wide tiles: past n the tile holds
/// zeros, whose fma(0, 0, acc) steps the kernel also performs (they can only turn a -0 sum
/// into +0).
[[nodiscard]] inline std::vector<float>
sgemm_tiled(std::span<const float> A, std::span<const float> B, int n, bool fused = true) {
    constexpr std::size_t tile = 16;
    const auto m = static_cast<std::size_t>(n);
    const std::size_t padded = (m + tile - 1) / tile * tile;
    std::vector<float> C(m * m);
    for (std::size_t row = 0; row < m; ++row)
        for (std::size_t col = 0; col < m; ++col) {
            float acc = 0.0F;
            for (std::size_t k = 0; k < padded; ++k) {
                const float a = k < m ? A[row * m + k] : 0.0F;
                const float b = k < m ? B[k * m + col] : 0.0F;
                acc = multiply_add(a, b, acc, fused);
            }
            C[row * m + col] = acc;
        }
    return C;
}

/// scan: inclusive prefix sum within each block of 256 elements of the first n inputs
/// (32-bit wrap-around, so the kernel's Hillis-Steele order gives the same sums).
[[nodiscard]] inline std::vector<int> scan(std::span<const int> in, int n) {
    std::vector<int> out(static_cast<std::size_t>(n));
    std::uint32_t sum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (i % block_256 == 0) sum = 0;
        sum += static_cast<std::uint32_t>(in[i]);
        out[i] = static_cast<int>(sum);
    }
    return out;
}

/// Largest difference between a simulated sfu result and sfu() (or sfu_ptx_order()) that is
/// acceptable. From the PTX ISA bounds of the .approx instructions (sin/cos about 2^-20.5
/// absolute, ex2/lg2/rsqrt/sqrt about 2^-22 relative) carried through the kernel's formula
/// for inputs in [-8, 8): the worst case is about 1.5e-5 (the log of a sum that can be as
/// small as 0.37); this leaves room for a simulator using other approximations of equal
/// quality.
inline constexpr double sfu_tolerance = 5e-5;

/// sfu, exact mathematics in double: y = sin x cos x + log(e^(sin x) + cos^2 x) / sqrt(1 + x^2)
/// + sqrt(e^(sin x)). Compare with sfu_tolerance.
[[nodiscard]] inline std::vector<float> sfu(std::span<const float> x, int n) {
    std::vector<float> y(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double v = x[i];
        const double s = std::sin(v);
        const double c = std::cos(v);
        const double e = std::exp(s);
        const double l = std::log(e + c * c);
        const double r = 1.0 / std::sqrt(1.0 + v * v);
        const double q = std::sqrt(e);
        y[i] = static_cast<float>(s * c + l * r + q);
    }
    return y;
}

/// sfu, the compiled PTX's own steps in float (fast-math __expf(s) = ex2(s * log2 e) and
/// __logf(t) = lg2(t) * ln 2 with the PTX's float constants, and its fused multiply-adds),
/// each .approx instruction replaced by the float library function. A simulator that
/// implements the .approx instructions with those functions matches this to a few ulps;
/// compare with sfu_tolerance.
[[nodiscard]] inline std::vector<float> sfu_ptx_order(std::span<const float> x, int n) {
    const float log2_e = std::bit_cast<float>(0x3FB8AA3BU); // 0f3FB8AA3B in the PTX
    const float ln_2 = std::bit_cast<float>(0x3F317218U);   // 0f3F317218
    std::vector<float> y(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < y.size(); ++i) {
        const float v = x[i];
        const float s = std::sin(v);
        const float c = std::cos(v);
        const float e = std::exp2(s * log2_e);
        const float l = std::log2(std::fma(c, c, e)) * ln_2;
        const float r = 1.0F / std::sqrt(std::fma(v, v, 1.0F));
        const float q = std::sqrt(e);
        y[i] = q + std::fma(s, c, l * r);
    }
    return y;
}

/// Results of warp_reduce: the two global counters after the launch (starting from 0).
struct warp_reduce_result {
    int total = 0;     ///< sum of the first n inputs (32-bit wrap-around)
    int positives = 0; ///< how many of them are > 0
};

/// warp_reduce: every warp adds its lanes' inputs (0 past n) and its count of positive inputs;
/// warps of zeros add nothing, which does not change either sum.
[[nodiscard]] inline warp_reduce_result warp_reduce(std::span<const int> in, int n) {
    std::uint32_t total = 0;
    int positives = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        total += static_cast<std::uint32_t>(in[i]);
        positives += in[i] > 0 ? 1 : 0;
    }
    return {static_cast<int>(total), positives};
}

} // namespace warpkit::test_ref
