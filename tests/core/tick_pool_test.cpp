// tick_pool: every index runs once per run(), on as many threads as the pool holds; what the
// calls write is visible after run(); an exception reaches the caller, the lowest index's
// first; the pool stays usable after one and stops cleanly.
#include <warpkit/core/tick_pool.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using warpkit::tick_pool;

TEST_CASE("tick_pool: each index once per run, on distinct threads") {
    for (unsigned workers : {0U, 1U, 3U}) {
        CAPTURE(workers);
        tick_pool pool(workers);
        CHECK(pool.size() == workers + 1);
        std::vector<std::uint64_t> sums(pool.size(), 0);
        std::vector<std::thread::id> ids(pool.size());
        for (std::uint64_t round = 1; round <= 1000; ++round) {
            auto f = [&](unsigned t) {
                sums[t] += round; // each index writes only its own element
                ids[t] = std::this_thread::get_id();
            };
            pool.run(f);
        }
        for (const auto s : sums)
            CHECK(s == 1000 * 1001 / 2);
        CHECK(ids[0] == std::this_thread::get_id());
        CHECK(std::set<std::thread::id>(ids.begin(), ids.end()).size() == pool.size());
    }
}

TEST_CASE("tick_pool: an exception reaches the caller, the lowest index's") {
    tick_pool pool(2);
    auto f = [](unsigned t) {
        if (t >= 1) throw std::runtime_error("call " + std::to_string(t));
    };
    try {
        pool.run(f);
        FAIL("no exception");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "call 1");
    }
    // Still usable: every index runs again.
    std::atomic<unsigned> calls{0};
    auto g = [&](unsigned) { calls.fetch_add(1); };
    pool.run(g);
    CHECK(calls.load() == 3);
}
