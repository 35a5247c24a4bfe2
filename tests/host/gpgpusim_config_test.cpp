#include "../bad_input.hpp"

#include <warpkit/core/params.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/host/gpgpusim_config.hpp>

#include "../source_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace warpkit::host;

namespace {

std::string data_file() {
    return test_files::source_path("tests/tools/data/gtx480_like.config");
}

bool has(const std::vector<std::string>& settings, const std::string& setting) {
    return std::find(settings.begin(), settings.end(), setting) != settings.end();
}

/// The message of the parse_error that translating `text` (as "g.config") throws.
std::string refusal(const std::string& text, const gpgpusim_target& target = {}) {
    return bad_input::thrown<warpkit::parse_error>(
        [&] { (void)translate_gpgpusim_config(text, "g.config", target); });
}

/// The warnings of translating `text` (as "g.config"), one `file:line:column: warning:` each.
std::vector<std::string> warnings_of(const std::string& text, const gpgpusim_target& target = {}) {
    std::vector<std::string> out;
    for (const auto& w : translate_gpgpusim_config(text, "g.config", target).warnings)
        out.push_back(w.text());
    return out;
}

} // namespace

TEST_CASE("gpgpusim config: the options, quoted values over lines and comments") {
    const auto options = gpgpusim_options("# machine\n-a 1  # trailing\n  -b \"x:y #z\n   w\"\n"
                                          "-c -1\n",
                                          "g.config");
    REQUIRE(options.size() == 3);
    CHECK(options[0].name == "a");
    CHECK(options[0].value == "1");
    CHECK(options[0].line == 2);
    CHECK(options[0].column == 1);
    CHECK(options[1].name == "b");
    CHECK(options[1].value == "x:y #z\n   w");
    CHECK(options[1].line == 3);
    CHECK(options[1].column == 3);
    CHECK(options[1].value_column == 7);
    // Offsets past the line end land on the next line.
    CHECK(options[1].where(0) == std::pair<std::size_t, std::size_t>{3, 7});
    CHECK(options[1].where(10) == std::pair<std::size_t, std::size_t>{4, 4});
    CHECK(options[2].value == "-1");
    CHECK(gpgpusim_options("", "g.config").empty());
    CHECK(gpgpusim_options("# only a comment", "g.config").empty());
}

