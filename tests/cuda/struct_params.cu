// By-value kernel parameters of mixed sizes and alignments: char, short, bool, double, float,
// unsigned long long, int3, float4, a struct holding an array, and a struct nesting all of them
// (with padding between members). Every thread reads the parameters; two launches with
// different values check that nothing is stale.
#include <cstdio>
#include <cstring>

#include "check.cuh"

struct Inner {
    short tag;
    int values[5];
    char name[3];
};

struct Mixed {
    char c;     // 7 bytes of padding follow
    double d;
    int3 v;
    Inner in;
    float4 q;   // 16-byte aligned
};

constexpr int SLOTS = 26;
constexpr int THREADS = 64;

// Every field the kernel receives, as doubles in slot order: the kernel writes them out and
// the host check computes what it must have written, from the same values.
__host__ __device__ __forceinline__ void field_slots(char c, double d, int3 v, Inner in, short s,
                                                     Mixed m, bool flag, unsigned long long big,
                                                     float f, double* slots)
{
    const double r[SLOTS] = {
        (double)c,        d,           (double)v.x,     (double)v.y,      (double)v.z,
        (double)in.tag,   (double)in.values[0], (double)in.values[4], (double)in.name[0],
        (double)in.name[2], (double)s, (double)m.c,     m.d,              (double)m.v.x,
        (double)m.v.z,    (double)m.in.tag, (double)m.in.values[2], (double)m.in.name[1],
        (double)m.q.x,    (double)m.q.w, (double)flag,  (double)(big >> 40),
        (double)(big & 0xffffffffull), (double)f, (double)sizeof(Mixed), (double)sizeof(Inner)};
    for (int k = 0; k < SLOTS; ++k) {
        slots[k] = r[k];
    }
}

// The sum thread t writes: it needs the array members, indexed by the thread.
__host__ __device__ __forceinline__ long long thread_sum(int t, char c, int3 v, Inner in, Mixed m,
                                                         bool flag, unsigned long long big)
{
    return (long long)in.values[t % 5] * (t + 1) + m.in.values[(t + 2) % 5] + v.y +
           (flag ? (long long)big : -1LL) + c;
}

// Thread 0 writes every field as a double; every thread t writes one sum that needs the
// array member, so all threads must see the same parameters.
__global__ void unpack(char c, double d, int3 v, Inner in, short s, Mixed m, bool flag,
                       unsigned long long big, float f, double* out, long long* per_thread)
{
    int t = threadIdx.x;
    if (t == 0) {
        field_slots(c, d, v, in, s, m, flag, big, f, out);
    }
    per_thread[t] = thread_sum(t, c, v, in, m, flag, big);
}

static int check(char c, double d, int3 v, const Inner& in, short s, const Mixed& m, bool flag,
                 unsigned long long big, float f, double* dout, long long* dper)
{
    unpack<<<1, THREADS>>>(c, d, v, in, s, m, flag, big, f, dout, dper);
    CHECK(cudaGetLastError());
    double out[SLOTS];
    long long per[THREADS];
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(per, dper, sizeof per, cudaMemcpyDeviceToHost));
    double want[SLOTS];
    field_slots(c, d, v, in, s, m, flag, big, f, want);
    for (int k = 0; k < SLOTS; ++k) {
        if (std::memcmp(&out[k], &want[k], sizeof(double)) != 0) {
            std::printf("FAIL: field slot %d = %.17g, expected %.17g\n", k, out[k], want[k]);
            return 1;
        }
    }
    for (int t = 0; t < THREADS; ++t) {
        const long long w = thread_sum(t, c, v, in, m, flag, big);
        if (per[t] != w) {
            std::printf("FAIL: thread %d computed %lld, expected %lld\n", t, per[t], w);
            return 1;
        }
    }
    return 0;
}

int main()
{
    double* dout;
    long long* dper;
    CHECK(cudaMalloc(&dout, SLOTS * sizeof(double)));
    CHECK(cudaMalloc(&dper, THREADS * sizeof(long long)));

    Inner in{-1234, {10, -20, 30, -40, 50}, {'a', 'b', 'c'}};
    Mixed m{};
    m.c = 'Z';
    m.d = -3.141592653589793;
    m.v = make_int3(-1, 2, -3);
    m.in = Inner{77, {1, 2, 3, 4, 5}, {'x', 'y', 'z'}};
    m.q = make_float4(0.5f, -1.25f, 2.0f, 1e30f);
    if (check('q', 2.718281828459045, make_int3(7, -8, 9), in, short(-32000), m, true,
              0x0123456789abcdefull, 1.5e-7f, dout, dper) != 0) {
        return 1;
    }

    // Different values everywhere.
    Inner in2{31000, {-1, -2, -3, -4, -5}, {'-', '+', '*'}};
    Mixed m2 = m;
    m2.c = -5;
    m2.d = 1e300;
    m2.v = make_int3(100, 200, 300);
    m2.in.values[2] = 1 << 30;
    m2.in.name[1] = '!';
    m2.q = make_float4(-0.0f, 3.0f, 4.0f, -7.5f);
    if (check(-100, -0.0, make_int3(0, 123456, -1), in2, short(5), m2, false, 0xfedcba9876543210ull,
              -42.0f, dout, dper) != 0) {
        return 1;
    }
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dper));
    std::printf("struct_params: OK (sizeof(Mixed) %zu, sizeof(Inner) %zu)\n", sizeof(Mixed),
                sizeof(Inner));
    return 0;
}
