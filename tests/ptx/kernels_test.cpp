// Every kernel of examples/cuda on every preset and in the functional runner (both SIMT
// stacks), compared with the C++ references and with each other.
#include "references.hpp"

#include <warpkit/core/json.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/func/ptx_functional.hpp>
#include <warpkit/gpu/invariants.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/host/launch_file.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/parser.hpp>
#include <warpkit/simt/pdom_stack.hpp>
#include <warpkit/simt/ssy_stack.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace warpkit;

namespace {

using test_files::source_path;

// One example kernel with its launch file: buffers placed in device memory, parameters packed.
class example {
public:
    /// `small`: the launch shrunk for the timed runs (a few blocks; SGEMM 32 x 32).
    /// `debug`: the nvcc -G build (examples/cuda/debug/).
    explicit example(const std::string& name, std::uint32_t regs_per_thread = 0, bool small = false,
                     bool debug = false)
        : spec_(host::read_launch(source_path("examples/cuda/" + name + ".launch.json"))),
          m_(ptx::read_ptx(
              source_path("examples/cuda/" + std::string(debug ? "debug/" : "") + name + ".ptx"))),
          debug_(debug) {
        if (small) shrink_(name);
        ptx::kernel_options o;
        o.regs_per_thread = regs_per_thread;
        k_ = std::make_unique<ptx::kernel>(m_, name, o);
        std::uint64_t next = 0x1000'0000;
        for (const auto& b : spec_.buffers) {
            addr_[b.name] = next;
            const auto bytes = host::initial_contents(b);
            std::vector<std::uint8_t> raw(bytes.size());
            std::memcpy(raw.data(), bytes.data(), bytes.size());
            mem_.write_bytes(next, raw);
            next += (b.bytes() + 255) / 256 * 256 + 256;
        }
        params_ = pack();
    }

    [[nodiscard]] std::vector<std::uint8_t> pack() const {
        ptx::param_pack pack(*k_);
        for (const auto& p : spec_.params) {
            if (p.is_buffer()) {
                pack.add(addr_.at(p.buffer));
            } else {
                std::vector<std::uint8_t> raw(p.value.size());
                std::memcpy(raw.data(), p.value.data(), raw.size());
                pack.add_bytes(raw);
            }
        }
        return pack.bytes();
    }
    [[nodiscard]] ptx::launch launch(std::uint32_t warp_size = 32) const {
        return ptx::launch(*k_, spec_.grid, spec_.block, params_, spec_.shared_bytes, warp_size);
    }
    [[nodiscard]] const ptx::kernel& kernel() const { return *k_; }
    [[nodiscard]] const func::global_memory& initial() const { return mem_; }
    /// Scalar parameter `i` as a 32-bit integer.
    [[nodiscard]] std::int32_t scalar(std::size_t i) const {
        std::int32_t v = 0;
        std::memcpy(&v, spec_.params.at(i).value.data(), 4);
        return v;
    }
    template <class T>
    [[nodiscard]] std::vector<T> read(const func::global_memory& mem,
                                      const std::string& buf) const {
        const auto* b = spec_.find_buffer(buf);
        REQUIRE(b != nullptr);
        const auto raw = mem.read_bytes(addr_.at(buf), b->bytes());
        std::vector<T> v(raw.size() / sizeof(T));
        std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
        return v;
    }
    [[nodiscard]] std::uint64_t address(const std::string& buf) const { return addr_.at(buf); }
    [[nodiscard]] const host::launch_spec& spec() const { return spec_; }
    /// The nvcc -G build: multiply-adds are a multiply and an add, not an fma.
    [[nodiscard]] bool debug() const { return debug_; }

private:
    void set_scalar_(std::size_t i, std::int32_t v) {
        auto& p = spec_.params.at(i);
        REQUIRE(p.value.size() == 4);
        std::memcpy(p.value.data(), &v, 4);
    }
    // Element counts of the named buffers, the grid and the scalar parameter holding n.
    void resize_(std::initializer_list<std::pair<const char*, std::uint64_t>> counts,
                 std::uint32_t grid, std::size_t n_param, std::int32_t n) {
        for (const auto& [buffer, count] : counts)
            for (auto& b : spec_.buffers)
                if (b.name == buffer) b.count = count;
        spec_.grid = {grid, 1, 1};
        set_scalar_(n_param, n);
    }
    void shrink_(const std::string& name) {
        if (name == "sgemm_naive" || name == "sgemm_tiled") {
            resize_({{"A", 32 * 32}, {"B", 32 * 32}, {"C", 32 * 32}}, 2, 3, 32);
            spec_.grid = {2, 2, 1};
        } else if (name == "reduce") {
            resize_({{"in", 8 * 256}, {"out", 8}}, 8, 2, 8 * 256);
        } else if (name == "vector_add") {
            resize_({{"a", 4000}, {"b", 4000}, {"c", 4000}}, 16, 3, 4000);
        } else if (name == "histogram") {
            resize_({{"data", 4096}}, 4, 2, 4096);
        } else if (name == "scan") {
            resize_({{"in", 1000}, {"out", 1000}}, 4, 2, 1000);
        } else if (name == "sfu") {
            resize_({{"x", 1024}, {"y", 1024}}, 4, 2, 1024);
        } else if (name == "warp_reduce") {
            resize_({{"in", 2000}}, 8, 1, 2000);
        }
    }

