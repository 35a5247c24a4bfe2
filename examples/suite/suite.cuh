// What every program of the suite shares: the CUDA-call check and the input generator.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// The command line `[small|paper] [seed]` (default small, seed 1): 1 for paper, 0 for small;
// -1 after printing the usage line for anything else (the program then exits 2).
inline int paper_size(int argc, char** argv, uint64_t& seed)
{
    const char* size = argc > 1 ? argv[1] : "small";
    seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
    if (std::strcmp(size, "small") == 0) return 0;
    if (std::strcmp(size, "paper") == 0) return 1;
    std::fprintf(stderr, "usage: %s [small|paper] [seed]\n", argv[0]);
    return -1;
}
