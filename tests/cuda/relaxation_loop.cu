// Host loop driven by a copied-back flag: shortest paths on a weighted grid by repeated
// relaxation. Each launch computes one Bellman-Ford round (every vertex pulls from its four
// neighbours, double-buffered so a round is deterministic) and raises *changed when any
// distance dropped; the host copies the flag back and decides whether to launch again.
// The CPU runs the same rounds: the distances and the number of launches must match exactly.
#include <cstdio>
#include <utility>
#include <vector>

#include "check.cuh"

constexpr int W = 16;
constexpr int H = 16;
constexpr int INF = 1 << 29;

__global__ void relax(const int* cost, const int* dist_in, int* dist_out, int* changed)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) {
        return;
    }
    int v = y * W + x;
    int best = dist_in[v];
    const int dx[4] = {1, -1, 0, 0};
    const int dy[4] = {0, 0, 1, -1};
    for (int k = 0; k < 4; ++k) {
        int nx = x + dx[k];
        int ny = y + dy[k];
        if (nx >= 0 && nx < W && ny >= 0 && ny < H) {
            int d = dist_in[ny * W + nx];
            if (d < INF && d + cost[v] < best) {
                best = d + cost[v];
            }
        }
    }
    dist_out[v] = best;
    if (best != dist_in[v]) {
        *changed = 1; // racing writers all store 1
    }
}

int main()
{
    const int n = W * H;
    std::vector<int> cost(n), dist(n, INF);
    unsigned seed = 12345u;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        // Cheap cells mostly, with expensive walls that force detours.
        const unsigned r = (seed >> 8) % 100u;
        cost[i] = r < 15 ? 50 + static_cast<int>(r) : 1 + static_cast<int>(r % 9u);
    }
    dist[0] = 0;

    // CPU: the same double-buffered rounds.
    std::vector<int> want = dist, next(n);
    int want_rounds = 0;
    for (bool changed = true; changed; ++want_rounds) {
        changed = false;
        for (int y = 0; y < H; ++y) {
            for (int x = 0; x < W; ++x) {
                const int v = y * W + x;
                int best = want[v];
                const int nb[4][2] = {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}};
                for (const auto& p : nb) {
                    if (p[0] >= 0 && p[0] < W && p[1] >= 0 && p[1] < H) {
                        const int d = want[p[1] * W + p[0]];
                        if (d < INF && d + cost[v] < best) {
                            best = d + cost[v];
                        }
                    }
                }
                next[v] = best;
                changed = changed || best != want[v];
            }
        }
        want.swap(next);
    }

    int *dcost, *da, *db, *dchanged;
    CHECK(cudaMalloc(&dcost, n * sizeof(int)));
    CHECK(cudaMalloc(&da, n * sizeof(int)));
    CHECK(cudaMalloc(&db, n * sizeof(int)));
    CHECK(cudaMalloc(&dchanged, sizeof(int)));
    CHECK(cudaMemcpy(dcost, cost.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(da, dist.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const dim3 block(8, 8);
    const dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
    int rounds = 0;
    for (;;) {
        CHECK(cudaMemset(dchanged, 0, sizeof(int)));
        relax<<<grid, block>>>(dcost, da, db, dchanged);
        CHECK(cudaGetLastError());
        ++rounds;
        int changed = -1;
        CHECK(cudaMemcpy(&changed, dchanged, sizeof(int), cudaMemcpyDeviceToHost));
        std::swap(da, db);
        if (changed == 0) {
            break;
        }
        if (changed != 1) {
            std::printf("FAIL: flag %d after round %d (expected 0 or 1)\n", changed, rounds);
            return 1;
        }
        if (rounds > n) {
            std::printf("FAIL: no convergence after %d rounds\n", rounds);
            return 1;
        }
    }
    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), da, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int v = 0; v < n; ++v) {
        if (got[v] != want[v]) {
            std::printf("FAIL: dist[%d] = %d, expected %d\n", v, got[v], want[v]);
            return 1;
        }
    }
    if (rounds != want_rounds) {
        std::printf("FAIL: %d launches, expected %d\n", rounds, want_rounds);
        return 1;
    }
    CHECK(cudaFree(dcost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dchanged));
    std::printf("relaxation_loop: OK (%d launches, farthest distance %d)\n", rounds, got[n - 1]);
    return 0;
}
