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
#include "host.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

int main()
{
    const int n = 16384;
    const int blocks = 64;
    const std::vector<float> in = random_floats(n, 2u, -1.0f, 2.0f);
    std::vector<float> out(blocks, 0.0f);
    float *din, *dout;
    CHECK(copy_to_device(&din, in));
    CHECK(allocate_filled(&dout, blocks, 0xff)); // NaN: every block must write
    reduce<<<blocks, BLOCK>>>(din, dout, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(out, dout));
    for (int b = 0; b < blocks; ++b) {
        double want = 0.0, mag = 0.0;
        for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < n; ++i) {
            want += in[i];
            mag += std::fabs(in[i]);
        }
        EXPECT(close_to_sum(out[b], want, mag), "out[%d] = %.9g, expected %.9g", b, out[b], want);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    std::printf("reduce: OK (%d blocks)\n", blocks);
    return 0;
}
#endif // __CUDA_ARCH__
