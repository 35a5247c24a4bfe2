// Integer division and remainder, 64-bit arithmetic, bit manipulation, min/max, selects.
extern "C" __global__ void intmath(int* o32, long long* o64, unsigned* ou, const int* a, const long long* b,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = a[(i + 1) % n] | 1;
    long long p = b[i], q = b[(i + 3) % n] | 1;
    o32[i] = x / y + x % y + min(x, y) - max(x, 3) + abs(x);
    o64[i] = p / q + p % q + (p >> 3) + (p << (x & 7)) + static_cast<long long>(x) * y + __mul64hi(p, q);
    unsigned u = static_cast<unsigned>(x);
    unsigned uy = static_cast<unsigned>(y);
    ou[i] = u / uy + u % uy + __popc(u) + __clz(u) + __brev(u) + __byte_perm(u, uy, 0x5410) +
            __funnelshift_l(u, uy, x) + (u >> 7) + ((u & 0xff00u) >> 8) + __umulhi(u, uy) +
            (x > 0 ? u ^ uy : ~u) + __ffs(u) + __sad(x, y, 2u);
}
