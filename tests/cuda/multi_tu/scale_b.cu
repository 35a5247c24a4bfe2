// Translation unit B of multi_tu: the same variable and static-kernel names as unit A, made
// file-local by an unnamed namespace instead of `static`; a __device__ table with an
// initialiser besides.
#include <cuda_runtime.h>

namespace {
__constant__ int factor[2] = {5, -2};
__device__ int calls = 200;
__device__ int table[4] = {10, 20, 30, 40};

__global__ void bump(int by)
{
    atomicAdd(&calls, 2 * by); // differs from unit A's bump on purpose
}
} // namespace

__global__ void kernel_b(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * factor[0] + factor[1] + table[i % 4];
    }
    if (i == 0) {
        atomicAdd(&calls, 1);
    }
}

cudaError_t set_factor_b(int mul, int add)
{
    const int f[2] = {mul, add};
    return cudaMemcpyToSymbol(factor, f, sizeof f);
}

cudaError_t get_factor_b(int* f)
{
    return cudaMemcpyFromSymbol(f, factor, 2 * sizeof(int));
}

cudaError_t calls_b(int* out)
{
    return cudaMemcpyFromSymbol(out, calls, sizeof(int));
}

cudaError_t bump_b(int by)
{
    bump<<<1, 4>>>(by); // four threads: calls += 8 * by
    return cudaGetLastError();
}
