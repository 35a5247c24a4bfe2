#pragma once
/// \file
/// Parameters of the `mesh` network (size, virtual channels, router pipeline delays,
/// subnets, router bypass, routing policy), router presets (BookSim's 4-stage router, paper
/// 002's 2-stage router) and the mesh topology with its dimension-order routes.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/noc/mesh_routing.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace warpkit::noc {

/// Router bypass (paper 002): the router of `node` is switched off and `node` is served by
/// the router of the adjacent node `host`; flits crossing the switched-off router take its
/// straight bypass path (east-west or north-south) without entering a router pipeline.
struct bypass_entry {
    std::uint32_t node = 0; ///< node whose router is disabled
    std::uint32_t host = 0; ///< adjacent node whose router serves it
    WARPKIT_FIELDS(bypass_entry, node, host)
};

/// Shape and timing of a mesh. Node (x, y) is node x + cols * y. Defaults: paper 002's
/// 48-SM machine (48 SMs and 8 memory controllers on an 8 x 7 mesh, request and reply
/// subnets, 2-stage routers with lookahead routing and speculative allocation, 128-bit
/// channels); 2 VCs of 8 flits.
struct mesh_params {
    std::uint32_t cols = 8;    ///< routers along x (k for a k x k mesh)
    std::uint32_t rows = 7;    ///< routers along y (1 for a line)
    std::uint32_t subnets = 2; ///< 2: requests and replies on separate physical networks
    /// With one subnet: requests use the lower half of the VCs, replies the upper half.
    bool split_vcs = false;
    std::uint32_t num_vcs = 2;
    std::uint32_t vc_buf_size = 8;      ///< flits per VC buffer
    std::uint32_t routing_delay = 0;    ///< 0: lookahead routing
    std::uint32_t vc_alloc_delay = 1;   ///< cycles of VC allocation
    std::uint32_t sw_alloc_delay = 1;   ///< cycles of switch allocation
    std::uint32_t st_prepare_delay = 0; ///< switch traversal, first part
    std::uint32_t st_final_delay = 1;   ///< switch traversal, last part
    std::uint32_t credit_delay = 0;     ///< extra cycles before a freed slot's credit leaves
    /// VC and switch allocation in the same cycle (needs vc_alloc_delay == sw_alloc_delay).
    bool speculative = true;
    std::uint32_t link_latency = 1; ///< cycles per channel between neighbours and to/from nodes
    std::uint32_t bypass_delay = 0; ///< extra cycles through a disabled router's bypass path
    std::uint32_t alloc_iters = 1;  ///< iterations of the VC and switch allocators
    std::uint32_t inject_queue_packets = 16; ///< per node and class, before the interface
    std::uint32_t eject_queue_packets = 64;  ///< per node and class, delivered packets
    std::uint32_t flit_bits = 128;           ///< channel width (for energy: bits = flits x this)
    std::vector<bypass_entry> bypass;        ///< disabled routers
    /// Check the credit law (mesh::credit_violations) after every cycle and throw a
    /// sim_error when it breaks: a scan of every VC per cycle, for tests and fuzzing.
    bool check_credits = false;
    /// Routing policy (mesh_routing.hpp). o1turn needs num_vcs >= 2 (>= 4 with split_vcs);
    /// west_first and odd_even need no bypassed routers.
    mesh_routing routing = mesh_routing::xy;
    WARPKIT_FIELDS(mesh_params, cols, rows, subnets, split_vcs, num_vcs, vc_buf_size, routing_delay,
                   vc_alloc_delay, sw_alloc_delay, st_prepare_delay, st_final_delay, credit_delay,
                   speculative, link_latency, bypass_delay, alloc_iters, inject_queue_packets,
                   eject_queue_packets, flit_bits, bypass, check_credits, routing)

    void validate() const;

    [[nodiscard]] std::uint32_t nodes() const noexcept { return cols * rows; }
};

namespace detail {
/// `p` with one-cycle VC allocation, switch allocation and switch traversal (no prepare
/// stage), routing in `routing_delay` cycles, and speculation as given: the stage delays the
/// named routers below share.
[[nodiscard]] inline mesh_params one_cycle_stages(mesh_params p, std::uint32_t routing_delay,
                                                  bool speculative) {
    p.routing_delay = routing_delay;
    p.vc_alloc_delay = 1;
    p.sw_alloc_delay = 1;
    p.st_prepare_delay = 0;
    p.st_final_delay = 1;
    p.speculative = speculative;
    return p;
}
} // namespace detail

