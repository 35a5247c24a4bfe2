// Per-block sum of floats: out[blockIdx.x] = sum of the block's 256 inputs (0 past n).
// Tree reduction in shared memory; launch with blockDim.x == 256.
#define BLOCK 256

extern "C" __global__ void reduce(const float* in, float* out, int n)
{
    __shared__ float s[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o reduce reduce.cu; run: warpkit-cuda -- ./reduce
// The launch shape is reduce.launch.json's: n = 16384, 64 blocks of 256 threads.
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
    const int n = 16384;
    const int blocks = 64;
    std::vector<float> in(n), out(blocks, 0.0f);
    unsigned seed = 2u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (seed >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    float *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0xff, blocks * sizeof(float))); // NaN: every block must write
    reduce<<<blocks, BLOCK>>>(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
        double want = 0.0, mag = 0.0;
        for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < n; ++i) {
            want += in[i];
            mag += std::fabs(in[i]);
        }
        if (!(std::fabs(out[b] - want) <= 1e-5 * mag + 1e-6)) {
            std::printf("FAIL: out[%d] = %.9g, expected %.9g\n", b, out[b], want);
            return 1;
        }
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    std::printf("reduce: OK (%d blocks)\n", blocks);
    return 0;
}
#endif // __CUDA_ARCH__