    host::launch_spec spec_;
    ptx::module m_;
    std::unique_ptr<ptx::kernel> k_;
    std::map<std::string, std::uint64_t> addr_;
    func::global_memory mem_;
    std::vector<std::uint8_t> params_;
    bool debug_ = false;
};

// Checks a run's memory against the kernel's C++ reference.
void check_against_reference(const std::string& name, const example& e,
                             const func::global_memory& mem) {
    const func::global_memory& in = e.initial();
    if (name == "vector_add") {
        const auto c = e.read<float>(mem, "c");
        CHECK(c ==
              test_ref::vector_add(e.read<float>(in, "a"), e.read<float>(in, "b"), e.scalar(3)));
    } else if (name == "reduce") {
        CHECK(e.read<float>(mem, "out") ==
              test_ref::reduce(e.read<float>(in, "in"), e.scalar(2), e.spec().grid.x));
    } else if (name == "histogram") {
        const auto bins = e.read<std::uint32_t>(mem, "bins");
        const auto ref = test_ref::histogram(e.read<std::uint8_t>(in, "data"), e.scalar(2));
        CHECK(std::equal(bins.begin(), bins.end(), ref.begin(), ref.end()));
    } else if (name == "bfs") {
        const auto ref =
            test_ref::bfs_level(e.read<int>(in, "row_offsets"), e.read<int>(in, "columns"),
                                e.read<int>(in, "levels"), e.scalar(3), e.scalar(4));
        CHECK(e.read<int>(mem, "levels") == ref.levels);
        CHECK(e.read<int>(mem, "changed")[0] == (ref.changed ? 1 : 0));
    } else if (name == "sgemm_naive") {
        CHECK(e.read<float>(mem, "C") == test_ref::sgemm_naive(e.read<float>(in, "A"),
                                                               e.read<float>(in, "B"), e.scalar(3),
                                                               !e.debug()));
    } else if (name == "sgemm_tiled") {
        CHECK(e.read<float>(mem, "C") == test_ref::sgemm_tiled(e.read<float>(in, "A"),
                                                               e.read<float>(in, "B"), e.scalar(3),
                                                               !e.debug()));
    } else if (name == "scan") {
        CHECK(e.read<int>(mem, "out") == test_ref::scan(e.read<int>(in, "in"), e.scalar(2)));
    } else if (name == "sfu") {
        const auto y = e.read<float>(mem, "y");
        const auto x = e.read<float>(in, "x");
        const auto exact = test_ref::sfu(x, e.scalar(2));
        const auto steps = test_ref::sfu_ptx_order(x, e.scalar(2));
        double worst = 0, worst_steps = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            worst = std::max(worst, std::fabs(double{y[i]} - exact[i]));
            worst_steps = std::max(worst_steps, std::fabs(double{y[i]} - steps[i]));
        }
        CHECK(worst <= test_ref::sfu_tolerance);
        CHECK(worst_steps <= 1e-5); // the same float functions, a few ulps apart at most
    } else if (name == "warp_reduce") {
        const auto ref = test_ref::warp_reduce(e.read<int>(in, "in"), e.scalar(1));
        CHECK(e.read<int>(mem, "total")[0] == ref.total);
        CHECK(e.read<int>(mem, "positives")[0] == ref.positives);
    } else {
        FAIL("no reference for " << name);
    }
}

