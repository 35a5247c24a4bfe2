// What every microbenchmark shares: the checks of every CUDA program of the project (CHECK and
// EXPECT, examples/cuda/check.cuh), the size argument, the input generator and the result
// lines.
//
// Each microbenchmark is an ordinary CUDA program: it runs on a real GPU and, unmodified, on
// the simulator through warpkit-cuda. It takes one argument, `small` (the default: sizes a
// simulator runs in a second or two, still past the preset's caches where a figure needs it)
// or `full` (sizes for a real card: footprints up to gigabytes, long enough runs for stable
// timings). Each figure is one line
//
//     <program> <measurement> <value> <unit>
//
// (fields separated by spaces, no spaces inside a field), so a script can gather figures of
// several programs and cards into one table; the last line is `<program>: OK` once the
// program's own checks of what the kernels computed have passed.
#pragma once

#include "../cuda/check.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// The command line `[small|full]`: true for full; for anything else prints the usage line
// and ends the program with status 2.
inline bool full_size(int argc, char** argv)
{
    const char* size = argc > 1 ? argv[1] : "small";
    if (std::strcmp(size, "small") == 0) return false;
    if (std::strcmp(size, "full") == 0) return true;
    std::fprintf(stderr, "usage: %s [small|full]\n", argv[0]);
    std::exit(2);
}

// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): the next 64 random bits of `state`.
inline uint64_t next_random(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// One figure: `<program> <measurement> <value> <unit>`.
inline void report(const char* program, const char* measurement, double value, const char* unit)
{
    std::printf("%s %s %.2f %s\n", program, measurement, value, unit);
}

// The core clock in kHz (cudaDevAttrClockRate), to turn event times into core cycles.
inline int core_clock_khz()
{
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) != cudaSuccess) return 0;
    return khz;
}

// Reads the SM's cycle counter. The memory clobber keeps the compiler from moving loads or
// stores of the measured code across the read.
__device__ __forceinline__ long long cycle_counter()
{
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}
