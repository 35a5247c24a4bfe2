// Transient heat diffusion on a 2D chip floorplan with a power map: an explicit finite-
// difference model in which every cell exchanges heat with its four neighbours (lateral
// conductances), leaks to the ambient through the package (vertical conductance) and is
// heated by its own power draw. Temperatures are kept as the rise above ambient, theta:
//   theta' = theta + cp * p + cx * (theta_e + theta_w - 2 theta)
//                           + cy * (theta_n + theta_s - 2 theta) - cz * theta
// with cx = dt / (C Rx), cy = dt / (C Ry), cz = dt / (C Rz), cp = dt / C. The chip edge is
// adiabatic: a neighbour outside the grid reads as the cell itself.
// Kernel: heat_step, one launch per time step from a host loop, 16 x 16 threads per block,
// one cell per thread. The two temperature buffers are pitched allocations that swap roles
// every step; each has a texture object with clamp addressing, so the adiabatic edge falls
// out of the texture hardware and the kernel has no border branches.
// Sizes: small 72 x 50 cells, 10 steps; paper 512 x 384 cells, 24 steps.
// Check: a double-precision CPU run of the same steps; the tolerance is justified at the check.
// run-args: small
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../cuda/texture.cuh"
#include "suite.cuh"

struct heat_coeffs {
    float cx, cy, cz, cp;
};

constexpr int BLOCK = 16;

// Row y of a pitched allocation: the pitch is in bytes, not elements.
__device__ const float* pitched_row(const float* base, size_t pitch, int y)
{
    return reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) + y * pitch);
}

__device__ float* pitched_row(float* base, size_t pitch, int y)
{
    return reinterpret_cast<float*>(reinterpret_cast<char*>(base) + y * pitch);
}

