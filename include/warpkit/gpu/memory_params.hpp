#pragma once
/// \file
/// `memory_params`: the memory behind the SMs' LD/ST units. `model` picks the fixed-latency
/// ("ideal") memory of sm_params (global_latency, const_latency) or the hierarchy: per SM an
/// L1 data cache and a constant cache with MSHRs and a pending request table, a network on
/// chip (ideal, crossbar or mesh) with request and reply classes, and memory partitions, each
/// a DRAM channel with its L2 slice(s), on their own clocks. Defaults: the GTX480 (papers 001
/// and 003; paper 002 Table 1 defers to GPGPU-Sim v3.2.2's GTX480 configuration for the
/// parameters it does not list, which gives the L2 and DRAM pipeline latencies 120 and 100).

#include <warpkit/core/params.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/mem/cache.hpp>
#include <warpkit/mem/cache_controller.hpp>
#include <warpkit/mem/dram_params.hpp>
#include <warpkit/mem/pending_request_table.hpp>
#include <warpkit/mem/transaction.hpp>
#include <warpkit/noc/crossbar.hpp>
#include <warpkit/noc/ideal_network.hpp>
#include <warpkit/noc/mesh_params.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpkit::gpu {

/// Which memory answers the SMs' global, local and constant accesses.
enum class memory_model : std::uint8_t {
    ideal,    ///< fixed latencies (sm_params::global_latency, const_latency), no contention
    hierarchy ///< L1 / constant caches, network on chip, L2 slices, DRAM channels
};
/// Which network connects SMs and L2 slices.
enum class network_model : std::uint8_t { ideal, crossbar, mesh };
/// Command scheduler of every DRAM channel.
enum class dram_policy : std::uint8_t { fr_fcfs, fcfs };

} // namespace warpkit::gpu

template <>
struct warpkit::enum_names<warpkit::gpu::memory_model> {
    static constexpr std::array<std::string_view, 2> names = {"ideal", "hierarchy"};
};
template <>
struct warpkit::enum_names<warpkit::gpu::network_model> {
    static constexpr std::array<std::string_view, 3> names = {"ideal", "crossbar", "mesh"};
};
template <>
struct warpkit::enum_names<warpkit::gpu::dram_policy> {
    static constexpr std::array<std::string_view, 2> names = {"fr_fcfs", "fcfs"};
};

