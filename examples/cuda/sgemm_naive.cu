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
#include "sgemm_host.cuh"

int main()
{
    return check_sgemm("sgemm_naive", sgemm_naive);
}
#endif // __CUDA_ARCH__
