#pragma once
// Test helper: an instruction source of hand-written instruction lists, one per warp, that
// records the cycle each instruction issues at (memory_rig.hpp's steps carry their addresses
// too); and builders of static instructions.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/isa/dynamic_inst.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace test {

/// Warps running hand-written lists of `Step`s, one list per warp, that records the cycle each
/// step issues at. A step is a static instruction, whose memory accesses touch l * stride_bytes
/// in lane l, or a struct holding one (`si`) with the `base` and `stride` of its lane
/// addresses; a source of such steps also tells each warp's position (`pc`).
template <class Step>
class step_source {
public:
    explicit step_source(std::vector<std::vector<Step>> code)
        : code_(std::move(code)), pos_(code_.size(), 0), issued_at_(code_.size()) {}

    [[nodiscard]] bool finished(std::uint32_t s) const { return pos_[s] >= code_[s].size(); }
    [[nodiscard]] bool at_barrier(std::uint32_t) const { return false; }
    [[nodiscard]] const warpkit::isa::static_inst* peek(std::uint32_t s, std::size_t i) const {
        for (std::size_t k = 0; k < i; ++k)
            if (pos_[s] + k >= code_[s].size() || inst(code_[s][pos_[s] + k]).is_exit)
                return nullptr;
        return pos_[s] + i < code_[s].size() ? &inst(code_[s][pos_[s] + i]) : nullptr;
    }
    warpkit::isa::dynamic_inst<32> execute(std::uint32_t s, warpkit::func::exec_site site) {
        const Step& st = code_[s][pos_[s]++];
        warpkit::isa::dynamic_inst<32> d;
        d.si = inst(st);
        d.warp = s;
        d.active = warpkit::warp_mask::full();
        for (std::size_t l = 0; l < 32; ++l)
            d.addr[l] = lane_address(st, l);
        issued_at_[s].push_back(site.clock);
        return d;
    }
    std::uint32_t start_block(std::uint32_t, std::uint32_t, std::span<const std::uint32_t>) {
        return static_cast<std::uint32_t>(code_.size());
    }
    [[nodiscard]] bool barrier_complete(std::uint32_t) const { return false; }
    void release_barrier(std::uint32_t) {}
    [[nodiscard]] bool block_finished(std::uint32_t) const {
        for (std::size_t s = 0; s < code_.size(); ++s)
            if (!finished(static_cast<std::uint32_t>(s))) return false;
        return true;
    }
    [[nodiscard]] std::uint32_t pc(std::uint32_t s) const
        requires(!std::same_as<Step, warpkit::isa::static_inst>) {
        return static_cast<std::uint32_t>(pos_[s]);
    }
    /// Cycles at which warp `s`'s steps issued.
    [[nodiscard]] const std::vector<std::uint64_t>& issued_at(std::size_t s) const {
        return issued_at_[s];
    }

    std::uint64_t stride_bytes = 4; ///< lane l of a static instruction touches l * stride_bytes

private:
    static const warpkit::isa::static_inst& inst(const warpkit::isa::static_inst& si) { return si; }
    template <class S>
    static const warpkit::isa::static_inst& inst(const S& st) {
        return st.si;
    }
    [[nodiscard]] std::uint64_t lane_address(const warpkit::isa::static_inst&,
                                             std::size_t l) const {
        return l * stride_bytes;
    }
    template <class S>
    [[nodiscard]] std::uint64_t lane_address(const S& st, std::size_t l) const {
        return st.base + l * st.stride;
    }

    std::vector<std::vector<Step>> code_;
    std::vector<std::size_t> pos_;
    std::vector<std::vector<std::uint64_t>> issued_at_;
};

/// Warps of hand-written static instructions.
using scripted_source = step_source<warpkit::isa::static_inst>;

/// An instruction of unit `u` and latency class `l` writing `dst` and reading `src`.
inline warpkit::isa::static_inst op(warpkit::isa::unit_class u, warpkit::isa::latency_class l,
                                    warpkit::isa::reg_id dst,
                                    std::vector<warpkit::isa::reg_id> src) {
    warpkit::isa::static_inst s;
    s.unit = u;
    s.latency = l;
    s.num_dst = 1;
    s.dst[0] = dst;
    for (auto r : src)
        s.src[s.num_src++] = r;
    return s;
}
/// An integer add writing `dst` and reading `src`.
inline warpkit::isa::static_inst alu(warpkit::isa::reg_id dst,
                                     std::vector<warpkit::isa::reg_id> src) {
    return op(warpkit::isa::unit_class::int_alu, warpkit::isa::latency_class::int_alu, dst,
              std::move(src));
}
/// EXIT.
inline warpkit::isa::static_inst exit_inst() {
    warpkit::isa::static_inst s;
    s.unit = warpkit::isa::unit_class::ctrl;
    s.is_exit = true;
    return s;
}

} // namespace test
