// Fuzz target: the GPGPU-Sim config reader (host::gpgpusim_options and
// host::translate_gpgpusim_config).
//
// Laws on every text that reads: each option's name and value survive being written back as
// `-name "value"` lines and read again; every setting is `key=value` with a key of gpu_params
// (applying it may refuse the value, never the key); every warning and row points inside the
// text; the report holds every warning line.
#include "fuzz.hpp"

#include <warpkit/core/params.hpp>
#include <warpkit/gpu/gpu.hpp>
#include <warpkit/host/gpgpusim_config.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace warpkit;

/// Lines of `text`, counting a last line without its line end.
std::size_t lines_of(std::string_view text) {
    std::size_t n = 1;
    for (const char c : text)
        n += c == '\n' ? 1 : 0;
    return n;
}

void check_round_trip(const std::vector<host::gpgpusim_option>& options) {
    std::string written;
    for (const auto& o : options) {
        if (o.value.find('"') != std::string::npos) return; // a quote cannot be written back
        written += "-" + o.name + " \"" + o.value + "\"\n";
    }
    std::vector<host::gpgpusim_option> again;
    WARPKIT_FUZZ_LAW(fuzz::expect_errors([&] { again = host::gpgpusim_options(written, "f"); }));
    WARPKIT_FUZZ_LAW(again.size() == options.size());
    for (std::size_t i = 0; i < options.size(); ++i)
        WARPKIT_FUZZ_LAW(again[i].name == options[i].name && again[i].value == options[i].value);
}

void check_settings(const std::vector<std::string>& settings) {
    for (const auto& s : settings) {
        WARPKIT_FUZZ_LAW(s.find('=') != std::string::npos);
        gpu::gpu_params p;
        try {
            apply_override(p, s);
        } catch (const config_error& e) {
            WARPKIT_FUZZ_LAW(std::string_view(e.what()).find("no such field") ==
                             std::string_view::npos);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    std::vector<host::gpgpusim_option> options;
    if (!fuzz::expect_errors([&] { options = host::gpgpusim_options(text, "f"); })) return 0;
    check_round_trip(options);
    host::gpgpusim_translation t;
    if (!fuzz::expect_errors([&] { t = host::translate_gpgpusim_config(text, "f"); })) return 0;
    check_settings(t.settings());
    const std::size_t lines = lines_of(text);
    const std::string report = t.report();
    for (const auto& w : t.warnings) {
        WARPKIT_FUZZ_LAW(w.line >= 1 && w.line <= lines && w.column >= 1);
        WARPKIT_FUZZ_LAW(report.find(w.text() + "\n") != std::string::npos);
    }
    for (const auto& r : t.rows)
        WARPKIT_FUZZ_LAW(r.line >= 1 && r.line <= lines);
    return 0;
}
