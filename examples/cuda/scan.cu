// Inclusive prefix sum of ints within each block of 256 elements (Hillis-Steele, double
// buffered in shared memory). Launch with blockDim.x == 256; elements past n read as 0
// and are not written.
#define BLOCK 256

extern "C" __global__ void scan(const int* in, int* out, int n)
{
    __shared__ int buf[2][BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    int src = 0;
    buf[src][tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset <<= 1) {
        int v = buf[src][tid];
        if (tid >= offset) {
            v += buf[src][tid - offset];
        }
        buf[1 - src][tid] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (i < n) {
        out[i] = buf[src][tid];
    }
}
