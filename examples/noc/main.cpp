// warpkit-noc: synthetic-traffic sweeps of a network model, BookSim style, and the cluster
// packets of paper 000 as bits.
//
//   warpkit-noc [--topology mesh|crossbar|ideal] [--k 8 --n 2] [--vcs 2 --vc-buf 8]
//               [--packet-size 1] [--traffic uniform|transpose|hotspot|bit_complement]
//               [--rates 0.02,0.06,...] [--warmup C --sample C] [--seed S]
//               [--router-delays routing,vc,sw,st] [--speculative] [--two-stage] ...
//     prints `rate,avg_packet_latency,avg_network_latency,accepted_rate,hops_avg,status`
//     rows (status ok or unstable); progress goes to stderr: a line per rate and, on a
//     terminal, a progress line within each rate (cycles of warm-up and sampling done, ETA;
//     [--quiet] hides it, [--progress] shows it on a file or pipe too). [--csv FILE] writes
//     the same rows to FILE; [--json FILE] writes the params, one object per rate, the
//     saturation rate and the zero-load latency (examples/common/output.hpp's schema).
//   warpkit-noc --encode inst|mem|ctrl field=value ...   prints the packet as 0x + hex
//   warpkit-noc --decode inst|mem|ctrl 0xHEX             prints name=value lines
//
// Bad input: a message on stderr and exit code 2; a run that cannot go on (sim_error): 1.
#include "../common/command_line.hpp"
#include "../common/output.hpp"
#include "../common/tool_main.hpp"

#include <warpkit/core/error.hpp>
#include <warpkit/core/json.hpp>
#include <warpkit/core/rng.hpp>
#include <warpkit/noc/cluster_packet.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh.hpp>
#include <warpkit/noc/sweep.hpp>
#include <warpkit/noc/traffic.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace {

using namespace warpkit::noc;

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find(sep, b);
        out.emplace_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
        if (e == std::string_view::npos) break;
        b = e + 1;
    }
    return out;
}

/// Decimal or 0x-prefixed hex, the whole string.
std::uint64_t parse_uint(std::string_view text, std::string_view what) {
    std::string_view t = text;
    int base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        base = 16;
        t.remove_prefix(2);
    }
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
    if (t.empty() || ec != std::errc{} || p != t.data() + t.size())
        throw usage_error(std::string(what) + ": expected an unsigned integer, got '" +
                          std::string(text) + "'");
    return v;
}

double parse_rate(std::string_view text) {
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc{} || p != text.data() + text.size() || !(v >= 0.0) ||
        v > 1.0)
        throw usage_error("--rates: each rate must be a number in [0, 1] flits/node/cycle, got '" +
                          std::string(text) + "'");
    return v;
}

cluster_packet_kind parse_kind(std::string_view s) {
    if (s == "inst") return cluster_packet_kind::inst;
    if (s == "mem") return cluster_packet_kind::mem;
    if (s == "ctrl") return cluster_packet_kind::ctrl;
    throw usage_error("packet kind must be inst, mem or ctrl, got '" + std::string(s) + "'");
}

int encode_mode(const std::string& kind_text, const std::vector<std::string>& args) {
    const cluster_packet_kind kind = parse_kind(kind_text);
    const auto fields = layout(kind);
    std::array<std::uint64_t, 9> v{};
    std::array<bool, 9> seen{};
    std::string known;
    for (const auto& f : fields)
        known += (known.empty() ? "" : " ") + std::string(f.name);
    for (const auto& a : args) {
        const auto eq = a.find('=');
        if (eq == std::string::npos)
            throw usage_error("expected field=value, got '" + a + "' (fields: " + known + ")");
        const std::string name = a.substr(0, eq);
        std::size_t i = 0;
        while (i < fields.size() && fields[i].name != name)
            ++i;
        if (i == fields.size())
            throw usage_error("unknown " + kind_text + " field '" + name + "' (fields: " + known +
                              ")");
        if (seen[i]) throw usage_error("field '" + name + "' given twice");
        seen[i] = true;
        v[i] = parse_uint(a.substr(eq + 1), name);
    }
    const std::uint64_t w =
        encode_fields(kind, std::span<const std::uint64_t>(v.data(), fields.size()));
    std::cout << "0x" << to_hex(w, packet_bits(kind) / 4) << '\n';
    return 0;
}

