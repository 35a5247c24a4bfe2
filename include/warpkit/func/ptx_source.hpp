#pragma once
/// \file
/// `ptx_source`: the instruction source that executes a PTX launch on one SM. Per warp slot:
/// the reconvergence stack (`Policies::stack`); per resident warp: register storage (the
/// kernel's storage rows, ptx::register_storage: 32-bit rows for registers of up to 32 bits,
/// 64-bit rows for the others) and local memory per thread, taken from a pool when its block
/// starts and returned when the warp exits, so memory follows the warps resident at once and
/// the registers the kernel really keeps live; per block slot: shared memory and the barrier.
/// Instructions execute when the timing model issues them (functional effects then,
/// lane by lane in lane order; atomics too), and each returns the dynamic_inst the timing
/// model sees: the lanes that executed (active and guard true) and, for memory instructions,
/// each lane's address (global: device address; shared: offset in the block's shared memory;
/// local: an interleaved address that gives consecutive lanes consecutive words; constant and
/// parameter: offset). A generic access whose lanes all fall in one window is reported in
/// that window's space.
///
/// Reconvergence: a branch calls `branch(taken, target, fall-through, rpc)` on a PDOM stack,
/// and `ssy(rpc)` then `branch(taken, target, fall-through)` on an SSY stack (paths that only
/// meet at exit reconverge at pc size(), past the code, which no path reaches). Barriers:
/// `bar.sync a{, b}` waits for b threads (rounded up to warps; default: every live warp of
/// the block); one barrier id is in use at a time per block (another id while one is open is
/// a sim_error). `bar.arrive` counts the warp without waiting; `bar.warp.sync` does nothing
/// (the lanes of a warp execute in lockstep).
///
/// A warp may be cut in two (`split`, AMOEBA's dynamic split): each part keeps its own lanes
/// and counts as half a warp at barriers, so `bar.sync a, b` still waits for b threads'
/// warps. Kernels with warp-collective instructions (`shfl`, `vote`, `activemask`, the matrix
/// instructions of func/ptx_matrix.hpp) cannot be cut (`can_cut()` is false): a lane of one
/// part would read the other part's lanes.
///
/// Statistics count thread instructions the way GPGPU-Sim's gpu_sim_insn does: every
/// executed instruction once per active lane whose guard predicate is true (a lane that does
/// not take `@p bra` does not count); warp instructions once per issue; both per opcode.

#include <warpkit/core/error.hpp>
#include <warpkit/core/lane_mask.hpp>
#include <warpkit/core/reflect.hpp>
#include <warpkit/func/deferred_global.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/func/ptx_matrix.hpp>
#include <warpkit/func/warp_storage.hpp>
#include <warpkit/isa/dynamic_inst.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/kernel.hpp>
#include <warpkit/ptx/launch.hpp>
#include <warpkit/ptx/names.hpp>
#include <warpkit/ptx/semantics.hpp>
#include <warpkit/ptx/texture.hpp>
#include <warpkit/ptx/warp_ops.hpp>
#include <warpkit/ptx/warp_semantics.hpp>
#include <warpkit/simt/concepts.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpkit::func {

/// What a ptx_source executed.
struct ptx_source_stats {
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0; ///< active lanes with a true guard, summed
    std::array<std::uint64_t, ptx::op_count> warp_by_opcode{};   ///< indexed by ptx::op
    std::array<std::uint64_t, ptx::op_count> thread_by_opcode{}; ///< indexed by ptx::op
    std::uint64_t blocks = 0;
    std::uint64_t barrier_releases = 0;
    std::uint64_t generic_accesses = 0; ///< memory instructions through generic addresses
    WARPKIT_FIELDS(ptx_source_stats, warp_instructions, thread_instructions, warp_by_opcode,
                   thread_by_opcode, blocks, barrier_releases, generic_accesses)
};

/// The warps of one SM running a PTX launch. Holds references to the launch and to device
/// memory, which outlive it.
template <std::size_t WarpSize, class Stack>
class ptx_source {
public:
    using mask = lane_mask<WarpSize>;
    using stats_type = ptx_source_stats;
    static constexpr std::size_t warp_size = WarpSize;

    /// An SM with `warp_slots` warp slots and `block_slots` block slots running `l`; each
    /// block gets max(`shared_bytes`, the launch's shared memory) bytes of shared memory.
    /// Every warp's stack starts as a copy of `stack` (a selectable_stack carries its kind).
    ptx_source(const ptx::launch& l, global_memory& mem, std::uint32_t warp_slots,
               std::uint32_t block_slots, std::uint32_t shared_bytes, const Stack& stack = {})
        : l_(&l), k_(&l.prepared()), mem_(&mem),
          shared_bytes_(std::max(shared_bytes, l.shared_bytes())),
          warps_(warp_slots, with_stack(stack)), blocks_(block_slots), storage_(*k_, warp_slots) {
        if (l.warp_size() != WarpSize)
            throw config_error("warp_size", std::to_string(l.warp_size()),
                               std::to_string(WarpSize));
        for (std::size_t pc = 0; pc < k_->size(); ++pc) {
            const ptx::op o = k_->at(pc).in.opcode;
            if (ptx::warp_collective(o)) can_cut_ = false;
            // Texture fetches and matrix loads read device memory where they execute.
            if (o == ptx::op::tex || o == ptx::op::wmma_load || o == ptx::op::wmma_store)
                deferrable_ = false;
        }
    }

