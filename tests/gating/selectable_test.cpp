// The gating policies by name (params::policy), the static policy of each kind and back, and
// read-only access to controllers whose policy type is chosen at run time.
#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/gating/controller.hpp>
#include <warpkit/gating/controller_ref.hpp>
#include <warpkit/gating/params.hpp>
#include <warpkit/gating/policy_kind.hpp>
#include <warpkit/gating/selectable.hpp>

#include <doctest/doctest.h>

#include "../bad_input.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using namespace warpkit;

TEST_CASE("gating params: the policy by name; an unknown name lists the known ones") {
    gating::params p;
    CHECK(p.policy == gating::policy_kind::no_gating);
    apply_override(p, "policy=adaptive_coordinated_blackout");
    CHECK(p.policy == gating::policy_kind::adaptive_coordinated_blackout);
    CHECK(params_to_json(p)["policy"] == "adaptive_coordinated_blackout");
    CHECK(bad_input::thrown<config_error>([&] { apply_override(p, "policy=blackout"); }) ==
          "invalid parameter 'policy' = 'blackout' (allowed: one of: no_gating, conventional, "
          "naive_blackout, coordinated_blackout, adaptive, adaptive_coordinated_blackout)");
}

TEST_CASE("gating: the static policy of every kind, and the kind of every static policy") {
    using k = gating::policy_kind;
    static_assert(std::is_same_v<gating::policy_of_kind<k::conventional>, gating::conventional>);
    static_assert(std::is_same_v<gating::policy_of_kind<k::adaptive>,
                                 gating::adaptive_idle_detect<gating::naive_blackout>>);
    static_assert(gating::kind_of<gating::no_gating>(k::adaptive) == k::no_gating);
    static_assert(gating::kind_of<gating::coordinated_blackout>(k::no_gating) ==
                  k::coordinated_blackout);
    static_assert(gating::kind_of<gating::adaptive_idle_detect<gating::coordinated_blackout>>(
                      k::no_gating) == k::adaptive_coordinated_blackout);
    // Types without a kind keep the fallback.
    static_assert(gating::kind_of<gating::selectable>(k::naive_blackout) == k::naive_blackout);
    static_assert(gating::kind_of<gating::adaptive_idle_detect<gating::conventional>>(
                      k::conventional) == k::conventional);
    // Every kind's name is its static policy's report name, or warpkit-gating's.
    const auto& names = enum_names<k>::names;
    CHECK(names[static_cast<std::size_t>(k::naive_blackout)] == gating::naive_blackout::name());
    CHECK(names[static_cast<std::size_t>(k::coordinated_blackout)] ==
          gating::coordinated_blackout::name());
    CHECK(names[static_cast<std::size_t>(k::no_gating)] == gating::no_gating::name());
}

TEST_CASE("controller_ref and controller_span: the controllers' own answers, whatever the type") {
    using span_t = gating::controller_span<gating::conventional, gating::naive_blackout>;
    gating::params p;
    p.idle_detect = 2;
    p.break_even = 4;
    std::vector<gating::controller<gating::naive_blackout>> blackout(
        2, gating::controller<gating::naive_blackout>(p));
    std::vector<gating::controller<gating::conventional>> conventional(
        3, gating::controller<gating::conventional>(p));
    for (int t = 0; t < 3; ++t) { // idle: both gate at the end of their second idle cycle
        for (auto& c : blackout)
            static_cast<void>(c.tick({}));
        for (auto& c : conventional)
            static_cast<void>(c.tick({}));
    }
    static_cast<void>(blackout[1].tick({.demand = true}));     // refused: in blackout
    static_cast<void>(conventional[1].tick({.demand = true})); // wakes (a negative event)
    const span_t b{std::span<const gating::controller<gating::naive_blackout>>(blackout)};
    const span_t c{std::span<const gating::controller<gating::conventional>>(conventional)};
    CHECK(b.size() == 2);
    CHECK(c.size() == 3);
    CHECK_FALSE(b.empty());
    std::size_t seen = 0;
    for (const auto& ref : c) {
        CHECK(ref.params().break_even == 4);
        CHECK(ref.idle_detect() == 2);
        ++seen;
    }
    CHECK(seen == 3);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(b[i].state() == blackout[i].state());
        CHECK(b[i].gated());
        CHECK(b[i].in_blackout());
        CHECK_FALSE(b[i].can_issue());
        CHECK(b[i].blocked());
        CHECK(b[i].episode_gated_cycles() == blackout[i].episode_gated_cycles());
        CHECK(&b[i].stats() == &blackout[i].stats());
    }
    CHECK(b[1].stats().blackout_stall_cycles == 1);
    CHECK(c[1].state() == gating::power_state::waking);
    CHECK(c[1].stats().negative_events == 1);
    CHECK_FALSE(c[1].in_blackout());
    CHECK(c[0].idle_count() == conventional[0].idle_count());
    CHECK(c[2].visit([](const auto& ctl) { return ctl.policy().name(); }) == "conventional");
}