namespace warpkit::gpu {

/// The 8 KB constant cache of a Fermi SM (papers 001 Table 4 and 002 Table 1): 32 sets of
/// 2 ways of 128-byte lines (the line of the L1 and L2), read-only.
[[nodiscard]] constexpr mem::cache_params fermi_constant_cache() noexcept {
    mem::cache_params p;
    p.sets = 32;
    p.ways = 2;
    return p;
}

/// The 12 KB texture cache of a Fermi SM (NVIDIA's GF100 description: 12 KB of texture cache
/// per SM) with the geometry of GPGPU-Sim's GTX480 configuration: 4 sets of 24 ways of
/// 128-byte lines, read-only.
[[nodiscard]] constexpr mem::cache_params fermi_texture_cache() noexcept {
    mem::cache_params p;
    p.sets = 4;
    p.ways = 24;
    return p;
}

/// The memory side of one SM (used by the hierarchy model).
struct l1_params {
    /// L1 data cache: GTX480 16 KB (32 sets x 128 B x 4 ways), write-evict for global data,
    /// 64 MSHR entries of up to 8 merged requests, 8 requests waiting for the network. A
    /// sectored L1 (`cache.sector_bytes` 32: Volta onwards) tracks, misses and fetches each
    /// 32-byte sector alone; it needs the SM's sector coalescer (one transaction per sector).
    mem::cache_controller_params data{};
    /// Transactions of one warp access that meet the L1 data, constant or texture cache per
    /// cycle. Fermi's L1 takes one 128-byte line a cycle (1); a sectored L1 that reads four
    /// 32-byte sectors of one access a cycle moves the same 128 bytes (4).
    std::uint32_t transactions_per_cycle = 1;
    /// Core cycles from the tag lookup of a hit to its data at writeback. Fermi's L1 and
    /// shared memory are one 64 KB array, so a hit costs what a shared access costs (38).
    std::uint32_t data_latency = 38;
    /// Constant cache: 8 KB, its own MSHRs and miss queue.
    mem::cache_controller_params constant{fermi_constant_cache(), mem::mshr_params{8, 8}, 4};
    /// Core cycles of a constant-cache hit (the fixed constant latency of the ideal model).
    std::uint32_t constant_latency = 38;
    /// Texture cache for `tex` fetches: 12 KB, 128 MSHR entries of up to 4 merged requests
    /// and 128 waiting misses (GPGPU-Sim's GTX480 texture cache).
    mem::cache_controller_params texture{fermi_texture_cache(), mem::mshr_params{128, 4}, 128};
    /// Core cycles of a texture-cache hit: 261, the texture L1 hit latency Wong et al.
    /// measured on the GT200 ("Demystifying GPU Microarchitecture through
    /// Microbenchmarking", ISPASS 2010; the papers implemented here give no Fermi figure).
    /// With the ideal memory a fetch costs the global latency.
    std::uint32_t texture_latency = 261;
    /// Warp memory instructions in flight (global, local, constant, atomic).
    mem::prt_params prt{};
    std::uint32_t reply_queue = 4;  ///< replies taken from the network, one handled per cycle
    std::uint32_t atomic_queue = 8; ///< atomics waiting for the network (they bypass the L1)
    /// 0 (Fermi, the default): the L1 data cache (`data.cache`) and shared memory
    /// (gpu_params::shared_bytes) keep their sizes. Otherwise the bytes of the one array that
    /// L1 data and shared memory split anew for each kernel (Volta onwards): `data.cache` then
    /// describes the whole array, and each launch gives shared memory the smallest of
    /// `shared_options_kb` that holds the shared memory of as many blocks as the SM can hold
    /// (the CUDA Programming Guide: the driver picks the capacity per kernel so that shared
    /// memory does not limit occupancy), the L1 the rest (its ways in proportion, rounded,
    /// at least one; unified_split_for). GPGPU-Sim's -gpgpu_adaptive_cache_config.
    std::uint32_t unified_bytes = 0;
    /// The shared-memory capacities of the unified array, in KB, ascending and comma
    /// separated ("0,8,16,32,64,96": Volta's 128 KB array).
    std::string shared_options_kb{};
    WARPKIT_FIELDS(l1_params, data, transactions_per_cycle, data_latency, constant,
                   constant_latency, texture, texture_latency, prt, reply_queue, atomic_queue,
                   unified_bytes, shared_options_kb)

    /// The shared-memory capacities of shared_options_kb in bytes (checked by validate()).
    [[nodiscard]] std::vector<std::uint32_t> shared_options() const {
        std::vector<std::uint32_t> out;
        std::string_view rest = shared_options_kb;
        while (!rest.empty()) {
            const std::size_t comma = rest.find(',');
            std::string_view item = rest.substr(0, comma);
            rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            while (!item.empty() && item.front() == ' ')
                item.remove_prefix(1);
            while (!item.empty() && item.back() == ' ')
                item.remove_suffix(1);
            std::uint32_t kb = 0;
            const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), kb);
            check(!item.empty() && ec == std::errc{} && end == item.data() + item.size() &&
                      kb <= (1U << 20),
                  "shared_options_kb", shared_options_kb,
                  "sizes in KB (at most 1048576) separated by commas");
            out.push_back(kb * 1024);
            if (comma == std::string_view::npos) break;
            check(!rest.empty(), "shared_options_kb", shared_options_kb,
                  "sizes in KB separated by commas (none after the last comma)");
        }
        return out;
    }

    void validate() const {
        check(data.cache.line_bytes >= mem::max_transaction_bytes, "data.cache.line_bytes",
              data.cache.line_bytes, ">= 128 (one coalesced transaction per line)");
        check(data.cache.sector_bytes == 0 || data.cache.sector_bytes == mem::sector_bytes,
              "data.cache.sector_bytes", data.cache.sector_bytes,
              "0 (whole lines) or 32 (the sector coalescer's sectors)");
        check_range("transactions_per_cycle", transactions_per_cycle, 1u, 32u);
        check(constant.cache.sector_bytes == 0 &&
                  constant.cache.line_bytes >= mem::max_transaction_bytes,
              "constant.cache", constant.cache.line_bytes,
              "unsectored lines of at least 128 bytes (one coalesced transaction per access)");
        check_range("data_latency", data_latency, 1u, 100000u);
        check(texture.cache.sector_bytes == 0 &&
                  texture.cache.line_bytes >= mem::max_transaction_bytes,
              "texture.cache", texture.cache.line_bytes,
              "unsectored lines of at least 128 bytes (one coalesced transaction per access)");
        check_range("constant_latency", constant_latency, 1u, 100000u);
        check_range("texture_latency", texture_latency, 1u, 100000u);
        check_range("reply_queue", reply_queue, 1u, 4096u);
        check_range("atomic_queue", atomic_queue, 1u, 4096u);
        if (unified_bytes == 0) {
            check(shared_options_kb.empty(), "shared_options_kb", shared_options_kb,
                  "empty without a unified array (unified_bytes 0)");
            return;
        }
        check(data.cache.capacity_bytes() == unified_bytes, "unified_bytes", unified_bytes,
              "the L1 data cache's " + std::to_string(data.cache.capacity_bytes()) +
                  " bytes (sets x ways x line_bytes: data.cache describes the whole array)");
        const auto options = shared_options();
        check(!options.empty(), "shared_options_kb", "\"\"",
              "at least one shared-memory capacity with a unified array");
        for (std::size_t i = 0; i < options.size(); ++i)
            check(options[i] < unified_bytes && (i == 0 || options[i] > options[i - 1]),
                  "shared_options_kb", shared_options_kb,
                  "ascending sizes below unified_bytes (" + std::to_string(unified_bytes / 1024) +
                      " KB)");
    }
};

