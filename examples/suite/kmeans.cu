// Lloyd's k-means on integer feature vectors (bytes, like quantised descriptors), with
// integer centroids (the rounded mean of their members), so that every step is exact.
// Kernels, per iteration:
//   assign_points        one thread per point: the nearest centroid by squared distance
//                        (ties go to the lower index), the point held in registers;
//                        centroids sit in __constant__ memory, which broadcasts since all
//                        lanes read the same centroid at a time; features are stored
//                        feature-major so the lanes' loads coalesce; the number of changed
//                        assignments is counted with a warp ballot and one atomic per warp;
//   accumulate_clusters  per-block sums of each cluster's features and member counts with
//                        shared-memory atomics, merged into global totals with global atomics.
// The host divides the totals into new centroids and repeats until no point changes or
// max_iterations is reached.
// Sizes: small = 1536 points x 8 features, k = 4; paper = 65536 points x 16 features, k = 12.
// Check: memberships, centroids and the iteration count against a CPU run, exactly.
// run-args: small
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int max_k = 16;
constexpr int max_features = 16;
constexpr int max_iterations = 8;
constexpr int block_threads = 256;

__constant__ int centroids[max_k * max_features];

// dims is a template parameter so that both feature loops unroll completely: the point
// stays in registers and every centroid read has a fixed constant-bank offset.
template <int dims>
__global__ void assign_points(const uint8_t* features, int n, int k, int* membership, int* changes)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    bool changed = false;
    if (p < n) {
        int point[dims];
#pragma unroll
        for (int f = 0; f < dims; ++f) {
            point[f] = features[f * n + p];
        }
        int best = 0;
        int best_dist = 0x7fffffff;
        for (int c = 0; c < k; ++c) {
            int dist = 0;
#pragma unroll
            for (int f = 0; f < dims; ++f) {
                const int diff = point[f] - centroids[c * dims + f];
                dist += diff * diff;
            }
            if (dist < best_dist) { // strict: the lowest index wins a tie
                best_dist = dist;
                best = c;
            }
        }
        changed = membership[p] != best;
        membership[p] = best;
    }
    const unsigned votes = __ballot_sync(0xffffffffu, changed);
    if ((threadIdx.x & 31) == 0 && votes != 0) {
        atomicAdd(changes, __popc(votes));
    }
}

__global__ void accumulate_clusters(const uint8_t* features, const int* membership, int n, int dims,
                                    int k, int* sums, int* counts)
{
    __shared__ int s_sums[max_k * max_features];
    __shared__ int s_counts[max_k];
    for (int i = threadIdx.x; i < k * dims; i += blockDim.x) {
        s_sums[i] = 0;
    }
    if (threadIdx.x < k) {
        s_counts[threadIdx.x] = 0;
    }
    __syncthreads();
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n) {
        const int c = membership[p];
        atomicAdd(&s_counts[c], 1);
        for (int f = 0; f < dims; ++f) {
            atomicAdd(&s_sums[c * dims + f], static_cast<int>(features[f * n + p]));
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < k * dims; i += blockDim.x) {
        atomicAdd(&sums[i], s_sums[i]);
    }
    if (threadIdx.x < k) {
        atomicAdd(&counts[threadIdx.x], s_counts[threadIdx.x]);
    }
}

// New centroid = rounded mean of its members; an empty cluster keeps its centroid.
static void update_centroids(std::vector<int>& cent, const std::vector<int>& sums,
                             const std::vector<int>& counts, int k, int dims)
{
    for (int c = 0; c < k; ++c) {
        if (counts[c] > 0) {
            for (int f = 0; f < dims; ++f) {
                cent[c * dims + f] = (sums[c * dims + f] + counts[c] / 2) / counts[c];
            }
        }
    }
}

// One clustering problem: the points (feature-major: feature f of point p at f * n + p) and
// the initial centroids.
struct problem {
    int n, dims, k;
    std::vector<uint8_t> features;
    std::vector<int> initial;
};

// Where the iterations ended: centroids, each point's cluster and the iteration count.
struct clustering {
    std::vector<int> cent, member;
    int iterations = 0;
};

// Points scatter (triangular noise of +-48) around k hidden centres; the first k points seed
// the centroids.
static problem make_problem(int n, int dims, int k, uint64_t seed)
{
    uint64_t state = seed;
    std::vector<int> centres(k * dims);
    for (int& v : centres) {
        v = 40 + static_cast<int>(splitmix64(state) % 176);
    }
    problem pr{n, dims, k, std::vector<uint8_t>(static_cast<size_t>(n) * dims),
               std::vector<int>(k * dims)};
    for (int p = 0; p < n; ++p) {
        const int home = static_cast<int>(splitmix64(state) % k);
        for (int f = 0; f < dims; ++f) {
            const uint64_t r = splitmix64(state);
            const int noise = static_cast<int>(r % 49) - static_cast<int>((r >> 32) % 49);
            int v = centres[home * dims + f] + noise;
            v = v < 0 ? 0 : (v > 255 ? 255 : v);
            pr.features[static_cast<size_t>(f) * n + p] = static_cast<uint8_t>(v);
        }
    }
    for (int c = 0; c < k; ++c) {
        for (int f = 0; f < dims; ++f) {
            pr.initial[c * dims + f] = pr.features[static_cast<size_t>(f) * n + c];
        }
    }
    return pr;
}

