// Translation unit A of multi_tu: its own kernel and file-local (static) variables named like
// those of the other units: `factor` (__constant__) and `calls` (__device__), and a static
// kernel `bump` whose name the other units use as well.
#include <cuda_runtime.h>

static __constant__ int factor[2] = {3, 1};
static __device__ int calls = 100;

__global__ void kernel_a(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * factor[0] + factor[1];
    }
    if (i == 0) {
        atomicAdd(&calls, 1);
    }
}

static __global__ void bump(int by)
{
    atomicAdd(&calls, by);
}

cudaError_t set_factor_a(int mul, int add)
{
    const int f[2] = {mul, add};
    return cudaMemcpyToSymbol(factor, f, sizeof f);
}

cudaError_t get_factor_a(int* f)
{
    return cudaMemcpyFromSymbol(f, factor, 2 * sizeof(int));
}

cudaError_t calls_a(int* out)
{
    return cudaMemcpyFromSymbol(out, calls, sizeof(int));
}

cudaError_t bump_a(int by)
{
    bump<<<1, 4>>>(by); // four threads: calls += 4 * by
    return cudaGetLastError();
}