/// How a kernel's launch splits an SM's unified L1 / shared array (l1_params::unified_bytes).
struct unified_split {
    std::uint32_t shared_bytes = 0; ///< shared-memory capacity chosen for the kernel
    std::uint32_t l1_ways = 0;      ///< ways of the L1 data cache (of data.cache.ways)
    std::uint64_t l1_bytes = 0;     ///< the L1 data cache's capacity
    WARPKIT_FIELDS(unified_split, shared_bytes, l1_ways, l1_bytes)
};

/// The split of `l1`'s unified array for a kernel whose resident blocks need `shared_need`
/// bytes of shared memory per SM: the smallest shared option that holds it (the largest if
/// none does), the L1 the rest, as ways of data.cache rounded to the nearest (at least one).
[[nodiscard]] inline unified_split unified_split_for(const l1_params& l1,
                                                     std::uint64_t shared_need) {
    const auto options = l1.shared_options();
    WARPKIT_EXPECTS(l1.unified_bytes > 0 && !options.empty());
    unified_split s;
    s.shared_bytes = options.back();
    for (const std::uint32_t o : options)
        if (o >= shared_need) {
            s.shared_bytes = o;
            break;
        }
    const std::uint64_t ways = l1.data.cache.ways;
    const std::uint64_t rest = l1.unified_bytes - s.shared_bytes;
    s.l1_ways = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, (2 * ways * rest + l1.unified_bytes) / (2 * l1.unified_bytes)));
    s.l1_bytes = std::uint64_t{s.l1_ways} * l1.data.cache.sets * l1.data.cache.line_bytes;
    return s;
}

/// The network between SMs and L2 slices. Node i is SM i; the slices follow the SMs unless
/// `slice_nodes` places them (the mesh).
struct network_params {
    network_model model = network_model::crossbar;
    /// The ideal network ("perfect NoC", paper 002 Fig. 3b); its node count is set to SMs +
    /// slices by the memory system.
    noc::ideal_params ideal{};
    std::uint32_t ideal_flit_bytes = 32; ///< flit size counted by the ideal network
    /// GTX480: 32-byte flits, request and reply crossbars; nodes are set to SMs + slices.
    noc::crossbar_params crossbar = noc::gtx480_crossbar();
    /// Paper 002's 8 x 7 mesh of 2-stage routers, 128-bit channels, request / reply subnets.
    noc::mesh_params mesh = noc::amoeba_48sm();
    /// Network node of each L2 slice (empty: the nodes after the SMs); SMs take the other
    /// nodes in increasing order unless `sm_nodes` places them.
    std::vector<std::uint32_t> slice_nodes{};
    /// Network node of each SM (empty: see slice_nodes). A fused AMOEBA GPU places its SMs
    /// on the nodes of the scale-out SMs they replace (gpu/fusion.hpp).
    std::vector<std::uint32_t> sm_nodes{};
    std::uint32_t header_bytes = 8; ///< address and command bytes of every packet
    WARPKIT_FIELDS(network_params, model, ideal, ideal_flit_bytes, crossbar, mesh, slice_nodes,
                   sm_nodes, header_bytes)

