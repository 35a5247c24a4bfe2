// Front-end sharing (paper 000) on whole GPUs: outputs never change, clusters stay grouped
// on kernels without SM divergence and ungroup on kernels with it, packets hand-counted.
#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/gpu/sharing_clusters.hpp>
#include <warpkit/host/device.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/host/launch_runner.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/reconfig/front_end_sharing.hpp>

#include "../source_dir.hpp"
#include "bundled_kernels.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace warpkit;
namespace rc = warpkit::reconfig;

namespace {

// The GTX480 with the paper's 16 SMs (Table I) in clusters of `s`.
gpu::gpu_params fermi(std::uint32_t s) {
    auto p = gpu::fermi_gtx480::params();
    p.sms = 16;
    p.cluster_size = s;
    return p;
}

struct sharing_outcome {
    gpu::run_stats stats;
    func::global_memory mem;
    std::vector<rc::front_end_sharing_stats> clusters;
    std::vector<gpu::sm_sharing_stats> sms;
    std::vector<gpu::sm_stats> sm;
};

// Runs `k` on `p` from the kernel's data; keeps every SM's counters.
sharing_outcome run(const func::isa_kernel& k, const gpu::gpu_params& p) {
    sharing_outcome o;
    func::load_data(k, o.mem);
    gpu::gpu<gpu::fermi_gtx480> g(p);
    o.stats = g.run(k, o.mem, [&](const auto& sm) {
        o.sms.push_back(sm.cluster().stats());
        o.sm.push_back(sm.stats());
    });
    return o;
}

// BFS relaunches until the changed flag stays clear; the stats of all launches add up.
sharing_outcome run_bfs(const func::isa_kernel& k, const gpu::gpu_params& p) {
    sharing_outcome o;
    func::load_data(k, o.mem);
    gpu::gpu<gpu::fermi_gtx480> g(p);
    for (int launch = 0; launch < 64; ++launch) {
        o.mem.store(0x700, 0);
        const auto rs = g.run(k, o.mem);
        accumulate(o.stats.sharing, rs.sharing);
        o.stats.total.warp_instructions += rs.total.warp_instructions;
        o.stats.cycles += rs.cycles;
        if (o.mem.load(0x700) == 0) break;
    }
    return o;
}

// Runs `k` without sharing, then in clusters of 2 and of 4: every shared run computes the same
// memory, and `check(shared, base, s)` checks the rest.
template <class Check>
void compare_clusters(const func::isa_kernel& k, Check check) {
    const auto base = run(k, fermi(1));
    for (std::uint32_t s : {2U, 4U}) {
        CAPTURE(s);
        const auto r = run(k, fermi(s));
        CHECK(r.mem == base.mem);
        check(r, base, s);
    }
}

double fraction(const gpu::run_stats& r) {
    return rc::sharing_fraction(r.sharing);
}

std::uint64_t causes(const gpu::run_stats& r, rc::ungroup_cause c) {
    return r.sharing.ungroup_causes[static_cast<std::size_t>(c)];
}

} // namespace

TEST_CASE("every bundled kernel computes the same memory with and without front-end sharing") {
    for (const char* name : {"vadd.s", "reduce.s", "histogram.s", "matmul.s", "scan.s", "sfu.s"}) {
        CAPTURE(name);
        const func::isa_kernel k(test::bundled_kernel(name));
        const auto base = run(k, fermi(1));
        CHECK(base.stats.sharing.kernels == 0); // no clusters: no controller ran
        for (std::uint32_t s : {2U, 4U}) {
            CAPTURE(s);
            const auto shared = run(k, fermi(s));
            CHECK(shared.mem == base.mem);
            CHECK(shared.stats.total.warp_instructions == base.stats.total.warp_instructions);
            CHECK(shared.stats.total.thread_instructions == base.stats.total.thread_instructions);
            CHECK(shared.stats.sharing.kernels == 16 / s);
            // Every instruction a master issued for its cluster ran on each of its slaves.
            std::uint64_t issued = 0;
            std::uint64_t executed = 0;
            for (const auto& sm : shared.sms) {
                issued += sm.cluster_issued;
                executed += sm.cluster_executed;
            }
            CHECK(issued == shared.stats.sharing.instructions);
            CHECK(executed == issued * (s - 1));
            CHECK(shared.stats.sharing.inst_packets == executed);
        }
    }
    const func::isa_kernel bfs(test::bundled_kernel("bfs.s"));
    const auto base = run_bfs(bfs, fermi(1));
    for (std::uint32_t s : {2U, 4U}) {
        const auto shared = run_bfs(bfs, fermi(s));
        CHECK(shared.mem == base.mem);
        CHECK(shared.stats.total.warp_instructions == base.stats.total.warp_instructions);
        // One block per launch: the master alone gets work, the cluster ungroups at once.
        CHECK(causes(shared.stats, rc::ungroup_cause::uneven_dispatch) ==
              shared.stats.sharing.kernels / (16 / s));
    }
}

