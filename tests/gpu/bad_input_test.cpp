// Kernels and GPUs from bad input: zero SMs, warps wider than the preset's or than 64 lanes,
// code that branches out of itself, a barrier some warp never reaches, unknown preset names,
// and the examples' kernel loader on missing and empty files.
#include "../../examples/common/gpu_runner.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/func/isa_functional.hpp>
#include <warpkit/func/isa_kernel.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/isa/assembler.hpp>
#include <warpkit/isa/kernel_image.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <typeinfo>
#include <unistd.h>
#include <vector>

namespace {

using bad_input::temp_dir;
using bad_input::thrown;

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

} // namespace

using namespace warpkit;

TEST_CASE("gpu params: zero and negative SM counts name the field and its range") {
    auto p = gpu::fermi_gtx480::params();
    CHECK(thrown<config_error>([&] { apply_overrides(p, std::vector<std::string>{"sms=0"}); }) ==
          "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    p = gpu::fermi_gtx480::params();
    CHECK(thrown<config_error>([&] { apply_override(p, "sms=-1"); }) ==
          "invalid parameter 'sms' = '-1' (allowed: an integer in [0, 4294967295])");
    CHECK(thrown<config_error>([&] {
              params_from_json(nlohmann::json{{"sms", 0}}, p);
          }) == "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    p = gpu::fermi_gtx480::params();
    p.sms = 0;
    CHECK(thrown<config_error>([&] { gpu::gpu<gpu::fermi_gtx480> g(p); }) ==
          "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    p = gpu::fermi_gtx480::params();
    CHECK(thrown<config_error>([&] {
              apply_overrides(p, std::vector<std::string>{"sm.warp_slots=65"});
          }) == "invalid parameter 'sm.warp_slots' = 65 (allowed: [1, 64])");
}

TEST_CASE("gpu params: one mesh subnet with requests and replies sharing VCs is refused") {
    // With one subnet and shared VCs, replies queue behind requests that wait for them: a
    // heavy kernel (the blocked LU update on amoeba_48) only ended at the watchdog.
    auto p = gpu::amoeba_48::params();
    CHECK(thrown<config_error>([&] {
              apply_overrides(p, std::vector<std::string>{"memory.noc.mesh.subnets=1"});
              gpu::gpu<gpu::amoeba_48> g(p);
          }) == "invalid parameter 'memory.noc.mesh.split_vcs' = false (allowed: true with one "
                "subnet (requests and replies sharing VCs can deadlock))");
    p = gpu::amoeba_48::params();
    apply_overrides(
        p, std::vector<std::string>{"memory.noc.mesh.subnets=1", "memory.noc.mesh.split_vcs=true"});
    CHECK_NOTHROW(gpu::gpu<gpu::amoeba_48> g(p));
}

TEST_CASE("kernels: a warp size other than the preset's is named with the one allowed") {
    const auto prog = isa::assemble(".block 128\nEXIT\n", "k.s");
    func::global_memory mem;
    const func::isa_kernel wide(prog, 128);
    CHECK(thrown<config_error>([&] {
              gpu::gpu<gpu::fermi_gtx480> g(gpu::fermi_gtx480::params());
              (void)g.run(wide, mem);
          }) == "invalid parameter 'kernel.warp_size' = 128 (allowed: 32)");
    CHECK(thrown<config_error>([&] {
              gpu::gpu<gpu::amoeba_48_fused> g(gpu::amoeba_48_fused::params());
              (void)g.run(wide, mem);
          }) == "invalid parameter 'kernel.warp_size' = 128 (allowed: 64)");
    CHECK(thrown<config_error>([&] { (void)func::run_functional<64>(wide, mem); }) ==
          "invalid parameter 'warp_size' = 128 (allowed: 64)");
}

TEST_CASE("kernels: code that branches out of itself is rejected before it runs") {
    // The assembler takes any target the field holds (word lists need not be kernels); the
    // kernel names the instruction and the targets its code allows.
    const auto from_text = isa::assemble(".block 32\nMVI r1, 0\nBEQ r1, 50\nEXIT\n", "k.s");
    CHECK(thrown<config_error>([&] { func::isa_kernel k(from_text); }) ==
          "invalid parameter 'kernel.code[1].target' = 50 (allowed: [0, 3])");
    const auto from_image = isa::read_image(isa::write_image(from_text), "k.hex");
    CHECK(thrown<config_error>([&] { func::isa_kernel k(from_image); }) ==
          "invalid parameter 'kernel.code[1].target' = 50 (allowed: [0, 3])");
    // A branch to just past the end is in the code's range; the warp then has nothing to run.
    const auto to_end = isa::assemble(".block 32\nMVI r1, 0\nBEQ r1, end\nEXIT\nend:\n", "k.s");
    const func::isa_kernel k(to_end);
    func::global_memory mem;
    CHECK(thrown<sim_error>([&] { (void)func::run_functional(k, mem); }) ==
          "kernel fault at pc 3, warp 0, lane 0: pc past the end of the code");
    auto p = gpu::fermi_gtx480::params();
    p.watchdog_cycles = 300;
    gpu::gpu<gpu::fermi_gtx480> g(p);
    const std::string what = thrown<sim_error>([&] { (void)g.run(k, mem); });
    CHECK(what.find("watchdog: no warp instruction issued for 300 cycles") == 0);
    CHECK(contains(what, "\n  sm 0 warp slot 0: block 0, pc 3, buffered 0, pending writes 0; it "
                         "ran past the last instruction: no EXIT on its path"));
}

TEST_CASE("kernels: a barrier that some warps never reach ends in the watchdog, naming them") {
    // Warps 1 and 2 of each block branch past the barrier to the end of the code; warp 0
    // waits at the barrier for them forever.
    const auto prog = isa::assemble(".grid 2\n.block 96\nLDS r1, %warpid\nBNE r1, end\nBAR\n"
                                    "EXIT\nend:\n",
                                    "bar.s");
    const func::isa_kernel k(prog);
    func::global_memory mem;
    auto p = gpu::fermi_gtx480::params();
    p.watchdog_cycles = 500;
    gpu::gpu<gpu::fermi_gtx480> g(p);
    const std::string what = thrown<sim_error>([&] { (void)g.run(k, mem); });
    CHECK(what.find("watchdog: no warp instruction issued for 500 cycles (cycle ") == 0);
    CHECK(contains(what, ", 0 blocks not yet dispatched)"));
    for (const char* sm : {"sm 0", "sm 1"}) {
        CAPTURE(sm);
        const std::string block = std::string(sm) == "sm 0" ? "block 0" : "block 1";
        CHECK(contains(what, "\n  " + std::string(sm) + " warp slot 0: " + block +
                                 ", pc 3, at barrier, buffered 0, pending writes 0"));
        CHECK(contains(what, "\n  " + std::string(sm) + " warp slot 1: " + block +
                                 ", pc 4, buffered 0, pending writes 0"));
        CHECK(contains(what, "\n  " + std::string(sm) + " warp slot 2: " + block + ", pc 4"));
    }
    CHECK(thrown<sim_error>([&] { (void)func::run_functional(k, mem); }) ==
          "kernel fault at pc 4, warp 1, lane 0: pc past the end of the code");
}

TEST_CASE("kernels: a warp that spins instead of reaching the barrier is stopped by max_cycles") {
    // Warp 1 spins forever and never arrives; warp 0 waits at the barrier. Instructions keep
    // issuing, so only max_cycles stops the run; the message shows who waits at the barrier.
    const auto prog = isa::assemble(".block 64\nLDS r1, %warpid\nMVI r2, 0\nBNE r1, spin\nBAR\n"
                                    "EXIT\nspin: BEQ r2, spin\nEXIT\n",
                                    "spin.s");
    const func::isa_kernel k(prog);
    func::global_memory mem;
    auto p = gpu::fermi_gtx480::params();
    p.max_cycles = 20000;
    gpu::gpu<gpu::fermi_gtx480> g(p);
    const std::string what = thrown<sim_error>([&] { (void)g.run(k, mem); });
    CHECK(what.find("max_cycles: kernel still running after 20000 cycles") == 0);
    CHECK(contains(what, "\n  sm 0 warp slot 0: block 0, pc 4, at barrier, buffered 0"));
    CHECK(contains(what, "\n  sm 0 warp slot 1: block 0, pc 5"));
    func::isa_functional_params fp;
    fp.max_warp_instructions = 5000;
    CHECK(thrown<sim_error>([&] { (void)func::run_functional(k, mem, fp); }) ==
          "watchdog: more than 5000 warp instructions (block 0, warp 1 at pc 5)");
}

TEST_CASE("presets by name: an unknown name lists the known presets") {
    const std::string known = "(allowed: fermi_gtx480, tesla_seed004, amoeba_48, amoeba_48_fused, "
                              "volta_qv100, turing_rtx2060, ampere_rtx3070)";
    CHECK(thrown<config_error>([] { gpu::visit_preset("fermi", [](auto) { return 0; }); }) ==
          "invalid parameter 'preset' = fermi " + known);
    CHECK(thrown<config_error>([] { (void)gpu::preset_warp_size("gtx480"); }) ==
          "invalid parameter 'preset' = gtx480 " + known);
    CHECK(thrown<config_error>([] { (void)gpu::preset_warp_size(""); }) ==
          "invalid parameter 'preset' =  " + known);
}

TEST_CASE("examples' kernel loader: missing and empty files, unknown presets, zero SMs") {
    const temp_dir dir("gpu-bad-input");
    const std::string absent = (dir.path / "absent.s").string();
    CHECK(thrown<error>([&] { (void)example::load_program(absent); }) ==
          "cannot read '" + absent + "': No such file or directory");
    CHECK(thrown<error>([&] { (void)example::load_program(dir.path.string()); }) ==
          "cannot read '" + dir.path.string() + "': it is a directory");
    const std::string empty_s = dir.write("empty.s", "").string();
    CHECK(thrown<parse_error>([&] { (void)example::load_program(empty_s); }) ==
          empty_s + ":1:1: no instructions (a kernel needs at least EXIT)");
    const std::string comment_s =
        dir.write("comment.s", ".kernel k\n.block 32\n; no code\n").string();
    CHECK(thrown<parse_error>([&] { (void)example::load_program(comment_s); }) ==
          comment_s + ":4:1: no instructions (a kernel needs at least EXIT)");
    const std::string empty_hex = dir.write("empty.hex", "").string();
    CHECK(thrown<parse_error>([&] { (void)example::load_program(empty_hex); }) ==
          empty_hex + ":1:1: image has no GRID entry");
    const std::string no_code_hex =
        dir.write("nocode.hex", "000100401 100100420 f00000000\n").string();
    CHECK(thrown<parse_error>([&] { (void)example::load_program(no_code_hex); }) ==
          no_code_hex + ":2:1: image has no INSTR entry (a kernel needs at least EXIT)");
    const std::string exit_s = dir.write("exit.s", ".block 32\nEXIT\n").string();
    const func::isa_kernel k(example::load_program(exit_s));
    func::global_memory mem;
    CHECK(thrown<config_error>([&] { (void)example::run_preset("gtx9000", k, mem, {}); }) ==
          "invalid parameter 'preset' = gtx9000 (allowed: fermi_gtx480, tesla_seed004, "
          "amoeba_48, amoeba_48_fused, volta_qv100, turing_rtx2060, ampere_rtx3070)");
    CHECK(thrown<config_error>([&] {
              (void)example::run_preset("tesla_seed004", k, mem, {"sms=0"});
          }) == "invalid parameter 'sms' = 0 (allowed: [1, 4096])");
    CHECK(example::run_preset("tesla_seed004", k, mem, {"sms=2"}).params.sms == 2);
}
