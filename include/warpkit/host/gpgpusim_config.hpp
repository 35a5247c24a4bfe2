#pragma once
/// \file
/// GPGPU-Sim configuration files (`gpgpusim.config`) read onto warpkit's GPU parameters, so a
/// study configured for GPGPU-Sim runs on a warpkit preset with the same machine figures.
///
/// Each option GPGPU-Sim's tested configs use for the machine's shape (clusters and cores,
/// the core pipeline, schedulers, registers, shared memory, the L1 / constant / texture / L2
/// cache strings, the DRAM channels and timing string, the network, the clocks) becomes
/// `key=value` settings of gpu::gpu_params: the strings `--set` takes, so they go through the
/// same validation with the same messages. Every other option, and every part of a mapped value
/// warpkit has no equivalent for, is a warning with file, line and column; none is dropped
/// silently. Malformed values (a cache string with a missing group, a letter GPGPU-Sim does
/// not know, a non-number) are parse_errors with file, line and column. The full table of
/// options, keys and warnings is docs/gpgpusim_config.md.

#include <warpkit/core/error.hpp>
#include <warpkit/core/file.hpp>
#include <warpkit/host/gpgpusim_options.hpp>
#include <warpkit/mem/transaction.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace warpkit::host {

namespace detail {

/// A piece of an option's value and where it starts in the value.
struct gpgpusim_field {
    std::string_view text;
    std::size_t offset = 0;
};

/// `f` without the blanks around it.
[[nodiscard]] inline gpgpusim_field gpgpusim_trim(gpgpusim_field f) noexcept {
    while (!f.text.empty() && gpgpusim_blank(f.text.front())) {
        f.text.remove_prefix(1);
        ++f.offset;
    }
    while (!f.text.empty() && gpgpusim_blank(f.text.back()))
        f.text.remove_suffix(1);
    return f;
}

/// `f` cut at every `separator`, each piece without the blanks around it.
[[nodiscard]] inline std::vector<gpgpusim_field> gpgpusim_split(gpgpusim_field f, char separator) {
    std::vector<gpgpusim_field> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(f.text.find(separator, start), f.text.size());
        out.push_back(gpgpusim_trim({f.text.substr(start, end - start), f.offset + start}));
        if (end == f.text.size()) return out;
        start = end + 1;
    }
}

/// A GPGPU-Sim whole-number option that is one warpkit key (times `scale`).
struct gpgpusim_number_option {
    std::string_view name;
    std::string_view key;
    std::uint32_t scale = 1;
    /// GPGPU-Sim reads 0 as "no limit", which warpkit's bounded queues do not have.
    bool zero_unlimited = false;
};

/// The options that are one number on each side.
inline constexpr std::array<gpgpusim_number_option, 20> gpgpusim_numbers{{
    {"gpgpu_shader_registers", "registers", 1, false},
    {"gpgpu_shader_cta", "sm.block_slots", 1, false},
    {"gpgpu_shmem_size", "shared_bytes", 1, false},
    {"gpgpu_shmem_num_banks", "sm.banks.banks", 1, false},
    {"gpgpu_smem_latency", "sm.shared_latency", 1, false},
    {"gpgpu_num_sp_units", "sm.units.sp_count", 1, false},
    {"gpgpu_l1_latency", "memory.l1.data_latency", 1, false},
    {"gpgpu_n_mem", "memory.partition.dram.map.channels", 1, false},
    {"gpgpu_n_sub_partition_per_mchannel", "memory.partition.slices", 1, false},
    {"gpgpu_l2_rop_latency", "memory.partition.l2_latency", 1, false},
    {"dram_latency", "memory.partition.dram_latency", 1, false},
    {"gpgpu_dram_burst_length", "memory.partition.dram.timing.burst_length", 1, false},
    {"dram_data_command_freq_ratio", "memory.partition.dram.timing.beats_per_cycle", 1, false},
    {"gpgpu_frfcfs_dram_sched_queue_size", "memory.partition.dram.queue", 1, true},
    {"gpgpu_dram_return_queue_size", "memory.partition.return_queue", 1, true},
    {"gpgpu_dram_buswidth", "memory.partition.dram.device_bytes", 1, false},
    {"gpgpu_n_mem_per_ctrlr", "memory.partition.dram.devices", 1, false},
    {"dram_dual_bus_interface", "memory.partition.dram.dual_command_bus", 1, false},
    // GPGPU-Sim's L1 takes one access per bank a cycle; warpkit's as many transactions a
    // cycle, whatever their banks.
    {"gpgpu_l1_banks", "memory.l1.transactions_per_cycle", 1, false},
    // GPGPU-Sim counts flit bytes, warpkit's crossbar flit bits.
    {"icnt_flit_size", "memory.noc.crossbar.flit_bits", 8, false},
}};

