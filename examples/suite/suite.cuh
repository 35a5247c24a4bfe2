// What every program of the suite shares: the checks of every CUDA program of the project
// (CHECK and EXPECT, examples/cuda/check.cuh) and the input generator.
#pragma once

#include "../cuda/check.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

// The command line `[small|paper] [seed]` (default small, seed 1): true for paper, false for
// small; for anything else prints the usage line and ends the program with status 2.
inline bool paper_size(int argc, char** argv, uint64_t& seed)
{
    const char* size = argc > 1 ? argv[1] : "small";
    seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
    if (std::strcmp(size, "small") == 0) return false;
    if (std::strcmp(size, "paper") == 0) return true;
    std::fprintf(stderr, "usage: %s [small|paper] [seed]\n", argv[0]);
    std::exit(2);
}

// Uniform in [0, 1): 24 random bits, exactly representable as a float.
inline float random_unit(uint64_t& state)
{
    return static_cast<float>(splitmix64(state) >> 40) / 16777216.0f;
}

// Uniform in [-1, 1): 24 random bits, exactly representable as a float.
inline float random_signed(uint64_t& state)
{
    return static_cast<float>(splitmix64(state) >> 40) / 8388608.0f - 1.0f;
}
