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
