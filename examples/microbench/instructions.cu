// Latency and throughput of arithmetic instructions by class. Each instruction is written as
// inline PTX so that the compiler keeps exactly the chain asked for:
//   add.s32, mad.lo.s32 (integer), add.f32, fma.rn.f32 (single), fma.rn.f64 (double),
//   sin.approx.f32, rsqrt.approx.f32 (special function unit)
// A chain is a run of dependent instructions that no compiler can shorten: its first value
// comes from a kernel argument (nothing to fold at compile time), integer chains take both
// operands from the chain itself (x = x + y, then y = y + x: with a fixed second operand
// integer adds could be reassociated into fewer), and every thread's chains start from
// different values (no two chains to merge).
// Latency: one thread runs a chain of 512 instructions between two reads of the SM's cycle
// counter; cycles per instruction, the cost of the counter reads alone (an empty chain)
// subtracted. Throughput: blocks of 1024 threads (fewer where the SM's registers hold fewer:
// cudaFuncGetAttributes), at most one per SM, each thread four independent chains; each block
// times itself from a barrier to a barrier (the chains start from a value read after the
// first and end in a store before the second), and the figure is the instructions per cycle
// of the fastest block (thread instructions: a warp instruction counts 32).
// Sizes: small = two blocks with chains of 128 for throughput; full = one block per SM with
// chains of 512, each measurement repeated five times keeping the fastest.
// Check: integer, single and double chains end on the values the CPU computes (the same
// wrapping integer arithmetic, correctly rounded adds and fmas), in every thread; the
// approximate SFU chains must end finite.
// run-args: small
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "microbench.cuh"

constexpr int latency_steps = 512;

// Each instruction as a table row: the struct's name, the instruction's name, its C type and
// inline-PTX constraints, the PTX of one step (x, the chain's value, is %0; y, the other
// operand, is %1), whether the chain takes both operands from itself (`pairs`), whether the
// result is approximate (no CPU twin to check against), the step on the CPU, the first value,
// the fixed second operand, and how far apart the starts of different chains are.
#define CHAIN_INSTRUCTION(NAME, TEXT, TYPE, OUT, IN, PTX, PAIRS, APPROX, CPU, FIRST, OPERAND,   \
                          SPACING)                                                             \
    struct NAME {                                                                              \
        using type = TYPE;                                                                     \
        static constexpr const char* name = TEXT;                                              \
        static constexpr bool pairs = PAIRS, approximate = APPROX;                             \
        __device__ static void step(TYPE& x, TYPE y) { asm volatile(PTX : OUT(x) : IN(y)); }  \
        static TYPE cpu(TYPE x, TYPE y) { return (void)y, CPU; }                               \
        static constexpr TYPE start = FIRST, operand = OPERAND, spacing = SPACING;             \
    }

CHAIN_INSTRUCTION(add_s32, "add.s32", unsigned, "+r", "r", "add.s32 %0, %0, %1;", true, false,
                  x + y, 1, 3, 1);
CHAIN_INSTRUCTION(mad_s32, "mad.lo.s32", unsigned, "+r", "r", "mad.lo.s32 %0, %0, %1, %1;", true,
                  false, x * y + y, 1, 3, 1);
CHAIN_INSTRUCTION(add_f32, "add.f32", float, "+f", "f", "add.rn.f32 %0, %0, %1;", false, false,
                  x + y, 1.0f, 0.25f, 1.0f / 4096);
CHAIN_INSTRUCTION(fma_f32, "fma.rn.f32", float, "+f", "f", "fma.rn.f32 %0, %0, %1, %1;", false,
                  false, std::fma(x, y, y), 1.0f, 0.5f, 1.0f / 4096);
CHAIN_INSTRUCTION(fma_f64, "fma.rn.f64", double, "+d", "d", "fma.rn.f64 %0, %0, %1, %1;", false,
                  false, std::fma(x, y, y), 1.0, 0.5, 1.0 / 4096);