TEST_CASE("gpgpusim config: the GTX480-like file maps onto fermi_gtx480's keys") {
    const auto t = read_gpgpusim_config(data_file());
    const auto s = t.settings();
    for (const char* setting : {"sms=16",
                                "core_mhz=700",
                                "memory.clocks.dram_mhz=924",
                                "registers=32768",
                                "sm.warp_slots=48",
                                "sm.block_slots=8",
                                "schedulers=2",
                                "sm.issue_width=2",
                                "shared_bytes=49152",
                                "sm.banks.banks=32",
                                "memory.l1.data.cache.sets=32",
                                "memory.l1.data.cache.ways=4",
                                "memory.l1.data.cache.write=write_evict",
                                "memory.l1.data.mshr.entries=64",
                                "memory.l1.data.miss_queue=8",
                                "memory.l1.constant.cache.sets=32",
                                "memory.l1.constant.cache.line_bytes=128",
                                "memory.l1.constant.cache.allocate=on_fill",
                                "memory.l1.texture.cache.ways=24",
                                "memory.l1.texture.mshr.max_merged=4",
                                "memory.partition.l2.cache.sets=64",
                                "memory.partition.l2.cache.write=write_back",
                                "memory.partition.l2.cache.write_allocate=true",
                                "memory.partition.slices=2",
                                "memory.partition.dram.map.channels=6",
                                "memory.partition.dram.map.banks=16",
                                "memory.partition.dram.timing.tRAS=28",
                                "memory.partition.dram.timing.tWTR=5",
                                "memory.partition.dram.timing.tWR=12",
                                "memory.partition.scheduler=fr_fcfs",
                                "memory.noc.model=crossbar",
                                "memory.noc.crossbar.flit_bits=320"}) {
        CAPTURE(setting);
        CHECK(has(s, setting));
    }
    CHECK(t.rows.size() == 26);

    // Applied through the --set path, the file changes fermi_gtx480 in its three keys only.
    auto mapped = warpkit::gpu::fermi_gtx480::params();
    warpkit::apply_overrides(mapped, s);
    auto expected = warpkit::gpu::fermi_gtx480::params();
    expected.sms = 16;
    expected.memory.noc.crossbar.flit_bits = 320;
    expected.memory.l1.constant.cache.allocate = warpkit::mem::allocate_policy::on_fill;
    expected.memory.partition.l2.cache.sector_bytes = 32; // dl2 S:64:128:8
    CHECK(warpkit::params_to_text(mapped) == warpkit::params_to_text(expected));

    const std::string f = data_file();
    const std::vector<std::string> warned{
        f + ":8:1: warning: -gpgpu_n_cores_per_cluster: the cores of a cluster share one "
            "network port in GPGPU-Sim; each warpkit SM has its own",
        f + ":19:1: warning: -gpgpu_simd_model: no warpkit equivalent; ignored",
        f + ":24:31: warning: -gpgpu_cache:dl1: local data written back (L) has no equivalent: "
            "global and local data are write_evict",
        f + ":24:37: warning: -gpgpu_cache:dl1: hashed set index (H) has no equivalent: warpkit "
            "indexes sets linearly",
        f + ":25:28: warning: -gpgpu_const_cache:l1: 64-byte lines are narrower than warpkit's "
            "128-byte accesses: read as 32 sets of 128 bytes, same bytes and ways",
        f + ":26:42: warning: -gpgpu_tex_cache:l1: the texture FIFO's in-order fills have no "
            "equivalent: read as merging MSHRs",
        f + ":26:54: warning: -gpgpu_tex_cache:l1: a fill FIFO has no equivalent",
        f + ":27:50: warning: -gpgpu_cache:dl2: a data port of 32 bytes has no equivalent",
        f + ":28:1: warning: -gpgpu_cache:il1: warpkit has no instruction cache (fetch takes "
            "sm.fetch_latency); ignored",
        f + ":43:1: warning: -inter_config_file: the network's topology file is not read "
            "(-network_mode picks the crossbar); ignored",
        f + ":47:1: warning: -gpgpu_runtime_stat: no warpkit equivalent; ignored"};
    std::vector<std::string> got;
    for (const auto& w : t.warnings)
        got.push_back(w.text());
    CHECK(got == warned);

    const std::string report = t.report();
    CHECK(report.find(f + ": GPGPU-Sim options mapped onto warpkit parameters\n") == 0);
    CHECK(report.find("-gpgpu_n_clusters") != std::string::npos);
    CHECK(report.find("memory.partition.dram.timing.tCL=12\n") != std::string::npos);
    CHECK(report.find(warned.back() + "\n") != std::string::npos);
    CHECK(report.ends_with("26 options mapped, 11 warnings\n"));
}

