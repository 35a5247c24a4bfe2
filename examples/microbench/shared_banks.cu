// Shared-memory load latency by bank conflict: one warp follows a chain of dependent shared
// loads in which lane l always reads word l * stride (each word holds its own index, so the
// chain stays on the same words), and the SM's cycle counter around the chain gives cycles
// per load. With 32 banks of 4-byte words, a stride of 1 touches 32 banks (no conflict), a
// stride of 2^k puts 2^k lanes on each bank (a 2^k-way conflict, up to 32-way at stride 32);
// stride 0 is a broadcast (every lane the same word).
// Sizes: small and full are the same (256 loads per chain; full repeats each chain ten
// times and keeps the fastest).
// Check: every lane ends on its own word, as the CPU computes.
// run-args: small
#include <cstdio>

#include "microbench.cuh"

constexpr int words = 32 * 32;
constexpr int steps = 256;

__global__ void bank_chain(int stride, long long* cycles, unsigned* end)
{
    __shared__ unsigned table[words];
    for (int i = threadIdx.x; i < words; i += blockDim.x) table[i] = i;
    __syncthreads();
    unsigned j = (threadIdx.x * stride) % words;
    const long long start = cycle_counter();
#pragma unroll 16
    for (int i = 0; i < steps; ++i) j = table[j];
    const long long stop = cycle_counter();
    end[threadIdx.x] = j;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

int main(int argc, char** argv)
{
    const bool full = full_size(argc, argv);
    const int reps = full ? 10 : 1;
    long long* d_cycles;
    unsigned* d_end;
    CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
    CHECK(cudaMalloc(&d_end, 32 * sizeof(unsigned)));
    const int strides[] = {0, 1, 2, 4, 8, 16, 32};
    for (int stride : strides) {
        long long best = 0;
        for (int r = 0; r < reps; ++r) {
            bank_chain<<<1, 32>>>(stride, d_cycles, d_end);
            CHECK(cudaGetLastError());
            long long cycles = 0;
            CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
            best = r == 0 ? cycles : (cycles < best ? cycles : best);
        }
        unsigned end[32];
        CHECK(cudaMemcpy(end, d_end, sizeof end, cudaMemcpyDeviceToHost));
        for (int lane = 0; lane < 32; ++lane) {
            const unsigned want = static_cast<unsigned>(lane * stride) % words;
            EXPECT(end[lane] == want,
                   "shared_banks: stride %d, lane %d ended on word %u, expected %u", stride, lane,
                   end[lane], want);
        }
        char name[64];
        if (stride == 0)
            std::snprintf(name, sizeof name, "broadcast");
        else
            std::snprintf(name, sizeof name, "stride_%d_conflict_%dway", stride, stride);
        report("shared_banks", name, static_cast<double>(best) / steps, "cycles");
    }
    CHECK(cudaFree(d_cycles));
    CHECK(cudaFree(d_end));
    std::printf("shared_banks: OK\n");
    return 0;
}
