// A 16 x 16 x 16 tensor-core GEMM through nvcuda::wmma: one warp per tile of C, A row-major,
// B column-major, C and D row-major with f32 accumulators; D = A x B + C.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half* a, const half* b, const float* c, float* d,
                                     int n_tiles) {
    const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (tile >= n_tiles) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a + tile * 256, 16);
    wmma::load_matrix_sync(fb, b + tile * 256, 16);
    wmma::load_matrix_sync(acc, c + tile * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + tile * 256, acc, 16, wmma::mem_row_major);
}
