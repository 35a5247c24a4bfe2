#pragma once
// Test helper: an instruction source of hand-written instruction lists, one per warp, that
// records the cycle each instruction issues at; and builders of static instructions.

#include <warpkit/core/lane_mask.hpp>
#include <warpkit/func/instruction_source.hpp>
#include <warpkit/isa/dynamic_inst.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace test {

class scripted_source {
public:
    explicit scripted_source(std::vector<std::vector<warpkit::isa::static_inst>> code)
        : code_(std::move(code)), pos_(code_.size(), 0), issued_at_(code_.size()) {}

    [[nodiscard]] bool finished(std::uint32_t s) const { return pos_[s] >= code_[s].size(); }
    [[nodiscard]] bool at_barrier(std::uint32_t) const { return false; }
    [[nodiscard]] const warpkit::isa::static_inst* peek(std::uint32_t s, std::size_t i) const {
        for (std::size_t k = 0; k < i; ++k)
            if (pos_[s] + k >= code_[s].size() || code_[s][pos_[s] + k].is_exit) return nullptr;
        return pos_[s] + i < code_[s].size() ? &code_[s][pos_[s] + i] : nullptr;
    }
    warpkit::isa::dynamic_inst<32> execute(std::uint32_t s, warpkit::func::exec_site site) {
        warpkit::isa::dynamic_inst<32> d;
        d.si = code_[s][pos_[s]++];
        d.warp = s;
        d.active = warpkit::warp_mask::full();
        for (std::size_t l = 0; l < 32; ++l)
            d.addr[l] = l * stride_bytes;
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
    /// Cycles at which warp `s`'s instructions issued.
    [[nodiscard]] const std::vector<std::uint64_t>& issued_at(std::size_t s) const {
        return issued_at_[s];
    }

    std::uint64_t stride_bytes = 4; ///< lane l of a memory access touches l * stride_bytes

private:
    std::vector<std::vector<warpkit::isa::static_inst>> code_;
    std::vector<std::size_t> pos_;
    std::vector<std::vector<std::uint64_t>> issued_at_;
};

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
