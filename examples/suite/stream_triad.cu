// Sustained memory bandwidth: four streaming kernels over three large float arrays a, b, c.
//   copy:  c = a            scale: b = s * c
//   add:   c = a + b        triad: a = fma(s, c, b)
// Each kernel is a grid-stride loop launched with a fixed grid (a few blocks per SM), so the
// same launch shape covers any array length. The four kernels run in that order for a few
// rounds; every element is touched once per kernel, so the work is pure streaming.
// Sizes: small = 16,384 floats per array, 2 rounds; paper = 2,097,152 floats per array
// (24 MiB in all), 2 rounds.
// Check: the CPU runs the same rounds; every operation is one correctly rounded IEEE step
// (the triad uses fma on both sides), so all three arrays must match bit for bit.
// The OK line also reports bytes moved per simulated cycle, timed with events.
// run-args: small
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

__global__ void stream_copy(const float* __restrict__ a, float* __restrict__ c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        c[i] = a[i];
    }
}

__global__ void stream_scale(const float* __restrict__ c, float* __restrict__ b, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        b[i] = s * c[i];
    }
}

__global__ void stream_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}

__global__ void stream_triad(const float* __restrict__ b, const float* __restrict__ c,
                             float* __restrict__ a, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        // An explicit fma, so the CPU reference can reproduce the single rounding exactly.
        a[i] = fmaf(s, c[i], b[i]);
    }
}

// Uniform in [-1, 1) with 24 random bits.
static float uniform(uint64_t& state)
{
    const int32_t r = static_cast<int32_t>(splitmix64(state) >> 40) - (1 << 23);
    return static_cast<float>(r) / (1 << 23);
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? 1 << 21 : 16384;
    const int rounds = 2;
    const float s = 0.75f;

    std::vector<float> a(n), b(n), c(n);
    uint64_t state = seed;
    for (int i = 0; i < n; ++i) {
        a[i] = uniform(state);
        b[i] = uniform(state);
        c[i] = uniform(state);
    }

    float *da, *db, *dc;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), bytes, cudaMemcpyHostToDevice));

    // A fixed grid of a few blocks per SM: enough warps in flight to cover DRAM latency,
    // and the grid-stride loop spreads any n over them.
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block = 256;
    const int max_grid = sms * 4;
    const int grid = std::min(max_grid, (n + block - 1) / block);

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int r = 0; r < rounds; ++r) {
        stream_copy<<<grid, block>>>(da, dc, n);
        CHECK(cudaGetLastError());
        stream_scale<<<grid, block>>>(dc, db, s, n);
        CHECK(cudaGetLastError());
        stream_add<<<grid, block>>>(da, db, dc, n);
        CHECK(cudaGetLastError());
        stream_triad<<<grid, block>>>(db, dc, da, s, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    std::vector<float> ga(n), gb(n), gc(n);
    CHECK(cudaMemcpy(ga.data(), da, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gb.data(), db, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gc.data(), dc, bytes, cudaMemcpyDeviceToHost));

    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < n; ++i) {
            c[i] = a[i];
            b[i] = s * c[i];
            c[i] = a[i] + b[i];
            a[i] = std::fma(s, c[i], b[i]);
        }
    }
    const struct {
        const char* name;
        const std::vector<float>& got;
        const std::vector<float>& want;
    } arrays[] = {{"a", ga, a}, {"b", gb, b}, {"c", gc, c}};
    for (const auto& arr : arrays) {
        for (int i = 0; i < n; ++i) {
            if (std::memcmp(&arr.got[i], &arr.want[i], sizeof(float)) != 0) {
                std::printf("FAIL: %s[%d] = %.9g, expected %.9g\n", arr.name, i, arr.got[i],
                            arr.want[i]);
                return 1;
            }
        }
    }

    // Bytes each round moves: copy and scale read one array and write one, add and triad
    // read two and write one: 10 array passes.
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const double cycles = static_cast<double>(ms) * clock_khz;
    const double moved = 10.0 * rounds * static_cast<double>(bytes);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("stream_triad: OK (%d floats x 3 arrays, %d rounds, %.1f bytes/cycle)\n", n,
                rounds, cycles > 0 ? moved / cycles : 0.0);
    return 0;
}
