#pragma once
// Parameters out and in, the same for every tool that runs a GPU preset: the list of presets,
// a preset's full parameters as JSON (what --dump-params prints, with --config,
// --gpgpusim-config and --set applied), a JSON parameters file read back (--config): a whole
// dump or any part of it, and a GPGPU-Sim config file mapped onto the parameters
// (--gpgpusim-config, warpkit/host/gpgpusim_config.hpp). A file's settings become `key=value`
// strings that go through the same validation as --set (which follow them and win), so an
// unknown key or a bad value is named the same way.

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gpu/preset_registry.hpp>
#include <warpkit/host/gpgpusim_config.hpp>
#include <warpkit/host/memory_cap.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace example {

/// `key=value` for every scalar of a params JSON value: nested objects give dotted keys
/// ("memory.l2_latency"), arrays give indexed ones ("sm.latency[2]").
inline void flatten_params(const nlohmann::json& j, const std::string& prefix,
                           std::vector<std::string>& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            flatten_params(v, prefix.empty() ? k : prefix + "." + k, out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            flatten_params(j[i], prefix + "[" + std::to_string(i) + "]", out);
    } else {
        out.push_back(prefix + "=" + (j.is_string() ? j.get<std::string>() : j.dump()));
    }
}

/// The settings of the JSON parameters file at `path`, as `key=value` strings. Throws
/// warpkit::error naming the file when it cannot be read, is not JSON (with the byte where
/// reading stopped) or does not hold an object.
[[nodiscard]] inline std::vector<std::string> config_file_settings(const std::string& path) {
    const std::string text = warpkit::read_file(path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw warpkit::error("cannot parse '" + path + "': " + e.what());
    }
    if (!j.is_object())
        throw warpkit::error("'" + path + "' does not hold a JSON object of parameters");
    std::vector<std::string> out;
    flatten_params(j, "", out);
    return out;
}

/// The settings of the JSON parameters file at `path` (none when `path` is empty) followed by
/// `overrides`: what --config then --set mean to a tool without the other preset options.
[[nodiscard]] inline std::vector<std::string>
config_then_overrides(const std::string& path, const std::vector<std::string>& overrides) {
    std::vector<std::string> out;
    if (!path.empty()) out = config_file_settings(path);
    out.insert(out.end(), overrides.begin(), overrides.end());
    return out;
}

/// What a GPGPU-Sim config is checked against on preset `name`: its warp width.
[[nodiscard]] inline warpkit::host::gpgpusim_target gpgpusim_target_of(const std::string& name) {
    return warpkit::host::gpgpusim_target{warpkit::gpu::preset_warp_size(name)};
}

/// The settings of the GPGPU-Sim config file at `path` mapped for preset `name`, in file
/// order; the mapping report and its warnings go to `report`.
[[nodiscard]] inline std::vector<std::string>
gpgpusim_settings(const std::string& path, const std::string& name, std::ostream& report) {
    const auto mapped = warpkit::host::read_gpgpusim_config(path, gpgpusim_target_of(name));
    report << mapped.report();
    return mapped.settings();
}

/// The parameters of preset `name` with `settings` (`key=value`, in order) applied, validated.
[[nodiscard]] inline warpkit::gpu::gpu_params
preset_params(const std::string& name, const std::vector<std::string>& settings) {
    return warpkit::gpu::visit_preset(name, [&](auto tag) {
        auto p = decltype(tag)::params();
        warpkit::apply_overrides(p, settings);
        return p;
    });
}

/// One line per preset: its name, SMs, clock, warp slots, warp width and memory model.
[[nodiscard]] inline std::string preset_list() {
    std::string out;
    for (const auto name : warpkit::gpu::preset_names) {
        const auto p = preset_params(std::string(name), {});
        const auto j = warpkit::params_to_json(p);
        char line[256];
        std::snprintf(line, sizeof line,
                      "%-16s %3u SMs at %4u MHz, %2u warps of %2u threads per SM, %s memory\n",
                      std::string(name).c_str(), p.sms, p.core_mhz, p.sm.warp_slots,
                      warpkit::gpu::preset_warp_size(name),
                      j["memory"]["model"].get<std::string>().c_str());
        out += line;
    }
    return out;
}

