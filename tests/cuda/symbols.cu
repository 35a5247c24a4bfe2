// Module variables: __constant__ arrays written with cudaMemcpyToSymbol (whole and at an
// offset) and read back with cudaMemcpyFromSymbol; __constant__ and __device__ variables with
// initialisers, seen by kernels and by cudaMemcpyFromSymbol before any launch; a __device__
// counter updated by a kernel; cudaGetSymbolAddress of a __device__ array passed to a kernel
// as a plain pointer; cudaGetSymbolSize.
#include <cstdio>
#include <cstring>

#include "check.cuh"

constexpr int N = 64;

__constant__ float coeffs[8];                          // written by the host
__constant__ int offsets[4] = {3, -7, 11, 1000};       // initialised
__device__ int counter = 42;                           // initialised, updated by a kernel
__device__ float table[5] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
__device__ double scale;                               // written by the host
__device__ int results[N];                             // reached through its address

// out[i] = polynomial in x[i] with the constant coefficients, plus offsets and table entries.
__global__ void use_symbols(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 7; k >= 0; --k) {
            acc = acc * x[i] + coeffs[k];
        }
        out[i] = acc + offsets[i % 4] + table[i % 5] * static_cast<float>(scale);
        atomicAdd(&counter, 1);
    }
}

// Writes through a pointer the host got from cudaGetSymbolAddress.
__global__ void fill(int* dst, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i] = base + i * i;
    }
}

// Reads the __device__ array by name, to see what fill wrote through the address.
__global__ void sum_results(long long* total)
{
    long long s = 0;
    for (int i = 0; i < N; ++i) {
        s += results[i];
    }
    *total = s;
}

int main()
{
    // Initialisers, before any launch.
    int counter0 = 0;
    CHECK(cudaMemcpyFromSymbol(&counter0, counter, sizeof(int)));
    EXPECT(counter0 == 42, "counter starts at %d, expected 42", counter0);
    float table0[5];
    CHECK(cudaMemcpyFromSymbol(table0, table, sizeof table0));
    for (int k = 0; k < 5; ++k) {
        EXPECT(table0[k] == 0.5f + k, "table[%d] = %g, expected %g", k, table0[k], 0.5f + k);
    }
    int offsets0[4];
    CHECK(cudaMemcpyFromSymbol(offsets0, offsets, sizeof offsets0));
    EXPECT(offsets0[0] == 3 && offsets0[1] == -7 && offsets0[2] == 11 && offsets0[3] == 1000,
           "offsets = {%d, %d, %d, %d}, expected {3, -7, 11, 1000}", offsets0[0], offsets0[1],
           offsets0[2], offsets0[3]);

    // Sizes.
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, coeffs));
    EXPECT(size == 8 * sizeof(float), "cudaGetSymbolSize(coeffs) = %zu, expected %zu", size,
           8 * sizeof(float));
    CHECK(cudaGetSymbolSize(&size, results));
    EXPECT(size == N * sizeof(int), "cudaGetSymbolSize(results) = %zu, expected %zu", size,
           N * sizeof(int));

    // Constant coefficients: the first six in one copy, the last two at an offset.
    const float c[8] = {1.0f, -0.5f, 0.25f, 0.125f, -0.0625f, 0.03125f, 0.5f, -0.25f};
    CHECK(cudaMemcpyToSymbol(coeffs, c, 6 * sizeof(float)));
    CHECK(cudaMemcpyToSymbol(coeffs, c + 6, 2 * sizeof(float), 6 * sizeof(float)));
    float back[8] = {};
    CHECK(cudaMemcpyFromSymbol(back, coeffs, sizeof back));
    EXPECT(std::memcmp(back, c, sizeof c) == 0, "coeffs read back differ from those written");
    float tail[2] = {};
    CHECK(cudaMemcpyFromSymbol(tail, coeffs, sizeof tail, 6 * sizeof(float)));
    EXPECT(tail[0] == c[6] && tail[1] == c[7], "coeffs[6..7] read at an offset = %g %g", tail[0],
           tail[1]);
    const double s = 2.0;
    CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s, 0, cudaMemcpyHostToDevice));

    // Kernel reading every kind of variable.
    float x[N], out[N];
    for (int i = 0; i < N; ++i) {
        x[i] = -1.0f + 2.0f * i / N;
    }
    float *dx, *dout;
    CHECK(cudaMalloc(&dx, sizeof x));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    use_symbols<<<2, 32>>>(dx, dout, N);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    const int offs[4] = {3, -7, 11, 1000};
    for (int i = 0; i < N; ++i) {
        float acc = 0.0f;
        for (int k = 7; k >= 0; --k) {
            acc = acc * x[i] + c[k];
        }
        const float want = acc + offs[i % 4] + (0.5f + i % 5) * 2.0f;
        const float diff = out[i] > want ? out[i] - want : want - out[i];
        EXPECT(diff <= 1e-5f * (want < 0 ? -want : want) + 1e-5f, "out[%d] = %.9g, expected %.9g",
               i, out[i], want);
    }
    int counter1 = 0;
    CHECK(cudaMemcpyFromSymbol(&counter1, counter, sizeof(int)));
    EXPECT(counter1 == 42 + N, "counter = %d after the launch, expected %d", counter1, 42 + N);

    // cudaGetSymbolAddress: the kernel writes the __device__ array through a plain pointer.
    int* dresults = nullptr;
    CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&dresults), results));
    EXPECT(dresults != nullptr, "cudaGetSymbolAddress gave a null pointer");
    fill<<<1, N>>>(dresults, N, 7);
    CHECK(cudaGetLastError());
    int r[N];
    CHECK(cudaMemcpyFromSymbol(r, results, sizeof r));
    long long want_total = 0;
    for (int i = 0; i < N; ++i) {
        EXPECT(r[i] == 7 + i * i, "results[%d] = %d (by symbol), expected %d", i, r[i], 7 + i * i);
        want_total += r[i];
    }
    int r2[N];
    CHECK(cudaMemcpy(r2, dresults, sizeof r2, cudaMemcpyDeviceToHost));
    EXPECT(std::memcmp(r, r2, sizeof r) == 0, "results read by address differ from by symbol");
    long long* dtotal;
    CHECK(cudaMalloc(&dtotal, sizeof(long long)));
    sum_results<<<1, 1>>>(dtotal);
    CHECK(cudaGetLastError());
    long long total = 0;
    CHECK(cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost));
    EXPECT(total == want_total, "sum of results by name = %lld, expected %lld", total, want_total);

    CHECK(cudaFree(dx));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dtotal));
    std::printf("symbols: OK\n");
    return 0;
}
