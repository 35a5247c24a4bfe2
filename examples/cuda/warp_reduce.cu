// Warp-level reduction of ints with shuffles: lane 0 of each warp adds its warp's sum to
// *total. Alongside, each warp counts its positive elements with a ballot and adds the
// count to *positives; warps whose inputs are all zero skip both atomics (__any_sync).
// blockDim.x must be a multiple of 32: every shuffle and vote names all 32 lanes.
extern "C" __global__ void warp_reduce(const int* in, int n, int* total, int* positives)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = i < n ? in[i] : 0;
    if (!__any_sync(0xffffffff, v != 0)) {
        return;
    }
    unsigned pos = __ballot_sync(0xffffffff, v > 0);
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (lane == 0) {
        atomicAdd(total, v);
        atomicAdd(positives, __popc(pos));
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o warp_reduce warp_reduce.cu; run: warpkit-cuda -- ./warp_reduce
// The launch shape is warp_reduce.launch.json's: n = 8092 ints in [-3, 3], 32 blocks of 256.
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include "host.cuh"

#include <cstdio>
#include <vector>

int main()
{
    const int n = 8092;
    std::vector<int> in(n);
    unsigned seed = 8u;
    int want_total = 0, want_positives = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = static_cast<int>(random_bits(seed) % 7u) - 3;
        // Two whole warps of zeros inside n: they leave at __any_sync as well.
        if (i >= 64 && i < 128) {
            in[i] = 0;
        }
        want_total += in[i];
        want_positives += in[i] > 0;
    }
    int *din, *dtotal, *dpositives;
    CHECK(copy_to_device(&din, in));
    CHECK(allocate_filled(&dtotal, 1, 0));
    CHECK(allocate_filled(&dpositives, 1, 0));
    warp_reduce<<<32, 256>>>(din, n, dtotal, dpositives);
    CHECK(finish_launch());
    int total = 0, positives = 0;
    CHECK(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&positives, dpositives, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(total == want_total && positives == want_positives,
           "total %d, positives %d; expected %d and %d", total, positives, want_total,
           want_positives);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dtotal));
    CHECK(cudaFree(dpositives));
    std::printf("warp_reduce: OK (total %d, %d positive)\n", total, positives);
    return 0;
}
#endif // __CUDA_ARCH__
