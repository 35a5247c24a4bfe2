// bfs: breadth-first search levels from vertex 0 of an undirected random graph in CSR form.
// Two kernels, one launch per level: top_down_step (one thread per vertex; a vertex on the
// current level claims each unvisited neighbour with atomicCAS) and bottom_up_step (one
// thread per vertex; an unvisited vertex scans its neighbours and stops at the first one on
// the current level). Each launch counts the vertices it discovered into a device counter;
// the host loop copies the count back, stops when it is 0, and picks bottom-up for the next
// level while the frontier holds more than 1/16 of the vertices, top-down otherwise.
// Sizes: small 2,048 vertices, paper 98,304 vertices; each vertex draws a power-law-ish
// number of random neighbours (most 1 or 2, a few hubs with hundreds), then edges are made
// symmetric and duplicates dropped.
// Check: every level equals a CPU queue BFS, and every launch's count equals the size of
// the CPU's next level (so the number of launches is the depth + 1).
// run-args: small
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <vector>

#include "suite.cuh"

constexpr int unvisited = -1;

__global__ void top_down_step(const int* row_start, const int* adj, int* level_of, int n,
                              int level, int* discovered)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level_of[v] != level) {
        return;
    }
    int found = 0;
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        int u = adj[e];
        // The plain read filters most visited neighbours cheaply; the CAS makes sure a
        // vertex reached from two frontier vertices is counted once.
        if (level_of[u] == unvisited && atomicCAS(&level_of[u], unvisited, level + 1) == unvisited) {
            ++found;
        }
    }
    if (found > 0) {
        atomicAdd(discovered, found);
    }
}

__global__ void bottom_up_step(const int* row_start, const int* adj, int* level_of, int n,
                               int level, int* discovered)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || level_of[v] != unvisited) {
        return;
    }
    // Only this thread writes level_of[v], and the neighbours it may see change during the
    // launch change to level + 1, never to level, so the outcome does not depend on timing.
    for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
        if (level_of[adj[e]] == level) {
            level_of[v] = level + 1;
            atomicAdd(discovered, 1);
            return;
        }
    }
}

// Undirected graph: vertex v picks k doublings with probability 2^-(k+1) (k <= 8) and then
// 1 to 2^(k+1) random partners, so P(degree > d) falls off roughly like 1/d.
static void make_graph(int n, uint64_t seed, std::vector<int>& row_start, std::vector<int>& adj)
{
    std::vector<std::vector<int>> nbrs(n);
    uint64_t state = seed;
    for (int v = 0; v < n; ++v) {
        uint64_t r = splitmix64(state);
        int k = 0;
        while (k < 8 && (r >> k & 1)) {
            ++k;
        }
        int picks = 1 + static_cast<int>(splitmix64(state) % (2u << k));
        for (int i = 0; i < picks; ++i) {
            int u = static_cast<int>(splitmix64(state) % n);
            if (u != v) {
                nbrs[v].push_back(u);
                nbrs[u].push_back(v);
            }
        }
    }
    row_start.assign(1, 0);
    adj.clear();
    for (auto& list : nbrs) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        adj.insert(adj.end(), list.begin(), list.end());
        row_start.push_back(static_cast<int>(adj.size()));
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? 98304 : 2048;
    std::vector<int> row_start, adj;
    make_graph(n, seed, row_start, adj);

    // CPU reference: queue BFS, and how many vertices each level holds.
    std::vector<int> want(n, unvisited);
    std::vector<int> level_size(1, 1);
    std::queue<int> queue;
    want[0] = 0;
    queue.push(0);
    while (!queue.empty()) {
        int v = queue.front();
        queue.pop();
        for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
            int u = adj[e];
            if (want[u] == unvisited) {
                want[u] = want[v] + 1;
                if (want[u] == static_cast<int>(level_size.size())) {
                    level_size.push_back(0);
                }
                ++level_size[want[u]];
                queue.push(u);
            }
        }
    }
    const int depth = static_cast<int>(level_size.size()) - 1;
    level_size.push_back(0); // the launch after the last level finds nothing

    int *d_row_start, *d_adj, *d_level_of, *d_discovered;
    CHECK(cudaMalloc(&d_row_start, row_start.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_adj, adj.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_level_of, n * sizeof(int)));
    CHECK(cudaMalloc(&d_discovered, sizeof(int)));
    CHECK(cudaMemcpy(d_row_start, row_start.data(), row_start.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_adj, adj.data(), adj.size() * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> start(n, unvisited);
    start[0] = 0;
    CHECK(cudaMemcpy(d_level_of, start.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    const int block = 256;
    const int grid = (n + block - 1) / block;
    int level = 0;
    int frontier = 1;
    int launches = 0;
    int bottom_up_launches = 0;
    for (;;) {
        CHECK(cudaMemset(d_discovered, 0, sizeof(int)));
        // Bottom-up pays off once the frontier is large: most unvisited vertices then find a
        // parent after a few neighbours, while top-down would touch every frontier edge.
        if (frontier > n / 16) {
            bottom_up_step<<<grid, block>>>(d_row_start, d_adj, d_level_of, n, level, d_discovered);
            ++bottom_up_launches;
        } else {
            top_down_step<<<grid, block>>>(d_row_start, d_adj, d_level_of, n, level, d_discovered);
        }
        CHECK(cudaGetLastError());
        ++launches;
        int discovered = -1;
        CHECK(cudaMemcpy(&discovered, d_discovered, sizeof(int), cudaMemcpyDeviceToHost));
        if (level + 1 > depth + 1 || discovered != level_size[level + 1]) {
            std::printf("FAIL: launch %d discovered %d vertices on level %d, expected %d\n", launches,
                        discovered, level + 1, level + 1 <= depth + 1 ? level_size[level + 1] : 0);
            return 1;
        }
        if (discovered == 0) {
            break;
        }
        frontier = discovered;
        ++level;
    }

    std::vector<int> got(n);
    CHECK(cudaMemcpy(got.data(), d_level_of, n * sizeof(int), cudaMemcpyDeviceToHost));
    int reached = 0;
    for (int v = 0; v < n; ++v) {
        if (got[v] != want[v]) {
            std::printf("FAIL: level of vertex %d = %d, expected %d\n", v, got[v], want[v]);
            return 1;
        }
        reached += want[v] != unvisited;
    }
    CHECK(cudaFree(d_row_start));
    CHECK(cudaFree(d_adj));
    CHECK(cudaFree(d_level_of));
    CHECK(cudaFree(d_discovered));
    std::printf("bfs: OK (%d vertices, %zu edges, %d reached, depth %d, %d launches, %d bottom-up)\n", n,
                adj.size(), reached, depth, launches, bottom_up_launches);
    return 0;
}
