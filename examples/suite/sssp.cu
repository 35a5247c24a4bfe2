// sssp: single-source shortest paths from vertex 0 of a directed random graph in CSR form
// with integer edge weights 1..100, by Bellman-Ford style relaxation rounds.
// One kernel, relax_round, one thread per vertex: a vertex whose distance dropped in the
// previous round (its byte in active_in is set) offers dist + weight to each out-neighbour
// with atomicMin, and a neighbour it improves is marked in active_out and raises a changed
// flag. A host loop launches one round at a time, swapping the two activity arrays, until
// the copied-back flag stays 0.
// Sizes: small 2,048 vertices (out-degree at most 32), paper 32,768 vertices (at most 256);
// out-degrees are power-law-ish (most vertices 1 or 2 edges, a few hubs), and some vertices
// have no in-edge at all, so a few are unreachable.
// Check: every distance (unreachable ones included) equals a CPU Dijkstra exactly.
// run-args: small
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "suite.cuh"

// Far above any path length here (at most 100 per edge), and INF + 100 still fits an int.
constexpr int INF = INT_MAX / 2;

__global__ void relax_round(const int* row_start, const int* target, const int* weight, int* dist,
                            const unsigned char* active_in, unsigned char* active_out, int n,
                            int* changed)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !active_in[v]) {
        return;
    }
    // dist[v] may still drop during this launch; any value read is the length of a real path,
    // and a later drop marks v active again, so the fixed point is the same whatever the timing.
    int dv = dist[v];
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = target[e];
        int offer = dv + weight[e];
        if (offer < dist[u] && atomicMin(&dist[u], offer) > offer) {
            active_out[u] = 1;
            *changed = 1; // racing writers all store 1
        }
    }
}

// Vertex v takes k doublings with probability 2^-(k+1) (k <= max_k), then 1 to 2^(k+1) edges
// to random targets (self loops dropped, parallel edges kept: they only add relaxations).
static void make_graph(int n, int max_k, uint64_t seed, std::vector<int>& row_start,
                       std::vector<int>& target, std::vector<int>& weight)
{
    uint64_t state = seed;
    row_start.assign(1, 0);
    target.clear();
    weight.clear();
    for (int v = 0; v < n; ++v) {
        uint64_t r = splitmix64(state);
        int k = 0;
        while (k < max_k && (r >> k & 1)) {
            ++k;
        }
        int edges = 1 + static_cast<int>(splitmix64(state) % (2u << k));
        for (int i = 0; i < edges; ++i) {
            int u = static_cast<int>(splitmix64(state) % n);
            if (u != v) {
                target.push_back(u);
                weight.push_back(1 + static_cast<int>(splitmix64(state) % 100));
            }
        }
        row_start.push_back(static_cast<int>(target.size()));
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    // Hubs are capped smaller in the small graph: a vertex whose distance keeps dropping is
    // relaxed again each time, and a hub's serial edge loop dominates a round.
    int n, max_k;
    if (!paper) {
        n = 2048;
        max_k = 4;
    } else {
        n = 32768;
        max_k = 7;
    }
    std::vector<int> row_start, target, weight;
    make_graph(n, max_k, seed, row_start, target, weight);
    const int m = static_cast<int>(target.size());

    // CPU reference: Dijkstra with a binary heap, stale entries skipped.
    std::vector<int> want(n, INF);
    using entry = std::pair<int, int>; // (distance, vertex)
    std::priority_queue<entry, std::vector<entry>, std::greater<entry>> heap;
    want[0] = 0;
    heap.push({0, 0});
    while (!heap.empty()) {
        auto [d, v] = heap.top();
        heap.pop();
        if (d != want[v]) {
            continue;
        }
        for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
            if (d + weight[e] < want[target[e]]) {
                want[target[e]] = d + weight[e];
                heap.push({want[target[e]], target[e]});
            }
        }
    }

    int *d_row_start, *d_target, *d_weight, *d_dist, *d_changed;
    unsigned char *d_active_in, *d_active_out;
    CHECK(cudaMalloc(&d_row_start, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_target, m * sizeof(int)));
    CHECK(cudaMalloc(&d_weight, m * sizeof(int)));
    CHECK(cudaMalloc(&d_dist, n * sizeof(int)));
    CHECK(cudaMalloc(&d_changed, sizeof(int)));
    CHECK(cudaMalloc(&d_active_in, n));
    CHECK(cudaMalloc(&d_active_out, n));
    CHECK(cudaMemcpy(d_row_start, row_start.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_target, target.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_weight, weight.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> dist(n, INF);
    dist[0] = 0;
    CHECK(cudaMemcpy(d_dist, dist.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<unsigned char> active(n, 0);
    active[0] = 1; // only the source has something to offer in the first round
    CHECK(cudaMemcpy(d_active_in, active.data(), n, cudaMemcpyHostToDevice));

    const int block = 256;
    const int grid = (n + block - 1) / block;
    int rounds = 0;
    for (;;) {
        CHECK(cudaMemset(d_active_out, 0, n));
        CHECK(cudaMemset(d_changed, 0, sizeof(int)));
        relax_round<<<grid, block>>>(d_row_start, d_target, d_weight, d_dist, d_active_in, d_active_out,
                                     n, d_changed);
        CHECK(cudaGetLastError());
        ++rounds;
        int changed = -1;
        CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
        if (changed == 0) {
            break;
        }
        // With non-negative weights a shortest path has at most n - 1 edges, and every round
        // settles at least one more edge of each, so n rounds bound any correct run.
        if (changed != 1 || rounds > n) {
            std::printf("FAIL: changed flag %d after round %d\n", changed, rounds);
            return 1;
        }
        std::swap(d_active_in, d_active_out);
    }

    CHECK(cudaMemcpy(dist.data(), d_dist, n * sizeof(int), cudaMemcpyDeviceToHost));
    int reached = 0;
    int farthest = 0;
    for (int v = 0; v < n; ++v) {
        if (dist[v] != want[v]) {
            std::printf("FAIL: dist[%d] = %d, expected %d\n", v, dist[v], want[v]);
            return 1;
        }
        if (want[v] != INF) {
            ++reached;
            farthest = want[v] > farthest ? want[v] : farthest;
        }
    }
    CHECK(cudaFree(d_row_start));
    CHECK(cudaFree(d_target));
    CHECK(cudaFree(d_weight));
    CHECK(cudaFree(d_dist));
    CHECK(cudaFree(d_changed));
    CHECK(cudaFree(d_active_in));
    CHECK(cudaFree(d_active_out));
    std::printf("sssp: OK (%d vertices, %d edges, %d reached, farthest %d, %d rounds)\n", n, m, reached,
                farthest, rounds);
    return 0;
}