TEST_CASE("every CUDA example kernel (PTX) computes the same memory with and without sharing") {
    const std::string dir = test_files::source_path("examples/cuda") + "/";
    for (const char* name : {"vector_add", "reduce", "histogram", "bfs", "sgemm_naive",
                             "sgemm_tiled", "scan", "sfu", "warp_reduce"}) {
        const std::string kernel = name;
        CAPTURE(kernel);
        const auto m = ptx::read_ptx(dir + name + ".ptx");
        const auto spec = host::read_launch(dir + name + ".launch.json");
        func::global_memory first;
        std::uint64_t insts = 0;
        for (std::uint32_t s : {1U, 2U, 4U}) {
            CAPTURE(s);
            host::device dev("fermi_gtx480");
            const auto k = dev.prepare(m, name);
            const auto bufs = host::allocate(dev, spec);
            const ptx::launch l(k, spec.grid, spec.block, host::pack(k, spec, bufs),
                                spec.shared_bytes, 32);
            gpu::gpu<gpu::fermi_gtx480> g(fermi(s));
            const auto r = g.run(l, dev.memory());
            if (s == 1) {
                first = dev.memory();
                insts = r.total.warp_instructions;
                continue;
            }
            CHECK(dev.memory() == first);
            // BFS's threads race to label a vertex (benignly): how many see it unlabelled
            // depends on timing, the result does not.
            if (kernel != "bfs") CHECK(r.total.warp_instructions == insts);
            CHECK(r.sharing.instructions > 0);
            // The compiler hint catches every equal-mask divergence of nvcc's code.
            CHECK(causes(r, rc::ungroup_cause::unhinted_target) == 0);
        }
    }
}

TEST_CASE("branches on uniform values only: the clusters stay grouped the whole kernel") {
    // 16 blocks of 64 threads: a loop counted by a parameter, a thread-index branch (the same
    // on every SM), a barrier; every block stores its result.
    const auto p = isa::assemble(R"(.kernel uniform
.grid 16
.block 64
.param 0x0 5
    LDS r1, %tid.x
    LDS r2, %ctaid.x
    LDS r3, %ntid.x
    MAD r4, r2, r3, r1
    LDS r5, %param1
    MVI r6, 0
loop:
    ADD r6, r6, r4
    MVI r7, 1
    SUB r5, r5, r7
    BAR
    BNE r5, loop
    MVI r8, 16
    SLT r9, r1, r8
    SSY join
    BEQ r9, join
    ADD r6, r6, r6
join:
    MVI r10, 2
    SHL r11, r4, r10
    LDS r12, %param0
    ADD r12, r12, r11
    STG r12, r6
    EXIT
)");
    compare_clusters(func::isa_kernel(p),
                     [](const sharing_outcome& r, const sharing_outcome&, std::uint32_t s) {
                         CHECK(r.stats.sharing.ungroups == 0);
                         CHECK(fraction(r.stats) == 1.0);
                         CHECK(r.stats.sharing.ctrl_packets == 0);
                         // Branches (5 BNE, 1 BEQ) and exits of 2 warps per block, one mask per
                         // slave each.
                         CHECK(r.stats.sharing.branches == (16 / s) * 2 * (5 + 1 + 1));
                         CHECK(r.stats.sharing.mask_packets == r.stats.sharing.branches * (s - 1));
                         CHECK(r.stats.sharing.compares == r.stats.sharing.mask_packets);
                         // Slaves never fetched: their front-ends were gated the whole kernel.
                         for (std::size_t i = 0; i < r.sm.size(); ++i) {
                             CAPTURE(i);
                             if (i % s == 0) {
                                 CHECK(r.sm[i].fetches > 0);
                                 CHECK(r.sms[i].front_end_gated_cycles == 0);
                             } else {
                                 CHECK(r.sm[i].fetches == 0);
                                 CHECK(r.sms[i].front_end_gated_cycles == r.sm[i].cycles);
                             }
                         }
                     });
}