__global__ void heat_step(cudaTextureObject_t theta_in, const float* power, size_t power_pitch,
                          float* theta_out, size_t out_pitch, int width, int height, heat_coeffs k)
{
    const int x = blockIdx.x * BLOCK + threadIdx.x;
    const int y = blockIdx.y * BLOCK + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    // Texel centres sit at integer + 0.5; clamp addressing pins x - 1 = -1 to column 0, etc.
    const float fx = x + 0.5f;
    const float fy = y + 0.5f;
    const float c = tex2D<float>(theta_in, fx, fy);
    const float e = tex2D<float>(theta_in, fx + 1.0f, fy);
    const float w = tex2D<float>(theta_in, fx - 1.0f, fy);
    const float s = tex2D<float>(theta_in, fx, fy + 1.0f);
    const float n = tex2D<float>(theta_in, fx, fy - 1.0f);
    const float p = pitched_row(power, power_pitch, y)[x];
    const float next = c + k.cp * p + k.cx * (e + w - 2.0f * c) + k.cy * (n + s - 2.0f * c) - k.cz * c;
    pitched_row(theta_out, out_pitch, y)[x] = next;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int width, height, steps;
    if (!paper) {
        width = 72;
        height = 50;
        steps = 10;
    } else {
        width = 512;
        height = 384;
        steps = 24;
    }
    // 1 - 2 cx - 2 cy - cz = 0.19 >= 0 keeps every weight of the update non-negative: the
    // explicit scheme is stable and never amplifies earlier errors.
    const heat_coeffs k = {0.2f, 0.2f, 0.01f, 0.5f};

    // Floorplan: a low, noisy background draw plus a few rectangular hot units.
    uint64_t state = seed;
    const size_t cells = static_cast<size_t>(width) * height;
    std::vector<float> power(cells), theta(cells);
    for (float& p : power) p = 0.05f * random_unit(state);
    for (int unit = 0; unit < 6; ++unit) {
        const int w = 2 + static_cast<int>(splitmix64(state) % (width / 4));
        const int h = 2 + static_cast<int>(splitmix64(state) % (height / 4));
        const int x0 = static_cast<int>(splitmix64(state) % (width - w));
        const int y0 = static_cast<int>(splitmix64(state) % (height - h));
        const float draw = 0.5f + 1.5f * random_unit(state);
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) power[y * width + x] += draw;
    }
    for (float& t : theta) t = 10.0f * random_unit(state);

    const size_t row_bytes = width * sizeof(float);
    float *d_power, *d_theta[2];
    size_t power_pitch, theta_pitch[2];
    CHECK(cudaMallocPitch(&d_power, &power_pitch, row_bytes, height));
    CHECK(cudaMemcpy2D(d_power, power_pitch, power.data(), row_bytes, row_bytes, height,
                       cudaMemcpyHostToDevice));
    cudaTextureObject_t tex[2];
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaMallocPitch(&d_theta[b], &theta_pitch[b], row_bytes, height));
        const cudaResourceDesc res = pitched_resource(d_theta[b], cudaCreateChannelDesc<float>(),
                                                      width, height, theta_pitch[b]);
        const cudaTextureDesc clamped = sampling(cudaAddressModeClamp, cudaAddressModeClamp,
                                                 cudaFilterModePoint, cudaReadModeElementType, 0);
        CHECK(cudaCreateTextureObject(&tex[b], &res, &clamped, nullptr));
    }
    CHECK(cudaMemcpy2D(d_theta[0], theta_pitch[0], theta.data(), row_bytes, row_bytes, height,
                       cudaMemcpyHostToDevice));

    const dim3 block(BLOCK, BLOCK);
    const dim3 grid((width + BLOCK - 1) / BLOCK, (height + BLOCK - 1) / BLOCK);
    int current = 0;
    for (int step = 0; step < steps; ++step) {
        heat_step<<<grid, block>>>(tex[current], d_power, power_pitch, d_theta[1 - current],
                                   theta_pitch[1 - current], width, height, k);
        CHECK(cudaGetLastError());
        current = 1 - current;
    }
    std::vector<float> got(cells);
    CHECK(cudaMemcpy2D(got.data(), row_bytes, d_theta[current], theta_pitch[current], row_bytes,
                       height, cudaMemcpyDeviceToHost));

    // CPU reference in double, with the same float coefficients and the same adiabatic edge.
    std::vector<double> ref(theta.begin(), theta.end()), next(cells);
    double largest = 0.0;
    for (int step = 0; step < steps; ++step) {
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                const double c = ref[y * width + x];
                const double e = ref[y * width + (x + 1 < width ? x + 1 : x)];
                const double w = ref[y * width + (x > 0 ? x - 1 : x)];
                const double s = ref[(y + 1 < height ? y + 1 : y) * width + x];
                const double n = ref[(y > 0 ? y - 1 : y) * width + x];
                const double v = c + static_cast<double>(k.cp) * power[y * width + x] +
                                 static_cast<double>(k.cx) * (e + w - 2.0 * c) +
                                 static_cast<double>(k.cy) * (n + s - 2.0 * c) -
                                 static_cast<double>(k.cz) * c;
                next[y * width + x] = v;
                largest = std::fmax(largest, std::fabs(v));
            }
        }
        ref.swap(next);
    }

    // One step has about a dozen float roundings, each at most 2^-24 of a value
    // no larger than 4 * max |theta| (the sum e + w + n + s), so a step adds under
    // 48 * 2^-24 * max |theta|; since the update's weights are non-negative and sum to at
    // most 1, earlier errors carry over without growth. The tolerance is steps times that,
    // rounded up to 64. A wrong neighbour or coefficient moves a cell by about 0.2 * theta.
    const double tolerance = steps * 64.0 * std::ldexp(1.0, -24) * largest;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const float g = got[y * width + x];
            const double want = ref[y * width + x];
            if (!(std::fabs(g - want) <= tolerance)) {
                std::printf("FAIL: theta(%d, %d) after %d steps = %.9g, expected %.9g (tolerance %.3g)\n",
                            x, y, steps, g, want, tolerance);
                return 1;
            }
        }
    }
    for (int b = 0; b < 2; ++b) {
        CHECK(cudaDestroyTextureObject(tex[b]));
        CHECK(cudaFree(d_theta[b]));
    }
    CHECK(cudaFree(d_power));
    std::printf("heat2d: OK (%d x %d cells, %d steps, peak rise %.2f)\n", width, height, steps, largest);
    return 0;
}
