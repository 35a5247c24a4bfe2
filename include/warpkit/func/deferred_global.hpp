#pragma once
/// \file
/// `deferred_global`: device-memory accesses an instruction source holds back until the end
/// of a cycle (func::ptx_source::defer_global). A GPU whose SMs tick on several threads lets
/// each SM's source hold its loads, stores and atomics, then commits the SMs' lists one after
/// another in SM order: the order one thread performs them in, so device memory and the
/// registers the loads write end the same for any number of threads. In a cycle whose held
/// accesses are all loads (no SM holds a store or an atomic) the order cannot matter: each
/// SM's loads may then be committed on its own thread (commit_loads).

#include <warpkit/core/error.hpp>
#include <warpkit/func/global_memory.hpp>
#include <warpkit/ptx/ir.hpp>
#include <warpkit/ptx/semantics.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::func {

/// One held access: a load's register, a store's value or an atomic's operands and register.
struct deferred_access {
    enum class kind : std::uint8_t { load, store, atomic };
    std::uint64_t addr = 0;
    std::uint64_t b = 0; ///< a store's value; an atomic's first operand
    std::uint64_t c = 0; ///< an atomic's second operand (atom.cas)
    const ptx::instruction* in = nullptr;
    std::uint32_t slot = 0; ///< warp slot of the register written
    std::uint32_t reg = 0;  ///< register a load or atom writes
    std::uint16_t lane = 0;
    std::uint8_t size = 0; ///< bytes: 1, 2, 4 or 8
    kind k = kind::load;
};

/// The accesses held in one cycle, in the order they executed.
class deferred_global {
public:
    void hold(const deferred_access& a) {
        list_.push_back(a);
        if (a.k != deferred_access::kind::load) ++writes_;
    }
    [[nodiscard]] bool empty() const noexcept { return list_.empty(); }
    /// Accesses held (one per lane and vector element).
    [[nodiscard]] std::size_t size() const noexcept { return list_.size(); }
    /// True when a held access is a store or an atomic.
    [[nodiscard]] bool holds_writes() const noexcept { return writes_ != 0; }

    /// Performs the held accesses in order on `mem` and forgets them. `put(slot, reg, lane,
    /// value, type)` writes a register: a load's value, an atom's old value (red writes none).
    template <class Put>
    void commit(global_memory& mem, Put&& put) {
        for (const deferred_access& a : list_) {
            switch (a.k) {
            case deferred_access::kind::load:
                put(a.slot, a.reg, a.lane, mem.load_value(a.addr, a.size), a.in->t);
                break;
            case deferred_access::kind::store:
                mem.store_value(a.addr, a.size, a.b);
                break;
            case deferred_access::kind::atomic: {
                const std::uint64_t old = mem.load_value(a.addr, a.size);
                mem.store_value(a.addr, a.size, ptx::atomic_result(*a.in, old, a.b, a.c));
                if (a.in->opcode == ptx::op::atom) put(a.slot, a.reg, a.lane, old, a.in->t);
                break;
            }
            }
        }
        list_.clear();
        writes_ = 0;
    }

    /// commit() for a list of loads alone (holds_writes() false), reading `mem` only: it may
    /// run on several threads at once, each for its own list, while nothing writes `mem`.
    template <class Put>
    void commit_loads(const global_memory& mem, Put&& put) {
        WARPKIT_EXPECTS(writes_ == 0);
        global_memory::read_cursor cursor;
        for (const deferred_access& a : list_)
            put(a.slot, a.reg, a.lane, mem.load_value(a.addr, a.size, cursor), a.in->t);
        list_.clear();
    }

private:
    std::vector<deferred_access> list_;
    std::size_t writes_ = 0; // stores and atomics in list_
};

} // namespace warpkit::func
