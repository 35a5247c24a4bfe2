// multi_tu: a program of three translation units compiled together without -rdc (each its
// own fat binary). scale_a.cu and scale_b.cu each define a kernel and file-local variables
// `factor` (__constant__) and `calls` (__device__), and a file-local kernel `bump`; this unit
// has its own `factor` and `calls` too. main launches every unit's kernel and checks that each
// sees its own variables, and that writing one unit's variables leaves the others alone.
#include <cstdio>
#include <cuda_runtime.h>

#include "../check.cuh"

// Defined in scale_a.cu and scale_b.cu.
__global__ void kernel_a(int* data, int n);
__global__ void kernel_b(int* data, int n);
cudaError_t set_factor_a(int mul, int add);
cudaError_t set_factor_b(int mul, int add);
cudaError_t get_factor_a(int* f);
cudaError_t get_factor_b(int* f);
cudaError_t calls_a(int* out);
cudaError_t calls_b(int* out);
cudaError_t bump_a(int by);
cudaError_t bump_b(int by);

static __constant__ int factor[2] = {7, 7};
static __device__ int calls = 300;

__global__ void kernel_main(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = data[i] * factor[0] - factor[1];
    }
    if (i == 0) {
        atomicAdd(&calls, 1);
    }
}

static int check_data(int* d, const int* host_in, int n, int mul, int add, bool table,
                      const char* what)
{
    int out[256];
    CHECK(cudaMemcpy(out, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    const int t[4] = {10, 20, 30, 40};
    for (int i = 0; i < n; ++i) {
        const int want = host_in[i] * mul + add + (table ? t[i % 4] : 0);
        EXPECT(out[i] == want, "%s: data[%d] = %d, expected %d", what, i, out[i], want);
    }
    return 0;
}

int main()
{
    const int n = 256;
    int in[n];
    for (int i = 0; i < n; ++i) {
        in[i] = i * 13 % 97 - 40;
    }
    int *da, *db, *dm;
    CHECK(cudaMalloc(&da, n * sizeof(int)));
    CHECK(cudaMalloc(&db, n * sizeof(int)));
    CHECK(cudaMalloc(&dm, n * sizeof(int)));
    CHECK(cudaMemcpy(da, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dm, in, sizeof in, cudaMemcpyHostToDevice));

    // Initialisers, each unit its own.
    int fa[2], fb[2], fm[2];
    CHECK(get_factor_a(fa));
    CHECK(get_factor_b(fb));
    CHECK(cudaMemcpyFromSymbol(fm, factor, sizeof fm));
    EXPECT(fa[0] == 3 && fa[1] == 1, "unit A factor = {%d, %d}, expected {3, 1}", fa[0], fa[1]);
    EXPECT(fb[0] == 5 && fb[1] == -2, "unit B factor = {%d, %d}, expected {5, -2}", fb[0], fb[1]);
    EXPECT(fm[0] == 7 && fm[1] == 7, "main factor = {%d, %d}, expected {7, 7}", fm[0], fm[1]);

    // All three kernels with the initial factors, launched from here.
    kernel_a<<<2, 128>>>(da, n);
    CHECK(cudaGetLastError());
    kernel_b<<<2, 128>>>(db, n);
    CHECK(cudaGetLastError());
    kernel_main<<<2, 128>>>(dm, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (check_data(da, in, n, 3, 1, false, "kernel_a") != 0 ||
        check_data(db, in, n, 5, -2, true, "kernel_b") != 0 ||
        check_data(dm, in, n, 7, -7, false, "kernel_main") != 0) {
        return 1;
    }

    // New factors for unit B only; A and main keep theirs.
    CHECK(set_factor_b(-4, 9));
    CHECK(cudaMemcpy(da, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dm, in, sizeof in, cudaMemcpyHostToDevice));
    kernel_b<<<2, 128>>>(db, n);
    kernel_a<<<2, 128>>>(da, n);
    kernel_main<<<2, 128>>>(dm, n);
    CHECK(cudaGetLastError());
    if (check_data(da, in, n, 3, 1, false, "kernel_a after setting B") != 0 ||
        check_data(db, in, n, -4, 9, true, "kernel_b after setting B") != 0 ||
        check_data(dm, in, n, 7, -7, false, "kernel_main after setting B") != 0) {
        return 1;
    }
    // And for main only.
    const int f2[2] = {2, 100};
    CHECK(cudaMemcpyToSymbol(factor, f2, sizeof f2));
    CHECK(set_factor_a(1, 1));
    CHECK(cudaMemcpy(dm, in, sizeof in, cudaMemcpyHostToDevice));
    kernel_main<<<2, 128>>>(dm, n);
    CHECK(cudaGetLastError());
    if (check_data(dm, in, n, 2, -100, false, "kernel_main after setting main") != 0) {
        return 1;
    }
    CHECK(get_factor_a(fa));
    CHECK(get_factor_b(fb));
    EXPECT(fa[0] == 1 && fa[1] == 1, "unit A factor = {%d, %d}, expected {1, 1}", fa[0], fa[1]);
    EXPECT(fb[0] == -4 && fb[1] == 9, "unit B factor = {%d, %d}, expected {-4, 9}", fb[0], fb[1]);

    // The same-named static kernels, each bumping its own unit's counter.
    CHECK(bump_a(10));
    CHECK(bump_b(10));
    CHECK(bump_a(1));
    int ca = 0, cb = 0, cm = 0;
    CHECK(calls_a(&ca));
    CHECK(calls_b(&cb));
    CHECK(cudaMemcpyFromSymbol(&cm, calls, sizeof cm));
    // A: 100 + 2 launches + 4 * 10 + 4 * 1; B: 200 + 2 launches + 8 * 10; main: 300 + 3 launches.
    EXPECT(ca == 146, "unit A calls = %d, expected 146", ca);
    EXPECT(cb == 282, "unit B calls = %d, expected 282", cb);
    EXPECT(cm == 303, "main calls = %d, expected 303", cm);

    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dm));
    std::printf("multi_tu: OK\n");
    return 0;
}
