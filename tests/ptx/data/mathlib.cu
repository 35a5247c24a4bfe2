// Math-library calls (libdevice slow paths with .local arrays and .const tables), fp16,
// clock, 64-bit bit tricks, printf and assert: a large, realistic mix of what nvcc emits.
#include <cstdio>
#include <cuda_fp16.h>
extern "C" __global__ void mathlib(float* f, double* d, __half* h, unsigned long long* u, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    double y = d[i];
    f[i] = sinf(x) + cosf(x) * expf(x) - logf(fabsf(x) + 1.0f) + powf(x, 2.5f) + tanhf(x) + erff(x) + sqrtf(x) / x + atan2f(x, 2.0f) + fmodf(x, 3.0f);
    d[i] = sin(y) + exp(y) + log1p(fabs(y)) + pow(y, 1.5) + cbrt(y) + rsqrt(fabs(y) + 1.0) + fmod(y, 7.0);
    __half a = h[i], b = h[n + i];
    h[i] = __hadd(a, b) * __hmul(a, b) - __float2half(x);
    unsigned long long c = clock64();
    u[i] = __popcll(u[i]) + __clzll(u[i]) + __ffsll(u[i]) + (c & 1) + clock() + max(u[i], 5ull) + __brevll(u[i]) + (u[i] / (c | 1)) + u[i] % 1000003ull;
    if (x < -1000.0f) printf("odd value %f at %d\n", x, i);
    if (x > 1e30f) assert(0);
}
