#include <warpkit/gpu/cta_dispatcher.hpp>

#include <doctest/doctest.h>

#include <vector>

using warpkit::gpu::block_footprint;
using warpkit::gpu::cta_dispatcher;
using warpkit::gpu::sm_limits;

TEST_CASE("blocks spread round robin over SMs, one per call") {
    cta_dispatcher d(3, sm_limits{});
    d.launch(7, block_footprint{2, 2048, 1024});
    std::vector<cta_dispatcher::placement> out;
    std::vector<std::uint32_t> sms;
    while (d.pending() > 0) {
        REQUIRE(d.dispatch(out) == 1);
        CHECK(out[0].block == sms.size());
        sms.push_back(out[0].sm);
    }
    CHECK(sms == std::vector<std::uint32_t>{0, 1, 2, 0, 1, 2, 0});
    CHECK(d.dispatch(out) == 0);
}

TEST_CASE("the tightest per-SM limit decides how many blocks are resident") {
    // GTX480 limits; a block of 8 warps, 256 threads x 20 registers, 12 KB shared memory:
    // warps allow 6, registers 32768 / 5120 = 6.4 -> 6, shared 48 KB / 12 KB = 4 -> 4 blocks.
    cta_dispatcher d(1, sm_limits{});
    d.launch(10, block_footprint{8, 256 * 20, 12 * 1024});
    std::vector<cta_dispatcher::placement> out;
    int placed = 0;
    for (int i = 0; i < 10; ++i)
        placed += static_cast<int>(d.dispatch(out));
    CHECK(placed == 4);
    CHECK(d.resident(0) == 4);
    CHECK(d.stats().cycles_waiting == 6);
    d.retire(0);
    CHECK(d.dispatch(out) == 1);
    CHECK(out[0].block == 4);
    CHECK(!d.done());
}

TEST_CASE("blocks_per_sm: the least of what each limit leaves room for, as the dispatcher places") {
    const sm_limits gtx480{};
    // The case above: warps 6, registers 6, shared 4.
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{8, 256 * 20, 12 * 1024}) == 4);
    // No shared memory, 49 registers x 256 threads: 32768 / 12544 = 2.6 -> 2.
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{8, 256 * 49, 0}) == 2);
    // One-warp blocks, nothing else: the 8 block slots.
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{1, 0, 0}) == 8);
    // 32-warp blocks: 48 / 32 -> 1; a block over any limit: 0.
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{32, 0, 0}) == 1);
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{1, 0, 49153}) == 0);
    CHECK(warpkit::gpu::blocks_per_sm(gtx480, block_footprint{1, 32769, 0}) == 0);
    // The dispatcher holds an SM to the same count.
    cta_dispatcher d(1, gtx480);
    d.launch(20, block_footprint{8, 256 * 49, 0});
    std::vector<cta_dispatcher::placement> out;
    for (int i = 0; i < 20; ++i)
        (void)d.dispatch(out);
    CHECK(d.resident(0) == 2);
}

TEST_CASE("cluster dispatch gives the members of a cluster equal shares") {
    sm_limits lim;
    lim.max_blocks = 2;
    cta_dispatcher d(4, lim, 2); // clusters {0,1} and {2,3}
    d.launch(7, block_footprint{1, 0, 0});
    std::vector<cta_dispatcher::placement> out;
    std::vector<std::vector<std::uint32_t>> calls;
    while (d.dispatch(out) > 0) {
        std::vector<std::uint32_t> sms;
        for (auto& p : out)
            sms.push_back(p.sm);
        calls.push_back(sms);
    }
    // 7 blocks, 2 per SM: {0,1} {2,3} {0,1} {2,3} fill 8 slots; the 7th block pair is cut to 1.
    CHECK(calls == std::vector<std::vector<std::uint32_t>>{{0, 1}, {2, 3}, {0, 1}, {2}});
    CHECK(d.resident(0) == 2);
    CHECK(d.resident(3) == 1);
}

TEST_CASE("dispatcher rejects impossible blocks and bad shapes") {
    CHECK_THROWS_AS(cta_dispatcher(0, sm_limits{}), warpkit::config_error);
    CHECK_THROWS_AS(cta_dispatcher(3, sm_limits{}, 2), warpkit::config_error);
    cta_dispatcher d(2, sm_limits{});
    CHECK_THROWS_AS(d.launch(1, block_footprint{49, 0, 0}), warpkit::config_error);
    CHECK_THROWS_AS(d.launch(1, block_footprint{1, 0, 50000}), warpkit::config_error);
    sm_limits bad;
    bad.max_blocks = 0;
    CHECK_THROWS_AS(cta_dispatcher(2, bad), warpkit::config_error);
}

TEST_CASE("a cluster held back this cycle gets no block; the next ready cluster does") {
    cta_dispatcher d(4, sm_limits{}, 2); // clusters {0,1} and {2,3}
    d.launch(6, block_footprint{1, 0, 0});
    std::vector<cta_dispatcher::placement> out;
    const auto not_first = [](std::uint32_t c) { return c != 0; };
    REQUIRE(d.dispatch(out, not_first) == 2);
    CHECK(out[0].sm == 2);
    CHECK(out[1].sm == 3);
    REQUIRE(d.dispatch(out, not_first) == 2); // round robin comes back to cluster 1
    CHECK(out[0].sm == 2);
    CHECK(d.dispatch(out, [](std::uint32_t) { return false; }) == 0);
    CHECK(d.stats().cycles_waiting == 1);
    REQUIRE(d.dispatch(out) == 2);
    CHECK(out[0].sm == 0);
    CHECK(d.resident(0) == 1);
    CHECK(d.resident(2) == 2);
}
