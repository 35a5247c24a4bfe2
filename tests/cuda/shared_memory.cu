// Shared memory: dynamic (extern __shared__, sized by the third <<<>>> argument) alone, with
// different sizes per launch; static and dynamic arrays in one kernel, which must not overlap;
// one dynamic buffer carved into arrays of two types; a static 2-D tile (matrix transpose).
#include <cstdio>
#include <vector>

#include "check.cuh"

// Reverses each block's slice through dynamic shared memory (blockDim.x ints).
__global__ void reverse_blocks(const int* in, int* out)
{
    extern __shared__ int buf[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    buf[t] = in[base + t];
    __syncthreads();
    out[base + t] = buf[blockDim.x - 1 - t];
}

// A static array and a dynamic one written at the same time: if they overlapped, one of the
// two readings would see the other's values.
__global__ void static_and_dynamic(const float* in, float* out)
{
    __shared__ float fixed[64];
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    int n = blockDim.x;
    float v = in[blockIdx.x * n + t];
    if (t < 64) {
        fixed[t] = 1000.0f + t;
    }
    dyn[t] = v;
    __syncthreads();
    out[blockIdx.x * n + t] = dyn[n - 1 - t] * 2.0f + fixed[t % 64];
}

// One dynamic buffer holding blockDim.x doubles followed by blockDim.x ints: per-block sums of
// both, by a shared-memory tree reduction (blockDim.x a power of two).
__global__ void two_types(const double* a, const int* b, double* sum_a, int* sum_b)
{
    extern __shared__ double raw[];
    double* da = raw;
    int* ib = reinterpret_cast<int*>(raw + blockDim.x);
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    da[t] = a[i];
    ib[t] = b[i];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            da[t] += da[t + s];
            ib[t] += ib[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        sum_a[blockIdx.x] = da[0];
        sum_b[blockIdx.x] = ib[0];
    }
}

// Transpose of a rows x cols matrix through a padded static tile.
#define TILE 16
__global__ void transpose(const int* in, int* out, int rows, int cols)
{
    __shared__ int tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) {
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();
    int tx = blockIdx.y * TILE + threadIdx.x;
    int ty = blockIdx.x * TILE + threadIdx.y;
    if (tx < rows && ty < cols) {
        out[ty * rows + tx] = tile[threadIdx.x][threadIdx.y];
    }
}

int main()
{
    unsigned seed = 99u;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };

    // 1. Dynamic only, two block sizes (so two dynamic sizes).
    const int n = 1024;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; ++i) {
        in[i] = static_cast<int>(next() % 100000u);
    }
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    for (int block : {128, 256}) {
        CHECK(cudaMemset(dout, 0, n * sizeof(int)));
        reverse_blocks<<<n / block, block, block * sizeof(int)>>>(din, dout);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            const int want = in[(i / block) * block + block - 1 - i % block];
            if (out[i] != want) {
                std::printf("FAIL: reverse_blocks (block %d): out[%d] = %d, expected %d\n", block,
                            i, out[i], want);
                return 1;
            }
        }
    }

    // 2. Static and dynamic together.
    const int threads = 128, blocks2 = 4;
    std::vector<float> f(threads * blocks2), g(threads * blocks2);
    for (auto& v : f) {
        v = static_cast<float>(next() % 1000u) * 0.25f;
    }
    float *df, *dg;
    CHECK(cudaMalloc(&df, f.size() * sizeof(float)));
    CHECK(cudaMalloc(&dg, g.size() * sizeof(float)));
    CHECK(cudaMemcpy(df, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
    static_and_dynamic<<<blocks2, threads, threads * sizeof(float)>>>(df, dg);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(g.data(), dg, g.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < threads * blocks2; ++i) {
        const int b = i / threads, t = i % threads;
        const float want = f[b * threads + threads - 1 - t] * 2.0f + (1000.0f + t % 64);
        if (g[i] != want) {
            std::printf("FAIL: static_and_dynamic: out[%d] = %g, expected %g\n", i, g[i], want);
            return 1;
        }
    }

    // 3. One dynamic buffer, two element types: 64 doubles then 64 ints.
    const int t3 = 64, b3 = 8, n3 = t3 * b3;
    std::vector<double> a(n3);
    std::vector<int> bi(n3);
    for (int i = 0; i < n3; ++i) {
        a[i] = static_cast<double>(next() % 2000u) / 16.0 - 60.0; // exact in binary
        bi[i] = static_cast<int>(next() % 2001u) - 1000;
    }
    double *da, *dsa;
    int *db, *dsb;
    CHECK(cudaMalloc(&da, n3 * sizeof(double)));
    CHECK(cudaMalloc(&db, n3 * sizeof(int)));
    CHECK(cudaMalloc(&dsa, b3 * sizeof(double)));
    CHECK(cudaMalloc(&dsb, b3 * sizeof(int)));
    CHECK(cudaMemcpy(da, a.data(), n3 * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, bi.data(), n3 * sizeof(int), cudaMemcpyHostToDevice));
    two_types<<<b3, t3, t3 * (sizeof(double) + sizeof(int))>>>(da, db, dsa, dsb);
    CHECK(cudaGetLastError());
    std::vector<double> sa(b3);
    std::vector<int> sb(b3);
    CHECK(cudaMemcpy(sa.data(), dsa, b3 * sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sb.data(), dsb, b3 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < b3; ++blk) {
        double wa = 0.0;
        int wb = 0;
        for (int t = 0; t < t3; ++t) {
            wa += a[blk * t3 + t];
            wb += bi[blk * t3 + t];
        }
        if (sa[blk] != wa || sb[blk] != wb) { // sums of multiples of 1/16: exact
            std::printf("FAIL: two_types block %d: sums %.17g and %d, expected %.17g and %d\n",
                        blk, sa[blk], sb[blk], wa, wb);
            return 1;
        }
    }

    // 4. Static 2-D tile: transpose a 40 x 24 matrix (partial tiles on both edges).
    const int rows = 40, cols = 24;
    std::vector<int> m(rows * cols), mt(rows * cols, -1);
    for (int i = 0; i < rows * cols; ++i) {
        m[i] = i * 7 + 3;
    }
    int *dm, *dmt;
    CHECK(cudaMalloc(&dm, m.size() * sizeof(int)));
    CHECK(cudaMalloc(&dmt, m.size() * sizeof(int)));
    CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(int), cudaMemcpyHostToDevice));
    transpose<<<dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), dim3(TILE, TILE)>>>(
        dm, dmt, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(mt.data(), dmt, mt.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (mt[c * rows + r] != m[r * cols + c]) {
                std::printf("FAIL: transpose: out[%d][%d] = %d, expected %d\n", c, r,
                            mt[c * rows + r], m[r * cols + c]);
                return 1;
            }
        }
    }

    CHECK(cudaDeviceSynchronize());
    for (void* p : {(void*)din, (void*)dout, (void*)df, (void*)dg, (void*)da, (void*)db,
                    (void*)dsa, (void*)dsb, (void*)dm, (void*)dmt}) {
        CHECK(cudaFree(p));
    }
    std::printf("shared_memory: OK\n");
    return 0;
}
