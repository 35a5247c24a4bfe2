// Sustained DRAM bandwidth of two streaming kernels over float arrays far larger than the L2:
//   copy:  c[i] = a[i]                 (8 bytes moved per element)
//   triad: a[i] = b[i] + s * c[i]      (12 bytes moved per element)
// Each is a grid-stride loop over a grid that fills every SM to its occupancy limit, timed
// with events; the figure is the best of the repetitions, in GB/s, in bytes per core cycle
// (the core clock the card or preset reports) and, where the memory clock and bus width are
// reported, as a share of the theoretical peak (2 x memory clock x bus width: CUDA's memory
// clock is half the data rate per pin).
// Sizes: small = 512 Ki floats per array (2 MiB, past the GTX480's 768 KiB L2), one repetition;
// full = 64 Mi floats per array (256 MiB), ten repetitions.
// Check: every element of c after the copy and of a after the triad, against the CPU (one
// correctly rounded multiply and add, computed the same way on both sides: fmaf).
// run-args: small
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "microbench.cuh"

__global__ void copy_kernel(const float* a, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i];
}

__global__ void triad_kernel(float* a, const float* b, const float* c, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = fmaf(s, c[i], b[i]);
}

int main(int argc, char** argv)
{
    const bool full = full_size(argc, argv);
    const int n = full ? 64 << 20 : 1 << 19;
    const int reps = full ? 10 : 1;
    const float s = 3.0f;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);

    std::vector<float> a(n), b(n);
    uint64_t state = 1;
    for (int i = 0; i < n; ++i) {
        a[i] = static_cast<float>(next_random(state) >> 40) / 16777216.0f;
        b[i] = static_cast<float>(next_random(state) >> 40) / 16777216.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));

    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block = 256;
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, triad_kernel, block, 0));
    const int grid = std::max(1, sms * per_sm);

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float best_copy = 0.0f, best_triad = 0.0f;
    for (int r = 0; r < reps; ++r) {
        float ms = 0.0f;
        CHECK(cudaEventRecord(start));
        copy_kernel<<<grid, block>>>(da, dc, n);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best_copy = r == 0 ? ms : std::min(best_copy, ms);
        // The triad writes a, which the next repetition's copy reads; the check below follows
        // the same sequence.
        CHECK(cudaEventRecord(start));
        triad_kernel<<<grid, block>>>(da, db, dc, s, n);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best_triad = r == 0 ? ms : std::min(best_triad, ms);
    }

    std::vector<float> got_a(n), got_c(n);
    CHECK(cudaMemcpy(got_a.data(), da, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_c.data(), dc, bytes, cudaMemcpyDeviceToHost));
    std::vector<float> c(n);
    for (int r = 0; r < reps; ++r) {
        for (int i = 0; i < n; ++i) c[i] = a[i];
        for (int i = 0; i < n; ++i) a[i] = std::fma(s, c[i], b[i]);
    }
    for (int i = 0; i < n; ++i) {
        EXPECT(std::memcmp(&got_c[i], &c[i], sizeof(float)) == 0,
               "bandwidth: c[%d] = %.9g, expected %.9g", i, got_c[i], c[i]);
        EXPECT(std::memcmp(&got_a[i], &a[i], sizeof(float)) == 0,
               "bandwidth: a[%d] = %.9g, expected %.9g", i, got_a[i], a[i]);
    }

    const int core_khz = core_clock_khz();
    int mem_khz = 0, bus_bits = 0;
    double peak = 0.0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess)
        peak = 2.0 * mem_khz * 1e3 * bus_bits / 8.0 / 1e9;
    else
        cudaGetLastError();
    const struct {
        const char* name;
        float ms;
        double bytes_per_element;
    } kernels[] = {{"copy", best_copy, 8.0}, {"triad", best_triad, 12.0}};
    if (peak > 0) report("bandwidth", "peak", peak, "GB/s");
    for (const auto& k : kernels) {
        const double moved = k.bytes_per_element * n;
        const double gbs = k.ms > 0 ? moved / (k.ms * 1e-3) / 1e9 : 0.0;
        report("bandwidth", k.name, gbs, "GB/s");
        char name[64];
        std::snprintf(name, sizeof name, "%s_per_cycle", k.name);
        const double cycles = static_cast<double>(k.ms) * core_khz;
        report("bandwidth", name, cycles > 0 ? moved / cycles : 0.0, "bytes/cycle");
        if (peak > 0) {
            std::snprintf(name, sizeof name, "%s_share_of_peak", k.name);
            report("bandwidth", name, 100.0 * gbs / peak, "%");
        }
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::printf("bandwidth: OK\n");
    return 0;
}