int decode_mode(const std::string& kind_text, const std::vector<std::string>& args) {
    const cluster_packet_kind kind = parse_kind(kind_text);
    if (args.size() != 1) throw usage_error("--decode takes one hex word, e.g. 0xac31");
    std::string_view t = args[0];
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
    std::uint64_t w = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), w, 16);
    if (t.empty() || p != t.data() + t.size() || ec == std::errc::invalid_argument)
        throw usage_error("--decode: expected a hex word, got '" + args[0] + "'");
    if (ec == std::errc::result_out_of_range)
        throw usage_error("--decode: '" + args[0] + "' is wider than 64 bits");
    const auto v = decode_fields(kind, w);
    const auto fields = layout(kind);
    for (std::size_t i = 0; i < fields.size(); ++i)
        std::cout << fields[i].name << '=' << v[i] << '\n';
    return 0;
}

struct options {
    std::string topology = "mesh";
    std::uint32_t k = 8;
    std::uint32_t n = 2;
    std::uint32_t vcs = 2;
    std::uint32_t vc_buf = 8;
    std::uint32_t packet_size = 1;
    std::string traffic = "uniform";
    std::string rates = "0.02,0.06,0.10,0.14,0.18,0.22,0.26,0.30,0.34,0.38,0.42,0.46,0.50";
    std::uint64_t warmup = 3000;
    std::uint64_t sample = 1000;
    std::uint32_t max_samples = 10;
    double latency_threshold = 500.0;
    std::uint64_t seed = 1;
    std::string router_delays = "1,1,1,1";
    bool speculative = false;
    bool two_stage = false;
    std::uint32_t subnets = 1;
    std::uint32_t link_latency = 1;
    std::uint32_t credit_delay = 0;
    std::string bypass;
    std::uint32_t bypass_delay = 0;
    std::string allocator = "islip";
    std::string routing = "xy";
    bool voq = false;
    std::uint32_t latency = 0; // ideal: cycles; crossbar: switch latency (0 = default)
    std::string hotspots = "0";
    double hotspot_fraction = 1.0;
    example::progress_options progress;
    example::output_files outputs; // --json, --csv
};

/// The options as the "params" of the JSON record (the network's own params join them).
nlohmann::json options_json(const options& o, const std::vector<double>& rates) {
    return {{"topology", o.topology},
            {"k", o.k},
            {"n", o.n},
            {"vcs", o.vcs},
            {"vc_buf", o.vc_buf},
            {"packet_size", o.packet_size},
            {"traffic", o.traffic},
            {"rates", rates},
            {"warmup", o.warmup},
            {"sample", o.sample},
            {"max_samples", o.max_samples},
            {"latency_threshold", o.latency_threshold},
            {"seed", o.seed},
            {"router_delays", o.router_delays},
            {"speculative", o.speculative},
            {"two_stage", o.two_stage},
            {"subnets", o.subnets},
            {"link_latency", o.link_latency},
            {"credit_delay", o.credit_delay},
            {"bypass", o.bypass},
            {"bypass_delay", o.bypass_delay},
            {"allocator", o.allocator},
            {"routing", o.routing},
            {"voq", o.voq},
            {"latency", o.latency},
            {"hotspots", o.hotspots},
            {"hotspot_fraction", o.hotspot_fraction}};
}

/// The CSV columns of the sweep, as printed on stdout and written by --csv.
example::csv_table rate_table() {
    return example::csv_table({"rate", "avg_packet_latency", "avg_network_latency", "accepted_rate",
                               "hops_avg", "status"});
}

