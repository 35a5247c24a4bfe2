#pragma once
// What warpkit-run prints and records of one timed kernel run, for PTX kernels and for the
// kernels of an Accel-Sim trace alike.

#include <warpkit/core/params.hpp>
#include <warpkit/core/stats.hpp>
#include <warpkit/host/device.hpp>

#include "../common/gpu_runner.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace run_report {

/// The summary lines of run `r` of kernel `name` on `preset` at `core_mhz`.
inline void print(const std::string& name, const std::string& preset, unsigned core_mhz,
                  const warpkit::host::launch_result& r) {
    const auto& t = r.run.total;
    std::printf("%s on %s: %llu cycles (%.2f us at %u MHz)\n", name.c_str(), preset.c_str(),
                static_cast<unsigned long long>(r.cycles()),
                static_cast<double>(r.cycles()) / core_mhz, core_mhz);
    std::printf("  thread instructions %llu, warp instructions %llu, IPC %.2f (thread "
                "instructions per cycle), %.3f warp instructions per cycle\n",
                static_cast<unsigned long long>(r.thread_instructions()),
                static_cast<unsigned long long>(r.warp_instructions()), r.ipc(), r.warp_ipc());
    std::printf("  memory: %llu global accesses (%.2f transactions each), %llu shared, %llu "
                "constant\n",
                static_cast<unsigned long long>(t.global_accesses),
                example::per(t.global_transactions, t.global_accesses),
                static_cast<unsigned long long>(t.shared_accesses),
                static_cast<unsigned long long>(t.const_accesses));
    std::printf("  simulated %.0f warp instructions per second (%.2f s)\n",
                r.warp_instructions_per_second(), r.wall_seconds);
}

/// The run's fields of a JSON record: cycles, instruction counts, IPCs and the stats.
inline void add_fields(nlohmann::json& j, const warpkit::host::launch_result& r) {
    j["cycles"] = r.cycles();
    j["thread_instructions"] = r.thread_instructions();
    j["warp_instructions"] = r.warp_instructions();
    j["ipc_thread"] = r.ipc();
    j["ipc_warp"] = r.warp_ipc();
    j["stats"] = warpkit::stats_to_json(r.run);
}

} // namespace run_report