    void validate() const {
        check_range("ideal_flit_bytes", ideal_flit_bytes, 1u, 4096u);
        check_range("header_bytes", header_bytes, 0u, 4096u);
        check(crossbar.flit_bits % 8 == 0, "crossbar.flit_bits", crossbar.flit_bits,
              "a multiple of 8");
        check(mesh.flit_bits % 8 == 0, "mesh.flit_bits", mesh.flit_bits, "a multiple of 8");
        // Replies wait behind requests that wait for replies when both share VCs: a protocol
        // deadlock the watchdog would only report much later.
        check(model != network_model::mesh || mesh.subnets != 1 || mesh.split_vcs, "mesh.split_vcs",
              "false", "true with one subnet (requests and replies sharing VCs can deadlock)");
    }
    /// Bytes per flit of the chosen network.
    [[nodiscard]] std::uint32_t flit_bytes() const noexcept {
        switch (model) {
        case network_model::crossbar:
            return crossbar.flit_bits / 8;
        case network_model::mesh:
            return mesh.flit_bits / 8;
        default:
            return ideal_flit_bytes;
        }
    }
    /// Flits of a packet of `bytes` bytes.
    [[nodiscard]] std::uint32_t flits(std::uint32_t bytes) const noexcept {
        const std::uint32_t f = flit_bytes();
        return bytes == 0 ? 1 : (bytes + f - 1) / f;
    }
};

/// Memory partitions (one per DRAM channel, `dram.map.channels` of them) with their L2
/// slices. Defaults: GTX480, 6 partitions of 2 slices of 64 KB (768 KB), GDDR5 at 924 MHz.
struct partition_params {
    std::uint32_t slices = 2; ///< L2 slices per partition
    /// One L2 slice: 64 KB, 64 sets x 128 B x 8 ways, write-back and write-allocate; 32 MSHR
    /// entries of up to 4 merged requests. A sectored slice (`cache.sector_bytes`, 32 from
    /// Volta on) looks up, fetches and writes back each sector alone: a read of several
    /// sectors (a whole-line fill of an unsectored L1) takes one tag lookup per sector and
    /// replies once all of them have their data.
    mem::cache_controller_params l2{mem::fermi_l2_slice(), mem::mshr_params{32, 4}, 8};
    /// L2 cycles from a request's arrival at a slice to its tag lookup (raster-operations
    /// pipeline and queues; GPGPU-Sim's GTX480: 120).
    std::uint32_t l2_latency = 120;
    std::uint32_t reply_queue = 8; ///< replies of a slice waiting for the network
    /// GDDR5: 16 banks per channel, tCCD 2, tRRD 6, tRCD 12, tRAS 28, tRP 12, tRC 40, CL 12,
    /// WL 4, burst 8, FR-FCFS queue of 64; 256-byte channel interleaving.
    mem::dram_params dram{};
    dram_policy scheduler = dram_policy::fr_fcfs;
    /// DRAM cycles from leaving an L2 slice to entering the channel's scheduler queue (the
    /// memory controller's pipeline; GPGPU-Sim's GTX480: 100).
    std::uint32_t dram_latency = 100;
    std::uint32_t return_queue = 8; ///< read data per slice waiting for its L2 fill
    WARPKIT_FIELDS(partition_params, slices, l2, l2_latency, reply_queue, dram, scheduler,
                   dram_latency, return_queue)

    void validate() const {
        check_range("slices", slices, 1u, 64u);
        check_range("l2_latency", l2_latency, 0u, 100000u);
        check_range("reply_queue", reply_queue, 1u, 4096u);
        check_range("dram_latency", dram_latency, 0u, 100000u);
        check_range("return_queue", return_queue, 1u, 4096u);
    }
    /// Partitions (DRAM channels).
    [[nodiscard]] std::uint32_t partitions() const noexcept { return dram.map.channels; }
};

