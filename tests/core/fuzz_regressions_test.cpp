// Inputs the fuzz targets in tests/fuzz/ found, replayed as tests.
#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace {
struct named_params {
    std::string name = "gpu";
    unsigned core_mhz = 700;
    WARPKIT_FIELDS(named_params, name, core_mhz)
};
} // namespace

TEST_CASE("a key=value string that is not UTF-8 is a config_error (fuzz: params)") {
    // The fuzzer's input: `core_mhz = 600` then `name = ` and the bytes FF EE. It used to be
    // accepted, and writing the params as JSON then threw nlohmann's type_error.
    named_params p;
    warpkit::apply_override(p, "core_mhz = 600");
    try {
        warpkit::apply_override(p, "name = \xff\xee");
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "name");
        CHECK(e.allowed() == "UTF-8 text");
    }
    CHECK(p.name == "gpu");
    for (const std::string_view bad : {"\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80",
                                       "a\x80", "\xf8\x88\x80\x80\x80"})
        CHECK_THROWS_AS(warpkit::apply_override(p, "name=" + std::string(bad)),
                        warpkit::config_error);
    // Well-formed multi-byte text is kept and survives the JSON round trip.
    for (const std::string_view good : {"caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x9a\x80",
                                        "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
        warpkit::apply_override(p, "name=" + std::string(good));
        CHECK(p.name == good);
        named_params q;
        warpkit::params_from_json(nlohmann::json::parse(warpkit::params_to_json(p).dump()), q);
        CHECK(q.name == p.name);
    }
}
