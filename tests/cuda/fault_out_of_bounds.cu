// The failure path: a kernel writes one element past the end of a cudaMalloc'd array. The
// launch must fail: cudaDeviceSynchronize returns cudaErrorLaunchFailure ("unspecified launch
// failure"), and, the error being sticky, later calls report it too. The program returns 0
// when that happens and 1 when the bad write goes unnoticed.
#include <cstdio>
#include <cstring>

__global__ void write_past_end(int* v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) { // one too many: thread n writes v[n]
        v[i] = i;
    }
}

int main()
{
    const int n = 256;
    int* v = nullptr;
    cudaError_t e = cudaMalloc(&v, n * sizeof(int));
    if (e != cudaSuccess) {
        std::printf("FAIL: cudaMalloc: %s\n", cudaGetErrorString(e));
        return 1;
    }
    write_past_end<<<(n + 1 + 127) / 128, 128>>>(v, n);
    const cudaError_t launch = cudaGetLastError(); // asynchronous on a GPU: may still be success
    e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure) {
        std::printf("FAIL: cudaDeviceSynchronize after an out-of-bounds write returned %s (%s), "
                    "expected cudaErrorLaunchFailure; the launch itself gave %s\n",
                    cudaGetErrorName(e), cudaGetErrorString(e), cudaGetErrorName(launch));
        return 1;
    }
    if (launch != cudaSuccess && launch != cudaErrorLaunchFailure) {
        std::printf("FAIL: the launch reported %s, expected cudaSuccess or cudaErrorLaunchFailure\n",
                    cudaGetErrorName(launch));
        return 1;
    }
    if (std::strcmp(cudaGetErrorString(e), "unspecified launch failure") != 0) {
        std::printf("FAIL: cudaGetErrorString(cudaErrorLaunchFailure) = \"%s\"\n",
                    cudaGetErrorString(e));
        return 1;
    }
    // Sticky: the context is unusable from here on.
    int host[4];
    const cudaError_t copy = cudaMemcpy(host, v, sizeof host, cudaMemcpyDeviceToHost);
    const cudaError_t sync = cudaDeviceSynchronize();
    if (copy != cudaErrorLaunchFailure || sync != cudaErrorLaunchFailure) {
        std::printf("FAIL: after the failure, cudaMemcpy gave %s and cudaDeviceSynchronize %s; "
                    "expected cudaErrorLaunchFailure (sticky)\n",
                    cudaGetErrorName(copy), cudaGetErrorName(sync));
        return 1;
    }
    std::printf("fault_out_of_bounds: OK (the bad write failed the launch: %s)\n",
                cudaGetErrorString(e));
    return 0;
}
