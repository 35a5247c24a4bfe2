// LU decomposition without pivoting, in place: A = L * U for an n x n row-major float matrix,
// L unit lower triangular (stored below the diagonal), U upper triangular (on and above it).
// The matrix is made strictly diagonally dominant, so every pivot is safely non-zero and
// no row exchanges are needed.
// Kernels: a host loop over the n - 1 elimination steps, two launches per step, because the
// trailing update reads the multipliers that the first launch writes:
//   lu_scale_column    column k below the pivot divided by the pivot (1D, 128 threads)
//   lu_update_trailing a(i, j) -= l(i, k) * u(k, j) for i, j > k (2D, 16 x 16 threads; each
//                      block stages its 16 multipliers and 16 pivot-row values in shared
//                      memory, so every thread reads two shared words instead of two
//                      global ones)
// The grids shrink with the trailing matrix, so late steps are small launches.
// Sizes: small n = 48 (94 launches); paper n = 224 (446 launches).
// Check: L * U recomputed in double on the CPU from the factors the GPU returns, against A,
// within the standard backward-error bound for Gaussian elimination (see check_factors).
// run-args: small
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int SCALE_THREADS = 128;
constexpr int TILE = 16;

__global__ void lu_scale_column(float* a, int n, int k)
{
    const int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i * n + k] /= a[k * n + k];
    }
}

__global__ void lu_update_trailing(float* a, int n, int k)
{
    __shared__ float multiplier[TILE];
    __shared__ float pivot_row[TILE];

    const int first_i = k + 1 + blockIdx.y * TILE;
    const int first_j = k + 1 + blockIdx.x * TILE;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    // Row 0 of the block fetches the pivot row segment (contiguous, coalesced); row 1 the
    // multiplier column segment (one word per matrix row, strided).
    if (ty == 0 && first_j + tx < n) {
        pivot_row[tx] = a[k * n + first_j + tx];
    } else if (ty == 1 && first_i + tx < n) {
        multiplier[tx] = a[(first_i + tx) * n + k];
    }
    __syncthreads();

    const int i = first_i + ty;
    const int j = first_j + tx;
    if (i < n && j < n) {
        a[i * n + j] -= multiplier[ty] * pivot_row[tx];
    }
}

// Higham, Accuracy and Stability of Numerical Algorithms, Theorem 9.3: the computed factors
// of Gaussian elimination satisfy |L U - A| <= gamma_n |L| |U| element-wise, with
// gamma_n = n u / (1 - n u) and u = 2^-24 for float. Fused multiply-adds only round less.
// The product is formed in double, whose own error is negligible next to the bound; the
// factor 2 is a margin.
static int check_factors(const std::vector<float>& a, const std::vector<float>& lu, int n)
{
    const double u = std::ldexp(1.0, -24);
    const double gamma = n * u / (1.0 - n * u);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double sum = 0.0, magnitude = 0.0;
            const int last = i < j ? i : j;
            for (int p = 0; p <= last; ++p) {
                const double l = p == i ? 1.0 : lu[i * n + p];
                const double r = lu[p * n + j];
                sum += l * r;
                magnitude += std::fabs(l * r);
            }
            const double want = a[i * n + j];
            if (!(std::fabs(sum - want) <= 2.0 * gamma * magnitude)) {
                std::printf("FAIL: (L*U)[%d][%d] = %.9g, expected A[%d][%d] = %.9g (tolerance %.3g)\n",
                            i, j, sum, i, j, want, 2.0 * gamma * magnitude);
                return 1;
            }
        }
    }
    return 0;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? 224 : 48;

    uint64_t state = seed;
    std::vector<float> a(static_cast<size_t>(n) * n);
    for (float& v : a) v = random_signed(state);
    // Each off-diagonal row sum is below n - 1, so a diagonal of magnitude n + |a_ii| makes
    // the matrix strictly diagonally dominant; the sign varies to keep it unremarkable.
    for (int i = 0; i < n; ++i) {
        a[i * n + i] += a[i * n + i] < 0.0f ? -static_cast<float>(n) : static_cast<float>(n);
    }

    float* d_a;
    const size_t bytes = a.size() * sizeof(float);
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    int launches = 0;
    for (int k = 0; k < n - 1; ++k) {
        const int trailing = n - 1 - k;
        lu_scale_column<<<(trailing + SCALE_THREADS - 1) / SCALE_THREADS, SCALE_THREADS>>>(d_a, n, k);
        CHECK(cudaGetLastError());
        const int tiles = (trailing + TILE - 1) / TILE;
        lu_update_trailing<<<dim3(tiles, tiles), dim3(TILE, TILE)>>>(d_a, n, k);
        CHECK(cudaGetLastError());
        launches += 2;
    }
    std::vector<float> lu(a.size());
    CHECK(cudaMemcpy(lu.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));

    if (check_factors(a, lu, n) != 0) {
        return 1;
    }
    std::printf("lu: OK (%d x %d, %d launches)\n", n, n, launches);
    return 0;
}