    [[nodiscard]] bool finished(std::uint32_t slot) const {
        return warps_.at(slot).stack.finished();
    }
    [[nodiscard]] bool at_barrier(std::uint32_t slot) const { return warps_.at(slot).at_barrier; }
    /// True when the live warp in `slot` has run past the kernel's last instruction (a path
    /// without ret or exit): it has nothing left to issue.
    [[nodiscard]] bool past_end(std::uint32_t slot) const {
        const auto& w = warps_.at(slot);
        return !w.stack.finished() && w.stack.pc() >= k_->size();
    }

    /// The i-th instruction the warp will execute if no control instruction or reconvergence
    /// point comes first; nullptr beyond one, past the end, or for a finished warp.
    [[nodiscard]] const isa::static_inst* peek(std::uint32_t slot, std::size_t i) const {
        const auto& w = warps_.at(slot);
        if (w.stack.finished()) return nullptr;
        return peek_fall_through(*k_, w.stack.pc(), reconvergence_boundary(w.stack), i);
    }

    /// Executes the warp's next instruction.
    isa::dynamic_inst<WarpSize> execute(std::uint32_t slot, exec_site site) {
        auto& w = warps_.at(slot);
        WARPKIT_EXPECTS(!w.stack.finished() && !w.at_barrier);
        const std::size_t pc = w.stack.pc();
        if (pc >= k_->size()) fault_(pc, "the warp ran past the end of the kernel");
        const ptx::prepared_inst& p = k_->at(pc);
        const ptx::instruction& in = p.in;
        isa::dynamic_inst<WarpSize> d;
        d.si = k_->static_at(pc);
        d.warp = slot;
        d.pc = static_cast<std::uint32_t>(pc);
        d.seq = w.executed++;
        w.stack.record_issue();
        const mask active = w.stack.active();
        mask exec = active;
        if (in.guard != ptx::no_index) {
            exec = mask{};
            const reg_row g = row_(slot, in.guard);
            for (const std::size_t l : active)
                if (((g.get(l) & 1U) != 0) != in.guard_negated) exec.set(l);
        }
        d.active = exec;
        const auto opi = static_cast<std::size_t>(in.opcode);
        ++st_.warp_instructions;
        ++st_.warp_by_opcode[opi];
        st_.thread_instructions += exec.count();
        st_.thread_by_opcode[opi] += exec.count();
        site_ = site;
        cur_slot_ = slot;
        cur_pc_ = pc;
        const auto next = static_cast<simt::pc_type>(pc + 1);
        using ptx::op;
        switch (in.opcode) {
        case op::bra: {
            const simt::pc_type rpc = k_->reconvergence(pc);
            if constexpr (simt::sync_point_stack<Stack>) {
                if (simt::uses_sync_points(w.stack)) {
                    w.stack.ssy(rpc == simt::no_pc ? static_cast<simt::pc_type>(k_->size()) : rpc);
                    w.stack.branch(exec, p.target, next);
                    return d;
                }
            }
            w.stack.branch(exec, p.target, next, rpc);
            return d;
        }
        case op::exit:
        case op::trap: {
            if (in.opcode == op::trap && exec.any())
                fault_(pc, "trap executed (lane " + std::to_string(exec.first()) + ")");
            const mask rest = active.minus(exec);
            w.stack.exit(exec);
            if (rest.any()) w.stack.advance(next);
            if (w.stack.finished()) {
                --blocks_[w.block].live_warps;
                blocks_[w.block].live_halves -= w.halves;
                storage_.release(slot);
            }
            return d;
        }
        case op::bar:
            // bar.warp.sync: a warp's lanes run in lockstep here, so there is nothing to wait for.
            if (exec.any() && !in.warp) barrier_(w, p, exec);
            w.stack.advance(next);
            return d;
        case op::membar:
        case op::fence:
        case op::prefetch:
            w.stack.advance(next);
            return d;
        case op::ld:
        case op::ldu:
        case op::st:
        case op::atom:
        case op::red:
            memory_(slot, w, p, exec, d);
            w.stack.advance(next);
            return d;
        case op::shfl:
            shuffle_(slot, p, exec);
            w.stack.advance(next);
            return d;
        case op::vote:
            vote_(slot, p, exec);
            w.stack.advance(next);
            return d;
        case op::tex:
            texture_(slot, p, exec, d);
            w.stack.advance(next);
            return d;
        case op::wmma_load:
        case op::wmma_store:
        case op::wmma_mma:
        case op::mma:
            ptx_matrix_execution::execute(*this, slot, p, exec, d);
            w.stack.advance(next);
            return d;
        case op::activemask:
            for (const std::size_t l : exec)
                put_(slot, p.dst[0], l, exec.bits(), ptx::type::b32);
            w.stack.advance(next);
            return d;
        case op::cvta:
            for (const std::size_t l : exec)
                put_(slot, p.dst[0], l, ptx::cvta(in, read_(slot, p.src[0], l)), in.t);
            w.stack.advance(next);
            return d;
        case op::mov:
            if (p.num_dst > 1 || p.num_src > 1) {
                move_vector_(slot, p, exec);
                w.stack.advance(next);
                return d;
            }
            break;
        default:
            break;
        }
        alu_(slot, p, exec);
        w.stack.advance(next);
        return d;
    }

