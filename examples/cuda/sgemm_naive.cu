// C = A * B for row-major n x n matrices; one thread per element of C (16x16 blocks).
extern "C" __global__ void sgemm_naive(const float* A, const float* B, float* C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) {
            acc += A[row * n + k] * B[k * n + col];
        }
        C[row * n + col] = acc;
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o sgemm_naive sgemm_naive.cu; run: warpkit-cuda -- ./sgemm_naive
// The launch shape is sgemm_naive.launch.json's: n = 64, 4 x 4 blocks of 16 x 16 threads.
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
    sgemm_naive<<<dim3(4, 4), dim3(16, 16)>>>(dA, dB, dC, n);
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
    std::printf("sgemm_naive: OK (%d x %d)\n", n, n);
    return 0;
}
#endif // __CUDA_ARCH__
