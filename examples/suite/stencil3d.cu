// Jacobi iterations of the 3D 7-point stencil on an nx x ny x nz grid (x fastest):
//   u'(x, y, z) = c0 * u(x, y, z) + c1 * (sum of the six face neighbours)
// for interior cells; boundary cells hold fixed (Dirichlet) values and are copied through.
// Kernel: jacobi7, one launch per iteration from a host loop, ping-ponging two buffers.
// Blocks of 32 x 8 threads cover an x-y tile, and each thread marches up the z axis through
// its column: the cells below and above stay in registers (each is loaded once and then
// shifted down), while the current x-y plane goes to shared memory with a one-cell halo so
// that the four in-plane neighbours are read from there. Each input cell is thus read from
// global memory about 1.3 times per iteration (the halo is the extra) instead of 7 times.
// Sizes: small 40 x 20 x 12, 4 iterations (ragged x and y tiles); paper 128 x 128 x 96,
// 4 iterations.
// Check: a double-precision CPU run of the same iterations; boundary cells must match
// exactly, interior cells within the tolerance justified at the check.
// run-args: small
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int BX = 32;
constexpr int BY = 8;

__global__ void jacobi7(const float* in, float* out, int nx, int ny, int nz, float c0, float c1)
{
    __shared__ float plane[BY + 2][BX + 2];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int x = blockIdx.x * BX + tx;
    const int y = blockIdx.y * BY + ty;
    const bool inside = x < nx && y < ny;
    const bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    const size_t stride = static_cast<size_t>(nx) * ny;
    const size_t column = static_cast<size_t>(y) * nx + x;

    // Threads outside the grid keep running: they still take part in __syncthreads.
    float below = inside ? in[column] : 0.0f;
    float here = inside ? in[column + stride] : 0.0f;
    if (inside) {
        out[column] = below; // the z = 0 face
    }
    for (int z = 1; z < nz - 1; ++z) {
        const size_t at = column + z * stride;
        const float above = inside ? in[at + stride] : 0.0f;
        // The previous plane must be fully consumed before it is overwritten.
        __syncthreads();
        plane[ty + 1][tx + 1] = here;
        // Halo cells come from the neighbouring tiles. Only interior cells use neighbours,
        // and a cell next to a ragged tile edge is a grid boundary cell, so the halo is
        // needed only where the neighbour exists.
        if (inside) {
            if (tx == 0 && x > 0) plane[ty + 1][0] = in[at - 1];
            if (tx == BX - 1 && x + 1 < nx) plane[ty + 1][BX + 1] = in[at + 1];
            if (ty == 0 && y > 0) plane[0][tx + 1] = in[at - nx];
            if (ty == BY - 1 && y + 1 < ny) plane[BY + 1][tx + 1] = in[at + nx];
        }
        __syncthreads();
        if (inside) {
            if (edge) {
                out[at] = here;
            } else {
                const float sides = plane[ty + 1][tx] + plane[ty + 1][tx + 2] + plane[ty][tx + 1] +
                                    plane[ty + 2][tx + 1] + below + above;
                out[at] = c0 * here + c1 * sides;
            }
        }
        below = here;
        here = above;
    }
    if (inside) {
        out[column + (nz - 1) * stride] = here; // the z = nz - 1 face
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int nx, ny, nz, iterations;
    if (!paper) {
        nx = 40;
        ny = 20;
        nz = 12;
        iterations = 4;
    } else {
        nx = 128;
        ny = 128;
        nz = 96;
        iterations = 4;
    }
    // Non-negative weights summing to 1: a smoothing step that cannot amplify errors.
    const float c0 = 0.4f;
    const float c1 = 0.1f;

    uint64_t state = seed;
    const size_t cells = static_cast<size_t>(nx) * ny * nz;
    std::vector<float> grid(cells);
    for (float& v : grid) v = random_unit(state);

    float* d_buf[2];
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaMalloc(&d_buf[b], cells * sizeof(float)));
    }
    CHECK(cudaMemcpy(d_buf[0], grid.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
    // Poison the other buffer so a cell the kernel forgets to write shows up.
    CHECK(cudaMemset(d_buf[1], 0xff, cells * sizeof(float)));

    const dim3 block(BX, BY);
    const dim3 blocks((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    int current = 0;
    for (int it = 0; it < iterations; ++it) {
        jacobi7<<<blocks, block>>>(d_buf[current], d_buf[1 - current], nx, ny, nz, c0, c1);
        CHECK(cudaGetLastError());
        current = 1 - current;
    }
    std::vector<float> got(cells);
    CHECK(cudaMemcpy(got.data(), d_buf[current], cells * sizeof(float), cudaMemcpyDeviceToHost));

    std::vector<double> ref(grid.begin(), grid.end()), next(ref);
    const size_t plane = static_cast<size_t>(nx) * ny;
    for (int it = 0; it < iterations; ++it) {
        for (int z = 1; z < nz - 1; ++z) {
            for (int y = 1; y < ny - 1; ++y) {
                for (int x = 1; x < nx - 1; ++x) {
                    const size_t i = z * plane + static_cast<size_t>(y) * nx + x;
                    const double sides = ref[i - 1] + ref[i + 1] + ref[i - nx] + ref[i + nx] +
                                         ref[i - plane] + ref[i + plane];
                    next[i] = static_cast<double>(c0) * ref[i] + static_cast<double>(c1) * sides;
                }
            }
        }
        ref.swap(next);
    }

    // Values stay in [0, 1). One update rounds about eight times, each by at most 2^-24 of
    // a partial result below 6 (the sum of the sides), so an iteration adds under
    // 48 * 2^-24; the weights are non-negative and sum to 1, so older errors do not grow.
    // The tolerance is iterations * 64 * 2^-24. A missing or wrong neighbour moves a cell by
    // about 0.1 times a neighbour's value, thousands of times more.
    const double tolerance = iterations * 64.0 * std::ldexp(1.0, -24);
    for (int z = 0; z < nz; ++z) {
        for (int y = 0; y < ny; ++y) {
            for (int x = 0; x < nx; ++x) {
                const size_t i = z * plane + static_cast<size_t>(y) * nx + x;
                const bool boundary = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                const bool ok = boundary ? got[i] == grid[i] : std::fabs(got[i] - ref[i]) <= tolerance;
                if (!ok) {
                    std::printf("FAIL: u(%d, %d, %d) after %d iterations = %.9g, expected %.9g%s\n", x, y,
                                z, iterations, got[i], ref[i], boundary ? " (boundary, exact)" : "");
                    return 1;
                }
            }
        }
    }
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaFree(d_buf[b]));
    }
    std::printf("stencil3d: OK (%d x %d x %d, %d iterations)\n", nx, ny, nz, iterations);
    return 0;
}
