// Device queries: cudaGetDeviceCount, cudaGetDevice/cudaSetDevice(0), cudaGetDeviceProperties
// (sanity of the fields a program sizes its launches by), cudaDeviceGetAttribute agreeing with
// the properties, cudaFuncGetAttributes of kernels with known static shared memory,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, runtime and driver versions; then a launch
// sized from the queries.
#include <cstdio>
#include <cstring>

#include "check.cuh"

// 1024 + 512 bytes of static shared memory.
__global__ void with_shared(const float* in, float* out)
{
    __shared__ float a[256];
    __shared__ double b[64];
    int t = threadIdx.x;
    a[t] = in[blockIdx.x * blockDim.x + t];
    if (t < 64) {
        b[t] = t;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = a[blockDim.x - 1 - t] + static_cast<float>(b[t % 64]);
}

__global__ void plain(int* out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
}

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count >= 1, "cudaGetDeviceCount = %d, expected at least 1", count);
    CHECK(cudaSetDevice(0));
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    EXPECT(dev == 0, "cudaGetDevice = %d, expected 0", dev);

    cudaDeviceProp p;
    std::memset(&p, 0, sizeof p);
    CHECK(cudaGetDeviceProperties(&p, 0));
    EXPECT(std::strlen(p.name) > 0, "the device has an empty name");
    EXPECT(p.warpSize == 32, "warpSize = %d, expected 32", p.warpSize);
    EXPECT(p.multiProcessorCount > 0, "multiProcessorCount = %d", p.multiProcessorCount);
    EXPECT(p.maxThreadsPerBlock >= 256, "maxThreadsPerBlock = %d", p.maxThreadsPerBlock);
    EXPECT(p.maxThreadsDim[0] > 0 && p.maxThreadsDim[0] <= p.maxThreadsPerBlock,
           "maxThreadsDim[0] = %d", p.maxThreadsDim[0]);
    EXPECT(p.maxGridSize[0] > 0 && p.maxGridSize[1] > 0, "maxGridSize = {%d, %d, %d}",
           p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    EXPECT(p.sharedMemPerBlock >= 16384, "sharedMemPerBlock = %zu", p.sharedMemPerBlock);
    EXPECT(p.totalGlobalMem > (size_t{1} << 24), "totalGlobalMem = %zu", p.totalGlobalMem);
    EXPECT(p.totalConstMem >= 65536, "totalConstMem = %zu", p.totalConstMem);
    EXPECT(p.regsPerBlock > 0, "regsPerBlock = %d", p.regsPerBlock);
    EXPECT(p.major >= 1, "compute capability %d.%d", p.major, p.minor);
    EXPECT(p.maxThreadsPerMultiProcessor >= p.warpSize, "maxThreadsPerMultiProcessor = %d",
           p.maxThreadsPerMultiProcessor);

    struct {
        cudaDeviceAttr attr;
        int want;
        const char* name;
    } attrs[] = {
        {cudaDevAttrWarpSize, p.warpSize, "cudaDevAttrWarpSize"},
        {cudaDevAttrMultiProcessorCount, p.multiProcessorCount, "cudaDevAttrMultiProcessorCount"},
        {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock, "cudaDevAttrMaxThreadsPerBlock"},
        {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0], "cudaDevAttrMaxBlockDimX"},
        {cudaDevAttrMaxGridDimX, p.maxGridSize[0], "cudaDevAttrMaxGridDimX"},
        {cudaDevAttrMaxSharedMemoryPerBlock, static_cast<int>(p.sharedMemPerBlock),
         "cudaDevAttrMaxSharedMemoryPerBlock"},
        {cudaDevAttrComputeCapabilityMajor, p.major, "cudaDevAttrComputeCapabilityMajor"},
        {cudaDevAttrComputeCapabilityMinor, p.minor, "cudaDevAttrComputeCapabilityMinor"},
        {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor,
         "cudaDevAttrMaxThreadsPerMultiProcessor"},
        {cudaDevAttrL2CacheSize, p.l2CacheSize, "cudaDevAttrL2CacheSize"},
        {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth, "cudaDevAttrGlobalMemoryBusWidth"},
    };
    for (const auto& a : attrs) {
        int v = -1;
        CHECK(cudaDeviceGetAttribute(&v, a.attr, 0));
        EXPECT(v == a.want, "%s = %d, the properties say %d", a.name, v, a.want);
    }
    int clock = 0;
    CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0));
    EXPECT(clock > 0, "cudaDevAttrClockRate = %d", clock);
    // Both presets have an L2 of at least 256 KiB and GDDR5 at 924 MHz (1848 MHz as CUDA
    // counts the memory clock: half the data rate).
    EXPECT(p.l2CacheSize >= 256 * 1024, "l2CacheSize = %d", p.l2CacheSize);
    int memory_clock = 0;
    CHECK(cudaDeviceGetAttribute(&memory_clock, cudaDevAttrMemoryClockRate, 0));
    EXPECT(memory_clock == 1848000, "cudaDevAttrMemoryClockRate = %d kHz, expected 1848000",
           memory_clock);

    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, with_shared));
    EXPECT(fa.sharedSizeBytes == 256 * sizeof(float) + 64 * sizeof(double),
           "with_shared: sharedSizeBytes = %zu, expected %zu", fa.sharedSizeBytes,
           256 * sizeof(float) + 64 * sizeof(double));
    EXPECT(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= p.maxThreadsPerBlock,
           "with_shared: maxThreadsPerBlock = %d", fa.maxThreadsPerBlock);
    EXPECT(fa.numRegs > 0, "with_shared: numRegs = %d", fa.numRegs);
    cudaFuncAttributes fp;
    CHECK(cudaFuncGetAttributes(&fp, plain));
    EXPECT(fp.sharedSizeBytes == 0, "plain: sharedSizeBytes = %zu, expected 0", fp.sharedSizeBytes);

    // The C API (a const void* names the kernel).
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(with_shared), 256, 0));
    EXPECT(blocks > 0, "occupancy of with_shared at 256 threads = %d", blocks);
    int blocks_plain = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_plain, reinterpret_cast<const void*>(plain), 64, 0));
    EXPECT(blocks_plain > 0, "occupancy of plain at 64 threads = %d", blocks_plain);
    int blocks_dyn = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_dyn, reinterpret_cast<const void*>(plain), 64, p.sharedMemPerBlock / 2));
    EXPECT(blocks_dyn >= 1 && blocks_dyn <= 2 && blocks_dyn <= blocks_plain,
           "occupancy of plain at 64 threads with half the shared memory each = %d", blocks_dyn);

    int runtime_version = 0, driver_version = 0;
    CHECK(cudaRuntimeGetVersion(&runtime_version));
    CHECK(cudaDriverGetVersion(&driver_version));
    EXPECT(runtime_version > 0 && driver_version > 0, "versions: runtime %d, driver %d",
           runtime_version, driver_version);

    // A launch sized from the queries: one block per SM (at most 8), 256 threads.
    const int grid = p.multiProcessorCount < 8 ? p.multiProcessorCount : 8;
    const int n = grid * 256;
    float hin[8 * 256], hout[8 * 256];
    for (int i = 0; i < n; ++i) {
        hin[i] = static_cast<float>(i) * 0.25f;
    }
    float *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(din, hin, n * sizeof(float), cudaMemcpyHostToDevice));
    with_shared<<<grid, 256>>>(din, dout);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int b = i / 256, t = i % 256;
        const float want = hin[b * 256 + 255 - t] + static_cast<float>(t % 64);
        EXPECT(hout[i] == want, "with_shared: out[%d] = %g, expected %g", i, hout[i], want);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));

    // The templated overloads of cuda_runtime.h, which take the kernel itself (what most
    // programs call); they forward to cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags.
    std::fflush(stdout);
    int blocks_t = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_t, with_shared, 256, 0));
    EXPECT(blocks_t == blocks, "occupancy through the template = %d, through the C API %d",
           blocks_t, blocks);
    int blocks_f = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks_f, plain, 64, 0,
                                                                 cudaOccupancyDefault));
    EXPECT(blocks_f == blocks_plain, "occupancy with flags = %d, without %d", blocks_f,
           blocks_plain);
    std::printf("device_query: OK (%s, %d SMs, compute %d.%d, %d blocks of 256 per SM)\n", p.name,
                p.multiProcessorCount, p.major, p.minor, blocks);
    return 0;
}
