// Every kind of atomic on global and shared memory, and reductions whose result is unused.
__shared__ unsigned shared_counts[64];
__device__ int global_counter;

extern "C" __global__ void atomics(int* gi, unsigned* gu, float* gf, double* gd, unsigned long long* gl, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 64) shared_counts[threadIdx.x] = 0;
    __syncthreads();
    if (i >= n) return;
    atomicAdd(&shared_counts[i & 63], 1u);
    int old = atomicAdd(&gi[0], i);
    atomicSub(&gi[1], 2);
    atomicMin(&gi[2], i - n / 2);
    atomicMax(&gi[3], i);
    atomicInc(&gu[0], 100u);
    atomicDec(&gu[1], 100u);
    unsigned prev = atomicExch(&gu[2], static_cast<unsigned>(i));
    atomicCAS(&gi[4], i, old);
    atomicAnd(&gu[3], ~(1u << (i & 31)));
    atomicOr(&gu[4], 1u << (i & 31));
    atomicXor(&gu[5], prev);
    atomicAdd(&gf[0], 0.5f);
    float f = atomicAdd(&gf[1], 1.0f);
    atomicAdd(&gd[0], 0.25);
    atomicAdd(&gl[0], 1ull);
    atomicMin(&gl[1], static_cast<unsigned long long>(i));
    atomicCAS(&gl[2], 0ull, static_cast<unsigned long long>(f));
    atomicAdd(&global_counter, 1);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(&gu[6 + (threadIdx.x & 1)], shared_counts[threadIdx.x]);
    __threadfence();
}
