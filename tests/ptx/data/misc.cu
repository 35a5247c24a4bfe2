// Module-scope constant and global data with initialisers, dynamic shared memory, vector
// loads and stores, warp intrinsics, fast-math conversions and memory fences.
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int table[5] = {1, 2, 3, 4, 5};
__device__ unsigned long long big = 0x1234567890abcdefull;
extern __shared__ float4 dyn[];

extern "C" __global__ void misc(float4* out, const float4* in, int* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = i < n ? __ldg(&in[i]) : make_float4(0, 0, 0, 0);
    dyn[threadIdx.x] = v;
    __syncthreads();
    float4 w = dyn[(threadIdx.x + 1) % blockDim.x];
    float s = w.x * coeffs[0] + w.y * coeffs[1] + w.z * coeffs[2] + w.w * coeffs[3];
    unsigned mask = __activemask();
    s += __shfl_xor_sync(mask, s, 1);
    s += __shfl_up_sync(0xffffffffu, s, 2);
    s += __shfl_sync(0xffffffffu, s, 0);
    int all = __all_sync(0xffffffffu, s > 0.0f);
    int anyv = __any_sync(0xffffffffu, s < 0.0f);
    int r = __float2int_rz(s) + __float2int_rn(s * 2.0f) + static_cast<int>(__float2uint_rd(fabsf(s)));
    r += table[i % 5] + static_cast<int>(big >> (i & 63));
    __syncwarp();
    if (i < n) {
        out[i] = make_float4(s, static_cast<float>(r), __fdividef(s, 3.0f), __saturatef(s));
        volatile int* vf = flags;
        vf[i] = all + anyv;
        __threadfence_block();
        atomicExch(&flags[n], 1);
        __threadfence_system();
    }
    if (s != s) __trap();
}
