// Cheapest top-to-bottom path through a grid of cell costs, by dynamic programming row by
// row: best[r][c] = cost[r][c] + min(best[r-1][c-1], best[r-1][c], best[r-1][c+1]), with
// row 0 being its own cost and columns outside the grid not taking part.
// Kernel: advance_rows, launched once per band of `band` rows from a host loop (ping-pong
// buffers for the current row). A block of 256 threads keeps a row segment in shared memory
// and advances it `band` rows without touching global memory for the row in between; each
// step the valid part of the segment shrinks by one column on each side, so a block loads
// 256 columns and writes the 256 - 2 * band in the middle (neighbouring blocks overlap).
// Sizes: small = 2048 columns x 49 rows (band 8: 6 launches of 9 blocks),
//        paper = 50000 columns x 281 rows (band 20: 14 launches of 232 blocks).
// Check: the whole last row against a CPU pass over the grid, exactly (integers).
// run-args: small
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "suite.cuh"

constexpr int block_threads = 256;
constexpr int unreachable = 1 << 30; // outside the grid: never the minimum of a real cell

// Advances the row `first_row` (held in src) by `steps` rows into dst.
__global__ void advance_rows(const int* cost, const int* src, int* dst, int cols, int first_row,
                             int steps)
{
    __shared__ int prev[block_threads];
    const int t = threadIdx.x;
    // Each block owns block_threads - 2 * steps output columns; its window reaches `steps`
    // columns further on each side for the cells those outputs depend on.
    const int owned = block_threads - 2 * steps;
    const int col = blockIdx.x * owned - steps + t;
    const bool inside = col >= 0 && col < cols;
    prev[t] = inside ? src[col] : unreachable;
    __syncthreads();

    for (int s = 1; s <= steps; ++s) {
        // Thread t's inputs at t - 1 and t + 1 are valid only while t stays s away from
        // the window's edges; nearer the edges it stores `unreachable`, which only threads
        // that own no output column ever read.
        int value = unreachable;
        if (inside && t >= s && t < block_threads - s) {
            const int left = prev[t - 1];
            const int up = prev[t];
            const int right = prev[t + 1];
            const int best = min(up, min(left, right));
            value = cost[(first_row + s) * cols + col] + best;
        }
        __syncthreads(); // every thread has read prev before it is overwritten
        prev[t] = value;
        __syncthreads();
    }
    if (inside && t >= steps && t < block_threads - steps) {
        dst[col] = prev[t];
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int cols, rows, band;
    if (!paper) {
        cols = 2048;
        rows = 49;
        band = 8;
    } else {
        cols = 50000;
        rows = 281;
        band = 20;
    }

    std::vector<int> cost(static_cast<size_t>(rows) * cols);
    uint64_t state = seed;
    for (int& c : cost) {
        c = static_cast<int>(splitmix64(state) % 10);
    }

    // CPU reference, one row at a time.
    std::vector<int> want(cost.begin(), cost.begin() + cols), row(cols);
    for (int r = 1; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            int best = want[c];
            if (c > 0 && want[c - 1] < best) {
                best = want[c - 1];
            }
            if (c + 1 < cols && want[c + 1] < best) {
                best = want[c + 1];
            }
            row[c] = cost[static_cast<size_t>(r) * cols + c] + best;
        }
        want.swap(row);
    }

    int *d_cost, *d_a, *d_b;
    CHECK(cudaMalloc(&d_cost, cost.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_a, cols * sizeof(int)));
    CHECK(cudaMalloc(&d_b, cols * sizeof(int)));
    CHECK(cudaMemcpy(d_cost, cost.data(), cost.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_a, cost.data(), cols * sizeof(int), cudaMemcpyHostToDevice)); // row 0

    int launches = 0;
    for (int r = 0; r < rows - 1; r += band) {
        const int steps = rows - 1 - r < band ? rows - 1 - r : band;
        const int owned = block_threads - 2 * steps;
        const int blocks = (cols + owned - 1) / owned;
        advance_rows<<<blocks, block_threads>>>(d_cost, d_a, d_b, cols, r, steps);
        CHECK(cudaGetLastError());
        ++launches;
        std::swap(d_a, d_b);
    }
    std::vector<int> got(cols);
    CHECK(cudaMemcpy(got.data(), d_a, cols * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_cost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));

    int cheapest = want[0];
    for (int c = 0; c < cols; ++c) {
        if (got[c] != want[c]) {
            std::printf("FAIL: last row column %d = %d, expected %d\n", c, got[c], want[c]);
            return 1;
        }
        cheapest = want[c] < cheapest ? want[c] : cheapest;
    }
    std::printf("pathfinder: OK (%d x %d grid, band %d, %d launches, cheapest path %d)\n", cols,
                rows, band, launches, cheapest);
    return 0;
}
