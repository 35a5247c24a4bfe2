// Laws every network model obeys, run over all of them: nothing lost, nothing duplicated,
// nothing altered, every packet at its destination, times in order, stats that add up.

#include "noc_test_util.hpp"

#include <warpkit/core/concepts.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>

#include "../reset_law.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using namespace warpkit::noc;

namespace {

using ideal = ideal_network<>;
using xbar_islip = crossbar<>;
using xbar_rr_voq = crossbar<std::uint64_t, round_robin>;
using mesh_islip = mesh<>;
using mesh_rr = mesh<std::uint64_t, round_robin>;

template <class N>
N make() {
    if constexpr (std::is_same_v<N, ideal>) {
        ideal_params p;
        p.nodes = 20;
        p.latency = 4;
        return N(p);
    } else if constexpr (std::is_same_v<N, xbar_islip>) {
        crossbar_params p;
        p.nodes = 20;
        return N(p);
    } else if constexpr (std::is_same_v<N, xbar_rr_voq>) {
        crossbar_params p;
        p.nodes = 20;
        p.voq = true;
        p.subnets = 1;
        return N(p);
    } else if constexpr (std::is_same_v<N, mesh_islip>) {
        mesh_params p; // paper 002's 2-stage routers, two subnets
        p.cols = 5;
        p.rows = 4;
        return N(p);
    } else {
        mesh_params p = booksim_mesh(5, 3, 3);
        p.rows = 4;
        return N(p);
    }
}

} // namespace

static_assert(network<ideal> && network<xbar_islip> && network<mesh_islip>);
static_assert(warpkit::observable_component<ideal> && warpkit::observable_component<xbar_islip> &&
              warpkit::observable_component<mesh_islip>);
static_assert(warpkit::reporting_tickable<mesh_islip>);

TEST_CASE_TEMPLATE("network law: conservation under random load", N, ideal, xbar_islip, xbar_rr_voq,
                   mesh_islip, mesh_rr) {
    N net = make<N>();
    CHECK(net.idle());
    const auto d = noc_test::run_conserved(net, 2024, 20000, 0.08, 5, true);
    CHECK(d.injected_packets > 10000);
    // Once the last credits are home, idle networks do nothing.
    for (int i = 0; i < 100; ++i)
        net.tick();
    CHECK_FALSE(net.tick());
}

TEST_CASE_TEMPLATE("network law: refuses what it cannot take, never delivers what it has not", N,
                   ideal, xbar_islip, mesh_islip) {
    N net = make<N>();
    const auto n = static_cast<node_id>(net.nodes());
    CHECK_FALSE(net.can_inject(n));
    CHECK_FALSE(net.can_inject(0, static_cast<traffic_class>(7)));
    CHECK_FALSE(net.can_eject(0));
    CHECK_THROWS_AS((void)net.eject(0), warpkit::contract_error);
    packet<> bad;
    bad.src = 0;
    bad.dst = n;
    CHECK_THROWS_AS(net.inject(bad), warpkit::contract_error);
    // Fill one source until it refuses (the ideal network never does).
    std::uint64_t accepted = 0;
    packet<> pk;
    pk.src = 1;
    pk.dst = 2;
    while (net.can_inject(1) && accepted < 100000) {
        net.inject(pk);
        ++accepted;
    }
    if (!net.can_inject(1)) CHECK_THROWS_AS(net.inject(pk), warpkit::contract_error);
    for (int i = 0; i < 5000; ++i) {
        net.tick();
        while (net.can_eject(2)) {
            const auto got = net.eject(2);
            CHECK(got.src == 1);
            --accepted;
        }
        for (node_id k = 0; k < n; ++k)
            if (k != 2) CHECK_FALSE(net.can_eject(k));
    }
    CHECK(accepted == 0);
    CHECK(net.idle());
}

TEST_CASE_TEMPLATE("network law: ids are unique and in injection order", N, ideal, xbar_islip,
                   mesh_islip) {
    N net = make<N>();
    packet<> pk;
    pk.dst = 3;
    std::uint64_t last = 0;
    for (node_id s = 0; s < 5; ++s) {
        pk.src = s;
        const std::uint64_t id = net.inject(pk);
        if (s > 0) CHECK(id > last);
        last = id;
    }
}

TEST_CASE_TEMPLATE("network law: reset_stats restarts the counters, packets in flight stay", N,
                   ideal, xbar_islip, xbar_rr_voq, mesh_islip, mesh_rr) {
    // Packets in flight at the reset count (latency included) when they come out.
    struct twin {
        N component = make<N>();
        noc_test::driver d{component.nodes()};
        warpkit::rng r{99};
    };
    const auto step = [](twin& t, std::size_t) { t.d.cycle(t.component, t.r, 0.1, 5, true); };
    reset_law::check([] { return twin{}; }, step, 1500, 2500);
}
