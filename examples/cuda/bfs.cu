// One level of breadth-first search over a CSR graph. Every vertex on the current level
// labels its unvisited neighbours (levels[v] == -1) with level + 1 and raises *changed.
// The host launches once per level until *changed stays 0.
extern "C" __global__ void bfs(const int* row_offsets, const int* columns, int* levels,
                               int num_vertices, int level, int* changed)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= num_vertices || levels[v] != level) {
        return;
    }
    int begin = row_offsets[v];
    int end = row_offsets[v + 1];
    for (int e = begin; e < end; ++e) {
        int u = columns[e];
        if (levels[u] == -1) {
            // Racing writers all store the same value, so a plain store is enough.
            levels[u] = level + 1;
            *changed = 1;
        }
    }
}

// --- Host test (appended; the kernel above is unchanged) ----------------------------------
// Build: nvcc -cudart shared -o bfs bfs.cu
// Run:   warpkit-cuda -- ./bfs            BFS from vertex 0 over a generated graph
//        warpkit-cuda -- ./bfs DIR        the graph of bfs.launch.json: DIR/bfs_row_offsets.bin,
//                                         bfs_columns.bin and bfs_levels.bin, from level 3 on
// The launch shape is bfs.launch.json's (1024 vertices, 4 blocks of 256 threads); the host
// launches once per level until the copied-back flag stays 0, then checks every level
// against a BFS on the CPU. scripts/cuda-programs passes the launch file's directory:
// run-args: ${WARPKIT_SOURCE_DIR}/examples/cuda
// Host code only: the device pass never sees it, so the PTX (also nvcc -G's debug
// information) stays what the kernel alone gives.
#ifndef __CUDA_ARCH__
#include "host.cuh"

#include <cstdio>
#include <queue>
#include <set>
#include <string>
#include <vector>

static bool read_ints(const std::string& path, std::vector<int>& out)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        return false;
    }
    out.clear();
    int v;
    while (std::fread(&v, sizeof v, 1, f) == 1) {
        out.push_back(v);
    }
    std::fclose(f);
    return true;
}

int main(int argc, char** argv)
{
    const int vertices = 1024;
    std::vector<int> rows, cols, levels;
    int start_level = 0;
    if (argc > 1) {
        const std::string dir = std::string(argv[1]) + "/";
        if (!read_ints(dir + "bfs_row_offsets.bin", rows) || !read_ints(dir + "bfs_columns.bin", cols) ||
            !read_ints(dir + "bfs_levels.bin", levels)) {
            std::printf("FAIL: cannot read the bfs_*.bin files in %s\n", argv[1]);
            return 1;
        }
        if (rows.size() != vertices + 1u || levels.size() != static_cast<size_t>(vertices) ||
            rows.back() != static_cast<int>(cols.size())) {
            std::printf("FAIL: the bfs_*.bin files in %s do not describe a %d-vertex CSR graph\n",
                        argv[1], vertices);
            return 1;
        }
        start_level = 3;
    } else {
        // Like bfs_graph.py: each vertex picks 1 to 6 random neighbours (mostly few), edges are
        // made symmetric, self loops and duplicates dropped, rows sorted.
        std::vector<std::set<int>> adj(vertices);
        unsigned seed = 2024u;
        for (int v = 0; v < vertices; ++v) {
            const unsigned r = random_bits(seed) % 64u;
            const int degree = r < 32 ? 1 : r < 48 ? 2 : r < 56 ? 3 : r < 60 ? 4 : r < 62 ? 5 : 6;
            for (int k = 0; k < degree; ++k) {
                const int u = static_cast<int>(random_bits(seed) % vertices);
                if (u != v) {
                    adj[v].insert(u);
                    adj[u].insert(v);
                }
            }
        }
        rows.push_back(0);
        for (int v = 0; v < vertices; ++v) {
            cols.insert(cols.end(), adj[v].begin(), adj[v].end());
            rows.push_back(static_cast<int>(cols.size()));
        }
        levels.assign(vertices, -1);
        levels[0] = 0;
    }

    // CPU reference: full BFS from vertex 0.
    std::vector<int> want(vertices, -1);
    want[0] = 0;
    std::queue<int> frontier;
    frontier.push(0);
    int depth = 0;
    while (!frontier.empty()) {
        const int v = frontier.front();
        frontier.pop();
        for (int e = rows[v]; e < rows[v + 1]; ++e) {
            if (want[cols[e]] == -1) {
                want[cols[e]] = want[v] + 1;
                depth = want[v] + 1 > depth ? want[v] + 1 : depth;
                frontier.push(cols[e]);
            }
        }
    }

    int *drows, *dcols, *dlevels, *dchanged;
    CHECK(copy_to_device(&drows, rows));
    CHECK(copy_to_device(&dcols, cols));
    CHECK(copy_to_device(&dlevels, levels));
    CHECK(cudaMalloc(&dchanged, sizeof(int)));
    int level = start_level;
    int launches = 0;
    for (;;) {
        int changed = 0;
        CHECK(cudaMemcpy(dchanged, &changed, sizeof changed, cudaMemcpyHostToDevice));
        bfs<<<4, 256>>>(drows, dcols, dlevels, vertices, level, dchanged);
        CHECK(cudaGetLastError());
        ++launches;
        CHECK(cudaMemcpy(&changed, dchanged, sizeof changed, cudaMemcpyDeviceToHost));
        if (changed == 0) {
            break;
        }
        ++level;
        if (launches > vertices) {
            std::printf("FAIL: no convergence after %d launches\n", launches);
            return 1;
        }
    }
    std::vector<int> got(vertices);
    CHECK(copy_to_host(got, dlevels));
    for (int v = 0; v < vertices; ++v) {
        EXPECT(got[v] == want[v], "levels[%d] = %d, expected %d", v, got[v], want[v]);
    }
    // One launch per level from start_level to the depth; the last one finds nothing new.
    if (launches != depth - start_level + 1) {
        std::printf("FAIL: %d launches, expected %d (depth %d)\n", launches,
                    depth - start_level + 1, depth);
        return 1;
    }
    CHECK(cudaFree(drows));
    CHECK(cudaFree(dcols));
    CHECK(cudaFree(dlevels));
    CHECK(cudaFree(dchanged));
    std::printf("bfs: OK (%zu edges, depth %d, %d launches)\n", cols.size(), depth, launches);
    return 0;
}
#endif // __CUDA_ARCH__
