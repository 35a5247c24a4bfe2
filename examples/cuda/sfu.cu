// Special-function workload: each element goes through sin, cos, exp, log, rsqrt and sqrt.
// Compiled with -use_fast_math, so every call maps to one approximate SFU instruction
// (sin.approx, cos.approx, ex2.approx, lg2.approx, rsqrt.approx, sqrt.approx).
extern "C" __global__ void sfu(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float s = __sinf(v);
        float c = __cosf(v);
        float e = __expf(s);           // in [1/e, e]
        float l = __logf(e + c * c);   // argument > 0
        float r = rsqrtf(1.0f + v * v); // argument >= 1
        float q = sqrtf(e);
        y[i] = s * c + l * r + q;
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -use_fast_math -o sfu sfu.cu; run: warpkit-cuda -- ./sfu
// The launch shape is sfu.launch.json's: n = 4096 floats in [-8, 8), 16 blocks of 256.
// The SFU forms are approximations (about 2^-21 absolute error for sin and cos, 2^-22
// relative for ex2), so the comparison allows 1e-4 relative plus 1e-4 absolute.
// nvcc-flags: -use_fast_math
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include "host.cuh"

#include <cmath>
#include <cstdio>
#include <vector>

int main()
{
    const int n = 4096;
    const std::vector<float> x = random_floats(n, 7u, -8.0f, 16.0f);
    std::vector<float> y(n, 0.0f);
    float *dx, *dy;
    CHECK(copy_to_device(&dx, x));
    CHECK(allocate_filled(&dy, n, 0xff)); // NaN until written
    sfu<<<16, 256>>>(dx, dy, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(y, dy));
    for (int i = 0; i < n; ++i) {
        const double v = x[i];
        const double s = std::sin(v), c = std::cos(v), e = std::exp(s);
        const double want = s * c + std::log(e + c * c) / std::sqrt(1.0 + v * v) + std::sqrt(e);
        EXPECT(std::fabs(y[i] - want) <= 1e-4 * std::fabs(want) + 1e-4,
               "y[%d] = %.9g for x = %.9g, expected %.9g", i, y[i], x[i], want);
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    std::printf("sfu: OK (%d elements)\n", n);
    return 0;
}
#endif // __CUDA_ARCH__
