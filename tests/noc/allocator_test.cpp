// Allocators: iSLIP's pointer desynchronisation under full load (worked by hand), and the
// matching laws on random requests for both allocators.

#include <warpkit/core/rng.hpp>
#include <warpkit/noc/allocator.hpp>
#include <warpkit/noc/concepts.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

using namespace warpkit::noc;

static_assert(allocator<islip>);
static_assert(allocator<round_robin>);

namespace {

template <class A>
std::vector<int> full_load_matches(int cycles) {
    A a(4, 4, 1);
    const std::array<std::uint64_t, 4> req = {15, 15, 15, 15};
    std::vector<int> out;
    for (int c = 0; c < cycles; ++c) {
        std::array<std::int32_t, 4> m = {-1, -1, -1, -1};
        a.allocate(req, m);
        int k = 0;
        for (const auto x : m)
            k += x >= 0 ? 1 : 0;
        out.push_back(k);
    }
    return out;
}

} // namespace

TEST_CASE("iSLIP desynchronises under full load: 1, 2, 3, then 4 matches per cycle") {
    // Cycle 1: every output grants input 0, which accepts output 0. Cycle 2: output 0 grants
    // input 1, the others input 0, which accepts output 1; ... from cycle 4 on every output
    // grants a different input.
    CHECK(full_load_matches<islip>(8) == std::vector<int>{1, 2, 3, 4, 4, 4, 4, 4});
}

TEST_CASE("iSLIP grant order on a hand-made request pattern") {
    islip a(3, 3, 1);
    // Inputs 0 and 1 want output 2; input 2 wants outputs 0 and 2.
    const std::array<std::uint64_t, 3> req = {4, 4, 5};
    std::array<std::int32_t, 3> m = {-1, -1, -1};
    a.allocate(req, m);
    // Output 2 grants input 0 (pointer 0); output 0 grants input 2, which accepts it.
    CHECK(m == std::array<std::int32_t, 3>{2, -1, 0});
    m = {-1, -1, -1};
    a.allocate(req, m);
    // Output 2's pointer moved past input 0: it grants input 1 now.
    CHECK(m == std::array<std::int32_t, 3>{-1, 2, 0});
    // An output marked taken is not granted; an input already matched stays out.
    m = {-1, -1, 1};
    a.allocate(req, m, 4);
    CHECK(m == std::array<std::int32_t, 3>{-1, -1, 1});
}

TEST_CASE_TEMPLATE("allocator laws on random requests", A, islip, round_robin) {
    warpkit::rng r(17);
    for (const std::uint32_t iters : {1u, 4u}) {
        A a(7, 5, iters);
        for (int trial = 0; trial < 2000; ++trial) {
            std::array<std::uint64_t, 7> req{};
            for (auto& q : req)
                q = r.below(32);
            std::array<std::int32_t, 7> m;
            m.fill(-1);
            a.allocate(req, m);
            std::uint64_t used = 0;
            for (std::size_t i = 0; i < 7; ++i) {
                if (m[i] < 0) continue;
                const auto o = static_cast<std::uint32_t>(m[i]);
                CHECK((req[i] >> o & 1u) == 1u); // only requested pairs
                CHECK((used >> o & 1u) == 0u);   // one input per output
                used |= std::uint64_t{1} << o;
            }
            bool any_match = used != 0;
            bool any_req = false;
            for (const auto q : req)
                any_req = any_req || q != 0;
            CHECK(any_match == any_req); // something requested: something granted
            if (iters == 4) {
                // Enough iterations: maximal, no free input still wants a free output.
                for (std::size_t i = 0; i < 7; ++i)
                    if (m[i] < 0) CHECK((req[i] & ~used) == 0);
            }
        }
    }
}

TEST_CASE("allocator shapes are checked") {
    CHECK_THROWS_AS(islip(0, 4, 1), warpkit::config_error);
    CHECK_THROWS_AS(islip(4, 65, 1), warpkit::config_error);
    CHECK_THROWS_AS(round_robin(4, 4, 0), warpkit::config_error);
}
