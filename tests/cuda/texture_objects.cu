// Texture objects over linear and pitched 2D memory, each fetch checked against a CPU model
// of the CUDA programming guide's texture-fetching rules: tex1Dfetch of floats and ints
// (clamp and border addressing of integer coordinates), tex2D with point and linear
// filtering (weights in 9-bit fixed point, 8 fraction bits), unnormalised clamp / border and
// normalised wrap / mirror addressing, the normalized-float read mode on uchar4 and short
// texels; the descriptor queries; and the calls a bad descriptor must fail with.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../examples/cuda/texture.cuh"
#include "check.cuh"

#define EXPECT_ERROR(call, code)                                                             \
    do {                                                                                     \
        cudaError_t err_ = (call);                                                           \
        if (err_ != (code)) {                                                                \
            std::printf("FAIL: %s gave %s, expected %s (line %d)\n", #call,                  \
                        cudaGetErrorName(err_), cudaGetErrorName(code), __LINE__);           \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

__global__ void fetch_float(cudaTextureObject_t t, float* out, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i + shift) * 2.0f;
}

__global__ void fetch_int(cudaTextureObject_t t, int* out, int n, int shift) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i + shift);
}

// Pixel (x, y) samples the texture at (x * sx + ox, y * sy + oy); nvcc contracts each to an
// fma, which the CPU model does too (the coordinates must agree to the last bit).
__global__ void sample2d(cudaTextureObject_t t, float* out, int w, int h, float sx, float ox,
                         float sy, float oy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x * sx + ox, y * sy + oy);
}

__global__ void sample2d4(cudaTextureObject_t t, float4* out, int w, int h, float sx, float ox,
                          float sy, float oy) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, x * sx + ox, y * sy + oy);
}

// --- the CPU model -------------------------------------------------------------------------

enum { WRAP = 0, CLAMP = 1, MIRROR = 2, BORDER = 3 };

