// Routing policies of the mesh (xy, yx, west_first, odd_even, o1turn): every policy delivers
// every packet in order over a minimal path, keeps the credit law, drains after saturation
// (no deadlock) and takes only the turns its model allows; the dimension-order routes match
// hand-computed paths and their zero-load latency; bad configurations name their field.

#include "noc_test_util.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/mesh.hpp>
#include <warpkit/noc/mesh_routing.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

using namespace warpkit::noc;

namespace {

constexpr std::array<mesh_routing, 5> policies = {mesh_routing::xy, mesh_routing::yx,
                                                  mesh_routing::west_first, mesh_routing::odd_even,
                                                  mesh_routing::o1turn};
constexpr std::uint32_t E = 0;
constexpr std::uint32_t W = 1;
constexpr std::uint32_t N = 2;
constexpr std::uint32_t S = 3;

std::string name_of(mesh_routing r) {
    return std::string(warpkit::enum_names<mesh_routing>::names[static_cast<std::size_t>(r)]);
}

std::uint32_t distance(std::uint32_t cols, node_id a, node_id b) {
    const std::uint32_t ax = a % cols;
    const std::uint32_t ay = a / cols;
    const std::uint32_t bx = b % cols;
    const std::uint32_t by = b / cols;
    return (ax > bx ? ax - bx : bx - ax) + (ay > by ? ay - by : by - ay);
}

bool is_x(std::uint32_t d) {
    return d == E || d == W;
}

/// Why a packet travelling `in` (a direction) may not leave router column `x` towards
/// `out` under `r`, or nullptr when the turn is allowed. `xy_half`: o1turn's XY packets.
const char* forbidden(mesh_routing r, std::uint32_t in, std::uint32_t out, std::uint32_t x,
                      bool xy_half) {
    if (out == (in ^ 1u)) return "a U-turn";
    if (in == out) return nullptr;
    switch (r) {
    case mesh_routing::xy:
        return is_x(out) ? "a Y-to-X turn under xy" : nullptr;
    case mesh_routing::yx:
        return is_x(in) ? "an X-to-Y turn under yx" : nullptr;
    case mesh_routing::west_first:
        return out == W ? "a turn into west under west_first" : nullptr;
    case mesh_routing::odd_even:
        if (in == E && x % 2 == 0) return "an EN or ES turn in an even column";
        if (out == W && x % 2 == 1) return "an NW or SW turn in an odd column";
        return nullptr;
    case mesh_routing::o1turn:
        return forbidden(xy_half ? mesh_routing::xy : mesh_routing::yx, in, out, x, false);
    }
    return nullptr;
}

/// True when VC `v` belongs to o1turn's XY half: the lower half of each class's VCs.
bool xy_half(const mesh_params& p, std::uint32_t v) {
    if (!p.split_vcs) return v < p.num_vcs / 2;
    const std::uint32_t lo = p.num_vcs / 2;
    return v < lo ? v < lo / 2 : v - lo < (p.num_vcs - lo) / 2;
}

/// Checks the turn of every packet holding a router input VC against its policy's rules.
struct turn_check {
    std::uint64_t bad = 0;
    std::uint64_t x_to_y = 0; ///< scans that saw a packet turn from X into Y
    std::uint64_t y_to_x = 0; ///< and from Y into X (never under xy)
    std::string first;

    template <class M>
    void scan(const M& m) {
        const auto& p = m.params();
        const auto& t = m.topology();
        for (std::size_t s = 0; s < m.subnets(); ++s)
            for (std::uint32_t r = 0; r < t.routers; ++r) {
                if (t.enabled[r] == 0) continue;
                for (std::uint32_t in_port = 0; in_port < 4; ++in_port)
                    for (std::uint32_t v = 0; v < p.num_vcs; ++v) {
                        // Idle VCs (ports()) and packets ejecting here take no turn.
                        const std::uint32_t out = m.input_vc_route(s, r, in_port, v);
                        if (out >= 4) continue;
                        const std::uint32_t in = in_port ^ 1u; // direction of travel
                        if (is_x(in) && !is_x(out)) ++x_to_y;
                        if (!is_x(in) && is_x(out)) ++y_to_x;
                        const char* why = forbidden(p.routing, in, out, r % t.cols, xy_half(p, v));
                        if (why != nullptr && bad++ == 0)
                            first = std::string(why) + " at router " + std::to_string(r);
                    }
            }
    }
};

/// The mesh seen through the driver: counts the minimal hops of what it injects, checks
/// the credit law and the turns after every cycle.
template <class M>
struct probe {
    using packet_type = typename M::packet_type;
    M& m;
    turn_check turns;
    std::uint64_t minimal_hops = 0; ///< routers on minimal paths of the injected packets
    std::uint64_t credit_bad = 0;

