// c[i] = a[i] + b[i] for i < n; one thread per element.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o vector_add vector_add.cu; run: warpkit-cuda -- ./vector_add
// The launch shape is vector_add.launch.json's: n = 16000, 63 blocks of 256 threads.
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include <cmath>
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
    const int n = 16000;
    std::vector<float> a(n), b(n), c(n, -1.0f);
    unsigned seed = 1u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        a[i] = 0.5f * i;
        b[i] = (seed >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dc, 0, n * sizeof(float)));
    vector_add<<<63, 256>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const float want = a[i] + b[i];
        if (c[i] != want) {
            std::printf("FAIL: c[%d] = %.9g, expected %.9g\n", i, c[i], want);
            return 1;
        }
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("vector_add: OK (%d elements)\n", n);
    return 0;
}
#endif // __CUDA_ARCH__
