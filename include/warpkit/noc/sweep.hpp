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
#include <utility>
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

/// run_rate's default cycle observer: nothing to tell.
struct ignore_cycles {
    void operator()(std::uint64_t /*cycles*/) const noexcept {}
};

namespace detail {

/// Packet counts and latency sums of a set of packets (all, or those made while sampling).
struct rate_tally {
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
    /// A packet made at `now`.
    void made(std::uint64_t now) {
        ++outstanding;
        ctime_sum += now;
    }
    /// An ejected packet.
    template <class Packet>
    void arrived(const Packet& pk) {
        ++count;
        lat += pk.latency();
        net_lat += pk.network_latency();
        hops += pk.hops;
        --outstanding;
        ctime_sum -= pk.created;
    }
};

/// One injection rate on one network, phase by phase: warm-up, sampling, drain. Each phase
/// returns why the rate is unstable, or nothing. `observe(cycles)` hears of every cycle run.
template <network Net, class Observer = ignore_cycles>
class rate_run {
public:
    rate_run(Net& net, const traffic& t, double rate, const sweep_params& sp, rng& r,
             Observer observe = {})
        : net_(net), traffic_(t), sp_(sp), rng_(r), observe_(std::move(observe)),
          n_nodes_(static_cast<node_id>(net.nodes())),
          p_packet_(rate / static_cast<double>(sp.packet_size)), queues_(n_nodes_) {
        res_.rate = rate;
    }

    [[nodiscard]] rate_result run() {
        std::string_view why = warm_up();
        if (why.empty()) why = sample();
        if (why.empty()) why = drain();
        return finish(why.empty() ? run_status::ok : run_status::unstable, why);
    }

private:
    using packet_type = typename Net::packet_type;

    [[nodiscard]] bool is_measured(std::uint64_t created) const {
        return created >= begin_ && created < end_;
    }

    // Bernoulli arrivals into the source queues.
    void make_packets() {
        const std::uint64_t now = net_.now();
        for (node_id n = 0; n < n_nodes_; ++n) {
            if (!rng_.bernoulli(p_packet_)) continue;
            packet_type pk;
            pk.src = n;
            pk.dst = traffic_.destination(n, rng_);
            pk.flits = sp_.packet_size;
            pk.cls = sp_.cls;
            pk.created = now;
            all_.made(now);
            if (is_measured(now)) measured_.made(now);
            queues_[n].push_back(std::move(pk));
        }
    }

    void eject_packets() {
        for (node_id n = 0; n < n_nodes_; ++n)
            while (net_.can_eject(n)) {
                const packet_type pk = net_.eject(n);
                if (sampling_) window_flits_ += pk.flits;
                total_flits_ += pk.flits;
                all_.arrived(pk);
                if (is_measured(pk.created)) measured_.arrived(pk);
            }
    }

    // One cycle: new packets, the source queues into the network, a tick, ejection.
    void step() {
        make_packets();
        for (node_id n = 0; n < n_nodes_; ++n)
            while (!queues_[n].empty() && net_.can_inject(n, sp_.cls))
                net_.inject(queues_[n].take_front());
        net_.tick();
        eject_packets();
        observe_(net_.now());
    }

    // Warm-up: nothing measured; give up early on runaway latency.
    [[nodiscard]] std::string_view warm_up() {
        for (std::uint64_t c = 1; c <= sp_.warmup_cycles; ++c) {
            step();
            if (c % sp_.sample_cycles == 0 && all_.age_latency(net_.now()) > sp_.latency_threshold)
                return "latency above threshold during warm-up";
        }
        return {};
    }

