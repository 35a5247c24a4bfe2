// spmv_thread: sparse matrix-vector product y = A x with A square in CSR form (float values),
// one thread per row. One kernel, spmv_row_per_thread, launched once: each thread walks its
// row's nonzeros in order and writes its dot product, so a warp runs as long as its longest
// row and neighbouring lanes read the matrix arrays far apart (uncoalesced).
// Rows have varied lengths: most 2..16 nonzeros, some 17..64, a few 65..192; half the
// columns of a row lie within 64 of the diagonal, the rest anywhere.
// Sizes: small 2,048 rows, paper 32,768 rows. The matrix generator (csr_matrix.cuh) is
// spmv_warp's: the same seed and number of rows give the same matrix.
// Check: every y[i] against a CPU product in double, within (len + 1) * 2^-23 * sum |a_ij x_j|:
// a float sum of len terms is off by at most len * 2^-24 times the sum of the magnitudes
// (whatever the order and with or without fused multiply-adds), and this allows twice that.
// run-args: small
#include "csr_matrix.cuh"

__global__ void spmv_row_per_thread(const int* row_start, const int* col, const float* val,
                                    const float* x, float* y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    float sum = 0.0f;
    for (int j = row_start[r]; j < row_start[r + 1]; ++j) {
        sum += val[j] * x[col[j]];
    }
    y[r] = sum;
}

int main(int argc, char** argv)
{
    const auto launch = [](const int* rs, const int* c, const float* v, const float* xv, float* yv,
                           int rows) {
        const int block = 128;
        spmv_row_per_thread<<<(rows + block - 1) / block, block>>>(rs, c, v, xv, yv, rows);
    };
    return spmv_program(argc, argv, "spmv_thread", 2048, 32768, launch);
}