    /// Starts block number `block` in block slot `bslot` on the warp slots `slots` (one per
    /// warp of the block); returns how many of them hold live warps.
    std::uint32_t start_block(std::uint32_t bslot, std::uint32_t block,
                              std::span<const std::uint32_t> slots) {
        WARPKIT_EXPECTS(slots.size() == l_->warps_per_block());
        auto& b = blocks_.at(bslot);
        const auto& g = l_->grid();
        b.linear = block;
        b.id = {block % g.x, (block / g.x) % g.y, block / (g.x * g.y)};
        b.shared.assign(shared_bytes_, 0);
        b.live_warps = 0;
        b.live_halves = 0;
        b.arrived = 0;
        b.expected = 0;
        b.barrier_id = -1;
        const std::uint32_t threads = l_->threads_per_block();
        for (std::uint32_t i = 0; i < slots.size(); ++i) {
            const std::uint32_t s = slots[i];
            auto& w = warps_.at(s);
            w.block = bslot;
            w.warp_in_block = i;
            w.at_barrier = false;
            w.executed = 0;
            w.halves = 2;
            const std::uint32_t first = i * static_cast<std::uint32_t>(WarpSize);
            w.stack.reset(0, mask::first_n(threads > first ? threads - first : 0));
            storage_.release(s);
            if (!w.stack.finished()) {
                storage_.acquire(s);
                ++b.live_warps;
                b.live_halves += 2;
            }
        }
        ++st_.blocks;
        return b.live_warps;
    }

    /// The warps the open barrier of block slot `bslot` waits for have all arrived.
    [[nodiscard]] bool barrier_complete(std::uint32_t bslot) const {
        const auto& b = blocks_.at(bslot);
        if (b.arrived == 0) return false;
        return b.arrived >= (b.expected != 0 ? std::min(b.expected, b.live_halves) : b.live_halves);
    }
    /// Lets the waiting warps of block slot `bslot` past the barrier.
    void release_barrier(std::uint32_t bslot) {
        auto& b = blocks_.at(bslot);
        for (auto& w : warps_)
            if (w.block == bslot) w.at_barrier = false;
        b.arrived = 0;
        b.expected = 0;
        b.barrier_id = -1;
        ++st_.barrier_releases;
    }
    /// Every warp of block slot `bslot` has exited.
    [[nodiscard]] bool block_finished(std::uint32_t bslot) const {
        return blocks_.at(bslot).live_warps == 0;
    }
    /// True when every access of the kernel to device memory is a load, store or atomic
    /// (ld, ldu, st, atom, red) that `defer_global` can hold back: no texture fetch, no
    /// matrix load or store.
    [[nodiscard]] bool deferrable() const noexcept { return deferrable_; }
    /// While on, the device-memory (global) effects of ld, ldu, st, atom and red wait until
    /// `commit_global()` performs them in the order they executed (func/deferred_global.hpp);
    /// addresses, faults and the timing model's view happen at execution as before. Needs
    /// `deferrable()`.
    void defer_global(bool on) {
        WARPKIT_EXPECTS((!on || deferrable_) && deferred_.empty());
        defer_ = on;
    }
    /// Performs the held-back accesses in order (see defer_global). With `loads_only` (no
    /// source holds a write: holds_global_writes() false on each) it only reads device
    /// memory, so the sources of several SMs may commit at once, each on its own thread.
    void commit_global(bool loads_only = false) {
        const auto put = [this](std::uint32_t slot, std::uint32_t r, std::size_t l, std::uint64_t v,
                                ptx::type t) { put_(slot, r, l, v, t); };
        if (loads_only)
            deferred_.commit_loads(*mem_, put);
        else
            deferred_.commit(*mem_, put);
    }
    /// True when a held-back access is a store or an atomic (false: loads alone, or none).
    [[nodiscard]] bool holds_global_writes() const noexcept { return deferred_.holds_writes(); }
    /// Held-back accesses (one per lane and vector element).
    [[nodiscard]] std::size_t global_held() const noexcept { return deferred_.size(); }
    /// False when the kernel has warp-collective instructions (ptx::warp_collective): its
    /// warps must not be cut.
    [[nodiscard]] bool can_cut() const noexcept { return can_cut_; }
    /// Cuts the warp in `slot` in two (AMOEBA's split, paper 002 Sec. 4.3): it keeps the
    /// threads `keep`; its other live threads become a warp of the same block in the free
    /// slot `into`, with a copy of the registers, local memory and reconvergence stack. Both
    /// parts must hold threads; the warp must be whole (not itself a part), not wait at a
    /// barrier, and the kernel must allow cuts (`can_cut()`). The block has one more live
    /// warp; at barriers each part counts half.
    void split(std::uint32_t slot, std::uint32_t into, mask keep) {
        auto& w = warps_.at(slot);
        auto& t = warps_.at(into);
        const auto live = w.stack.live();
        WARPKIT_EXPECTS(can_cut_ && slot != into && !w.stack.finished() && !w.at_barrier &&
                        w.halves == 2 && t.stack.finished());
        WARPKIT_EXPECTS((live & keep).any() && live.minus(keep).any());
        t = w;
        t.stack.reset_stats();
        t.executed = 0;
        t.halves = 1;
        w.halves = 1;
        w.stack.keep(keep);
        t.stack.keep(live.minus(keep));
        storage_.release(into);
        storage_.acquire(into);
        storage_.copy(slot, into);
        ++blocks_[w.block].live_warps;
    }
    /// Pc of the warp in `slot` (for deadlock reports).
    [[nodiscard]] std::uint32_t pc(std::uint32_t slot) const { return warps_.at(slot).stack.pc(); }
    /// The warp's reconvergence stack (its stats: divergence, depth, active lanes).
    [[nodiscard]] const Stack& stack(std::uint32_t slot) const { return warps_.at(slot).stack; }
    /// Value of virtual register `r` in lane `lane` of the live warp in `slot` (tests,
    /// debugging; a register not live at this point may read another's value).
    [[nodiscard]] std::uint64_t reg(std::uint32_t slot, std::uint32_t r, std::size_t lane) const {
        WARPKIT_EXPECTS(r < storage_.registers() && lane < WarpSize && slot < warps_.size() &&
                        storage_.holds(slot));
        return row_(slot, r).get(lane);
    }
    /// Bytes of register storage and local memory the pool holds (one warp's worth for each
    /// of the most warps that held storage at once) and what one warp holds.
    [[nodiscard]] std::size_t storage_bytes() const noexcept { return storage_.bytes(); }
    [[nodiscard]] std::size_t warp_storage_bytes() const noexcept { return storage_.store_bytes(); }

