// Texture fetches through texture objects (tests/ptx/texture_test.cpp): integer-coordinate
// fetches of floats and ints, float-coordinate 1D and 2D fetches of one and four channels.
__global__ void fetch_float(cudaTextureObject_t t, float* out, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i + shift);
}

__global__ void fetch_int(cudaTextureObject_t t, int* out, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i + shift);
}

__global__ void sample1d(cudaTextureObject_t t, float* out, int n, float scale, float offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, i * scale + offset);
}

__global__ void sample2d(cudaTextureObject_t t, float* out, int w, int h, float scale,
                         float offset) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x * scale + offset, y * scale + offset);
}

__global__ void sample2d4(cudaTextureObject_t t, float4* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
}
