// Fuzz target: the sweep spec of warpkit-sweep (examples/sweep/spec.hpp): parsing, expansion
// into points, statistic paths and derived figures. No process is started.
//
// Laws on every spec that parses: the point count is at most max_points; the first, last and
// some middle points expand, with ids in increasing order and of one width; a point has one
// value per grid axis, taken from that axis; a preset exactly when its workload runs on one, a
// seed exactly when it takes one, from the spec's lists; the index past the last throws
// warpkit::error. Statistic paths on a fixed document and derived figures over arbitrary values
// give a value, a warpkit::error, or NaN, nothing else.
#include "fuzz.hpp"

#include "sweep/spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace warpkit;

void check_point(const sweep::spec& s, const sweep::point& p, std::uint64_t total) {
    WARPKIT_FUZZ_LAW(p.work != nullptr);
    WARPKIT_FUZZ_LAW(p.id == sweep::point_id(p.index, total));
    WARPKIT_FUZZ_LAW(p.preset.empty() != p.work->takes_preset());
    if (!p.preset.empty())
        WARPKIT_FUZZ_LAW(std::find(s.presets.begin(), s.presets.end(), p.preset) !=
                         s.presets.end());
    WARPKIT_FUZZ_LAW(p.seed.has_value() == p.work->takes_seed());
    if (p.seed)
        WARPKIT_FUZZ_LAW(std::find(s.seeds.begin(), s.seeds.end(), *p.seed) != s.seeds.end());
    const auto keys = s.param_keys();
    WARPKIT_FUZZ_LAW(p.params.size() == keys.size());
    std::size_t k = 0;
    for (const auto& g : s.grid)
        for (const auto& a : g.axes) {
            WARPKIT_FUZZ_LAW(p.params[k].first == a.key);
            WARPKIT_FUZZ_LAW(std::find(a.values.begin(), a.values.end(), p.params[k].second) !=
                             a.values.end());
            ++k;
        }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(fuzz::as_text(data, size));
    sweep::spec s;
    if (!fuzz::expect_errors([&] { s = sweep::parse_spec(text, "/nonexistent/fuzz.json"); }))
        return 0;
    const std::uint64_t total = sweep::point_count(s);
    WARPKIT_FUZZ_LAW(total >= 1 && total <= sweep::max_points);
    std::vector<std::uint64_t> picks{0, total - 1, total / 2, total / 3, (total * 2) / 3};
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    std::string last_id;
    for (const auto i : picks) {
        sweep::point p;
        const bool made = fuzz::expect_errors([&] { p = sweep::make_point(s, i); });
        WARPKIT_FUZZ_LAW(made);
        check_point(s, p, total);
        WARPKIT_FUZZ_LAW(last_id.empty() || (last_id < p.id && last_id.size() == p.id.size()));
        last_id = p.id;
    }
    WARPKIT_FUZZ_LAW(!fuzz::expect_errors([&] { (void)sweep::make_point(s, total); }));

    // Statistic paths against a small document like the tools' output.
    const auto doc = sweep::json::parse(
        R"({"stats": {"cycles": 100, "total": {"warp_instructions": 50}, "list": [1, 2.5, "x"]},
            "mixes": [{"techniques": [{"technique": "GATES", "ipc": 1.5, "int": {"s": 0.1}}]}],
            "ipc": 0.5, "flag": true, "empty": null})");
    std::vector<double> values;
    for (const auto& st : s.stats) {
        sweep::json v;
        if (fuzz::expect_errors([&] { v = sweep::extract(doc, st); })) {
            WARPKIT_FUZZ_LAW(v.is_number() || v.is_string() || v.is_boolean());
            values.push_back(v.is_number() ? v.get<double>() : 1.0);
        } else {
            values.push_back(static_cast<double>(values.size()) - 1.5);
        }
    }
    for (const auto& d : s.derived) {
        for (const auto& op : d.code)
            if (op.k == sweep::expr_op::kind::column) WARPKIT_FUZZ_LAW(op.column < values.size());
        const double v = sweep::evaluate(d, values);
        WARPKIT_FUZZ_LAW(std::isfinite(v) || std::isnan(v));
        values.push_back(v);
    }
    return 0;
}