/// Appends the row of `res` to `table`, in the printed precision.
void add_rate_row(example::csv_table& table, const rate_result& res) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%g", res.rate);
    table.row()
        .add_formatted(rate)
        .add_formatted(example::fixed_cell(res.avg_packet_latency, 3))
        .add_formatted(example::fixed_cell(res.avg_network_latency, 3))
        .add_formatted(example::fixed_cell(res.accepted_rate, 4))
        .add_formatted(example::fixed_cell(res.hops_avg, 3))
        .add_formatted(res.status == run_status::ok ? "ok" : "unstable");
}

/// The JSON record of a sweep: the header, "params" (the options and the network's and the
/// sweep's params), one object per rate, the saturation rate (the first rate whose status is
/// not ok; null when all are) and the zero-load latency (the packet latency of the lowest
/// rate).
nlohmann::json sweep_json(nlohmann::json record, nlohmann::json params,
                          const std::vector<rate_result>& results) {
    record["params"] = std::move(params);
    nlohmann::json points = nlohmann::json::array();
    nlohmann::json saturation = nullptr;
    const rate_result* lowest = nullptr;
    for (const auto& res : results) {
        const bool ok = res.status == run_status::ok;
        points.push_back({{"offered_flits_per_node_cycle", res.rate},
                          {"packet_latency_cycles", res.avg_packet_latency},
                          {"network_latency_cycles", res.avg_network_latency},
                          {"accepted_flits_per_node_cycle", res.accepted_rate},
                          {"hops_per_packet", res.hops_avg},
                          {"status", ok ? "ok" : "unstable"},
                          {"reason", std::string(res.reason)},
                          {"cycles", res.cycles},
                          {"packets_measured", res.packets}});
        if (!ok && saturation.is_null()) saturation = res.rate;
        if (lowest == nullptr || res.rate < lowest->rate) lowest = &res;
    }
    record["points"] = std::move(points);
    record["saturation_rate"] = saturation;
    record["zero_load_latency"] =
        lowest == nullptr ? nlohmann::json(nullptr) : nlohmann::json(lowest->avg_packet_latency);
    return record;
}

mesh_params make_mesh(const options& o) {
    mesh_params p;
    p.cols = o.k;
    p.rows = o.n == 1 ? 1 : o.k;
    p.subnets = o.subnets;
    p.num_vcs = o.vcs;
    p.vc_buf_size = o.vc_buf;
    const auto d = split(o.router_delays, ',');
    if (d.size() != 4)
        throw usage_error("--router-delays: expected routing,vc,sw,st (4 numbers), got '" +
                          o.router_delays + "'");
    const auto num = [](const std::string& s) {
        const std::uint64_t v = parse_uint(s, "--router-delays");
        if (v > 16) throw usage_error("--router-delays: each delay must be <= 16");
        return static_cast<std::uint32_t>(v);
    };
    p.routing_delay = num(d[0]);
    p.vc_alloc_delay = num(d[1]);
    p.sw_alloc_delay = num(d[2]);
    p.st_prepare_delay = 0;
    p.st_final_delay = num(d[3]);
    p.speculative = o.speculative;
    if (o.two_stage) p = two_stage_router(p);
    p.link_latency = o.link_latency;
    p.credit_delay = o.credit_delay;
    p.bypass_delay = o.bypass_delay;
    p.inject_queue_packets = 4;
    warpkit::apply_override(p, "routing=" + o.routing); // names the choices when unknown
    if (!o.bypass.empty())
        for (const auto& e : split(o.bypass, ',')) {
            const auto pair = split(e, ':');
            if (pair.size() != 2)
                throw usage_error("--bypass: expected node:host pairs, got '" + e + "'");
            p.bypass.push_back({static_cast<std::uint32_t>(parse_uint(pair[0], "--bypass")),
                                static_cast<std::uint32_t>(parse_uint(pair[1], "--bypass"))});
        }
    warpkit::validate(p);
    return p;
}

