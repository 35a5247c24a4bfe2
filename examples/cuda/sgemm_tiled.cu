// C = A * B for row-major n x n matrices with 16x16 shared-memory tiles; launch with
// 16x16 blocks. Out-of-range tile elements load as 0, so n need not be a multiple of 16.
#define TILE 16

extern "C" __global__ void sgemm_tiled(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + tx;
        int bk = t * TILE + ty;
        As[ty][tx] = (row < n && ak < n) ? A[row * n + ak] : 0.0f;
        Bs[ty][tx] = (bk < n && col < n) ? B[bk * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = acc;
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o sgemm_tiled sgemm_tiled.cu; run: warpkit-cuda -- ./sgemm_tiled
// The launch shape is sgemm_tiled.launch.json's: n = 64, 4 x 4 blocks of 16 x 16 threads.
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t err_ = (call);                                                      \
        if (err_ != cudaSuccess) {                                                      \
            std::printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorString(err_), __LINE__); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main()
{
    const int n = 64;
    const int count = n * n;
    std::vector<float> A(count), B(count), C(count, 0.0f);
    unsigned seed = 4u;
    for (int i = 0; i < count; ++i) {
        seed = seed * 1664525u + 1013904223u;
        A[i] = (seed >> 8) * (2.0f / 16777216.0f) - 1.0f;
        seed = seed * 1664525u + 1013904223u;
        B[i] = (seed >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, count * sizeof(float)));
    CHECK(cudaMalloc(&dB, count * sizeof(float)));
    CHECK(cudaMalloc(&dC, count * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, count * sizeof(float)));
    sgemm_tiled<<<dim3(4, 4), dim3(16, 16)>>>(dA, dB, dC, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C.data(), dC, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            double want = 0.0, mag = 0.0;
            for (int k = 0; k < n; ++k) {
                want += static_cast<double>(A[r * n + k]) * B[k * n + c];
                mag += std::fabs(static_cast<double>(A[r * n + k]) * B[k * n + c]);
            }
            const float got = C[r * n + c];
            if (!(std::fabs(got - want) <= 1e-5 * mag + 1e-6)) {
                std::printf("FAIL: C[%d][%d] = %.9g, expected %.9g\n", r, c, got, want);
                return 1;
            }
        }
    }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    std::printf("sgemm_tiled: OK (%d x %d)\n", n, n);
    return 0;
}
#endif // __CUDA_ARCH__