TEST_CASE("warps that exit early: the members' next blocks take the same warp slots") {
    // 512 blocks of two warps: warp 1 exits at once, warp 0 loops over a load. A slave frees a
    // warp's slot `communicate` cycles after its master, so blocks placed in between must not
    // take the lowest free slots (the members would run different warps in one slot). Every
    // block placed again must run in lock step to the end, as without sharing.
    const auto p = isa::assemble(R"(.kernel early_exit
.grid 512
.block 64
.param 0x0 12
    LDS r1, %tid.x
    LDS r2, %ctaid.x
    LDS r3, %ntid.x
    MAD r4, r2, r3, r1
    MVI r8, 32
    SLT r9, r1, r8
    BEQ r9, done
    LDS r5, %param1
    MVI r6, 0
    MVI r13, 2
    SHL r14, r4, r13
    LDS r12, %param0
    ADD r12, r12, r14
loop:
    LDG r7, r12
    ADD r6, r6, r7
    ADD r6, r6, r4
    MVI r7, 1
    SUB r5, r5, r7
    BNE r5, loop
    STG r12, r6
done:
    EXIT
)");
    compare_clusters(func::isa_kernel(p), [](const sharing_outcome& r, const sharing_outcome& base,
                                             std::uint32_t) {
        CHECK(r.stats.total.warp_instructions == base.stats.total.warp_instructions);
        CHECK(r.stats.sharing.ungroups == 0);
        CHECK(fraction(r.stats) == 1.0);
    });
}

TEST_CASE("branches on the block index: SM divergence ungroups the clusters") {
    const auto kernel = [](const std::string& body) {
        return func::isa_kernel(isa::assemble(".kernel div\n.grid 16\n.block 32\n.param 0x0\n"
                                             "    LDS r1, %tid.x\n    LDS r2, %ctaid.x\n" +
                                             body +
                                             "out:\n    MVI r10, 2\n    MVI r13, 32\n"
                                             "    MAD r12, r2, r13, r1\n    SHL r12, r12, r10\n"
                                             "    LDS r14, %param0\n    ADD r14, r14, r12\n"
                                             "    STG r14, r6\n    EXIT\n"));
    };
    SUBCASE("odd and even blocks go opposite ways with full masks: the compiler hint") {
        // Uniform per block, different per SM: equal masks, different targets.
        const auto k = kernel("    MVI r3, 1\n    AND r4, r2, r3\n    MVI r6, 7\n"
                              "    SSY out\n    BEQ r4, out\n    MVI r6, 9\n");
        const auto base = run(k, fermi(1));
        const auto r = run(k, fermi(2));
        CHECK(r.mem == base.mem);
        CHECK(r.stats.sharing.ungroups == 8); // every cluster, once
        CHECK(causes(r.stats, rc::ungroup_cause::hinted_target) == 8);
        CHECK(causes(r.stats, rc::ungroup_cause::unhinted_target) == 0);
        CHECK(r.stats.sharing.ctrl_packets == 8);
        CHECK(fraction(r.stats) < 1.0);
    }
    SUBCASE("lanes below the block index take the branch: the masks differ") {
        const auto k = kernel("    MVI r6, 7\n    SLT r4, r1, r2\n    SSY out\n    BEQ r4, out\n"
                              "    MVI r6, 9\n");
        compare_clusters(k, [](const sharing_outcome& r, const sharing_outcome&, std::uint32_t s) {
            CHECK(causes(r.stats, rc::ungroup_cause::mask_mismatch) == 16 / s);
            CHECK(fraction(r.stats) < 1.0);
            CHECK(r.stats.sharing.independent_cycles > 0);
        });
    }
    SUBCASE("with hint_policy::ungroup the flagged branch ungroups before any compare") {
        const auto k = kernel("    MVI r6, 7\n    SLT r4, r1, r2\n    SSY out\n    BEQ r4, out\n"
                              "    MVI r6, 9\n");
        auto p = fermi(2);
        p.sharing.hint = rc::hint_policy::ungroup;
        const auto base = run(k, fermi(1));
        const auto r = run(k, p);
        CHECK(r.mem == base.mem);
        CHECK(causes(r.stats, rc::ungroup_cause::hint) == 8);
        CHECK(r.stats.sharing.ctrl_packets == 0);
    }
}