    // Sampling: packets made from here on are measured until the samples converge.
    [[nodiscard]] std::string_view sample() {
        begin_ = net_.now();
        sampling_ = true;
        double prev_lat = 0.0;
        double prev_acc = 0.0;
        std::uint32_t converged = 0;
        for (std::uint32_t period = 0; period < sp_.max_samples && converged < sp_.converge_periods;
             ++period) {
            for (std::uint64_t c = 0; c < sp_.sample_cycles; ++c)
                step();
            const double elapsed = static_cast<double>(net_.now() - begin_);
            res_.accepted_rate =
                static_cast<double>(window_flits_) / (elapsed * static_cast<double>(n_nodes_));
            if (measured_.age_latency(net_.now()) > sp_.latency_threshold)
                return "latency above threshold";
            const double cur_lat = measured_.count == 0 ? 0.0
                                                        : static_cast<double>(measured_.lat) /
                                                              static_cast<double>(measured_.count);
            const auto change = [](double cur, double prev) {
                if (cur == prev) return 0.0;
                return cur == 0.0 ? 1.0 : std::fabs(cur - prev) / cur;
            };
            const double lat_change = change(cur_lat, prev_lat);
            const double acc_change = change(res_.accepted_rate, prev_acc);
            prev_lat = cur_lat;
            prev_acc = res_.accepted_rate;
            if (lat_change < sp_.stop_threshold && acc_change < sp_.stop_threshold)
                ++converged;
            else
                converged = 0;
        }
        end_ = net_.now();
        sampling_ = false;
        if (converged < sp_.converge_periods) return "not converging";
        return {};
    }

    // Drain: keep the load on until every measured packet has arrived.
    [[nodiscard]] std::string_view drain() {
        for (std::uint64_t c = 1; measured_.outstanding != 0; ++c) {
            if (c > sp_.max_drain_cycles) return "drain too long";
            step();
            if (c % 1000 == 0 && measured_.age_latency(net_.now()) > sp_.latency_threshold)
                return "latency above threshold while draining";
        }
        return {};
    }

    [[nodiscard]] rate_result finish(run_status st, std::string_view why) {
        res_.status = st;
        res_.reason = why;
        res_.cycles = net_.now();
        res_.packets = measured_.count;
        // Stopped before any measured packet arrived: report the warm-up's packets.
        const rate_tally& x = measured_.count != 0 ? measured_ : all_;
        if (x.count != 0) {
            const auto c = static_cast<double>(x.count);
            res_.avg_packet_latency = static_cast<double>(x.lat) / c;
            res_.avg_network_latency = static_cast<double>(x.net_lat) / c;
            res_.hops_avg = static_cast<double>(x.hops) / c;
        }
        if (begin_ == no_time && net_.now() != 0)
            res_.accepted_rate = static_cast<double>(total_flits_) /
                                 (static_cast<double>(net_.now()) * static_cast<double>(n_nodes_));
        return res_;
    }

    Net& net_;
    const traffic& traffic_;
    const sweep_params& sp_;
    rng& rng_;
    Observer observe_;
    node_id n_nodes_;
    double p_packet_;
    std::vector<ring<packet_type>> queues_; ///< unbounded source queues, one per node
    rate_tally all_;
    rate_tally measured_;            ///< the packets made while sampling
    std::uint64_t begin_ = no_time;  ///< first cycle of sampling
    std::uint64_t end_ = no_time;    ///< cycle sampling ended
    std::uint64_t window_flits_ = 0; ///< ejected while sampling
    std::uint64_t total_flits_ = 0;
    bool sampling_ = false;
    rate_result res_;
};

} // namespace detail

/// Runs one rate on `net` (fresh, nodes() == t.nodes()); `observe(cycles)` is called after
/// every cycle (a progress report: at most warmup_cycles + max_samples x sample_cycles, plus
/// the drain's).
template <network Net, class Observer = ignore_cycles>
[[nodiscard]] rate_result run_rate(Net& net, const traffic& t, double rate, const sweep_params& sp,
                                   rng& r, Observer observe = {}) {
    validate(sp);
    check(rate >= 0.0 && rate <= 1.0, "rate", rate, "[0, 1] flits per node per cycle");
    check(net.nodes() == t.nodes(), "traffic.nodes", t.nodes(),
          "the network's node count " + std::to_string(net.nodes()));
    return detail::rate_run<Net, Observer>(net, t, rate, sp, r, std::move(observe)).run();
}

} // namespace warpkit::noc