/// BookSim 2's default input-queued router: routing, VC allocation, switch allocation and
/// switch traversal one cycle each, no speculation, one-cycle links and credits.
[[nodiscard]] inline mesh_params booksim_router(mesh_params p) {
    p = detail::one_cycle_stages(p, 1, false);
    p.credit_delay = 0;
    p.link_latency = 1;
    return p;
}

/// A 2-stage router (paper 002, Table 1): lookahead routing, speculative VC and switch
/// allocation in one stage, switch traversal in the other.
[[nodiscard]] inline mesh_params two_stage_router(mesh_params p) {
    return detail::one_cycle_stages(p, 0, true);
}

/// A k x k mesh with BookSim's default router, one subnet, `vcs` VCs of `buf` flits.
[[nodiscard]] inline mesh_params booksim_mesh(std::uint32_t k, std::uint32_t vcs = 2,
                                              std::uint32_t buf = 8) {
    mesh_params p;
    p.cols = k;
    p.rows = k;
    p.subnets = 1;
    p.num_vcs = vcs;
    p.vc_buf_size = buf;
    return booksim_router(p);
}

/// Paper 002's baseline network (the defaults).
[[nodiscard]] inline mesh_params amoeba_48sm() {
    return {};
}

/// Disables every router in the given columns, each node served by its west neighbour (the
/// mesh of paper 002 after fusing SM pairs side by side). The west neighbours must stay on.
[[nodiscard]] inline mesh_params bypass_columns(mesh_params p,
                                                const std::vector<std::uint32_t>& columns) {
    for (const std::uint32_t x : columns) {
        if (x == 0 || x >= p.cols)
            throw config_error("bypass_columns", std::to_string(x),
                               "[1, " + std::to_string(p.cols - 1) + "] (a west neighbour)");
        for (std::uint32_t y = 0; y < p.rows; ++y)
            p.bypass.push_back({x + p.cols * y, x - 1 + p.cols * y});
    }
    return p;
}

/// Routers, the nodes on their local ports, neighbours through bypassed routers, and the
/// dimension-order routes.
struct mesh_topology {
    std::uint32_t cols = 0;
    std::uint32_t rows = 0;
    std::uint32_t routers = 0; ///< positions (cols x rows), enabled or not
    std::uint32_t nodes = 0;
    std::uint32_t ports = 0;             ///< ports per router: 4 + the most local ports
    std::vector<std::uint8_t> enabled;   ///< per router
    std::vector<std::uint32_t> host;     ///< per node: the router serving it
    std::vector<std::uint8_t> local;     ///< per node: its port at the host
    std::vector<std::int32_t> neighbor;  ///< per router x 4 + dir: next enabled router or -1
    std::vector<std::uint32_t> bypassed; ///< per router x 4 + dir: disabled routers between
    std::vector<std::int32_t> port_node; ///< per router x ports + port: node on a local port
    /// Per router x nodes + node: output port, YX for `yx`, XY for the other policies (the
    /// adaptive ones take it on ties, o1turn for its XY packets).
    std::vector<std::uint8_t> route;
    std::vector<std::uint8_t> route_yx; ///< o1turn only: the YX routes, as `route`
};

