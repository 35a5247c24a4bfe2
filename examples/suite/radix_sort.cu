// Least-significant-digit radix sort of 32-bit unsigned keys, 4 bits per pass (8 passes).
// Each pass is three launches over tiles of 1024 keys (256 threads x 4 rounds):
//   count_digits   - per tile, a 16-bin histogram of the pass's digit (shared-memory
//                    atomics), stored digit-major: counts[digit * tiles + tile];
//   scan_counts    - one block turns counts into an exclusive prefix sum, which is then the
//                    first output slot of every (digit, tile) pair: all smaller digits come
//                    first, and within a digit, earlier tiles;
//   scatter_digits - per tile, each key's rank among the equal digits before it (ballots
//                    find a warp's equal-digit lanes, a small per-warp table orders the
//                    warps), so the move is stable, as LSD radix sort needs.
// The keys ping-pong between two buffers; after 8 passes they are back in the first.
// Sizes: small = 5,000 keys (5 tiles); paper = 500,000 keys (489 tiles). Every eighth key
// is drawn from 64 values, so there are many duplicates.
// Check: the result must equal std::sort of the same keys exactly.
// run-args: small
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int block_threads = 256;
constexpr int rounds = 4;
constexpr int tile_size = block_threads * rounds;
constexpr int warps = block_threads / 32;
constexpr int radix = 16;
constexpr int digit_bits = 4;

