// cudaMalloc under the device-memory cap (warpkit-cuda --max-device-mb, the bare library's
// WARPKIT_CUDA_MAX_DEVICE_MB). Without an argument, 1 GiB fits (the preset's 1536 MiB, and the
// default cap of half the machine's memory). With the argument "capped", run under a cap of
// 512 MiB: cudaMalloc of 1 GiB fails with cudaErrorMemoryAllocation, as CUDA's does when the
// device is full, leaves the pointer null and takes nothing, so 256 MiB still fit. Allocations
// take no host memory until written, so neither run costs any.
#include <cstdio>
#include <cstring>

#include "check.cuh"

int main(int argc, char** argv) {
    const bool capped = argc > 1 && std::strcmp(argv[1], "capped") == 0;
    void* big = reinterpret_cast<void*>(1);
    const cudaError_t got = cudaMalloc(&big, size_t{1} << 30);
    if (!capped) {
        CHECK(got);
        CHECK(cudaFree(big));
        std::printf("1 GiB allocated and freed\n");
        return 0;
    }
    EXPECT(got == cudaErrorMemoryAllocation, "cudaMalloc of 1 GiB under a 512 MiB cap returned %s",
           cudaGetErrorName(got));
    EXPECT(big == nullptr, "the failed cudaMalloc left the pointer at %p", big);
    EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation, "cudaGetLastError did not report it");
    void* fits = nullptr;
    CHECK(cudaMalloc(&fits, size_t{256} << 20));
    CHECK(cudaFree(fits));
    std::printf("1 GiB refused under the cap, 256 MiB allocated\n");
    return 0;
}