/// Writes the JSON record of the sweep when --json asks for it.
void write_sweep_json(const options& o, const nlohmann::json& record,
                      const std::vector<double>& rates, nlohmann::json network,
                      const sweep_params& sp, const std::vector<rate_result>& results) {
    if (o.outputs.json.empty()) return;
    auto params = options_json(o, rates);
    params["network"] = std::move(network);
    params["sweep"] = warpkit::params_to_json(sp);
    example::write_json_file(o.outputs.json, sweep_json(record, std::move(params), results));
}

/// Runs every rate on a fresh network from `make` (whose params are `network`), printing a CSV
/// row per rate, then writes --csv and --json (`record`: the JSON record's header).
template <class Make>
int sweep(const options& o, const traffic& t, const std::vector<double>& rates,
          const nlohmann::json& record, const nlohmann::json& network, Make make) {
    sweep_params sp;
    sp.warmup_cycles = o.warmup;
    sp.sample_cycles = o.sample;
    sp.max_samples = o.max_samples;
    sp.latency_threshold = o.latency_threshold;
    sp.packet_size = o.packet_size;
    warpkit::validate(sp);
    auto probe = make(); // checks the network params before any output
    (void)probe;
    auto table = rate_table();
    std::cout << table.header() << '\n';
    std::vector<rate_result> results;
    example::progress_line progress("warpkit-noc", o.progress);
    // The drain's cycles come on top: past this, the count stays at its end.
    const std::uint64_t planned = sp.warmup_cycles + sp.max_samples * sp.sample_cycles;
    const auto show = [&](std::uint64_t cycle) {
        if (cycle % 64 == 0)
            progress.update({"cycle", std::min(cycle, planned), planned, "cycles"});
    };
    for (std::size_t index = 0; index < rates.size(); ++index) {
        const double rate = rates[index];
        auto net = make();
        warpkit::rng r(o.seed);
        const auto t0 = std::chrono::steady_clock::now();
        char what[64];
        std::snprintf(what, sizeof what, "rate %g (%zu/%zu)", rate, index + 1, rates.size());
        progress.stage(what);
        const rate_result res = progress.enabled() ? run_rate(net, t, rate, sp, r, show)
                                                   : run_rate(net, t, rate, sp, r);
        progress.finish();
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const bool ok = res.status == run_status::ok;
        add_rate_row(table, res);
        std::printf("%s\n", table.line(table.rows() - 1).c_str());
        std::fflush(stdout);
        std::fprintf(stderr, "rate %g: %s%s%s, %llu cycles, %llu packets measured, %.2f s\n", rate,
                     ok ? "ok" : "unstable", ok ? "" : " (",
                     ok ? "" : (std::string(res.reason) + ")").c_str(),
                     static_cast<unsigned long long>(res.cycles),
                     static_cast<unsigned long long>(res.packets), secs);
        results.push_back(res);
    }
    if (!o.outputs.csv.empty()) table.write(o.outputs.csv);
    write_sweep_json(o, record, rates, network, sp, results);
    return 0;
}

