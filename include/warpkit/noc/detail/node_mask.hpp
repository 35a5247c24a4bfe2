#pragma once
/// \file
/// `node_mask`: a set of node ids of any count, one bit each in 64-bit words, visited in
/// ascending order. What a network keeps of the nodes that have work, so that a cycle visits
/// those alone, in the order a scan of every node would.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpkit::noc::detail {

class node_mask {
public:
    /// Empty, for ids below `nodes`.
    void resize(std::size_t nodes) { w_.assign((nodes + 63) / 64, 0); }
    void set(std::size_t i) noexcept { w_[i / 64] |= bit(i); }
    void reset(std::size_t i) noexcept { w_[i / 64] &= ~bit(i); }
    [[nodiscard]] bool test(std::size_t i) const noexcept { return (w_[i / 64] & bit(i)) != 0; }
    /// Empties the set.
    void clear() noexcept {
        for (auto& w : w_)
            w = 0;
    }
    /// Becomes a copy of `o` (of the same size: no allocation).
    void copy_from(const node_mask& o) noexcept {
        for (std::size_t k = 0; k < w_.size(); ++k)
            w_[k] = o.w_[k];
    }
    /// Calls visit(i) for each member in ascending order. Each word is read once, before its
    /// members are visited: a visit may remove members of the set (the visit of a member it
    /// removed still happens if its word was read already) but should not add any.
    template <class Visit>
    void visit(Visit&& visit) const {
        for (std::size_t k = 0; k < w_.size(); ++k)
            for (std::uint64_t b = w_[k]; b != 0; b &= b - 1)
                visit(64 * k + static_cast<std::size_t>(std::countr_zero(b)));
    }

private:
    [[nodiscard]] static std::uint64_t bit(std::size_t i) noexcept {
        return std::uint64_t{1} << (i % 64);
    }
    std::vector<std::uint64_t> w_;
};

} // namespace warpkit::noc::detail
