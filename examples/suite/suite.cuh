// What every program of the suite shares: the CUDA-call check and the input generator.
#pragma once

#include <cstdint>
#include <cstdio>

// Runs a CUDA runtime call; on an error prints the call, CUDA's text and the line, and
// returns 1 from the enclosing function (main, or a step that main checks).
#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != cudaSuccess) {                                                           \
            std::printf("FAIL: %s: %s (line %d)\n", #call, cudaGetErrorString(err_), __LINE__); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): the next 64 random bits of `state`. Inputs come from it, so a seed gives the
// same inputs on every machine.
inline uint64_t splitmix64(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
