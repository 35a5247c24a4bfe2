#pragma once
/// \file
/// BookSim-style latency measurement of any network under synthetic traffic: Bernoulli
/// injection per node per cycle (rate in flits per node per cycle), unbounded source queues
/// (packet latency counts source queueing), a warm-up, sample periods until the average
/// latency and the accepted rate change by less than a threshold between periods, then a
/// drain of every packet made while sampling. A rate is unstable when the average latency
/// (packets in flight counted with their age) passes a threshold, or it does not converge.

#include <warpkit/core/error.hpp>
#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/concepts.hpp>
#include <warpkit/noc/detail/ring.hpp>
#include <warpkit/noc/packet.hpp>
#include <warpkit/noc/traffic.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace warpkit::noc {

/// Measurement settings. Defaults: BookSim's (3 warm-up periods of 1000 cycles, at most 10
/// sample periods, 5% convergence over 3 periods, latency threshold 500).
struct sweep_params {
    std::uint64_t warmup_cycles = 3000;
    std::uint64_t sample_cycles = 1000; ///< length of one sample period
    std::uint32_t max_samples = 10;     ///< sample periods before a rate is called unstable
    std::uint32_t converge_periods = 3; ///< consecutive periods within the threshold
    double stop_threshold = 0.05;       ///< relative change of latency and accepted rate
    double latency_threshold = 500.0;   ///< average latency that makes a rate unstable
    std::uint64_t max_drain_cycles = 100000;
    std::uint32_t packet_size = 1; ///< flits per packet
    traffic_class cls = traffic_class::request;
    WARPKIT_FIELDS(sweep_params, warmup_cycles, sample_cycles, max_samples, converge_periods,
                   stop_threshold, latency_threshold, max_drain_cycles, packet_size, cls)

    void validate() const {
        check_range("warmup_cycles", warmup_cycles, std::uint64_t{0}, std::uint64_t{1} << 40);
        check_range("sample_cycles", sample_cycles, std::uint64_t{1}, std::uint64_t{1} << 40);
        check_range("max_samples", max_samples, 1u, 100000u);
        check_range("converge_periods", converge_periods, 1u, 1000u);
        check(stop_threshold > 0.0 && stop_threshold < 1.0, "stop_threshold", stop_threshold,
              "(0, 1)");
        check(latency_threshold > 0.0, "latency_threshold", latency_threshold, "> 0");
        check_range("packet_size", packet_size, 1u, 65535u);
    }
};

/// How a rate ended.
enum class run_status : std::uint8_t { ok, unstable };

/// The figures of one injection rate (averages over the packets made while sampling).
struct rate_result {
    double rate = 0.0;                ///< offered, flits per node per cycle
    double avg_packet_latency = 0.0;  ///< creation to tail ejection
    double avg_network_latency = 0.0; ///< head injection to tail ejection
    double accepted_rate = 0.0;       ///< flits ejected per node per cycle while sampling
    double hops_avg = 0.0;            ///< routers per packet
    run_status status = run_status::ok;
    std::string_view reason;   ///< why unstable (empty when ok)
    std::uint64_t cycles = 0;  ///< simulated, warm-up and drain included
    std::uint64_t packets = 0; ///< packets measured
};

