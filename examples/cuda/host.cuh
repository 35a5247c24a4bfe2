// What the host tests appended to the example kernels share: the checks (check.cuh), the
// inputs' random numbers, and moving a vector's elements to and from device memory. Included
// below `#ifndef __CUDA_ARCH__` only, so the device pass (and the checked-in PTX, also nvcc -G's
// debug information) never sees it.
#pragma once

#include "check.cuh"

#include <cmath>
#include <cstddef>
#include <vector>

// The next 24 random bits of `seed`, a linear congruential generator (the multiplier and
// increment of Numerical Recipes) stepped once: each program's seed gives the same inputs on
// every machine.
inline unsigned random_bits(unsigned& seed)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

// A float from the next 24 random bits of `seed`, spread evenly over [low, low + width).
inline float random_float(unsigned& seed, float low, float width)
{
    return random_bits(seed) * (width / 16777216.0f) + low;
}

// `count` floats drawn one after another by random_float from `seed`.
inline std::vector<float> random_floats(int count, unsigned seed, float low, float width)
{
    std::vector<float> values(count);
    for (float& v : values) {
        v = random_float(seed, low, width);
    }
    return values;
}

// Allocates device memory for the elements of `host` and copies them there.
template <class T>
cudaError_t copy_to_device(T** device, const std::vector<T>& host)
{
    const cudaError_t err = cudaMalloc(device, host.size() * sizeof(T));
    if (err != cudaSuccess) {
        return err;
    }
    return cudaMemcpy(*device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
}

// Allocates device memory for `count` elements and sets each of its bytes to `byte` (0xff makes
// floats NaN, so that an element the kernel leaves unwritten cannot pass).
template <class T>
cudaError_t allocate_filled(T** device, std::size_t count, int byte)
{
    const cudaError_t err = cudaMalloc(device, count * sizeof(T));
    if (err != cudaSuccess) {
        return err;
    }
    return cudaMemset(*device, byte, count * sizeof(T));
}

// Copies the device elements at `device` back into all of `host`.
template <class T>
cudaError_t copy_to_host(std::vector<T>& host, const T* device)
{
    return cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost);
}

// Whether the launch just made was accepted and ran to its end.
inline cudaError_t finish_launch()
{
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        return err;
    }
    return cudaDeviceSynchronize();
}

// Whether a float result is within the rounding that summing terms of total magnitude `magnitude`
// in float allows of the sum computed in double.
inline bool close_to_sum(float got, double want, double magnitude)
{
    return std::fabs(got - want) <= 1e-5 * magnitude + 1e-6;
}
