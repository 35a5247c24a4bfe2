// Registers per thread from ptxas (examples/common/ptxas_registers.hpp): the log reader on a
// hand-written ptxas -v log, the target chosen from a PTX's `.target`, and, where the CUDA
// toolkit is installed, a real ptxas run on a small kernel and on a broken one.
#include "../../examples/common/ptxas_registers.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("ptxas log: each entry's registers; device functions and other lines ignored") {
    const std::string log = "ptxas info    : 0 bytes gmem\n"
                            "ptxas info    : Compiling entry function '_Z4scanPii' for 'sm_75'\n"
                            "ptxas info    : Function properties for _Z4scanPii\n"
                            "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                            "ptxas info    : Used 17 registers, used 1 barriers, 2048 bytes smem, "
                            "364 bytes cmem[0]\n"
                            "ptxas info    : Compiling function '_Z6helperi' for 'sm_75'\n"
                            "ptxas info    : Used 9 registers\n"
                            "ptxas info    : Compiling entry function 'sgemm_naive' for 'sm_75'\n"
                            "ptxas info    : Used 49 registers, used 0 barriers, 380 bytes "
                            "cmem[0]\n"
                            "ptxas info    : Compile time = 6.335 ms";
    const auto regs = example::parse_ptxas_log(log);
    CHECK(regs.size() == 2);
    CHECK(regs.at("_Z4scanPii") == 17);
    CHECK(regs.at("sgemm_naive") == 49);
    CHECK(example::parse_ptxas_log("").empty());
    CHECK(example::parse_ptxas_log("ptxas info    : Used 3 registers\n").empty());
}

TEST_CASE("ptxas target: sm_75, or the PTX's own target where newer") {
    CHECK(example::ptxas_target(".version 9.0\n.target sm_75\n") == "sm_75");
    CHECK(example::ptxas_target(".version 7.0\n.target sm_52\n") == "sm_75");
    CHECK(example::ptxas_target(".version 8.0\n.target sm_90a\n") == "sm_90a");
    CHECK(example::ptxas_target(".version 8.0\n.target sm_86, debug\n") == "sm_86");
    CHECK(example::ptxas_target("no target line") == "sm_75");
    CHECK(example::ptxas_target(".target\ncompute_75 sm_80") == "sm_75");
}

TEST_CASE("find_ptxas: off, a missing path, the toolkit's") {
    CHECK(example::find_ptxas("off").empty());
    CHECK(example::find_ptxas("0").empty());
    CHECK(example::find_ptxas("/nonexistent/ptxas").empty());
}

TEST_CASE("ptxas on a kernel, and on PTX it refuses (where the toolkit is installed)") {
    const std::string ptxas = example::find_ptxas("");
    if (ptxas.empty()) return; // nothing to run without the CUDA toolkit
    const std::string ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
                            ".visible .entry add_one(.param .u64 p)\n{\n"
                            "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n"
                            "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                            "  ld.global.u32 %r1, [%rd2];\n  add.s32 %r2, %r1, 1;\n"
                            "  st.global.u32 [%rd2], %r2;\n  ret;\n}\n";
    const auto r = example::ptxas_registers(ptxas, ptx);
    CHECK(r.error.empty());
    CHECK(r.target == "sm_75");
    REQUIRE(r.registers.count("add_one") == 1);
    CHECK(r.registers.at("add_one") >= 2);
    CHECK(r.registers.at("add_one") <= 16);
    const auto bad = example::ptxas_registers(ptxas, ".version 7.0\n.target sm_75\nnonsense\n");
    CHECK(bad.registers.empty());
    CHECK(bad.error.find("failed") != std::string::npos);
}