const std::vector<std::string> kernels = {"vector_add", "reduce",      "histogram",
                                          "bfs",        "sgemm_naive", "sgemm_tiled",
                                          "scan",       "sfu",         "warp_reduce"};

// Registers per thread that let one block fit an SM of preset P (as if compiled with
// -maxrregcount), or 0 when the kernel's own footprint fits.
template <class P>
std::uint32_t fitting_registers(const std::string& name) {
    const example e(name);
    const auto l = e.launch();
    const std::uint32_t threads = l.warps_per_block() * 32;
    const std::uint32_t limit = P::params().registers / threads;
    return l.regs_per_thread() > limit ? limit : 0;
}

} // namespace

TEST_CASE_TEMPLATE("ptx examples: every kernel in the functional runner matches its reference",
                   Stack, simt::pdom_stack<32>, simt::ssy_stack<32>) {
    for (const auto& name : kernels) {
        CAPTURE(name);
        const example e(name);
        func::global_memory mem = e.initial();
        const auto st = func::run_functional<32, Stack>(e.launch(), mem);
        CHECK(st.blocks == e.launch().blocks());
        CHECK(st.thread_instructions > 0);
        check_against_reference(name, e, mem);
    }
}

TEST_CASE_TEMPLATE("ptx examples: every kernel on a preset matches its reference and the "
                   "functional run",
                   P, gpu::fermi_gtx480, gpu::tesla_seed004, gpu::amoeba_48) {
    for (const auto& name : kernels) {
        CAPTURE(name);
        const example e(name, fitting_registers<P>(name), true);
        func::global_memory reference = e.initial();
        const auto fst = func::run_functional(e.launch(), reference);
        func::global_memory mem = e.initial();
        gpu::gpu<P> g(P::params());
        func::ptx_source_stats src;
        const auto rs =
            g.run(e.launch(), mem, [&](const auto& sm) { accumulate(src, sm.source().stats()); });
        check_against_reference(name, e, mem);
        CHECK(mem == reference);
        // The same instructions execute whatever the order of the warps, except in bfs, where
        // a thread's read of levels[u] races with other threads' stores of the same value:
        // whether it still sees -1 (and stores too) depends on the order.
        if (name != "bfs") {
            CHECK(rs.total.warp_instructions == fst.warp_instructions);
            CHECK(rs.total.thread_instructions == fst.thread_instructions);
            CHECK(src.warp_by_opcode == fst.warp_by_opcode);
            CHECK(src.thread_by_opcode == fst.thread_by_opcode);
        }
        CHECK(src.thread_instructions == rs.total.thread_instructions);
        CHECK(rs.total.blocks_completed == e.launch().blocks());
        CHECK(rs.cycles > 0);
    }
}

TEST_CASE("ptx examples: every kernel's -G build matches its reference, functional and timed") {
    for (const auto& name : kernels) {
        CAPTURE(name);
        const example e(name, 0, false, true);
        func::global_memory mem = e.initial();
        (void)func::run_functional(e.launch(), mem);
        check_against_reference(name, e, mem);
        const example small(name, fitting_registers<gpu::fermi_gtx480>(name), true, true);
        func::global_memory timed = small.initial();
        gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
        (void)g.run(small.launch(), timed);
        check_against_reference(name, small, timed);
    }
}

TEST_CASE("ptx examples: a whole breadth-first search, one launch per level") {
    example e("bfs");
    const auto rows = e.read<int>(e.initial(), "row_offsets");
    const auto cols = e.read<int>(e.initial(), "columns");
    const int nv = e.scalar(3);
    const auto ref = test_ref::bfs(rows, cols, nv);
    func::global_memory mem = e.initial();
    std::vector<int> levels(static_cast<std::size_t>(nv), -1);
    levels[0] = 0;
    std::vector<std::uint8_t> raw(levels.size() * 4);
    std::memcpy(raw.data(), levels.data(), raw.size());
    mem.write_bytes(e.address("levels"), raw);
    int launches = 0;
    for (int level = 0; launches < 100; ++level) {
        mem.store_value(e.address("changed"), 4, 0);
        ptx::param_pack pack(e.kernel());
        pack.add(e.address("row_offsets")).add(e.address("columns")).add(e.address("levels"));
        pack.add(nv).add(level).add(e.address("changed"));
        const ptx::launch l(e.kernel(), e.spec().grid, e.spec().block, pack.bytes());
        (void)func::run_functional(l, mem);
        ++launches;
        if (mem.load_value(e.address("changed"), 4) == 0) break;
    }
    CHECK(launches == ref.launches);
    CHECK(e.read<int>(mem, "levels") == ref.levels);
}