// Texel index i on an axis of n texels; -1: the border colour.
static long place(long i, long n, int mode, bool normalized) {
    if (!normalized && (mode == WRAP || mode == MIRROR)) mode = CLAMP;
    if (mode == BORDER) return (i < 0 || i >= n) ? -1 : i;
    if (mode == WRAP) return ((i % n) + n) % n;
    if (mode == MIRROR) {
        long p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// One channel of a texture of w x h texels read by texel(ix, iy) (the border colour is 0).
template <class Texel>
static float model(Texel texel, long w, long h, float x, float y, bool linear, bool normalized,
                   int mode_x, int mode_y) {
    if (normalized) {
        x *= (float)w;
        y *= (float)h;
    }
    auto at = [&](long i, long j) -> float {
        long px = place(i, w, mode_x, normalized), py = place(j, h, mode_y, normalized);
        return (px < 0 || py < 0) ? 0.0f : texel(px, py);
    };
    if (!linear) return at((long)std::floor(x), (long)std::floor(y));
    float xb = x - 0.5f, yb = y - 0.5f;
    long i = (long)std::floor(xb), j = (long)std::floor(yb);
    float a = std::nearbyint((xb - std::floor(xb)) * 256.0f) / 256.0f;
    float b = std::nearbyint((yb - std::floor(yb)) * 256.0f) / 256.0f;
    return (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) +
           a * b * at(i + 1, j + 1);
}

static bool close(float got, float want, float tol) {
    return std::fabs(got - want) <= tol * (1.0f + std::fabs(want));
}

// --- the cases -----------------------------------------------------------------------------

static int linear_textures() {
    const int n = 1000;
    std::vector<float> f(n);
    std::vector<int> k(n);
    for (int i = 0; i < n; ++i) {
        f[i] = 0.25f * (float)i - 17.0f;
        k[i] = i * i - 500 * i;
    }
    float* df;
    int* dk;
    float* dout;
    int* dkout;
    CHECK(cudaMalloc(&df, n * sizeof(float)));
    CHECK(cudaMalloc(&dk, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dkout, n * sizeof(int)));
    CHECK(cudaMemcpy(df, f.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, k.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = df;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc td;
    std::memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeClamp;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tf;
    CHECK(cudaCreateTextureObject(&tf, &res, &td, nullptr));

    res.res.linear.devPtr = dk;
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    cudaTextureObject_t tk_clamp, tk_border;
    CHECK(cudaCreateTextureObject(&tk_clamp, &res, &td, nullptr));
    td.addressMode[0] = cudaAddressModeBorder;
    CHECK(cudaCreateTextureObject(&tk_border, &res, &td, nullptr));

    // The descriptors come back as they were given.
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, tk_border));
    if (back.resType != cudaResourceTypeLinear || back.res.linear.devPtr != dk ||
        back.res.linear.sizeInBytes != n * sizeof(int)) {
        std::printf("FAIL: cudaGetTextureObjectResourceDesc\n");
        return 1;
    }
    cudaTextureDesc tback;
    CHECK(cudaGetTextureObjectTextureDesc(&tback, tk_border));
    if (tback.addressMode[0] != cudaAddressModeBorder) {
        std::printf("FAIL: cudaGetTextureObjectTextureDesc\n");
        return 1;
    }

    fetch_float<<<(n + 127) / 128, 128>>>(tf, dout, n, 0);
    CHECK(cudaGetLastError());
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(out[i] == 2.0f * f[i], "tex1Dfetch<float>(%d) * 2 = %g, expected %g", i, out[i],
               2 * f[i]);
    std::vector<int> kout(n);
    const int shifts[2] = {-7, 9};
    const cudaTextureObject_t objs[2] = {tk_clamp, tk_border};
    for (int o = 0; o < 2; ++o)
        for (int s : shifts) {
            fetch_int<<<(n + 127) / 128, 128>>>(objs[o], dkout, n, s);
            CHECK(cudaGetLastError());
            CHECK(cudaMemcpy(kout.data(), dkout, n * sizeof(int), cudaMemcpyDeviceToHost));
            for (int i = 0; i < n; ++i) {
                const long j = place(i + s, n, o == 0 ? CLAMP : BORDER, false);
                const int want = j < 0 ? 0 : k[j];
                EXPECT(kout[i] == want, "tex1Dfetch<int>(%d) (%s) = %d, expected %d", i + s,
                       o == 0 ? "clamp" : "border", kout[i], want);
            }
        }
    CHECK(cudaDestroyTextureObject(tf));
    CHECK(cudaDestroyTextureObject(tk_clamp));
    CHECK(cudaDestroyTextureObject(tk_border));
    EXPECT_ERROR(cudaDestroyTextureObject(tf), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaFree(df));
    CHECK(cudaFree(dk));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dkout));
    return 0;
}

