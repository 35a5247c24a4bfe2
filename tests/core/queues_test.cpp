#include <warpkit/core/concepts.hpp>
#include <warpkit/core/delay_line.hpp>
#include <warpkit/core/fifo.hpp>
#include <warpkit/core/latch.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using warpkit::delay_line;
using warpkit::fifo;
using warpkit::latch;

TEST_CASE("fifo keeps order across wrap-around and refuses overflow") {
    fifo<int> q(3);
    CHECK(q.capacity() == 3);
    CHECK(q.empty());
    int next_in = 0;
    int next_out = 0;
    // Push/pop in an uneven pattern so head wraps many times.
    for (int round = 0; round < 50; ++round) {
        while (q.can_push() && next_in < next_out + 3 && (round % 3 != 0 || q.size() < 2))
            q.push(next_in++);
        CHECK(q.size() <= q.capacity());
        const int pops = 1 + round % 2;
        for (int i = 0; i < pops && !q.empty(); ++i) {
            CHECK(q.front() == next_out);
            q.pop();
            ++next_out;
        }
    }
    while (!q.empty())
        CHECK(q.take() == next_out++);
    CHECK(next_in == next_out); // nothing lost, nothing created
    CHECK(next_in > 40);

    fifo<int> f(2);
    f.push(1);
    f.push(2);
    CHECK(f.full());
    CHECK(!f.can_push());
    CHECK(f.space() == 0);
    CHECK(f[0] == 1);
    CHECK(f[1] == 2);
    CHECK(f.back() == 2);
    CHECK_THROWS_AS(f.push(3), warpkit::contract_error);
    f.clear();
    CHECK_THROWS_AS(f.pop(), warpkit::contract_error);
    CHECK_THROWS_AS((void)f.front(), warpkit::contract_error);
    CHECK_THROWS_AS(fifo<int>(0), warpkit::config_error);
}

TEST_CASE("fifo holds move-only payloads") {
    fifo<std::string> q(2);
    q.emplace(std::size_t{3}, 'x');
    q.push(std::string("yy"));
    CHECK(q.take() == "xxx");
    CHECK(q.take() == "yy");
}

TEST_CASE("delay_line: an element pushed in cycle t is ready in cycle t + L") {
    for (std::uint32_t latency : {0U, 1U, 4U}) {
        CAPTURE(latency);
        delay_line<int> d(latency);
        std::vector<std::pair<std::uint64_t, int>> out; // (cycle seen, value)
        for (std::uint64_t t = 0; t < 20; ++t) {
            if (t < 10) {
                CHECK(d.can_push());
                d.push(static_cast<int>(t));
                CHECK(!d.can_push()); // one insert per cycle
            }
            while (d.ready())
                out.emplace_back(t, d.take());
            d.tick();
        }
        REQUIRE(out.size() == 10);
        for (std::size_t i = 0; i < out.size(); ++i) {
            CHECK(out[i].second == static_cast<int>(i));
            CHECK(out[i].first == i + latency);
        }
    }
}

TEST_CASE("delay_line applies back-pressure when its output is not drained") {
    delay_line<int> d(2); // capacity 3
    int pushed = 0;
    for (int t = 0; t < 10; ++t) {
        if (d.can_push()) d.push(pushed++);
        d.tick();
    }
    CHECK(pushed == 3);
    CHECK(d.size() == 3);
    CHECK(d.ready());
    CHECK(d.cycles_to_ready() == 0);
    CHECK(d.take() == 0);
    CHECK(d.can_push());

    delay_line<int> e(5);
    CHECK(e.cycles_to_ready() == UINT64_MAX);
    e.push(7);
    e.tick();
    CHECK(e.cycles_to_ready() == 4);
    CHECK(!e.ready());
    CHECK_THROWS_AS(e.pop(), warpkit::contract_error);
}

TEST_CASE("latch: written in cycle n, visible in n + 1, stalls while unread") {
    latch<int> l;
    CHECK(l.empty());
    l.write(1);
    CHECK(!l.valid()); // not in the cycle it is written
    CHECK(!l.can_write());
    l.tick();
    CHECK(l.valid());
    CHECK(l.read() == 1);
    CHECK(l.can_write());
    l.write(2);
    l.tick(); // output not consumed: stall, 2 waits
    CHECK(l.read() == 1);
    CHECK(!l.can_write());
    CHECK(l.take() == 1);
    l.tick();
    CHECK(l.take() == 2);
    CHECK(l.empty());
}

TEST_CASE("delay_line and latch ticks report whether they held anything") {
    static_assert(warpkit::reporting_tickable<delay_line<int>>);
    static_assert(warpkit::reporting_tickable<latch<int>>);
    delay_line<int> d(2);
    CHECK_FALSE(d.tick());
    d.push(1);
    CHECK(d.tick()); // in flight
    CHECK(d.tick()); // ready, not taken
    CHECK(d.take() == 1);
    CHECK_FALSE(d.tick());

    latch<int> l;
    CHECK_FALSE(l.tick());
    l.write(5);
    CHECK(l.tick()); // moves to the output
    CHECK(l.tick()); // held, unread
    CHECK(l.take() == 5);
    CHECK_FALSE(l.tick());
}

namespace {
// A three-stage pipeline: producer -> latch -> stage -> latch -> consumer. Each stage only
// reads the output side of its input latch and writes the input side of its output latch.
std::vector<int> run_pipeline(bool reverse_order) {
    latch<int> a;
    latch<int> b;
    std::vector<int> seen;
    int next = 0;
    auto producer = [&] {
        if (next < 8 && a.can_write()) a.write(next++);
    };
    auto middle = [&] {
        if (a.valid() && b.can_write()) b.write(a.take() * 10);
    };
    auto consumer = [&](int cyc) {
        if (b.valid() && cyc % 3 != 0) seen.push_back(b.take()); // a slow, bursty consumer
    };
    for (int cyc = 0; cyc < 40; ++cyc) {
        if (reverse_order) {
            consumer(cyc);
            middle();
            producer();
        } else {
            producer();
            middle();
            consumer(cyc);
        }
        a.tick();
        b.tick();
        seen.push_back(-1000 - cyc); // cycle marker, so timing differences show
    }
    return seen;
}
} // namespace

TEST_CASE("latches make results independent of the order components are ticked") {
    const auto forward = run_pipeline(false);
    const auto backward = run_pipeline(true);
    CHECK(forward == backward);
    int values = 0;
    for (int v : forward)
        values += v >= 0 ? 1 : 0;
    CHECK(values == 8);
}