namespace detail {
/// Dimension-order routes (X first unless `y_first`) from every enabled router, checked to
/// turn only at enabled routers: a flit crossing a disabled router can only go straight.
inline std::vector<std::uint8_t> dor_routes(const mesh_topology& t, bool y_first) {
    const std::uint32_t cols = t.cols;
    std::vector<std::uint8_t> route(std::size_t{t.routers} * t.nodes, 0);
    for (std::uint32_t r = 0; r < t.routers; ++r) {
        if (t.enabled[r] == 0) continue;
        for (std::uint32_t n = 0; n < t.nodes; ++n) {
            const std::uint32_t h = t.host[n];
            route[std::size_t{r} * t.nodes + n] =
                h == r ? t.local[n] : static_cast<std::uint8_t>(dor_dir(r, h, cols, y_first));
        }
    }
    for (std::uint32_t s = 0; s < t.routers; ++s) {
        if (t.enabled[s] == 0) continue;
        for (std::uint32_t h = 0; h < t.routers; ++h) {
            if (t.enabled[h] == 0) continue;
            std::uint32_t cur = s;
            while (cur != h) {
                const std::uint32_t d = dor_dir(cur, h, cols, y_first);
                const std::int32_t nxt = t.neighbor[std::size_t{cur} * dirs + d];
                // Position along the direction of travel (even directions count upwards).
                const auto along = [&](std::uint32_t q) { return d < 2 ? q % cols : q / cols; };
                const bool overshoot =
                    nxt >= 0 && (d % 2 == 0 ? along(static_cast<std::uint32_t>(nxt)) > along(h)
                                            : along(static_cast<std::uint32_t>(nxt)) < along(h));
                if (nxt < 0 || overshoot) {
                    // Once on the destination's row (XY) or column (YX) the walk reaches
                    // it: only the first dimension can fail.
                    const std::uint32_t turn =
                        y_first ? cur % cols + cols * (h / cols) : h % cols + cols * (cur / cols);
                    throw config_error(
                        "bypass", "router " + std::to_string(turn) + " disabled",
                        std::string("disabled routers that no ") + (y_first ? "YX" : "XY") +
                            " route turns at (route from router " + std::to_string(s) +
                            " to router " + std::to_string(h) + " turns at router " +
                            std::to_string(turn) + "); disable whole columns or rows");
                }
                cur = static_cast<std::uint32_t>(nxt);
            }
        }
    }
    return route;
}
} // namespace detail

/// Builds the topology; throws config_error naming the offending field.
inline mesh_topology build_mesh_topology(std::uint32_t cols, std::uint32_t rows,
                                         const std::vector<bypass_entry>& bypass,
                                         mesh_routing routing = mesh_routing::xy) {
    mesh_topology t;
    t.cols = cols;
    t.rows = rows;
    t.routers = cols * rows;
    t.nodes = t.routers;
    t.enabled.assign(t.routers, 1);
    t.host.resize(t.nodes);
    for (std::uint32_t n = 0; n < t.nodes; ++n)
        t.host[n] = n;
    const auto at = [](std::size_t i, const char* f) {
        return "bypass[" + std::to_string(i) + "]." + f;
    };
    for (std::size_t i = 0; i < bypass.size(); ++i) {
        const auto& b = bypass[i];
        const std::string range = "[0, " + std::to_string(t.nodes - 1) + "]";
        if (b.node >= t.nodes) throw config_error(at(i, "node"), std::to_string(b.node), range);
        if (b.host >= t.nodes) throw config_error(at(i, "host"), std::to_string(b.host), range);
        const std::uint32_t dx = b.node % cols > b.host % cols ? b.node % cols - b.host % cols
                                                               : b.host % cols - b.node % cols;
        const std::uint32_t dy = b.node / cols > b.host / cols ? b.node / cols - b.host / cols
                                                               : b.host / cols - b.node / cols;
        if (dx + dy != 1)
            throw config_error(at(i, "host"), std::to_string(b.host),
                               "a node adjacent to node " + std::to_string(b.node));
        if (t.enabled[b.node] == 0)
            throw config_error(at(i, "node"), std::to_string(b.node),
                               "a node not bypassed already");
        t.enabled[b.node] = 0;
        t.host[b.node] = b.host;
    }
    for (std::size_t i = 0; i < bypass.size(); ++i)
        if (t.enabled[bypass[i].host] == 0)
            throw config_error(at(i, "host"), std::to_string(bypass[i].host),
                               "a node whose own router stays enabled");

    // Local ports: the router's own node first, then the nodes it serves, in list order.
    std::vector<std::uint32_t> locals(t.routers, 0);
    t.local.assign(t.nodes, 0);
    for (std::uint32_t n = 0; n < t.nodes; ++n)
        if (t.enabled[n] != 0) t.local[n] = static_cast<std::uint8_t>(detail::dirs + locals[n]++);
    for (const auto& b : bypass)
        t.local[b.node] = static_cast<std::uint8_t>(detail::dirs + locals[b.host]++);
    std::uint32_t most = 0;
    for (const auto l : locals)
        most = l > most ? l : most;
    t.ports = detail::dirs + most;
    t.port_node.assign(std::size_t{t.routers} * t.ports, -1);
    for (std::uint32_t n = 0; n < t.nodes; ++n)
        t.port_node[std::size_t{t.host[n]} * t.ports + t.local[n]] = static_cast<std::int32_t>(n);

    // Neighbours: walk straight through disabled routers.
    t.neighbor.assign(std::size_t{t.routers} * detail::dirs, -1);
    t.bypassed.assign(std::size_t{t.routers} * detail::dirs, 0);
    for (std::uint32_t r = 0; r < t.routers; ++r) {
        if (t.enabled[r] == 0) continue;
        for (std::uint32_t d = 0; d < detail::dirs; ++d) {
            auto x = static_cast<std::int64_t>(r % cols);
            auto y = static_cast<std::int64_t>(r / cols);
            std::uint32_t skipped = 0;
            for (;;) {
                x += d == 0 ? 1 : d == 1 ? -1 : 0;
                y += d == 2 ? 1 : d == 3 ? -1 : 0;
                if (x < 0 || y < 0 || x >= cols || y >= rows) break;
                const auto q = static_cast<std::uint32_t>(x + y * cols);
                if (t.enabled[q] != 0) {
                    t.neighbor[std::size_t{r} * detail::dirs + d] = static_cast<std::int32_t>(q);
                    t.bypassed[std::size_t{r} * detail::dirs + d] = skipped;
                    break;
                }
                ++skipped;
            }
        }
    }

    // Adaptive policies never get here with bypassed routers (mesh_params::validate).
    t.route = detail::dor_routes(t, routing == mesh_routing::yx);
    if (routing == mesh_routing::o1turn) t.route_yx = detail::dor_routes(t, true);
    return t;
}

