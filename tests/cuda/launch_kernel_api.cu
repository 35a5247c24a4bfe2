// cudaLaunchKernel called directly with an argument array (no <<<>>>): the C entry point with
// a const void* naming the kernel, the templated overload of cuda_runtime.h, a struct and a
// double among the arguments, a 2-D grid, dynamic shared memory and a created stream; results
// match <<<>>> launches of the same kernels.
#include <cstdio>
#include <vector>

#include "check.cuh"

struct Affine {
    float mul;
    int shift;
    short pad_test;
};

// out[y][x] = in[y][x] * a.mul + a.shift + w * x + y, over a width x height grid of threads.
__global__ void affine2d(const float* in, float* out, int width, int height, Affine a, double w)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        out[y * width + x] = in[y * width + x] * a.mul + a.shift + static_cast<float>(w * x) + y;
    }
}

// Rotates each block's values by `by` through dynamic shared memory.
__global__ void rotate(const int* in, int* out, int by)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[(t + by) % blockDim.x];
}

int main()
{
    const int width = 50, height = 20, n = width * height;
    std::vector<float> in(n), out(n), ref(n);
    for (int i = 0; i < n; ++i) {
        in[i] = static_cast<float>(i % 31) - 15.0f;
    }
    float *din, *dout, *dref;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dref, n * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const dim3 block(16, 8);
    const dim3 grid((width + 15) / 16, (height + 7) / 8);
    Affine a{1.5f, -3, 99};
    double w = 0.25;
    int wd = width, ht = height;

    // The C entry point.
    void* args[] = {&din, &dout, &wd, &ht, &a, &w};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(affine2d), grid, block, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    affine2d<<<grid, block>>>(din, dref, width, height, a, w);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(ref.data(), dref, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const int i = y * width + x;
            const float want = in[i] * 1.5f - 3 + 0.25f * x + y; // exact in float
            if (out[i] != want || ref[i] != want) {
                std::printf("FAIL: affine2d (%d, %d): cudaLaunchKernel %g, <<<>>> %g, expected %g\n",
                            x, y, out[i], ref[i], want);
                return 1;
            }
        }
    }

    // The templated overload, with dynamic shared memory on a created stream.
    const int threads = 128, blocks = 6, m = threads * blocks;
    std::vector<int> iv(m), ov(m);
    for (int i = 0; i < m; ++i) {
        iv[i] = i * 3 + 1;
    }
    int *di, *dov;
    CHECK(cudaMalloc(&di, m * sizeof(int)));
    CHECK(cudaMalloc(&dov, m * sizeof(int)));
    CHECK(cudaMemcpy(di, iv.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    int by = 37;
    void* rargs[] = {&di, &dov, &by};
    CHECK(cudaLaunchKernel(rotate, dim3(blocks), dim3(threads), rargs, threads * sizeof(int), stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaMemcpy(ov.data(), dov, m * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i) {
        const int b = i / threads, t = i % threads;
        const int want = iv[b * threads + (t + by) % threads];
        if (ov[i] != want) {
            std::printf("FAIL: rotate: out[%d] = %d, expected %d\n", i, ov[i], want);
            return 1;
        }
    }
    CHECK(cudaStreamDestroy(stream));
    for (void* p : {(void*)din, (void*)dout, (void*)dref, (void*)di, (void*)dov}) {
        CHECK(cudaFree(p));
    }
    std::printf("launch_kernel_api: OK\n");
    return 0;
}
