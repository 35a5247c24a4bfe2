// spmv_warp: sparse matrix-vector product y = A x with A square in CSR form (float values),
// one warp per row. One kernel, spmv_row_per_warp, launched once with 8 warps per block:
// the 32 lanes of a warp stride through its row's nonzeros (consecutive lanes read
// consecutive entries, so the matrix reads coalesce), each keeps a partial sum, and a
// shuffle-down tree adds the 32 partial sums into lane 0, which writes y[row].
// Rows have varied lengths: most 2..16 nonzeros (then most lanes idle), some 17..64, a few
// 65..192; half the columns of a row lie within 64 of the diagonal, the rest anywhere.
// Sizes: small 1,024 rows, paper 131,072 rows (32 threads a row, so these are 32,768 and
// 4 M threads). The matrix generator (csr_matrix.cuh) is spmv_thread's: the same seed and
// number of rows give the same matrix.
// Check: every y[i] against a CPU product in double, within (len + 1) * 2^-23 * sum |a_ij x_j|:
// a float sum of len terms is off by at most len * 2^-24 times the sum of the magnitudes
// whatever the order of the additions (strided partial sums, then a tree here), and this
// allows twice that.
// run-args: small
#include "csr_matrix.cuh"

constexpr int warps_per_block = 8;

__global__ void spmv_row_per_warp(const int* row_start, const int* col, const float* val,
                                  const float* x, float* y, int rows)
{
    const int lane = threadIdx.x % 32;
    const int r = blockIdx.x * warps_per_block + threadIdx.x / 32;
    // The whole warp leaves together, so every lane is present for the shuffles below.
    if (r >= rows) {
        return;
    }
    float sum = 0.0f;
    for (int j = row_start[r] + lane; j < row_start[r + 1]; j += 32) {
        sum += val[j] * x[col[j]];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) {
        y[r] = sum;
    }
}

int main(int argc, char** argv)
{
    const auto launch = [](const int* rs, const int* c, const float* v, const float* xv, float* yv,
                           int rows) {
        const int grid = (rows + warps_per_block - 1) / warps_per_block;
        spmv_row_per_warp<<<grid, warps_per_block * 32>>>(rs, c, v, xv, yv, rows);
    };
    return spmv_program(argc, argv, "spmv_warp", 1024, 131072, launch);
}