TEST_CASE("gpgpusim config: what has no equivalent is warned, never dropped") {
    // The scheduling policy is a parameter of every preset (scheduler.kind).
    for (const char* policy : {"lrr", "gto"}) {
        const auto t =
            translate_gpgpusim_config("-gpgpu_scheduler " + std::string(policy) + "\n", "g.config");
        CHECK(t.warnings.empty());
        CHECK(t.settings() == std::vector<std::string>{"scheduler.kind=" + std::string(policy)});
    }
    {
        const auto t =
            translate_gpgpusim_config("-gpgpu_scheduler two_level_active:6:0:1\n", "g.config");
        CHECK(t.warnings.empty());
        CHECK(t.settings() == std::vector<std::string>{"scheduler.kind=two_level",
                                                       "scheduler.two_level.active_warps=6"});
    }
    CHECK(warnings_of("-gpgpu_scheduler two_level_active:6:2:1\n") ==
          std::vector<std::string>{
              "g.config:1:37: warning: -gpgpu_scheduler: warpkit's two-level scheduler orders "
              "its active warps by loose round robin (inner prioritization 0) only"});
    CHECK(warnings_of("-gpgpu_scheduler warp_limiting:2:gto\n") ==
          std::vector<std::string>{
              "g.config:1:18: warning: -gpgpu_scheduler: 'warp_limiting:2:gto' has no warpkit "
              "equivalent (scheduler.kind stays the preset's; warpkit has lrr, rr, gto, "
              "two_level and gates)"});
    CHECK(warnings_of("-gpgpu_n_cores_per_cluster 1\n") ==
          std::vector<std::string>{"g.config:1:1: warning: -gpgpu_n_cores_per_cluster without "
                                   "-gpgpu_n_clusters: sms stays the preset's"});
    CHECK(warnings_of("-gpgpu_dram_return_queue_size 0\n").size() == 1);
    CHECK(warnings_of("-gpgpu_clock_domains 700.5:700:700:924\n") ==
          std::vector<std::string>{"g.config:1:22: warning: -gpgpu_clock_domains: rounded to "
                                   "701 MHz (warpkit's clocks are whole MHz)"});
    // Bank groups, tCCDL and the read-to-precharge delay map onto the channel's keys.
    {
        const auto groups =
            translate_gpgpusim_config("-gpgpu_dram_timing_opt \"nbk=16:nbkgrp=4:CCDL=3:RTPL=2\"\n"
                                      "-gpgpu_dram_buswidth 4\n-gpgpu_n_mem_per_ctrlr 2\n",
                                      "g.config");
        CHECK(groups.warnings.empty());
        const auto s = groups.settings();
        for (const char* setting :
             {"memory.partition.dram.map.bank_groups=4", "memory.partition.dram.timing.tCCDL=3",
              "memory.partition.dram.timing.tRTP=2", "memory.partition.dram.device_bytes=4",
              "memory.partition.dram.devices=2"}) {
            CAPTURE(setting);
            CHECK(has(s, setting));
        }
    }
    // The sub-core model: one sub-core per scheduler, the schedulers given before or after.
    {
        const auto v = translate_gpgpusim_config(
            "-gpgpu_sub_core_model 1\n-gpgpu_num_sched_per_core 4\n", "g.config");
        CHECK(v.warnings.empty());
        const auto s = v.settings();
        CHECK(has(s, "sm.units.sub_cores=4"));
        CHECK(has(s, "schedulers=4"));
        auto g = warpkit::gpu::fermi_gtx480::params();
        g.sm.units.sp_count = 4;
        CHECK_NOTHROW(warpkit::apply_overrides(g, s));
        CHECK(g.sm.units.sub_cores == 4);
    }
    CHECK(warnings_of("-gpgpu_sub_core_model 1\n") ==
          std::vector<std::string>{"g.config:1:23: warning: -gpgpu_sub_core_model: the sub-core "
                                   "model without -gpgpu_num_sched_per_core: sm.units.sub_cores "
                                   "stays the preset's"});
    // PTX and trace-mode opcode timing onto sm.units.timing (the QV100 configurations'
    // figures); MAX and SHFL have no class.
    {
        const auto v = translate_gpgpusim_config(
            "-ptx_opcode_latency_int 4,13,4,5,145,21\n-ptx_opcode_initiation_int 2,2,2,2,8,4\n"
            "-ptx_opcode_latency_dp 8,19,8,8,330\n-ptx_opcode_latency_sfu 100\n"
            "-trace_opcode_latency_initiation_sp 4,2\n",
            "g.config");
        CHECK(v.warnings.empty());
        const auto s = v.settings();
        for (const char* setting :
             {"sm.units.timing.int_add.latency=4", "sm.units.timing.int_mul.latency=4",
              "sm.units.timing.int_mad.latency=5", "sm.units.timing.int_div.latency=145",
              "sm.units.timing.int_div.initiation_interval=8",
              "sm.units.timing.int_add.initiation_interval=2",
              "sm.units.timing.dp_fma.latency=8", "sm.units.timing.dp_div.latency=330",
              "sm.units.timing.sfu.latency=100", "sm.units.timing.fp_mad.latency=4",
              "sm.units.timing.fp_add.initiation_interval=2"}) {
            CAPTURE(setting);
            CHECK(has(s, setting));
        }
        CHECK(s.size() == 4 + 4 + 4 + 1 + 6); // ADD, MUL, MAD, DIV of three lists; SFU; sp x 2
        auto g = warpkit::gpu::fermi_gtx480::params();
        CHECK_NOTHROW(warpkit::apply_overrides(g, s));
        CHECK(g.sm.units.timing.int_div.latency == 145);
        CHECK(g.sm.units.timing.fp_mul.initiation_interval == 2);
    }
    // DP and tensor units (the QV100 configuration's four of each: one per sub-core) and
    // their timing; the tensor latency option keeps GPGPU-Sim's spelling.
    {
        const auto v = translate_gpgpusim_config(
            "-gpgpu_num_dp_units 4\n-gpgpu_tensor_core_avail 1\n"
            "-gpgpu_num_tensor_core_units 4\n-ptx_opcode_latency_tesnor 64\n"
            "-ptx_opcode_initiation_tensor 32\n-trace_opcode_latency_initiation_dp 8,4\n",
            "g.config");
        CHECK(v.warnings.empty());
        const auto s = v.settings();
        for (const char* setting :
             {"sm.units.dp_lanes=16", "sm.units.tensor_lanes=32",
              "sm.units.timing.tensor.latency=64", "sm.units.timing.tensor.initiation_interval=32",
              "sm.units.timing.dp_fma.latency=8", "sm.units.timing.dp_add.initiation_interval=4"}) {
            CAPTURE(setting);
            CHECK(has(s, setting));
        }
        auto g = warpkit::gpu::fermi_gtx480::params();
        CHECK_NOTHROW(warpkit::apply_overrides(g, s));
        CHECK(g.sm.units.tensor_lanes == 32);
        CHECK(g.sm.units.timing.tensor.initiation_interval == 32);
    }
    // Without units (or with -gpgpu_tensor_core_avail 0) the FP clusters run their opcodes.
    CHECK(translate_gpgpusim_config("-gpgpu_num_dp_units 0\n", "g.config").settings() ==
          std::vector<std::string>{"sm.units.dp_lanes=0"});
    CHECK(translate_gpgpusim_config("-gpgpu_tensor_core_avail 0\n-gpgpu_num_tensor_core_units 4\n",
                                    "g.config")
              .settings() ==
          std::vector<std::string>{"sm.units.tensor_lanes=0", "sm.units.tensor_lanes=0"});
    CHECK(translate_gpgpusim_config("-trace_opcode_latency_initiation_tensor 2,2\n", "g.config")
              .settings() ==
          std::vector<std::string>{"sm.units.timing.tensor.latency=2",
                                   "sm.units.timing.tensor.initiation_interval=2"});
    CHECK(warnings_of("-trace_opcode_latency_initiation_spec_op_3 2,2\n").size() == 1);
    // HBM's dual command bus and the L1's banks (Volta's 4: four sectors a cycle).
    {
        const auto v = translate_gpgpusim_config(
            "-dram_dual_bus_interface 1\n-gpgpu_l1_banks 4\n", "g.config");
        CHECK(v.warnings.empty());
        CHECK(v.settings() ==
              std::vector<std::string>{"memory.partition.dram.dual_command_bus=1",
                                       "memory.l1.transactions_per_cycle=4"});
        auto g = warpkit::gpu::fermi_gtx480::params();
        CHECK_NOTHROW(warpkit::apply_overrides(g, v.settings()));
        CHECK(g.memory.partition.dram.dual_command_bus);
        CHECK(g.memory.l1.transactions_per_cycle == 4);
    }
    CHECK(warnings_of("-gpgpu_cache:dl1 none\n").size() == 1);
    // A sectored L1 data cache (Volta's S:4:128:64) is sectored here too, behind the sector
    // coalescer; a sectored constant cache, or sectors of a 64-byte line, move whole lines.
    {
        const auto v = translate_gpgpusim_config(
            "-gpgpu_cache:dl1 S:4:128:64,L:L:m:N:L,A:512:8,16:0,32\n", "g.config");
        const auto s = v.settings();
        CHECK(has(s, "memory.l1.data.cache.sector_bytes=32"));
        CHECK(has(s, "sm.coalescer=sector"));
        auto g = warpkit::gpu::fermi_gtx480::params();
        CHECK_NOTHROW(warpkit::apply_overrides(g, s));
        CHECK(g.memory.l1.data.cache.sector_bytes == 32);
        CHECK(g.sm.coalescer == warpkit::mem::coalescer_kind::sector);
    }
    CHECK(warnings_of("-gpgpu_const_cache:l1 S:64:128:2,L:R:f:N:L,A:2:64,4\n") ==
          std::vector<std::string>{"g.config:1:23: warning: -gpgpu_const_cache:l1: sectored "
                                   "lines have no equivalent: memory.l1.constant moves whole "
                                   "lines"});
    CHECK(warnings_of("-gpgpu_cache:dl2 S:64:256:8,L:B:m:W:L,A:1024:1024,4:0\n") ==
          std::vector<std::string>{"g.config:1:18: warning: -gpgpu_cache:dl2: sectors of a "
                                   "256-byte line have no equivalent (GPGPU-Sim's are four of 32 "
                                   "bytes in 128): memory.partition.l2 moves whole lines"});
    CHECK(warnings_of("-gpgpu_operand_collector_num_units_sp 6\n") ==
          std::vector<std::string>{"g.config:1:1: warning: -gpgpu_operand_collector_num_units_sp: "
                                   "warpkit's SM has no operand collector; ignored"});
    // Clusters of several cores: the SM count is their product, in either order.
    const auto t = translate_gpgpusim_config("-gpgpu_n_cores_per_cluster 3\n"
                                             "-gpgpu_n_clusters 10\n",
                                             "g.config");
    CHECK(t.settings() == std::vector<std::string>{"sms=30"});
}