inline void mesh_params::validate() const {
    check_range("cols", cols, 1u, 256u);
    check_range("rows", rows, 1u, 256u);
    check(cols * rows <= 4096, "rows", rows, "cols x rows <= 4096");
    check_range("subnets", subnets, 1u, 2u);
    check(!split_vcs || (subnets == 1 && num_vcs >= 2), "split_vcs", split_vcs,
          "false unless subnets = 1 and num_vcs >= 2");
    check_range("num_vcs", num_vcs, 1u, 32u);
    check_range("vc_buf_size", vc_buf_size, 1u, 4096u);
    check_range("routing_delay", routing_delay, 0u, 16u);
    check_range("vc_alloc_delay", vc_alloc_delay, 1u, 16u);
    check_range("sw_alloc_delay", sw_alloc_delay, 1u, 16u);
    check_range("st_prepare_delay", st_prepare_delay, 0u, 16u);
    check_range("st_final_delay", st_final_delay, 0u, 16u);
    check_range("credit_delay", credit_delay, 0u, 16u);
    check(!speculative || vc_alloc_delay == sw_alloc_delay, "speculative", speculative,
          "false unless vc_alloc_delay == sw_alloc_delay");
    check_range("link_latency", link_latency, 1u, 64u);
    check_range("bypass_delay", bypass_delay, 0u, 64u);
    check_range("alloc_iters", alloc_iters, 1u, 8u);
    check_range("inject_queue_packets", inject_queue_packets, 1u, 1u << 20);
    check_range("eject_queue_packets", eject_queue_packets, 1u, 1u << 20);
    check_range("flit_bits", flit_bits, 1u, 4096u);
    const auto policy = static_cast<std::size_t>(routing);
    const auto& policies = enum_names<mesh_routing>::names;
    check(policy < policies.size(), "routing", policy, "xy, yx, west_first, odd_even or o1turn");
    if (routing == mesh_routing::o1turn) {
        // Each traffic class's VCs are halved between XY and YX packets.
        const std::uint32_t least = split_vcs ? 4u : 2u;
        check(num_vcs >= least, "num_vcs", num_vcs,
              "[" + std::to_string(least) + ", 32] with routing = o1turn" +
                  (split_vcs ? " and split_vcs (two halves per class)" : " (XY and YX halves)"));
    }
    // An adaptive route may turn wherever its turn model allows, a disabled router nowhere;
    // turn rules aware of bypass paths would need their own deadlock argument, so the
    // adaptive policies come without bypass.
    check(bypass.empty() || routing == mesh_routing::xy || routing == mesh_routing::yx ||
              routing == mesh_routing::o1turn,
          "routing", policies[policy],
          "xy, yx or o1turn with bypassed routers (west_first and odd_even need none)");
    const auto t = build_mesh_topology(cols, rows, bypass, routing);
    check(std::uint64_t{t.ports} * num_vcs <= 4096, "num_vcs", num_vcs, "ports x num_vcs <= 4096");
}

} // namespace warpkit::noc
