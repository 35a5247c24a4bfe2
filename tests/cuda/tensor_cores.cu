// nvcc-flags: -arch=sm_80
// Tensor-core instructions through the CUDA API: nvcuda::wmma tiles (16 x 16 x 16, f16 inputs,
// f32 and f16 accumulators, row- and column-major operands, a leading dimension wider than the
// tile) and an mma.sync.m16n8k16 with bf16 inputs written as inline PTX, its fragments placed
// by the PTX ISA's per-lane tables. Inputs are quarters from -2 to 2, so every product and
// sum is exact and the results must equal the CPU's exactly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <vector>

#include "check.cuh"

using namespace nvcuda;

constexpr int tiles = 6;
constexpr int wide = 32; // leading dimension of the wide variant

// D = A x B + C per warp (A row-major, B column-major, C and D row-major f32, 16 x 16 each):
// the kernel whose PTX the PTX front end's tests read, compiled here through the CUDA API.
#include "../ptx/data/wmma_gemm.cu"

// The same with A column-major, B row-major, f16 accumulators starting at zero and D stored
// column-major with a leading dimension of `wide` (16 x wide halves per tile).
__global__ void wmma_f16(const half* a, const half* b, half* d)
{
    const int tile = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
    wmma::fill_fragment(acc, __float2half(0.0f));
    wmma::load_matrix_sync(fa, a + tile * 256, 16);
    wmma::load_matrix_sync(fb, b + tile * 256, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + tile * 16 * wide, acc, wide, wmma::mem_col_major);
}

// One mma.sync.m16n8k16 bf16 tile per warp: A (16 x 16) and B (16 x 8) row-major, C and D
// (16 x 8) row-major f32; each lane gathers its fragments by the ISA's tables.
__global__ void mma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, float* d)
{
    const int lane = threadIdx.x % 32;
    const int group = lane >> 2, tig = lane % 4;
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    for (int i = 0; i < 8; ++i) { // a0..a7
        const int row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
        const int col = (i < 4 ? 0 : 8) + tig * 2 + (i & 1);
        const unsigned short bits = __bfloat16_as_ushort(a[row * 16 + col]);
        ra[i / 2] = (i % 2 ? ra[i / 2] : 0u) | (unsigned(bits) << (16 * (i % 2)));
    }
    for (int i = 0; i < 4; ++i) { // b0..b3
        const int row = (i < 2 ? 0 : 8) + tig * 2 + (i & 1);
        const unsigned short bits = __bfloat16_as_ushort(b[row * 8 + group]);
        rb[i / 2] = (i % 2 ? rb[i / 2] : 0u) | (unsigned(bits) << (16 * (i % 2)));
    }
    for (int i = 0; i < 4; ++i)
        rc[i] = c[(i < 2 ? group : group + 8) * 8 + tig * 2 + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int i = 0; i < 4; ++i)
        d[(i < 2 ? group : group + 8) * 8 + tig * 2 + (i & 1)] = rd[i];
}

// Quarters from -2 to 2 (exact in f16 and bf16), from a fixed linear congruential sequence.
static float next_value(unsigned& seed)
{
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int>((seed >> 16) % 17) - 8) / 4.0f;
}

template <class T>
static T* upload(const std::vector<T>& host)
{
    T* p = nullptr;
    if (cudaMalloc(&p, host.size() * sizeof(T)) != cudaSuccess) return nullptr;
    if (cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
        return nullptr;
    return p;
}

int main()
{
    unsigned seed = 7;
    const int n = tiles * 256;
    std::vector<float> fa(n), fb(n), fc(n);
    for (int i = 0; i < n; ++i) {
        fa[i] = next_value(seed);
        fb[i] = next_value(seed);
        fc[i] = next_value(seed);
    }
    std::vector<half> ha(n), hb(n);
    for (int i = 0; i < n; ++i) {
        ha[i] = __float2half(fa[i]);
        hb[i] = __float2half(fb[i]);
    }
    half* da = upload(ha);
    half* db = upload(hb);
    float* dc = upload(fc);
    float* dd = upload(std::vector<float>(n, 0.0f));
    half* dh = upload(std::vector<half>(tiles * 16 * wide, __float2half(0.0f)));
    EXPECT(da && db && dc && dd && dh, "device buffers");
    // Two blocks of three warps: one warp per tile.
    wmma_gemm<<<2, 96>>>(da, db, dc, dd, tiles);
    CHECK(cudaGetLastError());
    wmma_f16<<<2, 96>>>(da, db, dh);
    CHECK(cudaGetLastError());
    std::vector<float> out(n);
    std::vector<half> out16(tiles * 16 * wide);
    CHECK(cudaMemcpy(out.data(), dd, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out16.data(), dh, out16.size() * sizeof(half), cudaMemcpyDeviceToHost));
    for (int t = 0; t < tiles; ++t) {
        const int o = t * 256;
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) {
                // wmma_gemm: A[i][k] row-major, B[k][j] column-major (at j * 16 + k).
                float want = fc[o + i * 16 + j];
                // wmma_f16: A[i][k] column-major (at k * 16 + i), B[k][j] row-major.
                float want16 = 0.0f;
                for (int k = 0; k < 16; ++k) {
                    want += fa[o + i * 16 + k] * fb[o + j * 16 + k];
                    want16 += fa[o + k * 16 + i] * fb[o + k * 16 + j];
                }
                const float got = out[o + i * 16 + j];
                const float got16 = __half2float(out16[t * 16 * wide + j * wide + i]);
                EXPECT(got == want, "wmma_gemm tile %d D[%d][%d] = %g, expected %g", t, i, j, got,
                       want);
                EXPECT(got16 == want16, "wmma_f16 tile %d D[%d][%d] = %g, expected %g", t, i, j,
                       got16, want16);
            }
    }
    // mma.sync bf16: A 16 x 16, B 16 x 8, C 16 x 8 from the first values.
    std::vector<__nv_bfloat16> ba(256), bb(128);
    for (int i = 0; i < 256; ++i)
        ba[i] = __float2bfloat16(fa[i]);
    for (int i = 0; i < 128; ++i)
        bb[i] = __float2bfloat16(fb[i]);
    std::vector<float> c8(fc.begin(), fc.begin() + 128);
    __nv_bfloat16* dba = upload(ba);
    __nv_bfloat16* dbb = upload(bb);
    float* dc8 = upload(c8);
    float* dd8 = upload(std::vector<float>(128, 0.0f));
    EXPECT(dba && dbb && dc8 && dd8, "device buffers");
    mma_bf16<<<1, 32>>>(dba, dbb, dc8, dd8);
    CHECK(cudaGetLastError());
    std::vector<float> d8(128);
    CHECK(cudaMemcpy(d8.data(), dd8, 128 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 8; ++j) {
            float want = c8[i * 8 + j];
            for (int k = 0; k < 16; ++k)
                want += fa[i * 16 + k] * fb[k * 8 + j];
            EXPECT(d8[i * 8 + j] == want, "mma_bf16 D[%d][%d] = %g, expected %g", i, j,
                   d8[i * 8 + j], want);
        }
    std::printf("tensor_cores: %d wmma tiles (f32 and f16 accumulators) and one mma.sync bf16 "
                "tile exact\n",
                tiles);
    return 0;
}