    explicit probe(M& mesh_) : m(mesh_) {}
    [[nodiscard]] std::size_t nodes() const { return m.nodes(); }
    [[nodiscard]] std::uint64_t now() const { return m.now(); }
    [[nodiscard]] bool can_inject(node_id s, traffic_class c) const { return m.can_inject(s, c); }
    std::uint64_t inject(const packet_type& pk) {
        minimal_hops += distance(m.params().cols, pk.src, pk.dst) + 1;
        return m.inject(pk);
    }
    bool tick() {
        const bool busy = m.tick();
        credit_bad += m.credit_violations();
        turns.scan(m);
        return busy;
    }
    [[nodiscard]] bool can_eject(node_id d) const { return m.can_eject(d); }
    packet_type eject(node_id d) { return m.eject(d); }
    [[nodiscard]] bool idle() const { return m.idle(); }
    [[nodiscard]] network_stats stats() const { return m.stats(); }
};

using config = noc_test::load_config<mesh_params>;

std::vector<config> routing_configs() {
    std::vector<config> c;
    c.push_back({"4x4 BookSim router, 2 VCs x 4", booksim_mesh(4, 2, 4), 0.12, 6, true});
    {
        mesh_params p = two_stage_router(booksim_mesh(5, 3, 2));
        p.rows = 3;
        p.subnets = 2;
        c.push_back({"5x3 2-stage, 3 VCs x 2, 2 subnets", p, 0.1, 5, true});
    }
    {
        mesh_params p = booksim_mesh(6, 4, 3);
        p.split_vcs = true;
        p.credit_delay = 2;
        p.link_latency = 2;
        c.push_back({"6x6 split VCs, credit delay 2, 2-cycle links", p, 0.05, 4, true});
    }
    {
        mesh_params p = amoeba_48sm();
        p.eject_queue_packets = 2;
        c.push_back({"AMOEBA 8x7 defaults, tiny ejection queues", p, 0.05, 4, true});
    }
    return c;
}

/// The routers a packet crosses from router `s` to router `d` following `table`.
std::vector<std::uint32_t> walk(const mesh_topology& t, const std::vector<std::uint8_t>& table,
                                std::uint32_t s, std::uint32_t d) {
    std::vector<std::uint32_t> path{s};
    while (s != d && path.size() <= t.routers) {
        const std::uint32_t o = table[std::size_t{s} * t.nodes + d];
        REQUIRE(o < 4);
        s = static_cast<std::uint32_t>(t.neighbor[std::size_t{s} * 4 + o]);
        path.push_back(s);
    }
    return path;
}

/// The config_error a mesh with `p` throws, by field ("" when none).
std::string error_field(const mesh_params& p) {
    try {
        mesh<> m(p);
    } catch (const warpkit::config_error& e) {
        return e.field();
    }
    return "";
}

} // namespace

TEST_CASE("every routing policy delivers every packet over a minimal path under random load") {
    for (const auto r : policies)
        for (const auto& c : routing_configs()) {
            CAPTURE(name_of(r));
            CAPTURE(c.name);
            mesh_params p = c.p;
            p.routing = r;
            p.check_credits = true;
            mesh<> m(p);
            probe<mesh<>> net(m);
            const auto d =
                noc_test::run_conserved(net, 42, 6000, c.p_packet, c.max_flits, c.both_classes);
            CHECK(d.injected_packets > 2000);
            CHECK(net.credit_bad == 0);
            CHECK(net.turns.bad == 0);
            if (net.turns.bad != 0) MESSAGE(net.turns.first);
            // Minimal: routers crossed = Manhattan distance + 1, summed over all packets.
            CHECK(m.stats().hops.samples() == d.injected_packets);
            CHECK(m.stats().hops.sum() == net.minimal_hops);
            CHECK(m.stats().vc_allocations == net.minimal_hops);
        }
}