/// Clocks of the memory side (the core clock is gpu_params::core_mhz). GTX480: interconnect
/// and L2 at the 700 MHz core clock, GDDR5 command clock 924 MHz.
struct memory_clocks {
    std::uint32_t interconnect_mhz = 700;
    std::uint32_t l2_mhz = 700;
    std::uint32_t dram_mhz = 924;
    WARPKIT_FIELDS(memory_clocks, interconnect_mhz, l2_mhz, dram_mhz)

    void validate() const {
        check_range("interconnect_mhz", interconnect_mhz, 1u, 100000u);
        check_range("l2_mhz", l2_mhz, 1u, 100000u);
        check_range("dram_mhz", dram_mhz, 1u, 100000u);
    }
};

/// The memory of a GPU: which model, and the parts of the hierarchy.
struct memory_params {
    memory_model model = memory_model::hierarchy;
    l1_params l1{};
    network_params noc{};
    partition_params partition{};
    memory_clocks clocks{};
    WARPKIT_FIELDS(memory_params, model, l1, noc, partition, clocks)

    void validate() const {
        check(partition.l2.cache.line_bytes >= l1.data.cache.line_bytes &&
                  partition.l2.cache.line_bytes >= l1.constant.cache.line_bytes,
              "partition.l2.cache.line_bytes", partition.l2.cache.line_bytes,
              ">= the L1 data and constant cache lines");
    }
    /// Every L2 slice of the GPU.
    [[nodiscard]] std::uint32_t slices() const noexcept {
        return partition.partitions() * partition.slices;
    }
};

/// Where the SMs and L2 slices of a GPU sit on its network.
struct node_placement {
    std::vector<std::uint32_t> slices; ///< node of each L2 slice
    std::vector<std::uint32_t> sms;    ///< node of each SM
    std::uint32_t nodes = 0;           ///< nodes of the network
};

/// Places `sms` SMs and the L2 slices of `p` on its network (see network_params::slice_nodes
/// and sm_nodes). Throws config_error naming the field when the nodes do not fit or collide.
[[nodiscard]] inline node_placement place_nodes(const memory_params& p, std::uint32_t sms) {
    const std::uint32_t n = p.slices();
    const std::uint32_t need = sms + n;
    node_placement pl;
    pl.nodes = need;
    switch (p.noc.model) {
    case network_model::crossbar:
        check(need <= (p.noc.crossbar.voq ? 64u : 4096u), "noc.crossbar.nodes", need,
              p.noc.crossbar.voq ? "<= 64 (SMs + L2 slices) with voq"
                                 : "<= 4096 (SMs + L2 slices)");
        break;
    case network_model::mesh:
        pl.nodes = p.noc.mesh.cols * p.noc.mesh.rows;
        check(need <= pl.nodes, "noc.mesh",
              std::to_string(p.noc.mesh.cols) + " x " + std::to_string(p.noc.mesh.rows),
              "at least " + std::to_string(need) + " nodes (SMs + L2 slices)");
        break;
    default:
        break;
    }
    const std::uint32_t nodes = pl.nodes;
    std::vector<std::uint8_t> taken(nodes, 0);
    const auto take = [&](const char* field, std::uint32_t v) {
        check(v < nodes && taken[v] == 0, field, v,
              "distinct nodes below " + std::to_string(nodes));
        taken[v] = 1;
    };
    if (p.noc.slice_nodes.empty()) {
        for (std::uint32_t s = 0; s < n; ++s)
            pl.slices.push_back(p.noc.sm_nodes.empty() ? sms + s : 0);
    } else {
        check(p.noc.slice_nodes.size() == n, "noc.slice_nodes", p.noc.slice_nodes.size(),
              "one node per L2 slice (" + std::to_string(n) + ")");
        pl.slices = p.noc.slice_nodes;
    }
    if (!p.noc.sm_nodes.empty()) {
        check(p.noc.sm_nodes.size() == sms, "noc.sm_nodes", p.noc.sm_nodes.size(),
              "one node per SM (" + std::to_string(sms) + ")");
        for (const auto v : p.noc.sm_nodes)
            take("noc.sm_nodes", v);
        pl.sms = p.noc.sm_nodes;
        if (p.noc.slice_nodes.empty()) {
            // The slices take the first nodes the SMs left.
            std::uint32_t v = 0;
            for (auto& s : pl.slices) {
                while (v < nodes && taken[v] != 0)
                    ++v;
                s = v++;
            }
        }
    }
    for (const auto v : pl.slices)
        take("noc.slice_nodes", v);
    if (p.noc.sm_nodes.empty())
        for (std::uint32_t v = 0; v < nodes && pl.sms.size() < sms; ++v)
            if (taken[v] == 0) pl.sms.push_back(v);
    return pl;
}