TEST_CASE("packets of a tiny kernel, hand-counted") {
    // Two SMs, one cluster, one block of one warp on each member; a[i] = 3i + 1.
    std::string data;
    for (std::uint32_t i = 0; i < 64; ++i)
        data += ".data " + std::to_string(3 * i + 1) + "\n";
    const auto p = isa::assemble(R"(.kernel tiny
.grid 2
.block 32
.param 0x0 0x1000
    LDS r1, %tid.x
    MVI r2, 2
    SHL r3, r1, r2
    LDS r4, %param0
    ADD r4, r4, r3
    LDG r5, r4
    ADD r5, r5, r5
    LDS r6, %param1
    ADD r6, r6, r3
    STG r6, r5
    EXIT
)" + data);
    const func::isa_kernel k(p);
    auto gp = gpu::fermi_gtx480::params();
    gp.sms = 2;
    gp.cluster_size = 2;
    const auto r = run(k, gp);
    const auto& s = r.stats.sharing;
    // 11 instructions: one InstPacket each; the EXIT's mask; one load with one register
    // acked by the slave; no ungroup.
    CHECK(s.instructions == 11);
    CHECK(s.inst_packets == 11);
    CHECK(s.branches == 1);
    CHECK(s.mask_packets == 1);
    CHECK(s.mem_packets == 1);
    CHECK(s.ctrl_packets == 0);
    CHECK(s.down_bits == 11 * 64 + 32);
    CHECK(s.up_bits == 16);
    CHECK(s.bit_hops == s.down_bits + s.up_bits); // one SM pitch
    CHECK(rc::link_energy_pj(gp.sharing, s) ==
          doctest::Approx((11 * 64 + 32 + 16) * 5 * 50 / 1000.0));
    CHECK(s.ungroups == 0);
    CHECK(r.sms[0].cluster_issued == 11);
    CHECK(r.sms[1].cluster_executed == 11);
    CHECK(r.sms[1].acks_sent == 1);
    CHECK(r.sms[0].acks_received == 2); // the master's own and the slave's
    CHECK(r.sm[0].warp_instructions == 11);
    CHECK(r.sm[1].warp_instructions == 11);
    CHECK(r.sm[1].fetches == 0);
    // Both members' blocks (indexed by thread only) stored a[i] doubled at 0x1000.
    for (std::uint32_t i = 0; i < 32; ++i)
        CHECK(r.mem.load(0x1000 + 4 * i) == 2 * (3 * i + 1));
}

TEST_CASE("sharing params in the GPU: validated, disabled sharing is plain cluster dispatch") {
    auto p = fermi(2);
    p.sharing.link_clock_multiplier = 0;
    CHECK_THROWS_AS((gpu::gpu<gpu::fermi_gtx480>(p)), config_error);
    p = fermi(8);
    CHECK_THROWS_AS((gpu::gpu<gpu::fermi_gtx480>(p)), config_error);
    p.sharing.enabled = false;
    CHECK_NOTHROW((gpu::gpu<gpu::fermi_gtx480>(p)));
    const func::isa_kernel k(test::bundled_kernel("reduce.s"));
    auto off = fermi(4);
    off.sharing.enabled = false;
    const auto r = run(k, off);
    CHECK(r.stats.sharing.kernels == 0);
    for (const auto& sm : r.sms) {
        CHECK(sm.cluster_executed == 0);
        CHECK(sm.front_end_gated_cycles == 0);
    }
    CHECK(r.mem == run(k, fermi(1)).mem);
}