/// One entry of GPGPU-Sim's DRAM timing string: the warpkit key it sets, or, without one, the
/// value that means "not used" and why any other value has no equivalent.
struct gpgpusim_timing_entry {
    std::string_view name;
    std::string_view key;
    std::uint64_t neutral = 0;
    std::string_view reason;
};

inline constexpr std::array<gpgpusim_timing_entry, 14> gpgpusim_timings{{
    {"nbk", "memory.partition.dram.map.banks", 0, ""},
    {"CCD", "memory.partition.dram.timing.tCCD", 0, ""},
    {"RRD", "memory.partition.dram.timing.tRRD", 0, ""},
    {"RCD", "memory.partition.dram.timing.tRCD", 0, ""},
    {"RAS", "memory.partition.dram.timing.tRAS", 0, ""},
    {"RP", "memory.partition.dram.timing.tRP", 0, ""},
    {"RC", "memory.partition.dram.timing.tRC", 0, ""},
    {"CL", "memory.partition.dram.timing.tCL", 0, ""},
    {"WL", "memory.partition.dram.timing.tWL", 0, ""},
    {"CDLR", "memory.partition.dram.timing.tWTR", 0, ""},
    {"WR", "memory.partition.dram.timing.tWR", 0, ""},
    {"nbkgrp", "memory.partition.dram.map.bank_groups", 0, ""},
    {"CCDL", "memory.partition.dram.timing.tCCDL", 0, ""},
    {"RTPL", "memory.partition.dram.timing.tRTP", 0, ""},
}};

/// Why an option has no equivalent, where more can be said than "no warpkit equivalent"
/// (a name ending in '*' covers every option it begins).
struct gpgpusim_unmapped {
    std::string_view name;
    std::string_view reason;
};

inline constexpr std::array<gpgpusim_unmapped, 13> gpgpusim_unmapped_options{{
    {"gpgpu_cache:il1", "warpkit has no instruction cache (fetch takes sm.fetch_latency)"},
    {"inter_config_file", "the network's topology file is not read (-network_mode picks the "
                          "crossbar)"},
    {"gpgpu_mem_addr_mapping", "warpkit picks the channel by memory.partition.dram.map."
                               "interleave_bytes; within a channel map.layout takes a bit "
                               "string of R, B and C"},
    {"gpgpu_max_insn_issue_per_warp", "warpkit issues at most one instruction of a warp a "
                                      "cycle"},
    {"gpgpu_pipeline_widths", "warpkit's SM has no operand-collector stage registers"},
    {"gpgpu_operand_collector*", "warpkit's SM has no operand collector"},
    {"gpgpu_num_sfu_units", "warpkit sizes the SFU in lanes (sm.units.sfu_lanes)"},
    {"ptx_opcode_*", "warpkit times the INT, FP, FP64, SFU and tensor classes only"},
    {"trace_opcode_*", "warpkit times the INT, FP, FP64, SFU and tensor classes only (no "
                       "specialised units)"},
    {"gpgpu_gmem_skip_L1D", "warpkit's global accesses always pass the L1"},
    {"gpgpu_adaptive_cache_config", "warpkit's per-kernel L1 / shared split is "
                                    "memory.l1.unified_bytes and shared_options_kb, with "
                                    "memory.l1.data.cache describing the whole array (set them "
                                    "with --set; the modern presets have them)"},
    {"gpgpu_unified_l1d_size", "see -gpgpu_adaptive_cache_config: memory.l1.unified_bytes"},
    {"gpgpu_shmem_option", "see -gpgpu_adaptive_cache_config: memory.l1.shared_options_kb"},
}};

/// The reason `name` has no equivalent.
[[nodiscard]] inline std::string gpgpusim_unmapped_reason(std::string_view name) {
    for (const auto& u : gpgpusim_unmapped_options) {
        const bool prefix = u.name.back() == '*';
        const std::string_view stem = prefix ? u.name.substr(0, u.name.size() - 1) : u.name;
        if (prefix ? name.substr(0, stem.size()) == stem : name == stem)
            return std::string(u.reason);
    }
    return "no warpkit equivalent";
}

/// "a, b, c" of the letters of `letters`.
[[nodiscard]] inline std::string gpgpusim_letters(std::string_view letters) {
    std::string out;
    for (const char c : letters) {
        if (!out.empty()) out += ", ";
        out += c;
    }
    return out;
}

