// Templates and __device__ functions: one templated kernel instantiated for float and int
// (with a non-type block-size parameter and a functor type parameter), templated __device__
// helpers, a __noinline__ __device__ function (a real call in the PTX) and an overloaded
// __host__ __device__ function shared with the CPU reference.
#include <cmath>
#include <cstdio>
#include <vector>

#include "check.cuh"

template <typename T>
__host__ __device__ T clamp_to(T v, T lo, T hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

// Overloads picked by type, on both sides.
__host__ __device__ inline int transform(int v) { return v * 3 - 1; }
__host__ __device__ inline float transform(float v) { return v * 0.5f + 0.25f; }

// A real call: not inlined, several arguments and a result.
__device__ __noinline__ int mix(int a, int b, int c)
{
    return (a ^ (b << 3)) + c * 7;
}

struct Add {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

// Each block reduces transform(clamp(x)) over its BLOCK elements with Op; BLOCK is a power
// of two and the launch's blockDim.x.
template <typename T, int BLOCK, typename Op>
__global__ void block_reduce(const T* in, T* out, int n, T lo, T hi, Op op, T identity)
{
    __shared__ T s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? transform(clamp_to(in[i], lo, hi)) : identity;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            s[t] = op(s[t], s[t + stride]);
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}

__global__ void call_mix(const int* a, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = mix(a[i], i, n - i);
    }
}

template <typename T, int BLOCK, typename Op>
static int run(const std::vector<T>& in, T lo, T hi, Op op, T identity, const char* name,
               double tol)
{
    const int n = static_cast<int>(in.size());
    const int blocks = (n + BLOCK - 1) / BLOCK;
    T *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(T)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(T)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    block_reduce<T, BLOCK, Op><<<blocks, BLOCK>>>(din, dout, n, lo, hi, op, identity);
    CHECK(cudaGetLastError());
    std::vector<T> out(blocks);
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
        T want = identity;
        double mag = 0.0;
        for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < n; ++i) {
            const T v = transform(clamp_to(in[i], lo, hi));
            want = op(want, v);
            mag += std::fabs(static_cast<double>(v));
        }
        const double diff = std::fabs(static_cast<double>(out[b]) - static_cast<double>(want));
        if (!(diff <= tol * mag)) {
            std::printf("FAIL: %s block %d: %.9g, expected %.9g\n", name, b,
                        static_cast<double>(out[b]), static_cast<double>(want));
            return 1;
        }
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    return 0;
}

int main()
{
    unsigned seed = 777u;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    const int n = 1000;
    std::vector<float> f(n);
    std::vector<int> k(n);
    for (int i = 0; i < n; ++i) {
        f[i] = static_cast<float>(next() % 20001u) / 1000.0f - 10.0f;
        k[i] = static_cast<int>(next() % 2001u) - 1000;
    }
    if (run<float, 128>(f, -5.0f, 7.5f, Add{}, 0.0f, "float sum", 1e-5) != 0 ||
        run<int, 128>(k, -600, 900, Add{}, 0, "int sum", 0.0) != 0 ||
        run<float, 64>(f, -5.0f, 7.5f, Max{}, -1e30f, "float max", 0.0) != 0 ||
        run<int, 256>(k, -600, 900, Max{}, -2147483647 - 1, "int max", 0.0) != 0) {
        return 1;
    }

    int *da, *dout;
    CHECK(cudaMalloc(&da, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMemcpy(da, k.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    call_mix<<<(n + 127) / 128, 128>>>(da, dout, n);
    CHECK(cudaGetLastError());
    std::vector<int> out(n);
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int want = (k[i] ^ (i << 3)) + (n - i) * 7;
        if (out[i] != want) {
            std::printf("FAIL: call_mix: out[%d] = %d, expected %d\n", i, out[i], want);
            return 1;
        }
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(dout));
    std::printf("templates: OK\n");
    return 0;
}
