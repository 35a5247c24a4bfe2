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
#include "host.cuh"

#include <cstdio>
#include <vector>

int main()
{
    const int n = 16000;
    std::vector<float> a(n), c(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.5f * i;
    }
    const std::vector<float> b = random_floats(n, 1u, -1.0f, 2.0f);
    float *da, *db, *dc;
    CHECK(copy_to_device(&da, a));
    CHECK(copy_to_device(&db, b));
    CHECK(allocate_filled(&dc, n, 0));
    vector_add<<<63, 256>>>(da, db, dc, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(c, dc));
    for (int i = 0; i < n; ++i) {
        const float want = a[i] + b[i];
        EXPECT(c[i] == want, "c[%d] = %.9g, expected %.9g", i, c[i], want);
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("vector_add: OK (%d elements)\n", n);
    return 0;
}
#endif // __CUDA_ARCH__