int sweep_mode(const options& o, const nlohmann::json& record) {
    if (o.n < 1 || o.n > 2) throw usage_error("--n: only 1 or 2 dimensions are supported");
    traffic_params tp;
    tp.k = o.k;
    tp.n = o.n;
    if (o.traffic == "uniform")
        tp.pattern = traffic_pattern::uniform;
    else if (o.traffic == "transpose")
        tp.pattern = traffic_pattern::transpose;
    else if (o.traffic == "hotspot")
        tp.pattern = traffic_pattern::hotspot;
    else if (o.traffic == "bit_complement")
        tp.pattern = traffic_pattern::bit_complement;
    else
        throw usage_error("--traffic must be uniform, transpose, hotspot or bit_complement, got '" +
                          o.traffic + "'");
    tp.hotspots.clear();
    for (const auto& h : split(o.hotspots, ','))
        tp.hotspots.push_back(static_cast<std::uint32_t>(parse_uint(h, "--hotspots")));
    tp.hotspot_fraction = o.hotspot_fraction;
    const traffic t(tp);
    std::vector<double> rates;
    for (const auto& r : split(o.rates, ','))
        rates.push_back(parse_rate(r));
    const std::uint32_t nodes = tp.nodes();
    const bool rr = o.allocator == "round_robin" || o.allocator == "rr";
    if (!rr && o.allocator != "islip")
        throw usage_error("--allocator must be islip or round_robin, got '" + o.allocator + "'");

    std::fprintf(stderr, "warpkit-noc: %s, %u nodes, %s traffic, %u-flit packets\n",
                 o.topology.c_str(), nodes, o.traffic.c_str(), o.packet_size);
    if (o.topology == "mesh") {
        const mesh_params p = make_mesh(o);
        std::fprintf(stderr,
                     "mesh %ux%u, %s routing, %u subnet(s), %u VCs x %u flits, delays routing "
                     "%u vc %u sw %u st %u%s, link %u\n",
                     p.cols, p.rows, o.routing.c_str(), p.subnets, p.num_vcs, p.vc_buf_size,
                     p.routing_delay, p.vc_alloc_delay, p.sw_alloc_delay, p.st_final_delay,
                     p.speculative ? " (speculative)" : "", p.link_latency);
        const auto network = warpkit::params_to_json(p);
        if (rr)
            return sweep(o, t, rates, record, network,
                         [&] { return mesh<std::uint64_t, round_robin>(p); });
        return sweep(o, t, rates, record, network, [&] { return mesh<std::uint64_t, islip>(p); });
    }
    if (o.topology == "crossbar") {
        crossbar_params p;
        p.nodes = nodes;
        p.subnets = o.subnets;
        p.voq = o.voq;
        p.input_buffer_flits = o.vc_buf;
        p.output_buffer_flits = o.vc_buf;
        if (o.latency != 0) p.latency = o.latency;
        p.inject_queue_packets = 4;
        warpkit::validate(p);
        const auto network = warpkit::params_to_json(p);
        if (rr)
            return sweep(o, t, rates, record, network,
                         [&] { return crossbar<std::uint64_t, round_robin>(p); });
        return sweep(o, t, rates, record, network,
                     [&] { return crossbar<std::uint64_t, islip>(p); });
    }
    if (o.topology == "ideal") {
        ideal_params p;
        p.nodes = nodes;
        p.latency = o.latency;
        warpkit::validate(p);
        return sweep(o, t, rates, record, warpkit::params_to_json(p),
                     [&] { return ideal_network<>(p); });
    }
    throw usage_error("--topology must be mesh, crossbar or ideal, got '" + o.topology + "'");
}

