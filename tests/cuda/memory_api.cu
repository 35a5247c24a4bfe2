// Memory API: cudaMallocManaged memory written by the host, updated by kernels and read by the
// host with no copies; cudaMallocHost (pinned) buffers as copy source and destination;
// cudaMallocPitch with cudaMemcpy2D both ways and a kernel walking the pitched rows;
// cudaMemset patterns; cudaMemcpy DeviceToDevice (also between offsets) and cudaMemcpyDefault
// in every direction; cudaMemGetInfo.
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.cuh"

__global__ void scale_add(int* v, int n, int mul, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = v[i] * mul + add;
    }
}

// Element (x, y) of a pitched float image becomes x + 1000 * y + its old value.
__global__ void pitched(float* base, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(base) + y * pitch);
        row[x] += x + 1000.0f * y;
    }
}

int main()
{
    size_t free0 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    EXPECT(total > 0 && free0 <= total, "cudaMemGetInfo: free %zu, total %zu", free0, total);

    // Managed memory: host writes, two kernels, host reads; then the host changes it again.
    const int n = 1000;
    int* m = nullptr;
    CHECK(cudaMallocManaged(reinterpret_cast<void**>(&m), n * sizeof(int)));
    for (int i = 0; i < n; ++i) {
        m[i] = i - 500;
    }
    scale_add<<<(n + 255) / 256, 256>>>(m, n, 3, 7);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) {
        EXPECT(m[i] == (i - 500) * 3 + 7, "managed after one launch: m[%d] = %d, expected %d", i,
               m[i], (i - 500) * 3 + 7);
    }
    for (int i = 0; i < n; i += 2) {
        m[i] = 1;
    }
    scale_add<<<(n + 255) / 256, 256>>>(m, n, -2, 0);
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) {
        const int want = i % 2 == 0 ? -2 : ((i - 500) * 3 + 7) * -2;
        EXPECT(m[i] == want, "managed after two launches: m[%d] = %d, expected %d", i, m[i], want);
    }

    // Pinned host memory with explicit copies.
    int *pin_in, *pin_out;
    CHECK(cudaMallocHost(reinterpret_cast<void**>(&pin_in), n * sizeof(int)));
    CHECK(cudaHostAlloc(reinterpret_cast<void**>(&pin_out), n * sizeof(int), cudaHostAllocDefault));
    for (int i = 0; i < n; ++i) {
        pin_in[i] = i * i;
        pin_out[i] = 0;
    }
    int *d1, *d2;
    CHECK(cudaMalloc(&d1, n * sizeof(int)));
    CHECK(cudaMalloc(&d2, n * sizeof(int)));
    size_t free1 = 0;
    CHECK(cudaMemGetInfo(&free1, &total));
    EXPECT(free1 + 2 * n * sizeof(int) <= free0, "cudaMemGetInfo: free %zu before, %zu after "
           "allocating %zu bytes", free0, free1, 2 * n * sizeof(int));
    CHECK(cudaMemcpy(d1, pin_in, n * sizeof(int), cudaMemcpyHostToDevice));
    scale_add<<<(n + 127) / 128, 128>>>(d1, n, 1, -5);
    CHECK(cudaMemcpy(pin_out, d1, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        EXPECT(pin_out[i] == i * i - 5, "pinned: out[%d] = %d, expected %d", i, pin_out[i], i * i - 5);
    }

    // cudaMemset: a byte pattern over all of d2, then zero over a middle part.
    CHECK(cudaMemset(d2, 0xab, n * sizeof(int)));
    CHECK(cudaMemset(d2 + 100, 0, 50 * sizeof(int)));
    std::vector<int> h(n);
    CHECK(cudaMemcpy(h.data(), d2, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int want = i >= 100 && i < 150 ? 0 : static_cast<int>(0xabababab);
        EXPECT(h[i] == want, "memset: d2[%d] = %#x, expected %#x", i, h[i], want);
    }

    // Device to device: all of d1 to d2, then d1[0..99] over d2[500..599].
    CHECK(cudaMemcpy(d2, d1, n * sizeof(int), cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(d2 + 500, d1, 100 * sizeof(int), cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(h.data(), d2, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const int src = i >= 500 && i < 600 ? i - 500 : i;
        EXPECT(h[i] == src * src - 5, "device to device: d2[%d] = %d, expected %d", i, h[i],
               src * src - 5);
    }

    // cudaMemcpyDefault: host to device, device to device, device to host, host to host,
    // and a managed block as source.
    std::vector<int> src(n), back(n, 0);
    for (int i = 0; i < n; ++i) {
        src[i] = 7 * i + 1;
    }
    CHECK(cudaMemcpy(d1, src.data(), n * sizeof(int), cudaMemcpyDefault));
    CHECK(cudaMemcpy(d2, d1, n * sizeof(int), cudaMemcpyDefault));
    CHECK(cudaMemcpy(back.data(), d2, n * sizeof(int), cudaMemcpyDefault));
    EXPECT(back == src, "cudaMemcpyDefault: host -> device -> device -> host changed the data");
    std::vector<int> hh(n, 0);
    CHECK(cudaMemcpy(hh.data(), back.data(), n * sizeof(int), cudaMemcpyDefault));
    EXPECT(hh == src, "cudaMemcpyDefault host to host changed the data");
    CHECK(cudaMemcpy(d1, m, n * sizeof(int), cudaMemcpyDefault));
    CHECK(cudaMemcpy(back.data(), d1, n * sizeof(int), cudaMemcpyDefault));
    EXPECT(std::memcmp(back.data(), m, n * sizeof(int)) == 0,
           "cudaMemcpyDefault from managed memory changed the data");

    // Pitched 2-D memory: a 37 x 11 float image, rows padded to the pitch.
    const int width = 37, height = 11;
    float* img = nullptr;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&img), &pitch, width * sizeof(float), height));
    EXPECT(pitch >= width * sizeof(float), "pitch %zu is less than a row of %zu bytes", pitch,
           width * sizeof(float));
    std::vector<float> hin(width * height), hout(width * height, -1.0f);
    for (int i = 0; i < width * height; ++i) {
        hin[i] = static_cast<float>(i % 17) * 0.5f;
    }
    CHECK(cudaMemcpy2D(img, pitch, hin.data(), width * sizeof(float), width * sizeof(float),
                       height, cudaMemcpyHostToDevice));
    pitched<<<dim3((width + 15) / 16, (height + 7) / 8), dim3(16, 8)>>>(img, pitch, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2D(hout.data(), width * sizeof(float), img, pitch, width * sizeof(float),
                       height, cudaMemcpyDeviceToHost));
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const float want = hin[y * width + x] + x + 1000.0f * y;
            EXPECT(hout[y * width + x] == want, "pitched (%d, %d) = %g, expected %g", x, y,
                   hout[y * width + x], want);
        }
    }
    // Columns 5..14 of rows 2..8 into a dense 10 x 7 block on the device, through a 2-D copy
    // from the pitched image, then back to the host.
    float* sub;
    CHECK(cudaMalloc(&sub, 10 * 7 * sizeof(float)));
    CHECK(cudaMemcpy2D(sub, 10 * sizeof(float), reinterpret_cast<char*>(img) + 2 * pitch + 5 * sizeof(float),
                       pitch, 10 * sizeof(float), 7, cudaMemcpyDeviceToDevice));
    float hsub[70];
    CHECK(cudaMemcpy(hsub, sub, sizeof hsub, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 7; ++y) {
        for (int x = 0; x < 10; ++x) {
            EXPECT(hsub[y * 10 + x] == hout[(y + 2) * width + x + 5], "2-D sub-block (%d, %d) = %g, "
                   "expected %g", x, y, hsub[y * 10 + x], hout[(y + 2) * width + x + 5]);
        }
    }

    CHECK(cudaFree(sub));
    CHECK(cudaFree(img));
    CHECK(cudaFree(d1));
    CHECK(cudaFree(d2));
    CHECK(cudaFreeHost(pin_in));
    CHECK(cudaFreeHost(pin_out));
    CHECK(cudaFree(m));
    size_t free2 = 0;
    CHECK(cudaMemGetInfo(&free2, &total));
    EXPECT(free2 == free0, "cudaMemGetInfo: free %zu at the start, %zu after freeing everything",
           free0, free2);
    std::printf("memory_api: OK (pitch %zu for rows of %zu bytes)\n", pitch, width * sizeof(float));
    return 0;
}
