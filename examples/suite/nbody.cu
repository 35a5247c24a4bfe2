// All-pairs gravitational n-body simulation with Plummer softening (G = 1):
//   a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2),  then  v += a dt,  x += v dt.
// Kernel: nbody_step, one thread per body. A block walks over all bodies in tiles of
// blockDim.x: each thread stages one body of the tile in (dynamic) shared memory, then
// every thread accumulates the whole tile from there. One launch per time step; positions
// are double-buffered so a step reads only the previous step's positions.
// Sizes: small = 200 bodies, blocks of 64, 2 steps; paper = 3,000 bodies, blocks of 64,
// 3 steps. Neither is a multiple of the block, so the last tile is padded with massless
// bodies.
// Check: the CPU runs the same steps in double precision and carries, per body, a
// worst-case bound of the float rounding error (see the reference loop); every position
// and velocity component must lie within twice that bound.
// run-args: small
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "suite.cuh"

// pos: (x, y, z, mass); vel: (vx, vy, vz, unused).
__global__ void nbody_step(const float4* pos_in, float4* pos_out, float4* vel, int n, float dt,
                           float eps2)
{
    extern __shared__ float4 tile[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Threads past n still help to stage tiles; they just do not write a body.
    const float4 me = i < n ? pos_in[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start < n; start += blockDim.x) {
        const int j = start + threadIdx.x;
        // Padding bodies have no mass, so they add exactly nothing.
        tile[threadIdx.x] = j < n ? pos_in[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        // A fresh partial per tile: the rounding chain is tile + tiles additions long, not n.
        float3 part = make_float3(0.0f, 0.0f, 0.0f);
        for (int k = 0; k < blockDim.x; ++k) {
            const float4 other = tile[k];
            const float dx = other.x - me.x;
            const float dy = other.y - me.y;
            const float dz = other.z - me.z;
            // Softening keeps the self term (d = 0) and close encounters finite.
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv_r = rsqrtf(r2);
            const float s = other.w * inv_r * inv_r * inv_r;
            part.x += s * dx;
            part.y += s * dy;
            part.z += s * dz;
        }
        acc.x += part.x;
        acc.y += part.y;
        acc.z += part.z;
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += acc.x * dt;
        v.y += acc.y * dt;
        v.z += acc.z * dt;
        vel[i] = v;
        pos_out[i] = make_float4(me.x + v.x * dt, me.y + v.y * dt, me.z + v.z * dt, me.w);
    }
}

// Uniform in [-1, 1).
static float uniform(uint64_t& state)
{
    return static_cast<float>(static_cast<int32_t>(splitmix64(state) >> 40) - (1 << 23)) /
           (1 << 23);
}

// The run: bodies, block size, time steps and the integration constants.
struct simulation {
    int n, block, steps;
    float dt = 0.005f;
    float eps2 = 0.05f * 0.05f;
    int blocks() const { return (n + block - 1) / block; }
};

// Positions (x, y, z, mass) and velocities (vx, vy, vz, unused) of every body.
struct bodies {
    std::vector<float4> pos, vel;
};

// The reference run in double: positions and velocities (4 per body, as float4) and each
// body's error bounds for the float computation.
struct reference {
    std::vector<double> x, v, ex, ev;
};

// A cloud in the unit ball (rejection sampling), total mass about 1, small random
// velocities.
static bodies make_bodies(int n, uint64_t seed)
{
    bodies b{std::vector<float4>(n), std::vector<float4>(n)};
    uint64_t state = seed;
    for (int i = 0; i < n; ++i) {
        float x, y, z;
        do {
            x = uniform(state), y = uniform(state), z = uniform(state);
        } while (x * x + y * y + z * z > 1.0f);
        const float mass = (1.0f + 0.5f * uniform(state)) / n;
        b.pos[i] = make_float4(x, y, z, mass);
        const float vx = 0.3f * uniform(state);
        const float vy = 0.3f * uniform(state);
        const float vz = 0.3f * uniform(state);
        b.vel[i] = make_float4(vx, vy, vz, 0.0f);
    }
    return b;
}

// The time steps on the GPU. Returns 0 or, after printing FAIL, 1.
static int simulate_on_gpu(const simulation& sim, const bodies& start, bodies& got)
{
    float4 *dpos[2], *dvel;
    const size_t bytes = sim.n * sizeof(float4);
    CHECK(cudaMalloc(&dpos[0], bytes));
    CHECK(cudaMalloc(&dpos[1], bytes));
    CHECK(cudaMalloc(&dvel, bytes));
    CHECK(cudaMemcpy(dpos[0], start.pos.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dvel, start.vel.data(), bytes, cudaMemcpyHostToDevice));
    for (int s = 0; s < sim.steps; ++s) {
        const size_t shared = sim.block * sizeof(float4);
        nbody_step<<<sim.blocks(), sim.block, shared>>>(dpos[s % 2], dpos[(s + 1) % 2], dvel,
                                                        sim.n, sim.dt, sim.eps2);
        CHECK(cudaGetLastError());
    }
    got.pos.resize(sim.n);
    got.vel.resize(sim.n);
    CHECK(cudaMemcpy(got.pos.data(), dpos[sim.steps % 2], bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got.vel.data(), dvel, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dpos[0]));
    CHECK(cudaFree(dpos[1]));
    CHECK(cudaFree(dvel));
    return 0;
}

// Reference in double, with a per-body error bound for the float computation:
// - acceleration: each term carries a few roundings plus rsqrtf's 2 ulp (at most 12u
//   relative, u = 2^-24), and the blocked sum adds at most (tile + tiles) u * sum|term|;
//   a position error moves a softened pair force by at most 2 m / (r^2+eps^2)^(3/2)
//   times its length (the force's Jacobian norm), which `lip` collects; a length is at
//   most sqrt(3) times a component bound, for each of the two bodies: 2 sqrt(3) < 4.
// - velocity and position: the update's own rounding of the new value, plus dt times
//   the error of the term added.
static reference simulate_on_cpu(const simulation& sim, const bodies& start)
{
    const int n = sim.n;
    const float dt = sim.dt, eps2 = sim.eps2;
    const double u = std::ldexp(1.0, -24);
    const int depth = sim.block + sim.blocks() + 12;
    std::vector<double> x(4 * n), v(4 * n), ex(n, 0.0), ev(n, 0.0), acc(3 * n);
    std::vector<double> ea(n);
    for (int i = 0; i < n; ++i) {
        const double p[4] = {start.pos[i].x, start.pos[i].y, start.pos[i].z, start.pos[i].w};
        const double q[4] = {start.vel[i].x, start.vel[i].y, start.vel[i].z, 0.0};
        std::copy(p, p + 4, &x[4 * i]);
        std::copy(q, q + 4, &v[4 * i]);
    }
    for (int s = 0; s < sim.steps; ++s) {
        const double ex_max = *std::max_element(ex.begin(), ex.end());
        for (int i = 0; i < n; ++i) {
            double a[3] = {0.0, 0.0, 0.0};
            double abs_terms = 0.0, lip = 0.0;
            for (int j = 0; j < n; ++j) {
                const double d[3] = {x[4 * j] - x[4 * i], x[4 * j + 1] - x[4 * i + 1],
                                     x[4 * j + 2] - x[4 * i + 2]};
                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                const double w = x[4 * j + 3] / (r2 * std::sqrt(r2));
                for (int c = 0; c < 3; ++c) {
                    a[c] += w * d[c];
                }
                abs_terms += w * std::sqrt(r2 - eps2);
                lip += 2.0 * w;
            }
            std::copy(a, a + 3, &acc[3 * i]);
            ea[i] = depth * u * abs_terms + lip * 4.0 * ex_max;
        }
        for (int i = 0; i < n; ++i) {
            for (int c = 0; c < 3; ++c) {
                v[4 * i + c] += acc[3 * i + c] * dt;
                x[4 * i + c] += v[4 * i + c] * dt;
            }
            double vmag = 0.0, xmag = 0.0;
            for (int c = 0; c < 3; ++c) {
                vmag = std::max(vmag, std::fabs(v[4 * i + c]));
                xmag = std::max(xmag, std::fabs(x[4 * i + c]));
            }
            ev[i] += dt * ea[i] + 2.0 * u * vmag;
            ex[i] += dt * ev[i] + 2.0 * u * xmag;
        }
    }
    return {std::move(x), std::move(v), std::move(ex), std::move(ev)};
}

// Every position and velocity component within twice its bound; `worst` is the largest
// error as a fraction of its bound. False after printing FAIL.
static bool bodies_match(const simulation& sim, const bodies& got, const reference& want,
                        double& worst)
{
    worst = 0.0;
    for (int i = 0; i < sim.n; ++i) {
        const float gp[3] = {got.pos[i].x, got.pos[i].y, got.pos[i].z};
        const float gv[3] = {got.vel[i].x, got.vel[i].y, got.vel[i].z};
        for (int c = 0; c < 3; ++c) {
            const double pos_err = std::fabs(gp[c] - want.x[4 * i + c]);
            const double vel_err = std::fabs(gv[c] - want.v[4 * i + c]);
            if (!(pos_err <= 2.0 * want.ex[i]) || !(vel_err <= 2.0 * want.ev[i])) {
                std::printf("FAIL: body %d component %d: position %.9g (expected %.9g, bound "
                            "%.3g), velocity %.9g (expected %.9g, bound %.3g)\n",
                            i, c, gp[c], want.x[4 * i + c], 2.0 * want.ex[i], gv[c],
                            want.v[4 * i + c], 2.0 * want.ev[i]);
                return false;
            }
            worst = std::max({worst, pos_err / (2.0 * want.ex[i]), vel_err / (2.0 * want.ev[i])});
        }
    }
    return true;
}

int main(int argc, char** argv)
{
    uint64_t seed = 1;
    const bool paper = paper_size(argc, argv, seed);
    const simulation sim = paper ? simulation{3000, 64, 3} : simulation{200, 64, 2};
    const bodies start = make_bodies(sim.n, seed);
    bodies got;
    if (simulate_on_gpu(sim, start, got) != 0) {
        return 1;
    }
    double worst = 0.0;
    if (!bodies_match(sim, got, simulate_on_cpu(sim, start), worst)) {
        return 1;
    }
    std::printf("nbody: OK (%d bodies, %d steps, worst error %.2f of its bound)\n", sim.n,
                sim.steps, worst);
    return 0;
}
