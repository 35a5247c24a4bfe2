// Global alignment of two protein-like sequences: the full Needleman-Wunsch score matrix
// S[i][j] = max(S[i-1][j-1] + sub(a[i], b[j]), S[i-1][j] - gap, S[i][j-1] - gap), with
// S[i][0] = -gap * i and S[0][j] = -gap * j, over a 20-letter alphabet.
// Kernel: align_tiles. The matrix is cut into 32 x 32 tiles; tiles on one anti-diagonal of
// the tile grid are independent, so the host launches once per tile diagonal (2 * n / 32 - 1
// launches, growing then shrinking). A block is one warp: it pulls its tile's top and left
// borders into shared memory, fills the tile's 32 x 32 substitution scores (independent
// lookups, off the critical path), sweeps the tile's own 63 inner anti-diagonals with
// thread t owning row t, then writes the tile back row by row (coalesced).
// Sizes: small = two sequences of 128 (16 tiles, 7 launches),
//        paper = two sequences of 1536 (2304 tiles, 95 launches).
// The second sequence is a mutated copy of the first, so the alignment has real structure.
// Check: every cell of the matrix against a CPU fill, exactly (integers).
// run-args: small
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite.cuh"

constexpr int tile = 32;
constexpr int alphabet = 20;
constexpr int gap = 6;
// Thread t touches s[t + 1][k - t + c]: with an even pitch the word stride between threads
// is pitch - 1, odd, so the 32 threads fall into 32 different banks.
constexpr int pitch = tile + 2;

__constant__ int substitution[alphabet * alphabet];

__global__ void align_tiles(int* score, const uint8_t* seq_a, const uint8_t* seq_b, int n,
                            int diagonal, int first_tile_row)
{
    __shared__ int s[tile + 1][pitch];
    __shared__ int sub[alphabet * alphabet];
    __shared__ int8_t pair_score[tile][tile + 1]; // +1: column reads by row-owning threads
    const int t = threadIdx.x;
    const int tile_row = first_tile_row + blockIdx.x;
    const int tile_col = diagonal - tile_row;
    const int row0 = tile_row * tile; // matrix row and column of the tile's corner cell
    const int col0 = tile_col * tile;
    const int width = n + 1;

    // Lanes would index the constant bank with different addresses (serialised), so the
    // table goes to shared memory once per block.
    for (int k = t; k < alphabet * alphabet; k += tile) {
        sub[k] = substitution[k];
    }
    s[0][t + 1] = score[row0 * width + col0 + 1 + t];
    s[t + 1][0] = score[(row0 + 1 + t) * width + col0];
    if (t == 0) {
        s[0][0] = score[row0 * width + col0];
    }
    __syncthreads();
    // The tile's 32 x 32 pair scores are independent of each other: filling them up front
    // keeps the table lookups off the wavefront's critical path. Thread t fills column t.
    const int b_col = seq_b[col0 + t];
    for (int r = 0; r < tile; ++r) {
        pair_score[r][t] = static_cast<int8_t>(sub[seq_a[row0 + r] * alphabet + b_col]);
    }
    __syncthreads();

    for (int k = 0; k < 2 * tile - 1; ++k) {
        const int j = k - t;
        if (j >= 0 && j < tile) {
            const int diag = s[t][j] + pair_score[t][j];
            const int up = s[t][j + 1] - gap;
            const int left = s[t + 1][j] - gap;
            s[t + 1][j + 1] = max(diag, max(up, left));
        }
        __syncthreads();
    }
    for (int r = 0; r < tile; ++r) {
        score[(row0 + 1 + r) * width + col0 + 1 + t] = s[r + 1][t + 1];
    }
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n;
    if (!paper) {
        n = 128;
    } else {
        n = 1536;
    }
    uint64_t state = seed;

    // A symmetric substitution table: matches score 4..9, mismatches -4..1.
    std::vector<int> table(alphabet * alphabet);
    for (int x = 0; x < alphabet; ++x) {
        for (int y = x; y < alphabet; ++y) {
            const int r = static_cast<int>(splitmix64(state) % 6);
            table[x * alphabet + y] = table[y * alphabet + x] = x == y ? 4 + r : r - 4;
        }
    }
    // b copies a with about 8% substitutions, 3% deletions and 3% insertions.
    std::vector<uint8_t> a(n), b;
    for (uint8_t& c : a) {
        c = static_cast<uint8_t>(splitmix64(state) % alphabet);
    }
    for (int i = 0; static_cast<int>(b.size()) < n; ++i) {
        const int r = static_cast<int>(splitmix64(state) % 100);
        const uint8_t random = static_cast<uint8_t>(splitmix64(state) % alphabet);
        if (i >= n || r < 8) {
            b.push_back(random);
        } else if (r < 11) {
            continue;
        } else if (r < 14) {
            b.push_back(random);
            --i; // a[i] is still to come
        } else {
            b.push_back(a[i]);
        }
    }
    b.resize(n);

    const int width = n + 1;
    std::vector<int> want(static_cast<size_t>(width) * width);
    for (int i = 0; i < width; ++i) {
        want[static_cast<size_t>(i) * width] = -gap * i;
        want[i] = -gap * i;
    }
    for (int i = 1; i < width; ++i) {
        for (int j = 1; j < width; ++j) {
            const size_t c = static_cast<size_t>(i) * width + j;
            const int diag = want[c - width - 1] + table[a[i - 1] * alphabet + b[j - 1]];
            const int up = want[c - width] - gap;
            const int left = want[c - 1] - gap;
            want[c] = std::max(diag, std::max(up, left));
        }
    }

    int* d_score;
    uint8_t *d_a, *d_b;
    const size_t matrix_bytes = want.size() * sizeof(int);
    CHECK(cudaMalloc(&d_score, matrix_bytes));
    CHECK(cudaMalloc(&d_a, n));
    CHECK(cudaMalloc(&d_b, n));
    CHECK(cudaMemcpy(d_a, a.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(substitution, table.data(), table.size() * sizeof(int)));
    // Only the borders need initialising: row 0 is contiguous, column 0 is a strided copy.
    CHECK(cudaMemset(d_score, 0, matrix_bytes));
    CHECK(cudaMemcpy(d_score, want.data(), width * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(d_score, width * sizeof(int), want.data(), width * sizeof(int), sizeof(int),
                       width, cudaMemcpyHostToDevice));

    const int tiles = n / tile;
    for (int d = 0; d < 2 * tiles - 1; ++d) {
        const int first = d < tiles ? 0 : d - tiles + 1; // first tile row on this diagonal
        const int last = d < tiles ? d : tiles - 1;
        align_tiles<<<last - first + 1, tile>>>(d_score, d_a, d_b, n, d, first);
        CHECK(cudaGetLastError());
    }

    std::vector<int> got(want.size());
    CHECK(cudaMemcpy(got.data(), d_score, matrix_bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_score));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    for (size_t c = 0; c < want.size(); ++c) {
        if (got[c] != want[c]) {
            std::printf("FAIL: score[%zu][%zu] = %d, expected %d\n", c / width, c % width, got[c],
                        want[c]);
            return 1;
        }
    }
    std::printf("needleman_wunsch: OK (%d x %d, %d tile launches, score %d)\n", n, n,
                2 * tiles - 1, want.back());
    return 0;
}