static int pitched_float_texture() {
    const int w = 37, h = 29;
    std::vector<float> img(w * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img[y * w + x] = std::sin(0.3f * x) * 10.0f + 0.5f * (float)y;
    float* dimg;
    size_t pitch;
    CHECK(cudaMallocPitch(&dimg, &pitch, w * sizeof(float), h));
    CHECK(cudaMemcpy2D(dimg, pitch, img.data(), w * sizeof(float), w * sizeof(float), h,
                       cudaMemcpyHostToDevice));
    const int ow = 48, oh = 40; // output pixels, sampling past every edge
    float* dout;
    CHECK(cudaMalloc(&dout, ow * oh * sizeof(float)));
    std::vector<float> out(ow * oh);

    struct variant {
        const char* name;
        cudaTextureFilterMode filter;
        cudaTextureAddressMode mode;
        int normalized;
        float sx, ox, sy, oy;
    };
    const variant vs[] = {
        {"point clamp", cudaFilterModePoint, cudaAddressModeClamp, 0, 0.9f, -2.3f, 0.85f, -3.1f},
        {"linear clamp", cudaFilterModeLinear, cudaAddressModeClamp, 0, 0.83f, -1.7f, 0.77f, -2.2f},
        {"linear border", cudaFilterModeLinear, cudaAddressModeBorder, 0, 0.87f, -1.9f, 0.79f, -1.3f},
        {"point wrap (normalised)", cudaFilterModePoint, cudaAddressModeWrap, 1, 0.061f, -0.4f,
         0.058f, -0.5f},
        {"linear wrap (normalised)", cudaFilterModeLinear, cudaAddressModeWrap, 1, 0.053f, -0.3f,
         0.049f, -0.6f},
        {"linear mirror (normalised)", cudaFilterModeLinear, cudaAddressModeMirror, 1, 0.067f,
         -1.2f, 0.071f, -0.9f},
    };
    auto texel = [&](long x, long y) { return img[y * w + x]; };
    for (const variant& v : vs) {
        const cudaResourceDesc res =
            pitched_resource(dimg, cudaCreateChannelDesc<float>(), w, h, pitch);
        const cudaTextureDesc td =
            sampling(v.mode, v.mode, v.filter, cudaReadModeElementType, v.normalized);
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        dim3 block(16, 8), grid((ow + 15) / 16, (oh + 7) / 8);
        sample2d<<<grid, block>>>(t, dout, ow, oh, v.sx, v.ox, v.sy, v.oy);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), dout, ow * oh * sizeof(float), cudaMemcpyDeviceToHost));
        for (int y = 0; y < oh; ++y)
            for (int x = 0; x < ow; ++x) {
                const float u = std::fmaf((float)x, v.sx, v.ox), vv = std::fmaf((float)y, v.sy, v.oy);
                const float want = model(texel, w, h, u, vv, v.filter == cudaFilterModeLinear,
                                         v.normalized != 0, v.mode, v.mode);
                EXPECT(close(out[y * ow + x], want, 1e-4f), "%s at (%g, %g) = %.7g, expected %.7g",
                       v.name, u, vv, out[y * ow + x], want);
            }
        CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFree(dimg));
    CHECK(cudaFree(dout));
    return 0;
}

