#pragma once
// Parameters out and in, the same for every tool that runs a GPU preset: the list of presets,
// a preset's full parameters as JSON (what --dump-params prints, with --config and --set
// applied), and a JSON parameters file read back (--config): a whole dump or any part of it.
// A file's settings become `key=value` strings that go through the same validation as --set
// (which follow them and win), so an unknown key or a bad value is named the same way.

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gpu/preset_registry.hpp>

#include <cstdio>
#include <string>
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

/// The parameters of preset `name` with `settings` (`key=value`, in order) applied, validated.
[[nodiscard]] inline warpkit::gpu::gpu_params
preset_params(const std::string& name, const std::vector<std::string>& settings) {
    return warpkit::gpu::visit_preset(name, [&](auto tag) {
        auto p = decltype(tag)::type::params();
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

} // namespace example