/// Reads the options of one file onto warpkit settings, option by option.
class gpgpusim_translator {
public:
    gpgpusim_translator(const std::vector<gpgpusim_option>& options, std::string file,
                        gpgpusim_target target)
        : options_(options), target_(std::move(target)) {
        result_.file = std::move(file);
    }

    /// The rows and warnings of every option, in file order.
    [[nodiscard]] gpgpusim_translation run() {
        // The SM count is clusters times cores per cluster, whichever of the two comes first;
        // the sub-cores of the sub-core model are the schedulers, wherever they are given.
        for (const auto& o : options_) {
            option_ = &o;
            if (o.name == "gpgpu_n_clusters") has_clusters_ = true;
            if (o.name == "gpgpu_n_cores_per_cluster")
                cores_per_cluster_ = whole_value("the cores per cluster");
            if (o.name == "gpgpu_num_sched_per_core")
                schedulers_ = whole_value("the schedulers");
            if (o.name == "gpgpu_tensor_core_avail")
                tensor_avail_ = whole_value("the tensor cores' availability") != 0;
        }
        for (const auto& o : options_) {
            option_ = &o;
            row_ = {"-" + o.name, shown(o.value), o.line, {}, {}};
            map_option();
            if (!row_.settings.empty() || !row_.note.empty()) result_.rows.push_back(row_);
        }
        return std::move(result_);
    }

private:
    const std::vector<gpgpusim_option>& options_;
    gpgpusim_target target_;
    gpgpusim_translation result_;
    const gpgpusim_option* option_ = nullptr; ///< the option being read
    gpgpusim_row row_;                        ///< its row
    bool has_clusters_ = false;
    std::uint64_t cores_per_cluster_ = 1;
    std::uint64_t schedulers_ = 0; ///< -gpgpu_num_sched_per_core (0: not in the file)
    bool tensor_avail_ = true;     ///< -gpgpu_tensor_core_avail (1 unless the file says 0)

