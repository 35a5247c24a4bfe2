#pragma once
/// \file
/// Accel-Sim SASS traces through the timing model: `trace_kernel`, one kernel trace
/// (`.traceg`) ready to launch on a gpu::gpu (its geometry from the trace's header), and
/// `trace_source`, the instruction source that hands each warp its recorded instructions.
///
/// A trace holds what every warp executed: its path, with the active lanes of each
/// instruction and the addresses of each memory access. No functional execution and no SIMT
/// stack are needed; the source replays the lists. Thread blocks stream from the file as the
/// SMs start them (file order, whatever the block indices: the trace's blocks are the grid's),
/// each decoded once into static_insts through the opcode tables (func/sass_opcodes.hpp, or
/// func/ptx_trace_opcodes.hpp for the traces the project writes of PTX kernels), so only the
/// resident blocks are in memory. An opcode neither table nor the user's extra entries know
/// is a parse_error naming it, the file and the line.
///
/// Registers: the trace's `R<n>` map onto the scoreboard's ids as n modulo
/// `trace_options::timing_registers` (R255, the zero register, is no dependency); folded ids
/// can add false dependencies, never lose one. Predicates and uniform registers are not in
/// the trace. An instruction naming more registers than a static_inst holds keeps the first.
///
/// Barriers: a warp at a waiting `BAR` (some lane active) stops until every live warp of its
/// block has arrived; a warp whose list ends has exited. Every warp of a block must wait at
/// as many barriers as the others: a barrier some warp never reaches is a parse_error at the
/// line of that barrier. Memory spaces: a generic access (LD, ST, ATOM) whose first lane's
/// address lies in the block's shared window (`-shmem base_addr`, 4 GiB) is shared, in the
/// local window local, else global; shared addresses become offsets in the block's shared
/// memory.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/func/accelsim_trace.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/ptx_trace_opcodes.hpp>
#include <warpkit/func/sass_opcodes.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/simt/concepts.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace warpkit::func {

/// Opens a trace file for reading (func/trace_file.hpp's trace_file reads xz and gzip ones);
/// throws warpkit::error naming the path when it cannot.
using trace_opener = std::function<std::unique_ptr<std::istream>(const std::string& path)>;

/// Opens a plain-text trace file; "cannot read '<path>': <reason>" when it cannot.
[[nodiscard]] inline std::unique_ptr<std::istream> open_plain_trace(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw error("cannot read '" + path + "': it is a directory");
    errno = 0;
    auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*in)
        throw error("cannot read '" + path +
                    "': " + std::generic_category().message(errno != 0 ? errno : ENOENT));
    return in;
}

/// How a trace kernel reads its opcodes and registers.
struct trace_options {
    /// The opcode table: nullopt takes the family of the header (`-opcode set = ptx`: ptx;
    /// else the `-binary version`, sass::family_of_binary_version).
    std::optional<sass::family> family;
    /// Opcodes the family's table lacks or that the user classifies otherwise.
    std::vector<sass::extra_opcode> extra_opcodes;
    /// Scoreboard register ids (1 to 255): an SM's tracked_registers (63 by default).
    std::uint32_t timing_registers = 63;
    /// Opens the trace (plain text by default).
    trace_opener open = open_plain_trace;
};

/// One recorded warp instruction, decoded.
struct trace_step {
    isa::static_inst si;
    std::uint32_t mask = 0;          ///< the lanes that executed it
    std::uint32_t first_address = 0; ///< its first active lane's address in the block's list
    std::uint32_t pc = 0;
};

/// One thread block of a trace, decoded: each warp's steps (by warp number in the block) and
/// the addresses of the memory steps.
struct trace_block {
    accelsim::dim3 index{0, 0, 0};
    std::vector<std::vector<trace_step>> warps;
    std::vector<std::uint64_t> addresses;
};

namespace detail {

// The static_insts one opcode of a trace decodes to, with and without addresses.
struct opcode_timing {
    isa::static_inst with_addresses;
    isa::static_inst without_addresses;
    bool generic = false; // LD / ST / ATOM: the addresses decide the space
};

// The thread blocks of one kernel trace, read and decoded in file order; shared by the
// instruction sources of every SM of a run.
class trace_block_feed {
public:
    trace_block_feed(std::string path, trace_options o)
        : path_(std::move(path)), options_(std::move(o)) {
        if (options_.timing_registers < 1 || options_.timing_registers > 255)
            throw config_error("timing_registers", std::to_string(options_.timing_registers),
                               "1 to 255");
        open_();
        const auto& h = reader_->header();
        family_ = options_.family ? *options_.family : family_of_(h);
        table_.emplace(family_, options_.extra_opcodes);
    }

