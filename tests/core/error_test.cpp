#include <warpkit/core/error.hpp>

#include <doctest/doctest.h>

#include <string>

TEST_CASE("errors form one hierarchy and carry their context") {
    const warpkit::parse_error p("kernels/saxpy.s", 12, 7, "unknown opcode 'ADX'");
    CHECK(std::string(p.what()) == "kernels/saxpy.s:12:7: unknown opcode 'ADX'");
    CHECK(p.line() == 12);
    CHECK(p.column() == 7);
    CHECK(p.message() == "unknown opcode 'ADX'");
    const warpkit::error& base = p;
    CHECK(dynamic_cast<const warpkit::parse_error*>(&base) != nullptr);

    const warpkit::config_error c("sets", "0", "[1, 4096]");
    const auto nested = c.with_prefix("sm.l1");
    CHECK(nested.field() == "sm.l1.sets");
    CHECK(std::string(nested.what()) == "invalid parameter 'sm.l1.sets' = 0 (allowed: [1, 4096])");
    CHECK(c.with_prefix("").field() == "sets");

    CHECK_THROWS_AS(WARPKIT_EXPECTS(1 + 1 == 3), warpkit::contract_error);
    try {
        WARPKIT_EXPECTS(false);
    } catch (const warpkit::contract_error& e) {
        CHECK(std::string(e.what()).find("precondition failed: false") != std::string::npos);
    }
}
