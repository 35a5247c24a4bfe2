// Double precision arithmetic, conversions and special functions.
extern "C" __global__ void doubles(double* out, const double* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i];
    double y = static_cast<double>(b[i]);
    double r = x / (y + 1.0);
    r = fma(r, x, -y);
    r += sqrt(fabs(x));
    r = fmin(r, 1.0e30) + fmax(x, -2.5);
    long long k = static_cast<long long>(r);
    out[i] = r + static_cast<double>(k % 7) + 1.0 / x;
    out[n + i] = static_cast<double>(static_cast<float>(r) * 0.5f);
}