    [[nodiscard]] const accelsim::kernel_header& header() const { return reader_->header(); }
    [[nodiscard]] sass::family family() const noexcept { return family_; }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    // Decodes the next thread block into `out` for kernel block number `block` (a run hands
    // them out from 0 in order; block 0 again starts the file over).
    void next(std::uint32_t block, trace_block& out) {
        if (block == 0 && handed_ > 0) open_();
        if (!reader_->next_block(raw_))
            throw parse_error(path_, 0, 1,
                              "the trace holds " + std::to_string(handed_) +
                                  " thread blocks, the grid " +
                                  std::to_string(reader_->header().grid.count()));
        ++handed_;
        decode_(out);
    }

private:
    void open_() {
        stream_.reset(); // the reader holds a reference to the stream: drop it first
        reader_.reset();
        stream_ = options_.open(path_);
        reader_.emplace(*stream_, path_);
        timings_.clear();
        handed_ = 0;
    }

    [[nodiscard]] sass::family family_of_(const accelsim::kernel_header& h) const {
        for (const auto& [key, value] : h.other)
            if (key == "opcode set" && value == "ptx") return sass::family::ptx;
        if (const auto f = sass::family_of_binary_version(h.binary_version)) return *f;
        throw parse_error(path_, 1, 1,
                          "binary version " + std::to_string(h.binary_version) +
                              " names no SASS family this reader knows (30-37 Kepler, 50-62 "
                              "Pascal, 70 Volta, 75 Turing, 80-89 Ampere): choose one with "
                              "trace_options::family (warpkit-run --sass-family)");
    }

    // The timing of opcode `id` of the reader (decoded at its first use on `line`).
    const opcode_timing& timing_(std::uint32_t id, std::size_t line) {
        if (timings_.size() <= id) timings_.resize(id + 1);
        if (timings_[id]) return *timings_[id];
        const std::string& text = reader_->opcodes()[id];
        opcode_timing t;
        if (const auto k = table_->find_extra(text); k || family_ != sass::family::ptx) {
            const auto kind = k ? k : table_->find(text);
            if (!kind) unknown_(text, line);
            t.with_addresses = sass::static_inst_of(*kind, text, true);
            t.without_addresses = sass::static_inst_of(*kind, text, false);
            t.generic = sass::generic_space(*kind);
        } else {
            const auto in = ptx_trace::parse_opcode(text);
            if (!in) unknown_(text, line);
            t.with_addresses = ptx_trace::static_inst_of(*in, true);
            t.without_addresses = ptx_trace::static_inst_of(*in, false);
        }
        return timings_[id].emplace(t);
    }

    [[noreturn]] void unknown_(const std::string& text, std::size_t line) const {
        throw parse_error(path_, line, 1,
                          "unknown opcode '" + text + "' for the " +
                              std::string(sass::name(family_)) +
                              " family (classify it in an opcode table file: 'OPCODE kind' "
                              "lines, warpkit-run --opcodes FILE)");
    }

    // Adds the scoreboard id of register `r` to the first `count` of `ids` once.
    template <std::size_t N>
    void add_register_(std::array<isa::reg_id, N>& ids, std::uint8_t& count,
                       std::uint16_t r) const {
        if (r == 255) return; // RZ
        const auto id = static_cast<isa::reg_id>(r % options_.timing_registers);
        for (std::size_t i = 0; i < count; ++i)
            if (ids[i] == id) return;
        if (count < N) ids[count++] = id;
    }