/// Runs one rate on `net` (fresh, nodes() == t.nodes()).
template <network Net>
[[nodiscard]] rate_result run_rate(Net& net, const traffic& t, double rate, const sweep_params& sp,
                                   rng& r) {
    validate(sp);
    check(rate >= 0.0 && rate <= 1.0, "rate", rate, "[0, 1] flits per node per cycle");
    check(net.nodes() == t.nodes(), "traffic.nodes", t.nodes(),
          "the network's node count " + std::to_string(net.nodes()));
    using packet_type = typename Net::packet_type;
    const auto n_nodes = static_cast<node_id>(net.nodes());
    const double p_packet = rate / static_cast<double>(sp.packet_size);
    std::vector<detail::ring<packet_type>> q(n_nodes);

    struct tally {
        std::uint64_t count = 0;
        std::uint64_t lat = 0;
        std::uint64_t net_lat = 0;
        std::uint64_t hops = 0;
        std::uint64_t outstanding = 0; ///< made, not yet ejected
        std::uint64_t ctime_sum = 0;   ///< creation times of the outstanding ones
        /// Average latency with outstanding packets counted at their current age.
        [[nodiscard]] double age_latency(std::uint64_t now) const {
            const std::uint64_t n = count + outstanding;
            if (n == 0) return 0.0;
            return (static_cast<double>(lat) + static_cast<double>(outstanding * now - ctime_sum)) /
                   static_cast<double>(n);
        }
    };
    tally all;
    tally measured;
    std::uint64_t begin = no_time;
    std::uint64_t end = no_time;
    std::uint64_t window_flits = 0;
    std::uint64_t total_flits = 0;
    bool sampling = false;
    const auto is_measured = [&](std::uint64_t created) {
        return created >= begin && created < end;
    };

    const auto step = [&] {
        const std::uint64_t now = net.now();
        for (node_id n = 0; n < n_nodes; ++n) {
            if (!r.bernoulli(p_packet)) continue;
            packet_type pk;
            pk.src = n;
            pk.dst = t.destination(n, r);
            pk.flits = sp.packet_size;
            pk.cls = sp.cls;
            pk.created = now;
            ++all.outstanding;
            all.ctime_sum += now;
            if (is_measured(now)) {
                ++measured.outstanding;
                measured.ctime_sum += now;
            }
            q[n].push_back(std::move(pk));
        }
        for (node_id n = 0; n < n_nodes; ++n)
            while (!q[n].empty() && net.can_inject(n, sp.cls))
                net.inject(q[n].take_front());
        net.tick();
        for (node_id n = 0; n < n_nodes; ++n)
            while (net.can_eject(n)) {
                const packet_type pk = net.eject(n);
                if (sampling) window_flits += pk.flits;
                total_flits += pk.flits;
                const auto add = [&](tally& x) {
                    ++x.count;
                    x.lat += pk.latency();
                    x.net_lat += pk.network_latency();
                    x.hops += pk.hops;
                    --x.outstanding;
                    x.ctime_sum -= pk.created;
                };
                add(all);
                if (is_measured(pk.created)) add(measured);
            }
    };

    rate_result res;
    res.rate = rate;
    const auto finish = [&](run_status st, std::string_view why) {
        res.status = st;
        res.reason = why;
        res.cycles = net.now();
        res.packets = measured.count;
        // Stopped before any measured packet arrived: report the warm-up's packets.
        const tally& x = measured.count != 0 ? measured : all;
        if (x.count != 0) {
            const auto c = static_cast<double>(x.count);
            res.avg_packet_latency = static_cast<double>(x.lat) / c;
            res.avg_network_latency = static_cast<double>(x.net_lat) / c;
            res.hops_avg = static_cast<double>(x.hops) / c;
        }
        if (begin == no_time && net.now() != 0)
            res.accepted_rate = static_cast<double>(total_flits) /
                                (static_cast<double>(net.now()) * static_cast<double>(n_nodes));
        return res;
    };

    // Warm-up: nothing measured; give up early on runaway latency.
    for (std::uint64_t c = 1; c <= sp.warmup_cycles; ++c) {
        step();
        if (c % sp.sample_cycles == 0 && all.age_latency(net.now()) > sp.latency_threshold)
            return finish(run_status::unstable, "latency above threshold during warm-up");
    }

    // Sampling: packets made from here on are measured until the samples converge.
    begin = net.now();
    sampling = true;
    double prev_lat = 0.0;
    double prev_acc = 0.0;
    std::uint32_t converged = 0;
    for (std::uint32_t period = 0; period < sp.max_samples && converged < sp.converge_periods;
         ++period) {
        for (std::uint64_t c = 0; c < sp.sample_cycles; ++c)
            step();
        const double elapsed = static_cast<double>(net.now() - begin);
        res.accepted_rate =
            static_cast<double>(window_flits) / (elapsed * static_cast<double>(n_nodes));
        if (measured.age_latency(net.now()) > sp.latency_threshold)
            return finish(run_status::unstable, "latency above threshold");
        const double cur_lat = measured.count == 0 ? 0.0
                                                   : static_cast<double>(measured.lat) /
                                                         static_cast<double>(measured.count);
        const auto change = [](double cur, double prev) {
            if (cur == prev) return 0.0;
            return cur == 0.0 ? 1.0 : std::fabs(cur - prev) / cur;
        };
        const double lat_change = change(cur_lat, prev_lat);
        const double acc_change = change(res.accepted_rate, prev_acc);
        prev_lat = cur_lat;
        prev_acc = res.accepted_rate;
        if (lat_change < sp.stop_threshold && acc_change < sp.stop_threshold)
            ++converged;
        else
            converged = 0;
    }
    end = net.now();
    sampling = false;
    if (converged < sp.converge_periods) return finish(run_status::unstable, "not converging");

    // Drain: keep the load on until every measured packet has arrived.
    for (std::uint64_t c = 1; measured.outstanding != 0; ++c) {
        if (c > sp.max_drain_cycles) return finish(run_status::unstable, "drain too long");
        step();
        if (c % 1000 == 0 && measured.age_latency(net.now()) > sp.latency_threshold)
            return finish(run_status::unstable, "latency above threshold while draining");
    }
    return finish(run_status::ok, {});
}

} // namespace warpkit::noc
