// __managed__ variables: initialised from the module, written by the host between launches,
// updated by kernels (atomics and plain stores) and read back by the host without copies.
#include <cstdio>

__managed__ int total = 5;
__managed__ float scaled[64];
__managed__ int factor = 3;

__global__ void accumulate(int n)
{
    const int i = threadIdx.x;
    if (i < n) {
        atomicAdd(&total, i);
        scaled[i] = static_cast<float>(factor * i);
    }
}

int main()
{
    if (total != 5 || factor != 3) {
        std::printf("FAIL: initialisers: total %d, factor %d\n", total, factor);
        return 1;
    }
    accumulate<<<1, 64>>>(64);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    if (total != 5 + 64 * 63 / 2 || scaled[10] != 30.0f) {
        std::printf("FAIL: after the first launch: total %d, scaled[10] %g\n", total, scaled[10]);
        return 1;
    }
    factor = 7; // the host's write reaches the next launch
    total = 0;
    accumulate<<<1, 64>>>(32);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    if (total != 32 * 31 / 2 || scaled[10] != 70.0f || scaled[40] != 120.0f) {
        std::printf("FAIL: after the second launch: total %d, scaled[10] %g, scaled[40] %g\n",
                    total, scaled[10], scaled[40]);
        return 1;
    }
    std::printf("managed_variables: OK\n");
    return 0;
}