TEST_CASE("no routing policy deadlocks under saturation") {
    // Five-flit packets in two-flit buffers, every node offering far more than the mesh
    // carries: worms span several routers. The turn models need one VC; o1turn two (one per
    // half). Packets keep arriving in every window and the mesh drains once sources stop.
    for (const auto r : policies)
        for (const bool two_subnets : {false, true}) {
            CAPTURE(name_of(r));
            CAPTURE(two_subnets);
            mesh_params p = booksim_mesh(6, r == mesh_routing::o1turn ? 2 : 1, 2);
            p.rows = 5;
            p.subnets = two_subnets ? 2 : 1;
            p.routing = r;
            mesh<> m(p);
            probe<mesh<>> net(m);
            noc_test::driver d(m.nodes());
            warpkit::rng rng(11);
            CHECK(noc_test::saturate_and_drain(net, d, rng, 12, two_subnets) == 0);
            CHECK(m.idle());
            CHECK(m.stats().order_errors == 0);
            CHECK(net.credit_bad == 0);
            CHECK(net.turns.bad == 0);
            if (net.turns.bad != 0) MESSAGE(net.turns.first);
            CHECK(m.stats().hops.sum() == net.minimal_hops);
        }
}

TEST_CASE("adaptive policies and o1turn use the turns dimension order never takes") {
    for (const auto r : policies) {
        CAPTURE(name_of(r));
        mesh_params p = booksim_mesh(6, 2, 4);
        p.routing = r;
        mesh<> m(p);
        probe<mesh<>> net(m);
        noc_test::run_conserved(net, 5, 3000, 0.15, 4, false);
        CHECK(net.turns.bad == 0);
        if (r == mesh_routing::xy) {
            CHECK(net.turns.y_to_x == 0);
        } else if (r == mesh_routing::yx) {
            CHECK(net.turns.x_to_y == 0);
        } else {
            CHECK(net.turns.y_to_x > 0); // a choice other than XY's was made
            CHECK(net.turns.x_to_y > 0);
        }
    }
}

TEST_CASE("adaptive routing is deterministic") {
    for (const auto r : {mesh_routing::west_first, mesh_routing::odd_even, mesh_routing::o1turn}) {
        CAPTURE(name_of(r));
        mesh_params p = booksim_mesh(5, 2, 4);
        p.routing = r;
        std::array<network_stats, 2> s;
        for (auto& out : s) {
            mesh<> m(p);
            noc_test::run_conserved(m, 9, 3000, 0.2, 4, true);
            out = m.stats();
        }
        CHECK(s[0].packet_latency.sum() == s[1].packet_latency.sum());
        CHECK(s[0].buffer_writes == s[1].buffer_writes);
        CHECK(s[0].cycles == s[1].cycles);
        for (std::size_t i = 0; i < s[0].routers.size(); ++i)
            CHECK(s[0].routers[i].link_traversals == s[1].routers[i].link_traversals);
    }
}

