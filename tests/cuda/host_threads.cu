// Several host threads calling the runtime at once: each allocates its own buffers, copies,
// launches and checks its own result; the runtime serialises the calls. Each thread launches
// its own grid and block shape, and the kernel checks the shape it runs with: a `<<<...>>>`
// configuration is per host thread, and one thread's launch must never take another's.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void affine(const int* in, int* out, int n, int a, int b, unsigned grid,
                       unsigned block)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool shape = gridDim.x == grid && blockDim.x == block;
    if (i < n) out[i] = shape ? a * in[i] + b : -1;
}

static bool work(int id)
{
    const int n = 1000 + 337 * id;
    const unsigned block = 32u * static_cast<unsigned>(1 + id % 4);
    const unsigned grid = (static_cast<unsigned>(n) + block - 1) / block;
    std::vector<int> h(n), r(n, 0);
    for (int i = 0; i < n; ++i) h[i] = (i * 7 + id) % 101;
    int *in = nullptr, *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess) return false;
    if (cudaMalloc(&out, n * sizeof(int)) != cudaSuccess) return false;
    for (int round = 0; round < 5; ++round) {
        if (cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess)
            return false;
        affine<<<grid, block>>>(in, out, n, id + 2, round, grid, block);
        if (cudaDeviceSynchronize() != cudaSuccess) return false;
        if (cudaMemcpy(r.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
            return false;
        for (int i = 0; i < n; ++i)
            if (r[i] != (id + 2) * h[i] + round) {
                std::printf("FAIL: thread %d round %d: out[%d] = %d, expected %d\n", id, round, i,
                            r[i], (id + 2) * h[i] + round);
                return false;
            }
    }
    return cudaFree(in) == cudaSuccess && cudaFree(out) == cudaSuccess;
}

int main()
{
    const int threads = 6;
    std::vector<char> ok(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([t, &ok] { ok[t] = work(t) ? 1 : 0; });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t)
        if (!ok[t]) {
            std::printf("FAIL: thread %d\n", t);
            return 1;
        }
    // The last error is per host thread too: one made here is not another thread's to read.
    int* p = nullptr;
    if (cudaMalloc(&p, 64) != cudaSuccess) return 1;
    // 7: no copy direction, yet inside the enumeration's range (UBSan checks loads).
    if (cudaMemcpy(p, p, 64, static_cast<cudaMemcpyKind>(7)) == cudaSuccess) {
        std::printf("FAIL: a copy in direction 7 succeeded\n");
        return 1;
    }
    cudaError_t other = cudaErrorUnknown;
    std::thread([&other] { other = cudaPeekAtLastError(); }).join();
    if (other != cudaSuccess) {
        std::printf("FAIL: another thread reads this thread's error: %s\n",
                    cudaGetErrorName(other));
        return 1;
    }
    if (cudaGetLastError() != cudaErrorInvalidMemcpyDirection) {
        std::printf("FAIL: this thread lost its own last error\n");
        return 1;
    }
    cudaFree(p);
    std::printf("host_threads: OK (%d threads)\n", threads);
    return 0;
}
