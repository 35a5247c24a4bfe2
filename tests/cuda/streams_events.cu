// Streams and events: work split over three created streams (and the default stream) with
// async memsets and copies between pinned host memory and the device, each stream synchronised
// on its own; events around a small and a big launch of the same kernel: elapsed times are
// positive, the bigger launch takes longer, and times add up over consecutive events.
// cudaStreamWaitEvent, cudaStreamQuery, cudaEventQuery, cudaDeviceSynchronize.
#include <cmath>
#include <cstdio>

#include "check.cuh"

// y[i] = x[i] * a + b, applied `rounds` times (integer, so the CPU result is exact).
__global__ void affine(const int* x, int* y, int n, int a, int b, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = x[i];
        for (int r = 0; r < rounds; ++r) {
            v = v * a + b;
        }
        y[i] = v;
    }
}

static int expect_affine(const int* x, const int* y, int n, int a, int b, int rounds,
                         const char* what)
{
    for (int i = 0; i < n; ++i) {
        unsigned v = static_cast<unsigned>(x[i]); // wraps like the device's 32-bit ints
        for (int r = 0; r < rounds; ++r) {
            v = v * static_cast<unsigned>(a) + static_cast<unsigned>(b);
        }
        if (y[i] != static_cast<int>(v)) {
            std::printf("FAIL: %s: y[%d] = %d, expected %d\n", what, i, y[i], static_cast<int>(v));
            return 1;
        }
    }
    return 0;
}

int main()
{
    const int streams = 3;
    const int chunk = 512;
    const int n = streams * chunk;
    int *hx, *hy;
    CHECK(cudaMallocHost(reinterpret_cast<void**>(&hx), n * sizeof(int)));
    CHECK(cudaMallocHost(reinterpret_cast<void**>(&hy), n * sizeof(int)));
    unsigned seed = 5u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        hx[i] = static_cast<int>(seed >> 12);
        hy[i] = -1;
    }
    int *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(int)));
    CHECK(cudaMalloc(&dy, n * sizeof(int)));

    // One chunk per stream: memset, copy in, kernel, copy out, all async on that stream.
    cudaStream_t s[streams];
    CHECK(cudaStreamCreate(&s[0]));
    CHECK(cudaStreamCreate(&s[1]));
    CHECK(cudaStreamCreateWithFlags(&s[2], cudaStreamNonBlocking));
    for (int k = 0; k < streams; ++k) {
        const int off = k * chunk;
        CHECK(cudaMemsetAsync(dy + off, 0xff, chunk * sizeof(int), s[k]));
        CHECK(cudaMemcpyAsync(dx + off, hx + off, chunk * sizeof(int), cudaMemcpyHostToDevice, s[k]));
        affine<<<chunk / 128, 128, 0, s[k]>>>(dx + off, dy + off, chunk, 3 + k, k - 1, 4);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(hy + off, dy + off, chunk * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
    }
    for (int k = 0; k < streams; ++k) {
        CHECK(cudaStreamSynchronize(s[k]));
        CHECK(cudaStreamQuery(s[k]));
        char what[32];
        std::snprintf(what, sizeof what, "stream %d", k);
        if (expect_affine(hx + k * chunk, hy + k * chunk, chunk, 3 + k, k - 1, 4, what) != 0) {
            return 1;
        }
    }

    // Events: small launch between e0 and e1, big launch (8x the threads, 16x the rounds)
    // between e1 and e2, on stream 1; e3 on the default stream after stream 1's work.
    cudaEvent_t e0, e1, e2, e3;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreateWithFlags(&e2, cudaEventDefault));
    CHECK(cudaEventCreate(&e3));
    CHECK(cudaEventRecord(e0, s[1]));
    affine<<<1, 192, 0, s[1]>>>(dx, dy, 192, 5, 1, 8);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e1, s[1]));
    affine<<<n / 192, 192, 0, s[1]>>>(dx, dy, n, 5, 1, 128);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e2, s[1]));
    CHECK(cudaStreamWaitEvent(0, e2, 0));
    CHECK(cudaMemcpyAsync(hy, dy, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    CHECK(cudaEventRecord(e3, 0));
    CHECK(cudaEventSynchronize(e3));
    CHECK(cudaEventQuery(e2));
    if (expect_affine(hx, hy, n, 5, 1, 128, "big launch") != 0) {
        return 1;
    }
    float small_ms = -1.0f, big_ms = -1.0f, both_ms = -1.0f;
    CHECK(cudaEventElapsedTime(&small_ms, e0, e1));
    CHECK(cudaEventElapsedTime(&big_ms, e1, e2));
    CHECK(cudaEventElapsedTime(&both_ms, e0, e2));
    if (!(small_ms > 0.0f)) {
        std::printf("FAIL: small launch took %g ms, expected > 0\n", small_ms);
        return 1;
    }
    if (!(big_ms > small_ms)) {
        std::printf("FAIL: big launch took %g ms, not more than the small one's %g ms\n", big_ms,
                    small_ms);
        return 1;
    }
    if (!(std::fabs(both_ms - (small_ms + big_ms)) <= 1e-3f * both_ms + 1e-6f)) {
        std::printf("FAIL: e0 to e2 took %g ms, but e0 to e1 %g ms plus e1 to e2 %g ms\n", both_ms,
                    small_ms, big_ms);
        return 1;
    }

    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaEventDestroy(e2));
    CHECK(cudaEventDestroy(e3));
    for (int k = 0; k < streams; ++k) {
        CHECK(cudaStreamDestroy(s[k]));
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFreeHost(hx));
    CHECK(cudaFreeHost(hy));
    std::printf("streams_events: OK (small %.6f ms, big %.6f ms)\n", small_ms, big_ms);
    return 0;
}