    // A generic access in the shared or local window, and shared addresses as offsets.
    void place_(trace_step& s, std::vector<std::uint64_t>& addresses, bool generic) const {
        const auto& h = reader_->header();
        const int lanes = std::popcount(s.mask);
        if (lanes == 0) return;
        const std::uint64_t first = addresses[s.first_address];
        const auto inside = [&](std::uint64_t base) {
            return base != 0 && first >= base && first - base < (std::uint64_t{1} << 32);
        };
        if (generic && inside(h.shared_base)) {
            s.si.space = isa::mem_space::shared;
            if (s.si.mop != isa::mem_op::atomic) s.si.latency = isa::latency_class::shared_mem;
        } else if (generic && inside(h.local_base)) {
            s.si.space = isa::mem_space::local;
        }
        if (s.si.space == isa::mem_space::shared && inside(h.shared_base))
            for (int k = 0; k < lanes; ++k)
                addresses[s.first_address + static_cast<std::size_t>(k)] -= h.shared_base;
    }

    [[nodiscard]] trace_step step_(const accelsim::trace_instruction& in,
                                   std::vector<std::uint64_t>& addresses) {
        const auto& t = timing_(in.opcode, in.line);
        trace_step s;
        s.si = in.mem_width > 0 ? t.with_addresses : t.without_addresses;
        s.mask = in.mask;
        s.first_address = in.first_address;
        s.pc = static_cast<std::uint32_t>(in.pc);
        for (std::size_t i = 0; i < in.dst_count; ++i)
            add_register_(s.si.dst, s.si.num_dst, in.dst[i]);
        for (std::size_t i = 0; i < in.src_count; ++i)
            add_register_(s.si.src, s.si.num_src, in.src[i]);
        if (in.mem_width > 0 && s.si.mop != isa::mem_op::none) {
            s.si.access_bytes =
                static_cast<std::uint8_t>(std::min<std::uint32_t>(in.mem_width, 255));
            place_(s, addresses, t.generic);
        }
        return s;
    }

    void decode_(trace_block& out) {
        const auto& h = reader_->header();
        out.index = raw_.index;
        out.warps.resize(h.warps_per_block());
        for (auto& w : out.warps)
            w.clear();
        out.addresses.swap(raw_.addresses);
        for (const auto& w : raw_.warps) {
            auto& steps = out.warps[w.warp];
            steps.reserve(w.instructions.size());
            for (const auto& in : w.instructions)
                steps.push_back(step_(in, out.addresses));
        }
        check_barriers_(out);
    }

    // Every warp of the block waits at as many barriers; else the first barrier that some warp
    // never reaches is an error.
    void check_barriers_(const trace_block& b) const {
        const auto waits = [](const std::vector<trace_step>& steps) {
            return static_cast<std::size_t>(
                std::count_if(steps.begin(), steps.end(),
                              [](const trace_step& s) { return s.si.is_barrier && s.mask != 0; }));
        };
        std::size_t fewest = 0;
        std::size_t most = 0;
        for (std::size_t w = 0; w < b.warps.size(); ++w) {
            if (waits(b.warps[w]) < waits(b.warps[fewest])) fewest = w;
            if (waits(b.warps[w]) > waits(b.warps[most])) most = w;
        }
        const std::size_t reached = waits(b.warps[fewest]);
        if (waits(b.warps[most]) == reached) return;
        // The (reached + 1)-th waiting barrier of warp `most`, found in the raw trace by line.
        std::size_t line = 0;
        for (const auto& w : raw_.warps) {
            if (w.warp != most) continue;
            std::size_t n = 0;
            for (std::size_t i = 0; i < w.instructions.size() && line == 0; ++i) {
                const auto& s = b.warps[most][i];
                if (s.si.is_barrier && s.mask != 0 && n++ == reached) line = w.instructions[i].line;
            }
        }
        const auto& x = b.index;
        throw parse_error(path_, line, 1,
                          "warp " + std::to_string(most) + " of thread block (" +
                              std::to_string(x.x) + "," + std::to_string(x.y) + "," +
                              std::to_string(x.z) + ") waits at a barrier that warp " +
                              std::to_string(fewest) + " never reaches (warp " +
                              std::to_string(fewest) + " waits at " + std::to_string(reached) +
                              ", warp " + std::to_string(most) + " at " +
                              std::to_string(waits(b.warps[most])) + ")");
    }

    std::string path_;
    trace_options options_;
    std::unique_ptr<std::istream> stream_;
    std::optional<accelsim::kernel_trace_reader> reader_;
    sass::family family_ = sass::family::volta;
    std::optional<sass::opcode_table> table_;
    std::vector<std::optional<opcode_timing>> timings_; // by the reader's opcode id
    accelsim::block_trace raw_;
    std::uint64_t handed_ = 0;
};

} // namespace detail

