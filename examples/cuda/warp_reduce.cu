// Warp-level reduction of ints with shuffles: lane 0 of each warp adds its warp's sum to
// *total. Alongside, each warp counts its positive elements with a ballot and adds the
// count to *positives; warps whose inputs are all zero skip both atomics (__any_sync).
// blockDim.x must be a multiple of 32: every shuffle and vote names all 32 lanes.
extern "C" __global__ void warp_reduce(const int* in, int n, int* total, int* positives)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = i < n ? in[i] : 0;
    if (!__any_sync(0xffffffff, v != 0)) {
        return;
    }
    unsigned pos = __ballot_sync(0xffffffff, v > 0);
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (lane == 0) {
        atomicAdd(total, v);
        atomicAdd(positives, __popc(pos));
    }
}
