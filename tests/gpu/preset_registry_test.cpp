#include <doctest/doctest.h>

#include <warpkit/gpu/preset_registry.hpp>

#include <string>
#include <type_traits>

using namespace warpkit;

TEST_CASE("visit_preset: every listed name reaches the preset whose params carry that name") {
    for (const auto name : gpu::preset_names) {
        const std::string got =
            gpu::visit_preset(name, [](auto tag) { return decltype(tag)::params().name; });
        CHECK(got == name);
    }
    // The 32-thread presets share one GPU type (their parts are chosen by params); the fused
    // AMOEBA preset's 64-thread warps are a type of their own.
    for (const char* name : {"fermi_gtx480", "tesla_seed004", "amoeba_48", "volta_qv100",
                             "turing_rtx2060", "ampere_rtx3070"}) {
        CAPTURE(name);
        CHECK(gpu::visit_preset(name, [](auto tag) {
            return std::is_same_v<typename decltype(tag)::type, gpu::selectable_parts32>;
        }));
    }
    CHECK(gpu::visit_preset("amoeba_48_fused", [](auto tag) {
        return std::is_same_v<typename decltype(tag)::type, gpu::amoeba_48_fused>;
    }));
    // The shared type's parts are every 32-thread preset's own.
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::fermi_gtx480>);
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::tesla_seed004>);
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::amoeba_48>);
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::volta_qv100>);
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::turing_rtx2060>);
    static_assert(std::is_base_of_v<gpu::selectable_parts32, gpu::ampere_rtx3070>);
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