    [[nodiscard]] const ptx_source_stats& stats() const noexcept { return st_; }
    [[nodiscard]] const ptx::launch& launch() const noexcept { return *l_; }

private:
    friend struct ptx_matrix_execution;
    struct warp {
        Stack stack;
        std::uint32_t block = 0;
        std::uint32_t warp_in_block = 0;
        bool at_barrier = false;
        std::uint64_t executed = 0;
        std::uint32_t halves = 2; ///< 2: a whole warp; 1: a part of a cut warp
    };
    static warp with_stack(const Stack& stack) {
        warp w;
        w.stack = stack;
        return w;
    }
    struct cta {
        isa::dim3 id;
        std::uint32_t linear = 0;
        std::vector<std::uint8_t> shared;
        std::uint32_t live_warps = 0;
        std::uint32_t live_halves = 0; ///< live warps counting a part of a cut warp as half
        std::uint32_t arrived = 0;     ///< half-warps at the open barrier
        std::uint32_t expected = 0;    ///< half-warps the open barrier waits for (0: all live)
        std::int64_t barrier_id = -1;
    };
    using location = ptx::space_address;

    [[noreturn]] void fault_(std::size_t pc, const std::string& what) const {
        throw sim_error(k_->where(pc) + ": " + what + " (kernel `" + k_->name() + "`, block " +
                        std::to_string(blocks_[warps_[cur_slot_].block].linear) + ", warp " +
                        std::to_string(warps_[cur_slot_].warp_in_block) + ")");
    }
    [[nodiscard]] static std::string hex_(std::uint64_t v) { return global_memory::hex(v); }

    using reg_row = typename warp_storage<WarpSize>::row;
    [[nodiscard]] reg_row row_(std::uint32_t slot, std::uint32_t r) const noexcept {
        return storage_.lanes(slot, r);
    }
    void put_(std::uint32_t slot, std::uint32_t r, std::size_t l, std::uint64_t v, ptx::type t) {
        if (r != ptx::no_index) storage_.put(slot, r, l, v, t);
    }

    [[nodiscard]] std::uint64_t special_(const ptx::value_ref& v, std::size_t l) const {
        const auto& w = warps_[cur_slot_];
        const ptx::thread_context c{l_->block(),     blocks_[w.block].id,
                                    l_->grid(),      static_cast<std::uint32_t>(WarpSize),
                                    w.warp_in_block, static_cast<std::uint32_t>(warps_.size()),
                                    site_.sm,        site_.clock};
        return ptx::special_register(v.special, v.dim, c, l);
    }

    [[nodiscard]] std::uint64_t read_(std::uint32_t slot, const ptx::value_ref& v,
                                      std::size_t l) const {
        switch (v.k) {
        case ptx::value_ref::kind::reg:
            return row_(slot, v.reg).get(l) ^ (v.negate ? 1U : 0U);
        case ptx::value_ref::kind::imm:
            return v.bits;
        case ptx::value_ref::kind::sreg:
            return special_(v, l);
        default:
            return 0;
        }
    }

