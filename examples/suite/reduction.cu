// Sum and maximum of a large float array, in two passes.
// Kernels: reduce_pass (grid-stride loop: each thread keeps a running sum and max, then a
// tree in shared memory halves 256 values down to one warp, and warp shuffles finish) runs
// twice: first over the input with many blocks, writing one partial sum and max per block,
// then with a single block over those partials. Both passes share block_reduce().
// Sizes: small = 40,000 floats (16 blocks of 256 in the first pass); paper = 26,000,000
// floats (104 MB, 240 blocks). Values are uniform in [-1, 1) plus a few larger spikes.
// Check: the max is an exact comparison, so it must equal the CPU's bit for bit. The sum
// is compared with a double-precision CPU sum under the worst-case bound for float
// summation (see sum_tolerance): it depends on the order of the additions, which differs.
// run-args: small
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int block_threads = 256;

// Reduces one (sum, max) pair per thread to the block's pair, valid in thread 0.
__device__ void block_reduce(float& sum, float& max)
{
    __shared__ float sums[block_threads];
    __shared__ float maxes[block_threads];
    const int t = threadIdx.x;
    sums[t] = sum;
    maxes[t] = max;
    __syncthreads();
    // Tree steps in shared memory while more than one warp holds live values.
    for (int half = block_threads / 2; half >= 32; half >>= 1) {
        if (t < half) {
            sums[t] += sums[t + half];
            maxes[t] = fmaxf(maxes[t], maxes[t + half]);
        }
        __syncthreads();
    }
    // The last 32 values sit in one warp: registers and shuffles, no barriers needed.
    if (t < 32) {
        sum = sums[t];
        max = maxes[t];
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
            max = fmaxf(max, __shfl_down_sync(0xffffffffu, max, offset));
        }
    }
}

// First pass: in_max == nullptr, so each value counts for both the sum and the max.
// Second pass: in_sum and in_max are the first pass's partials.
__global__ void reduce_pass(const float* in_sum, const float* in_max, int n, float* out_sum,
                            float* out_max)
{
    float sum = 0.0f;
    float max = -INFINITY;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += in_sum[i];
        max = fmaxf(max, in_max != nullptr ? in_max[i] : in_sum[i]);
    }
    block_reduce(sum, max);
    if (threadIdx.x == 0) {
        out_sum[blockIdx.x] = sum;
        out_max[blockIdx.x] = max;
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n, blocks;
    if (!paper) {
        n = 40000;
        blocks = 16;
    } else {
        n = 26000000;
        blocks = 240;
    }

    // Mostly [-1, 1), with one value in 4096 scaled up to [-64, 64) so the max is a rare
    // element rather than whatever lies nearest 1.
    std::vector<float> in(n);
    uint64_t state = seed;
    for (float& v : in) {
        const uint64_t r = splitmix64(state);
        v = static_cast<float>(static_cast<int32_t>(r >> 40) - (1 << 23)) / (1 << 23);
        if ((r & 4095) == 0) {
            v *= 64.0f;
        }
    }

    float *din, *dpart_sum, *dpart_max, *dresult;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dpart_sum, blocks * sizeof(float)));
    CHECK(cudaMalloc(&dpart_max, blocks * sizeof(float)));
    CHECK(cudaMalloc(&dresult, 2 * sizeof(float)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    reduce_pass<<<blocks, block_threads>>>(din, nullptr, n, dpart_sum, dpart_max);
    CHECK(cudaGetLastError());
    reduce_pass<<<1, block_threads>>>(dpart_sum, dpart_max, blocks, dresult, dresult + 1);
    CHECK(cudaGetLastError());
    float result[2];
    CHECK(cudaMemcpy(result, dresult, sizeof result, cudaMemcpyDeviceToHost));

    double want_sum = 0.0;
    double abs_sum = 0.0;
    float want_max = -INFINITY;
    for (float v : in) {
        want_sum += v;
        abs_sum += std::fabs(v);
        want_max = std::max(want_max, v);
    }
    // Worst-case error of float summation: a value passes through at most `depth` roundings,
    // each off by at most 2^-24 relative, so |error| <= depth * 2^-24 * sum|x_i| (to first
    // order). depth: the longest per-thread chain in the first pass, log2(256) tree steps
    // in each pass, and the second pass's chain over the partials.
    const int threads = blocks * block_threads;
    const int first_chain = (n + threads - 1) / threads;
    const int second_chain = (blocks + block_threads - 1) / block_threads;
    const int depth = first_chain + 8 + second_chain + 8;
    const double sum_tolerance = depth * std::ldexp(1.0, -24) * abs_sum;

    if (std::memcmp(&result[1], &want_max, sizeof(float)) != 0) {
        std::printf("FAIL: max = %.9g, expected %.9g\n", result[1], want_max);
        return 1;
    }
    if (std::fabs(result[0] - want_sum) > sum_tolerance) {
        std::printf("FAIL: sum = %.9g, expected %.9g (tolerance %.3g)\n", result[0], want_sum,
                    sum_tolerance);
        return 1;
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dpart_sum));
    CHECK(cudaFree(dpart_max));
    CHECK(cudaFree(dresult));
    std::printf("reduction: OK (%d floats, %d blocks, sum %.6g off by %.3g, tolerance %.3g, "
                "max %.6g)\n",
                n, blocks, result[0], std::fabs(result[0] - want_sum), sum_tolerance, result[1]);
    return 0;
}
