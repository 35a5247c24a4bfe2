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
    std::vector<unsigned char> data(n);
    unsigned seed = 3u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        // Skewed: a quarter of the bytes fall in 8 hot bins, so the atomics collide.
        const unsigned r = seed >> 8;
        data[i] = static_cast<unsigned char>((r & 3u) == 0u ? 100u + (r >> 2) % 8u : (r >> 2) % 256u);
    }
    std::vector<unsigned> want(BINS, 0), got(BINS, 0);
    for (int i = 0; i < n; ++i) {
        ++want[data[i]];
    }
    unsigned char* ddata;
    unsigned* dbins;
    CHECK(cudaMalloc(&ddata, n));
    CHECK(cudaMalloc(&dbins, BINS * sizeof(unsigned)));
    CHECK(cudaMemcpy(ddata, data.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dbins, 0, BINS * sizeof(unsigned)));
    histogram<<<16, 256>>>(ddata, dbins, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), dbins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BINS; ++b) {
        if (got[b] != want[b]) {
            std::printf("FAIL: bins[%d] = %u, expected %u\n", b, got[b], want[b]);
            return 1;
        }
    }
    CHECK(cudaFree(ddata));
    CHECK(cudaFree(dbins));
    std::printf("histogram: OK (%d bytes, %d bins)\n", n, BINS);
    return 0;
}
#endif // __CUDA_ARCH__
