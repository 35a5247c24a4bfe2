// Atomic add throughput for four address patterns, every thread of a full grid (every SM at
// its occupancy limit) doing the same number of atomicAdd(…, 1):
//   global_same_address   every thread of the grid on one word
//   global_warp_address   the 32 lanes of a warp on one word, each warp its own
//   global_distinct       each thread its own word (a warp covers 128 contiguous bytes)
//   shared_distinct       each thread its own shared-memory word
// Timed with events (best of the repetitions); the figures are atomics per core cycle for the
// whole GPU and per SM (the core clock the card or preset reports).
// Sizes: small = 8 atomics per thread, one repetition; full = 64 per thread, five repetitions.
// Check: every counter holds exactly the number of adds made to it.
// run-args: small
#include <algorithm>
#include <cstdio>
#include <vector>

#include "microbench.cuh"

enum pattern { same_address, warp_address, distinct, shared_distinct };

__global__ void add_ones(pattern how, unsigned* counters, int iters)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (how == shared_distinct) {
        extern __shared__ unsigned local[];
        local[threadIdx.x] = 0;
        __syncthreads();
        for (int i = 0; i < iters; ++i) atomicAdd(&local[threadIdx.x], 1u);
        __syncthreads();
        counters[tid] = local[threadIdx.x];
        return;
    }
    const unsigned word = how == same_address ? 0u : how == warp_address ? tid / 32 : tid;
    for (int i = 0; i < iters; ++i) atomicAdd(&counters[word], 1u);
}

int main(int argc, char** argv)
{
    const bool full = full_size(argc, argv);
    const int iters = full ? 64 : 8;
    const int reps = full ? 5 : 1;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block = 256;
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_ones, block,
                                                        block * sizeof(unsigned)));
    const int grid = std::max(1, sms * per_sm);
    const unsigned threads = static_cast<unsigned>(grid) * block;
    unsigned* d_counters;
    CHECK(cudaMalloc(&d_counters, threads * sizeof(unsigned)));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    const int core_khz = core_clock_khz();
    const struct {
        pattern how;
        const char* name;
    } cases[] = {{same_address, "global_same_address"},
                 {warp_address, "global_warp_address"},
                 {distinct, "global_distinct"},
                 {shared_distinct, "shared_distinct"}};
    std::vector<unsigned> got(threads);
    for (const auto& c : cases) {
        float best = 0.0f;
        for (int r = 0; r < reps; ++r) {
            CHECK(cudaMemset(d_counters, 0, threads * sizeof(unsigned)));
            CHECK(cudaEventRecord(start));
            add_ones<<<grid, block, block * sizeof(unsigned)>>>(c.how, d_counters, iters);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, start, stop));
            best = r == 0 ? ms : std::min(best, ms);
        }
        CHECK(cudaMemcpy(got.data(), d_counters, threads * sizeof(unsigned),
                         cudaMemcpyDeviceToHost));
        for (unsigned i = 0; i < threads; ++i) {
            unsigned want = 0;
            if (c.how == same_address) want = i == 0 ? threads * iters : 0;
            else if (c.how == warp_address) want = i < threads / 32 ? 32u * iters : 0;
            else want = iters;
            EXPECT(got[i] == want, "atomics: %s: counter %u = %u, expected %u", c.name, i, got[i],
                   want);
        }
        const double cycles = static_cast<double>(best) * core_khz;
        const double ops = static_cast<double>(threads) * iters;
        char name[64];
        std::snprintf(name, sizeof name, "%s_per_cycle", c.name);
        report("atomics", name, cycles > 0 ? ops / cycles : 0.0, "atomics/cycle");
        std::snprintf(name, sizeof name, "%s_per_cycle_per_sm", c.name);
        report("atomics", name, cycles > 0 ? ops / cycles / sms : 0.0, "atomics/cycle");
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_counters));
    std::printf("atomics: OK\n");
    return 0;
}