/// One kernel of an Accel-Sim trace, ready to launch (func::launchable_kernel): 32-thread
/// warps, the header's grid, block, registers per thread and shared memory. Copies share one
/// reader: a kernel runs on one GPU at a time.
class trace_kernel {
public:
    /// The kernel traced in `path` (its header read now; parse_error naming the file and line
    /// for a malformed one, warpkit::error for a file that cannot be read).
    explicit trace_kernel(std::string path, trace_options o = {})
        : feed_(std::make_shared<detail::trace_block_feed>(std::move(path), std::move(o))) {
        const auto& h = feed_->header();
        if (h.grid.count() > 0xffffffffULL)
            throw parse_error(feed_->path(), 1, 1,
                              "a grid of " + std::to_string(h.grid.count()) +
                                  " thread blocks (at most 2^32 - 1)");
    }

    [[nodiscard]] const accelsim::kernel_header& header() const { return feed_->header(); }
    /// The opcode table the trace is read with.
    [[nodiscard]] sass::family family() const noexcept { return feed_->family(); }
    [[nodiscard]] const std::string& path() const noexcept { return feed_->path(); }

    [[nodiscard]] std::uint32_t warp_size() const noexcept { return 32; }
    [[nodiscard]] std::uint32_t blocks() const {
        return static_cast<std::uint32_t>(header().grid.count());
    }
    [[nodiscard]] std::uint32_t warps_per_block() const { return header().warps_per_block(); }
    [[nodiscard]] std::uint32_t threads_per_block() const {
        return static_cast<std::uint32_t>(header().block.count());
    }
    [[nodiscard]] std::uint32_t regs_per_thread() const { return header().registers; }
    [[nodiscard]] std::uint32_t shared_bytes() const { return header().shared_bytes; }

    /// Decodes the next thread block of the file into `out`, for kernel block `block` (block 0
    /// after others starts the file over).
    void next_block(std::uint32_t block, trace_block& out) const { feed_->next(block, out); }

private:
    std::shared_ptr<detail::trace_block_feed> feed_;
};

/// What a trace_source replayed.
struct trace_source_stats {
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0; ///< active lanes, summed
    std::uint64_t blocks = 0;
    std::uint64_t barrier_releases = 0;
    WARPKIT_FIELDS(trace_source_stats, warp_instructions, thread_instructions, blocks,
                   barrier_releases)
};

/// The warps of one SM replaying a trace kernel: per warp slot its position in its recorded
/// instructions, per block slot the decoded block. Holds a reference to the kernel, which
/// outlives it.
template <std::size_t WarpSize, class Stack>
class trace_source {
public:
    using mask = lane_mask<WarpSize>;
    using stats_type = trace_source_stats;

    /// An SM with `warp_slots` warp slots and `block_slots` block slots replaying `k`. Device
    /// memory and the shared bytes are not needed (the trace holds the addresses), nor a
    /// reconvergence stack (the trace holds every instruction's lanes): the stack prototype
    /// the GPU passes every source is ignored.
    trace_source(const trace_kernel& k, global_memory& /*mem*/, std::uint32_t warp_slots,
                 std::uint32_t block_slots, std::uint32_t /*shared_bytes*/,
                 const Stack& /*stack_prototype*/ = Stack{})
        : k_(&k), warps_(warp_slots), blocks_(block_slots) {}

    [[nodiscard]] bool finished(std::uint32_t slot) const {
        const auto& w = warps_.at(slot);
        return w.steps == nullptr || w.next >= w.steps->size();
    }
    [[nodiscard]] bool at_barrier(std::uint32_t slot) const { return warps_.at(slot).at_barrier; }

    /// The i-th instruction the warp will execute if no control instruction comes first;
    /// nullptr beyond one, past the end, or for a finished warp.
    [[nodiscard]] const isa::static_inst* peek(std::uint32_t slot, std::size_t i) const {
        const auto& w = warps_.at(slot);
        if (finished(slot)) return nullptr;
        return peek_fall_through(steps_view{w.steps}, w.next, simt::no_pc, i);
    }

