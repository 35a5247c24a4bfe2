// The checks every CUDA program of the project makes (the host tests appended to
// examples/cuda/*.cu, the suite's programs through suite.cuh, the test programs of tests/cuda
// through their check.cuh): CHECK(call) fails the program (exit status 1, a FAIL line naming
// the call, the error and the line) unless a CUDA call succeeds, and EXPECT(cond, fmt, ...)
// unless a condition holds. Host code only.
#pragma once

#include <cstdio>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            std::printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorString(err_), __LINE__); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

#define EXPECT(cond, ...)                                                                    \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::printf("FAIL: " __VA_ARGS__);                                               \
            std::printf("\n");                                                               \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)