int tool_main(int argc, char** argv) {
    CLI::App app{"warpkit-noc: BookSim-style synthetic traffic sweeps of warpkit's networks, "
                 "and paper 000's cluster packets as bits"};
    options o;
    std::string encode;
    std::string decode;
    std::vector<std::string> rest;
    app.add_option("--topology", o.topology, "mesh, crossbar or ideal")->capture_default_str();
    app.add_option("--k", o.k, "nodes per dimension")->capture_default_str();
    app.add_option("--n", o.n, "dimensions (1 or 2)")->capture_default_str();
    app.add_option("--vcs", o.vcs, "virtual channels per port (mesh)")->capture_default_str();
    app.add_option("--vc-buf", o.vc_buf, "flits per VC buffer (crossbar: per input/output)")
        ->capture_default_str();
    app.add_option("--packet-size", o.packet_size, "flits per packet")->capture_default_str();
    app.add_option("--traffic", o.traffic, "uniform, transpose, hotspot or bit_complement")
        ->capture_default_str();
    app.add_option("--rates", o.rates, "injection rates, flits/node/cycle, comma separated")
        ->capture_default_str();
    app.add_option("--warmup", o.warmup, "warm-up cycles")->capture_default_str();
    app.add_option("--sample", o.sample, "cycles per sample period")->capture_default_str();
    app.add_option("--max-samples", o.max_samples, "sample periods before giving up")
        ->capture_default_str();
    app.add_option("--latency-threshold", o.latency_threshold,
                   "average latency that makes a rate unstable")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "random seed")->capture_default_str();
    app.add_option("--router-delays", o.router_delays,
                   "routing,vc,sw,st delays of the mesh router (BookSim default 1,1,1,1)")
        ->capture_default_str();
    app.add_flag("--speculative", o.speculative, "speculative VC + switch allocation");
    app.add_flag("--two-stage", o.two_stage,
                 "2-stage router: lookahead routing, speculative allocation (paper 002)");
    app.add_option("--subnets", o.subnets, "physical subnets (1 or 2)")->capture_default_str();
    app.add_option("--link-latency", o.link_latency, "mesh link cycles")->capture_default_str();
    app.add_option("--credit-delay", o.credit_delay, "mesh credit delay")->capture_default_str();
    app.add_option("--bypass", o.bypass, "disabled routers as node:host pairs, e.g. 1:0,9:8");
    app.add_option("--bypass-delay", o.bypass_delay, "extra cycles per bypassed router")
        ->capture_default_str();
    app.add_option("--allocator", o.allocator, "islip or round_robin")->capture_default_str();
    app.add_option("--routing", o.routing, "mesh routing: xy, yx, west_first, odd_even or o1turn")
        ->capture_default_str();
    app.add_flag("--voq", o.voq, "crossbar inputs as virtual output queues");
    app.add_option("--latency", o.latency, "ideal: delivery cycles; crossbar: switch cycles")
        ->capture_default_str();
    app.add_option("--hotspots", o.hotspots, "hotspot nodes, comma separated")
        ->capture_default_str();
    app.add_option("--hotspot-fraction", o.hotspot_fraction, "share of packets to hotspots")
        ->capture_default_str();
    app.add_option("--encode", encode, "print a cluster packet (inst, mem, ctrl) as hex");
    app.add_option("--decode", decode, "print the fields of a cluster packet (inst, mem, ctrl)");
    app.add_option("fields", rest, "field=value ... (--encode) or 0xHEX (--decode)");
    app.add_option("--csv", o.outputs.csv, "also write the CSV rows to this file");
    app.add_option("--json", o.outputs.json,
                   "write the params, one object per rate, the saturation rate and the zero-load "
                   "latency as JSON to this file");
    example::add_progress_flags(app, o.progress);
    if (const auto code = example::parse_command_line(app, argc, argv)) return *code;
    try {
        if (!encode.empty() && !decode.empty())
            throw usage_error("--encode and --decode exclude each other");
        if (!encode.empty()) return encode_mode(encode, rest);
        if (!decode.empty()) return decode_mode(decode, rest);
        if (!rest.empty())
            throw usage_error("unexpected argument '" + rest.front() +
                              "' (field=value lists go with --encode)");
        return sweep_mode(o, example::record_header("warpkit-noc", argc, argv));
    } catch (const warpkit::config_error& e) {
        std::cerr << "warpkit-noc: " << e.what() << '\n';
        return 2;
    } catch (const usage_error& e) {
        std::cerr << "warpkit-noc: " << e.what() << '\n';
        return 2;
    } catch (const warpkit::sim_error& e) {
        std::cerr << "warpkit-noc: " << e.what() << '\n';
        return 1;
    }
}

} // namespace

int main(int argc, char** argv) {
    return example::guarded_main("warpkit-noc", [&] { return tool_main(argc, argv); });
}
