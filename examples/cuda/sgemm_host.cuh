// The host test of the two matrix products (sgemm_naive.cu, sgemm_tiled.cu): the same inputs,
// launch shape and check for both kernels. Host code only, as host.cuh.
#pragma once

#include "host.cuh"

#include <cstdio>
#include <vector>

// Multiplies two random 64 x 64 matrices with `kernel` on the launch shape of the kernels'
// launch files (4 x 4 blocks of 16 x 16 threads), checks every element of C against the
// product computed in double and prints `<name>: OK (64 x 64)`; the exit status of the program.
inline int check_sgemm(const char* name, void (*kernel)(const float*, const float*, float*, int))
{
    const int n = 64;
    const int count = n * n;
    std::vector<float> A(count), B(count), C(count, 0.0f);
    unsigned seed = 4u;
    for (int i = 0; i < count; ++i) {
        A[i] = random_float(seed, -1.0f, 2.0f);
        B[i] = random_float(seed, -1.0f, 2.0f);
    }
    float *dA, *dB, *dC;
    CHECK(copy_to_device(&dA, A));
    CHECK(copy_to_device(&dB, B));
    CHECK(allocate_filled(&dC, count, 0));
    kernel<<<dim3(4, 4), dim3(16, 16)>>>(dA, dB, dC, n);
    CHECK(finish_launch());
    CHECK(copy_to_host(C, dC));
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            double want = 0.0, mag = 0.0;
            for (int k = 0; k < n; ++k) {
                want += static_cast<double>(A[r * n + k]) * B[k * n + c];
                mag += std::fabs(static_cast<double>(A[r * n + k]) * B[k * n + c]);
            }
            EXPECT(close_to_sum(C[r * n + c], want, mag), "C[%d][%d] = %.9g, expected %.9g", r, c,
                   C[r * n + c], want);
        }
    }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    std::printf("%s: OK (%d x %d)\n", name, n, n);
    return 0;
}
