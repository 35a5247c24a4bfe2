// The sparse matrix of spmv_thread and spmv_warp, the check of their product and the program
// around their kernels: both programs run the same generator, so a seed and a row count give
// the same matrix.
#pragma once

#include "suite.cuh"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

// Uniform in [-1, 1) with 24 random bits, so every value is an exact float.
inline float uniform_pm1(uint64_t& state)
{
    return static_cast<float>(static_cast<int>(splitmix64(state) >> 40) - (1 << 23)) / (1 << 23);
}

inline void make_matrix(int n, uint64_t seed, std::vector<int>& row_start, std::vector<int>& col,
                        std::vector<float>& val, std::vector<float>& x)
{
    uint64_t state = seed;
    row_start.assign(1, 0);
    col.clear();
    val.clear();
    std::vector<int> cols;
    for (int r = 0; r < n; ++r) {
        const unsigned kind = splitmix64(state) % 100;
        const int lo = kind < 80 ? 2 : kind < 97 ? 17 : 65;
        const int hi = kind < 80 ? 16 : kind < 97 ? 64 : 192;
        const int len = lo + static_cast<int>(splitmix64(state) % (hi - lo + 1));
        cols.clear();
        for (int k = 0; k < len; ++k) {
            const uint64_t pick = splitmix64(state);
            const int c = k % 2 == 0 ? r - 64 + static_cast<int>(pick % 129) : static_cast<int>(pick % n);
            cols.push_back((c % n + n) % n); // near-diagonal picks wrap around the edges
        }
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (int c : cols) {
            col.push_back(c);
            val.push_back(uniform_pm1(state));
        }
        row_start.push_back(static_cast<int>(col.size()));
    }
    x.resize(n);
    for (float& v : x) {
        v = uniform_pm1(state);
    }
}

// Copies the matrix and x to the device, runs `launch(row_start, col, val, x, y, rows)` (a
// kernel launch over device pointers), and copies y back. Returns 0, or 1 after a failed call
// (CHECK prints it). y starts as a NaN pattern, so a row the kernel skipped cannot pass.
template <class Launch>
int run_product(const std::vector<int>& row_start, const std::vector<int>& col,
                const std::vector<float>& val, const std::vector<float>& x, Launch launch,
                std::vector<float>& y)
{
    const int n = static_cast<int>(x.size());
    const std::size_t nnz = col.size();
    int *d_row_start, *d_col;
    float *d_val, *d_x, *d_y;
    CHECK(cudaMalloc(&d_row_start, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&d_col, nnz * sizeof(int)));
    CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_row_start, row_start.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_y, 0xff, n * sizeof(float)));
    launch(d_row_start, d_col, d_val, d_x, d_y, n);
    CHECK(cudaGetLastError());
    y.resize(n);
    CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_row_start));
    CHECK(cudaFree(d_col));
    CHECK(cudaFree(d_val));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    return 0;
}

// Every y[r] against a CPU product in double, within (len + 1) * 2^-23 * sum |a_rj x_j| (see
// the programs' headers); prints the first mismatch. `longest` gets the longest row.
inline bool check_product(const std::vector<int>& row_start, const std::vector<int>& col,
                          const std::vector<float>& val, const std::vector<float>& x,
                          const std::vector<float>& y, int& longest)
{
    const int n = static_cast<int>(x.size());
    longest = 0;
    for (int r = 0; r < n; ++r) {
        double want = 0.0, magnitude = 0.0;
        const int len = row_start[r + 1] - row_start[r];
        for (int j = row_start[r]; j < row_start[r + 1]; ++j) {
            const double term = static_cast<double>(val[j]) * x[col[j]]; // exact in double
            want += term;
            magnitude += std::fabs(term);
        }
        const double tolerance = (len + 1) * std::ldexp(magnitude, -23);
        if (!(std::fabs(y[r] - want) <= tolerance)) {
            std::printf("FAIL: y[%d] = %.9g, expected %.9g (tolerance %.3g, %d nonzeros)\n", r, y[r], want,
                        tolerance, len);
            return false;
        }
        longest = std::max(longest, len);
    }
    return true;
}

// The whole program around one kernel: reads the command line (paper_size), makes the matrix
// of `small_rows` or `paper_rows` rows, runs `launch` as run_product does, checks y and prints
// `<name>: OK (...)`. Returns the program's exit status.
template <class Launch>
int spmv_program(int argc, char** argv, const char* name, int small_rows, int paper_rows,
                 Launch launch)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    int n = paper ? paper_rows : small_rows;
    std::vector<int> row_start, col;
    std::vector<float> val, x;
    make_matrix(n, seed, row_start, col, val, x);
    const int nnz = static_cast<int>(col.size());

    std::vector<float> y;
    if (run_product(row_start, col, val, x, launch, y) != 0) {
        return 1;
    }

    int longest = 0;
    if (!check_product(row_start, col, val, x, y, longest)) {
        return 1;
    }
    std::printf("%s: OK (%d rows, %d nonzeros, longest row %d)\n", name, n, nnz, longest);
    return 0;
}
