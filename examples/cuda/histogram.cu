// 256-bin histogram of bytes: each block counts into shared memory, then adds its bins to
// the global histogram. Grid-stride loop so any grid size covers all n bytes.
#define BINS 256

extern "C" __global__ void histogram(const unsigned char* data, unsigned* bins, int n)
{
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o histogram histogram.cu; run: warpkit-cuda -- ./histogram
// The launch shape is histogram.launch.json's: n = 16384 bytes, 16 blocks of 256 threads.
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include "host.cuh"

#include <cstdio>
#include <vector>

int main()
{
    const int n = 16384;
    std::vector<unsigned char> data(n);
    unsigned seed = 3u;
    for (int i = 0; i < n; ++i) {
        // Skewed: a quarter of the bytes fall in 8 hot bins, so the atomics collide.
        const unsigned r = random_bits(seed);
        data[i] = static_cast<unsigned char>((r & 3u) == 0u ? 100u + (r >> 2) % 8u : (r >> 2) % 256u);
    }
    std::vector<unsigned> want(BINS, 0), got(BINS, 0);
    for (int i = 0; i < n; ++i) {
        ++want[data[i]];
    }
    unsigned char* ddata;
    unsigned* dbins;
    CHECK(copy_to_device(&ddata, data));
    CHECK(allocate_filled(&dbins, BINS, 0));
    histogram<<<16, 256>>>(ddata, dbins, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(got, dbins));
    for (int b = 0; b < BINS; ++b) {
        EXPECT(got[b] == want[b], "bins[%d] = %u, expected %u", b, got[b], want[b]);
    }
    CHECK(cudaFree(ddata));
    CHECK(cudaFree(dbins));
    std::printf("histogram: OK (%d bytes, %d bins)\n", n, BINS);
    return 0;
}
#endif // __CUDA_ARCH__
