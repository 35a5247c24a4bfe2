#pragma once
/// \file
/// `packet_pool`: the packets in flight in one subnet, in reusable slots that flits refer to.

#include <warpkit/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace warpkit::noc::detail {

/// Packets held by slot number, with the sequence number of the next flit each one expects
/// at its destination (for the in-order check). Slots are reused; the storage grows only
/// past the most packets ever in flight at once.
template <class Packet>
class packet_pool {
public:
    explicit packet_pool(std::size_t reserve = 1024) {
        pool_.reserve(reserve);
        expect_.reserve(reserve);
        free_.reserve(reserve);
    }
    /// Stores `pk` in a free slot and returns the slot.
    std::uint32_t put(Packet pk) {
        std::uint32_t slot;
        if (!free_.empty()) {
            slot = free_.back();
            free_.pop_back();
            pool_[slot] = std::move(pk);
            expect_[slot] = 0;
        } else {
            slot = static_cast<std::uint32_t>(pool_.size());
            pool_.push_back(std::move(pk));
            expect_.push_back(0);
        }
        ++used_;
        return slot;
    }
    /// Removes the packet in `slot` and frees the slot.
    [[nodiscard]] Packet take(std::uint32_t slot) {
        WARPKIT_EXPECTS(used_ > 0 && slot < pool_.size());
        Packet pk = std::move(pool_[slot]);
        free_.push_back(slot);
        --used_;
        return pk;
    }
    [[nodiscard]] Packet& operator[](std::uint32_t slot) { return pool_[slot]; }
    [[nodiscard]] const Packet& operator[](std::uint32_t slot) const { return pool_[slot]; }
    /// Sequence number of the next flit the packet in `slot` expects at its destination.
    [[nodiscard]] std::uint32_t& expect(std::uint32_t slot) { return expect_[slot]; }
    /// Packets held.
    [[nodiscard]] std::uint64_t used() const noexcept { return used_; }

private:
    std::vector<Packet> pool_;
    std::vector<std::uint32_t> expect_;
    std::vector<std::uint32_t> free_;
    std::uint64_t used_ = 0;
};

} // namespace warpkit::noc::detail