TEST_CASE("gpgpusim config: malformed values are parse errors with file, line and column") {
    struct refused {
        const char* text;
        const char* message;
    };
    const refused cases[] = {
        {"-a 1\nname 2\n", "g.config:2:1: expected an option name (-name), got 'name'"},
        {"-a 1\n-b", "g.config:2:1: -b has no value"},
        {"-a\n-b 2\n", "g.config:1:1: -a has no value"},
        {"-a \"open\n", "g.config:1:4: a quote that is never closed"},
        {"-gpgpu_n_mem six\n",
         "g.config:1:14: -gpgpu_n_mem: expected a whole number for the value, got 'six'"},
        {"-gpgpu_n_mem 99999999999\n",
         "g.config:1:14: -gpgpu_n_mem: the value '99999999999' is too large"},
        {"-ptx_opcode_latency_fp 4,4\n",
         "g.config:1:24: -ptx_opcode_latency_fp: expected ADD,MAX,MUL,MAD,DIV, got '4,4'"},
        {"-trace_opcode_latency_initiation_int 4,x\n",
         "g.config:1:40: -trace_opcode_latency_initiation_int: expected a whole number for the "
         "initiation interval, got 'x'"},
        {"-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,A:64:8\n",
         "g.config:1:18: -gpgpu_cache:dl1: expected [N|S:]<sets>:<line>:<ways>,<policies>,"
         "<MSHR>,<miss queue>[,<port>], got 'N:32:128:4,L:L:m:N:H,A:64:8'"},
        {"-gpgpu_cache:dl1 X:32:128:4,L:L:m:N:H,A:64:8,8\n",
         "g.config:1:18: -gpgpu_cache:dl1: expected one of N, S for the cache kind, got 'X'"},
        {"-gpgpu_cache:dl1 N:32:12x:4,L:L:m:N:H,A:64:8,8\n",
         "g.config:1:23: -gpgpu_cache:dl1: expected a whole number for the line bytes, got "
         "'12x'"},
        {"-gpgpu_cache:dl1 N:32:128:4,L:Z:m:N:H,A:64:8,8\n",
         "g.config:1:31: -gpgpu_cache:dl1: expected one of R, B, T, E, L for the write policy, "
         "got 'Z'"},
        {"-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,Q:64:8,8\n",
         "g.config:1:39: -gpgpu_cache:dl1: expected one of A, F, T, S for the MSHR kind, got "
         "'Q'"},
        // A timing string over two lines: the column is on the second.
        {"-gpgpu_dram_timing_opt \"nbk=16:CCD=2:\n   CL=x:WL=4\"\n",
         "g.config:2:7: -gpgpu_dram_timing_opt: expected a whole number for CL, got 'x'"},
        {"-gpgpu_dram_timing_opt nbk=16:tFAW=4\n",
         "g.config:1:31: -gpgpu_dram_timing_opt: unknown DRAM timing 'tFAW' (known: nbk, CCD, "
         "RRD, RCD, RAS, RP, RC, CL, WL, CDLR, WR, nbkgrp, CCDL, RTPL)"},
        {"-gpgpu_dram_timing_opt nbk16\n",
         "g.config:1:24: -gpgpu_dram_timing_opt: expected <name>=<cycles>, got 'nbk16'"},
        {"-gpgpu_clock_domains 700:700:fast:924\n",
         "g.config:1:30: -gpgpu_clock_domains: expected a clock in MHz, got 'fast'"},
        {"-gpgpu_clock_domains 700:700\n",
         "g.config:1:22: -gpgpu_clock_domains: expected <core>:<interconnect>:<L2>:<DRAM> in "
         "MHz, got '700:700'"},
        {"-gpgpu_shader_core_pipeline 2048:64\n",
         "g.config:1:34: -gpgpu_shader_core_pipeline: warp size 64 is not the preset's 32 (the "
         "preset fixes the warp width)"},
        {"-gpgpu_shader_core_pipeline 1000:32\n",
         "g.config:1:29: -gpgpu_shader_core_pipeline: 1000 threads per SM are not whole warps"},
        {"-network_mode 3\n",
         "g.config:1:15: -network_mode: expected 1 (BookSim) or 2 (local crossbar)"},
        {"-gpgpu_dram_scheduler 2\n",
         "g.config:1:23: -gpgpu_dram_scheduler: expected 0 (FIFO) or 1 (FR-FCFS)"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        CHECK(refusal(c.text) == c.message);
    }
}

TEST_CASE("gpgpusim config: a later option wins and out-of-range values meet --set's checks") {
    const auto t =
        translate_gpgpusim_config("-gpgpu_n_clusters 4\n-gpgpu_n_clusters 6\n", "g.config");
    auto p = warpkit::gpu::fermi_gtx480::params();
    warpkit::apply_overrides(p, t.settings());
    CHECK(p.sms == 6);
    // A value the model cannot take is refused by the validation --set uses, naming the key.
    auto q = warpkit::gpu::fermi_gtx480::params();
    const auto too_many =
        translate_gpgpusim_config("-gpgpu_shader_core_pipeline 4096:32\n", "g.config");
    const std::string message = bad_input::thrown<warpkit::config_error>(
        [&] { warpkit::apply_overrides(q, too_many.settings()); });
    CHECK(message.find("warp_slots") != std::string::npos);
}
