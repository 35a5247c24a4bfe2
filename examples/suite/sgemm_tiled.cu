// Single-precision general matrix multiply, C = alpha * A * B + beta * C, with A M x K,
// B K x N and C M x N, all row-major.
// Kernel: sgemm_tiled, one launch, 16 x 16 threads per block, one thread per element of C.
// Each block walks the K dimension in 16-wide steps, staging a 16 x 16 tile of A and one of
// B in shared memory so that every global element is read once per block instead of once
// per thread. M, N and K need not be multiples of 16: tiles are zero-padded past the edges
// and threads outside C skip only the final store (they still help load tiles).
// Sizes: small M=72, N=56, K=44 (none a multiple of 16); paper M=N=K=448.
// Check: against a double-precision CPU product, element by element, with a tolerance
// scaled by sum_k |a_ik * b_kj| (justified at the check).
// run-args: small
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>

#include "suite.cuh"

constexpr int TILE = 16;

__global__ void sgemm_tiled(const float* a, const float* b, float* c, int m, int n, int k,
                            float alpha, float beta)
{
    __shared__ float a_tile[TILE][TILE];
    // In the inner loop a warp reads one a_tile element (a broadcast) and one row of b_tile
    // (consecutive words, distinct banks), so neither tile needs padding.
    __shared__ float b_tile[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        // Consecutive tx read consecutive addresses of a row: coalesced in both matrices.
        const int a_col = k0 + tx;
        const int b_row = k0 + ty;
        a_tile[ty][tx] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * b_tile[kk][tx];
        }
        // Nobody may overwrite the tiles until every thread has finished reading them.
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = alpha * acc + beta * c[row * n + col];
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int m, n, k;
    if (!paper) {
        m = 72;
        n = 56;
        k = 44;
    } else {
        m = n = k = 448;
    }
    const float alpha = 1.5f;
    const float beta = -0.75f;

    uint64_t state = seed;
    std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
    std::vector<float> c(static_cast<size_t>(m) * n);
    for (float& v : a) v = random_signed(state);
    for (float& v : b) v = random_signed(state);
    for (float& v : c) v = random_signed(state);

    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
    CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));

    const dim3 block(TILE, TILE);
    const dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(da, db, dc, m, n, k, alpha, beta);
    CHECK(cudaGetLastError());
    std::vector<float> got(c.size());
    CHECK(cudaMemcpy(got.data(), dc, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    // The GPU sums K float products in tile order (possibly fused multiply-adds); the
    // reference sums in double. Each float rounding is at most 2^-24 relative to the partial
    // sum, which is bounded by sum |a b|, so K roundings cost at most K * 2^-24 * sum |a b|;
    // the 4x margin also covers the final alpha / beta scaling.
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double dot = 0.0, magnitude = 0.0;
            for (int p = 0; p < k; ++p) {
                const double term = static_cast<double>(a[i * k + p]) * b[p * n + j];
                dot += term;
                magnitude += std::fabs(term);
            }
            const double want = alpha * dot + beta * c[i * n + j];
            const double scale = std::fabs(alpha) * magnitude + std::fabs(beta * c[i * n + j]);
            const double tolerance = 4.0 * (k + 2) * std::ldexp(1.0, -24) * scale;
            const float g = got[i * n + j];
            if (!(std::fabs(g - want) <= tolerance)) {
                std::printf("FAIL: C[%d][%d] = %.9g, expected %.9g (tolerance %.3g)\n", i, j, g,
                            want, tolerance);
                return 1;
            }
        }
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("sgemm_tiled: OK (%d x %d x %d, %u blocks)\n", m, n, k, grid.x * grid.y);
    return 0;
}