TEST_CASE("ptx examples: every kernel computes the same on the fused AMOEBA GPU with direct "
          "split and warp regrouping") {
    using P = gpu::amoeba_48_fused;
    for (const auto& name : kernels) {
        CAPTURE(name);
        const example e(name, fitting_registers<P>(name), true);
        const auto l = e.launch(64);
        func::global_memory reference = e.initial();
        const auto fst = func::run_functional<64>(l, reference);
        for (auto m : {reconfig::split_mode::direct, reconfig::split_mode::regroup}) {
            CAPTURE(static_cast<int>(m));
            auto params = P::params();
            params.sm.split.mode = m;
            params.sm.split.threshold = 0.0; // any divergent warp splits its SM
            params.sm.split.check_interval = 8;
            func::global_memory mem = e.initial();
            gpu::gpu<P> g(params);
            bool cuts = true;
            const auto rs = g.run(l, mem, [&](const auto& sm) {
                gpu::require(gpu::check_sm(sm), "check_sm");
                cuts = sm.source().can_cut();
            });
            gpu::require(gpu::check_run(rs, {l.blocks(), params.sms}), "check_run");
            // warp_reduce's shuffles assume 32 lanes: at 64 only the functional run compares.
            if (name != "warp_reduce") check_against_reference(name, e, mem);
            CHECK(mem == reference);
            if (name != "bfs") { // bfs races benignly on levels[] (see above)
                CHECK(rs.total.thread_instructions == fst.thread_instructions);
            }
            const auto& sp = rs.total.split;
            CHECK(rs.total.warps_finished == rs.total.warps_started);
            CHECK(rs.total.warps_started ==
                  std::uint64_t{l.blocks()} * l.warps_per_block() + sp.warps_cut);
            CHECK(sp.refuses <= sp.splits);
            // warp_reduce shuffles and votes across its lanes: its warps move whole.
            CHECK(cuts == (name != "warp_reduce"));
            if (!cuts) CHECK(sp.warps_cut == 0);
            // Kernels with data-dependent branches split; one whose branches are uniform never
            // does.
            if (name == "bfs" || name == "reduce" || name == "scan") CHECK(sp.splits > 0);
            if (name == "sgemm_naive") CHECK(sp.splits == 0);
        }
    }
}

namespace {
// A GTX480 whose SIMT stack type is fixed at compile time to SSY sync points.
struct fermi_with_static_ssy : gpu::fermi_gtx480 {
    using stack = simt::ssy_stack<32>;
};
} // namespace

TEST_CASE("ptx examples: the SSY stack chosen by params runs exactly as the static SSY stack, "
          "and both compute every reference") {
    auto params = gpu::fermi_gtx480::params();
    params.simt_stack = simt::stack_kind::ssy;
    for (const auto& name : kernels) {
        CAPTURE(name);
        const example e(name, fitting_registers<gpu::fermi_gtx480>(name), true);
        func::global_memory chosen_mem = e.initial();
        gpu::gpu<gpu::fermi_gtx480> chosen(params);
        const auto a = chosen.run(e.launch(), chosen_mem);
        check_against_reference(name, e, chosen_mem);
        func::global_memory static_mem = e.initial();
        gpu::gpu<fermi_with_static_ssy> fixed(gpu::fermi_gtx480::params());
        const auto b = fixed.run(e.launch(), static_mem);
        CHECK(fixed.params().simt_stack == simt::stack_kind::ssy);
        CHECK(chosen_mem == static_mem);
        CHECK(a.cycles == b.cycles);
        CHECK(stats_to_json(a).dump() == stats_to_json(b).dump());
    }
}