TEST_CASE("routing policy functions: minimal, never empty, turn rules on every path") {
    // Every path the allowed directions permit, from every source to every destination of
    // a 6 x 5 mesh, reaches the destination in the Manhattan distance without a forbidden
    // turn (the deadlock-freedom arguments of the turn models rest on this).
    constexpr std::uint32_t cols = 6;
    constexpr std::uint32_t rows = 5;
    for (const auto r :
         {mesh_routing::xy, mesh_routing::yx, mesh_routing::west_first, mesh_routing::odd_even}) {
        CAPTURE(name_of(r));
        std::uint64_t paths = 0;
        std::uint64_t bad = 0;
        for (std::uint32_t s = 0; s < cols * rows; ++s)
            for (std::uint32_t d = 0; d < cols * rows; ++d) {
                // Depth-first over (router, direction of travel); 4: just injected.
                std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{s, 4u}};
                while (!stack.empty()) {
                    const auto [cur, in] = stack.back();
                    stack.pop_back();
                    if (cur == d) {
                        ++paths;
                        continue;
                    }
                    const std::uint32_t allowed = detail::allowed_dirs(r, cur, s, d, cols);
                    if (allowed == 0) ++bad;
                    for (std::uint32_t o = 0; o < 4; ++o) {
                        if ((allowed >> o & 1u) == 0) continue;
                        const std::uint32_t x = cur % cols;
                        const std::uint32_t y = cur / cols;
                        const std::uint32_t next = o == E   ? cur + 1
                                                   : o == W ? cur - 1
                                                   : o == N ? cur + cols
                                                            : cur - cols;
                        const bool off = (o == E && x + 1 >= cols) || (o == W && x == 0) ||
                                         (o == N && y + 1 >= rows) || (o == S && y == 0);
                        if (off || distance(cols, next, d) + 1 != distance(cols, cur, d) ||
                            (in < 4 && forbidden(r, in, o, x, false) != nullptr)) {
                            ++bad;
                            continue;
                        }
                        stack.emplace_back(next, o);
                    }
                }
            }
        CHECK(bad == 0);
        if (r == mesh_routing::xy || r == mesh_routing::yx)
            CHECK(paths == cols * rows * cols * rows); // deterministic: one path per pair
        else
            CHECK(paths > cols * rows * cols * rows); // adaptive: some pairs have several
    }
    // The selection: most credits, then the preferred (XY) direction, then the lowest.
    CHECK(detail::pick_dir(1u << E | 1u << N, {3, 0, 3, 0}, E) == E);
    CHECK(detail::pick_dir(1u << E | 1u << N, {3, 0, 4, 0}, E) == N);
    CHECK(detail::pick_dir(1u << W | 1u << S, {0, 2, 0, 2}, E) == W);
    CHECK(detail::pick_dir(1u << N, {8, 8, 0, 8}, E) == N);
    // O1TURN's choice splits packets about evenly.
    int yx = 0;
    for (std::uint64_t id = 0; id < 1000; ++id)
        yx += detail::o1turn_yx(id) ? 1 : 0;
    CHECK(yx > 400);
    CHECK(yx < 600);
}

TEST_CASE("xy and yx routes by hand") {
    // 4x4: node x + 4 y; north is +y.
    mesh_params p = booksim_mesh(4);
    mesh<> xy(p);
    p.routing = mesh_routing::yx;
    mesh<> yx(p);
    CHECK(xy.route(0, 15) == E);
    CHECK(yx.route(0, 15) == N);
    CHECK(xy.route(15, 0) == W);
    CHECK(yx.route(15, 0) == S);
    CHECK(xy.route(3, 15) == N);
    CHECK(yx.route(3, 15) == N);
    CHECK(xy.route(6, 9) == W); // (2,1) -> (1,2)
    CHECK(yx.route(6, 9) == N);
    CHECK(xy.route(13, 1) == S); // same column
    CHECK(yx.route(13, 1) == S);
    CHECK(xy.route(5, 5) == 4); // own node: local port
    CHECK(yx.route(5, 5) == 4);
    const std::vector<std::uint32_t> xy_path = {0, 1, 2, 3, 7, 11, 15};
    const std::vector<std::uint32_t> yx_path = {0, 4, 8, 12, 13, 14, 15};
    CHECK(walk(xy.topology(), xy.topology().route, 0, 15) == xy_path);
    CHECK(walk(yx.topology(), yx.topology().route, 0, 15) == yx_path);
    const std::vector<std::uint32_t> xy_back = {14, 13, 9, 5, 1};
    const std::vector<std::uint32_t> yx_back = {14, 10, 6, 2, 1};
    CHECK(walk(xy.topology(), xy.topology().route, 14, 1) == xy_back);
    CHECK(walk(yx.topology(), yx.topology().route, 14, 1) == yx_back);
    // o1turn keeps both tables.
    p.routing = mesh_routing::o1turn;
    mesh<> o1(p);
    CHECK(o1.topology().route == xy.topology().route);
    CHECK(o1.topology().route_yx == yx.topology().route);
    CHECK(xy.topology().route_yx.empty());
}

