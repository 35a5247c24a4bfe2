#pragma once
// Reading one workload of a sweep spec: a warpkit-ISA kernel, a PTX entry, a CUDA program or
// a synthetic instruction mix, with its name and its own settings.

#include "spec_types.hpp"
#include "spec_values.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace sweep::detail {

// Workload `i`: exactly one of kernel, ptx, cuda and mix, with the keys that kind allows.
inline workload read_workload(const spec& s, std::size_t i, const json& w,
                              const std::filesystem::path& base) {
    const std::string where = "workloads[" + std::to_string(i) + "]";
    if (!w.is_object())
        throw spec_error(s, where, "a workload is an object (kernel, ptx, cuda or mix)");
    workload out;
    out.where = where;
    const char* kinds[] = {"kernel", "ptx", "cuda", "mix"};
    int n = 0;
    for (const char* k : kinds)
        n += w.contains(k) ? 1 : 0;
    if (n != 1)
        throw spec_error(s, where,
                         "give exactly one of kernel (warpkit-ISA), ptx (with entry and launch), "
                         "cuda (a program) or mix (a synthetic instruction mix)");
    const auto allowed = [&](std::initializer_list<std::string_view> keys) {
        for (const auto& [k, v] : w.items())
            if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
                std::string list;
                for (auto a : keys)
                    list += (list.empty() ? "" : ", ") + std::string(a);
                throw spec_error(s, where + "." + k, "unknown key (here: " + list + ")");
            }
    };
    if (w.contains("kernel")) {
        allowed({"name", "set", "kernel", "power"});
        out.kernel = need_path(s, where + ".kernel", w["kernel"], base);
        if (w.contains("power") && need_bool(s, where + ".power", w["power"]))
            out.tool = tool_kind::power;
        out.name = out.kernel.stem().string();
    } else if (w.contains("ptx")) {
        allowed({"name", "set", "ptx", "entry", "launch"});
        out.ptx = need_path(s, where + ".ptx", w["ptx"], base);
        if (!w.contains("entry")) throw spec_error(s, where, "a ptx workload needs 'entry'");
        if (!w.contains("launch")) throw spec_error(s, where, "a ptx workload needs 'launch'");
        out.entry = need_string(s, where + ".entry", w["entry"]);
        out.launch = need_path(s, where + ".launch", w["launch"], base);
        out.name = out.entry;
    } else if (w.contains("cuda")) {
        allowed({"name", "set", "cuda", "args", "power"});
        out.tool = tool_kind::cuda;
        out.program = need_path(s, where + ".cuda", w["cuda"], base);
        if (w.contains("power")) out.cuda_power = need_bool(s, where + ".power", w["power"]);
        if (w.contains("args")) {
            const json& a = w["args"];
            if (!a.is_array()) throw spec_error(s, where + ".args", "expected a list of strings");
            for (std::size_t k = 0; k < a.size(); ++k) {
                if (!a[k].is_string())
                    throw spec_error(s, where + ".args[" + std::to_string(k) + "]",
                                     "expected a string");
                out.args.push_back(a[k].get<std::string>());
            }
        }
        out.name = out.program.filename().string();
    } else {
        allowed({"name", "set", "mix"});
        out.tool = tool_kind::gates;
        out.mix = need_string(s, where + ".mix", w["mix"]);
        out.name = out.mix;
    }
    if (w.contains("name")) out.name = need_string(s, where + ".name", w["name"]);
    if (w.contains("set")) out.fixed = read_settings(s, where + ".set", w["set"]);
    if (!plain_text(out.name, false) || out.name.find(',') != std::string::npos)
        throw spec_error(s, where + ".name", "a name may not hold ',', ';' or control characters");
    return out;
}

} // namespace sweep::detail
