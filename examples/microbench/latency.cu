// Load-to-use latency of the memory hierarchy, by footprint: one thread follows a chain of
// dependent loads (each load's value is the index of the next) through an array of the given
// size, and the SM's cycle counter around the chain gives cycles per load. The chain visits
// the array's 128-byte lines in a random cyclic order (Sattolo's algorithm over the lines, the
// first word of each line), so neither a stride prefetcher nor DRAM row hits shorten it, and
// every load of the chain is to a different line than the one before.
//
// Before the chain, the same block's 256 threads read every line of the array once (when the
// array fits in twice the L2, as the card or preset reports it), so a footprint that fits in
// the L1 is an L1 hit, one that fits in the L2 an L2 hit; larger footprints miss in both and
// measure the DRAM (on a real card, with address translation misses at the largest sizes).
// Sizes: small = 4 KiB to 3 MiB in six steps (past the GTX480's 16/48 KiB L1 and 768 KiB L2),
// 256 loads per chain; full = 8 KiB to 512 MiB in thirteen steps, 4096 loads per chain.
// Check: the index the chain ends on is the one the CPU reaches following the same chain.
// run-args: small
#include <cstdint>
#include <cstdio>
#include <vector>

#include "microbench.cuh"

constexpr unsigned line_words = 32; // 128-byte lines of 4-byte words

__global__ void chase(const unsigned* next, unsigned words, int warm, int steps, long long* cycles,
                      unsigned* end)
{
    if (warm) {
        unsigned sum = 0;
        for (unsigned w = threadIdx.x * line_words; w < words; w += blockDim.x * line_words)
            sum += next[w];
        if (sum == 0xffffffffu) end[1] = sum; // keeps the loads; never true for a chain
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned j = 0;
    const long long start = cycle_counter();
#pragma unroll 8
    for (int i = 0; i < steps; ++i) j = next[j];
    const long long stop = cycle_counter();
    cycles[0] = stop - start;
    end[0] = j;
}

int main(int argc, char** argv)
{
    const bool full = full_size(argc, argv);
    const int steps = full ? 4096 : 256;
    const uint64_t small_kib[] = {4, 12, 32, 96, 384, 3072};
    const uint64_t full_kib[] = {8,    32,    96,    192,    512,    2048,  8192,
                                 20480, 32768, 65536, 131072, 262144, 524288};
    const uint64_t* kib = full ? full_kib : small_kib;
    const int points = full ? 13 : 6;

    int l2_bytes = 0;
    if (cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0) != cudaSuccess) {
        l2_bytes = 0;
        cudaGetLastError();
    }
    const uint64_t warm_limit = l2_bytes > 0 ? 2ull * static_cast<uint64_t>(l2_bytes) : 4ull << 20;

    long long* d_cycles;
    unsigned* d_end;
    CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
    CHECK(cudaMalloc(&d_end, 2 * sizeof(unsigned)));
    uint64_t state = 1;
    for (int p = 0; p < points; ++p) {
        const uint64_t bytes = kib[p] << 10;
        const unsigned words = static_cast<unsigned>(bytes / 4);
        const unsigned lines = words / line_words;
        // Sattolo's algorithm: a random permutation of the lines that is one single cycle.
        std::vector<unsigned> order(lines);
        for (unsigned i = 0; i < lines; ++i) order[i] = i;
        for (unsigned i = lines - 1; i > 0; --i) {
            const unsigned k = static_cast<unsigned>(next_random(state) % i);
            const unsigned t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
        // order[] read as "the line after line i is order[i]" is a single cycle.
        std::vector<unsigned> next(words, 0);
        for (unsigned i = 0; i < lines; ++i) next[i * line_words] = order[i] * line_words;

        unsigned* d_next;
        CHECK(cudaMalloc(&d_next, bytes));
        CHECK(cudaMemcpy(d_next, next.data(), bytes, cudaMemcpyHostToDevice));
        const int warm = bytes <= warm_limit ? 1 : 0;
        chase<<<1, 256>>>(d_next, words, warm, steps, d_cycles, d_end);
        CHECK(cudaGetLastError());
        long long cycles = 0;
        unsigned end = 0;
        CHECK(cudaMemcpy(&cycles, d_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&end, d_end, sizeof end, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(d_next));

        unsigned want = 0;
        for (int i = 0; i < steps; ++i) want = next[want];
        EXPECT(end == want, "latency: the %llu KiB chain ended on word %u, expected %u",
               static_cast<unsigned long long>(kib[p]), end, want);
        char name[64];
        std::snprintf(name, sizeof name, "load_%lluKiB%s", static_cast<unsigned long long>(kib[p]),
                      warm ? "" : "_cold");
        report("latency", name, static_cast<double>(cycles) / steps, "cycles");
    }
    CHECK(cudaFree(d_cycles));
    CHECK(cudaFree(d_end));
    std::printf("latency: OK\n");
    return 0;
}
