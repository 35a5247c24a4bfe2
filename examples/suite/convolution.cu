// 2D convolution of a single-channel float image with a 5 x 5 filter:
// out(x, y) = sum_{i,j in -2..2} w(i, j) * in(clamp(x + i), clamp(y + j)), where clamp pins
// coordinates to the image (the border pixels repeat outwards).
// Kernel: convolve_5x5, one launch, 16 x 16 threads per block, one output pixel per thread.
// The filter lives in __constant__ memory: every thread of a warp reads the same weight at
// the same time, which the constant cache serves as a broadcast. Each block first copies its
// 20 x 20 input window (the 16 x 16 tile plus a 2-pixel halo, clamped) into shared memory,
// so each input pixel is fetched from global memory about 1.6 times instead of 25 times.
// Sizes: small 100 x 76 (ragged edge blocks); paper 2200 x 1100.
// Check: against a CPU convolution in double, with a tolerance scaled by sum |w * in|.
// run-args: small
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int RADIUS = 2;
constexpr int TAPS = 2 * RADIUS + 1;
constexpr int TILE = 16;
constexpr int WINDOW = TILE + 2 * RADIUS;

__constant__ float c_filter[TAPS * TAPS];

__device__ int clamp_index(int v, int limit)
{
    return v < 0 ? 0 : (v >= limit ? limit - 1 : v);
}

__global__ void convolve_5x5(const float* in, float* out, int width, int height)
{
    __shared__ float window[WINDOW][WINDOW];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int origin_x = blockIdx.x * TILE - RADIUS;
    const int origin_y = blockIdx.y * TILE - RADIUS;

    // 400 window cells for 256 threads: walk them in steps of the block size. Clamping here
    // means the compute loop below needs no border tests at all.
    for (int cell = ty * TILE + tx; cell < WINDOW * WINDOW; cell += TILE * TILE) {
        const int wy = cell / WINDOW;
        const int wx = cell - wy * WINDOW;
        const int gx = clamp_index(origin_x + wx, width);
        const int gy = clamp_index(origin_y + wy, height);
        window[wy][wx] = in[gy * width + gx];
    }
    __syncthreads();

    const int x = blockIdx.x * TILE + tx;
    const int y = blockIdx.y * TILE + ty;
    if (x >= width || y >= height) {
        return;
    }
    float sum = 0.0f;
    #pragma unroll
    for (int j = 0; j < TAPS; ++j) {
        #pragma unroll
        for (int i = 0; i < TAPS; ++i) {
            sum += c_filter[j * TAPS + i] * window[ty + j][tx + i];
        }
    }
    out[y * width + x] = sum;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int width, height;
    if (!paper) {
        width = 100;
        height = 76;
    } else {
        width = 2200;
        height = 1100;
    }

    uint64_t state = seed;
    // A signed filter (an unnormalised sharpen-like mix) so the sums cancel partly, which is
    // the harder case for the tolerance below.
    float filter[TAPS * TAPS];
    for (float& w : filter) w = random_unit(state) - 0.3f;
    const size_t pixels = static_cast<size_t>(width) * height;
    std::vector<float> image(pixels);
    for (float& p : image) p = random_unit(state);

    float *d_in, *d_out;
    CHECK(cudaMemcpyToSymbol(c_filter, filter, sizeof filter));
    CHECK(cudaMalloc(&d_in, pixels * sizeof(float)));
    CHECK(cudaMalloc(&d_out, pixels * sizeof(float)));
    CHECK(cudaMemcpy(d_in, image.data(), pixels * sizeof(float), cudaMemcpyHostToDevice));
    // Poison the output so a pixel the kernel never writes cannot pass by accident.
    CHECK(cudaMemset(d_out, 0xff, pixels * sizeof(float)));

    const dim3 block(TILE, TILE);
    const dim3 grid((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
    convolve_5x5<<<grid, block>>>(d_in, d_out, width, height);
    CHECK(cudaGetLastError());
    std::vector<float> got(pixels);
    CHECK(cudaMemcpy(got.data(), d_out, pixels * sizeof(float), cudaMemcpyDeviceToHost));

    // 25 float multiply-adds: each rounding is at most 2^-24 of the running sum, which is
    // bounded by sum |w * in|, so the error stays below 25 * 2^-24 * sum |w * in|; twice that
    // is the tolerance (fused or separate multiply-adds both fit).
    const double unit = std::ldexp(1.0, -24);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            double want = 0.0, magnitude = 0.0;
            for (int j = -RADIUS; j <= RADIUS; ++j) {
                const int sy = y + j < 0 ? 0 : (y + j >= height ? height - 1 : y + j);
                for (int i = -RADIUS; i <= RADIUS; ++i) {
                    const int sx = x + i < 0 ? 0 : (x + i >= width ? width - 1 : x + i);
                    const double term = static_cast<double>(filter[(j + RADIUS) * TAPS + i + RADIUS]) *
                                        image[static_cast<size_t>(sy) * width + sx];
                    want += term;
                    magnitude += std::fabs(term);
                }
            }
            const double tolerance = 2.0 * TAPS * TAPS * unit * magnitude;
            const float g = got[static_cast<size_t>(y) * width + x];
            if (!(std::fabs(g - want) <= tolerance)) {
                std::printf("FAIL: out(%d, %d) = %.9g, expected %.9g (tolerance %.3g)\n", x, y, g,
                            want, tolerance);
                return 1;
            }
        }
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    std::printf("convolution: OK (%d x %d image, 5 x 5 filter, %u blocks)\n", width, height,
                grid.x * grid.y);
    return 0;
}
