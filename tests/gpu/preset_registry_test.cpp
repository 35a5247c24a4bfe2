#include <doctest/doctest.h>

#include <warpkit/gpu/preset_registry.hpp>

#include <string>
#include <type_traits>

using namespace warpkit;

TEST_CASE("visit_preset: every listed name reaches the preset whose params carry that name") {
    for (const auto name : gpu::preset_names) {
        const std::string got =
            gpu::visit_preset(name, [](auto tag) { return decltype(tag)::type::params().name; });
        CHECK(got == name);
    }
    const bool tesla = gpu::visit_preset("tesla_seed004", [](auto tag) {
        return std::is_same_v<typename decltype(tag)::type, gpu::tesla_seed004>;
    });
    CHECK(tesla);
}

TEST_CASE("visit_preset: an unknown name is a config error listing the known ones") {
    try {
        (void)gpu::visit_preset("gtx9000", [](auto) { return 0; });
        FAIL("no error");
    } catch (const config_error& e) {
        const std::string msg = e.what();
        CHECK(msg.find("preset") != std::string::npos);
        CHECK(msg.find("gtx9000") != std::string::npos);
        CHECK(msg.find("fermi_gtx480, tesla_seed004, amoeba_48") != std::string::npos);
    }
}