// uchar4 and short texels through the normalized-float read mode.
static int normalized_reads() {
    const int w = 16, h = 8;
    std::vector<uchar4> img(w * h);
    std::vector<short> sh(w * h);
    for (int i = 0; i < w * h; ++i) {
        img[i] = make_uchar4((unsigned char)(i * 7), (unsigned char)(255 - i),
                             (unsigned char)(i * 13 % 256), (unsigned char)(i % 3 * 100));
        sh[i] = (short)((i * 523) % 65536 - 32768);
    }
    uchar4* dimg;
    short* dsh;
    size_t pitch, spitch;
    CHECK(cudaMallocPitch(&dimg, &pitch, w * sizeof(uchar4), h));
    CHECK(cudaMallocPitch(&dsh, &spitch, w * sizeof(short), h));
    CHECK(cudaMemcpy2D(dimg, pitch, img.data(), w * sizeof(uchar4), w * sizeof(uchar4), h,
                       cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2D(dsh, spitch, sh.data(), w * sizeof(short), w * sizeof(short), h,
                       cudaMemcpyHostToDevice));
    const int ow = 24, oh = 12;
    float4* d4;
    float* d1;
    CHECK(cudaMalloc(&d4, ow * oh * sizeof(float4)));
    CHECK(cudaMalloc(&d1, ow * oh * sizeof(float)));

    cudaResourceDesc res = pitched_resource(dimg, cudaCreateChannelDesc<uchar4>(), w, h, pitch);
    cudaTextureDesc td = sampling(cudaAddressModeWrap, cudaAddressModeMirror, cudaFilterModeLinear,
                                  cudaReadModeNormalizedFloat, 1);
    cudaTextureObject_t t4;
    CHECK(cudaCreateTextureObject(&t4, &res, &td, nullptr));
    const float sx = 0.09f, ox = -0.7f, sy = 0.13f, oy = -0.4f;
    dim3 block(8, 4), grid(ow / 8, oh / 4);
    sample2d4<<<grid, block>>>(t4, d4, ow, oh, sx, ox, sy, oy);
    CHECK(cudaGetLastError());
    std::vector<float4> out4(ow * oh);
    CHECK(cudaMemcpy(out4.data(), d4, ow * oh * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
            const float u = std::fmaf((float)x, sx, ox), v = std::fmaf((float)y, sy, oy);
            const float4 got = out4[y * ow + x];
            const float g[4] = {got.x, got.y, got.z, got.w};
            for (int c = 0; c < 4; ++c) {
                auto texel = [&](long i, long j) {
                    const uchar4 p = img[j * w + i];
                    const unsigned char ch[4] = {p.x, p.y, p.z, p.w};
                    return (float)ch[c] / 255.0f;
                };
                const float want = model(texel, w, h, u, v, true, true, WRAP, MIRROR);
                EXPECT(close(g[c], want, 1e-4f),
                       "uchar4 channel %d at (%g, %g) = %.7g, expected %.7g", c, u, v, g[c], want);
            }
        }

    res = pitched_resource(dsh, cudaCreateChannelDesc<short>(), w, h, spitch);
    td = sampling(cudaAddressModeClamp, cudaAddressModeClamp, cudaFilterModePoint,
                  cudaReadModeNormalizedFloat, 0);
    cudaTextureObject_t ts;
    CHECK(cudaCreateTextureObject(&ts, &res, &td, nullptr));
    sample2d<<<grid, block>>>(ts, d1, ow, oh, 0.7f, -0.5f, 0.75f, 0.25f);
    CHECK(cudaGetLastError());
    std::vector<float> out1(ow * oh);
    CHECK(cudaMemcpy(out1.data(), d1, ow * oh * sizeof(float), cudaMemcpyDeviceToHost));
    auto stexel = [&](long i, long j) {
        const float s = (float)sh[j * w + i] / 32767.0f;
        return s < -1.0f ? -1.0f : s;
    };
    for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
            const float u = std::fmaf((float)x, 0.7f, -0.5f), v = std::fmaf((float)y, 0.75f, 0.25f);
            const float want = model(stexel, w, h, u, v, false, false, CLAMP, CLAMP);
            EXPECT(close(out1[y * ow + x], want, 1e-6f),
                   "short texel at (%g, %g) = %.7g, expected %.7g", u, v, out1[y * ow + x], want);
        }
    CHECK(cudaDestroyTextureObject(t4));
    CHECK(cudaDestroyTextureObject(ts));
    CHECK(cudaFree(dimg));
    CHECK(cudaFree(dsh));
    CHECK(cudaFree(d4));
    CHECK(cudaFree(d1));
    return 0;
}

// Descriptors the runtime must refuse, with CUDA's codes.
static int bad_descriptors() {
    int* buf;
    CHECK(cudaMalloc(&buf, 4096));
    cudaResourceDesc res;
    std::memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = buf;
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    res.res.linear.sizeInBytes = 4096;
    cudaTextureDesc td;
    std::memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    EXPECT_ERROR(cudaCreateTextureObject(nullptr, &res, &td, nullptr), cudaErrorInvalidValue);
    EXPECT_ERROR(cudaCreateTextureObject(&t, nullptr, &td, nullptr), cudaErrorInvalidValue);
    td.filterMode = cudaFilterModeLinear; // linear filtering of integers
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    td.filterMode = cudaFilterModePoint;
    res.res.linear.sizeInBytes = 8192; // past the allocation
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    res.res.linear.sizeInBytes = 4096;
    res.res.linear.devPtr = buf + 1; // not aligned to textureAlignment
    res.res.linear.sizeInBytes = 1024;
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    res.res.linear.devPtr = buf;
    res.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindSigned);
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidChannelDescriptor);
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    td.readMode = cudaReadModeNormalizedFloat; // 32-bit integers cannot be normalised
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    td.readMode = cudaReadModeElementType;
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = buf;
    res.res.pitch2D.desc = cudaCreateChannelDesc<int>();
    res.res.pitch2D.width = 16;
    res.res.pitch2D.height = 8;
    res.res.pitch2D.pitchInBytes = 72; // not a multiple of texturePitchAlignment
    EXPECT_ERROR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaFree(buf));
    return 0;
}

int main() {
    if (linear_textures() != 0) return 1;
    if (pitched_float_texture() != 0) return 1;
    if (normalized_reads() != 0) return 1;
    if (bad_descriptors() != 0) return 1;
    CHECK(cudaDeviceSynchronize());
    std::printf("texture objects: all fetches match the CPU model\n");
    return 0;
}