__global__ void count_digits(const unsigned* keys, int n, int shift, unsigned* counts)
{
    __shared__ unsigned hist[radix];
    if (threadIdx.x < radix) {
        hist[threadIdx.x] = 0;
    }
    __syncthreads();
    const int base = blockIdx.x * tile_size;
    for (int k = threadIdx.x; k < tile_size && base + k < n; k += block_threads) {
        atomicAdd(&hist[(keys[base + k] >> shift) & (radix - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < radix) {
        counts[threadIdx.x * gridDim.x + blockIdx.x] = hist[threadIdx.x];
    }
}

// Exclusive scan of m counts by one block: each thread scans a contiguous chunk serially,
// and a Hillis-Steele scan over the 256 chunk totals supplies each chunk's starting value.
__global__ void scan_counts(unsigned* counts, int m)
{
    __shared__ unsigned totals[2][block_threads];
    const int chunk = (m + block_threads - 1) / block_threads;
    const int begin = min(m, threadIdx.x * chunk);
    const int end = min(m, begin + chunk);
    unsigned sum = 0;
    for (int i = begin; i < end; ++i) {
        sum += counts[i];
    }
    int cur = 0;
    totals[cur][threadIdx.x] = sum;
    __syncthreads();
    for (int d = 1; d < block_threads; d <<= 1) {
        const unsigned v = totals[cur][threadIdx.x];
        totals[cur ^ 1][threadIdx.x] = threadIdx.x >= d ? v + totals[cur][threadIdx.x - d] : v;
        cur ^= 1;
        __syncthreads();
    }
    unsigned running = totals[cur][threadIdx.x] - sum;
    for (int i = begin; i < end; ++i) {
        const unsigned c = counts[i];
        counts[i] = running;
        running += c;
    }
}

__global__ void scatter_digits(const unsigned* keys_in, unsigned* keys_out, int n, int shift,
                               const unsigned* offsets)
{
    __shared__ unsigned next_slot[radix];        // output slot of the next key per digit
    __shared__ unsigned warp_hist[warps][radix]; // this round's equal-digit counts per warp
    __shared__ unsigned warp_base[warps][radix]; // where each warp's run of a digit starts
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (threadIdx.x < radix) {
        next_slot[threadIdx.x] = offsets[threadIdx.x * gridDim.x + blockIdx.x];
    }
    if (threadIdx.x < warps * radix) {
        warp_hist[threadIdx.x / radix][threadIdx.x % radix] = 0;
    }
    __syncthreads();

    const int base = blockIdx.x * tile_size;
    // Rounds visit the tile in key order (round, then warp, then lane), so ranks assigned in
    // that order keep equal digits in input order.
    for (int r = 0; r < rounds; ++r) {
        const int idx = base + r * block_threads + threadIdx.x;
        const bool valid = idx < n;
        const unsigned key = valid ? keys_in[idx] : 0u;
        const unsigned digit = (key >> shift) & (radix - 1);
        // Lanes whose digit equals this lane's: intersect one ballot per digit bit.
        unsigned peers = __ballot_sync(0xffffffffu, valid);
        for (int b = 0; b < digit_bits; ++b) {
            const unsigned ones = __ballot_sync(0xffffffffu, (digit >> b) & 1u);
            peers &= ((digit >> b) & 1u) ? ones : ~ones;
        }
        const unsigned rank = __popc(peers & ((1u << lane) - 1u));
        if (valid && rank == 0) {
            warp_hist[warp][digit] = __popc(peers);
        }
        __syncthreads();
        // One thread per digit orders the warps' runs and clears the table for next round.
        if (threadIdx.x < radix) {
            unsigned slot = next_slot[threadIdx.x];
            for (int w = 0; w < warps; ++w) {
                warp_base[w][threadIdx.x] = slot;
                slot += warp_hist[w][threadIdx.x];
                warp_hist[w][threadIdx.x] = 0;
            }
            next_slot[threadIdx.x] = slot;
        }
        __syncthreads();
        if (valid) {
            keys_out[warp_base[warp][digit] + rank] = key;
        }
    }
}

// xorshift64* generator.
static uint64_t next_random(uint64_t& state)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545f4914f6cdd1dull;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? 500000 : 5000;

    // xorshift64* needs a nonzero state; mix the seed so small seeds differ in many bits.
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    std::vector<unsigned> keys(n);
    for (int i = 0; i < n; ++i) {
        const uint64_t r = next_random(state);
        keys[i] = i % 8 == 7 ? static_cast<unsigned>(r >> 58) * 0x04000001u
                             : static_cast<unsigned>(r >> 32);
    }

    const int tiles = (n + tile_size - 1) / tile_size;
    const int m = radix * tiles;
    unsigned *dkeys[2], *dcounts;
    CHECK(cudaMalloc(&dkeys[0], n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dkeys[1], n * sizeof(unsigned)));
    CHECK(cudaMalloc(&dcounts, m * sizeof(unsigned)));
    CHECK(cudaMemcpy(dkeys[0], keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    int launches = 0;
    for (int pass = 0; pass < 32 / digit_bits; ++pass) {
        const int shift = pass * digit_bits;
        const unsigned* in = dkeys[pass % 2];
        unsigned* out = dkeys[(pass + 1) % 2];
        count_digits<<<tiles, block_threads>>>(in, n, shift, dcounts);
        CHECK(cudaGetLastError());
        scan_counts<<<1, block_threads>>>(dcounts, m);
        CHECK(cudaGetLastError());
        scatter_digits<<<tiles, block_threads>>>(in, out, n, shift, dcounts);
        CHECK(cudaGetLastError());
        launches += 3;
    }
    std::vector<unsigned> got(n);
    CHECK(cudaMemcpy(got.data(), dkeys[0], n * sizeof(unsigned), cudaMemcpyDeviceToHost));

    std::vector<unsigned> want = keys;
    std::sort(want.begin(), want.end());
    for (int i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            std::printf("FAIL: sorted[%d] = %u, expected %u\n", i, got[i], want[i]);
            return 1;
        }
    }
    CHECK(cudaFree(dkeys[0]));
    CHECK(cudaFree(dkeys[1]));
    CHECK(cudaFree(dcounts));
    std::printf("radix_sort: OK (%d keys, %d tiles, %d launches)\n", n, tiles, launches);
    return 0;
}
