// 256-bin histogram of a byte stream.
// Kernel: histogram_bytes, a grid-stride loop over the data read as 32-bit words (four bytes
// per load). Each block keeps its own 256-bin sub-histogram in shared memory, so the many
// colliding increments stay on-chip; at the end every block adds its bins to the global
// histogram with one atomicAdd per non-empty bin. One launch, a fixed grid of blocks.
// Sizes: small = 128 KiB of data (16 blocks x 256 threads), paper = 64 MiB (60 blocks x 256).
// The data mixes uniform bytes with runs of a few "hot" values (like flat image regions), so
// shared-memory atomics really do collide. Check: every bin against a CPU count, exactly.
// run-args: small
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int bins = 256;

__global__ void histogram_bytes(const uint32_t* words, int num_words, unsigned* global_hist)
{
    __shared__ unsigned local_hist[bins];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        local_hist[b] = 0;
    }
    __syncthreads();

    // Consecutive threads read consecutive words, so every load of a warp is coalesced.
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < num_words; i += stride) {
        const uint32_t w = words[i];
        atomicAdd(&local_hist[w & 0xffu], 1u);
        atomicAdd(&local_hist[(w >> 8) & 0xffu], 1u);
        atomicAdd(&local_hist[(w >> 16) & 0xffu], 1u);
        atomicAdd(&local_hist[w >> 24], 1u);
    }
    __syncthreads();

    // Empty bins are common for skewed data; skipping them saves global atomics.
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        const unsigned count = local_hist[b];
        if (count != 0) {
            atomicAdd(&global_hist[b], count);
        }
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    size_t num_bytes;
    int blocks;
    if (!paper) {
        num_bytes = 128u << 10;
        blocks = 16;
    } else {
        num_bytes = 64u << 20;
        blocks = 60; // 4 blocks on each of the GTX480's 15 SMs
    }
    const int threads = 256;

    // Runs of one of four hot values alternate with stretches of uniform noise.
    std::vector<uint8_t> data(num_bytes);
    uint64_t state = seed;
    const uint8_t hot[4] = {0, 17, 128, 255};
    size_t pos = 0;
    while (pos < num_bytes) {
        const uint64_t r = splitmix64(state);
        const size_t run = 16 + (r >> 8) % 240;
        const bool is_hot = (r & 3) == 0;
        for (size_t k = 0; k < run && pos < num_bytes; ++k, ++pos) {
            data[pos] = is_hot ? hot[(r >> 4) & 3] : static_cast<uint8_t>(splitmix64(state) >> 56);
        }
    }

    std::vector<unsigned> want(bins, 0);
    for (uint8_t b : data) {
        ++want[b];
    }

    uint32_t* d_words;
    unsigned* d_hist;
    CHECK(cudaMalloc(&d_words, num_bytes));
    CHECK(cudaMalloc(&d_hist, bins * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_words, data.data(), num_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, bins * sizeof(unsigned)));
    histogram_bytes<<<blocks, threads>>>(d_words, static_cast<int>(num_bytes / 4), d_hist);
    CHECK(cudaGetLastError());
    std::vector<unsigned> got(bins);
    CHECK(cudaMemcpy(got.data(), d_hist, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_words));
    CHECK(cudaFree(d_hist));

    for (int b = 0; b < bins; ++b) {
        if (got[b] != want[b]) {
            std::printf("FAIL: bin %d = %u, expected %u\n", b, got[b], want[b]);
            return 1;
        }
    }
    std::printf("histogram: OK (%zu bytes, %d blocks x %d threads)\n", num_bytes, blocks, threads);
    return 0;
}