CHAIN_INSTRUCTION(sin_f32, "sin.approx.f32", float, "+f", "f", "sin.approx.f32 %0, %0;", false,
                  true, x, 1.0f, 0.0f, 1.0f / 4096);
CHAIN_INSTRUCTION(rsqrt_f32, "rsqrt.approx.f32", float, "+f", "f", "rsqrt.approx.f32 %0, %0;",
                  false, true, x, 2.0f, 0.0f, 1.0f / 4096);

// Two dependent steps of a chain (x, y): a pair chain updates x from y, then y from the new
// x; any other chain steps x twice with the fixed operand.
template <class Op, class T>
__host__ __device__ __forceinline__ void advance(T& x, T& y, T operand)
{
#ifdef __CUDA_ARCH__
    if (Op::pairs) {
        Op::step(x, y);
        Op::step(y, x);
    } else {
        Op::step(x, operand);
        Op::step(x, operand);
    }
#else
    if (Op::pairs) {
        x = Op::cpu(x, y);
        y = Op::cpu(y, x);
    } else {
        x = Op::cpu(x, operand);
        x = Op::cpu(x, operand);
    }
#endif
}

// A chain of latency_steps instructions from `first`, or none (`run` false: the counter
// reads alone).
template <class Op>
__global__ void latency_kernel(typename Op::type first, typename Op::type operand, bool run,
                               long long* cycles, typename Op::type* result)
{
    typename Op::type x = first, y = operand;
    const long long start = cycle_counter();
    if (run) {
#pragma unroll
        for (int i = 0; i < latency_steps / 2; ++i) advance<Op>(x, y, operand);
    }
    const long long stop = cycle_counter();
    cycles[0] = stop - start;
    result[0] = x;
}

// The first value of chain `k` (0..3) of global thread `thread`.
template <class Op>
__host__ __device__ typename Op::type chain_start(typename Op::type first, unsigned thread, int k)
{
    return first + static_cast<typename Op::type>(4 * (thread % 4096) + k) * Op::spacing;
}

// Four independent chains of `iterations` x 2 instructions per thread; each block's thread 0
// records the block's cycles.
template <class Op>
__global__ void throughput_kernel(typename Op::type first, typename Op::type operand,
                                  int iterations, long long* cycles, typename Op::type* result)
{
    using T = typename Op::type;
    __shared__ T shared_first;
    if (threadIdx.x == 0) shared_first = first;
    __syncthreads();
    const long long start = cycle_counter();
    const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
    const T base = shared_first;
    T x0 = chain_start<Op>(base, thread, 0), x1 = chain_start<Op>(base, thread, 1);
    T x2 = chain_start<Op>(base, thread, 2), x3 = chain_start<Op>(base, thread, 3);
    T y0 = operand, y1 = operand, y2 = operand, y3 = operand;
#pragma unroll 8
    for (int i = 0; i < iterations; ++i) {
        advance<Op>(x0, y0, operand);
        advance<Op>(x1, y1, operand);
        advance<Op>(x2, y2, operand);
        advance<Op>(x3, y3, operand);
    }
    result[thread] = x0 + x1 + x2 + x3;
    __syncthreads();
    const long long stop = cycle_counter();
    if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
}

