// Inclusive prefix sum of ints within each block of 256 elements (Hillis-Steele, double
// buffered in shared memory). Launch with blockDim.x == 256; elements past n read as 0
// and are not written.
#define BLOCK 256

extern "C" __global__ void scan(const int* in, int* out, int n)
{
    __shared__ int buf[2][BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    int src = 0;
    buf[src][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        int v = buf[src][tid];
        if (tid >= offset) {
            v += buf[src][tid - offset];
        }
        buf[1 - src][tid] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (i < n) {
        out[i] = buf[src][tid];
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o scan scan.cu; run: warpkit-cuda -- ./scan
// The launch shape is scan.launch.json's: n = 4000, 16 blocks of 256 threads (the last
// block partly past n: the elements after n must stay untouched).
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include "host.cuh"

#include <cstdio>
#include <vector>

int main()
{
    const int n = 4000;
    const int blocks = 16;
    const int padded = blocks * BLOCK; // the output buffer is padded to check the guard
    std::vector<int> in(n), out(padded);
    unsigned seed = 6u;
    for (int i = 0; i < n; ++i) {
        in[i] = static_cast<int>(random_bits(seed) % 201u) - 100;
    }
    int *din, *dout;
    CHECK(copy_to_device(&din, in));
    CHECK(allocate_filled(&dout, padded, 0x5a));
    scan<<<blocks, BLOCK>>>(din, dout, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(out, dout));
    int running = 0;
    for (int i = 0; i < padded; ++i) {
        if (i % BLOCK == 0) {
            running = 0;
        }
        const int want = i < n ? (running += in[i]) : 0x5a5a5a5a;
        EXPECT(out[i] == want, "out[%d] = %d, expected %d", i, out[i], want);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    std::printf("scan: OK (%d elements)\n", n);
    return 0;
}
#endif // __CUDA_ARCH__
