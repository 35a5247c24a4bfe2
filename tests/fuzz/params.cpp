// Fuzz target: params from JSON (params_from_json) and from `key=value` lines (apply_override
// + validate) on the whole-GPU params and several part params.
//
// Input: byte 0 picks the params type, byte 1 the reader (even: JSON, odd: one `key=value`
// per line); the rest is the text. Laws on every accepted value: validate() accepts it; its
// JSON text reads back to the same value; writing each field's printed value back through
// apply_override leaves it unchanged.
#include "fuzz.hpp"

#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/gpu/presets.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/noc/cluster_link.hpp>
#include <warpkit/noc/mesh_params.hpp>
#include <warpkit/power/dvfs.hpp>
#include <warpkit/power/params.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

using namespace warpkit;

// Every leaf as (path, printed value).
template <class P>
std::vector<std::pair<std::string, std::string>> leaves(const P& p) {
    std::vector<std::pair<std::string, std::string>> out;
    for_each_leaf(p, [&](const std::string& path, const auto& leaf) {
        out.emplace_back(path, detail::leaf_to_text(leaf));
    });
    return out;
}

bool trim_invariant(std::string_view s) {
    const auto blank = [](char c) { return c == ' ' || c == '\t'; };
    return s.empty() || (!blank(s.front()) && !blank(s.back()));
}

template <class P>
void check(const P& start, std::string_view text, bool json_reader) {
    P p = start;
    if (json_reader) {
        // The JSON parser is nlohmann's; the reader under test starts at the parsed value.
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded()) return;
        if (!fuzz::expect_errors([&] { params_from_json(j, p); })) return;
    } else {
        const bool ok = fuzz::expect_errors([&] {
            std::size_t pos = 0;
            while (pos <= text.size()) {
                const auto nl = text.find('\n', pos);
                const auto line =
                    text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
                pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
                if (!line.empty()) apply_override(p, line);
            }
            validate(p);
        });
        if (!ok) return;
    }

    const bool valid = fuzz::expect_errors([&] { validate(p); });
    WARPKIT_FUZZ_LAW(valid);

    // JSON text round trip (what saving a configuration and loading it again does).
    const nlohmann::json j = params_to_json(p);
    const std::string dumped = j.dump();
    const auto parsed = nlohmann::json::parse(dumped, nullptr, false);
    WARPKIT_FUZZ_LAW(!parsed.is_discarded());
    P q = start;
    const bool json_back = fuzz::expect_errors([&] { params_from_json(parsed, q); });
    WARPKIT_FUZZ_LAW(json_back);
    WARPKIT_FUZZ_LAW(params_to_json(q).dump() == dumped);

    // key=value round trip over every printed field, onto the starting value when it has the
    // same fields (a JSON array may have changed a vector's length).
    const auto fields = leaves(p);
    const auto start_fields = leaves(start);
    if (fields.size() != start_fields.size()) return;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].first != start_fields[i].first) return;
        if (!trim_invariant(fields[i].second)) return; // apply_override trims its value
    }
    P r = start;
    const bool text_back = fuzz::expect_errors([&] {
        for (const auto& [path, value] : fields)
            apply_override(r, path + "=" + value);
        validate(r);
    });
    WARPKIT_FUZZ_LAW(text_back);
    WARPKIT_FUZZ_LAW(params_to_json(r).dump() == dumped);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::string_view text = fuzz::as_text(data + 2, size - 2);
    const bool json_reader = data[1] % 2 == 0;
    switch (data[0] % 8) {
    case 0:
        check(gpu::fermi_gtx480::params(), text, json_reader);
        break;
    case 1:
        check(gpu::tesla_seed004::params(), text, json_reader);
        break;
    case 2:
        check(power::model_params{}, text, json_reader);
        break;
    case 3:
        check(power::dvfs_params{}, text, json_reader);
        break;
    case 4:
        check(gating::params{}, text, json_reader);
        break;
    case 5:
        check(noc::mesh_params{}, text, json_reader);
        break;
    case 6:
        check(mem::cache_params{}, text, json_reader);
        break;
    default:
        check(noc::cluster_link_params{}, text, json_reader);
        break;
    }
    return 0;
}