/// The parameter options every preset-running tool takes: --preset, --config,
/// --gpgpusim-config, --set, --max-device-mb, --list-presets and --dump-params.
struct preset_options {
    std::string preset = "fermi_gtx480";
    std::string config_file;
    std::string gpgpusim_file;          ///< --gpgpusim-config
    std::vector<std::string> overrides; ///< --set, in order
    std::uint64_t max_device_mb = 0;    ///< --max-device-mb (0: half the machine's memory)
    std::uint32_t threads = 0;          ///< --threads (0: the preset's, one)
    bool list_presets = false;
    bool dump_params = false;
    /// Where the mapping report and warnings of --gpgpusim-config go (stdout carries the
    /// tools' results and --dump-params' JSON).
    std::ostream* report = &std::cerr;

    /// Adds the options to `app` (`with_preset`: false for a tool that takes its presets
    /// otherwise, for example as a repeatable option of its own).
    void add_to(CLI::App& app, bool with_preset = true) {
        if (with_preset)
            app.add_option("--preset", preset, "the GPU preset (--list-presets lists them)")
                ->capture_default_str();
        app.add_option("--config", config_file,
                       "the preset's parameters from a JSON file (as --dump-params or --json "
                       "write them; a part of one is fine; --gpgpusim-config and --set "
                       "win over it)");
        app.add_option("--gpgpusim-config", gpgpusim_file,
                       "the preset's parameters from a GPGPU-Sim gpgpusim.config: prints what "
                       "each option became and warns on the options warpkit has no equivalent "
                       "for (applied after the preset and --config, before --set)");
        app.add_option("--set", overrides, "override a preset parameter: key=value (repeatable)");
        app.add_option("--threads", threads,
                       "host threads that tick the SMs within a cycle (as --set threads=N; "
                       "results are the same for any count)")
            ->check(CLI::Range(1, 256));
        app.add_option("--max-device-mb", max_device_mb,
                       "cap on the host memory the simulated device may hold, in MiB: its "
                       "buffers and the pages kernels write (default: half of this machine's "
                       "memory); a launch asking for more fails naming the buffer");
        app.add_flag("--list-presets", list_presets, "list the presets and exit");
        app.add_flag("--dump-params", dump_params,
                     "print the preset's parameters (with --config, --gpgpusim-config and "
                     "--set) as JSON and exit");
    }
    /// The settings to apply, in order: the --config file's, the --gpgpusim-config file's
    /// (its report written to `report`), then --set's.
    [[nodiscard]] std::vector<std::string> settings() const {
        std::vector<std::string> out;
        if (!config_file.empty()) out = config_file_settings(config_file);
        if (!gpgpusim_file.empty()) {
            const auto mapped = gpgpusim_settings(gpgpusim_file, preset, *report);
            out.insert(out.end(), mapped.begin(), mapped.end());
        }
        out.insert(out.end(), overrides.begin(), overrides.end());
        if (threads != 0) out.push_back("threads=" + std::to_string(threads));
        return out;
    }
    /// The device-memory cap in bytes (--max-device-mb, else the default).
    [[nodiscard]] std::uint64_t memory_cap() const {
        return warpkit::host::max_device_bytes_of(max_device_mb);
    }
    /// Caps `memory` (an ISA kernel's, which has no buffers) at memory_cap().
    void limit(warpkit::func::global_memory& memory) const {
        warpkit::host::limit_memory(memory, memory_cap());
    }
    /// Prints what --list-presets or --dump-params ask for; true when the tool is done.
    bool print_requested(std::ostream& out) const {
        if (list_presets) {
            out << preset_list();
            return true;
        }
        if (dump_params) {
            out << warpkit::params_to_json(preset_params(preset, settings())).dump(2) << '\n';
            return true;
        }
        return false;
    }
};

} // namespace example