// CPU reference: the same iterations.
static clustering cluster_on_cpu(const problem& pr)
{
    const int n = pr.n, dims = pr.dims, k = pr.k;
    clustering want{pr.initial, std::vector<int>(n, -1), 0};
    for (int changes = 1; changes != 0 && want.iterations < max_iterations; ++want.iterations) {
        changes = 0;
        std::vector<int> sums(k * dims, 0), counts(k, 0);
        for (int p = 0; p < n; ++p) {
            int best = 0, best_dist = 0x7fffffff;
            for (int c = 0; c < k; ++c) {
                int dist = 0;
                for (int f = 0; f < dims; ++f) {
                    const int diff =
                        pr.features[static_cast<size_t>(f) * n + p] - want.cent[c * dims + f];
                    dist += diff * diff;
                }
                if (dist < best_dist) {
                    best_dist = dist;
                    best = c;
                }
            }
            changes += want.member[p] != best;
            want.member[p] = best;
            ++counts[best];
            for (int f = 0; f < dims; ++f) {
                sums[best * dims + f] += pr.features[static_cast<size_t>(f) * n + p];
            }
        }
        update_centroids(want.cent, sums, counts, k, dims);
    }
    return want;
}

// The iterations on the GPU. Returns 0 or, after printing FAIL, 1.
static int cluster_on_gpu(const problem& pr, clustering& got)
{
    const int n = pr.n, dims = pr.dims, k = pr.k;
    uint8_t* d_features;
    int *d_member, *d_changes, *d_sums, *d_counts;
    CHECK(cudaMalloc(&d_features, pr.features.size()));
    CHECK(cudaMalloc(&d_member, n * sizeof(int)));
    CHECK(cudaMalloc(&d_changes, sizeof(int)));
    CHECK(cudaMalloc(&d_sums, k * dims * sizeof(int)));
    CHECK(cudaMalloc(&d_counts, k * sizeof(int)));
    CHECK(cudaMemcpy(d_features, pr.features.data(), pr.features.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_member, 0xff, n * sizeof(int))); // -1: no cluster yet

    got = {pr.initial, std::vector<int>(n), 0};
    std::vector<int> sums(k * dims), counts(k);
    const int blocks = (n + block_threads - 1) / block_threads;
    for (int changes = 1; changes != 0 && got.iterations < max_iterations; ++got.iterations) {
        CHECK(cudaMemcpyToSymbol(centroids, got.cent.data(), got.cent.size() * sizeof(int)));
        CHECK(cudaMemset(d_changes, 0, sizeof(int)));
        CHECK(cudaMemset(d_sums, 0, k * dims * sizeof(int)));
        CHECK(cudaMemset(d_counts, 0, k * sizeof(int)));
        if (dims == 8) {
            assign_points<8><<<blocks, block_threads>>>(d_features, n, k, d_member, d_changes);
        } else {
            assign_points<16><<<blocks, block_threads>>>(d_features, n, k, d_member, d_changes);
        }
        CHECK(cudaGetLastError());
        accumulate_clusters<<<blocks, block_threads>>>(d_features, d_member, n, dims, k, d_sums,
                                                       d_counts);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&changes, d_changes, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(sums.data(), d_sums, sums.size() * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(counts.data(), d_counts, counts.size() * sizeof(int),
                         cudaMemcpyDeviceToHost));
        update_centroids(got.cent, sums, counts, k, dims);
    }
    CHECK(cudaMemcpy(got.member.data(), d_member, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_features));
    CHECK(cudaFree(d_member));
    CHECK(cudaFree(d_changes));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_counts));
    return 0;
}

// Iteration count, memberships and centroids, exactly; false after printing FAIL.
static bool clustering_matches(const problem& pr, const clustering& got, const clustering& want)
{
    if (got.iterations != want.iterations) {
        std::printf("FAIL: %d iterations, expected %d\n", got.iterations, want.iterations);
        return false;
    }
    for (int p = 0; p < pr.n; ++p) {
        if (got.member[p] != want.member[p]) {
            std::printf("FAIL: point %d in cluster %d, expected %d\n", p, got.member[p],
                        want.member[p]);
            return false;
        }
    }
    for (int i = 0; i < pr.k * pr.dims; ++i) {
        if (got.cent[i] != want.cent[i]) {
            std::printf("FAIL: centroid %d feature %d = %d, expected %d\n", i / pr.dims,
                        i % pr.dims, got.cent[i], want.cent[i]);
            return false;
        }
    }
    return true;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    const problem pr = paper ? make_problem(65536, 16, 12, seed) : make_problem(1536, 8, 4, seed);
    const clustering want = cluster_on_cpu(pr);
    clustering got;
    if (cluster_on_gpu(pr, got) != 0) {
        return 1;
    }
    if (!clustering_matches(pr, got, want)) {
        return 1;
    }
    std::printf("kmeans: OK (%d points x %d features, k = %d, %d iterations)\n", pr.n, pr.dims,
                pr.k, got.iterations);
    return 0;
}