    // A source operand resolved once per instruction: a register row (lane-indexed), or an
    // immediate; special registers are evaluated per lane into a scratch row.
    struct operand_row {
        const std::uint64_t* row = nullptr;
        const std::uint32_t* narrow = nullptr;
        std::uint64_t imm = 0;
        std::uint64_t flip = 0;
        [[nodiscard]] std::uint64_t at(std::size_t l) const noexcept {
            if (row != nullptr) return row[l] ^ flip;
            if (narrow != nullptr) return narrow[l] ^ flip;
            return imm;
        }
    };
    void resolve_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec) {
        for (std::size_t i = 0; i < p.num_src; ++i) {
            const auto& v = p.src[i];
            auto& o = ops_[i];
            o = operand_row{};
            switch (v.k) {
            case ptx::value_ref::kind::reg: {
                const reg_row r = row_(slot, v.reg);
                o.row = r.wide;
                o.narrow = r.narrow;
                o.flip = v.negate ? 1 : 0;
                break;
            }
            case ptx::value_ref::kind::sreg:
                for (const std::size_t l : exec)
                    scratch_[i][l] = special_(v, l);
                o.row = scratch_[i].data();
                break;
            default:
                o.imm = v.bits;
                break;
            }
        }
    }

    // Writes f(lane) for every lane of exec to the instruction's first destination; f returns
    // a value of type rt.
    template <class F>
    void each_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec, ptx::type rt, F&& f) {
        const std::uint32_t r = p.dst[0];
        if (r == ptx::no_index) return;
        const reg_row d = row_(slot, r);
        const std::uint64_t m = ptx::low_mask(storage_.register_bits(r));
        if (d.wide != nullptr)
            each_into_(d.wide, exec, rt, m, f);
        else
            each_into_(d.narrow, exec, rt, m, f);
    }
    template <class T, class F>
    static void each_into_(T* d, mask exec, ptx::type rt, std::uint64_t m, F& f) {
        if (ptx::is_signed(rt)) {
            const ptx::extension extend(rt);
            for (const std::size_t l : exec)
                d[l] = static_cast<T>(extend(f(l)) & m);
        } else {
            const std::uint64_t t = ptx::low_mask(ptx::bits(rt)) & m;
            for (const std::size_t l : exec)
                d[l] = static_cast<T>(f(l) & t);
        }
    }

    void alu_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec) {
        const ptx::instruction& in = p.in;
        const ptx::type rt = ptx::result_type(in);
        resolve_(slot, p, exec);
        const bool plain = p.num_dst == 1 && !p.reads_carry && !p.writes_carry;
        if (plain && ptx::evaluate_warp(in, ops_[0], ops_[1], ops_[2],
                                        [&](auto&& f) { each_(slot, p, exec, rt, f); }))
            return;
        const std::uint32_t cc = k_->carry_register();
        std::array<std::uint64_t, 6> src{};
        const std::span<const std::uint64_t> args(src.data(), p.num_src);
        for (const std::size_t l : exec) {
            for (std::size_t i = 0; i < p.num_src; ++i)
                src[i] = ops_[i].at(l);
            const bool carry = p.reads_carry && (row_(slot, cc).get(l) & 1U) != 0;
            const ptx::lane_result r = ptx::evaluate(in, args, carry);
            put_(slot, p.dst[0], l, r.value, rt);
            if (p.num_dst > 1) put_(slot, p.dst[1], l, r.value2, ptx::type::pred);
            if (p.writes_carry) row_(slot, cc).set(l, r.carry ? 1 : 0);
        }
    }

    // mov with a vector: pack elements into one register or split one into elements.
    void move_vector_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec) {
        const unsigned total = ptx::bits(p.in.t);
        const unsigned n = p.num_dst > 1 ? p.num_dst : p.num_src;
        const unsigned ew = total / n;
        const ptx::type et =
            ew <= 16 ? ptx::type::b16 : (ew <= 32 ? ptx::type::b32 : ptx::type::b64);
        for (const std::size_t l : exec) {
            if (p.num_dst > 1) { // {a, b} = x: split
                const std::uint64_t v = read_(slot, p.src[0], l);
                for (unsigned e = 0; e < n; ++e)
                    put_(slot, p.dst[e], l, (v >> (e * ew)) & ptx::low_mask(ew), et);
            } else { // x = {a, b}: pack, the first element lowest
                std::uint64_t v = 0;
                for (unsigned e = 0; e < n; ++e)
                    v |= (read_(slot, p.src[e], l) & ptx::low_mask(ew)) << (e * ew);
                put_(slot, p.dst[0], l, v, p.in.t);
            }
        }
    }

    // The bytes of a non-global space at `a` for lane `l`, checked against the space's size.
    [[nodiscard]] std::uint8_t* bytes_(std::uint32_t slot, const location& loc, std::size_t l,
                                       unsigned size, bool write) {
        std::uint8_t* base = nullptr;
        std::uint64_t limit = 0;
        switch (loc.sp) {
        case ptx::space::shared: {
            auto& sh = blocks_[warps_[slot].block].shared;
            base = sh.data();
            limit = sh.size();
            break;
        }
        case ptx::space::local:
            base = storage_.local(slot, l);
            limit = storage_.local_bytes();
            break;
        case ptx::space::constant:
            base = const_cast<std::uint8_t*>(k_->constant_bank().data());
            limit = k_->constant_bank().size();
            break;
        case ptx::space::param:
            base = const_cast<std::uint8_t*>(l_->params().data());
            limit = l_->params().size();
            break;
        default:
            break;
        }
        if (write && (loc.sp == ptx::space::constant || loc.sp == ptx::space::param))
            fault_(cur_pc_, std::string("store to read-only ") + ptx::space_name(loc.sp) +
                                " memory at offset " + hex_(loc.addr) + " (lane " +
                                std::to_string(l) + ")");
        if (loc.addr > limit || limit - loc.addr < size)
            fault_(cur_pc_, std::string(ptx::space_name(loc.sp)) + " address " + hex_(loc.addr) +
                                " (" + std::to_string(size) + " bytes, lane " + std::to_string(l) +
                                ") is outside the " + std::to_string(limit) + " bytes of " +
                                ptx::space_name(loc.sp) + " memory");
        return base + loc.addr;
    }

    [[nodiscard]] std::uint64_t load_(std::uint32_t slot, const location& loc, std::size_t l,
                                      unsigned size) {
        if (loc.sp == ptx::space::global) return mem_->load_value(loc.addr, size);
        const std::uint8_t* b = bytes_(slot, loc, l, size, false);
        std::uint64_t v = 0;
        std::memcpy(&v, b, size); // little-endian host
        return v;
    }
    void store_(std::uint32_t slot, const location& loc, std::size_t l, unsigned size,
                std::uint64_t v) {
        if (loc.sp == ptx::space::global) {
            mem_->store_value(loc.addr, size, v);
            return;
        }
        std::uint8_t* b = bytes_(slot, loc, l, size, true);
        std::memcpy(b, &v, size);
    }

    [[nodiscard]] std::uint64_t timing_address_(std::uint32_t slot, const location& loc,
                                                std::size_t l, std::uint64_t chunk) const noexcept {
        if (loc.sp != ptx::space::local) return loc.addr;
        // Local memory interleaves the threads of a warp access by access (words for 4-byte
        // accesses), as NVIDIA GPUs lay it out: a warp reading one variable reads one block.
        const std::uint64_t at =
            std::uint64_t{slot} * ((storage_.local_bytes() + 15) / 16 * 16) + loc.addr;
        return ptx::generic_local_base + ((at / chunk) * WarpSize + l) * chunk + at % chunk;
    }

    // The address of lane l's access, by the PTX ISA's rules: an address in the shared,
    // local, constant or parameter space is a 32-bit offset in its window, so `[reg+imm]`
    // wraps at 32 bits there (nvcc folds negative offsets into the immediate and relies on
    // it) and a wider register is truncated. Generic and global addresses are 64-bit.
    [[nodiscard]] std::uint64_t address_(std::uint32_t slot, const ptx::prepared_inst& p,
                                         std::size_t l) const noexcept {
        return address_(p, address_row_(slot, p), l);
    }
    // The row of the address register (none without one), for address_ over a warp's lanes.
    [[nodiscard]] reg_row address_row_(std::uint32_t slot,
                                       const ptx::prepared_inst& p) const noexcept {
        return p.addr.reg != ptx::no_index ? row_(slot, p.addr.reg) : reg_row{};
    }
    [[nodiscard]] static std::uint64_t address_(const ptx::prepared_inst& p, const reg_row& base,
                                                std::size_t l) noexcept {
        std::uint64_t a = p.addr.offset;
        if (p.addr.reg != ptx::no_index) a += base.get(l);
        switch (p.addr.sp) {
        case ptx::space::shared:
        case ptx::space::local:
        case ptx::space::constant:
        case ptx::space::param:
            return a & 0xffffffffU;
        default:
            return a;
        }
    }

    void memory_(std::uint32_t slot, warp& w, const ptx::prepared_inst& p, mask exec,
                 isa::dynamic_inst<WarpSize>& d) {
        (void)w;
        const ptx::instruction& in = p.in;
        using ptx::op;
        const unsigned size = ptx::size_of(in.t);
        const unsigned vec = in.vec == 0 ? 1 : in.vec;
        if (size == 0 || (size != 1 && size != 2 && size != 4 && size != 8))
            fault_(cur_pc_, "memory access of unsupported size " + std::to_string(size));
        const bool generic = p.addr.sp == ptx::space::generic;
        if (generic) ++st_.generic_accesses;
        const std::uint64_t align_mask = std::uint64_t{size} * vec - 1; // sizes are powers of 2
        bool first = true;
        ptx::space seen = ptx::space::global;
        bool mixed = false;
        // The rows of the address register and of a load's destinations, looked up once for
        // the warp (put_ per lane would look each up again).
        const reg_row base = address_row_(slot, p);
        std::array<reg_row, 4> dst_rows{};
        std::array<std::uint64_t, 4> dst_masks{};
        const bool loads = in.opcode == op::ld || in.opcode == op::ldu;
        const ptx::extension extend(in.t);
        if (loads)
            for (unsigned e = 0; e < vec; ++e)
                if (p.dst[e] != ptx::no_index) {
                    dst_rows[e] = row_(slot, p.dst[e]);
                    dst_masks[e] = ptx::low_mask(storage_.register_bits(p.dst[e]));
                }
        if (loads && p.addr.sp == ptx::space::global && !p.call_param && !defer_) {
            global_loads_(p, exec, d, size, vec, base, extend, dst_rows, dst_masks);
            return;
        }
        for (const std::size_t l : exec) {
            const std::uint64_t a = address_(p, base, l);
            location loc = generic ? ptx::decode_generic(a) : location{p.addr.sp, a};
            if (p.call_param) loc.sp = ptx::space::local;
            if (first) {
                seen = loc.sp;
                first = false;
            } else if (loc.sp != seen) {
                mixed = true;
            }
            if (loc.sp == ptx::space::global && loc.addr >= ptx::generic_shared_base &&
                loc.addr < ptx::generic_param_base + ptx::generic_window_bytes)
                fault_(cur_pc_, "global address " + hex_(loc.addr) + " (lane " + std::to_string(l) +
                                    ") lies in the range of the generic windows, outside them");
            if ((loc.addr & align_mask) != 0)
                fault_(cur_pc_, std::string(ptx::space_name(loc.sp)) + " address " +
                                    hex_(loc.addr) + " (lane " + std::to_string(l) +
                                    ") is not aligned to the " + std::to_string(size * vec) +
                                    "-byte access");
            if (loc.sp == ptx::space::global && mem_->bounds_checked())
                check_bounds_(loc.addr, align_mask + 1, l);
            d.addr[l] = timing_address_(slot, loc, l, align_mask + 1);
            const bool held = defer_ && loc.sp == ptx::space::global;
            using dk = deferred_access::kind;
            const auto hold = [&](dk k, std::uint32_t reg, std::uint64_t at, std::uint64_t b,
                                  std::uint64_t c) {
                deferred_.hold({at, b, c, &in, slot, reg, static_cast<std::uint16_t>(l),
                                static_cast<std::uint8_t>(size), k});
            };
            switch (in.opcode) {
            case op::ld:
            case op::ldu:
                for (unsigned e = 0; e < vec; ++e) {
                    if (held)
                        hold(dk::load, p.dst[e], loc.addr + e * size, 0, 0);
                    else {
                        const std::uint64_t v = load_(slot, {loc.sp, loc.addr + e * size}, l, size);
                        if (p.dst[e] != ptx::no_index) dst_rows[e].set(l, extend(v) & dst_masks[e]);
                    }
                }
                break;
            case op::st: {
                // [addr], value or {v0, v1, ...}: the values follow the address.
                for (unsigned e = 0; e < vec; ++e) {
                    if (held)
                        hold(dk::store, 0, loc.addr + e * size, read_(slot, p.src[e], l), 0);
                    else
                        store_(slot, {loc.sp, loc.addr + e * size}, l, size,
                               read_(slot, p.src[e], l));
                }
                break;
            }
            default: { // atom, red: lane by lane in lane order
                const std::uint64_t b = p.num_src > 0 ? read_(slot, p.src[0], l) : 0;
                const std::uint64_t c = p.num_src > 1 ? read_(slot, p.src[1], l) : 0;
                if (held) {
                    hold(dk::atomic, in.opcode == op::atom ? p.dst[0] : 0, loc.addr, b, c);
                    break;
                }
                const std::uint64_t old = load_(slot, loc, l, size);
                store_(slot, loc, l, size, ptx::atomic_result(in, old, b, c));
                if (in.opcode == op::atom) put_(slot, p.dst[0], l, old, in.t);
                break;
            }
            }
        }
        if (generic && !first && !mixed) report_generic_space_(seen, d);
    }

    // ld.global and ldu.global performed at once (not held back): memory_'s checks, faults and
    // results for the one space, without its per-lane space decisions (the common load).
    void global_loads_(const ptx::prepared_inst& p, mask exec, isa::dynamic_inst<WarpSize>& d,
                       unsigned size, unsigned vec, const reg_row& base,
                       const ptx::extension& extend, const std::array<reg_row, 4>& dst_rows,
                       const std::array<std::uint64_t, 4>& dst_masks) {
        const std::uint64_t align_mask = std::uint64_t{size} * vec - 1;
        const bool checked = mem_->bounds_checked();
        global_memory::read_cursor cursor;
        for (const std::size_t l : exec) {
            const std::uint64_t a = address_(p, base, l);
            if (a >= ptx::generic_shared_base &&
                a < ptx::generic_param_base + ptx::generic_window_bytes)
                fault_(cur_pc_, "global address " + hex_(a) + " (lane " + std::to_string(l) +
                                    ") lies in the range of the generic windows, outside them");
            if ((a & align_mask) != 0)
                fault_(cur_pc_, std::string(ptx::space_name(ptx::space::global)) + " address " +
                                    hex_(a) + " (lane " + std::to_string(l) +
                                    ") is not aligned to the " + std::to_string(size * vec) +
                                    "-byte access");
            if (checked) check_bounds_(a, align_mask + 1, l);
            d.addr[l] = a;
            for (unsigned e = 0; e < vec; ++e) {
                const std::uint64_t v = mem_->load_value(a + e * size, size, cursor);
                if (p.dst[e] != ptx::no_index) dst_rows[e].set(l, extend(v) & dst_masks[e]);
            }
        }
    }

    // A generic access whose lanes all fall in the window of `seen`: the timing model sees it
    // in that space.
    static void report_generic_space_(ptx::space seen, isa::dynamic_inst<WarpSize>& d) noexcept {
        switch (seen) {
        case ptx::space::shared:
            d.si.space = isa::mem_space::shared;
            break;
        case ptx::space::local:
            d.si.space = isa::mem_space::local;
            break;
        case ptx::space::constant:
        case ptx::space::param:
            d.si.space = isa::mem_space::constant;
            break;
        default:
            break;
        }
    }

    // tex: each lane reads the texture object its handle register names (a header in device
    // memory) and samples it; the timing model sees one texel address per lane.
    void texture_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec,
                  isa::dynamic_inst<WarpSize>& d) {
        const ptx::instruction& in = p.in;
        const std::size_t dims = in.geom == ptx::tex_geom::d2 ? 2 : 1;
        std::uint64_t texel_bytes = 0;
        std::uint64_t first_texel = 0;
        bool any_texel = false;
        mask border_only;
        for (const std::size_t l : exec) {
            const std::uint64_t handle = read_(slot, p.src[0], l);
            const ptx::texture_header& h = texture_header_(handle, l);
            std::array<std::uint32_t, 2> coords{};
            for (std::size_t c = 0; c < dims; ++c)
                coords[c] = static_cast<std::uint32_t>(read_(slot, p.src[1 + c], l));
            const auto fetched = ptx::sample_texture(
                h, in.t, in.t2, std::span<const std::uint32_t>(coords.data(), dims),
                [&](std::uint64_t a, unsigned bytes) {
                    if (mem_->bounds_checked()) check_bounds_(a, bytes, l);
                    return mem_->load_value(a, bytes);
                });
            for (std::size_t e = 0; e < 4; ++e)
                if (p.dst[e] != ptx::no_index) put_(slot, p.dst[e], l, fetched.value[e], in.t);
            if (fetched.touched_memory) {
                d.addr[l] = fetched.address;
                if (!any_texel) first_texel = fetched.address;
                any_texel = true;
            } else {
                border_only.set(l);
            }
            texel_bytes = std::max<std::uint64_t>(texel_bytes, h.texel_bytes());
            if (!any_texel) first_texel = h.base;
        }
        // A lane that read only the border colour fetches nothing: it shares the warp's first
        // texel (no transaction of its own).
        for (const std::size_t l : border_only)
            d.addr[l] = first_texel;
        d.si.access_bytes = static_cast<std::uint8_t>(texel_bytes == 0 ? 4 : texel_bytes);
    }

    // The texture object at `handle` (the last one found is kept: a warp's lanes and its
    // fetches nearly always name the same one). A handle that names no texture object faults.
    const ptx::texture_header& texture_header_(std::uint64_t handle, std::size_t l) {
        if (last_texture_.has_value() && texture_handle_ == handle) return *last_texture_;
        std::array<std::uint8_t, ptx::texture_header::bytes> raw{};
        const bool inside =
            handle % 8 == 0 && handle <= ~std::uint64_t{0} - raw.size() &&
            (!mem_->bounds_checked() || mem_->allocation_at(handle, raw.size()) != nullptr);
        if (inside) mem_->read_bytes(handle, std::span<std::uint8_t>(raw));
        auto h = inside ? ptx::texture_header::decode(raw) : std::nullopt;
        if (!h || !h->problem().empty())
            fault_(cur_pc_, "tex (pc " + std::to_string(cur_pc_) + ", lane " + std::to_string(l) +
                                "): " + hex_(handle) + " is not a live texture object");
        last_texture_ = *h;
        texture_handle_ = handle;
        return *last_texture_;
    }

    // A global access of `bytes` bytes at `a` by lane l must fall inside one allocation.
    void check_bounds_(std::uint64_t a, std::uint64_t bytes, std::size_t l) {
        if (a >= hit_lo_ && a - hit_lo_ <= hit_bytes_ && hit_bytes_ - (a - hit_lo_) >= bytes)
            return;
        if (const allocation* at = mem_->allocation_at(a, bytes)) {
            hit_lo_ = at->address;
            hit_bytes_ = at->bytes;
            return;
        }
        fault_(cur_pc_, "global " + std::string(ptx::name(k_->at(cur_pc_).in.opcode)) + " of " +
                            std::to_string(bytes) + " bytes at " + hex_(a) + " (pc " +
                            std::to_string(cur_pc_) + ", lane " + std::to_string(l) +
                            ") is outside every allocation: " + mem_->nearest_allocation(a));
    }

    void barrier_(warp& w, const ptx::prepared_inst& p, mask exec) {
        auto& b = blocks_[w.block];
        const std::size_t first = exec.first();
        const std::int64_t id =
            p.num_src > 0
                ? static_cast<std::int64_t>(read_(cur_slot_, p.src[0], first) & 0xffffffffU)
                : 0;
        if (b.barrier_id >= 0 && b.barrier_id != id)
            fault_(cur_pc_, "barrier " + std::to_string(id) + " while barrier " +
                                std::to_string(b.barrier_id) +
                                " is open (one barrier at a time per block)");
        b.barrier_id = id;
        if (p.num_src > 1) {
            const std::uint64_t threads = read_(cur_slot_, p.src[1], first) & 0xffffffffU;
            b.expected = 2 * static_cast<std::uint32_t>((threads + WarpSize - 1) / WarpSize);
        }
        b.arrived += w.halves;
        if (!p.in.arrive) w.at_barrier = true;
    }

    void shuffle_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec) {
        // [d, p?] a, b, c, membermask
        std::array<std::uint64_t, WarpSize> a{};
        for (std::size_t l = 0; l < WarpSize; ++l)
            a[l] = read_(slot, p.src[0], l);
        for (const std::size_t l : exec) {
            const ptx::shuffle_source from = ptx::shuffle_lane(
                p.in.shfl, l, read_(slot, p.src[1], l), read_(slot, p.src[2], l), WarpSize);
            put_(slot, p.dst[0], l, a[from.lane], ptx::type::b32);
            if (p.num_dst > 1) put_(slot, p.dst[1], l, from.valid ? 1 : 0, ptx::type::pred);
        }
    }

    void vote_(std::uint32_t slot, const ptx::prepared_inst& p, mask exec) {
        if (exec.none()) return;
        mask members = exec;
        if (p.num_src > 1)
            members &=
                mask(static_cast<typename mask::word_type>(read_(slot, p.src[1], exec.first())));
        mask yes;
        for (const std::size_t l : members)
            if ((read_(slot, p.src[0], l) & 1U) != 0) yes.set(l);
        const std::uint64_t v = ptx::vote_result(p.in.vote, yes.bits(), members.bits());
        const ptx::type rt = p.in.vote == ptx::vote_mode::ballot ? ptx::type::b32 : ptx::type::pred;
        for (const std::size_t l : exec)
            put_(slot, p.dst[0], l, v, rt);
    }

    const ptx::launch* l_;
    const ptx::kernel* k_;
    global_memory* mem_;
    std::optional<ptx::texture_header> last_texture_; // the texture object last fetched from
    std::uint64_t texture_handle_ = 0;
    std::uint32_t shared_bytes_;
    std::vector<warp> warps_;
    std::vector<cta> blocks_;
    warp_storage<WarpSize> storage_; // registers and local memory of the running warps
    ptx_source_stats st_;
    exec_site site_{};
    std::array<operand_row, 6> ops_{};
    std::array<std::array<std::uint64_t, WarpSize>, 6> scratch_{};
    std::uint32_t cur_slot_ = 0;
    std::size_t cur_pc_ = 0;
    std::uint64_t hit_lo_ = 1;    // the allocation the last checked access fell in
    std::uint64_t hit_bytes_ = 0; // (empty at first: address 1 holds no access of >= 1 byte)
    bool can_cut_ = true;
    deferred_global deferred_; // device-memory accesses held back (defer_global)
    bool defer_ = false;
    bool deferrable_ = true;
};

/// PTX launches run on ptx_source.
template <>
struct source_of<ptx::launch> {
    template <std::size_t W, class Stack>
    using type = ptx_source<W, Stack>;
};

} // namespace warpkit::func