/// The nodes `sms` SMs take on the network of `p` (place_nodes).
[[nodiscard]] inline std::vector<std::uint32_t> sm_nodes_of(const memory_params& p,
                                                            std::uint32_t sms) {
    return place_nodes(p, sms).sms;
}

/// The fixed-latency memory (what an SM built without a memory_params uses).
[[nodiscard]] inline memory_params ideal_memory() {
    memory_params p;
    p.model = memory_model::ideal;
    return p;
}

/// The GTX480's hierarchy (the defaults): crossbar, 6 partitions x 2 slices of 64 KB.
[[nodiscard]] inline memory_params gtx480_memory() {
    return {};
}

/// Paper 002's 48-SM machine (Table 1): 8 memory controllers at 924 MHz with FR-FCFS, 128 KB
/// of L2 each (one slice of 128 sets x 128 B x 8 ways), 16 KB L1 and 8 KB constant cache and
/// 64 MSHRs per SM, the 8 x 7 mesh with request / reply subnets, 2-stage routers and 128-bit
/// channels. The paper does not place the controllers: they sit at the edges, two per side
/// (nodes (2,0), (5,0), (0,2), (7,2), (0,4), (7,4), (2,6), (5,6)).
[[nodiscard]] inline memory_params amoeba_memory() {
    memory_params p;
    p.partition.slices = 1;
    p.partition.l2.cache.sets = 128;
    p.partition.dram.map.channels = 8;
    p.noc.model = network_model::mesh;
    p.noc.mesh = noc::amoeba_48sm();
    p.noc.slice_nodes = {2, 5, 16, 23, 32, 39, 50, 53};
    return p;
}

/// The memory of NVIDIA's Quadro GV100 (Volta) as Accel-Sim's tested QV100 configuration gives
/// it, sectored as Volta is:
/// - L1 data and shared memory: one 128 KB array split per kernel, shared memory 0, 8, 16, 32,
///   64 or 96 KB (the CUDA Programming Guide's Volta capacities; the configuration's
///   -gpgpu_adaptive_cache_config), the L1 the rest: 16 sets x 64 ways of 128-byte lines of
///   four 32-byte sectors for the whole array (the configuration's cache string describes its
///   default 32 KB), write-through and write-allocate, 512 MSHR entries of up to 8 merged
///   requests, a miss queue of 16, 20-cycle hits, four sectors a cycle (its four L1 banks);
/// - constant: 64 KB, 8 ways (its 64-byte lines kept as 64 sets of 128 bytes: warpkit's SM-side
///   lines are at least one coalesced access), 2 MSHR entries of 64, 20-cycle hits (the
///   configuration gives no constant latency: the L1's);
/// - texture: 128 KB (its 256 ways as 16 sets of 64, warpkit's widest), 512 MSHR entries of 8,
///   a miss queue of 128, 200-cycle fetches (its trace configuration's TEX unit);
/// - a crossbar of 40-byte flits with request and reply networks;
/// - 32 HBM2 channels (mem::hbm2_qv100) of 2 L2 slices of 96 KB (32 sets x 24 ways, sectored,
///   write-back; 6 MB in all), 192 MSHR entries of 4 per slice, a miss queue of 32, 160 L2
///   cycles to the tag lookup, 100 DRAM cycles to the channel queue, 192 read returns waiting;
/// - clocks: interconnect and L2 at the 1132 MHz core clock, HBM2 at 850 MHz.
[[nodiscard]] inline memory_params qv100_memory() {
    memory_params p;
    mem::cache_controller_params& d = p.l1.data;
    d.cache.sets = 16;
    d.cache.ways = 64;
    p.l1.unified_bytes = 128 * 1024;
    p.l1.shared_options_kb = "0,8,16,32,64,96";
    d.cache.sector_bytes = mem::sector_bytes;
    d.cache.write = mem::write_policy::write_through;
    d.cache.write_allocate = true;
    d.mshr = mem::mshr_params{512, 8};
    d.miss_queue = 16;
    p.l1.transactions_per_cycle = 4;
    p.l1.data_latency = 20;
    p.l1.constant.cache.sets = 64;
    p.l1.constant.cache.ways = 8;
    p.l1.constant.mshr = mem::mshr_params{2, 64};
    p.l1.constant.miss_queue = 4;
    p.l1.constant_latency = 20;
    p.l1.texture.cache.sets = 16;
    p.l1.texture.cache.ways = 64;
    p.l1.texture.mshr = mem::mshr_params{512, 8};
    p.l1.texture.miss_queue = 128;
    p.l1.texture_latency = 200;
    p.noc.model = network_model::crossbar;
    p.noc.crossbar.flit_bits = 320;
    p.partition.slices = 2;
    mem::cache_controller_params& l2 = p.partition.l2;
    l2.cache.sets = 32;
    l2.cache.ways = 24;
    l2.cache.sector_bytes = mem::sector_bytes;
    l2.mshr = mem::mshr_params{192, 4};
    l2.miss_queue = 32;
    p.partition.l2_latency = 160;
    p.partition.dram_latency = 100;
    p.partition.return_queue = 192;
    p.partition.dram = mem::hbm2_qv100();
    p.clocks = memory_clocks{1132, 1132, 850};
    return p;
}

