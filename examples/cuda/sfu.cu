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