template <class T>
static bool same_bits(T a, T b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Runs both measurements of one instruction; returns 0, or 1 after a FAIL line.
template <class Op>
static int measure(int blocks, int iterations, int reps)
{
    using T = typename Op::type;
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, throughput_kernel<Op>));
    const int throughput_block = std::min(1024, attributes.maxThreadsPerBlock);
    const size_t threads = static_cast<size_t>(blocks) * throughput_block;
    long long* d_cycles;
    T* d_result;
    CHECK(cudaMalloc(&d_cycles, blocks * sizeof(long long)));
    CHECK(cudaMalloc(&d_result, threads * sizeof(T)));

    long long chained = 0, empty = 0;
    T x = Op::start;
    for (int r = 0; r < reps; ++r) {
        long long c = 0;
        latency_kernel<Op><<<1, 1>>>(Op::start, Op::operand, false, d_cycles, d_result);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost));
        empty = r == 0 ? c : std::min(empty, c);
        latency_kernel<Op><<<1, 1>>>(Op::start, Op::operand, true, d_cycles, d_result);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&c, d_cycles, sizeof c, cudaMemcpyDeviceToHost));
        chained = r == 0 ? c : std::min(chained, c);
    }
    CHECK(cudaMemcpy(&x, d_result, sizeof x, cudaMemcpyDeviceToHost));

    std::vector<long long> cycles(blocks);
    long long fastest = 0;
    for (int r = 0; r < reps; ++r) {
        throughput_kernel<Op><<<blocks, throughput_block>>>(Op::start, Op::operand, iterations,
                                                            d_cycles, d_result);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(cycles.data(), d_cycles, blocks * sizeof(long long),
                         cudaMemcpyDeviceToHost));
        for (long long c : cycles)
            if (c > 0 && (fastest == 0 || c < fastest)) fastest = c;
    }
    std::vector<T> sums(threads);
    CHECK(cudaMemcpy(sums.data(), d_result, threads * sizeof(T), cudaMemcpyDeviceToHost));

    if (Op::approximate) {
        EXPECT(std::isfinite(static_cast<double>(x)), "instructions: %s chain ended on %g",
               Op::name, static_cast<double>(x));
    } else {
        T want = Op::start, y = Op::operand;
        for (int i = 0; i < latency_steps / 2; ++i) advance<Op>(want, y, Op::operand);
        EXPECT(same_bits(x, want), "instructions: %s chain ended on %.17g, expected %.17g",
               Op::name, static_cast<double>(x), static_cast<double>(want));
        for (size_t t = 0; t < threads; ++t) {
            T chain[4];
            for (int k = 0; k < 4; ++k) {
                T cx = chain_start<Op>(Op::start, static_cast<unsigned>(t), k), cy = Op::operand;
                for (int i = 0; i < iterations; ++i) advance<Op>(cx, cy, Op::operand);
                chain[k] = cx;
            }
            const T sum = chain[0] + chain[1] + chain[2] + chain[3];
            EXPECT(same_bits(sums[t], sum),
                   "instructions: %s thread %zu summed %.17g, expected %.17g", Op::name, t,
                   static_cast<double>(sums[t]), static_cast<double>(sum));
        }
    }
    char name[64];
    std::snprintf(name, sizeof name, "latency_%s", Op::name);
    report("instructions", name, static_cast<double>(chained - empty) / latency_steps, "cycles");
    std::snprintf(name, sizeof name, "throughput_%s", Op::name);
    const double ops = 4.0 * 2.0 * iterations * throughput_block;
    report("instructions", name, fastest > 0 ? ops / static_cast<double>(fastest) : 0.0,
           "ops/cycle/SM");
    CHECK(cudaFree(d_cycles));
    CHECK(cudaFree(d_result));
    return 0;
}

int main(int argc, char** argv)
{
    const bool full = full_size(argc, argv);
    const int reps = full ? 5 : 1;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = full ? sms : std::min(sms, 2);
    const int iterations = full ? 256 : 64; // two instructions each
    if (measure<add_s32>(blocks, iterations, reps) || measure<mad_s32>(blocks, iterations, reps) ||
        measure<add_f32>(blocks, iterations, reps) || measure<fma_f32>(blocks, iterations, reps) ||
        measure<fma_f64>(blocks, iterations, reps) || measure<sin_f32>(blocks, iterations, reps) ||
        measure<rsqrt_f32>(blocks, iterations, reps))
        return 1;
    std::printf("instructions: OK\n");
    return 0;
}
