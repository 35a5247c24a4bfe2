// Several host threads calling the runtime at once: each allocates its own buffers, copies,
// launches and checks its own result; the runtime serialises the calls.
#include <cstdio>
#include <thread>
#include <vector>

__global__ void affine(const int* in, int* out, int n, int a, int b)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}

static bool work(int id)
{
    const int n = 1000 + 37 * id;
    std::vector<int> h(n), r(n, 0);
    for (int i = 0; i < n; ++i) h[i] = (i * 7 + id) % 101;
    int *in = nullptr, *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess) return false;
    if (cudaMalloc(&out, n * sizeof(int)) != cudaSuccess) return false;
    for (int round = 0; round < 3; ++round) {
        if (cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess)
            return false;
        affine<<<(n + 127) / 128, 128>>>(in, out, n, id + 2, round);
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
    const int threads = 4;
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
    std::printf("host_threads: OK (%d threads)\n", threads);
    return 0;
}