    /// `value` with each run of blanks and line ends shown as one space.
    [[nodiscard]] static std::string shown(std::string_view value) {
        std::string out;
        for (const char c : value) {
            if (!gpgpusim_blank(c))
                out += c;
            else if (!out.empty() && out.back() != ' ')
                out += ' ';
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out;
    }

    void map_option() {
        const std::string& n = option_->name;
        for (const auto& number : gpgpusim_numbers)
            if (n == number.name) return map_number(number);
        if (n == "gpgpu_n_clusters") return map_clusters();
        if (n == "gpgpu_n_cores_per_cluster") return map_cores_per_cluster();
        if (n == "gpgpu_shader_core_pipeline") return map_pipeline();
        if (n == "gpgpu_num_sched_per_core") return map_schedulers();
        if (n == "gpgpu_sub_core_model") return map_sub_cores();
        if (n == "gpgpu_num_dp_units") return map_units("dp_lanes", 16, true);
        if (n == "gpgpu_num_tensor_core_units") return map_units("tensor_lanes", 32, tensor_avail_);
        if (n == "gpgpu_tensor_core_avail") return map_tensor_avail();
        if (n == "gpgpu_scheduler") return map_scheduler_policy();
        if (n == "gpgpu_cache:dl1") return map_cache("memory.l1.data", true);
        if (n == "gpgpu_const_cache:l1") return map_cache("memory.l1.constant", true);
        if (n == "gpgpu_tex_cache:l1") return map_cache("memory.l1.texture", true);
        if (n == "gpgpu_cache:dl2") return map_cache("memory.partition.l2", false);
        if (n == "gpgpu_dram_timing_opt") return map_dram_timing();
        if (n == "gpgpu_clock_domains") return map_clocks();
        if (n == "gpgpu_dram_scheduler") return map_dram_scheduler();
        if (n == "network_mode") return map_network();
        if (n.starts_with("ptx_opcode_latency_") || n.starts_with("ptx_opcode_initiation_"))
            if (map_ptx_opcode()) return;
        if (n.starts_with("trace_opcode_latency_initiation_"))
            if (map_trace_opcode()) return;
        warn(option_->line, option_->column,
             "-" + n + ": " + gpgpusim_unmapped_reason(n) + "; ignored");
    }

    // ---- messages and settings ------------------------------------------------------------

    [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
        const auto [line, column] = option_->where(offset);
        throw parse_error(result_.file, line, column, "-" + option_->name + ": " + message);
    }
    void warn(std::size_t line, std::size_t column, std::string message) {
        result_.warnings.push_back({result_.file, line, column, std::move(message)});
    }
    void warn_at(std::size_t offset, const std::string& message) {
        const auto [line, column] = option_->where(offset);
        warn(line, column, "-" + option_->name + ": " + message);
    }
    void set(std::string_view key, std::string_view value) {
        row_.settings.push_back(std::string(key) + "=" + std::string(value));
    }
    void set(std::string_view key, std::uint64_t value) { set(key, std::to_string(value)); }

    [[nodiscard]] gpgpusim_field whole_field() const { return gpgpusim_trim({option_->value, 0}); }
    /// The whole number `f` holds (at most 2^32 - 1; `what` names it in messages).
    [[nodiscard]] std::uint64_t whole(gpgpusim_field f, std::string_view what) const {
        std::uint64_t v = 0;
        const char* last = f.text.data() + f.text.size();
        const auto [end, ec] = std::from_chars(f.text.data(), last, v);
        if (f.text.empty() || ec == std::errc::invalid_argument || end != last)
            fail(f.offset, "expected a whole number for " + std::string(what) + ", got " +
                               gpgpusim_quoted(f.text));
        if (ec == std::errc::result_out_of_range || v > std::numeric_limits<std::uint32_t>::max())
            fail(f.offset, std::string(what) + " " + gpgpusim_quoted(f.text) + " is too large");
        return v;
    }
    [[nodiscard]] std::uint64_t whole_value(std::string_view what) const {
        return whole(whole_field(), what);
    }
    /// The one letter of `f`, one of `allowed`.
    [[nodiscard]] char letter(gpgpusim_field f, std::string_view what,
                              std::string_view allowed) const {
        if (f.text.size() != 1 || allowed.find(f.text[0]) == std::string_view::npos)
            fail(f.offset, "expected one of " + gpgpusim_letters(allowed) + " for " +
                               std::string(what) + ", got " + gpgpusim_quoted(f.text));
        return f.text[0];
    }

    // ---- the core -------------------------------------------------------------------------

    void map_number(const gpgpusim_number_option& o) {
        const std::uint64_t v = whole_value("the value");
        if (o.zero_unlimited && v == 0)
            return warn_at(0, "0 (no limit) has no equivalent: warpkit's queue is bounded; " +
                                  std::string(o.key) + " stays the preset's");
        set(o.key, v * o.scale);
    }
    void map_clusters() {
        set("sms", whole_value("the clusters") * cores_per_cluster_);
        if (cores_per_cluster_ != 1)
            row_.note = "times " + std::to_string(cores_per_cluster_) + " cores per cluster";
    }
    void map_cores_per_cluster() {
        if (!has_clusters_)
            return warn(option_->line, option_->column,
                        "-" + option_->name + " without -gpgpu_n_clusters: sms stays the preset's");
        row_.note = "multiplies -gpgpu_n_clusters into sms";
        if (cores_per_cluster_ != 1)
            warn(option_->line, option_->column,
                 "-" + option_->name +
                     ": the cores of a cluster share one network port in "
                     "GPGPU-Sim; each warpkit SM has its own");
    }
    void map_pipeline() {
        const auto f = gpgpusim_split(whole_field(), ':');
        if (f.size() != 2 && f.size() != 3)
            fail(0,
                 "expected <threads per SM>:<warp size>, got " + gpgpusim_quoted(option_->value));
        const std::uint64_t threads = whole(f[0], "the threads per SM");
        const std::uint64_t warp = whole(f[1], "the warp size");
        if (warp != target_.warp_size)
            fail(f[1].offset, "warp size " + std::to_string(warp) + " is not the preset's " +
                                  std::to_string(target_.warp_size) +
                                  " (the preset fixes the warp width)");
        if (threads % warp != 0)
            fail(f[0].offset, std::to_string(threads) + " threads per SM are not whole warps");
        set("sm.warp_slots", threads / warp);
        if (f.size() == 3)
            warn_at(f[2].offset, "the SIMD width has no equivalent here (sm.units.sp_lanes)");
    }
    void map_schedulers() {
        const std::uint64_t n = whole_value("the schedulers");
        set("schedulers", n);
        set("sm.issue_width", n);
        row_.note = "each scheduler issues one warp a cycle";
    }
    // GPGPU-Sim's sub-core model gives each scheduler its own units: as many sub-cores.
    void map_sub_cores() {
        const std::uint64_t on = whole_value("the sub-core model");
        if (on > 1) return warn_at(0, "expected 0 or 1: sm.units.sub_cores stays the preset's");
        if (on == 0) return set("sm.units.sub_cores", 1);
        if (schedulers_ == 0)
            return warn_at(0, "the sub-core model without -gpgpu_num_sched_per_core: "
                              "sm.units.sub_cores stays the preset's");
        set("sm.units.sub_cores", schedulers_);
        row_.note = "one sub-core per scheduler (-gpgpu_num_sched_per_core)";
    }
    // -gpgpu_num_dp_units / -gpgpu_num_tensor_core_units N: GPGPU-Sim's DP and tensor units
    // are warp-wide pipelines; warpkit gives each sub-core one cluster of `lanes` lanes (a DP
    // unit as wide as an SP's 16 lanes, a tensor unit taking a warp's 32 threads a pass), or
    // none for N = 0 (their instructions then run on the FP clusters).
    void map_units(std::string_view key, std::uint32_t lanes, bool available) {
        const std::uint64_t n = whole_value("the units");
        set("sm.units." + std::string(key), n > 0 && available ? lanes : 0);
        if (n > 0 && !available)
            row_.note = "-gpgpu_tensor_core_avail 0: no tensor cores";
        else if (n > 0)
            row_.note = "one cluster per sub-core";
    }
    void map_tensor_avail() {
        if (whole_value("the tensor cores' availability") == 0) set("sm.units.tensor_lanes", 0);
    }
    void map_scheduler_policy() {
        const auto f = gpgpusim_split(whole_field(), ':');
        const std::string_view name = f[0].text;
        // GPGPU-Sim's lrr takes the first ready warp after the last one that issued, as
        // warpkit's lrr does; its gto is warpkit's gto; two_level_active:N:INNER:OUTER keeps N
        // active warps, ordered by INNER (0: loose round robin, warpkit's two_level inside).
        if ((name == "lrr" || name == "gto") && f.size() == 1) {
            set("scheduler.kind", name);
            return;
        }
        if (name == "two_level_active" && f.size() == 4) {
            set("scheduler.kind", "two_level");
            set("scheduler.two_level.active_warps", whole(f[1], "the active warps"));
            if (whole(f[2], "the inner prioritization") != 0)
                warn_at(f[2].offset, "warpkit's two-level scheduler orders its active warps by "
                                     "loose round robin (inner prioritization 0) only");
            row_.note = "pending warps wait in a FIFO (the outer prioritization " +
                        std::string(f[3].text) + " has no equivalent)";
            return;
        }
        warn_at(f[0].offset, gpgpusim_quoted(whole_field().text) +
                                 " has no warpkit equivalent (scheduler.kind stays the "
                                 "preset's; warpkit has lrr, rr, gto, two_level and gates)");
    }

    // ---- caches ---------------------------------------------------------------------------

    void map_cache(const std::string& prefix, bool whole_lines) {
        const gpgpusim_field all = whole_field();
        if (all.text == "none")
            return warn_at(all.offset,
                           "a disabled cache has no equivalent; " + prefix + " stays the preset's");
        const auto groups = gpgpusim_split(all, ',');
        if (groups.size() != 4 && groups.size() != 5)
            fail(all.offset, "expected [N|S:]<sets>:<line>:<ways>,<policies>,<MSHR>,<miss "
                             "queue>[,<port>], got " +
                                 gpgpusim_quoted(all.text));
        cache_geometry(gpgpusim_split(groups[0], ':'), prefix, whole_lines);
        cache_policies(gpgpusim_split(groups[1], ':'), prefix);
        cache_misses(gpgpusim_split(groups[2], ':'), gpgpusim_split(groups[3], ':'), prefix);
        if (groups.size() == 5)
            warn_at(groups[4].offset, "a data port of " +
                                          std::to_string(whole(groups[4], "the data port")) +
                                          " bytes has no equivalent");
    }
    void cache_geometry(const std::vector<gpgpusim_field>& f, const std::string& prefix,
                        bool whole_lines) {
        if (f.size() != 3 && f.size() != 4)
            fail(f[0].offset, "expected [N|S:]<sets>:<line bytes>:<ways>, got " +
                                  gpgpusim_quoted(option_->value.substr(f[0].offset)));
        const std::size_t at = f.size() - 3;
        const bool sectored = at == 1 && letter(f[0], "the cache kind", "NS") == 'S';
        std::uint64_t sets = whole(f[at], "the sets");
        std::uint64_t line = whole(f[at + 1], "the line bytes");
        const std::uint64_t ways = whole(f[at + 2], "the ways");
        // The SM side moves whole coalesced transactions: a narrower line keeps its bytes and
        // ways as fewer sets of transaction-sized lines.
        const std::uint64_t bytes = sets * line;
        if (whole_lines && line > 0 && line < mem::max_transaction_bytes &&
            bytes % mem::max_transaction_bytes == 0 && bytes > 0) {
            sets = bytes / mem::max_transaction_bytes;
            warn_at(f[at + 1].offset,
                    std::to_string(line) + "-byte lines are narrower than warpkit's " +
                        std::to_string(mem::max_transaction_bytes) + "-byte accesses: read as " +
                        std::to_string(sets) + " sets of " +
                        std::to_string(mem::max_transaction_bytes) + " bytes, same bytes and ways");
            line = mem::max_transaction_bytes;
        }
        set(prefix + ".cache.sets", sets);
        set(prefix + ".cache.line_bytes", line);
        set(prefix + ".cache.ways", ways);
        set(prefix + ".cache.sector_bytes", sectored_bytes(f[0], sectored, line, prefix));
    }
    // GPGPU-Sim's sectored caches (S) hold 128-byte lines of four 32-byte sectors. warpkit's L2
    // slices and L1 data cache are sectored alike (the L1's SM then coalesces into sectors);
    // its constant and texture caches move whole lines.
    std::uint32_t sectored_bytes(const gpgpusim_field& kind, bool sectored, std::uint64_t line,
                                 const std::string& prefix) {
        if (!sectored) return 0;
        const bool data = prefix == "memory.l1.data";
        if (!data && prefix != "memory.partition.l2") {
            warn_at(kind.offset,
                    "sectored lines have no equivalent: " + prefix + " moves whole lines");
            return 0;
        }
        if (line != mem::max_transaction_bytes) {
            warn_at(kind.offset, "sectors of a " + std::to_string(line) +
                                     "-byte line have no equivalent (GPGPU-Sim's are four of 32 "
                                     "bytes in 128): " +
                                     prefix + " moves whole lines");
            return 0;
        }
        if (data) set("sm.coalescer", "sector");
        return mem::sector_bytes;
    }
    void cache_policies(const std::vector<gpgpusim_field>& f, const std::string& prefix) {
        if (f.size() != 4 && f.size() != 5)
            fail(f[0].offset, "expected <replacement>:<write>:<allocate>:<write allocate>[:<set "
                              "index>], got " +
                                  gpgpusim_quoted(option_->value.substr(f[0].offset)));
        set(prefix + ".cache.repl",
            letter(f[0], "the replacement policy", "LF") == 'L' ? "lru" : "fifo");
        const char write = letter(f[1], "the write policy", "RBTEL");
        // A write hit in GPGPU-Sim's read-only (R) cache evicts the line, as write_evict does.
        set(prefix + ".cache.write", write == 'B'   ? "write_back"
                                     : write == 'T' ? "write_through"
                                                    : "write_evict");
        if (write == 'L')
            warn_at(f[1].offset, "local data written back (L) has no equivalent: global and "
                                 "local data are write_evict");
        const char allocate = letter(f[2], "the allocation policy", "mfs");
        set(prefix + ".cache.allocate", allocate == 'm' ? "on_miss" : "on_fill");
        if (allocate == 's')
            warn_at(f[2].offset, "streaming (s) has no equivalent: read as on_fill");
        const char write_allocate = letter(f[3], "the write-allocate policy", "NWFL");
        set(prefix + ".cache.write_allocate", write_allocate == 'N' ? "false" : "true");
        if (write_allocate == 'F' || write_allocate == 'L')
            warn_at(f[3].offset, std::string(write_allocate == 'F' ? "fetch-on-write (F)"
                                                                   : "lazy fetch-on-read (L)") +
                                     " has no equivalent: read as write-allocate");
        if (f.size() == 5 && letter(f[4], "the set index function", "LHPCX") != 'L')
            warn_at(f[4].offset, "hashed set index (" + std::string(f[4].text) +
                                     ") has no equivalent: warpkit indexes sets linearly");
    }
    void cache_misses(const std::vector<gpgpusim_field>& mshr,
                      const std::vector<gpgpusim_field>& queue, const std::string& prefix) {
        if (mshr.size() != 3)
            fail(mshr[0].offset, "expected <MSHR kind>:<entries>:<merges>, got " +
                                     gpgpusim_quoted(option_->value.substr(mshr[0].offset)));
        const char kind = letter(mshr[0], "the MSHR kind", "AFTS");
        if (kind == 'F' || kind == 'T')
            warn_at(mshr[0].offset, "the texture FIFO's in-order fills have no equivalent: "
                                    "read as merging MSHRs");
        set(prefix + ".mshr.entries", whole(mshr[1], "the MSHR entries"));
        set(prefix + ".mshr.max_merged", whole(mshr[2], "the merges per MSHR entry"));
        if (queue.size() != 1 && queue.size() != 2)
            fail(queue[0].offset, "expected <miss queue>[:<fill FIFO>], got " +
                                      gpgpusim_quoted(option_->value.substr(queue[0].offset)));
        set(prefix + ".miss_queue", whole(queue[0], "the miss queue"));
        if (queue.size() == 2 && whole(queue[1], "the fill FIFO") != 0)
            warn_at(queue[1].offset, "a fill FIFO has no equivalent");
    }

    // ---- memory, network, clocks ----------------------------------------------------------

    void map_dram_timing() {
        for (const auto& f : gpgpusim_split(whole_field(), ':')) {
            const std::size_t eq = f.text.find('=');
            if (eq == std::string_view::npos)
                fail(f.offset, "expected <name>=<cycles>, got " + gpgpusim_quoted(f.text));
            const auto name = gpgpusim_trim({f.text.substr(0, eq), f.offset});
            const auto value = gpgpusim_trim({f.text.substr(eq + 1), f.offset + eq + 1});
            const gpgpusim_timing_entry* entry = nullptr;
            std::string known;
            for (const auto& t : gpgpusim_timings) {
                if (t.name == name.text) entry = &t;
                known += (known.empty() ? "" : ", ") + std::string(t.name);
            }
            if (entry == nullptr)
                fail(name.offset, "unknown DRAM timing " + gpgpusim_quoted(name.text) +
                                      " (known: " + known + ")");
            const std::uint64_t v = whole(value, entry->name);
            if (!entry->key.empty())
                set(entry->key, v);
            else if (v != entry->neutral)
                warn_at(name.offset, std::string(entry->name) + "=" + std::to_string(v) + ": " +
                                         std::string(entry->reason));
        }
    }
    /// Whole megahertz of the clock `f` (GPGPU-Sim writes them as reals).
    [[nodiscard]] std::uint64_t megahertz(gpgpusim_field f) {
        double v = 0;
        const char* last = f.text.data() + f.text.size();
        const auto [end, ec] = std::from_chars(f.text.data(), last, v);
        if (f.text.empty() || ec != std::errc{} || end != last || !std::isfinite(v) || v < 0 ||
            v > 1e9)
            fail(f.offset, "expected a clock in MHz, got " + gpgpusim_quoted(f.text));
        const double rounded = std::round(v);
        if (rounded != v)
            warn_at(f.offset, "rounded to " + std::to_string(static_cast<std::uint64_t>(rounded)) +
                                  " MHz (warpkit's clocks are whole MHz)");
        return static_cast<std::uint64_t>(rounded);
    }
    void map_clocks() {
        const auto f = gpgpusim_split(whole_field(), ':');
        if (f.size() != 4)
            fail(0, "expected <core>:<interconnect>:<L2>:<DRAM> in MHz, got " +
                        gpgpusim_quoted(option_->value));
        static constexpr std::array<std::string_view, 4> keys{
            "core_mhz", "memory.clocks.interconnect_mhz", "memory.clocks.l2_mhz",
            "memory.clocks.dram_mhz"};
        for (std::size_t i = 0; i < keys.size(); ++i)
            set(keys[i], megahertz(f[i]));
    }
    // GPGPU-Sim's PTX timing, -ptx_opcode_latency_<unit> and -ptx_opcode_initiation_<unit>:
    // ADD,MAX,MUL,MAD,DIV[,SHFL] for int, ADD,MAX,MUL,MAD,DIV for fp and dp, one value for
    // sfu and for the tensor unit (its latency option is spelt "tesnor"), onto warpkit's op
    // classes (MAX and SHFL have none of their own). False for another unit.
    bool map_ptx_opcode() {
        const std::string_view n = option_->name;
        const bool latency = n.starts_with("ptx_opcode_latency_");
        const std::string_view unit = n.substr(latency ? 19 : 22);
        const std::string field = latency ? ".latency" : ".initiation_interval";
        const auto f = gpgpusim_split(whole_field(), ',');
        if (unit == "sfu" || unit == "tensor" || unit == "tesnor") {
            const bool sfu = unit == "sfu";
            if (f.size() != 1)
                fail(0, std::string("expected one number for the ") +
                            (sfu ? "SFU" : "tensor unit") + ", got " +
                            gpgpusim_quoted(option_->value));
            set(std::string("sm.units.timing.") + (sfu ? "sfu" : "tensor") + field,
                whole(f[0], sfu ? "the SFU's value" : "the tensor unit's value"));
            return true;
        }
        std::array<const char*, 5> classes{}; // ADD, MAX, MUL, MAD, DIV
        if (unit == "int")
            classes = {"int_add", nullptr, "int_mul", "int_mad", "int_div"};
        else if (unit == "fp")
            classes = {"fp_add", nullptr, "fp_mul", "fp_mad", "fp_div"};
        else if (unit == "dp")
            classes = {"dp_add", nullptr, "dp_mul", "dp_fma", "dp_div"};
        else
            return false;
        if (f.size() != 5 && !(unit == "int" && f.size() == 6))
            fail(0, std::string("expected ADD,MAX,MUL,MAD,DIV") + (unit == "int" ? "[,SHFL]" : "") +
                        ", got " + gpgpusim_quoted(option_->value));
        static constexpr std::array<std::string_view, 5> names{"ADD", "MAX", "MUL", "MAD", "DIV"};
        for (std::size_t i = 0; i < classes.size(); ++i) {
            const std::uint64_t v = whole(f[i], names[i]);
            if (classes[i] != nullptr)
                set("sm.units.timing." + std::string(classes[i]) + field, v);
        }
        row_.note = "MAX and SHFL have no op class of their own: not mapped";
        return true;
    }
    // Accel-Sim's trace-mode timing, -trace_opcode_latency_initiation_<unit> L,I: every INT,
    // FP32 (sp), FP64 (dp), SFU or tensor opcode of the traces. False for the other units.
    bool map_trace_opcode() {
        constexpr std::string_view prefix = "trace_opcode_latency_initiation_";
        const std::string_view unit = std::string_view(option_->name).substr(prefix.size());
        std::array<const char*, 3> classes{};
        if (unit == "int")
            classes = {"int_add", "int_mul", "int_mad"};
        else if (unit == "sp")
            classes = {"fp_add", "fp_mul", "fp_mad"};
        else if (unit == "dp")
            classes = {"dp_add", "dp_mul", "dp_fma"};
        else if (unit == "sfu")
            classes = {"sfu", nullptr, nullptr};
        else if (unit == "tensor")
            classes = {"tensor", nullptr, nullptr};
        else
            return false;
        const auto f = gpgpusim_split(whole_field(), ',');
        if (f.size() != 2)
            fail(0, "expected <latency>,<initiation interval>, got " +
                        gpgpusim_quoted(option_->value));
        const std::uint64_t lat = whole(f[0], "the latency");
        const std::uint64_t ii = whole(f[1], "the initiation interval");
        for (const char* c : classes) {
            if (c == nullptr) continue;
            set("sm.units.timing." + std::string(c) + ".latency", lat);
            set("sm.units.timing." + std::string(c) + ".initiation_interval", ii);
        }
        return true;
    }
    void map_dram_scheduler() {
        const std::uint64_t v = whole_value("the DRAM scheduler");
        if (v > 1) fail(whole_field().offset, "expected 0 (FIFO) or 1 (FR-FCFS)");
        set("memory.partition.scheduler", v == 0 ? "fcfs" : "fr_fcfs");
    }
    void map_network() {
        const std::uint64_t v = whole_value("the network mode");
        if (v != 1 && v != 2)
            fail(whole_field().offset, "expected 1 (BookSim) or 2 (local crossbar)");
        set("memory.noc.model", "crossbar");
        row_.note = v == 1 ? "BookSim network of the tested configs: a crossbar" : "local crossbar";
    }
};

} // namespace detail

/// GPGPU-Sim config `text` (read from `file`, for messages) as warpkit settings, checked
/// against `target`. Throws parse_error with file, line and column for malformed text.
[[nodiscard]] inline gpgpusim_translation
translate_gpgpusim_config(std::string_view text, const std::string& file,
                          const gpgpusim_target& target = {}) {
    const auto options = gpgpusim_options(text, file);
    return detail::gpgpusim_translator(options, file, target).run();
}

/// The GPGPU-Sim config file at `path` as warpkit settings (see translate_gpgpusim_config).
/// Throws warpkit::error naming the file when it cannot be read.
[[nodiscard]] inline gpgpusim_translation read_gpgpusim_config(const std::string& path,
                                                               const gpgpusim_target& target = {}) {
    return translate_gpgpusim_config(read_file(path), path, target);
}

} // namespace warpkit::host
