// Device functions kept out of line so the PTX has .func definitions and call sequences.
__device__ __noinline__ float scale(float x, float s) { return x * s + 1.0f; }
__device__ __noinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__device__ __noinline__ void store_pair(float* p, float a, float b) { p[0] = a; p[1] = b; }
struct pair2 { int a; int b; };
__device__ __noinline__ pair2 swap_pair(pair2 p) { return {p.b, p.a}; }

extern "C" __global__ void calls(float* out, const int* in, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = clampi(in[i], -100, 100);
    pair2 q = swap_pair({v, i});
    store_pair(out + 2 * i, scale(static_cast<float>(q.a), s), scale(static_cast<float>(q.b), s));
}