/// The memory of NVIDIA's GeForce RTX 2060 (Turing) as Accel-Sim's tested RTX 2060
/// configuration gives it: qv100_memory()'s constant and texture caches, crossbar and L2 slice
/// queues, with a 96 KB L1 / shared array (shared memory 32 or 64 KB per kernel, Turing's
/// capacities in the CUDA Programming Guide; 16 sets x 48 ways for the whole array) of 256
/// MSHR entries of 32, 32-cycle hits (constant hits too); 12 GDDR6 channels (mem::gddr6_rtx) of 2
/// sectored L2 slices of 128 KB (64 sets x 16 ways; 3 MB in all); 194 L2 cycles to the tag
/// lookup, 96 DRAM cycles to the channel queue; interconnect and L2 at the 1365 MHz core
/// clock, GDDR6 commands at 3500 MHz.
[[nodiscard]] inline memory_params rtx2060_memory() {
    memory_params p = qv100_memory();
    p.l1.data.cache.ways = 48;
    p.l1.unified_bytes = 96 * 1024;
    p.l1.shared_options_kb = "32,64";
    p.l1.data.mshr = mem::mshr_params{256, 32};
    p.l1.data_latency = 32;
    p.l1.constant_latency = 32;
    p.partition.l2.cache.sets = 64;
    p.partition.l2.cache.ways = 16;
    p.partition.l2_latency = 194;
    p.partition.dram_latency = 96;
    p.partition.dram = mem::gddr6_rtx(12);
    p.clocks = memory_clocks{1365, 1365, 3500};
    return p;
}

/// The memory of NVIDIA's GeForce RTX 3070 (Ampere) as Accel-Sim's tested RTX 3070
/// configuration gives it: rtx2060_memory()'s parts with a 128 KB L1 / shared array (its cache
/// string's size; its 4 sets of 256 ways as 16 sets of 64, warpkit's widest), shared memory 0,
/// 8, 16, 32, 64 or 100 KB per kernel (GA10x's capacities in the CUDA Programming Guide), of
/// 384 MSHR entries of 48, 39-cycle hits (constant hits too); 16 GDDR6 channels of 2 L2
/// slices of 128 KB (4 MB in all); 187 L2 cycles to the tag
/// lookup, 254 DRAM cycles to the channel queue; interconnect and L2 at the 1132 MHz core
/// clock.
[[nodiscard]] inline memory_params rtx3070_memory() {
    memory_params p = rtx2060_memory();
    p.l1.data.cache.ways = 64;
    p.l1.unified_bytes = 128 * 1024;
    p.l1.shared_options_kb = "0,8,16,32,64,100";
    p.l1.data.mshr = mem::mshr_params{384, 48};
    p.l1.data_latency = 39;
    p.l1.constant_latency = 39;
    p.partition.l2_latency = 187;
    p.partition.dram_latency = 254;
    p.partition.dram = mem::gddr6_rtx(16);
    p.clocks = memory_clocks{1132, 1132, 3500};
    return p;
}

} // namespace warpkit::gpu