    /// Replays the warp's next recorded instruction.
    isa::dynamic_inst<WarpSize> execute(std::uint32_t slot, exec_site /*site*/) {
        auto& w = warps_.at(slot);
        WARPKIT_EXPECTS(!finished(slot) && !w.at_barrier);
        auto& b = blocks_[w.block];
        const trace_step& s = (*w.steps)[w.next++];
        isa::dynamic_inst<WarpSize> d;
        d.si = s.si;
        d.warp = slot;
        d.pc = s.pc;
        d.seq = w.executed++;
        d.active = mask(static_cast<typename mask::word_type>(s.mask));
        if (s.si.mop != isa::mem_op::none) {
            std::size_t k = s.first_address;
            for (const std::size_t lane : d.active)
                d.addr[lane] = b.trace.addresses[k++];
        }
        ++st_.warp_instructions;
        st_.thread_instructions += d.active.count();
        if (finished(slot)) {
            --b.live_warps;    // an exited warp waits at no barrier
            w.steps = nullptr; // the block slot's next block must not revive it
        } else if (s.si.is_barrier && s.mask != 0) {
            w.at_barrier = true;
            ++b.arrived;
        }
        return d;
    }

    /// Starts the next thread block of the trace (kernel block `block`) in block slot `bslot`
    /// on the warp slots `slots` (one per warp of the block); returns how many hold live warps.
    std::uint32_t start_block(std::uint32_t bslot, std::uint32_t block,
                              std::span<const std::uint32_t> slots) {
        WARPKIT_EXPECTS(slots.size() == k_->warps_per_block());
        auto& b = blocks_.at(bslot);
        k_->next_block(block, b.trace);
        b.live_warps = 0;
        b.arrived = 0;
        for (std::uint32_t i = 0; i < slots.size(); ++i) {
            auto& w = warps_.at(slots[i]);
            w = warp{&b.trace.warps[i], 0, bslot, false, 0};
            if (!finished(slots[i])) ++b.live_warps;
        }
        ++st_.blocks;
        return b.live_warps;
    }
    /// Every live warp of block slot `bslot` waits at the barrier.
    [[nodiscard]] bool barrier_complete(std::uint32_t bslot) const {
        const auto& b = blocks_.at(bslot);
        return b.arrived > 0 && b.arrived >= b.live_warps;
    }
    /// Lets the warps of block slot `bslot` past the barrier.
    void release_barrier(std::uint32_t bslot) {
        for (auto& w : warps_)
            if (w.block == bslot) w.at_barrier = false;
        blocks_.at(bslot).arrived = 0;
        ++st_.barrier_releases;
    }
    /// Every warp of block slot `bslot` has exited.
    [[nodiscard]] bool block_finished(std::uint32_t bslot) const {
        return blocks_.at(bslot).live_warps == 0;
    }
    /// The trace PC of the warp's next instruction (for deadlock reports).
    [[nodiscard]] std::uint32_t pc(std::uint32_t slot) const {
        const auto& w = warps_.at(slot);
        return finished(slot) ? 0 : (*w.steps)[w.next].pc;
    }
    [[nodiscard]] const trace_source_stats& stats() const noexcept { return st_; }
    /// A replayed warp touches no device memory (the trace holds its addresses): SMs
    /// replaying a trace may tick on several threads with nothing to hold back.
    [[nodiscard]] static constexpr bool deferrable() noexcept { return true; }

private:
    // A warp's steps as code for peek_fall_through (size() and static_at(i)).
    struct steps_view {
        const std::vector<trace_step>* steps;
        [[nodiscard]] std::size_t size() const noexcept { return steps->size(); }
        [[nodiscard]] const isa::static_inst& static_at(std::size_t i) const {
            return (*steps)[i].si;
        }
    };
    struct warp {
        const std::vector<trace_step>* steps = nullptr; // in its block slot's trace
        std::size_t next = 0;
        std::uint32_t block = 0;
        bool at_barrier = false;
        std::uint64_t executed = 0;
    };
    struct block_slot {
        trace_block trace;
        std::uint32_t live_warps = 0;
        std::uint32_t arrived = 0;
    };

    const trace_kernel* k_;
    std::vector<warp> warps_;
    std::vector<block_slot> blocks_;
    trace_source_stats st_;
};

/// Trace kernels run on trace_source.
template <>
struct source_of<trace_kernel> {
    template <std::size_t W, class Stack>
    using type = trace_source<W, Stack>;
};

} // namespace warpkit::func
