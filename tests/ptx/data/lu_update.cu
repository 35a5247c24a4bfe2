// One trailing update of a blocked LU factorisation: every 16 x 16 tile below and right of
// the diagonal tile at (k0, k0) loses the product of its row's L tile and its column's U
// tile, A[i][j] -= sum_k A[i][k0 + k] * A[k0 + k][j]. Each block stages the two tiles in
// shared memory; with n = 256 and k0 = 0 the grid is 15 x 15 blocks of 16 x 16 threads.
extern "C" __global__ void lu_update(float* a, int n, int k0)
{
    __shared__ float l[16][16];
    __shared__ float u[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = k0 + 16 + blockIdx.y * 16 + ty;
    const int col = k0 + 16 + blockIdx.x * 16 + tx;
    l[ty][tx] = a[row * n + k0 + tx];
    u[ty][tx] = a[(k0 + ty) * n + col];
    __syncthreads();
    float s = 0.0f;
    for (int k = 0; k < 16; ++k)
        s += l[ty][k] * u[k][tx];
    a[row * n + col] -= s;
}
