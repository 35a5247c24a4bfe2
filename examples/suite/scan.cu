// Exclusive prefix sum of a large int array: out[i] = in[0] + ... + in[i - 1], out[0] = 0.
// Kernels: scan_tiles scans tiles of 1024 ints (256 threads x 4 consecutive items: a serial
// scan per thread, warp shuffles across a warp, one warp over the warp totals) and writes
// each tile's total; add_tile_offsets adds the scanned tile totals back to every element.
// Launch structure: the tile totals are scanned by the same two kernels recursively, each
// level 1024 times shorter than the one below: scan_tiles on every level going up, a
// single-tile scan at the top, then add_tile_offsets on every level going back down.
// Sizes: small = 20,000 ints (20 tiles, two levels); paper = 6,000,000 ints (5860 tiles,
// three levels). Neither is a multiple of the tile, so partial tiles are exercised.
// Check: the CPU computes the same exclusive scan; every element must match exactly.
// run-args: small
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int block_threads = 256;
constexpr int items_per_thread = 4;
constexpr int tile_size = block_threads * items_per_thread;
constexpr int warps_per_block = block_threads / 32;

// Each thread reads 4 consecutive words of the shared tile, a stride that would put 4 lanes
// on one bank; one padding word per 32 spreads them over all banks.
__device__ __forceinline__ int padded(int i)
{
    return i + (i >> 5);
}

__global__ void scan_tiles(const int* in, int* out, int* tile_totals, int n)
{
    __shared__ int tile[tile_size + tile_size / 32];
    __shared__ int warp_totals[warps_per_block];
    const int base = blockIdx.x * tile_size;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;

    // Coalesced load: consecutive threads take consecutive words; past the end reads as 0.
    for (int k = threadIdx.x; k < tile_size; k += block_threads) {
        tile[padded(k)] = base + k < n ? in[base + k] : 0;
    }
    __syncthreads();

    // Serial exclusive scan of this thread's 4 items.
    int items[items_per_thread];
    int sum = 0;
    for (int j = 0; j < items_per_thread; ++j) {
        items[j] = sum;
        sum += tile[padded(threadIdx.x * items_per_thread + j)];
    }

    // Inclusive scan of the thread sums within the warp.
    int inclusive = sum;
    for (int d = 1; d < 32; d <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) {
            inclusive += up;
        }
    }
    if (lane == 31) {
        warp_totals[warp] = inclusive;
    }
    __syncthreads();

    // The first warp turns the warp totals into exclusive warp offsets.
    if (warp == 0) {
        const int total = lane < warps_per_block ? warp_totals[lane] : 0;
        int running = total;
        for (int d = 1; d < warps_per_block; d <<= 1) {
            const int up = __shfl_up_sync(0xffffffffu, running, d);
            if (lane >= d) {
                running += up;
            }
        }
        if (lane < warps_per_block) {
            warp_totals[lane] = running - total;
        }
        if (lane == warps_per_block - 1 && tile_totals != nullptr) {
            tile_totals[blockIdx.x] = running;
        }
    }
    __syncthreads();

    const int offset = warp_totals[warp] + inclusive - sum;
    for (int j = 0; j < items_per_thread; ++j) {
        tile[padded(threadIdx.x * items_per_thread + j)] = items[j] + offset;
    }
    __syncthreads();
    for (int k = threadIdx.x; k < tile_size && base + k < n; k += block_threads) {
        out[base + k] = tile[padded(k)];
    }
}

__global__ void add_tile_offsets(int* data, const int* tile_offsets, int n)
{
    // Tile 0's offset is 0, so those blocks have nothing to do.
    if (blockIdx.x == 0) {
        return;
    }
    const int offset = tile_offsets[blockIdx.x];
    const int base = blockIdx.x * tile_size;
    for (int k = threadIdx.x; k < tile_size && base + k < n; k += block_threads) {
        data[base + k] += offset;
    }
}

// Exclusive scan of in[0..n) into out (which may be the same buffer: each block reads its
// whole tile before writing it). Returns 0 or, after printing FAIL, 1.
static int scan_device(const int* in, int* out, int n, int& launches)
{
    const int tiles = (n + tile_size - 1) / tile_size;
    if (tiles == 1) {
        scan_tiles<<<1, block_threads>>>(in, out, nullptr, n);
        CHECK(cudaGetLastError());
        ++launches;
        return 0;
    }
    int* totals;
    CHECK(cudaMalloc(&totals, tiles * sizeof(int)));
    scan_tiles<<<tiles, block_threads>>>(in, out, totals, n);
    CHECK(cudaGetLastError());
    ++launches;
    if (scan_device(totals, totals, tiles, launches) != 0) {
        return 1;
    }
    add_tile_offsets<<<tiles, block_threads>>>(out, totals, n);
    CHECK(cudaGetLastError());
    ++launches;
    CHECK(cudaFree(totals));
    return 0;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? 6000000 : 20000;

    // Values in [-128, 128): the running sum stays far inside int for these sizes and
    // negative entries make a non-monotone prefix.
    std::vector<int> in(n);
    uint64_t state = seed;
    for (int& v : in) {
        v = static_cast<int>(splitmix64(state) >> 56) - 128;
    }

    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0xff, n * sizeof(int)));
    int launches = 0;
    if (scan_device(din, dout, n, launches) != 0) {
        return 1;
    }
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));

    int running = 0;
    for (int i = 0; i < n; ++i) {
        if (got[i] != running) {
            std::printf("FAIL: out[%d] = %d, expected %d\n", i, got[i], running);
            return 1;
        }
        running += in[i];
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    std::printf("scan: OK (%d ints, %d launches)\n", n, launches);
    return 0;
}