TEST_CASE("zero-load latency is the same under every policy: 7 + 5 L + (F - 1)") {
    struct trip {
        node_id src;
        node_id dst;
        std::uint32_t flits;
    };
    const std::array<trip, 6> trips = {
        {{0, 15, 1}, {12, 3, 1}, {6, 9, 2}, {5, 13, 1}, {0, 15, 4}, {9, 6, 3}}};
    for (const auto r : policies) {
        CAPTURE(name_of(r));
        mesh_params p = booksim_mesh(4);
        p.routing = r;
        mesh<> m(p);
        for (const auto& t : trips) {
            CAPTURE(t.src);
            CAPTURE(t.dst);
            const std::uint32_t links = distance(4, t.src, t.dst);
            const auto pk = noc_test::one(m, t.src, t.dst, t.flits);
            CHECK(pk.latency() == 7 + 5 * links + (t.flits - 1));
            CHECK(pk.hops == links + 1);
        }
    }
}

TEST_CASE("routing with bypassed routers") {
    // Whole bypassed columns: every XY and YX route turns at enabled routers, so xy, yx and
    // o1turn work; the adaptive policies refuse bypass.
    for (const auto r : policies) {
        CAPTURE(name_of(r));
        mesh_params p = bypass_columns(booksim_mesh(6, 2, 4), {1, 4});
        p.routing = r;
        if (r == mesh_routing::west_first || r == mesh_routing::odd_even) {
            CHECK(error_field(p) == "routing");
            continue;
        }
        p.check_credits = true;
        mesh<> m(p);
        probe<mesh<>> net(m);
        noc_test::run_conserved(net, 3, 4000, 0.05, 3, false);
        CHECK(net.credit_bad == 0);
        CHECK(net.turns.bad == 0);
        CHECK(m.stats().bypass_traversals > 0);
    }
    // A single disabled router: some YX route would have to turn at it.
    mesh_params p = booksim_mesh(4);
    p.routing = mesh_routing::yx;
    p.bypass = {{5, 4}};
    try {
        mesh<> m(p);
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "bypass");
        CHECK(std::string(e.what()).find("YX route") != std::string::npos);
    }
}

TEST_CASE("bad routing configurations name their field") {
    mesh_params p = booksim_mesh(4, 1);
    p.routing = mesh_routing::o1turn;
    CHECK(error_field(p) == "num_vcs"); // one VC: no halves
    p.num_vcs = 2;
    CHECK(error_field(p).empty());
    p.subnets = 1;
    p.split_vcs = true;
    CHECK(error_field(p) == "num_vcs"); // two per class needed
    p.num_vcs = 3;
    CHECK(error_field(p) == "num_vcs");
    p.num_vcs = 4;
    CHECK(error_field(p).empty());
    try {
        p.num_vcs = 3;
        p.validate();
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.allowed().find("[4, 32]") != std::string::npos);
    }
    p.routing = static_cast<mesh_routing>(9);
    CHECK(error_field(p) == "routing");
    // West-first and odd-even need no extra VCs.
    for (const auto r : {mesh_routing::west_first, mesh_routing::odd_even, mesh_routing::yx}) {
        mesh_params q = booksim_mesh(3, 1);
        q.routing = r;
        CHECK(error_field(q).empty());
    }
}

TEST_CASE("routing by name: key=value overrides and JSON") {
    mesh_params p;
    CHECK(p.routing == mesh_routing::xy);
    warpkit::apply_override(p, "routing=odd_even");
    CHECK(p.routing == mesh_routing::odd_even);
    CHECK(warpkit::params_to_json(p)["routing"] == "odd_even");
    warpkit::params_from_json(nlohmann::json{{"routing", "o1turn"}}, p);
    CHECK(p.routing == mesh_routing::o1turn);
    CHECK(warpkit::params_to_text(p).find("routing = o1turn") != std::string::npos);
    try {
        warpkit::apply_override(p, "routing=zigzag");
        FAIL("expected a config_error");
    } catch (const warpkit::config_error& e) {
        CHECK(e.field() == "routing");
    }
}
