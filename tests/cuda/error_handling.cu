// Bad calls fail with CUDA's error codes, are reported once by cudaGetLastError (then
// cleared), and disturb nothing: cudaFree of pointers not from cudaMalloc and twice,
// cudaMemcpy past the end of an allocation, a huge cudaMalloc, cudaMalloc into a null pointer,
// cudaSetDevice(5), cudaMemcpyToSymbol/FromSymbol of a non-symbol, a bad copy direction,
// launches with bad shapes; cudaGetErrorString/cudaGetErrorName give CUDA's texts. Afterwards
// the device memory allocated before is intact and a valid kernel on it computes the right
// result.
#include <cstdio>
#include <cstring>

#include "check.cuh"

// `call` must return `want`; cudaGetLastError must then report it once and be clear after.
#define EXPECT_ERROR(call, want)                                                             \
    do {                                                                                     \
        cudaError_t got_ = (call);                                                           \
        if (got_ != (want)) {                                                                \
            std::printf("FAIL: %s returned %s (%d), expected %s (line %d)\n", #call,        \
                        cudaGetErrorName(got_), static_cast<int>(got_), #want, __LINE__);   \
            return 1;                                                                        \
        }                                                                                    \
        if (expect_last(want, #call, __LINE__) != 0) {                                       \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static int expect_last(cudaError_t want, const char* what, int line)
{
    const cudaError_t peek = cudaPeekAtLastError();
    const cudaError_t first = cudaGetLastError();
    const cudaError_t second = cudaGetLastError();
    if (peek != want || first != want || second != cudaSuccess) {
        std::printf("FAIL: after %s (line %d): cudaPeekAtLastError %s, cudaGetLastError %s then "
                    "%s; expected %s, %s, cudaSuccess\n",
                    what, line, cudaGetErrorName(peek), cudaGetErrorName(first),
                    cudaGetErrorName(second), cudaGetErrorName(want), cudaGetErrorName(want));
        return 1;
    }
    return 0;
}

__constant__ int coeff[4];
static int not_a_symbol[4];

__global__ void square_plus(int* v, int n, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = v[i] * v[i] + add;
    }
}

int main()
{
    // The allocation that must survive everything below.
    const int n = 1000;
    int host[n];
    for (int i = 0; i < n; ++i) {
        host[i] = i - 300;
    }
    int* keep = nullptr;
    CHECK(cudaMalloc(&keep, n * sizeof(int)));
    CHECK(cudaMemcpy(keep, host, sizeof host, cudaMemcpyHostToDevice));
    int* other = nullptr;
    CHECK(cudaMalloc(&other, 64 * sizeof(int)));
    CHECK(cudaMemset(other, 0x11, 64 * sizeof(int)));
    size_t free_before = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_before, &total));

    // cudaFree of pointers cudaMalloc never returned.
    int on_stack = 0;
    EXPECT_ERROR(cudaFree(&on_stack), cudaErrorInvalidValue);
    EXPECT_ERROR(cudaFree(keep + 10), cudaErrorInvalidValue);
    // cudaFree twice.
    int* twice = nullptr;
    CHECK(cudaMalloc(&twice, 256));
    CHECK(cudaFree(twice));
    EXPECT_ERROR(cudaFree(twice), cudaErrorInvalidValue);

    // Copies past the end of an allocation, whole and from inside it; a bad direction.
    int big[n + 16];
    std::memset(big, 0x7f, sizeof big);
    EXPECT_ERROR(cudaMemcpy(keep, big, (n + 1) * sizeof(int), cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemcpy(keep + n - 2, big, 3 * sizeof(int), cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemcpy(big, keep, (n + 16) * sizeof(int), cudaMemcpyDeviceToHost),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemcpy(other, keep, (n + 1) * sizeof(int), cudaMemcpyDeviceToDevice),
                 cudaErrorInvalidValue);
    EXPECT_ERROR(cudaMemcpy(keep, big, 4, static_cast<cudaMemcpyKind>(7)),
                 cudaErrorInvalidMemcpyDirection);

    // Allocation failures.
    void* huge = nullptr;
    EXPECT_ERROR(cudaMalloc(&huge, size_t{1} << 40), cudaErrorMemoryAllocation);
    EXPECT_ERROR(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);

    // Devices.
    EXPECT_ERROR(cudaSetDevice(5), cudaErrorInvalidDevice);
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    if (dev != 0) {
        std::printf("FAIL: cudaGetDevice = %d after a failed cudaSetDevice(5), expected 0\n", dev);
        return 1;
    }

    // Symbols: a host array is no device symbol.
    const int c[4] = {1, 2, 3, 4};
    EXPECT_ERROR(cudaMemcpyToSymbol(not_a_symbol, c, sizeof c), cudaErrorInvalidSymbol);
    int cb[4];
    EXPECT_ERROR(cudaMemcpyFromSymbol(cb, not_a_symbol, sizeof cb), cudaErrorInvalidSymbol);
    CHECK(cudaMemcpyToSymbol(coeff, c, sizeof c)); // the real symbol still works

    // Launches with bad shapes: the error comes from cudaGetLastError, once.
    square_plus<<<1, 2048>>>(keep, n, 1);
    if (expect_last(cudaErrorInvalidConfiguration, "a launch of 2048 threads per block",
                    __LINE__) != 0) {
        return 1;
    }
    square_plus<<<1, dim3(1, 1, 128)>>>(keep, n, 1);
    if (expect_last(cudaErrorInvalidConfiguration, "a launch with blockDim.z = 128", __LINE__) != 0) {
        return 1;
    }
    square_plus<<<0, 32>>>(keep, n, 1);
    if (expect_last(cudaErrorInvalidConfiguration, "a launch of 0 blocks", __LINE__) != 0) {
        return 1;
    }

    // CUDA's texts.
    const struct {
        cudaError_t code;
        const char* text;
        const char* name;
    } texts[] = {
        {cudaSuccess, "no error", "cudaSuccess"},
        {cudaErrorInvalidValue, "invalid argument", "cudaErrorInvalidValue"},
        {cudaErrorMemoryAllocation, "out of memory", "cudaErrorMemoryAllocation"},
        {cudaErrorInvalidDevice, "invalid device ordinal", "cudaErrorInvalidDevice"},
        {cudaErrorInvalidSymbol, "invalid device symbol", "cudaErrorInvalidSymbol"},
        {cudaErrorInvalidConfiguration, "invalid configuration argument",
         "cudaErrorInvalidConfiguration"},
        {cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy",
         "cudaErrorInvalidMemcpyDirection"},
        {cudaErrorLaunchFailure, "unspecified launch failure", "cudaErrorLaunchFailure"},
        {cudaErrorInvalidDeviceFunction, "invalid device function", "cudaErrorInvalidDeviceFunction"},
        {cudaErrorInvalidResourceHandle, "invalid resource handle", "cudaErrorInvalidResourceHandle"},
    };
    for (const auto& t : texts) {
        if (std::strcmp(cudaGetErrorString(t.code), t.text) != 0 ||
            std::strcmp(cudaGetErrorName(t.code), t.name) != 0) {
            std::printf("FAIL: error %d: \"%s\" / %s, expected \"%s\" / %s\n",
                        static_cast<int>(t.code), cudaGetErrorString(t.code),
                        cudaGetErrorName(t.code), t.text, t.name);
            return 1;
        }
    }

    // Nothing was disturbed: no error pending, the memory is as before, kernels work.
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    size_t free_after = 0;
    CHECK(cudaMemGetInfo(&free_after, &total));
    if (free_after != free_before) {
        std::printf("FAIL: free device memory %zu before the bad calls, %zu after\n", free_before,
                    free_after);
        return 1;
    }
    int back[n];
    CHECK(cudaMemcpy(back, keep, sizeof back, cudaMemcpyDeviceToHost));
    if (std::memcmp(back, host, sizeof host) != 0) {
        std::printf("FAIL: the allocation made before the bad calls changed\n");
        return 1;
    }
    int o[64];
    CHECK(cudaMemcpy(o, other, sizeof o, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) {
        if (o[i] != 0x11111111) {
            std::printf("FAIL: other[%d] = %#x after the bad calls, expected 0x11111111\n", i, o[i]);
            return 1;
        }
    }
    square_plus<<<(n + 255) / 256, 256>>>(keep, n, 5);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(back, keep, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        if (back[i] != host[i] * host[i] + 5) {
            std::printf("FAIL: after the bad calls, v[%d] = %d, expected %d\n", i, back[i],
                        host[i] * host[i] + 5);
            return 1;
        }
    }
    CHECK(cudaFree(keep));
    CHECK(cudaFree(other));
    std::printf("error_handling: OK\n");
    return 0;
}
